"""``value_match``: the response states the expected value, compared as values, not as strings.

The expected value is the row's typed gold value (``gold.value`` with ``gold.unit`` and
``gold.value_type``, or flat ``value``/``unit``/``value_type`` columns) when it has one, else its
golden answer read as a value (``values.parse_answer``: "30 days", "₹5 lakh", "20%", "Yes",
"1947", "15 August 1947", "३० दिन"). A row with neither is unscored, with the reason: "Mahatma
Gandhi" has no value to compare, which is not a wrong answer.

The response is read for values (``values.reading``) after the unicode profile's folding, so
``thirty days`` = ``30 days`` = ``1 month`` (the exact equivalences of ``values.types``), ``₹5
lakh`` = ``Rs 5,00,000`` = ``₹5L``, and Indic digits read as ASCII. The candidates are the stated
values of the expected one's kind (a duration in a unit it converts with, an amount, a percentage, a
date; for a bare number or a count, bare numbers and a date's year); when the response states none,
its bare numbers are read in the expected unit ("It is 30." for 30 days). It passes when a candidate
equals the expected value and none of these holds:

- the response names another value of the same kind too (``30 or 60 days``; ``₹5 lakh or ₹10 lakh``):
  several candidates, of which a reader cannot tell which is the answer. A reply is read answer
  first: another value counts in the equal value's sentence or before it ("The grace period is 15
  days. Some say 30 days."), and in a later sentence only with a contrast, negation or correction
  word ("However, monthly mode has 15 days", "No, it is 15 days"); a later sentence's value (or a
  later table cell's) is context: "The grace period is 30 days. The waiting period is 36 months."
  passes for 30 days, and fails for 36 months, where a reader cannot tell without the question;
- the equal value is negated: a negation cue (``assay.text.cues``) among the three words before it in
  its sentence, not followed by a comma ("No, it is 30 days" is no negation), unless a comparison
  word comes between ("not more than 50%", "shall not exceed 50%", "not later than 30 days" state a
  bound); for Indian languages, which put it after, a negation right after the value;
- the equal value is approximate or strictly bounded ("about 30 days", "more than 30 days", "under
  ₹5 lakh"), or bounded above with an open end ("up to 30 days or more"): see
  ``value_reading.APPROXIMATIONS``. An inclusive bound states the value, as policy wordings state
  limits: "up to 30 days", "within 30 days", "not more than 30 days", "at least 18 years", "30 days or
  more";
- the equal value is hedged: a hedge word in its sentence (the cues' hedges, and ``usually``,
  ``typically``, ``generally``, ...), or a contrast word with another, non-negated number in the
  sentence ("usually 30 days but some plans use 60").

A yes/no value passes when the response says it (``yes``, ``covered``, ``included``; ``no`` as the
first word of a sentence, ``not covered``, ``excluded``, ``isn't covered``) and never the opposite.
An enum label or a short text (``values.patterns.MAX_TEXT_WORDS`` words) passes when its
words, or a golden answer's, occur as a whole and not negated; a longer text is unscored (it is for
phrase_match or the judge). Traces show the expected value, where it came from, and every value read
from the response. The rules' lists are versioned: a change to the reading or comparing of values
bumps ``value_types.VALUES_VERSION``, one to this module's lists the scorer's ``version``; both are in
the signature.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from ..text import cues, unicode
from ..values import money_scale, typed_value
from ..values.patterns import (
    EXCLUSIONS,
    MAX_TEXT_WORDS,
    NEGATED_POSITIVE,
    NEGATIVE,
    POSITIVE,
    SENTENCE_NO,
    words_pattern,
)
from ..values.reading import Mention, parse_answer, qualifier, read_folded
from ..values.types import (
    ANSWER_TYPES,
    BOOL,
    ENUM,
    MONEY,
    NUMBER_UNIT,
    PERCENT,
    PERCENT_SIGN,
    RUPEES,
    TEXT,
    VALUES_VERSION,
    Value,
    canonical_unit,
    render_answer,
    same_value,
)
from ._base import PASS, UNSCORED, MetricScores, Scorer, Seen, Span
from ._value_reply import MAX_EXAMINED, SHOWN_RIVALS, candidates, hedged, in_play, negated
from .hard_fact import HARD_FACT

VALUE, UNIT, VALUE_TYPE = "gold.value?", "gold.unit?", "gold.value_type?"  # optional: a plain file has none
NO_VALUE = (
    "the golden answer is not a typed value (a number with its unit, an amount, a percentage, a date or "
    "yes/no)"
)
LONG_TEXT = (
    "the gold value is a text too long to compare as a value (at most "
    f"{MAX_TEXT_WORDS} words): phrase_match or the judge reads it"
)
# Type names other files use for a gold value, as this scorer's answer types.
TYPE_ALIASES: Mapping[str, str] = {
    "number": NUMBER_UNIT, "integer": NUMBER_UNIT, "int": NUMBER_UNIT, "float": NUMBER_UNIT,
    "boolean": BOOL, "string": TEXT, "amount": MONEY, "currency": MONEY,
}  # fmt: skip
@dataclass(frozen=True)
class Expected:
    """The value a row expects, and where it came from (for traces), or why there is none."""

    value: Value | None
    source: str
    answer_index: int = -1


@dataclass(frozen=True)
class Decision:
    """A row's verdict, the rule in words, the deciding span in the seen response, and the golden
    answer whose words decided (a label's), or -1."""

    passed: bool
    rule: str
    span: Span | None = None
    answer_index: int = -1


def _gold_value(raw: Any, unit: Any, value_type: Any) -> Value:
    if isinstance(raw, Mapping) and "value" in raw:  # a gold item's expected_value, whole
        raw, unit = raw["value"], raw.get("unit", unit)
    unit = unit if isinstance(unit, str) else None
    kind = TYPE_ALIASES.get(str(value_type).casefold(), value_type) if value_type else None
    if kind not in ANSWER_TYPES:
        if isinstance(raw, bool):
            kind = BOOL
        elif isinstance(raw, (int, float)):
            canonical = RUPEES if money_scale(unit) else canonical_unit(unit)  # 5 in "lakh"
            kind = {RUPEES: MONEY, PERCENT_SIGN: PERCENT}.get(canonical or "", NUMBER_UNIT)
        else:
            parsed = parse_answer(str(raw))
            if parsed is not None:
                return parsed
            kind = TEXT
    return typed_value(raw, answer_type=str(kind), unit=unit)


def expected_of(raw: Any, unit: Any, value_type: Any, answers: Sequence[str]) -> Expected:
    """The row's expected value: its gold value typed, else the first golden answer that is a value."""
    problem = ""
    if raw is not None:
        try:
            value = _gold_value(raw, unit, value_type)
        except ValueError as exc:
            problem = f"; its gold value {raw!r} cannot be typed ({exc})"
        else:
            if value.type == TEXT and words_pattern(str(value.value)) is None:
                return Expected(None, LONG_TEXT)
            return Expected(value, f"the gold value {raw!r}")
    for index, answer in enumerate(answers):
        parsed = parse_answer(answer)
        if parsed is not None:
            return Expected(parsed, f"the golden answer {answer!r}", index)
    return Expected(None, NO_VALUE + problem)


SHOWN_VALUES = 30  # values a trace lists; a reply of thousands of numbers is summed up after these


def _shown(mentions: Sequence[Mention]) -> str:
    shown = [render_answer(m.value) + ("" if m.value.unit or m.value.type != NUMBER_UNIT else " (no unit)")
             for m in mentions[:SHOWN_VALUES]]  # fmt: skip
    more = f" and {len(mentions) - SHOWN_VALUES:,} more" if len(mentions) > SHOWN_VALUES else ""
    return ", ".join(shown) + more if shown else "no values"


def _decide_quantity(expected: Value, text: str) -> Decision:
    mentions = read_folded(text)
    read = f"read from the response: {_shown(mentions)}"
    found = candidates(expected, mentions, text)
    is_equal = [same_value(expected, m.value) for m in found]  # by position: no Mention equality, O(n)
    equal = [m for m, same in zip(found, is_equal) if same]
    if not equal:
        return Decision(False, f"no stated value equals {render_answer(expected)!r}; {read}")
    rivals = (m for m, same in zip(found, is_equal) if not same and in_play(text, equal[0], m))
    others = list(itertools.islice((m for m in rivals if not negated(text, m)), SHOWN_RIVALS))
    if others:
        names = ", ".join(dict.fromkeys(render_answer(m.value) for m in [equal[0], *others]))
        return Decision(False, f"the response names several candidate values ({names}); {read}")
    problems = []
    for mention in equal[:MAX_EXAMINED]:
        problem = (
            "a negation before it"
            if negated(text, mention)
            else qualifier(text, mention.start, mention.end) or hedged(text, mention, mentions)
        )
        if problem is None:
            return Decision(True, f"states {render_answer(expected)!r}; {read}", (mention.start, mention.end))
        problems.append(problem)
    return Decision(False, f"{render_answer(expected)!r} is stated under {problems[0]}; {read}")


_NEGATIVE_PHRASE = regex.compile(
    rf"(?<!\w)(?:{NEGATED_POSITIVE}|(?:{'|'.join(EXCLUSIONS)}|{'|'.join(NEGATIVE)})(?!\w))"
)
_POSITIVE_TERM = regex.compile(rf"(?<!\w)(?:{'|'.join(POSITIVE)})(?!\w)")
_SENTENCE_NO = regex.compile(SENTENCE_NO)
_BETWEEN_WORDS = r"[\s_\-\u2010-\u2014]?"  # pan india, pan-india, pan_india
_NOT_BEFORE = regex.compile(r"(?<!\w)not\s$")


def _polarities(text: str) -> list[tuple[bool, int, int]]:
    """Each yes or no the response says, as (truth, start, end), in order."""
    found, taken = [], []
    for match in [*_NEGATIVE_PHRASE.finditer(text), *_SENTENCE_NO.finditer(text)]:
        flipped = match.group() in EXCLUSIONS and _NOT_BEFORE.search(text, 0, match.start())
        found.append((bool(flipped), match.start(), match.end()))
        taken.append(match.span())
    for match in _POSITIVE_TERM.finditer(text):
        if not any(start <= match.start() < end for start, end in taken):
            found.append((True, match.start(), match.end()))
    return sorted(found, key=lambda item: item[1])


def _decide_bool(expected: Value, text: str) -> Decision:
    said = _polarities(text)
    shown = ", ".join(repr(text[start:end]) for _, start, end in said) or "no yes or no"
    wanted = [item for item in said if item[0] == expected.value]
    if not wanted:
        return Decision(False, f"the response does not say {render_answer(expected)!r}; it says {shown}")
    if len(wanted) < len(said):
        return Decision(False, f"the response says both yes and no: {shown}")
    _, start, end = wanted[0]
    hedge = hedged(text, Mention(expected, start, end), ())
    if hedge is not None:
        return Decision(False, f"{render_answer(expected)!r} is said under {hedge}; it says {shown}")
    return Decision(True, f"the response says {render_answer(expected)!r}: {shown}", (start, end))


def _decide_words(expected: Value, text: str, answers: Sequence[str]) -> Decision:
    """A label or short text: its words, or a golden answer's, whole and not negated."""
    phrases = [str(expected.value).replace("_", " "), *answers]
    for index, phrase in enumerate(unicode.fold(p).strip() for p in phrases):
        if not phrase:
            continue
        joined = _BETWEEN_WORDS.join(regex.escape(word) for word in phrase.split())
        for match in regex.finditer(rf"(?<!\w)(?<!\w[\-\u2010-\u2014]){joined}(?!\w)", text):
            if not negated(text, Mention(expected, match.start(), match.end())):
                return Decision(True, f"states {phrase!r}", match.span(), index - 1)
    return Decision(False, f"no whole, non-negated mention of {render_answer(expected)!r}")


def decide(expected: Value, text: str, answers: Sequence[str] = ()) -> Decision:
    """Whether folded `text` states `expected` (see the module's note), with the rule in words."""
    if expected.type == BOOL:
        return _decide_bool(expected, text)
    if expected.type in (ENUM, TEXT):
        return _decide_words(expected, text, answers)
    return _decide_quantity(expected, text)


def _value_match(
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    values: Sequence[Any],
    units: Sequence[Any],
    value_types: Sequence[Any],
) -> MetricScores:
    scores = MetricScores.all_failing("value_match", len(responses))
    for row, (response, answers) in enumerate(zip(responses, answer_sets)):
        expected = expected_of(values[row], units[row], value_types[row], answers)
        if expected.value is None:
            scores.outcomes[row], scores.reasons[row] = UNSCORED, expected.source
            continue
        decision = decide(expected.value, response, answers)
        # the golden answer that decided, so that a trace (which sees that one answer) decides alike
        scores.answer_index[row] = max(expected.answer_index, decision.answer_index)
        if decision.passed:
            scores.outcomes[row] = PASS
    return scores


def _explain(seen: Seen) -> tuple[str, Span | None]:
    answers = () if seen.golden is None else (seen.golden,)
    inputs = seen.inputs
    expected = expected_of(inputs.get(VALUE), inputs.get(UNIT), inputs.get(VALUE_TYPE), answers)
    if expected.value is None:
        return expected.source, None
    decision = decide(expected.value, seen.response, answers)
    rule = f"expected {render_answer(expected.value)!r} ({expected.value.type}, from {expected.source}): "
    span = None if decision.span is None else seen.locate(*decision.span)
    return rule + decision.rule, span


VALUE_MATCH = Scorer(
    name="value_match",
    description="the response states the expected value (the gold value, else the golden answer read as "
    "a number with its unit, an amount, a percentage, a date or yes/no), compared as values; "
    "negated, hedged or one of several candidates does not pass",
    view=unicode.fold,
    score_rows=_value_match,
    signature_parts=(unicode.FOLD_SIGNATURE, cues.SIGNATURE, f"values:{VALUES_VERSION}"),
    inputs=(VALUE, UNIT, VALUE_TYPE),
    explain=_explain,
    alignment=HARD_FACT.alignment,
    # Not by default: on a plain dataset most golden answers are names, not values, and the rows would
    # be unscored; it is one --metric away, and a gold set names it.
    default=False,
)
