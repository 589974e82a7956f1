"""A trace for every verdict: what the metric saw, the rule that decided, and where it matched.

A trace is built from a run's stored verdict (outcome, deciding answer, score), so it can never
disagree with it: it is the scorer's evidence (``assay.evidence``: the golden answer and the response
as the metric saw them, the rule in words, and the matched span as character offsets [start, end) into
the original response, for the metrics whose pass is a place in the response: exact_substring,
phrase_match, token_em, hard_fact). Metrics that count tokens (word_overlap, the F1 scores) have no
span; their rule says what they counted. A run scored with ``evidence=True`` already holds it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .evidence import BLANK, CUT_MARK, TEXT_SHOWN, evidence_of, shown
from .records import Dataset, Record
from .scorers import SCORERS, MetricScores, Outcome
from .scorers._base import EMPTY_GOLDEN
from .scoring import ScoreOptions, ScoreRun, score

__all__ = ["BLANK", "CUT_MARK", "EMPTY_GOLDEN", "TEXT_SHOWN", "Trace", "explain", "trace", "traces"]

OUTCOME_NAMES = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.UNSCORED: "unscored",
    Outcome.SOFT_PASS: "soft_pass",
}
JUDGE_TEXTS = ("judge_by", "judge_rationale", "judge_raw")  # the judge metric's text columns


@dataclass(frozen=True)
class Trace:
    metric: str
    outcome: str  # pass, fail, unscored or soft_pass
    rule: str  # what decided, in words
    golden: str | None  # the deciding golden answer (else the first) as the metric saw it
    response: str  # the response as the metric saw it (its first TEXT_SHOWN characters, when longer)
    span: tuple[int, int] | None = None  # [start, end) of the match in the original response
    score: float | None = None  # a graded metric's row score

    def as_dict(self) -> dict[str, Any]:
        """The trace as written to files: a long text as the metric saw it is cut to its first
        TEXT_SHOWN characters (the response itself is in its own column), so that a 50 MB cell does
        not become ten copies of it, one per metric."""
        found: dict[str, Any] = {"outcome": self.outcome, "rule": self.rule}
        found |= {"golden": _shown(self.golden), "response": _shown(self.response)}
        found["span"] = list(self.span) if self.span else None
        return found | ({} if self.score is None else {"score": self.score})


_shown = shown


def traces(run: ScoreRun, index: int) -> dict[str, Trace]:
    """Every metric's trace of row `index` of a run."""
    return {name: trace(run, name, index) for name in run.metrics}


def trace(run: ScoreRun, metric: str, index: int) -> Trace:
    scores: MetricScores = run.metrics[metric]
    if metric not in SCORERS:  # the judge: its own words are the rule
        return _judge_trace(run, metric, scores, index)
    found = scores.evidence[index] if scores.evidence is not None else None
    if found is None:
        found = evidence_of(SCORERS[metric], scores, run.records[index], index, run.blank[index], run.options)
    value = scores.values[index] if scores.values is not None else None
    outcome = OUTCOME_NAMES[scores.outcomes[index]]  # type: ignore[index]  # an IntEnum key is its int
    return Trace(metric, outcome, found.rule, found.golden, found.response, found.span, value)


def _judge_trace(run: ScoreRun, metric: str, scores: MetricScores, index: int) -> Trace:
    from .judges.metric import JudgeMetric  # the judge's own words are the rule

    outcome, rule = scores.outcome(index), JudgeMetric.evidence(scores, index)
    record = run.records[index]
    return Trace(
        metric, OUTCOME_NAMES[outcome], rule, _shown(" | ".join(record.answers)), str(_shown(record.response))
    )


def explain(
    data: Dataset,
    row_id: str,
    metrics: Sequence[str] | None = None,
    options: ScoreOptions | None = None,
) -> tuple[Record, dict[str, Trace]]:
    """One row of a dataset scored alone, with every metric's trace (what ``assay explain`` prints)."""
    record = next((r for r in data.records if r.id == row_id), None)
    if record is None:
        shown = ", ".join(r.id for r in data.records[:5])
        raise InputError(
            f"no row has the id '{row_id}' (the first ids are: {shown})",
            where=data.source,
            fix="give an id from the file's id column (or a 1-based row number when it has none)",
        )
    run = score(dataclasses.replace(data, records=[record]), metrics, options=options)
    return record, traces(run, 0)
