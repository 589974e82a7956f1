"""How a reply states a value: the mentions a reader could take for the answer (``candidates``), and
whether one is negated, hedged, or one of several rival values in play (``negated``, ``hedged``,
``in_play``). value_match decides with these; its module docstring says the rules.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import regex

from ..text import cues, unicode
from ..values.reading import JOINER, Mention, is_reference, unit_word_follows
from ..values.types import (
    COUNT,
    DATE,
    MONEY,
    NUMBER_UNIT,
    PERCENT,
    Value,
    comparable_units,
    render_answer,
)
from ._base import Span


@dataclass(frozen=True)
class Decision:
    """A row's verdict (None: the rules cannot decide, and the row is unscored for the judge), the rule
    in words, the deciding span in the seen response, and the golden answer whose words decided (a
    label's), or -1."""

    passed: bool | None
    rule: str
    span: Span | None = None
    answer_index: int = -1


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
    bare = ((m, _bare(expected, m.value, _standing(expected, text, m.end))) for m in mentions)
    return [dataclasses.replace(m, value=value) for m, value in bare if value is not None]


def _standing(expected: Value, text: str, end: int) -> bool:
    """Whether a bare number ending at `end` stands for a value of `expected`'s unit: alone, or followed
    by the unit's own word when the reader knows no such unit ("25 users" for a count of users)."""
    if _ALONE.match(text, end) is not None:
        return True
    unit = expected.unit if expected.type == NUMBER_UNIT and expected.unit != COUNT else None
    return unit_word_follows(text, end, unit)


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


def negated(text: str, mention: Mention) -> bool:
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
# one "per annum"), but is to "₹4,000 per day". The word after "per" or "/" names the rate; after "a",
# "each" or "every" only a period does ("₹500 a day", "10% every year"): in a table flattened to one
# line, "20% Each Index Finger" starts the next row, and is no rate.
_RATE = regex.compile(
    r"\s?(?:/-)?\s?(?:(?:per|/)\s(?:policy\s)?(\w+)"
    r"|(?:a|each|every)\s(?:policy\s)?(day|days|night|week|month|year|annum|hour|quarter|fortnight)(?!\w))"
)
_RATE_WORDS: Mapping[str, str] = {"annum": "year", "yr": "year", "night": "day", "days": "day"}


def rate(text: str, mention: Mention) -> str | None:
    """What the value at `mention` is a rate per ("per day", "a year"), or None."""
    found = _RATE.match(text, mention.end)
    if found is None:
        return None
    word = str(found.group(1) or found.group(2))
    return _RATE_WORDS.get(word, word)


def in_play(text: str, answer: Mention, other: Mention) -> bool:
    """Whether `other` competes with `answer` for the answer: a value at the same rate (or none),
    stated in its sentence or before it, or in a later sentence that contrasts, denies or corrects
    ("However, ...", "No, it is 15 days"); a later sentence's value is otherwise context."""
    earlier, later = sorted((answer, other), key=lambda m: m.start)
    joined = JOINER.fullmatch(text, earlier.end, max(earlier.end, later.start)) is not None
    if not joined and rate(text, answer) != rate(text, other):  # "15 or 30 days per claim" is one rate
        return False
    if other.start < _sentence(text, answer.start, answer.end)[1]:
        return not _own_subjects(text, earlier, later)
    negations, _, _, contrasts = _cue_sets()
    first, last = _sentence(text, other.start, other.end)
    words = unicode.words(unicode.normalise(text[first:last]))
    return not (contrasts | negations | CORRECTIONS).isdisjoint(words)


# A clause of its own after a comma: "..., and the free-look period is 15 days" states another fact,
# with its own subject, and is no rival to the grace period's "30 days" before it.
_OWN_CLAUSE = regex.compile(
    r",\s*(?:(?:and|while|whereas|but)\s+)?(?:the|its|their|this|that)\s+"
    r"(?P<subject>(?:[\w'-]+\s+){0,5}?[\w'-]+)\s+(?:is|are|was|were|lasts|last)\s"
)


_NO_SUBJECT = frozenset(("it", "is", "are", "was", "were", "the", "a", "an", "this", "that", "its", "their",
                         "of", "for", "in", "under", "yes", "no"))  # fmt: skip


def _own_subjects(text: str, earlier: Mention, later: Mention) -> bool:
    """Whether the two values of one sentence are said of different subjects: a comma, then a clause
    whose subject the earlier value's part of the sentence does not name. The same subject twice ("the
    grace period is 30 days, and the grace period is 60 days for ...") stays two candidates."""
    found = _OWN_CLAUSE.search(text, earlier.end, max(earlier.end, later.start))
    if found is None:
        return False
    first, _ = _sentence(text, earlier.start, earlier.end)
    named_before = set(unicode.words(text[first : earlier.start])) - _NO_SUBJECT
    # "30 days, but the period is 60 days for some plans" names no subject before its first value:
    # nothing says the second is of something else.
    return bool(named_before) and not set(unicode.words(found.group("subject"))) <= named_before


def _apart(text: str, one: Mention, other: Mention) -> bool:
    earlier, later = sorted((one, other), key=lambda m: m.start)
    return _own_subjects(text, earlier, later)


def hedged(text: str, mention: Mention, mentions: Sequence[Mention]) -> str | None:
    _, _, hedges, contrasts = _cue_sets()
    first, last = _sentence(text, mention.start, mention.end)
    words = set(unicode.words(unicode.normalise(text[first:last])))
    hedge = next(iter(sorted(words & hedges)), None)
    if hedge:
        return f"the hedge {hedge!r}"
    contrast = next(iter(sorted(words & contrasts)), None)
    others = [
        m
        for m in mentions
        if first <= m.start < last
        and _rival(mention, m)
        and not negated(text, m)
        and not _apart(text, mention, m)
    ]
    if contrast and others:
        return f"the contrast {contrast!r} with {render_answer(others[0].value)!r} in the same sentence"
    return None
