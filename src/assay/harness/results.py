"""A harness run's reports in its folder: ``results.json`` (for machines), ``results.md`` (the seed's
headline, the rollups, the hallucination breakdown, the misses with their traces) and ``results.html``
(assay's HTML report with those sections), each written atomically.

``results_dict`` is the one model of them: the run's Report (``run_report``) holds it as its
``RunResults`` section (``results_report``), and the Markdown and the HTML are renderings of that Report
(the HTML's table of questions is the report's rows), so the three cannot disagree. Its numbers:

- factual accuracy: the derived metric ``factual`` (``harness.outcomes``) over the items it scored, with
  the run's 95% interval (Wilson's by default);
- citation accuracy: ``citation``, grounded's verdict on the answerable items answered (when it ran),
  with ``grounding``: which grounding checks ran (with --sources: names, scope, pages, quotes, numbers
  against the documents; without: the citations' names and scope against the gold set's names only);
- refusal precision and recall: from the ``refusal`` metric's ``declined`` column over the items it
  scored; precision = declined refusal items / declined items, recall = declined refusal items /
  refusal items (the seed called its recall "precision");
- who decided the outcomes (``decided_by``: the matchers, the judge, the guard, the system), and how many
  items the judge was asked (behind the run's cascade: only those the matchers left unscored);
- rollups per category (``gold.category``), per scope (the item's ``scope``) and per route
  (``reply.route``; "(none)" when the system named none), each n, correct, scored, accuracy, interval.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..judges.accounting import judge_summary
from ..metric import system_failures
from ..outputs import json_document, write_text
from ..records import Record
from ..report.html import render_html
from ..report.model import Report, build_report
from ..scorers import MetricScores, Outcome
from ..scorers.grounded import checks_ran
from ..scoring import ScoreRun
from ..signatures import info_of
from ..summary import Tally
from .outcomes import (
    CITATION,
    DECIDED_COLUMN,
    DECIDERS,
    DECLINED_COLUMN,
    DERIVED,
    FACTUAL,
    GROUNDED,
    OUTCOME_COLUMN,
    OUTCOMES,
    REASON_COLUMN,
    REFUSAL,
)
from .results_html import question_rows
from .results_report import RunResults, render_run_markdown
from .run_gate import GateSettings, RunGate

NO_VALUE = "(none)"  # a rollup's key for items without a category, scope or route
RESULTS_FILES = ("results.json", "results.md", "results.html")


@dataclass(frozen=True)
class RunInfo:
    """What a run's numbers depend on besides its rows: written with them as its signatures."""

    system: str  # the system's spec, as given
    system_signature: str  # the spec with its options (System.signature())
    gold_path: str
    gold_sha256: str
    judges: tuple[str, ...] = ()  # the judge chain's specs; none: graded deterministically only
    rubric: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)  # concurrency, timeout, retries, scopes, limit
    started: str | None = None  # ISO 8601, UTC
    elapsed: float | None = None  # seconds
    assay: str = __version__
    sources: str | None = None  # the documents folder grounded read
    gate: GateSettings | None = None

    def as_dict(self) -> dict[str, Any]:
        found = dataclasses.asdict(self)
        found["judges"] = list(self.judges)
        found["options"] = dict(self.options)
        found["gate"] = None if self.gate is None else _settings_dict(self.gate)
        return found


def write_results(
    run: ScoreRun, out_dir: Path, info: RunInfo, gate: RunGate | None = None
) -> dict[str, Path]:
    """Write results.json, results.md and results.html of the run (with its outcomes: ``with_outcomes``)
    and its `gate`'s checks into `out_dir` (made if missing): each complete or not at all. Returns the
    paths, by file name."""
    found = results_dict(run, info, gate)
    report = run_report(run, found)
    out_dir.mkdir(parents=True, exist_ok=True)
    texts = {
        "results.json": json_document(found),
        "results.md": render_run_markdown(report),
        "results.html": render_html(report),
    }
    return {name: write_text(out_dir / name, text) for name, text in texts.items()}


def run_report(run: ScoreRun, results: Mapping[str, Any]) -> Report:
    """The run's Report (``run`` has its outcomes: ``with_outcomes``): assay's report of every metric,
    its table of questions with each scoring metric's trace and the outcome as ``factual``'s, and the
    run's own numbers (``results``, ``results_dict``) as its ``RunResults`` section."""
    original = original_metrics(run)  # held: the traces hold their run only weakly
    rows = question_rows(run, original, outcome_traces(run))
    return build_report(run, rows, sections=[RunResults(results)])


_TRACE_OUTCOMES = {"correct": "pass", "correct_ungrounded": "pass", "unscored": "unscored"}


def outcome_traces(run: ScoreRun) -> list[dict[str, dict[str, Any]]]:
    """Each item's outcome and its reason as ``factual``'s trace (a derived metric has no trace of its
    own), for the table of questions."""
    factual = run.metrics[FACTUAL].texts
    found = []
    for index, record in enumerate(run.records):
        outcome = factual[OUTCOME_COLUMN][index] or ""
        trace = {
            "outcome": _TRACE_OUTCOMES.get(outcome, "fail"),
            "rule": f"{outcome}: {factual[REASON_COLUMN][index]}",
            "golden": " | ".join(record.answers),
            "response": record.response,
            "span": None,
        }
        found.append({FACTUAL: trace})
    return found


def results_dict(run: ScoreRun, info: RunInfo, gate: RunGate | None = None) -> dict[str, Any]:
    """The model of a run's reports (what results.json holds) of a run with its outcomes (``outcomes.
    with_outcomes``, made once by the caller) and its gate's checks (``run_gate.check_run``), if gated."""
    if FACTUAL not in run.metrics:
        raise ValueError("results_dict reads a run with its outcomes: give it with_outcomes(run)")
    factual = run.metrics[FACTUAL]
    classes = factual.texts[OUTCOME_COLUMN]
    interval = run.summary.interval
    return {
        "kind": "assay run results",
        "headline": {
            "questions": len(run.records),
            "factual": tally_dict(run.summary.metrics[FACTUAL].combined, interval),
            "citation": (
                tally_dict(run.summary.metrics[CITATION].combined, interval)
                if CITATION in run.metrics
                else None
            ),
            "grounding": grounding_checks(run, info),
            "refusal": refusal_rates(run),
            "blocked": sum(bool(r.reply is not None and r.reply.blocked) for r in run.records),
            "system_errors": classes.count("system_error"),
            "elapsed": info.elapsed,
            "judged": bool(info.judges),
            "decided_by": {name: factual.texts[DECIDED_COLUMN].count(name) for name in DECIDERS},
            "judge_asked": judge_asked(run),
        },
        "outcomes": {name: classes.count(name) for name in OUTCOMES},
        "rollups": {by: rollup(run.records, factual, key, interval) for by, key in ROLLUP_KEYS.items()},
        "gate": None if gate is None else gate.as_dict(),
        "signatures": {
            **info.as_dict(),
            "metrics": {name: str(m.signature) for name, m in run.summary.metrics.items()},
            "metric_info": {name: _info(m.signature) for name, m in run.summary.metrics.items()},
        },
        "items": _items(run),
    }


def judge_asked(run: ScoreRun) -> dict[str, Any] | None:
    """How many items the judge was asked, and which (``undecided``: those the deterministic metrics
    left unscored, the run's cascade; ``all``: --judge-all); None without a judge."""
    judge = judge_summary(run.summary)
    if judge is None:
        return None
    return {"items": judge.sent_to_judges, "which": "undecided" if judge.cascade else "all"}


def tally_dict(tally: Tally, interval_of: Callable[[Tally], Any]) -> dict[str, Any]:
    found = interval_of(tally)
    return {
        "n": tally.n,
        "correct": tally.passed,
        "scored": tally.n - tally.unscored,
        "unscored": tally.unscored,
        "accuracy": tally.accuracy,
        "interval": None if found is None else found.as_dict(),
    }


def _category(record: Record) -> str:
    return (record.gold.category if record.gold is not None else None) or NO_VALUE


def _route(record: Record) -> str:
    return (record.reply.route if record.reply is not None else None) or NO_VALUE


ROLLUP_KEYS: Mapping[str, Callable[[Record], str]] = {
    "category": _category,
    "scope": lambda record: record.scope or NO_VALUE,
    "route": _route,
}


def rollup(
    records: Sequence[Record],
    scores: MetricScores,
    key: Callable[[Record], str],
    interval_of: Callable[[Tally], Any],
) -> dict[str, dict[str, Any]]:
    """A metric's tally per value of `key` (sorted by it), each as ``tally_dict`` writes it."""
    counts: dict[str, Counter[int]] = {}
    for record, outcome in zip(records, scores.outcomes):
        counts.setdefault(key(record), Counter())[outcome] += 1
    tallies = {
        name: Tally(sum(found.values()), found[Outcome.PASS], unscored=found[Outcome.UNSCORED])
        for name, found in counts.items()
    }
    return {name: tally_dict(tallies[name], interval_of) for name in sorted(tallies)}


def grounding_checks(run: ScoreRun, info: RunInfo) -> dict[str, Any] | None:
    """Which grounding checks ran: `documents` (the sources' text was read) and `checks` in words; None
    when grounded did not run."""
    if GROUNDED not in run.metrics:
        return None
    documents = info.sources is not None
    return {"documents": documents, "checks": checks_ran(documents)}


def refusal_rates(run: ScoreRun) -> dict[str, Any] | None:
    """Refusal precision, over the replies `refusal` scored, and recall, over every refusal item, with
    their counts; None when it did not run.

    Recall's denominator is every item that should be refused, those the system failed on included
    (``refusal_system_errors``, shown apart): a system that failed on a refusal item did not decline it,
    and leaving such items out would give a system that fails on the questions it should refuse the
    recall of the few it answered (or "n/a" when it failed on all of them), as if nothing were amiss.
    Precision is unchanged by them: a failed reply declined nothing."""
    scores = run.metrics.get(REFUSAL)
    declined = None if scores is None else scores.extras.get(DECLINED_COLUMN)
    if scores is None or declined is None:
        return None
    cells: Counter[tuple[bool, bool]] = Counter()
    failed = system_failures(run.records)
    should_refuse = errors = 0
    for index, record in enumerate(run.records):
        should = record.gold is not None and record.gold.expected_refusal is True
        should_refuse += should
        errors += should and index in failed
        if scores.outcomes[index] != Outcome.UNSCORED:
            cells[should, declined[index] == 1] += 1
    hits, false_alarms, missed = cells[True, True], cells[False, True], cells[True, False]
    return {
        "precision": hits / (hits + false_alarms) if hits + false_alarms else None,
        "recall": hits / should_refuse if should_refuse else None,
        "declined_refusal_items": hits,
        "declined_answerable_items": false_alarms,
        "answered_refusal_items": missed,
        "declined": hits + false_alarms,
        "refusal_items": should_refuse,
        "refusal_system_errors": errors,
        "scored": sum(cells.values()),
    }


def _items(run: ScoreRun) -> list[dict[str, Any]]:
    """Every item's row; a miss (any outcome but correct) also has every scoring metric's trace."""
    from ..trace import traces

    traced = original_metrics(run)
    found = [_item(run, index) for index in range(len(run.records))]
    for index, item in enumerate(found):
        if item["outcome"] != "correct":
            item["traces"] = {name: t.as_dict() for name, t in traces(traced, index).items()}
    return found


def _item(run: ScoreRun, index: int) -> dict[str, Any]:
    record, factual = run.records[index], run.metrics[FACTUAL]
    reply = record.reply
    return {
        "id": record.id,
        "scope": record.scope,
        "category": None if record.gold is None else record.gold.category,
        "question": record.question,
        "expected_answer": " | ".join(record.answers),
        "expected_refusal": None if record.gold is None else record.gold.expected_refusal,
        "response": record.response,
        "outcome": factual.texts[OUTCOME_COLUMN][index],
        "reason": factual.texts[REASON_COLUMN][index],
        "decided_by": factual.texts[DECIDED_COLUMN][index],
        "verdicts": {name: _verdict(scores, index) for name, scores in run.metrics.items()},
        "route": None if reply is None else reply.route,
        "blocked": None if reply is None else reply.blocked,
        "error": None if reply is None else reply.error,
        "latency": None if reply is None else reply.latency,
        "citations": [] if reply is None else [_citation(c) for c in reply.citations],
    }


def _verdict(scores: MetricScores, index: int) -> bool | None:
    outcome = scores.outcomes[index]
    return None if outcome == Outcome.UNSCORED else outcome == Outcome.PASS


def _citation(citation: Any) -> dict[str, Any]:
    return {key: value for key, value in dataclasses.asdict(citation).items() if value is not None}


def _info(signature: str) -> dict[str, str] | None:
    found = info_of(signature)
    return None if found is None else dict(found)


def _settings_dict(settings: GateSettings) -> dict[str, Any]:
    return {
        "gates": [gate.text for gate in settings.gates],
        "on": settings.on,
        "min_n": settings.min_n,
        "max_unscored": settings.max_unscored,
        "scope": settings.scope,
    }


def original_metrics(run: ScoreRun) -> ScoreRun:
    """The run without the derived metrics: what traces are made of (a derived metric has no trace of
    its own; its reason is the outcome's)."""
    metrics = {name: scores for name, scores in run.metrics.items() if name not in DERIVED}
    return dataclasses.replace(run, metrics=metrics)
