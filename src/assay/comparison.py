"""Compare two scored runs, row by row: which of two systems (or settings) is better, and how sure.

The inputs are two ``--out`` files (CSV, JSONL or Parquet), joined by ``id``. For each metric both
files hold, over the rows both scored, the difference of pass rates (B minus A) comes with a paired
bootstrap 95% interval and McNemar's exact p-value on the rows where they disagree; overall and per
domain. Rows in only one file are listed, never dropped silently. A graded metric (token_f1) is
compared by its pass (F1 = 1), as its accuracy is.

The join is checked, not trusted (issue 9): rows joined by one id must hold the same question and the
same golden answers in both files, or the comparison is refused (``allow_changed`` compares them anyway,
with a warning that counts them). Ids that are only the row numbers 1..n, as ``assay score --out``
writes for an input without ids, join by position: that join is warned about, and is only as good as the
question check that follows it (a shuffled B is refused by it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import stats
from .errors import InputError, UsageError
from .metric import MetricScores, Outcome
from .records import ROW_COLUMN, ColumnMap, Dataset, Record, load_records
from .scorer_registry import SCORERS
from .scoring import ScoreOptions, ScoreRun, blank_rows
from .signatures import PARQUET_KEY, READ_FROM, Signature, info_of, signatures_from_json
from .summary import IntervalMethod, summarize
from .text import inflection

_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})
EXAMPLE_IDS = 5  # ids named in a refusal or a warning


@dataclass(frozen=True)
class Side:
    source: str
    signature: str | None = None


@dataclass(frozen=True)
class Difference:
    """B against A over the rows both scored (soft passes count as fails, as in the strict accuracy)."""

    n: int
    a_accuracy: float | None
    b_accuracy: float | None
    difference: float | None  # b_accuracy - a_accuracy
    interval: stats.Interval | None
    p_value: float | None
    a_only: int  # rows A passes and B fails
    b_only: int


@dataclass(frozen=True)
class MetricComparison:
    combined: Difference
    domains: Mapping[str, Difference]


@dataclass(frozen=True)
class Comparison:
    a: Side
    b: Side
    method: str
    rows_in_both: int
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]
    metrics: Mapping[str, MetricComparison]
    metrics_only_in_a: tuple[str, ...] = ()  # scored in one run only: not compared, but named
    metrics_only_in_b: tuple[str, ...] = ()
    changed_ids: tuple[str, ...] = ()  # joined rows whose question or golden answers differ (allowed)
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        lists = (
            "only_in_a",
            "only_in_b",
            "metrics_only_in_a",
            "metrics_only_in_b",
            "changed_ids",
            "warnings",
        )
        for side in lists:
            found[side] = list(getattr(self, side))
        return found


def compare_files(
    a: str | Path, b: str | Path, seed: int = stats.DEFAULT_SEED, allow_changed: bool = False
) -> Comparison:
    """Load two scored files and compare them (see ``compare``)."""
    return compare(load_scored(a), load_scored(b), seed, allow_changed)


def _check_joinable_ids(dataset: Dataset) -> None:
    """Rows join by id, so an id held by two rows (a file scored with --allow-duplicate-ids) has no
    partner to join: refused here, with a fix compare can take (it has no --allow-duplicate-ids)."""
    first_seen: dict[str, int] = {}
    for record in dataset.records:
        earlier = first_seen.setdefault(record.id, record.row)
        if earlier != record.row:
            kind = dataset.location_kind
            raise UsageError(
                f"duplicate id '{record.id}' (first at {kind} {earlier}): rows are joined by id",
                where=f"{dataset.source} {kind} {record.row}",
                fix="score inputs whose ids are unique (or have no id column, to number the rows)",
            )


def load_scored(
    path: str | Path, intervals: IntervalMethod | None = None, columns: ColumnMap | None = None
) -> ScoreRun:
    """A scored file (``assay score --out``) as a run again: its verdict columns become each metric's
    verdicts, summarised as they were (the signatures say where they were read from)."""
    dataset = load_records(path, columns=columns, need_responses=False, allow_duplicate_ids=True)
    if "id" not in dataset.fields and ROW_COLUMN not in dataset.columns:  # numbered rows join by position
        raise UsageError(
            "the scored file has no id column, so its rows cannot be joined to another run's",
            where=dataset.source,
            fix="name the column that holds the ids with --id-col NAME",
        )
    _check_joinable_ids(dataset)
    metrics = verdict_columns(dataset.columns)
    if not metrics:
        raise UsageError(
            "the file has no verdict column",
            where=dataset.source,
            fix="give a file written by assay score --out",
        )
    results = {metric: _verdicts_of(dataset, metric) for metric in metrics}
    blank = blank_rows(dataset.records)  # a failed system's empty reply is no blank answer
    stored = _stored_signatures(path)
    signatures = {metric: stored.get(metric) or _signature(dataset, metric) for metric in metrics}
    options = ScoreOptions(intervals=intervals or IntervalMethod())
    summary = summarize(dataset, results, blank, signatures, options.signature_parts(), options.intervals)
    return ScoreRun(dataset, options, results, blank, summary)


def verdict_columns(columns: Sequence[str]) -> list[str]:
    """The metrics whose verdicts a scored file holds: the registered ones (plugins' too) with a column,
    then any other column written as a metric's verdict is (beside its ``<metric>_answer``: a configured
    scorer's, such as an LLM grader's)."""
    known = [name for name in SCORERS if name in columns]
    return known + [c for c in columns if f"{c}_answer" in columns and c not in known]


def _signature(dataset: Dataset, metric: str) -> Signature:
    """What a scored file without stored signatures (CSV, JSONL, an older Parquet) tells of a metric:
    its name, whether it had soft passes, and where it was read."""
    soft = [inflection.SIGNATURE_ON] if f"{metric}_soft" in dataset.columns else []
    return Signature({**Signature.of(metric, soft).info, READ_FROM: dataset.source})


def _stored_signatures(path: str | Path) -> dict[str, Signature]:
    """The signatures a Parquet --out carries in its metadata (``assay.signatures``); {} for other
    files, and for a Parquet file written before signatures were stored."""
    if Path(path).suffix.lower() != ".parquet":
        return {}
    try:
        import pyarrow.parquet as pq

        metadata = pq.read_schema(path).metadata or {}
    except (ImportError, OSError, ValueError):  # the load itself has reported a bad file already
        return {}
    return signatures_from_json(metadata[PARQUET_KEY]) if PARQUET_KEY in metadata else {}


def _verdicts_of(dataset: Dataset, metric: str) -> MetricScores:
    graded = metric in SCORERS and SCORERS[metric].graded
    read = [_cell(record.meta.get(metric), graded) for record in dataset.records]
    wrong = [record.id for record, found in zip(dataset.records, read) if found is None]
    if wrong:
        kind = "a score from 0 to 1" if graded else "true or false"
        raise UsageError(
            f"column '{metric}' holds values that are not verdicts ({kind}, or empty when unscored) "
            f"in {len(wrong)} rows: ids {', '.join(wrong[:10])}",
            where=dataset.source,
            fix="give the file assay score --out wrote, unedited",
        )
    scores = MetricScores.all_failing(metric, len(read), graded=graded)
    for row, (record, found) in enumerate(zip(dataset.records, read)):
        assert found is not None
        outcome, value = found
        if outcome is Outcome.FAIL and str(record.meta.get(f"{metric}_soft", "")).lower() == "true":
            outcome = Outcome.SOFT_PASS
        scores.outcomes[row] = outcome
        if scores.values is not None:
            scores.values[row] = value
    return scores


def _cell(cell: object, graded: bool) -> tuple[Outcome, float] | None:
    """A verdict cell: (outcome, score), or None when it is not a verdict. Empty (or NaN, as pandas
    writes an empty cell) is unscored; a graded metric's score passes at 1."""
    if cell is None or cell == "" or (isinstance(cell, float) and math.isnan(cell)):
        return Outcome.UNSCORED, 0.0
    if graded and not isinstance(cell, bool):
        try:
            value = float(str(cell))
        except ValueError:
            return None
        if not 0.0 <= value <= 1.0:  # inf and nan included
            return None
        return (Outcome.PASS if value == 1.0 else Outcome.FAIL), value
    text = str(cell).strip().lower()
    if text in _TRUE:
        return Outcome.PASS, 1.0
    if text in _FALSE:
        return Outcome.FAIL, 0.0
    return None


def compare(
    a: ScoreRun, b: ScoreRun, seed: int = stats.DEFAULT_SEED, allow_changed: bool = False
) -> Comparison:
    """B against A, joined by id, for every metric both runs scored. Rows joined by one id whose
    question or golden answers differ are refused (InputError), or with `allow_changed` compared
    anyway and counted in the warnings."""
    metrics = [m for m in a.metrics if m in b.metrics]
    if not metrics:
        raise UsageError(
            f"the two runs share no metric (A has {', '.join(a.metrics)}, B has {', '.join(b.metrics)})",
            where=f"{a.dataset.source}, {b.dataset.source}",
            fix="compare two runs scored with at least one common metric",
        )
    b_row = {record.id: index for index, record in enumerate(b.records)}
    pairs = [(i, b_row[record.id]) for i, record in enumerate(a.records) if record.id in b_row]
    a_ids = {record.id for record in a.records}
    changed, warnings = _check_join(a, b, pairs, allow_changed)
    warnings += _signature_warnings(a, b, metrics)
    return Comparison(
        a=Side(a.dataset.source),
        b=Side(b.dataset.source),
        method=f"paired bootstrap 95% (seed={seed}, resamples={stats.RESAMPLES}); McNemar exact",
        rows_in_both=len(pairs),
        only_in_a=tuple(record.id for record in a.records if record.id not in b_row),
        only_in_b=tuple(record.id for record in b.records if record.id not in a_ids),
        metrics={metric: _metric(a, b, metric, pairs, seed) for metric in metrics},
        metrics_only_in_a=tuple(m for m in a.metrics if m not in b.metrics),
        metrics_only_in_b=tuple(m for m in b.metrics if m not in a.metrics),
        changed_ids=changed,
        warnings=warnings,
    )


def _signature_warnings(a: ScoreRun, b: ScoreRun, metrics: Sequence[str]) -> tuple[str, ...]:
    """A line per metric that A and B scored under different settings (both signatures known): the
    difference may be the settings', not the systems'."""
    found = []
    for metric in metrics:
        sig_a, sig_b = a.summary.metrics[metric].signature, b.summary.metrics[metric].signature
        info_a, info_b = info_of(sig_a), info_of(sig_b)
        if info_a is None or info_b is None or READ_FROM in info_a or READ_FROM in info_b:
            continue  # one side's settings are unknown
        assert isinstance(sig_a, Signature) and isinstance(sig_b, Signature)
        differences = sig_a.differences(sig_b)
        if differences:
            found.append(
                f"{metric} was scored under different signatures in A and B ({'; '.join(differences)})"
            )
    return tuple(found)


def _check_join(
    a: ScoreRun, b: ScoreRun, pairs: Sequence[tuple[int, int]], allow_changed: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ids whose rows differ between the files, and the warnings about the join; raises when the
    join is not one of the same questions (no id in common, or changed rows not allowed)."""
    where = f"{a.dataset.source}, {b.dataset.source}"
    numbered = [side for side, run in (("A", a), ("B", b)) if ids_are_row_numbers(run.dataset)]
    hint = " (their ids are only row numbers: give both inputs an id column)" if numbered else ""
    if not pairs:
        raise InputError(
            f"the two files share no id, so no row can be compared{hint}",
            where=where,
            fix="compare two runs of the same questions, with the same ids",
        )
    changed = [(i, j) for i, j in pairs if _row_differs(a.records[i], b.records[j])]
    warnings = []
    if numbered:
        warnings.append(
            f"the ids of {' and '.join(numbered)} are only the row numbers 1..n (an input without ids): "
            f"{len(pairs)} rows were joined by position, trusted only because their questions and golden "
            "answers match; give the inputs an id column"
        )
    if changed:
        examples = "; ".join(_difference_of(a.records[i], b.records[j]) for i, j in changed[:EXAMPLE_IDS])
        what = f"{len(changed)} of {len(pairs)} rows joined by id have another question or golden answer in B"
        if not allow_changed:
            raise InputError(
                f"{what}{hint} (e.g. {examples})",
                where=where,
                fix="compare two runs of the same questions; or pass --allow-changed-questions to compare "
                "them anyway",
            )
        warnings.append(f"{what}, compared anyway (--allow-changed-questions): e.g. {examples}")
    return tuple(a.records[i].id for i, _ in changed), tuple(warnings)


def ids_are_row_numbers(dataset: Dataset) -> bool:
    """Whether a file's ids are only its row numbers, so that its rows join by position: it has no id
    column. An id column, found or named, holds the file's own ids, 1..n included: ``--out`` writes the
    row numbers of an input without ids as ``row`` (``records.ROW_COLUMN``), never as ``id``."""
    return "id" not in dataset.fields


def _row_differs(a: Record, b: Record) -> bool:
    return a.question != b.question or a.answers != b.answers


def _difference_of(a: Record, b: Record) -> str:
    """One changed row in a few words: its id, and the first field that differs, as A and B have it."""
    if a.question != b.question:
        return f"id {a.id}: question {_short(a.question)} in A, {_short(b.question)} in B"
    golden_a, golden_b = (_short(" | ".join(record.answers)) for record in (a, b))
    return f"id {a.id}: golden answers {golden_a} in A, {golden_b} in B"


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _metric(
    a: ScoreRun, b: ScoreRun, metric: str, pairs: Sequence[tuple[int, int]], seed: int
) -> MetricComparison:
    """Over the rows both scored; a soft pass is not a pass (the strict accuracy's rule)."""
    a_outcomes, b_outcomes = a.metrics[metric].outcomes, b.metrics[metric].outcomes
    scored = [
        (a.records[i].domain, Outcome(a_outcomes[i]), Outcome(b_outcomes[j]))
        for i, j in pairs
        if Outcome.UNSCORED not in (a_outcomes[i], b_outcomes[j])
    ]
    domains = sorted({a.records[i].domain for i, _ in pairs})  # a domain nothing scored in both shows n 0
    return MetricComparison(
        combined=_difference([(x, y) for _, x, y in scored], seed),
        domains={d: _difference([(x, y) for domain, x, y in scored if domain == d], seed) for d in domains},
    )


def _difference(pairs: Sequence[tuple[Outcome, Outcome]], seed: int) -> Difference:
    cells = {(x, y): 0 for x in (True, False) for y in (True, False)}
    for x, y in pairs:
        cells[x is Outcome.PASS, y is Outcome.PASS] += 1
    both, a_only, b_only, neither = (
        cells[True, True],
        cells[True, False],
        cells[False, True],
        cells[False, False],
    )
    paired = stats.paired_bootstrap(both, a_only, b_only, neither, seed)
    n = len(pairs)
    return Difference(
        n=n,
        a_accuracy=(both + a_only) / n if n else None,
        b_accuracy=(both + b_only) / n if n else None,
        difference=paired.difference,
        interval=paired.interval,
        p_value=paired.p_value,
        a_only=a_only,
        b_only=b_only,
    )
