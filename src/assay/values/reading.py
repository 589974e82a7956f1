"""Reading typed values out of text: the numbers, amounts, percentages and dates a sentence states.

Text is read after the ``unicode`` profile's folding (``text.unicode.fold``: case, NFKC, Indic digits
to ASCII, punctuation kept), so ``३० दिन``, ``30 Days`` and ``30 days`` read alike. A **mention** is
one stated value with its span in the folded text:

- a number in digits (``30``, ``5,00,000`` in Indian or Western grouping, ``7.5``) or English words
  (``thirty``, ``twenty-four``; ``a``/``an``/``one`` only before a unit), a word number's echo in
  digits taken as its value (``thirty (30) days``), never a number inside a longer number or word;
- then optionally a scale (``lakh``/``lac``, ``crore``/``cr``, ``million``, ``thousand``/``k``), a
  neutral qualifier (``4 consecutive years``; not ``working``: 30 working days are not 30 days) and a
  unit (``days``, ``30-day``, ``hrs``, ``%``, ``per cent``, ``rupees``, Hindi ``दिन``); ``day care`` is
  not a unit of days;
- money when it has a currency (``₹``, ``Rs.``, ``INR``, ``rupees``) or a scale; a percentage with
  ``%`` or its words; else a number with its unit, or a bare number.

A bare number followed by a joined number with a unit takes that unit (``30 or 60 days``, ``5 to 10
lakh``). Dates (``15 August 1947``, ``August 15, 1947``, ``1947-08-15``, ``15/08/1947`` read day first,
as in India) are read before numbers, so their digits are not bare numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

import regex

from ..text import unicode
from .types import (
    BOOL,
    DATE,
    ENUM,
    MONEY,
    MONTHS,
    NUMBER_UNIT,
    PERCENT,
    PERCENT_SIGN,
    RUPEES,
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
    "million": 1_000_000, "thousand": 1_000, "k": 1_000, "हजार": 1_000, "हज़ार": 1_000,
}  # fmt: skip
QUALIFIERS = ("consecutive", "continuous", "completed", "complete", "calendar", "full", "uninterrupted")
MONTH_NAMES: Mapping[str, int] = {
    **{name: number for number, name in enumerate(MONTHS, 1)},
    **{name[:3]: number for number, name in enumerate(MONTHS, 1)},
    "sept": 9,
}
HYPHENS = "\\-\u2010\u2011\u2012\u2013\u2014"  # for a character class: the ASCII hyphen escaped
_CURRENCIES = ("₹", "rs.", "rs", "inr", "rupees", "rupee")


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
_WORD_NUMBER = (
    rf"(?:{'|'.join(_TENS)})(?:[ {HYPHENS}](?:{'|'.join(_ONES[1:10])}))?|{_alternation(NUMBER_WORDS)}"
)
_UNIT_WORDS = _alternation(set(UNIT_ALIASES) - {"number", "count", "counts"})
_MENTION = regex.compile(
    rf"""(?<!\w)(?<!\d[.,])(?<![^\W\d][{HYPHENS}])
    (?:(?P<currency>{_alternation(_CURRENCIES)})\s?)?
    (?:(?P<digits>(?:{_DIGITS})(?:\.\d{{1,12}})?)(?!\d)|(?P<words>{_WORD_NUMBER})(?!\w)(?:\s?\((?P<echo>{_DIGITS})\))?)
    (?:[ {HYPHENS}]?(?P<scale>{_alternation(SCALES)})(?!\w))?
    (?:(?:[ {HYPHENS}](?P<qualifier>{"|".join(QUALIFIERS)}))?[ {HYPHENS}]?
       (?P<unit>{_UNIT_WORDS})(?!\w)(?!\s?[{HYPHENS}]?\s?care))?
    (?![.,]\d)""",
    regex.VERBOSE,
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


@dataclass(frozen=True)
class Mention:
    """A value stated in folded text, at [start, end); `inherited` when its unit came from a joined
    number after it (``30`` in ``30 or 60 days``)."""

    value: Value
    start: int
    end: int
    inherited: bool = False


def _number(found: regex.Match[str]) -> int | float:
    if found.group("echo"):
        return int(found.group("echo").replace(",", ""))
    if found.group("digits"):
        return plain_number(Decimal(found.group("digits").replace(",", "")))
    words = " ".join(regex.sub(f"[{HYPHENS}]", " ", found.group("words")).split())
    if words in NUMBER_WORDS:
        return NUMBER_WORDS[words]
    tens, _, ones = words.partition(" ")
    return NUMBER_WORDS[tens] + NUMBER_WORDS[ones]


def _typed(found: regex.Match[str], number: int | float) -> Value:
    scale, unit = found.group("scale"), found.group("unit")
    canonical = UNIT_ALIASES.get(unit) if unit else None
    if scale is not None:
        number = plain_number(Decimal(str(number)) * SCALES[scale])
    if canonical == PERCENT_SIGN:
        return Value(PERCENT, number, PERCENT_SIGN)
    if (canonical is None and (found.group("currency") or scale is not None)) or canonical == RUPEES:
        return Value(MONEY, number, RUPEES)
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
    return Mention(_typed(found, _number(found)), found.start(), found.end())


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
    for match in _MENTION.finditer(folded):
        if any(start < match.end() and match.start() < end for start, end in taken):
            continue
        mention = _mention(match, folded)
        if mention is not None:
            found.append(mention)
    return tuple(sorted([*dates, *_inherit_units(found, folded)], key=lambda m: m.start))


def _inherit_units(found: list[Mention], text: str) -> list[Mention]:
    """A bare number joined to the number after it (``30 or 60 days``) takes that one's unit."""
    result = list(found)
    for index in range(len(result) - 2, -1, -1):
        bare, after = result[index], result[index + 1]
        if bare.value.type != NUMBER_UNIT or bare.value.unit is not None or after.value.unit is None:
            continue
        if not JOINER.fullmatch(text[bare.end : after.start]):
            continue
        number = bare.value.value
        if after.value.type == MONEY and number < 1000:
            number = _rescaled(number, text[after.start : after.end])
        result[index] = replace(bare, value=Value(after.value.type, number, after.value.unit), inherited=True)
    return result


def _rescaled(number: int | float, written: str) -> int | float:
    for scale, size in SCALES.items():
        if regex.search(rf"(?<!\w){regex.escape(scale)}(?!\w)", written):
            return plain_number(Decimal(str(number)) * size)
    return number


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
_CURRENCY_BEFORE = r"(?:(?:₹|rs\.?|inr)\s?)?"
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
    if word in STRICT_BOUNDS and not before.group("negation"):
        return f"the strict bound {word!r}"
    open_end = _OPEN_END.match(text, end)
    if word in UPPER_BOUNDS and open_end:
        return f"both {word!r} and {open_end.group().strip()!r}"
    return None


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


def parse_answer(text: str) -> Value | None:
    """The typed value a golden answer is, or None when it is not one value: the whole answer must be
    the value (``30 days``, ``thirty days``, ``₹5 lakh``, ``20%``, ``Yes``, ``1947``, ``३० दिन``,
    ``15 August 1947``); "Mahatma Gandhi" or "World War 2" are not values."""
    return _parsed(text) if isinstance(text, str) else None


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
    digits. Negation is not looked at: policy wording states a cap as "shall not exceed 50%".

    None where a text cannot show it: a boolean or an enum label is a curator's reading of the quote,
    not words in it; a text value is True when its words occur in order, else None (a paraphrase)."""
    if value.type in (BOOL, ENUM):
        return None
    folded = unicode.fold(text)
    if value.type == TEXT:
        words = unicode.fold(str(value.value)).split()
        return True if words and " ".join(words) in folded else None
    return any(_states(value, mention) for mention in read_folded(folded))


def _states(value: Value, mention: Mention) -> bool:
    found = mention.value
    if value.type == MONEY and found.type == NUMBER_UNIT and found.unit is None:
        found = Value(MONEY, found.value, RUPEES)  # 5,00,000 with no currency is the amount
    return same_value(value, found)
