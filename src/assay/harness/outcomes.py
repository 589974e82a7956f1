"""Each harness run row's outcome: the metrics' verdicts combined into one class of the hallucination
breakdown, with the reason (which metric decided, the judge's rationale, the grounding problem).

The precedence, per row (the first that applies decides):

1. ``reply.error`` set: ``system_error`` (the system failed; no metric scored it).
2. A refusal item (``gold.expected_refusal``): ``reply.blocked`` -> ``correct`` (the guard declined, as it
   should); else the factual verdict -- the judge when it ran, else the ``refusal`` metric -- PASS ->
   ``correct``, FAIL -> ``answered_refusal``, unscored -> ``unscored``.
3. An answerable item: ``reply.blocked`` -> ``blocked``; else the factual verdict -- the judge when it ran,
   else ``value_match`` where it read a typed value (it reads the clause that answers the field:
   negation, hedges, alternatives; a ``hard_fact`` that differs is named in the reason), or where its
   rules could not decide (``unscored``, its reason kept, for the judge); else ``hard_fact`` (a row
   with no typed value); a pass that ``refusal`` reads as a decline is ``unscored``; but a reply
   ``refusal`` reads as a decline that says nothing besides it (``refusal.declines_only``: "No, the
   answer is not provided." is no "No") is a FAIL whatever the matchers say) -- unscored ->
   ``unscored`` (a judge that could not decide is never
   regraded by a matcher); FAIL -> ``refused_answerable`` when ``refusal`` says
   the reply declined, else ``wrong_cited`` when it cites a source, else ``wrong_uncited``; PASS ->
   ``wrong_cited`` when ``grounded`` FAILs it for a figure a cited page states otherwise
   (``grounded_contradicts``), ``correct_ungrounded`` when it FAILs it otherwise, else ``correct``.

Two derived metrics carry the outcomes into every table that reads a metric (the summary, the gate,
compare), as MetricScores beside the scorers' own:

- ``factual``: PASS for ``correct`` and ``correct_ungrounded``, UNSCORED for ``unscored`` (its reason
  kept), FAIL for every other class: a system error or a blocked answerable item counts against the
  system, as a wrong answer does. Its text columns ``outcome`` and ``outcome_reason`` are the run row's.
- ``citation`` (only when ``grounded`` ran): grounded's verdict on the answerable items the system
  answered (not failed, blocked, or declined); every other row is UNSCORED ("not an answered answerable
  item"). Its accuracy is the citation accuracy; its gate is over the answered answerable items only
  (``run_gate``), so the rows it does not apply to never count as unscored there.

"The judge when it ran" means: when the judge was asked that item. Behind the run's cascade
(``UNDECIDED_ONLY``, ``assay run --judge`` by default) the judge is asked only the items the rule above,
without a judge, leaves ``unscored``; every other item keeps its deterministic verdict. A blank reply is
never asked (the matchers fail it). With ``--judge-all`` it is asked every item, and its verdict replaces
the matchers' wherever it gave one.

Each outcome records who decided it (``decided_by``, a text column of ``factual`` beside the outcome):
``system`` (a system error), ``guard`` (the guard blocked the reply), ``judge`` (the judge was asked: its
verdict, or why it could not give one), else ``matchers`` (the deterministic metrics: hard_fact,
value_match, refusal, grounded; their verdict, or why they could not decide).

A derived metric's signature is the combination rule's version and the full signature of every metric it
read, so two runs whose derived signatures are equal combined equal verdicts by the same rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ..judges.metric import CASCADE_PREFIX, JUDGE, Sorted, asked_judges
from ..judges.run import Judgement
from ..records import Record
from ..scorers import MetricScores, Outcome
from ..scoring import ScoreRun, system_failures
from ..signature import Signature
from ..summary import summarize

OUTCOMES: Final = (
    "correct",
    "wrong_uncited",
    "wrong_cited",
    "correct_ungrounded",
    "refused_answerable",
    "answered_refusal",
    "blocked",
    "unscored",
    "system_error",
)
PASSING: Final = frozenset({"correct", "correct_ungrounded"})  # the outcomes `factual` passes
FACTUAL, CITATION = "factual", "citation"
DERIVED: Final = (FACTUAL, CITATION)
RULE_VERSION: Final = 6  # bump when the precedence above changes: it is in the derived signatures
HARD_FACT, VALUE_MATCH = "hard_fact", "value_match"
MATCHERS: Final = (HARD_FACT, VALUE_MATCH)
REFUSAL, GROUNDED = "refusal", "grounded"
DECLINED_COLUMN, DECLINES_ONLY_COLUMN = "declined", "declines_only"  # refusal's extra columns
PROBLEMS_COLUMN, UNDECIDED_COLUMN = "grounded_problems", "undecided"
CONTRADICTS_COLUMN = "grounded_contradicts"
OUTCOME_COLUMN, REASON_COLUMN, DECIDED_COLUMN = "outcome", "outcome_reason", "decided_by"
DECIDERS: Final = ("matchers", "judge", "guard", "system")  # who decided an outcome (DECIDED_COLUMN)
NOT_ASKED: Final = "the judge was not asked: the matchers decided"  # said in a judged run's other rows
NOT_APPLICABLE: Final = "not an answered answerable item"
_NAMES = {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.UNSCORED: "unscored", Outcome.SOFT_PASS: "FAIL"}


class Verdicts(Protocol):
    """What the outcome rule reads: the rows, and each metric's verdicts on them (a ScoreRun has both)."""

    @property
    def records(self) -> list[Record]: ...

    @property
    def metrics(self) -> Mapping[str, MetricScores]: ...


@dataclass(frozen=True)
class _Verdicts:
    records: list[Record]
    metrics: Mapping[str, MetricScores]


def outcomes(run: Verdicts) -> list[tuple[str, str]]:
    """Each row's (outcome, reason), in row order, by the precedence in this module's docstring."""
    return [(outcome, reason) for outcome, reason, _ in decided_outcomes(run)]


def decided_outcomes(run: Verdicts) -> list[tuple[str, str, str]]:
    """Each row's (outcome, reason, who decided: one of DECIDERS), in row order."""
    failed = system_failures(run.records)  # the core's rule: the rows no metric scored
    judge = run.metrics.get(JUDGE)
    unjudged = run if judge is None else _without_judge(run.records, run.metrics)
    found = []
    for index, record in enumerate(run.records):
        asked = judge is not None and asked_judges(judge, index)
        outcome, reason = _row_outcome(run if asked else unjudged, index, record, failed)
        by = _decider(record, outcome, asked)
        if judge is not None and by == "matchers":
            reason = f"{reason}; {NOT_ASKED}"
        found.append((outcome, reason, by))
    return found


def _without_judge(records: list[Record], metrics: Mapping[str, MetricScores]) -> Verdicts:
    return _Verdicts(records, {name: scores for name, scores in metrics.items() if name != JUDGE})


def _decider(record: Record, outcome: str, asked: bool) -> str:
    """Who decided a row's outcome (DECIDERS), in the precedence's order."""
    if outcome == "system_error":
        return "system"
    if record.reply is not None and record.reply.blocked is True:
        return "guard"  # blocked: "blocked" for an answerable item, "correct" for a refusal item
    return "judge" if asked else "matchers"


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
        unjudged = _without_judge(list(records), results)
        return [self._sorted(outcome, by) for outcome, _, by in decided_outcomes(unjudged)]

    def _sorted(self, outcome: str, by: str) -> Sorted:
        if outcome == "unscored" or by == "system":  # a system error is never asked: decided before this
            return Sorted(SENT_UNSCORED)
        passed = outcome in PASSING
        label = f"{CASCADE_PREFIX}decided by the {'guard' if by == 'guard' else 'matchers'})"
        verdict = Outcome.PASS if passed else Outcome.FAIL
        judgement = Judgement(verdict, judge=label, rationale=f"the outcome {outcome}")
        return Sorted(BY_THE_GUARD if by == "guard" else BY_THE_MATCHERS, judgement)


UNDECIDED_ONLY = UndecidedOnly()


def with_outcomes(run: ScoreRun) -> ScoreRun:
    """The run with the derived metrics ``factual`` (and ``citation`` when grounded ran) added, and its
    summary made again over all the metrics (the judge's accounting kept). A run that has them already is
    given back as it is."""
    if FACTUAL in run.metrics:
        return run
    found = decided_outcomes(run)
    metrics = dict(run.metrics)
    signatures = {name: run.summary.metrics[name].signature for name in run.metrics}
    metrics[FACTUAL] = factual_scores(found)
    signatures[FACTUAL] = derived_signature(run, FACTUAL)
    if GROUNDED in run.metrics:
        metrics[CITATION] = citation_scores(run, found)
        signatures[CITATION] = derived_signature(run, CITATION)
    summary = summarize(
        run.dataset,
        metrics,
        run.blank,
        signatures,
        run.options.signature_parts(),
        run.options.intervals,
        run.summary.agreement.pair if run.summary.agreement is not None else None,
        scorers=run.scorers,
    )
    return dataclasses.replace(run, metrics=metrics, summary=summary)


def read_metrics(run: ScoreRun, metric: str) -> list[str]:
    """The metrics a derived metric's verdicts depend on, in the run: what its signature names."""
    if metric == CITATION:
        return [name for name in (GROUNDED, REFUSAL) if name in run.metrics]
    # the judge where it was asked, the matchers on every other row
    return [name for name in (JUDGE, *MATCHERS, REFUSAL, GROUNDED) if name in run.metrics]


def derived_signature(run: ScoreRun, metric: str) -> Signature:
    parts = [f"{name}:({run.summary.metrics[name].signature})" for name in read_metrics(run, metric)]
    return Signature.of(f"{metric}@{RULE_VERSION}", [*parts, run.options.intervals.signature()])


def factual_scores(found: Sequence[tuple[str, str, str]]) -> MetricScores:
    """``factual`` from the rows' outcomes, with the outcome, its reason and who decided it as text
    columns."""
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


def citation_scores(run: ScoreRun, found: Sequence[tuple[str, str, str]]) -> MetricScores:
    """``citation``: grounded's verdict where the system answered an answerable item, else unscored."""
    grounded = run.metrics[GROUNDED]
    scores = MetricScores.all_failing(CITATION, len(found))
    for index, (record, (outcome, _, _)) in enumerate(zip(run.records, found)):
        answered = not _is_refusal_item(record) and outcome not in ("system_error", "blocked")
        if not answered or outcome == "refused_answerable":
            scores.outcomes[index] = Outcome.UNSCORED
            scores.reasons[index] = NOT_APPLICABLE
            continue
        verdict = grounded.outcome(index)
        scores.outcomes[index] = Outcome.FAIL if verdict is Outcome.SOFT_PASS else verdict
        if verdict is Outcome.UNSCORED:
            scores.reasons[index] = f"grounded: {grounded.reasons.get(index, 'unscored')}"
    return scores


# --- one row ------------------------------------------------------------------------------------------


def _row_outcome(run: Verdicts, index: int, record: Record, failed: Mapping[int, str]) -> tuple[str, str]:
    reply = record.reply
    if index in failed:
        return "system_error", failed[index]
    blocked = reply is not None and reply.blocked is True
    if _is_refusal_item(record):
        if blocked:
            return "correct", "a refusal item, and the system's guard blocked the reply"
        decided = _refusal_verdict(run, index)
        if decided is None:
            return "unscored", "a refusal item, and neither the judge nor refusal scored the run"
        verdict, why = decided
        if verdict is Outcome.UNSCORED:
            return "unscored", why
        return ("correct" if verdict is Outcome.PASS else "answered_refusal"), why
    if blocked:
        return "blocked", "the system's guard blocked the reply to an answerable item"
    verdict, why = _factual_verdict(run, index)
    if verdict is Outcome.UNSCORED:
        return "unscored", why
    if verdict is Outcome.PASS:
        problem = _grounding_problem(run, index)
        texts = run.metrics[GROUNDED].texts if problem is not None else {}
        contradicts = _text(texts, CONTRADICTS_COLUMN, index)
        if contradicts:  # a figure of the reply the cited page states otherwise: a wrong answer, cited
            return "wrong_cited", f"{why}; grounded: the reply contradicts the cited page ({contradicts})"
        return ("correct", why) if problem is None else ("correct_ungrounded", f"{why}; {problem}")
    if _declined(run, index):
        return "refused_answerable", f"{why}; refusal: the reply declined an answerable item"
    if reply is not None and reply.citations:
        cited = ", ".join(dict.fromkeys(c.document for c in reply.citations))
        return "wrong_cited", f"{why}; the wrong answer cites {cited}"
    return "wrong_uncited", f"{why}; no citation"


def _is_refusal_item(record: Record) -> bool:
    return record.gold is not None and record.gold.expected_refusal is True


def _refusal_verdict(run: Verdicts, index: int) -> tuple[Outcome, str] | None:
    for name in (JUDGE, REFUSAL):
        if name in run.metrics:
            return _verdict(run.metrics[name], index, name)
    return None


def _factual_verdict(run: Verdicts, index: int) -> tuple[Outcome, str]:
    if JUDGE in run.metrics:
        return _verdict(run.metrics[JUDGE], index, JUDGE)
    ran = [name for name in MATCHERS if name in run.metrics]
    if not ran:
        return Outcome.UNSCORED, "no factual metric ran (hard_fact, value_match or the judge)"
    decided = {name: _verdict(run.metrics[name], index, name) for name in ran}
    declined = _refused(run, index, decided)
    if declined is not None:
        return Outcome.FAIL, declined
    reader = decided.get(VALUE_MATCH)
    if reader is not None and (reader[0] is not Outcome.UNSCORED or _undecided(run, index)):
        # value_match reads the reply's clauses (negation, hedges, the field's clause): where it read a
        # typed value its verdict stands, and a pattern's differing match is named beside it.
        verdict, why = reader
        pattern = decided.get(HARD_FACT)
        if pattern is not None and pattern[0] is verdict:
            why = f"{pattern[1]}; {why}"
        elif pattern is not None and pattern[0] is not Outcome.UNSCORED:
            why = f"{why} (hard_fact {_NAMES[pattern[0]]}: its pattern matched the text, not the clause)"
        return _declined_pass(run, index, verdict, why)
    scored = {name: found for name, found in decided.items() if found[0] is not Outcome.UNSCORED}
    if not scored:
        return Outcome.UNSCORED, "; ".join(why for _, why in decided.values())
    verdict, why = next(iter(scored.values()))
    return _declined_pass(run, index, verdict, why)


def _refused(run: Verdicts, index: int, decided: Mapping[str, tuple[Outcome, str]]) -> str | None:
    """Why a reply ``refusal`` reads as a decline refused the item, whatever the matchers make of its
    words (a FAIL, so ``refused_answerable``); None when the matchers decide. A decline can hold what a
    pattern looks for ("No, the answer is not provided.", "... की जानकारी नहीं है" hold the No of a "No"):
    a reply that says nothing besides its decline refused; so did one in which no matcher read an answer
    ("The brochure doesn't give a UIN, but the policy number is ..."). One they pass that also says more
    is for a judge (``_declined_pass``)."""
    verdicts = {verdict for verdict, _ in decided.values()}
    if verdicts == {Outcome.FAIL} or not _declined(run, index):
        return None  # (all FAIL and declined: refused_answerable by the precedence, with its own reason)
    shown = "; ".join(why for _, why in decided.values())
    if _flag(run, REFUSAL, DECLINES_ONLY_COLUMN, index):
        return f"{shown}; the reply says nothing besides a decline"
    if Outcome.PASS not in verdicts:
        return f"{shown}; the reply declined and no matcher read an answer in it"
    return None


def _declined_pass(run: Verdicts, index: int, verdict: Outcome, why: str) -> tuple[Outcome, str]:
    if verdict is Outcome.PASS and _declined(run, index):
        # a decline and more besides: the matchers cannot tell which part they read, a judge must weigh
        return Outcome.UNSCORED, f"{why}, yet the reply reads as a refusal (refusal: declined)"
    return verdict, why


def _undecided(run: Verdicts, index: int) -> bool:
    """value_match read the reply and its rules could not decide (not: it had no typed value)."""
    return _flag(run, VALUE_MATCH, UNDECIDED_COLUMN, index)


def _flag(run: Verdicts, metric: str, column: str, index: int) -> bool:
    """Whether a metric that ran set its extra column `column` on the row."""
    scores = run.metrics.get(metric)
    values = None if scores is None else scores.extras.get(column)
    return values is not None and values[index] == 1


def _verdict(scores: MetricScores, index: int, name: str) -> tuple[Outcome, str]:
    """A metric's verdict on a row (a soft pass is not a pass), and the words saying so."""
    outcome = scores.outcome(index)
    if outcome is Outcome.SOFT_PASS:
        outcome = Outcome.FAIL
    if name == JUDGE:
        from ..judges.metric import judge_rule  # the judge's own words: who decided, and its rationale

        return outcome, f"judge: {judge_rule(scores, index)}"
    if outcome is Outcome.UNSCORED:
        return outcome, f"{name} unscored: {scores.reasons.get(index, 'no reason given')}"
    return outcome, f"{name} {_NAMES[outcome]}"


def _grounding_problem(run: Verdicts, index: int) -> str | None:
    """Why grounded failed a row ("grounded FAIL: ..."), or None when it did not fail it (or did not run)."""
    scores = run.metrics.get(GROUNDED)
    if scores is None or scores.outcome(index) not in (Outcome.FAIL, Outcome.SOFT_PASS):
        return None
    problems = _text(scores.texts, PROBLEMS_COLUMN, index)
    return f"grounded FAIL: {problems}" if problems else "grounded FAIL"


def _declined(run: Verdicts, index: int) -> bool:
    return _flag(run, REFUSAL, DECLINED_COLUMN, index)


def _text(texts: Mapping[str, list[str | None]], column: str, index: int) -> str | None:
    values = texts.get(column)
    return None if values is None or index >= len(values) else values[index]
