"""Each harness run row's outcome: the metrics' verdicts combined into one class of the hallucination
breakdown, with the reason (which metric decided, the referee's words, the grounding problem).

The referee is the metric whose verdict, where it was asked a row, is that row's factual verdict (an LLM
grader, declared by whoever wires it in: ``Referee``). The precedence, per row (the first that applies
decides):

1. ``reply.error`` set: ``system_error`` (the system failed; no metric scored it).
2. A refusal item (``gold.expected_refusal``): ``reply.blocked`` -> ``correct`` (the guard declined, as it
   should); else the factual verdict -- the referee when it ran, else the ``refusal`` metric -- PASS ->
   ``correct``, FAIL -> ``answered_refusal``, unscored -> ``unscored``.
3. An answerable item: ``reply.blocked`` -> ``blocked``; else the factual verdict -- the referee when it
   ran, else ``value_match`` where it read a typed value (it reads the clause that answers the field:
   negation, hedges, alternatives; a ``hard_fact`` that differs is named in the reason), or where its
   rules could not decide (``unscored``, its reason kept, for the referee); else ``hard_fact`` (a row
   with no typed value); a pass that ``refusal`` reads as a decline is ``unscored``; but a reply
   ``refusal`` reads as a decline that says nothing besides it (``refusal.declines_only``: "No, the
   answer is not provided." is no "No") is a FAIL whatever the matchers say) -- unscored ->
   ``unscored`` (a referee that could not decide is never regraded by a matcher); FAIL ->
   ``refused_answerable`` when ``refusal`` says the reply declined, else ``wrong_cited`` when it cites a
   source, else ``wrong_uncited``; PASS -> ``wrong_cited`` when ``grounded`` FAILs it for a figure a
   cited page states otherwise (``grounded_contradicts``), ``correct_ungrounded`` when it FAILs it
   otherwise, else ``correct``.

"The referee when it ran" means: when the referee was asked that item (``Referee.asked``). Behind a
cascade it is asked only some items (those the rule above, without it, leaves ``unscored``); every other
item keeps its deterministic verdict. A blank reply is never asked (the matchers fail it).

Each outcome records who decided it (``decided_by``): ``system`` (a system error), ``guard`` (the guard
blocked the reply), the referee's name (it was asked: its verdict, or why it could not give one), else
``matchers`` (the deterministic metrics: hard_fact, value_match, refusal, grounded; their verdict, or why
they could not decide).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ..metric import system_failures
from ..records import Record
from ._base import MetricScores, Outcome

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
HARD_FACT, VALUE_MATCH = "hard_fact", "value_match"
MATCHERS: Final = (HARD_FACT, VALUE_MATCH)  # the factual metrics without a referee, in the order named
REFUSAL, GROUNDED = "refusal", "grounded"
DECLINED_COLUMN, DECLINES_ONLY_COLUMN = "declined", "declines_only"  # refusal's extra columns
PROBLEMS_COLUMN, UNDECIDED_COLUMN = "grounded_problems", "undecided"
CONTRADICTS_COLUMN = "grounded_contradicts"
BY_MATCHERS, BY_GUARD, BY_SYSTEM = "matchers", "guard", "system"  # who decided, besides the referee
_NAMES = {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.UNSCORED: "unscored", Outcome.SOFT_PASS: "FAIL"}


@dataclass(frozen=True)
class Referee:
    """The metric whose verdict decides a row it was asked (an LLM grader behind a cascade, or not): its
    name, its rule for a row in its own words (read from its columns), and whether it was asked the row
    (rather than deciding it without being asked: by its cascade, as blank, as a system failure)."""

    name: str
    rule: Callable[[MetricScores, int], str]
    asked: Callable[[MetricScores, int], bool]

    @property
    def not_asked(self) -> str:
        """Said after the reason of a row it was not asked, in a run where it ran."""
        return f"the {self.name} was not asked: the matchers decided"


@dataclass(frozen=True)
class Verdicts:
    """What the outcome rule reads: the rows, each metric's verdicts on them, and the referee (None: no
    metric referees; its verdicts are read when its name is among `metrics`)."""

    records: Sequence[Record]
    metrics: Mapping[str, MetricScores]
    referee: Referee | None = None

    def without_referee(self) -> Verdicts:
        """The same rows as the matchers alone would decide them (the referee's name kept for words)."""
        if self.referee is None or self.referee.name not in self.metrics:
            return self
        kept = {name: scores for name, scores in self.metrics.items() if name != self.referee.name}
        return Verdicts(self.records, kept, self.referee)

    @property
    def refereed(self) -> MetricScores | None:
        """The referee's verdicts, None when it did not run."""
        return None if self.referee is None else self.metrics.get(self.referee.name)

    @property
    def referee_ran(self) -> str | None:
        """The referee's name when it ran, else None."""
        return None if self.refereed is None or self.referee is None else self.referee.name

    @property
    def referee_words(self) -> str:
        """How the reasons name the referee, or what would have referred when none is declared."""
        return "a referee" if self.referee is None else f"the {self.referee.name}"


def decided_outcomes(run: Verdicts) -> list[tuple[str, str, str]]:
    """Each row's (outcome, reason, who decided), in row order, by the precedence in this module's
    docstring."""
    failed = system_failures(run.records)  # the core's rule: the rows no metric scored
    refereed, unrefereed = run.refereed, run.without_referee()
    found = []
    for index, record in enumerate(run.records):
        asked = refereed is not None and run.referee is not None and run.referee.asked(refereed, index)
        outcome, reason = _row_outcome(run if asked else unrefereed, index, record, failed)
        by = _decider(run, record, outcome, asked)
        if refereed is not None and run.referee is not None and by == BY_MATCHERS:
            reason = f"{reason}; {run.referee.not_asked}"
        found.append((outcome, reason, by))
    return found


def _decider(run: Verdicts, record: Record, outcome: str, asked: bool) -> str:
    """Who decided a row's outcome, in the precedence's order."""
    if outcome == "system_error":
        return BY_SYSTEM
    if record.reply is not None and record.reply.blocked is True:
        return BY_GUARD  # blocked: "blocked" for an answerable item, "correct" for a refusal item
    return run.referee.name if asked and run.referee is not None else BY_MATCHERS


def is_refusal_item(record: Record) -> bool:
    return record.gold is not None and record.gold.expected_refusal is True


# --- one row ------------------------------------------------------------------------------------------


def _row_outcome(run: Verdicts, index: int, record: Record, failed: Mapping[int, str]) -> tuple[str, str]:
    reply = record.reply
    if index in failed:
        return "system_error", failed[index]
    blocked = reply is not None and reply.blocked is True
    if is_refusal_item(record):
        return _refusal_outcome(run, index, blocked)
    if blocked:
        return "blocked", "the system's guard blocked the reply to an answerable item"
    verdict, why = _factual_verdict(run, index)
    if verdict is Outcome.UNSCORED:
        return "unscored", why
    if verdict is Outcome.PASS:
        return _passed_outcome(run, index, why)
    if _declined(run, index):
        return "refused_answerable", f"{why}; refusal: the reply declined an answerable item"
    if reply is not None and reply.citations:
        cited = ", ".join(dict.fromkeys(c.document for c in reply.citations))
        return "wrong_cited", f"{why}; the wrong answer cites {cited}"
    return "wrong_uncited", f"{why}; no citation"


def _refusal_outcome(run: Verdicts, index: int, blocked: bool) -> tuple[str, str]:
    if blocked:
        return "correct", "a refusal item, and the system's guard blocked the reply"
    decided = _refusal_verdict(run, index)
    if decided is None:
        return "unscored", f"a refusal item, and neither {run.referee_words} nor refusal scored the run"
    verdict, why = decided
    if verdict is Outcome.UNSCORED:
        return "unscored", why
    return ("correct" if verdict is Outcome.PASS else "answered_refusal"), why


def _passed_outcome(run: Verdicts, index: int, why: str) -> tuple[str, str]:
    """A factual pass, as grounded reads its citations: correct, correct_ungrounded or wrong_cited."""
    problem = _grounding_problem(run, index)
    texts = run.metrics[GROUNDED].texts if problem is not None else {}
    contradicts = _text(texts, CONTRADICTS_COLUMN, index)
    if contradicts:  # a figure of the reply the cited page states otherwise: a wrong answer, cited
        return "wrong_cited", f"{why}; grounded: the reply contradicts the cited page ({contradicts})"
    return ("correct", why) if problem is None else ("correct_ungrounded", f"{why}; {problem}")


def _refusal_verdict(run: Verdicts, index: int) -> tuple[Outcome, str] | None:
    referee = run.referee_ran
    if referee is not None:
        return _verdict(run, referee, index)
    if REFUSAL in run.metrics:
        return _verdict(run, REFUSAL, index)
    return None


def _factual_verdict(run: Verdicts, index: int) -> tuple[Outcome, str]:
    referee = run.referee_ran
    if referee is not None:
        return _verdict(run, referee, index)
    ran = [name for name in MATCHERS if name in run.metrics]
    if not ran:
        return Outcome.UNSCORED, f"no factual metric ran (hard_fact, value_match or {run.referee_words})"
    decided = {name: _verdict(run, name, index) for name in ran}
    declined = _refused(run, index, decided)
    if declined is not None:
        return Outcome.FAIL, declined
    reader = decided.get(VALUE_MATCH)
    if reader is not None and (reader[0] is not Outcome.UNSCORED or _undecided(run, index)):
        return _declined_pass(run, index, *_as_read(reader, decided.get(HARD_FACT)))
    scored = {name: found for name, found in decided.items() if found[0] is not Outcome.UNSCORED}
    if not scored:
        return Outcome.UNSCORED, "; ".join(why for _, why in decided.values())
    verdict, why = next(iter(scored.values()))
    return _declined_pass(run, index, verdict, why)


def _as_read(reader: tuple[Outcome, str], pattern: tuple[Outcome, str] | None) -> tuple[Outcome, str]:
    """value_match's verdict, which stands: it reads the reply's clauses (negation, hedges, the field's
    clause) where it read a typed value; a pattern's differing match is named beside it."""
    verdict, why = reader
    if pattern is not None and pattern[0] is verdict:
        why = f"{pattern[1]}; {why}"
    elif pattern is not None and pattern[0] is not Outcome.UNSCORED:
        why = f"{why} (hard_fact {_NAMES[pattern[0]]}: its pattern matched the text, not the clause)"
    return verdict, why


def _refused(run: Verdicts, index: int, decided: Mapping[str, tuple[Outcome, str]]) -> str | None:
    """Why a reply ``refusal`` reads as a decline refused the item, whatever the matchers make of its
    words (a FAIL, so ``refused_answerable``); None when the matchers decide. A decline can hold what a
    pattern looks for ("No, the answer is not provided.", "... की जानकारी नहीं है" hold the No of a "No"):
    a reply that says nothing besides its decline refused; so did one in which no matcher read an answer
    ("The brochure doesn't give a UIN, but the policy number is ..."). One they pass that also says more
    is for a referee (``_declined_pass``)."""
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
        # a decline and more besides: the matchers cannot tell which part they read, a referee must weigh
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


def _verdict(run: Verdicts, name: str, index: int) -> tuple[Outcome, str]:
    """A metric's verdict on a row (a soft pass is not a pass), and the words saying so: the referee's
    own words (who decided, its rationale), else the metric's name and verdict."""
    scores = run.metrics[name]
    outcome = scores.outcome(index)
    if outcome is Outcome.SOFT_PASS:
        outcome = Outcome.FAIL
    if run.referee is not None and name == run.referee.name:
        return outcome, f"{name}: {run.referee.rule(scores, index)}"
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
