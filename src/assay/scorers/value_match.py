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
its bare numbers are read in the expected unit ("It is 30." for 30 days).

A reply is a set of claims: when the row names its field (a gold item's ``field``, with its question
and the document's title: ``text.clauses.field_terms``), the candidates that answer are those said in
the clauses that name the field most strongly, each term counted for the value it follows (or for the
next, when a comma or a conjunction comes between), a term before the clause's first value for every
value (it is the clause's subject): "60 days before
admission and 180 days after discharge" answers the days after discharge with 180 days. A value said
only in another clause ("the free-look period is 30 days" for the grace period) neither passes nor
rivals. A row without a field (a plain dataset) is read whole. It passes when an answering candidate
equals the expected value and none of these holds:

- the response names another value of the same kind too (``30 or 60 days``; ``₹5 lakh or ₹10 lakh``):
  several candidates, of which a reader cannot tell which is the answer. Values offered as
  alternatives or a range ("30 or 60 days", "30-60 days", "between 30 and 60 days") always compete;
  without the field's terms a reply is read answer first: another value counts in the equal value's
  sentence or before it ("The grace period is 15 days. Some say 30 days."), and in a later sentence
  only with a contrast, negation or correction word ("However, monthly mode has 15 days", "No, it is
  15 days"); a later sentence's value (or a later table cell's) is context;
- the equal value is negated: a negation cue (``assay.text.cues``) before it in its clause (not one of
  a condition or relative clause: "if you don't renew within 30 days"), or among the three words before
  it in its sentence, not followed by a comma ("No, it is 30 days" is no negation), unless a comparison
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

A yes/no value passes when the response says it and never the opposite: its sentences' own "Yes" and
"No", and the polarity of the clauses that name the question's terms most strongly ("Are monthly
subscriptions refundable?" is answered No by "Monthly subscriptions are not refundable." and
"... are non-refundable": a negation governing the clause, a term with a negative prefix, or a verb of
exclusion or prohibition, "excluded", "prohibited"); without
such a clause, the yes/no words of coverage (``covered``, ``included``; ``not covered``, ``excluded``).
A reply that says neither is unscored, for the judge (the ``undecided`` extra column is 1): the rules
read it and could not decide, which is not a wrong answer.

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
from ..text.clauses import FieldTerms, field_terms
from ..values import money_scale, typed_value
from ..values.patterns import (
    MAX_TEXT_WORDS,
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
    is_currency,
    render_answer,
    same_value,
)
from ._base import PASS, UNSCORED, MetricScores, Scorer, Seen, Span
from ._value_clauses import (
    BY_TERMS,
    WHOLE,
    alternatives,
    answering,
    clause_negated,
    negated_after,
)
from ._value_reply import MAX_EXAMINED, SHOWN_RIVALS, Decision, candidates, hedged, in_play, negated, rate
from ._value_yesno import decide_bool
from .hard_fact import HARD_FACT

VALUE, UNIT, VALUE_TYPE = "gold.value?", "gold.unit?", "gold.value_type?"  # optional: a plain file has none
# What names the asked field: the gold item's field and title, and the row's question.
FIELD, TITLE, QUESTION = "gold.field?", "gold.source_title?", "question"
NO_TERMS = FieldTerms()  # a plain dataset's row: the reply is read whole
UNDECIDED = "undecided"  # the extra column: 1 where the rules read the reply and could not decide
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
            money = is_currency(canonical)  # INR, USD, $, dollars
            kind = MONEY if money else {PERCENT_SIGN: PERCENT}.get(canonical or "", NUMBER_UNIT)
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


def _decide_quantity(expected: Value, text: str, terms: FieldTerms) -> Decision:
    mentions = read_folded(text)
    read = f"read from the response: {_shown(mentions)}"
    found = candidates(expected, mentions, text)
    chosen, how = answering(text, found, terms)
    is_equal = [same_value(expected, m.value) for m in chosen]  # by position: no Mention equality, O(n)
    equal = [m for m, same in zip(chosen, is_equal) if same]
    if not equal:
        elsewhere = [m for m in found if same_value(expected, m.value)]
        said = ", ".join(dict.fromkeys(render_answer(m.value) for m in chosen[:SHOWN_RIVALS]))
        if elsewhere and said:
            return Decision(False, f"the clause that answers the field states {said}; "
                            f"{render_answer(expected)!r} only in another clause; {read}")  # fmt: skip
        return Decision(False, f"no stated value equals {render_answer(expected)!r}; {read}")
    rivals = (m for m, same in zip(chosen, is_equal) if not same and _competes(text, equal[0], m, how))
    others = list(itertools.islice((m for m in rivals if not negated(text, m)), SHOWN_RIVALS))
    if others:
        names = ", ".join(dict.fromkeys(render_answer(m.value) for m in [equal[0], *others]))
        return Decision(False, f"the response names several candidate values ({names}); {read}")
    problems = []
    for mention in equal[:MAX_EXAMINED]:
        # a contrast in the answer's own sentence sets it against any value there, unless the field's
        # terms picked the clauses (then only theirs)
        problem = _unstated(text, mention, chosen if how == BY_TERMS else mentions, found)
        if problem is None:
            return Decision(True, f"states {render_answer(expected)!r}; {read}", (mention.start, mention.end))
        problems.append(problem)
    return Decision(False, f"{render_answer(expected)!r} is stated under {problems[0]}; {read}")


def _competes(text: str, answer: Mention, other: Mention, how: str) -> bool:
    """Whether another value of the answering clauses competes with the answer: offered as its
    alternative or range, or (when the field's terms did not pick the clauses) in play by the
    sentence rules of ``_value_reply.in_play``. Values the field's terms gave to the field's clause
    but joined by "and" are two claims of one sentence, each checked by the grounded metric."""
    if alternatives(text, answer, other):
        return True
    if how != WHOLE:
        return other.start < answer.start and rate(text, answer) == rate(text, other)
    return in_play(text, answer, other)


def _neighbours(found: Sequence[Mention], mention: Mention) -> list[Mention]:
    """The mentions just before and after `mention` in `found` (in text order): the only ones that can
    be joined to it as alternatives."""
    at = next((i for i, m in enumerate(found) if m is mention), -1)
    return [found[i] for i in (at - 1, at + 1) if 0 <= i < len(found) and at >= 0]


def _unstated(text: str, mention: Mention, rivals: Sequence[Mention], found: Sequence[Mention]) -> str | None:
    """Why the equal value at `mention` is not stated as the answer, or None when it is; `rivals` are
    the values a contrast in its sentence may set against it."""
    if negated(text, mention) or clause_negated(text, mention.start):
        return "a negation before it"
    if negated_after(text, mention.end):
        return "a negation of its clause after it"
    joined = next((m for m in _neighbours(found, mention) if alternatives(text, mention, m)), None)
    if joined is not None:
        return f"a range or alternatives with {render_answer(joined.value)!r}"
    return qualifier(text, mention.start, mention.end) or hedged(text, mention, rivals)


_BETWEEN_WORDS = r"[\s_\-\u2010-\u2014]?"  # pan india, pan-india, pan_india


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


def decide(
    expected: Value, text: str, answers: Sequence[str] = (), terms: FieldTerms = NO_TERMS
) -> Decision:
    """Whether folded `text` states `expected` (see the module's note), with the rule in words;
    `terms` name the asked field (its name's and its question's words)."""
    if expected.type == BOOL:
        return decide_bool(expected, text, terms)
    if expected.type in (ENUM, TEXT):
        return _decide_words(expected, text, answers)
    return _decide_quantity(expected, text, terms)


def _value_match(
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    values: Sequence[Any],
    units: Sequence[Any],
    value_types: Sequence[Any],
    fields: Sequence[Any],
    titles: Sequence[Any],
    questions: Sequence[Any],
) -> MetricScores:
    scores = MetricScores.all_failing("value_match", len(responses), (UNDECIDED,))
    undecided = scores.extras[UNDECIDED]
    for row, (response, answers) in enumerate(zip(responses, answer_sets)):
        expected = expected_of(values[row], units[row], value_types[row], answers)
        if expected.value is None:
            scores.outcomes[row], scores.reasons[row] = UNSCORED, expected.source
            continue
        decision = decide(expected.value, response, answers, _terms(fields[row], questions[row], titles[row]))
        # the golden answer that decided, so that a trace (which sees that one answer) decides alike
        scores.answer_index[row] = max(expected.answer_index, decision.answer_index)
        if decision.passed is None:
            scores.outcomes[row], scores.reasons[row], undecided[row] = UNSCORED, decision.rule, 1
        elif decision.passed:
            scores.outcomes[row] = PASS
    return scores


def _terms(field: Any, question: Any, title: Any) -> FieldTerms:
    """The terms that name the row's field; none for a row without a gold field (a plain dataset's
    question names a fact, not a field of a document: its reply is read whole, as before)."""
    if not isinstance(field, str) or not field:
        return NO_TERMS
    text = question if isinstance(question, str) else None
    return field_terms(field, text, title if isinstance(title, str) else None)


def _explain(seen: Seen) -> tuple[str, Span | None]:
    answers = () if seen.golden is None else (seen.golden,)
    inputs = seen.inputs
    expected = expected_of(inputs.get(VALUE), inputs.get(UNIT), inputs.get(VALUE_TYPE), answers)
    if expected.value is None:
        return expected.source, None
    terms = _terms(inputs.get(FIELD), inputs.get(QUESTION), inputs.get(TITLE))
    decision = decide(expected.value, seen.response, answers, terms)
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
    inputs=(VALUE, UNIT, VALUE_TYPE, FIELD, TITLE, QUESTION),
    extra_columns=(UNDECIDED,),
    # 2: the clause that answers the field; negation in the clause; yes/no from the question's terms
    version=2,
    explain=_explain,
    alignment=HARD_FACT.alignment,
    # Not by default: on a plain dataset most golden answers are names, not values, and the rows would
    # be unscored; it is one --metric away, and a gold set names it.
    default=False,
)
