"""``value_match``: the response states the expected value, compared as values, not as strings.

The expected value is the row's typed gold value (``gold.value`` with ``gold.unit`` and
``gold.value_type``, or flat ``value``/``unit``/``value_type`` columns) when it has one, else its
golden answer read as a value (``harness.values.parse_answer``: "30 days", "₹5 lakh", "20%", "Yes",
"1947", "15 August 1947", "३० दिन"). A row with neither is unscored, with the reason: "Mahatma
Gandhi" has no value to compare, which is not a wrong answer.

The response is read for values (``harness.value_reading``) after the unicode profile's folding, so
``thirty days`` = ``30 days`` = ``1 month`` (the exact equivalences of ``harness.value_types``), ``₹5
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
An enum label or a short text (``harness.value_patterns.MAX_TEXT_WORDS`` words) passes when its
words, or a golden answer's, occur as a whole and not negated; a longer text is unscored (it is for
phrase_match or the judge). Traces show the expected value, where it came from, and every value read
from the response. The rules' lists are versioned: a change to the reading or comparing of values
bumps ``value_types.VALUES_VERSION``, one to this module's lists the scorer's ``version``; both are in
the signature.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from ..harness.value_patterns import (
    EXCLUSIONS,
    MAX_TEXT_WORDS,
    NEGATED_POSITIVE,
    NEGATIVE,
    POSITIVE,
    SENTENCE_NO,
    words_pattern,
)
from ..harness.value_reading import JOINER, Mention, is_reference, parse_answer, qualifier, read_folded
from ..harness.value_types import (
    ANSWER_TYPES,
    BOOL,
    COUNT,
    DATE,
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
    comparable_units,
    render_answer,
    same_value,
)
from ..harness.values import money_scale, typed_value
from ..text import cues, unicode
from ._base import PASS, UNSCORED, MetricScores, Scorer, Seen, Span
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
NEGATION_WORDS = 3  # a negation this many words before a value negates it
# "may be" and "could be" are left out: "claims may be filed within 30 days" states the period.
HEDGES = ("usually", "typically", "generally", "normally", "often", "sometimes", "approximately",
          "roughly", "varies", "vary", "depends", "depending", "think", "believe", "guess", "suppose",
          "presumably", "apparently", "seems", "assume")  # fmt: skip
CORRECTIONS = frozenset(("actually", "correction", "sorry", "wait"))
COMPARISONS = ("exceed", "exceeding", "exceeds", "more", "less", "later", "earlier", "beyond", "over", "than",
               "above", "below", "fewer")  # fmt: skip
# A sentence ends at . ! ? ; and the danda, and so does a table's cell or a bullet ("|", "•"): the
# folded response has no line breaks left.
_SENTENCE_END = regex.compile(r"[.!?;|•\n\u0964\u0965](?!\d)")
_TOKEN = regex.compile(r"\w+(?:'\w+)?|[,:]")


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


def _comparable(expected: Value, found: Value) -> bool:
    """Whether `found` is a value of the kind `expected` is: a candidate answer."""
    if expected.type == NUMBER_UNIT:
        if found.type == DATE:  # the year of a date, for a year asked
            return expected.unit in (None, COUNT) and 1000 <= expected.value < 3000
        return found.type == NUMBER_UNIT and found.unit in comparable_units(expected.unit)
    return found.type == expected.type


def _bare(expected: Value, found: Value, alone: bool) -> Value | None:
    """A bare number as a value of `expected`'s kind, when the response states none with a unit:
    "It is 30." for 30 days, "5,00,000" for ₹5 lakh. One that does not stand alone ("30 working
    days", "24/7") is a count: a candidate that never equals the expected value."""
    if found.type != NUMBER_UNIT or found.unit is not None:
        return None
    if not alone:
        return Value(NUMBER_UNIT, found.value, COUNT)
    if expected.type == NUMBER_UNIT and expected.unit not in (None, COUNT):
        return Value(NUMBER_UNIT, found.value, expected.unit)
    if expected.type in (MONEY, PERCENT):
        return Value(expected.type, found.value, expected.unit)
    return None


def candidates(expected: Value, mentions: Sequence[Mention], text: str) -> list[Mention]:
    """The mentions a reader could take for the answer: those of `expected`'s kind, else bare numbers
    standing alone read in its unit; never a page, section or clause number ("see p. 30")."""
    mentions = [m for m in mentions if not (_unitless(m.value) and is_reference(text, m.start))]
    found = [m for m in mentions if _comparable(expected, m.value)]
    if found:
        return found
    bare = ((m, _bare(expected, m.value, _ALONE.match(text, m.end) is not None)) for m in mentions)
    return [Mention(value, m.start, m.end) for m, value in bare if value is not None]


def _unitless(value: Value) -> bool:
    return value.type == NUMBER_UNIT and value.unit is None


# A bare number stands alone when no word follows it but a function word: "It is 30.", "5,00,000 for
# a family"; "30 working days" or "30 hospitals" count something else, not the expected unit.
_ALONE = regex.compile(
    r"\s?(?:$|[^\w\s](?!\s?\d)|(?:and|or|for|per|in|on|at|from|of|is|are|was|only|each|under|with|as|if|to|the)(?!\w))"
)


@functools.cache
def _cue_sets() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(negations, negations placed after the word they negate, hedges, contrasts), as the profile spells."""

    def words(kind: str, languages: Iterable[str]) -> frozenset[str]:
        return frozenset(unicode.normalise(w) for lang in languages for w in cues.CUES[lang][kind])

    every, indian = list(cues.CUES), [lang for lang in cues.CUES if lang != "en"]
    hedges = words(cues.HEDGE, every) | frozenset(HEDGES)
    return words(cues.NEGATION, every), words(cues.NEGATION, indian), hedges, words(cues.CONTRAST, every)


# A sentence is read at most this many characters either side of a value: a megabyte without a full
# stop is not one sentence to a reader, and reading it whole for each of its values would be quadratic.
SENTENCE_REACH = 1000
# A reply that states the value this many times, each hedged or negated, does not state it; and this
# many other candidates are shown in a trace. Both bound a row's time on a megabyte of repeats.
MAX_EXAMINED, SHOWN_RIVALS = 20, 3


@functools.lru_cache(maxsize=64)
def _sentence_ends(text: str) -> tuple[list[int], list[int]]:
    """The (start, end) offsets of every sentence end in `text`, found once per response."""
    found = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(text)]
    return [start for start, _ in found], [end for _, end in found]


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    starts, ends = _sentence_ends(text)
    before = bisect.bisect_right(ends, start) - 1
    after = bisect.bisect_left(starts, end)
    first = ends[before] if before >= 0 else 0
    last = starts[after] if after < len(starts) else len(text)
    return max(first, start - SENTENCE_REACH), min(last, end + SENTENCE_REACH)


def _is_negation(token: str, negations: frozenset[str]) -> bool:
    return token.endswith("n't") or token.replace("'", "") in negations


def _negated(text: str, mention: Mention) -> bool:
    """A negation among the few words before the mention in its sentence (see the module's note)."""
    negations, after_negations, _, _ = _cue_sets()
    first, last = _sentence(text, mention.start, mention.end)
    tokens = _TOKEN.findall(text[first : mention.start])
    words = 0
    for at in range(len(tokens) - 1, -1, -1):
        if tokens[at] in (",", ":"):
            continue
        words += 1
        if words > NEGATION_WORDS:
            break
        if not _is_negation(tokens[at], negations) or tokens[at + 1 : at + 2] == ["claim"]:
            continue  # "No Claim Bonus" is the name of a benefit, not a negation
        rest = tokens[at + 1 :]
        if rest[:1] != [","] and not any(word in COMPARISONS for word in rest):
            return True
    following = unicode.words(unicode.normalise(text[mention.end : last]))[:2]
    return any(word in after_negations for word in following)


def _rival(mention: Mention, other: Mention) -> bool:
    """Whether `other` is another value that could be the answer in `mention`'s place: of its kind,
    in a unit it converts with or none ("usually 30 days but some plans use 60")."""
    found, rival = mention.value, other.value
    if other is mention or rival.value == found.value:
        return False
    if rival.type == NUMBER_UNIT and rival.unit is None:
        return True  # a bare number
    if rival.type != found.type:
        return False
    return found.type != NUMBER_UNIT or rival.unit in comparable_units(found.unit)


# A value per something is a rate: "₹5,000 per day" is no rival to a sum insured of "₹5 lakh" (nor to
# one "per annum"), but is to "₹4,000 per day". The word after "per" names the rate; these say one.
_RATE = regex.compile(r"\s?(?:/-)?\s?(?:per|/|a|each|every)\s(?:policy\s)?(\w+)")
_RATE_WORDS: Mapping[str, str] = {"annum": "year", "yr": "year", "night": "day", "days": "day"}


def _rate(text: str, mention: Mention) -> str | None:
    found = _RATE.match(text, mention.end)
    return None if found is None else _RATE_WORDS.get(found.group(1), found.group(1))


def _in_play(text: str, answer: Mention, other: Mention) -> bool:
    """Whether `other` competes with `answer` for the answer: a value at the same rate (or none),
    stated in its sentence or before it, or in a later sentence that contrasts, denies or corrects
    ("However, ...", "No, it is 15 days"); a later sentence's value is otherwise context."""
    earlier, later = sorted((answer, other), key=lambda m: m.start)
    joined = JOINER.fullmatch(text, earlier.end, max(earlier.end, later.start)) is not None
    if not joined and _rate(text, answer) != _rate(text, other):  # "15 or 30 days per claim" is one rate
        return False
    if other.start < _sentence(text, answer.start, answer.end)[1]:
        return True
    negations, _, _, contrasts = _cue_sets()
    first, last = _sentence(text, other.start, other.end)
    words = unicode.words(unicode.normalise(text[first:last]))
    return not (contrasts | negations | CORRECTIONS).isdisjoint(words)


def _hedged(text: str, mention: Mention, mentions: Sequence[Mention]) -> str | None:
    _, _, hedges, contrasts = _cue_sets()
    first, last = _sentence(text, mention.start, mention.end)
    words = set(unicode.words(unicode.normalise(text[first:last])))
    hedge = next(iter(sorted(words & hedges)), None)
    if hedge:
        return f"the hedge {hedge!r}"
    contrast = next(iter(sorted(words & contrasts)), None)
    others = [m for m in mentions if first <= m.start < last and _rival(mention, m) and not _negated(text, m)]
    if contrast and others:
        return f"the contrast {contrast!r} with {render_answer(others[0].value)!r} in the same sentence"
    return None


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
    rivals = (m for m, same in zip(found, is_equal) if not same and _in_play(text, equal[0], m))
    others = list(itertools.islice((m for m in rivals if not _negated(text, m)), SHOWN_RIVALS))
    if others:
        names = ", ".join(dict.fromkeys(render_answer(m.value) for m in [equal[0], *others]))
        return Decision(False, f"the response names several candidate values ({names}); {read}")
    problems = []
    for mention in equal[:MAX_EXAMINED]:
        problem = (
            "a negation before it"
            if _negated(text, mention)
            else qualifier(text, mention.start, mention.end) or _hedged(text, mention, mentions)
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
    hedge = _hedged(text, Mention(expected, start, end), ())
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
            if not _negated(text, Mention(expected, match.start(), match.end())):
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
