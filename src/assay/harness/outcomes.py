"""A harness run's outcomes, wired to the judge: each row's outcome class and the metrics ``factual`` and
``citation`` are scorers (``assay.scorers.outcome_rule``: the precedence; ``assay.scorers.outcomes``: the
two metrics); here the judge is declared their referee, and the run's cascade asks the judge only what
the rule leaves undecided.

- ``REFEREE``: the judge, as the outcome rule reads it: where it was asked an item (``asked_judges``: not
  decided by a cascade, as blank or as a system failure) its verdict, in its own words (``judge_rule``),
  is the factual verdict.
- ``FACTUAL_SCORER``, ``CITATION_SCORER``: the registered metrics ``factual`` and ``citation`` (the
  judge's verdicts read when it runs); ``outcome_metrics`` adds them to a run's metrics, as ``assay run``
  asks for them.
- ``UNDECIDED_ONLY``: the run's cascade (``assay run --judge`` by default): the judge is asked only the
  items the outcome rule, without a judge, leaves ``unscored``; every other item keeps its deterministic
  verdict. A blank reply is never asked (the matchers fail it). With ``--judge-all`` it is asked every
  item, and its verdict replaces the matchers' wherever it gave one.
- ``with_outcomes``: a run scored without the outcome metrics, with them added (a run read back, a test's).

Each outcome records who decided it (``decided_by``: one of ``DECIDERS``): ``system`` (a system error),
``guard`` (the guard blocked the reply), ``judge`` (the judge was asked: its verdict, or why it could not
give one), else ``matchers`` (hard_fact, value_match, refusal, grounded).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ..judges.metric import CASCADE_PREFIX, JUDGE, Sorted, asked_judges, judge_rule
from ..judges.run import Judgement
from ..metric import OPTIONAL
from ..records import Record
from ..scorers import MetricScores, Outcome, RunView, Scorer
from ..scorers.outcome_rule import (
    BY_GUARD,
    BY_MATCHERS,
    BY_SYSTEM,
    CONTRADICTS_COLUMN,
    DECLINED_COLUMN,
    DECLINES_ONLY_COLUMN,
    GROUNDED,
    HARD_FACT,
    MATCHERS,
    OUTCOMES,
    PASSING,
    PROBLEMS_COLUMN,
    REFUSAL,
    UNDECIDED_COLUMN,
    VALUE_MATCH,
    Referee,
    Verdicts,
)
from ..scorers.outcome_rule import decided_outcomes as _decided_outcomes
from ..scorers.outcomes import (
    CITATION,
    DECIDED_COLUMN,
    DERIVED,
    FACTUAL,
    NOT_APPLICABLE,
    OUTCOME_COLUMN,
    REASON_COLUMN,
    RULE_VERSION,
    citation_scores,
    factual_scores,
    outcome_scorers,
)
from ..scorers.outcomes import derived_signature as _derived_signature
from ..scorers.outcomes import read_metrics as _read_metrics
from ..scoring import ScoreRun
from ..signatures import Signature
from ..summary import summarize

REFEREE: Final = Referee(JUDGE, judge_rule, asked_judges)
FACTUAL_SCORER, CITATION_SCORER = outcome_scorers(REFEREE)
# The metrics every run scores: what the outcome class reads (its scorers' needs), the referee apart,
# who joins only with a chain of judges.
GRADED_BY: Final = tuple(
    dict.fromkeys(
        need.removesuffix(OPTIONAL)
        for scorer in (FACTUAL_SCORER, CITATION_SCORER)
        for need in scorer.needs
        if need.removesuffix(OPTIONAL) not in (JUDGE, FACTUAL_SCORER.name)
    )
)
DECIDERS: Final = (BY_MATCHERS, JUDGE, BY_GUARD, BY_SYSTEM)  # who decided an outcome (DECIDED_COLUMN)
NOT_ASKED: Final = REFEREE.not_asked  # said in a judged run's other rows


class Run(Protocol):
    """What the outcome rule reads: the rows, and each metric's verdicts on them (a ScoreRun has both)."""

    @property
    def records(self) -> list[Record]: ...

    @property
    def metrics(self) -> Mapping[str, MetricScores]: ...


def outcomes(run: Run) -> list[tuple[str, str]]:
    """Each row's (outcome, reason), in row order, by the rule's precedence (``scorers.outcome_rule``)."""
    return [(outcome, reason) for outcome, reason, _ in decided_outcomes(run)]


def decided_outcomes(run: Run) -> list[tuple[str, str, str]]:
    """Each row's (outcome, reason, who decided: one of DECIDERS), in row order, the judge its referee."""
    return _decided_outcomes(Verdicts(run.records, run.metrics, REFEREE))


def outcome_metrics(metrics: Sequence[str | Scorer]) -> list[str | Scorer]:
    """A run's metrics with ``factual`` after them, and ``citation`` where grounded is among them: what
    ``assay run`` scores. (They are given as Scorers, as the judge is: the registry of scorers by name
    lists the metrics of any answers file, and these read a harness run's rows.)"""
    names = {metric if isinstance(metric, str) else metric.name for metric in metrics}
    return [*metrics, FACTUAL_SCORER, *([CITATION_SCORER] if GROUNDED in names else [])]


# Why the run's cascade decided an item, or sent it to the judge (the keys of JudgeSummary.cascade).
BY_THE_MATCHERS, BY_THE_GUARD = "decided_by_the_matchers", "decided_by_the_guard"
SENT_UNSCORED = "sent_unscored_by_the_matchers"
CASCADE_REASONS: Final = (BY_THE_MATCHERS, BY_THE_GUARD, SENT_UNSCORED)


@dataclass(frozen=True)
class UndecidedOnly:
    """The run's cascade (``assay run --judge`` unless ``--judge-all``): the judge is asked only the items
    the outcome rule, without a judge, leaves unscored; the others are decided by the matchers or the
    guard, and keep that verdict (the judge's column holds it, as ``factual`` would: PASS for a correct
    outcome, else FAIL)."""

    signature_parts: tuple[str, ...] = (f"cascade:outcomes@{RULE_VERSION}",)
    needs: tuple[str, ...] = (*MATCHERS, REFUSAL)
    reasons: tuple[str, ...] = CASCADE_REASONS

    def sort(self, records: Sequence[Record], results: Mapping[str, MetricScores]) -> list[Sorted]:
        unjudged = Verdicts(records, results, REFEREE).without_referee()
        return [self._sorted(outcome, by) for outcome, _, by in _decided_outcomes(unjudged)]

    def _sorted(self, outcome: str, by: str) -> Sorted:
        if outcome == "unscored" or by == BY_SYSTEM:  # a system error is never asked: decided before this
            return Sorted(SENT_UNSCORED)
        passed = outcome in PASSING
        label = f"{CASCADE_PREFIX}decided by the {'guard' if by == BY_GUARD else 'matchers'})"
        verdict = Outcome.PASS if passed else Outcome.FAIL
        judgement = Judgement(verdict, judge=label, rationale=f"the outcome {outcome}")
        return Sorted(BY_THE_GUARD if by == BY_GUARD else BY_THE_MATCHERS, judgement)


UNDECIDED_ONLY = UndecidedOnly()


def with_outcomes(run: ScoreRun) -> ScoreRun:
    """The run with the derived metrics ``factual`` (and ``citation`` when grounded ran) added, scored by
    their Scorers from the run's verdicts, and its summary made again over all the metrics. A run that
    has them already is given back as it is (``assay run`` scores them with the others)."""
    if FACTUAL in run.metrics:
        return run
    metrics = dict(run.metrics)
    signatures = {name: run.summary.metrics[name].signature for name in run.metrics}
    scorers = {
        scorer.name: scorer for scorer in outcome_metrics(list(run.metrics)) if isinstance(scorer, Scorer)
    }
    for name, scorer in scorers.items():
        needed = {need.removesuffix(OPTIONAL) for need in scorer.needs}
        view = RunView(run.dataset, {n: s for n, s in metrics.items() if n in needed}, run.blank, run.options)
        metrics[name] = _scored(scorer, view)
        signatures[name] = derived_signature(run, name)
    summary = summarize(
        run.dataset,
        metrics,
        run.blank,
        signatures,
        run.options.signature_parts(),
        run.options.intervals,
        run.summary.agreement.pair if run.summary.agreement is not None else None,
        scorers={**run.scorers, **scorers},
    )
    return dataclasses.replace(run, metrics=metrics, summary=summary, scorers={**run.scorers, **scorers})


def _scored(scorer: Scorer, view: RunView) -> MetricScores:
    assert scorer.score_run is not None  # the outcome metrics are run scorers, and not async
    scores = scorer.score_run(view)
    assert isinstance(scores, MetricScores)
    return scores


def read_metrics(run: ScoreRun, metric: str) -> list[str]:
    """The metrics a derived metric's verdicts depend on, in the run: what its signature names."""
    return _read_metrics(metric, run.metrics, JUDGE)


def derived_signature(run: ScoreRun, metric: str) -> Signature:
    """A derived metric's signature in `run`: the rule's version and the signatures of what it read."""
    signatures = {name: run.summary.metrics[name].signature for name in run.metrics}
    return _derived_signature(metric, signatures, run.options.intervals.signature(), JUDGE)


__all__ = [
    "CASCADE_REASONS",
    "CITATION",
    "CITATION_SCORER",
    "CONTRADICTS_COLUMN",
    "DECIDED_COLUMN",
    "DECIDERS",
    "DECLINED_COLUMN",
    "DECLINES_ONLY_COLUMN",
    "DERIVED",
    "FACTUAL",
    "FACTUAL_SCORER",
    "GROUNDED",
    "HARD_FACT",
    "MATCHERS",
    "NOT_APPLICABLE",
    "NOT_ASKED",
    "OUTCOMES",
    "OUTCOME_COLUMN",
    "PASSING",
    "PROBLEMS_COLUMN",
    "REASON_COLUMN",
    "REFEREE",
    "REFUSAL",
    "RULE_VERSION",
    "UNDECIDED_COLUMN",
    "UNDECIDED_ONLY",
    "VALUE_MATCH",
    "UndecidedOnly",
    "citation_scores",
    "decided_outcomes",
    "derived_signature",
    "factual_scores",
    "outcome_metrics",
    "outcomes",
    "read_metrics",
    "with_outcomes",
]
