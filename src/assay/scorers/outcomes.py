"""The outcome metrics: ``factual`` and ``citation``, run scorers that read other metrics' verdicts and
carry each harness run row's outcome class (``outcome_rule``) into every table that reads a metric (the
summary, the gate, compare).

- ``factual``: PASS for ``correct`` and ``correct_ungrounded``, UNSCORED for ``unscored`` (its reason
  kept), FAIL for every other class: a system error or a blocked answerable item counts against the
  system, as a wrong answer does. Its text columns ``outcome``, ``outcome_reason`` and ``decided_by`` are
  the run row's. It needs hard_fact, value_match, refusal and grounded when they run, and the referee
  (``outcome_rule.Referee``) when one is declared and runs.
- ``citation`` (it needs ``grounded``, and ``factual``'s classes): grounded's verdict on the answerable
  items the system answered (not failed, blocked, or declined); every other row is UNSCORED ("not an
  answered answerable item"). Its accuracy is the citation accuracy; its gate is over the answered
  answerable items only (``harness.run_gate``), so the rows it does not apply to never count as unscored
  there.

Both decide blank rows and rows whose system failed themselves (a system error is a class of its own,
which ``factual`` fails and ``citation`` does not apply to). A derived metric's signature is the rule's
version and the full signature of every metric it read (``derived_signature``), so two runs whose derived
signatures are equal combined equal verdicts by the same rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Final

from ..records import Record
from ..signatures import Signature
from ._base import OPTIONAL, MetricScores, Outcome, RunView, Scorer
from .outcome_rule import (
    GROUNDED,
    HARD_FACT,
    MATCHERS,
    PASSING,
    REFUSAL,
    VALUE_MATCH,
    Referee,
    Verdicts,
    decided_outcomes,
    is_refusal_item,
)

FACTUAL, CITATION = "factual", "citation"
DERIVED: Final = (FACTUAL, CITATION)
RULE_VERSION: Final = 6  # bump when the rule's precedence changes: it is in the derived signatures
OUTCOME_COLUMN, REASON_COLUMN, DECIDED_COLUMN = "outcome", "outcome_reason", "decided_by"
NOT_APPLICABLE: Final = "not an answered answerable item"


def factual_scores(found: Sequence[tuple[str, str, str]]) -> MetricScores:
    """``factual`` from the rows' (outcome, reason, who decided), with them as its text columns."""
    scores = MetricScores.all_failing(FACTUAL, len(found))
    for index, (outcome, reason, _) in enumerate(found):
        if outcome in PASSING:
            scores.outcomes[index] = Outcome.PASS
        elif outcome == "unscored":
            scores.outcomes[index] = Outcome.UNSCORED
            scores.reasons[index] = reason
    scores.texts[OUTCOME_COLUMN] = [outcome for outcome, _, _ in found]
    scores.texts[REASON_COLUMN] = [reason for _, reason, _ in found]
    scores.texts[DECIDED_COLUMN] = [by for _, _, by in found]
    return scores


def factual_rule(scores: MetricScores, index: int) -> str:
    """``factual``'s rule for a row, in its own words (``Scorer.rule``, what a trace shows): the row's
    outcome class and its reason."""
    return f"{scores.texts[OUTCOME_COLUMN][index]}: {scores.texts[REASON_COLUMN][index]}"


def citation_scores(
    records: Sequence[Record], grounded: MetricScores, classes: Sequence[str | None]
) -> MetricScores:
    """``citation``: grounded's verdict where the system answered an answerable item (by the rows'
    outcome classes), else unscored."""
    scores = MetricScores.all_failing(CITATION, len(classes))
    for index, (record, outcome) in enumerate(zip(records, classes)):
        answered = not is_refusal_item(record) and outcome not in ("system_error", "blocked")
        if not answered or outcome == "refused_answerable":
            scores.outcomes[index] = Outcome.UNSCORED
            scores.reasons[index] = NOT_APPLICABLE
            continue
        verdict = grounded.outcome(index)
        scores.outcomes[index] = Outcome.FAIL if verdict is Outcome.SOFT_PASS else verdict
        if verdict is Outcome.UNSCORED:
            scores.reasons[index] = f"grounded: {grounded.reasons.get(index, 'unscored')}"
    return scores


def read_metrics(metric: str, ran: Collection[str], referee: str | None = None) -> list[str]:
    """The metrics a derived metric's verdicts depend on, among those that `ran`: what its signature
    names (citation reads factual's classes, but its signature names what they rest on)."""
    if metric == CITATION:
        return [name for name in (GROUNDED, REFUSAL) if name in ran]
    # the referee where it was asked, the matchers on every other row
    read = (*([referee] if referee is not None else []), *MATCHERS, REFUSAL, GROUNDED)
    return [name for name in read if name in ran]


def derived_signature(
    metric: str, signatures: Mapping[str, object], intervals: str, referee: str | None = None
) -> Signature:
    """A derived metric's signature: the rule's version, the full signature of each metric it read (of
    `signatures`, by name), and the intervals' method (`intervals`: ``IntervalMethod.signature()``)."""
    parts = [f"{name}:({signatures[name]})" for name in read_metrics(metric, signatures, referee)]
    return Signature.of(f"{metric}@{RULE_VERSION}", [*parts, intervals])


def _signed(metric: str, referee: Referee | None) -> Callable[[Mapping[str, object], Any], Signature]:
    """``Scorer.signed`` of a derived metric: its signature from those scored before it in the run."""
    name = None if referee is None else referee.name

    def signed(before: Mapping[str, object], options: Any) -> Signature:
        return derived_signature(metric, before, options.intervals.signature(), name)

    return signed


def _factual(view: RunView, referee: Referee | None) -> MetricScores:
    return factual_scores(decided_outcomes(Verdicts(view.records, view.metrics, referee)))


def _citation(view: RunView) -> MetricScores:
    classes = view.metrics[FACTUAL].texts[OUTCOME_COLUMN]
    return citation_scores(view.records, view.metrics[GROUNDED], classes)


def outcome_scorers(referee: Referee | None = None) -> tuple[Scorer, Scorer]:
    """``factual`` and ``citation`` as Scorers, reading `referee`'s verdicts where it runs and was asked
    (None: the matchers decide every row)."""
    refereed = () if referee is None else (referee.name + OPTIONAL,)
    optional = tuple(name + OPTIONAL for name in (HARD_FACT, VALUE_MATCH, REFUSAL, GROUNDED))
    factual = Scorer(
        FACTUAL,
        "the run row's outcome class (correct, wrong_cited, ...): PASS for correct and correct_ungrounded",
        score_run=functools.partial(_factual, referee=referee),
        needs=(*refereed, *optional),
        version=RULE_VERSION,
        default=False,
        decides_blank=True,
        decides_failed=True,
        signed=_signed(FACTUAL, referee),
        rule=factual_rule,
        text_columns=(OUTCOME_COLUMN, REASON_COLUMN, DECIDED_COLUMN),
    )
    citation = Scorer(
        CITATION,
        "grounded's verdict on the answerable items the system answered; the rest do not apply",
        score_run=_citation,
        needs=(FACTUAL, GROUNDED, REFUSAL + OPTIONAL),
        version=RULE_VERSION,
        default=False,
        decides_blank=True,
        decides_failed=True,
        signed=_signed(CITATION, referee),
    )
    return factual, citation
