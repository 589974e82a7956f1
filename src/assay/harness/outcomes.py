"""Each harness run row's outcome: the metrics' verdicts combined into one class of the hallucination
breakdown, with the reason (which metric decided, the judge's rationale, the grounding problem).

The precedence, per row (the first that applies decides):

1. ``reply.error`` set: ``system_error`` (the system failed; no metric scored it).
2. A refusal item (``gold.expected_refusal``): ``reply.blocked`` -> ``correct`` (the guard declined, as it
   should); else the factual verdict -- the judge when it ran, else the ``refusal`` metric -- PASS ->
   ``correct``, FAIL -> ``answered_refusal``, unscored -> ``unscored``.
3. An answerable item: ``reply.blocked`` -> ``blocked``; else the factual verdict -- the judge when it ran,
   else ``hard_fact`` and ``value_match`` (the one that scored the row, or both when they agree; when they
   disagree, ``unscored``: neither is trusted over the other; a pass of theirs that ``refusal`` reads as
   a decline is ``unscored``; but a reply ``refusal`` reads as a decline that says nothing besides it
   (``refusal.declines_only``: "No, the answer is not provided." is no "No") is a FAIL whatever the
   matchers say) -- unscored -> ``unscored`` (a judge that could not decide is never
   regraded by a matcher); FAIL -> ``refused_answerable`` when ``refusal`` says
   the reply declined, else ``wrong_cited`` when it cites a source, else ``wrong_uncited``; PASS ->
   ``correct_ungrounded`` when ``grounded`` FAILs it, else ``correct``.

Two derived metrics carry the outcomes into every table that reads a metric (the summary, the gate,
compare), as MetricScores beside the scorers' own:

- ``factual``: PASS for ``correct`` and ``correct_ungrounded``, UNSCORED for ``unscored`` (its reason
  kept), FAIL for every other class: a system error or a blocked answerable item counts against the
  system, as a wrong answer does. Its text columns ``outcome`` and ``outcome_reason`` are the run row's.
- ``citation`` (only when ``grounded`` ran): grounded's verdict on the answerable items the system
  answered (not failed, blocked, or declined); every other row is UNSCORED ("not an answered answerable
  item"). Its accuracy is the citation accuracy; its gate is over the answered answerable items only
  (``run_gate``), so the rows it does not apply to never count as unscored there.

A derived metric's signature is the combination rule's version and the full signature of every metric it
read, so two runs whose derived signatures are equal combined equal verdicts by the same rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Final

from ..records import Record
from ..scorers import JUDGE, MetricScores, Outcome
from ..scorers.refusal import declines_only
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
RULE_VERSION: Final = 3  # bump when the precedence above changes: it is in the derived signatures
MATCHERS: Final = ("hard_fact", "value_match")
REFUSAL, GROUNDED = "refusal", "grounded"
DECLINED_COLUMN, PROBLEMS_COLUMN = "declined", "grounded_problems"
OUTCOME_COLUMN, REASON_COLUMN = "outcome", "outcome_reason"
NOT_APPLICABLE: Final = "not an answered answerable item"
_NAMES = {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.UNSCORED: "unscored", Outcome.SOFT_PASS: "FAIL"}


def outcomes(run: ScoreRun) -> list[tuple[str, str]]:
    """Each row's (outcome, reason), in row order, by the precedence in this module's docstring."""
    failed = system_failures(run.records)  # the core's rule: the rows no metric scored
    return [_row_outcome(run, index, record, failed) for index, record in enumerate(run.records)]


def with_outcomes(run: ScoreRun) -> ScoreRun:
    """The run with the derived metrics ``factual`` (and ``citation`` when grounded ran) added, and its
    summary made again over all the metrics (the judge's accounting kept). A run that has them already is
    given back as it is."""
    if FACTUAL in run.metrics:
        return run
    found = outcomes(run)
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
    )
    summary = dataclasses.replace(summary, judge=run.summary.judge)
    return dataclasses.replace(run, metrics=metrics, summary=summary)


def read_metrics(run: ScoreRun, metric: str) -> list[str]:
    """The metrics a derived metric's verdicts depend on, in the run: what its signature names."""
    if metric == CITATION:
        return [name for name in (GROUNDED, REFUSAL) if name in run.metrics]
    factual = [JUDGE] if JUDGE in run.metrics else [m for m in MATCHERS if m in run.metrics]
    return factual + [name for name in (REFUSAL, GROUNDED) if name in run.metrics and name not in factual]


def derived_signature(run: ScoreRun, metric: str) -> Signature:
    parts = [f"{name}:({run.summary.metrics[name].signature})" for name in read_metrics(run, metric)]
    return Signature.of(f"{metric}@{RULE_VERSION}", [*parts, run.options.intervals.signature()])


def factual_scores(found: Sequence[tuple[str, str]]) -> MetricScores:
    """``factual`` from the rows' outcomes, with the outcome and its reason as text columns."""
    scores = MetricScores.all_failing(FACTUAL, len(found))
    for index, (outcome, reason) in enumerate(found):
        if outcome in PASSING:
            scores.outcomes[index] = Outcome.PASS
        elif outcome == "unscored":
            scores.outcomes[index] = Outcome.UNSCORED
            scores.reasons[index] = reason
    scores.texts[OUTCOME_COLUMN] = [outcome for outcome, _ in found]
    scores.texts[REASON_COLUMN] = [reason for _, reason in found]
    return scores


def citation_scores(run: ScoreRun, found: Sequence[tuple[str, str]]) -> MetricScores:
    """``citation``: grounded's verdict where the system answered an answerable item, else unscored."""
    grounded = run.metrics[GROUNDED]
    scores = MetricScores.all_failing(CITATION, len(found))
    for index, (record, (outcome, _)) in enumerate(zip(run.records, found)):
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


def _row_outcome(run: ScoreRun, index: int, record: Record, failed: Mapping[int, str]) -> tuple[str, str]:
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
        return ("correct", why) if problem is None else ("correct_ungrounded", f"{why}; {problem}")
    if _declined(run, index):
        return "refused_answerable", f"{why}; refusal: the reply declined an answerable item"
    if reply is not None and reply.citations:
        cited = ", ".join(dict.fromkeys(c.document for c in reply.citations))
        return "wrong_cited", f"{why}; the wrong answer cites {cited}"
    return "wrong_uncited", f"{why}; no citation"


def _is_refusal_item(record: Record) -> bool:
    return record.gold is not None and record.gold.expected_refusal is True


def _refusal_verdict(run: ScoreRun, index: int) -> tuple[Outcome, str] | None:
    for name in (JUDGE, REFUSAL):
        if name in run.metrics:
            return _verdict(run.metrics[name], index, name)
    return None


def _factual_verdict(run: ScoreRun, index: int) -> tuple[Outcome, str]:
    if JUDGE in run.metrics:
        return _verdict(run.metrics[JUDGE], index, JUDGE)
    ran = [name for name in MATCHERS if name in run.metrics]
    if not ran:
        return Outcome.UNSCORED, "no factual metric ran (hard_fact, value_match or the judge)"
    decided = {name: _verdict(run.metrics[name], index, name) for name in ran}
    record = run.records[index]
    failed = all(verdict is Outcome.FAIL for verdict, _ in decided.values())
    if not failed and _declined(run, index) and declines_only(record.response, record.question):
        # A decline can hold what a pattern looks for ("No, the answer is not provided.", "... की
        # जानकारी नहीं है" hold the No of a "No"): a reply that says nothing besides it declined, whatever
        # the matchers make of its words (FAIL, so refused_answerable).
        shown = "; ".join(why for _, why in decided.values())
        return Outcome.FAIL, f"{shown}; the reply says nothing besides a decline"
    scored = {name: found for name, found in decided.items() if found[0] is not Outcome.UNSCORED}
    if not scored:
        return Outcome.UNSCORED, "; ".join(why for _, why in decided.values())
    verdicts = {verdict for verdict, _ in scored.values()}
    if len(verdicts) > 1:
        shown = ", ".join(f"{name} {_NAMES[verdict]}" for name, (verdict, _) in scored.items())
        return Outcome.UNSCORED, f"hard_fact and value_match disagree ({shown})"
    verdict, why = verdicts.pop(), "; ".join(why for _, why in scored.values())
    if verdict is Outcome.PASS and _declined(run, index):
        # a decline and more besides: the matchers cannot tell which part they read, a judge must weigh
        return Outcome.UNSCORED, f"{why}, yet the reply reads as a refusal (refusal: declined)"
    return verdict, why


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


def _grounding_problem(run: ScoreRun, index: int) -> str | None:
    """Why grounded failed a row ("grounded FAIL: ..."), or None when it did not fail it (or did not run)."""
    scores = run.metrics.get(GROUNDED)
    if scores is None or scores.outcome(index) not in (Outcome.FAIL, Outcome.SOFT_PASS):
        return None
    problems = _text(scores.texts, PROBLEMS_COLUMN, index)
    return f"grounded FAIL: {problems}" if problems else "grounded FAIL"


def _declined(run: ScoreRun, index: int) -> bool:
    scores = run.metrics.get(REFUSAL)
    declined = None if scores is None else scores.extras.get(DECLINED_COLUMN)
    return declined is not None and declined[index] == 1


def _text(texts: Mapping[str, list[str | None]], column: str, index: int) -> str | None:
    values = texts.get(column)
    return None if values is None or index >= len(values) else values[index]
