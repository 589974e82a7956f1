"""Reading typed values out of text: the numbers, amounts, percentages and dates a sentence states.

One reader for every part of assay that reads values (value_match, the gold build's checks, grounding).
Text is read after the ``unicode`` profile's folding (``text.unicode.fold``: case, NFKC, Indic digits
to ASCII, punctuation kept), so ``३० दिन``, ``30 Days`` and ``30 days`` read alike. A **mention** is
one stated value with its span in the folded text:

- a number in digits (``30``, ``5,00,000`` in Indian or Western grouping, ``7.5``) or English words to
  any size (``thirty``, ``twenty-four``, ``one hundred and eighty``, ``two thousand five hundred``,
  ``one lakh fifty thousand``, ``twelve crore``, ``a hundred``, ``a dozen``; ``a``/``an``/``one``
  alone only before a unit); a number's echo in brackets is read with it (``30 (thirty) days``,
  ``thirty (30) days``), and an echo that says another number leaves the number bare (which is
  meant?); never a number inside a longer number or word;
- before it optionally a currency (``₹``, ``Rs.``, ``$``, ``US$``, ``€``, ``£``, ``INR``, ``USD``:
  ``types.CURRENCIES``), after it a scale (``lakh``/``lac``, ``crore``/``cr``, ``million``,
  ``billion``, ``thousand``/``k``), a neutral qualifier (``4 consecutive years``) and a unit (``days``,
  ``30-day``, ``hrs``, ``%``, ``per cent``, a currency's word, code or sign, Hindi ``दिन``), which may be
  qualified (``business days``, ``working days``, ``calendar days``: ``types``' note says how they
  compare); ``day care`` is not a unit of days;
- money when it has a currency (its ISO code is the unit) or ends in a scale (``5 lakh``: no currency
  named, the unit is None); a percentage with ``%`` or its words; else a number with its unit, or a
  bare number.

A bare number followed by a joined number with a unit takes that unit (``30 or 60 days``, ``5 to 10
lakh``), and an amount joined to a scaled one shares its scale and currency (``₹5 to 10 lakh``). Two
values joined as a range (``30-60 days``, ``30 to 60 days``, ``between 30 and 60 days``) are marked as
its ends (``Mention.range_end``): a reader can tell a bound from one stated value or from alternatives
(``30 or 60 days``). Dates (``15 August 1947``, ``August 15, 1947``, ``1947-08-15``, ``15/08/1947``
read day first, as in India) are read before numbers, so their digits are not bare numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

import regex

from ..text import unicode
from .types import (
    BOOL,
    CURRENCIES,
    CURRENCY_CODES,
    CURRENCY_SIGNS,
    DATE,
    ENUM,
    MONEY,
    MONTHS,
    NUMBER_UNIT,
    PERCENT,
    PERCENT_SIGN,
    TEXT,
    UNIT_ALIASES,
    Value,
    iso_date,
    plain_number,
    same_value,
)

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen")  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
NUMBER_WORDS: Mapping[str, int] = {
    **{word: number for number, word in enumerate(_ONES)},
    **{word: 20 + 10 * step for step, word in enumerate(_TENS)},
    "hundred": 100, "a hundred": 100, "one hundred": 100, "a": 1, "an": 1,
}  # fmt: skip
SCALES: Mapping[str, int] = {
    **dict.fromkeys(("lakh", "lakhs", "lac", "lacs", "लाख", "l"), 100_000),  # "l" only after a currency
    **dict.fromkeys(("crore", "crores", "cr", "करोड़"), 10_000_000),
    **dict.fromkeys(("million", "millions", "mn"), 1_000_000), **dict.fromkeys(("billion", "bn"), 10**9),
    "thousand": 1_000, "k": 1_000, "हजार": 1_000, "हज़ार": 1_000,
}  # fmt: skip
# Words that multiply the number words before them: scales (money when the number ends in one, as
# "5 lakh" does) and "dozen" (a count: "two dozen" is 24).
_WORD_SCALES: Mapping[str, int] = {
    **{word: size for word, size in SCALES.items() if word.isalpha() and word.isascii() and len(word) > 2},
    "dozen": 12,
}
# Neutral qualifiers between a number and its unit: "4 consecutive years" are 4 years. The qualifiers
# that make a unit another quantity ("7 business days") are the unit's (``types.UNIT_QUALIFIERS``).
QUALIFIERS = ("consecutive", "continuous", "completed", "complete", "full", "uninterrupted")
MONTH_NAMES: Mapping[str, int] = {
    **{name: number for number, name in enumerate(MONTHS, 1)},
    **{name[:3]: number for number, name in enumerate(MONTHS, 1)},
    "sept": 9,
}
HYPHENS = "\\-\u2010\u2011\u2012\u2013\u2014"  # for a character class: the ASCII hyphen escaped
# A currency before the amount: a sign or an ISO code (₹, Rs., $, US$, €, £, INR, USD), or "rupees" as
# Indian cheques write it ("Rupees Five Lakh"); after it, any currency word, code or sign is a unit.
_CURRENCIES_BEFORE = (*CURRENCY_SIGNS, *(code.casefold() for code in CURRENCY_CODES), "rupees", "rupee")


def _alternation(words: Iterable[str]) -> str:
    """The words as a pattern's alternatives, longest first (so that `lakhs` is not read as `lakh`)."""
    return "|".join(regex.escape(word) for word in sorted(words, key=len, reverse=True))


# A run of more digits than this is an identifier or noise, not a value (and Python refuses to print
# an int of over 4300 digits).
MAX_DIGITS = 30
# Western grouping, Indian grouping, plain; a grouped number ends where no digit follows (nor a comma
# and a digit: "5,00,000, but" ends at the second comma, "10,15,30" is three numbers).
_DIGITS = (
    rf"\d{{1,3}}(?:,\d{{3}}){{1,9}}(?!,?\d)|\d{{1,2}}(?:,\d{{2}}){{0,13}},\d{{3}}(?!,?\d)"
    rf"|\d{{1,{MAX_DIGITS}}}(?!\d)"
)
# Number words to any size, as people write them: "one hundred and eighty", "two thousand five
# hundred", "one lakh fifty thousand", "twelve crore", "a hundred", "a dozen". A group is a number below
# a thousand ("a"/"an" only before "hundred" or a scale); groups are joined by scales, "and" only after
# "hundred" or a scale ("thirty and sixty days" is two numbers, not ninety).
_BELOW_100 = (
    rf"(?:{'|'.join(_TENS)})(?:[ {HYPHENS}](?:{'|'.join(_ONES[1:10])}))?|{'|'.join(reversed(_ONES))}"
)
_AND = r"(?:,?\s(?:and\s)?)"
_NOT_A_HUNDRED = rf"(?![ {HYPHENS}](?:hundred|{_alternation(_WORD_SCALES)})(?!\w))"
_BELOW_1000 = (
    rf"(?:(?:{_BELOW_100}|an?)[ {HYPHENS}]hundred(?:{_AND}(?:{_BELOW_100})(?!\w){_NOT_A_HUNDRED})?"
    rf"|(?:{_BELOW_100})(?!\w))"
)
_GROUP = rf"(?:{_BELOW_1000}|an?)[ {HYPHENS}](?:{_alternation(_WORD_SCALES)})(?!\w)"
_WORD_NUMBER = (
    rf"{_GROUP}(?:{_AND}{_GROUP})*(?:{_AND}{_BELOW_1000}{_NOT_A_HUNDRED})?|{_BELOW_1000}|an?(?!\w)"
)
def _word_starts(words: Iterable[str]) -> set[str]:
    """The letters each word starts with, up to its first other character ("us" of "us$")."""
    return {start.group() for start in map(regex.compile(r"\p{L}+").match, words) if start}


# The long alternations are named lists (the regex module matches them as a set, longest first): a
# megabyte reply is read in seconds. What a mention can start with is checked first: a digit, a sign,
# or one of the first words, so that every other word of a text costs one failed test.
_LISTS = {
    "units": sorted(set(UNIT_ALIASES) - {"number", "count", "counts"}),
    "currencies": sorted(_CURRENCIES_BEFORE),
    "scales": sorted(SCALES),
    "first_words": sorted({*_ONES, *_TENS, "a", "an", *_word_starts(_CURRENCIES_BEFORE)}),
}
_UNIT_WORDS = r"\L<units>"
_SIGNS = regex.escape("".join(sorted({sign[0] for sign in CURRENCY_SIGNS if not sign[0].isalpha()})))


@functools.cache
def _mention_pattern() -> regex.Pattern[str]:
    """The pattern of a stated value. Compiled on first use, not at import: it is the largest pattern of
    assay (a tenth of a second to compile), and most runs read no value."""
    return regex.compile(
        rf"""(?<!\w)(?=\d|[{_SIGNS}]|\L<first_words>(?!\w))(?<!\d[.,])(?<![^\W\d][{HYPHENS}])
        (?:(?P<currency>\L<currencies>)\s?)?
        (?:(?P<digits>(?:{_DIGITS})(?:\.\d{{1,12}})?)(?!\d)(?:\s?\((?P<spelled>{_WORD_NUMBER})\))?
          |(?P<words>{_WORD_NUMBER})(?!\w)(?:\s?\((?P<echo>{_DIGITS})\))?)
        (?:[ {HYPHENS}]?(?P<scale>\L<scales>)(?!\w))?
        (?:(?:[ {HYPHENS}](?P<qualifier>{"|".join(QUALIFIERS)}))?[ {HYPHENS}]?
           (?P<unit>{_UNIT_WORDS})(?!\w)(?!\s?[{HYPHENS}]?\s?care))?
        (?![.,]\d)""",
        regex.VERBOSE,
        **_LISTS,
    )


_MONTH = _alternation(MONTH_NAMES)
_DATE = regex.compile(
    rf"""(?<!\w)(?:
      (?P<day>[0-3]?\d)(?:st|nd|rd|th)?[ {HYPHENS}](?:of\ )?(?P<month>{_MONTH})\.?,?[ {HYPHENS}]
        (?P<year>\d{{4}})
    | (?P<month>{_MONTH})\.?\ (?P<day>[0-3]?\d)(?:st|nd|rd|th)?,?\ (?P<year>\d{{4}})
    | (?P<year>\d{{4}})-(?P<mm>[01]?\d)-(?P<day>[0-3]?\d)
    | (?P<day>[0-3]?\d)(?P<sep>[/.{HYPHENS}])(?P<mm>[01]?\d)(?P=sep)(?P<year>\d{{4}})
    )(?!\w)(?![.,]\d)""",
    regex.VERBOSE,
)
JOINER = regex.compile(rf"\s?(?:or|to|and|,|/|[{HYPHENS}])\s?")
# Words that make the number after them a reference, not a value: "page 30", "(p. 30)", "Section 30",
# "Clause 4.2", "§ 30", "No. 30". A page or section number is the commonest number in a cited reply.
REFERENCES = ("page", "pages", "p", "pp", "pg", "section", "sections", "sec", "subsection", "clause",
              "clauses", "chapter", "article", "art", "para", "paragraph", "schedule", "annexure", "annex",
              "appendix", "table", "figure", "fig", "rule", "item", "no", "nos", "ref", "line", "step",
              "§")  # fmt: skip
NOT_A_REFERENCE = rf"(?<!(?<!\w)(?:{'|'.join(map(regex.escape, REFERENCES))})\.?\s?)"
_REFERENCE = regex.compile(rf"(?<!\w)(?:{'|'.join(map(regex.escape, REFERENCES))})\.?\s?$")


LOW, HIGH = "low", "high"  # a Mention's end of a range


@dataclass(frozen=True)
class Mention:
    """A value stated in folded text, at [start, end); `inherited` when its unit came from a joined
    number after it (``30`` in ``30 or 60 days``); `range_end` is ``LOW`` or ``HIGH`` when it is one end
    of a range ("30-60 days", "30 to 60 days", "between 30 and 60 days"), else None."""

    value: Value
    start: int
    end: int
    inherited: bool = False
    range_end: str | None = None


def word_number(words: str) -> int:
    """The number that number words say: "one hundred and eighty" 180, "one lakh fifty thousand"
    150000, "a dozen" 12 (the words as ``_WORD_NUMBER`` matches them, folded)."""
    total = current = 0
    for word in regex.split(rf"[\s,{HYPHENS}]+", words):
        if word in ("and", ""):
            continue
        if word == "hundred" or word in _WORD_SCALES:
            size = 100 if word == "hundred" else _WORD_SCALES[word]
            current = (current or 1) * size
            if size >= 1000:  # a scale closes its group: "two thousand | five hundred"
                total, current = total + current, 0
        else:
            current += NUMBER_WORDS[word]
    return total + current


def _written_number(found: regex.Match[str]) -> int | float | None:
    r"""The number written, or None for digits Python's Unicode tables do not know: folding made every
    digit they know ASCII, but the regex module's \d knows newer scripts' (U+1E4F0, Nag Mundari)."""
    if found.group("digits"):
        try:
            return plain_number(Decimal(found.group("digits").replace(",", "")))
        except InvalidOperation:
            return None
    return word_number(found.group("words"))


def _echo_agrees(found: regex.Match[str], number: int | float) -> bool:
    """Whether a number's echo in brackets says the same number: "30 (thirty)", "thirty (30)"."""
    if found.group("spelled"):
        return word_number(found.group("spelled")) == number
    if found.group("echo"):
        return int(found.group("echo").replace(",", "")) == number
    return True


def _scaled(found: regex.Match[str]) -> bool:
    """Whether the amount ends in a scale of money ("5 lakh", "₹10k", "twelve crore"; not "a dozen")."""
    if found.group("scale") is not None:
        return True
    words = found.group("words")
    return words is not None and regex.split(rf"[\s{HYPHENS}]+", words)[-1] in SCALES


def _typed(found: regex.Match[str], number: int | float) -> Value:
    scale, unit = found.group("scale"), found.group("unit")
    canonical = UNIT_ALIASES.get(unit) if unit else None
    if scale is not None:
        number = plain_number(Decimal(str(number)) * SCALES[scale])
    if canonical == PERCENT_SIGN:
        return Value(PERCENT, number, PERCENT_SIGN)
    before = CURRENCIES.get(found.group("currency") or "")
    if canonical in CURRENCY_CODES:
        return Value(MONEY, number, before or canonical)
    if canonical is None and (before or _scaled(found)):
        return Value(MONEY, number, before)  # "5 lakh" names no currency
    return Value(NUMBER_UNIT, number, canonical)


def _mention(found: regex.Match[str], text: str) -> Mention | None:
    """The match as a Mention, or None where it is no number (``a`` alone, ``30th``)."""
    words, unit, scale = found.group("words"), found.group("unit"), found.group("scale")
    if words in ("a", "an", "one", "hundred") and not (unit or scale):
        return None
    if found.end() < len(text) and text[found.end()].isalpha() and not (unit or scale):
        return None  # 30th, 3rd: an ordinal, or a code like 24x7
    if found.group("currency") and found.group("currency").startswith("rs") and words:
        return None  # "rs one" is no amount anyone writes; "rs" alone may be a word
    if scale == "l" and not found.group("currency"):
        return None  # ₹5L is 5 lakh; 5 l may be litres
    number = _written_number(found)
    if number is None:
        return None
    if not _echo_agrees(found, number):  # "30 (thirty-five) days": which is meant? a bare number
        first = found.end("digits") if found.group("digits") else found.end("words")
        return Mention(Value(NUMBER_UNIT, number), found.start(), first)
    return Mention(_typed(found, number), found.start(), found.end())


def _dates(text: str) -> list[Mention]:
    found = []
    for match in _DATE.finditer(text):
        month = match.group("month")
        number = MONTH_NAMES[month] if month else int(match.group("mm"))
        iso = iso_date(int(match.group("year")), number, int(match.group("day")))
        if iso is not None:
            found.append(Mention(Value(DATE, iso), match.start(), match.end()))
    return found


@functools.lru_cache(maxsize=4096)
def read_folded(folded: str) -> tuple[Mention, ...]:
    """Every value stated in text already folded by ``unicode.fold``, in order."""
    dates = _dates(folded)
    taken = [(date.start, date.end) for date in dates]
    found: list[Mention] = []
    for match in _mention_pattern().finditer(folded):
        if any(start < match.end() and match.start() < end for start, end in taken):
            continue
        mention = _mention(match, folded)
        if mention is not None:
            found.append(mention)
    ranged = _mark_ranges(_inherit_units(found, folded), folded)
    return tuple(sorted([*dates, *ranged], key=lambda m: m.start))


def _inherit_units(found: list[Mention], text: str) -> list[Mention]:
    """A bare number joined to the number after it (``30 or 60 days``) takes that one's unit; an amount
    joined to a scaled one takes its scale and gives it its currency (``₹5 to 10 lakh``)."""
    result = list(found)
    for index in range(len(result) - 2, -1, -1):
        first, after = result[index], result[index + 1]
        if not JOINER.fullmatch(text[first.end : after.start]):
            continue
        bare = first.value.type == NUMBER_UNIT and first.value.unit is None
        if bare and (after.value.unit is not None or after.value.type != NUMBER_UNIT):
            number = first.value.value
            if after.value.type == MONEY and number < 1000:
                number = _rescaled(number, text[after.start : after.end])
            value = Value(after.value.type, number, after.value.unit)
            result[index] = replace(first, value=value, inherited=True)
        elif first.value.type == MONEY == after.value.type and after.value.unit is None:
            number = _rescaled(first.value.value, text[after.start : after.end])
            if number != first.value.value and _scale_in(text[first.start : first.end]) is None:
                result[index] = replace(first, value=Value(MONEY, number, first.value.unit), inherited=True)
            result[index + 1] = replace(after, value=Value(MONEY, after.value.value, first.value.unit))
    return result


def _scale_in(written: str) -> int | None:
    for scale, size in SCALES.items():
        if regex.search(rf"(?<!\w){regex.escape(scale)}(?!\w)", written):
            return size
    return None


def _rescaled(number: int | float, written: str) -> int | float:
    size = _scale_in(written)
    if size is None or number >= 1000:
        return number
    return plain_number(Decimal(str(number)) * size)


# A range: two values joined by a dash or "to" ("30-60 days", "30 to 60 days"), or "between"/"from"
# before the first and "and"/"to" between them. "30 or 60 days" are alternatives, "30 and 60 days" two
# values: neither is a range.
_RANGE_JOINER = regex.compile(rf"\s?(?:to|till|until|through|[{HYPHENS}])\s?")
_RANGE_AND = regex.compile(r"\s?and\s?")
_RANGE_START = regex.compile(r"(?<!\w)(?:between|from)\s$")


def _mark_ranges(found: list[Mention], text: str) -> list[Mention]:
    """Each pair of values of one kind that a range joins, marked as its low and high ends."""
    result = list(found)
    for index in range(len(result) - 1):
        low, high = result[index], result[index + 1]
        if low.range_end is not None or low.value.type != high.value.type or low.value.type == DATE:
            continue
        between = text[low.end : high.start]
        if _RANGE_JOINER.fullmatch(between) or (
            _RANGE_AND.fullmatch(between) and _RANGE_START.search(text, max(0, low.start - 9), low.start)
        ):
            result[index] = replace(low, range_end=LOW)
            result[index + 1] = replace(high, range_end=HIGH)
    return result


# What a reply writes around a value that makes it some other quantity (folded text). Approximations
# ("about 30 days") and strict bounds ("more than 30 days", "under ₹5 lakh") do not state the value; a
# negated strict bound is an inclusive one and does ("not more than 30 days", "shall not exceed"), as do
# inclusive bounds alone ("up to 30 days", "within 30 days", "at least 18 years", "30 days or more"),
# because policy wordings state limits so. An upper bound with an open end ("up to 30 days or more")
# commits to nothing and does not state it.
APPROXIMATIONS = ("about", "around", "approximately", "approx", "approx.", "roughly", "nearly", "almost",
                  "circa", "close to", "ca.")  # fmt: skip
STRICT_BOUNDS = ("more than", "less than", "fewer than", "greater than", "over", "under", "above", "below",
                 "beyond", "exceeding", "in excess of")  # fmt: skip
UPPER_BOUNDS = ("up to", "upto", "within", "at most", "at the most", "maximum", "max", "maximum of")
OPEN_ENDS = ("or more", "or above", "and above", "or longer", "or over", "onwards", "+", "plus")
# The currencies commonly written before an amount, compactly: NOT_QUALIFIED goes into every pattern a
# gold set carries, which a person reads ("about $30", "over ₹5 lakh").
_CURRENCY_BEFORE = r"(?:(?:[₹$€£]|rs\.?|inr|usd|us\$|eur|gbp)\s?)?"
_NEGATED_BOUND = r"(?:not|no)\s"
NOT_QUALIFIED = (
    rf"(?<!(?<!\w)(?:{_alternation(APPROXIMATIONS)})\s?{_CURRENCY_BEFORE})"
    rf"(?<!(?<!(?<!\w){_NEGATED_BOUND})(?<!\w)(?:{_alternation(STRICT_BOUNDS)})\s{_CURRENCY_BEFORE})"
)
_QUALIFIER_BEFORE = regex.compile(
    rf"(?<!\w)(?P<negation>{_NEGATED_BOUND})?(?P<word>{_alternation(APPROXIMATIONS)}"
    rf"|{_alternation(STRICT_BOUNDS)}|{_alternation(UPPER_BOUNDS)})\s?$"
)
_OPEN_END = regex.compile(rf"\s?(?:{_alternation(OPEN_ENDS)})(?!\w)")


def qualifier(text: str, start: int, end: int) -> str | None:
    """What makes the value at [start, end) of folded `text` another quantity (see the note above
    ``APPROXIMATIONS``), in words, or None when it is stated as it is."""
    before = _QUALIFIER_BEFORE.search(text, max(0, start - 24), start)
    word = before.group("word") if before else None
    if word in APPROXIMATIONS:
        return f"the approximation {word!r}"
    if word in STRICT_BOUNDS and not before.group("negation") and not _negated_verb(text, before.start()):
        return f"the strict bound {word!r}"
    open_end = _OPEN_END.match(text, end)
    if word in UPPER_BOUNDS and open_end:
        return f"both {word!r} and {open_end.group().strip()!r}"
    return None


# A negation a verb or two before a strict bound makes a limit of it: "do not take more than 8
# tablets", "must not exceed", "should not be more than 30 days" state 8 tablets and 30 days as maxima.
_NEGATION_BEFORE_VERB = regex.compile(r"(?<!\w)(?:not|no|never|\w+n't)\s(?:\w+\s){1,2}$")


def _negated_verb(text: str, bound_start: int) -> bool:
    return _NEGATION_BEFORE_VERB.search(text, max(0, bound_start - 32), bound_start) is not None


def is_reference(text: str, start: int) -> bool:
    """Whether the number at `start` in folded `text` is a page, section or clause number."""
    return _REFERENCE.search(text, max(0, start - 16), start) is not None


def read_values(text: str) -> tuple[Mention, ...]:
    """Every value stated in `text`, spans in its folded form (``unicode.fold``)."""
    return read_folded(unicode.fold(text))


# --- a whole answer -----------------------------------------------------------------------------------

TRUE_WORDS = frozenset(("yes", "true", "covered", "included", "available", "हाँ", "हां", "जी हाँ"))
FALSE_WORDS = frozenset(("no", "false", "not covered", "excluded", "not included", "not available", "नहीं",
                         "नही"))  # fmt: skip
_EDGES = regex.compile(r"^[\s\p{P}]+|[\s\p{P}--[%]]+$", regex.V1)
_NEGATIVE_NUMBER = regex.compile(rf"[{HYPHENS}\u2212]\d")


# No one value is written in more characters than this ("one lakh twenty-three thousand four hundred and
# fifty-six rupees" is 62): a longer text is no value, and is not read through (a text of 200,000
# numbers took 9 s to be found to be more than one).
MAX_ANSWER_CHARS = 500


def parse_answer(text: str) -> Value | None:
    """The typed value a golden answer is, or None when it is not one value: the whole answer must be
    the value (``30 days``, ``thirty days``, ``₹5 lakh``, ``20%``, ``Yes``, ``1947``, ``३० दिन``,
    ``15 August 1947``); "Mahatma Gandhi" or "World War 2" are not values."""
    if not isinstance(text, str) or len(text) > MAX_ANSWER_CHARS:
        return None
    return _parsed(text)


@functools.lru_cache(maxsize=4096)  # a dataset repeats its golden answers, row after row
def _parsed(text: str) -> Value | None:
    folded = unicode.fold(text).strip()
    if _NEGATIVE_NUMBER.match(folded):
        return None  # -3 is not 3, and values are read without a sign: unscored, never wrong
    folded = _EDGES.sub("", folded)
    if folded in TRUE_WORDS or folded in FALSE_WORDS:
        return Value(BOOL, folded in TRUE_WORDS)
    if folded in NUMBER_WORDS and folded not in ("a", "an"):
        return Value(NUMBER_UNIT, NUMBER_WORDS[folded])  # "One": read alone, a word is a number
    mentions = read_folded(folded)
    if len(mentions) == 1 and (mentions[0].start, mentions[0].end) == (0, len(folded)):
        return mentions[0].value
    return None


def value_in_text(value: Value, text: str) -> bool | None:
    """Whether `text` (a curated quote) states `value`: a number, amount, percentage or date in any of
    its written forms, through the unit equivalences (``4 consecutive years`` states 48 months); a
    number with a unit must be stated with one (a bare ``30`` is not 30 days), an amount may be bare
    digits (an amount of any currency; ``$1,499`` does not state ₹1,499), and a qualified unit is
    compared as the value's unit says (``types``' note: 7 business days state 7 days, not 1 week).
    Negation is not looked at: policy wording states a cap as "shall not exceed 50%".

    None where a text cannot show it: a boolean or an enum label is a curator's reading of the quote,
    not words in it; a text value is True when its words occur in order, else None (a paraphrase)."""
    return values_in_text([value], text)[0]


def values_in_text(values: Iterable[Value], text: str) -> list[bool | None]:
    """``value_in_text`` for each of `values`, the text folded and read once for them all (not once
    per value: a list of a thousand options against a long quote)."""
    folded = unicode.fold(text)
    return [_in_folded(value, folded) for value in values]


def _in_folded(value: Value, folded: str) -> bool | None:
    if value.type in (BOOL, ENUM):
        return None
    if value.type == TEXT:
        words = unicode.fold(str(value.value)).split()
        return True if words and " ".join(words) in folded else None
    return any(_states(value, mention, folded) for mention in read_folded(folded))


def _states(value: Value, mention: Mention, folded: str) -> bool:
    found = mention.value
    if value.type == MONEY and found.type == NUMBER_UNIT and found.unit is None:
        found = Value(MONEY, found.value)  # 5,00,000 with no currency is an amount of any currency
    bare = value.type == NUMBER_UNIT and found.type == NUMBER_UNIT and found.unit is None
    if bare and unit_word_follows(folded, mention.end, value.unit):  # "8 tablets" for 8 in tablets
        found = Value(NUMBER_UNIT, found.value, value.unit)
    return same_value(value, found)


_NEXT_WORD = regex.compile(r"\s?([\p{L}\p{M}]+)")
KNOWN_UNITS = frozenset(UNIT_ALIASES.values())  # units the reader reads with their number


def unit_word_follows(folded: str, end: int, unit: str | None) -> bool:
    """Whether the word after a bare number ending at `end` is `unit`'s own word, for a unit the reader
    does not know ("25 users", "8 tablets"): compared by the crude stem of ``text.clauses``, so the
    singular and the plural meet."""
    if not isinstance(unit, str) or unit in KNOWN_UNITS:
        return False
    from ..text import clauses

    following = _NEXT_WORD.match(folded, end)
    return following is not None and clauses.meets(clauses.key(following.group(1)), clauses.key(unit))
