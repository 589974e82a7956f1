"""The one report model: what every report says, as plain data, built once from a run (or from its
summary alone, when the file was scored by several processes). Text, JSON, Markdown and HTML all
render a ``Report``; the JSON summary is its ``as_dict()``.

Rows (the Markdown misses, the HTML question table) carry a question's parts by record field (id,
domain, lang, question, golden, response), whatever the input columns were called: the dataset's
column map (``Dataset.fields``) was applied when the records were read, so a file with
``--answer-col gold --response-col reply`` reports the same as one with the usual names.

Every renderer (text, JSON, Markdown, HTML, plot) takes a ``Report`` and nothing else; what else a
report holds (a harness run's numbers, a comparison of two runs) comes in as its ``sections``
(``report/sections.py``), built by whoever has the data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from .._gc import collection_paused
from .._version import __version__
from ..metric import Outcome
from ..signatures import info_of
from ..stats import Interval
from ..summary import Agreement, IntervalMethod, MetricSummary, Review, Summary, Tally
from ..trace import Trace, trace_dicts
from ._section import GivesSection, Section
from .judge import KEYS_ALWAYS_WRITTEN

if TYPE_CHECKING:
    from ..records import Record
    from ..scoring import ScoreRun

SectionType = TypeVar("SectionType", bound=Section)


@dataclass(frozen=True)
class Cell:
    """One tally as reported: counts, the strict accuracy with its 95% interval, soft passes, and a
    graded metric's mean score."""

    n: int
    passed: int
    failed: int
    blank: int
    unscored: int
    accuracy: float | None
    interval: Interval | None
    soft: int
    accuracy_with_soft: float | None  # only for a metric run with soft credit (--inflection)
    soft_credit: bool
    mean: float | None
    graded: bool
    mean_interval: Interval | None = None  # a graded metric's mean's 95% interval

    def charted(self) -> tuple[float | None, Interval | None]:
        """What a chart and a headline show of this tally: a graded metric's mean score with its interval
        (its strict accuracy counts only perfect scores, near 0% on sentence answers), else the accuracy."""
        return (self.mean, self.mean_interval) if self.graded else (self.accuracy, self.interval)

    @classmethod
    def of(cls, tally: Tally, soft_credit: bool, intervals: IntervalMethod) -> Cell:
        return cls(
            n=tally.n,
            passed=tally.passed,
            failed=tally.failed,
            blank=tally.blank,
            unscored=tally.unscored,
            accuracy=tally.accuracy,
            interval=intervals.of(tally),
            soft=tally.soft,
            accuracy_with_soft=tally.accuracy_with_soft if soft_credit else None,
            soft_credit=soft_credit,
            mean=tally.mean,
            graded=tally.graded,
            mean_interval=tally.mean_interval,
        )

    @classmethod
    def from_dict(cls, found: Mapping[str, Any]) -> Cell:
        """A tally as ``as_dict`` wrote it (a summary file); a count it lacks reads as 0."""
        interval = found.get("interval") or {}
        low, high = interval.get("low"), interval.get("high")
        mean_interval = found.get("mean_interval") or {}
        mean_low, mean_high = mean_interval.get("low"), mean_interval.get("high")
        return cls(
            n=found["n"],
            passed=found.get("passed", 0),
            failed=found.get("failed", 0),
            blank=found.get("blank", 0),
            unscored=found.get("unscored", 0),
            accuracy=found.get("accuracy"),
            interval=None if low is None or high is None else Interval(low, high),
            soft=found.get("soft", 0),
            accuracy_with_soft=found.get("accuracy_with_soft"),
            soft_credit="accuracy_with_soft" in found,
            mean=found.get("mean"),
            graded="mean" in found,
            mean_interval=None if mean_low is None or mean_high is None else Interval(mean_low, mean_high),
        )

    def as_dict(self) -> dict[str, Any]:
        soft = {"soft": self.soft} | (
            {"accuracy_with_soft": self.accuracy_with_soft} if self.soft_credit else {}
        )
        return {
            "n": self.n,
            "passed": self.passed,
            "failed": self.failed,
            "blank": self.blank,
            "unscored": self.unscored,
            "accuracy": self.accuracy,
            "interval": None if self.interval is None else self.interval.as_dict(),
            **soft,
            **({"mean": self.mean} if self.graded else {}),
            **({"mean_interval": _interval_dict(self.mean_interval)} if self.graded else {}),
        }


def _interval_dict(interval: Interval | None) -> dict[str, float] | None:
    return None if interval is None else interval.as_dict()


@dataclass(frozen=True)
class MetricReport:
    name: str
    signature: str
    signature_info: Mapping[str, str] | None  # the signature's parts (None for one read from an old file)
    combined: Cell
    domains: Mapping[str, Cell]
    langs: Mapping[str, Cell]  # empty without a language column
    soft_credit: bool
    timed_out_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        found = {
            "signature": self.signature,
            **({"signature_info": dict(self.signature_info)} if self.signature_info else {}),
            "combined": self.combined.as_dict(),
            "domains": {domain: cell.as_dict() for domain, cell in self.domains.items()},
        }
        return found | (
            {"langs": {lang: c.as_dict() for lang, c in self.langs.items()}} if self.langs else {}
        )


@dataclass(frozen=True)
class Row:
    """One question as the reports show it: its parts by record field, each metric's verdict (True,
    False, a graded score, or None for unscored), soft passes, the agreement bucket and the traces."""

    id: str
    domain: str
    lang: str
    question: str
    golden: tuple[str, ...]
    response: str
    verdicts: Mapping[str, bool | float | None]
    soft: Mapping[str, bool]
    agreement: str | None
    traces: Mapping[str, Mapping[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"golden": list(self.golden)}


@dataclass(frozen=True)
class Report:
    """Everything a report says about one run. ``rows`` is empty when built from a summary alone."""

    source: str
    total: int
    blank: int
    empty_golden_ids: tuple[str, ...]
    null_cells: Mapping[str, tuple[str, ...]]
    limit: int | None
    options: str
    intervals: str  # the interval method's signature
    version: str
    metrics: Mapping[str, MetricReport]
    agreement: Agreement | None
    review: Review | None
    has_lang: bool
    rows: tuple[Row, ...] = ()  # the rows the report shows (``report.shown``): of a large run, some
    # The rows each metric missed (``is_miss``), counted over every row, not only those shown
    missed: Mapping[str, int] = field(default_factory=dict)
    columns: Mapping[str, str] = field(default_factory=dict)  # record field -> input column
    sections: tuple[Section, ...] = ()  # more sections, in order (report/sections.py)
    blocked: int = 0  # replies a system's guard blocked (Summary.blocked), not counted in `blank`

    def placed(self, place: str) -> list[Section]:
        """The report's sections that go at `place` (``sections.LEAD``, ``BODY``), in order."""
        return [found for found in self.sections if found.place == place]

    def section_warnings(self) -> list[str]:
        """Every section's warnings, in the sections' order."""
        return [warning for found in self.sections for warning in found.warnings()]

    def section(self, kind: type[SectionType]) -> SectionType | None:
        """The report's first section of this kind, or None."""
        return next((found for found in self.sections if isinstance(found, kind)), None)

    def with_sections(self, *sections: Section) -> Report:
        """This report with `sections` after its own."""
        return replace(self, sections=(*self.sections, *sections))

    def as_dict(self) -> dict[str, Any]:
        """The JSON summary (``--json``): the keys every earlier version wrote, and a few more."""
        return {
            "signature": {
                "protocols": {name: metric.signature for name, metric in self.metrics.items()},
                "options": self.options,
                "intervals": self.intervals,
                "limit": self.limit,
                "assay": self.version,
            },
            "source": self.source,
            "rows": {
                "total": self.total,
                "blank": self.blank,
                **({"blocked": self.blocked} if self.blocked else {}),
                "empty_golden_ids": list(self.empty_golden_ids),
                "null_cells": {column: list(ids) for column, ids in self.null_cells.items()},
            },
            "metrics": {name: metric.as_dict() for name, metric in self.metrics.items()},
            **self._section_entries(),
            "agreement": None if self.agreement is None else agreement_dict(self.agreement),
            "review": None if self.review is None else review_dict(self.review),
        }

    def _section_entries(self) -> dict[str, Any]:
        """The sections' keys of the JSON summary, between the metrics and the agreement: the keys every
        summary carries (null when no section fills them), then the sections' own."""
        found: dict[str, Any] = dict.fromkeys(KEYS_ALWAYS_WRITTEN)
        for section in self.sections:
            if section.key is not None:
                found[section.key] = section.as_dict()
        return found


def build_report(
    source: ScoreRun | Summary,
    rows: Iterable[Mapping[str, Any]] | None = None,
    sections: Sequence[Section] = (),
) -> Report:
    """The report of a run (with its rows), or of a summary alone (without rows). `rows` are the run's
    per-row verdicts when the caller has them already; by default they are made here. `sections` are
    the report's more sections (a harness run's numbers, a comparison), in order, after the sections its
    run scorers' accounting gives (``details_sections``)."""
    from ..scoring import ScoreRun

    run = source if isinstance(source, ScoreRun) else None
    summary = source.summary if isinstance(source, ScoreRun) else source
    found: tuple[Row, ...] = ()
    missed: dict[str, int] = {}
    if run is not None:
        with collection_paused():  # many small containers, no cycle: see _gc
            found, missed = _shown(run, rows)
    return Report(
        source=summary.source,
        total=summary.total,
        blank=summary.blank,
        blocked=summary.blocked,
        empty_golden_ids=summary.empty_golden_ids,
        null_cells=summary.null_cells,
        limit=summary.limit,
        options=summary.options,
        intervals=summary.intervals.signature(),
        version=__version__,
        metrics={name: _metric(m, summary.intervals) for name, m in summary.metrics.items()},
        agreement=summary.agreement,
        review=summary.review,
        has_lang=summary.langs_column,
        rows=found,
        missed=missed,
        columns=dict(run.dataset.fields) if run is not None else {},
        sections=(*details_sections(summary), *sections),
    )


def details_sections(summary: Summary) -> list[Section]:
    """The sections of what the run scorers said of the whole run (``Summary.details``, by metric, in
    the run's order): each whose details can give one (a ``report_section()`` method)."""
    return [
        details.report_section() for details in summary.details.values() if isinstance(details, GivesSection)
    ]


def report_from_summary(summary: Mapping[str, Any]) -> Report:
    """The Report of a summary file ``assay score --json`` wrote (``Report.as_dict()``), as ``assay plot``
    draws it: its source, counts, signature and every metric's tallies. The sections (a run scorer's
    accounting), the agreement and the review are not read back, and a summary has no rows."""
    signature, counts = summary.get("signature") or {}, summary.get("rows") or {}
    protocols = signature.get("protocols") or {}
    metrics = {
        name: _metric_from_dict(name, found, protocols.get(name))
        for name, found in summary["metrics"].items()
    }
    return Report(
        source=str(summary.get("source", "")),
        total=counts.get("total", 0),
        blank=counts.get("blank", 0),
        blocked=counts.get("blocked", 0),
        empty_golden_ids=tuple(counts.get("empty_golden_ids") or ()),
        null_cells={column: tuple(ids) for column, ids in (counts.get("null_cells") or {}).items()},
        limit=signature.get("limit"),
        options=signature.get("options", ""),
        intervals=signature.get("intervals", ""),
        version=signature.get("assay", __version__),
        metrics=metrics,
        agreement=None,
        review=None,
        has_lang=any(metric.langs for metric in metrics.values()),
    )


def _metric_from_dict(name: str, found: Mapping[str, Any], signature: str | None) -> MetricReport:
    combined = Cell.from_dict(found["combined"])
    return MetricReport(
        name=name,
        signature=str(found.get("signature", signature or "")),
        signature_info=found.get("signature_info"),
        combined=combined,
        domains={domain: Cell.from_dict(tally) for domain, tally in found["domains"].items()},
        langs={lang: Cell.from_dict(tally) for lang, tally in (found.get("langs") or {}).items()},
        soft_credit=combined.soft_credit,
    )


def verdict_dicts(run: ScoreRun) -> Iterable[Mapping[str, Any]]:
    """The run's per-row verdicts with their traces: the one place reports get them (``report.rows``;
    a switch to traces computed once per run is a change here)."""
    from .rows import verdict_rows

    return verdict_rows(run)


def _shown(run: ScoreRun, rows: Iterable[Mapping[str, Any]] | None) -> tuple[tuple[Row, ...], dict[str, int]]:
    """The rows the report shows (``report.shown``), and each metric's misses over every row. Without
    `rows`, the shown rows' verdicts and traces are computed for them alone (the run cut to them);
    given every row's (a harness run's, with its own traces), those at the shown rows are kept."""
    from .shown import run_of_rows, shown_rows

    shown = shown_rows(run)
    if rows is None:
        part = run if len(shown) == len(run.records) else run_of_rows(run, shown)
        return tuple(_rows(part, verdict_dicts(part))), _missed_in_columns(run)
    missed = dict.fromkeys(run.metrics, 0)
    wanted, kept = set(shown), []
    for index, (record, row) in enumerate(zip(run.records, rows)):
        for name in missed:
            missed[name] += is_miss(row.get(name))
        if index in wanted:
            kept.append((record, row))
    return tuple(_rows_of(run, kept)), missed


def is_miss(verdict: Any) -> bool:
    """Whether a verdict (``report.rows``' cell: True, False, a graded score, None for unscored) is a
    miss: False (a soft pass among them), or a graded score below 1."""
    return verdict is False or (isinstance(verdict, float) and verdict < 1)


def _missed_in_columns(run: ScoreRun) -> dict[str, int]:
    """Each metric's misses (``is_miss``) over every row, counted in its columns."""
    missed = {}
    for name, scores in run.metrics.items():
        outcomes = scores.outcomes
        if scores.values is None:  # the verdict is False for a fail and a soft pass
            missed[name] = outcomes.count(Outcome.FAIL) + outcomes.count(Outcome.SOFT_PASS)
        else:  # a graded metric's verdict is its score, None where unscored
            unscored = Outcome.UNSCORED
            missed[name] = sum(code != unscored and value < 1 for code, value in zip(outcomes, scores.values))
    return missed


def _metric(metric: MetricSummary, intervals: IntervalMethod) -> MetricReport:
    soft = metric.soft_credit
    return MetricReport(
        name=metric.metric,
        signature=str(metric.signature),
        signature_info=info_of(metric.signature),
        combined=Cell.of(metric.combined, soft, intervals),
        domains={domain: Cell.of(t, soft, intervals) for domain, t in metric.domains.items()},
        langs={lang: Cell.of(t, soft, intervals) for lang, t in metric.langs.items()},
        soft_credit=soft,
        timed_out_ids=metric.timed_out_ids,
    )


def _rows(run: ScoreRun, rows: Iterable[Mapping[str, Any]]) -> Iterable[Row]:
    return _rows_of(run, zip(run.records, rows))


def _rows_of(run: ScoreRun, rows: Iterable[tuple[Record, Mapping[str, Any]]]) -> Iterable[Row]:
    metrics = list(run.metrics)
    for record, row in rows:
        yield Row(
            id=record.id,
            domain=record.domain,
            lang=record.lang,
            question=record.question,
            golden=record.answers,
            response=record.response,
            verdicts={name: row.get(name) for name in metrics},
            soft={name: bool(row[f"{name}_soft"]) for name in metrics if f"{name}_soft" in row},
            agreement=row.get("agreement"),
            traces=_traces(row.get("trace")),
        )


def _traces(found: Mapping[str, Trace] | None) -> dict[str, Any]:
    return trace_dicts(found)  # the typed traces (``report.rows.verdict_rows``) as the renderers read them


def agreement_dict(agreement: Agreement) -> dict[str, Any]:
    return {
        "pair": list(agreement.pair),
        "buckets": list(agreement.buckets),
        "overall": dict(agreement.overall),
        "domains": {domain: dict(counts) for domain, counts in agreement.domains.items()},
        "examples": {b: [asdict(e) for e in found] for b, found in agreement.examples.items()},
        "review_ids": list(agreement.review_ids),
    }


def review_dict(review: Review) -> dict[str, Any]:
    return {
        "total": review.total,
        "counts": dict(review.counts),
        "rows": [asdict(row) for row in review.rows],
        "cue_rows_scanned": review.cue_rows_scanned,
        "cue_rows_passing": review.cue_rows_passing,
    }
