"""Patterns for ``hard_fact`` built from typed values (``value_variants`` holds what each must match).

A pattern is matched by ``hard_fact`` on the response folded by the unicode profile (case, NFKC, Indic
digits to ASCII, punctuation kept, whitespace collapsed), which adds the whole-word and whole-number
boundaries itself: ``24`` never matches inside ``2024`` or ``2.24``. So a pattern here only names the
forms people write for the value, and adds what those boundaries cannot see:

- not the tail of a hyphenated word or range (``twenty-four days`` for 4 days, ``20-30 days`` for 30,
  ``non-indemnity`` for ``indemnity``);
- for a yes, and every label, no negation in the words just before it in its clause (``not covered``,
  ``isn't covered``, ``no cover``), and a bare ``No`` only as a sentence's whole first word;
- a count is not followed by a unit (``586 days`` is not the count 586) nor after a currency (``Rs
  1947``), nor is it a page, section or clause number (``p. 30``, ``Section 30``:
  ``value_reading.REFERENCES``);
- a quantity is not approximate, strictly bounded or negated right before it (``about 30 days``,
  ``more than 30 days``, ``not ₹5 lakh``; ``value_reading.APPROXIMATIONS``). Hedges and rival values
  elsewhere in the reply are beyond a pattern: ``value_match`` reads them.

Numbers: digits (``500000``, ``5,00,000``, ``500,000``), English words up to 100 (``thirty``,
``twenty-four``, ``thirty (30)``), ``a``/``an``/``one`` for one unit. Units: every spelling the unit
has in ``value_types.UNIT_ALIASES`` (``days``, ``30-day``, ``hrs``, Hindi ``दिन``), a neutral qualifier
between (``4 consecutive years``), and the exact equivalences of ``value_types`` (48 months = 4 years;
1 month = 30 days). Money: digits, lakh, crore, million, thousand. Text: the words as a literal when
short; a long text gets no pattern (None).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import regex

from ..text import unicode
from .reading import _ONES, _TENS, HYPHENS, NOT_A_REFERENCE, NOT_QUALIFIED, QUALIFIERS, SCALES
from .types import (
    BOOL,
    COUNT,
    DATE,
    DAY,
    ENUM,
    HOUR,
    MINUTE,
    MONEY,
    MONTH,
    MONTHS,
    NUMBER_UNIT,
    PERCENT,
    TEXT,
    UNIT_WORDS,
    WEEK,
    YEAR,
    Value,
    equivalents,
    number_text,
)

NOT_A_TAIL = rf"(?<!\w[{HYPHENS}])"  # not the second half of a hyphenated word or a range
# Before a quantity: not a range's tail, not approximate or strictly bounded ("about 30 days", "more
# than 30 days"; value_reading.APPROXIMATIONS), not negated right before it ("not 30 days", "no ₹5 lakh").
NOT_NEGATED_QUANTITY = r"(?<!(?<!\w)(?:not|no|never)\s(?:(?:₹|rs\.?|inr)\s?)?)"
QUANTITY_BEFORE = f"{NOT_A_TAIL}{NOT_QUALIFIED}{NOT_NEGATED_QUANTITY}"
# Hindi puts the negation after: "30 दिन नहीं" ("not 30 days").
QUANTITY_AFTER = r"(?!\s?(?:नहीं|नही)(?!\w))"
# No negation in the same clause within this many characters before: "not covered", "is not
# currently covered", "no cover"; a clause ends at . ; : ! ? (a comma does not end it: "No, covered").
NEGATION_REACH = 24
NEGATIONS = ("not", "no", "never", "cannot", "without", "nor", "neither", "except", "excluding", "nahi")
_NOT_NEGATED = rf"(?<!(?<!\w)(?:{'|'.join(NEGATIONS)}|\w+n't)(?!\w)[^.;:!?]{{0,{NEGATION_REACH}}})"
# Yes and no, as answers say them. A yes-word negated ("isn't covered", "does not cover") says no, as
# does an exclusion unless negated ("not excluded"); "No" says no as a sentence's whole first word.
POSITIVE = ("yes", "covered", "covers", "included", "includes", "available", "payable", "offered",
            "supported", "हाँ", "हां")  # fmt: skip
NEGATABLE = (*POSITIVE[1:9], "cover", "include")
EXCLUSIONS = ("excluded", "excludes", "exclusion")
NEGATIVE = ("no cover", "no coverage", "नहीं")
NEGATED_POSITIVE = rf"(?:not|\w*n't|never)\s(?:\w+\s){{0,2}}?(?:{'|'.join(NEGATABLE)})(?!\w)"
SENTENCE_NO = r"(?:^|(?<=[.!?;:]\s?))no(?=\s?[.,;:!]|\s?$)"  # "No." "No, ..." as the answer's first word
MAX_TEXT_WORDS, MAX_TEXT_CHARACTERS = 12, 120  # a text longer than this gets no pattern


def _alternatives(forms: Iterable[str]) -> str:
    unique = list(dict.fromkeys(forms))
    return unique[0] if len(unique) == 1 else f"(?:{'|'.join(unique)})"


def number_words(number: int) -> str | None:
    """The English words for a whole number up to 100, as a pattern (``twenty[ -]four``), or None."""
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens - 2] + (f"[ {HYPHENS}]{_ONES[ones]}" if ones else "")
    return "(?:a |one )?hundred" if number == 100 else None


def grouped(number: int) -> list[str]:
    """A whole number's digits as written: plain, Western grouping, Indian grouping (lakh, crore)."""
    plain = str(number)
    western = f"{number:,}"
    head, tail = plain[:-3], plain[-3:]
    indian = ",".join([*regex.findall(r"\d{1,2}(?=(?:\d{2})*$)", head), tail]) if head else tail
    return list(dict.fromkeys((plain, western, indian)))


def number_pattern(number: int | float, *, one_as_article: bool = False) -> str:
    """Every way to write `number`: digits (grouped or not), words, ``thirty (30)``."""
    if isinstance(number, float):
        return str(regex.escape(number_text(number)))
    forms = [regex.escape(form) for form in grouped(number)]
    words = number_words(number) if number >= 0 else None
    if words is not None:
        forms.append(f"{words}(?: ?\\({number}\\))?")
    if one_as_article and number == 1:
        forms.append("an?")
    return _alternatives(forms)


# Each unit's spellings (every alias in value_types.UNIT_ALIASES, which a test holds them to), written
# compactly: a pattern compiles in about a millisecond per alternative, and a gold set has thousands.
UNIT_PATTERNS = {
    DAY: rf"(?:calendar )?days?(?![ {HYPHENS}]?care)|दिन(?:ों)?",  # day care is not days
    WEEK: "weeks?|wks?|सप्ताह|हफ़?्त(?:े|ा)",
    MONTH: "months?|mths?|महीन(?:े|ा|ों)|माह",
    YEAR: "years?|yrs?|वर्ष(?:ों)?|साल(?:ों)?",
    HOUR: "hours?|hrs?|घंट(?:े|ा|ों)",
    MINUTE: "minutes?|mins?|मिनट",
}
_ANY_UNIT = "|".join(UNIT_PATTERNS.values())


def _quantity(number: int | float, unit: str) -> str:
    qualifier = f"(?:[ {HYPHENS}](?:{'|'.join(QUALIFIERS)}))?"
    return f"{number_pattern(number, one_as_article=True)}{qualifier}[ {HYPHENS}]?(?:{UNIT_PATTERNS[unit]})"


def _number_unit(value: Value) -> str:
    if value.unit is None or value.unit == COUNT:
        # a count is not followed by a unit of time, money or percent (586 days is not the count 586)
        unit_after = rf"(?![ {HYPHENS}]?(?:{_ANY_UNIT}|{_MONEY_WORDS})(?!\w)|\s?%)"
        return f"{QUANTITY_BEFORE}{NOT_A_REFERENCE}{_NOT_AN_AMOUNT}{number_pattern(value.value)}{unit_after}"
    if value.unit not in UNIT_WORDS:  # a unit assay does not know: its own spelling, plural or not
        unit = regex.escape(value.unit)
        return f"{QUANTITY_BEFORE}{number_pattern(value.value)}[ {HYPHENS}]?{unit}s?{QUANTITY_AFTER}"
    forms = [_quantity(number, unit) for number, unit in equivalents(value.value, value.unit)]
    return f"{QUANTITY_BEFORE}{_alternatives(forms)}{QUANTITY_AFTER}"


_MONEY_WORDS = "rupees?|inr|rs|lakhs?|lacs?|crores?"
_NOT_AN_AMOUNT = r"(?<!(?:₹|(?<!\w)(?:rs\.?|inr))\s?)"  # Rs 1947 is an amount, not the year or count 1947


def _scaled(amount: int, size: int, words: Iterable[str]) -> str | None:
    """`amount` rupees in a scale (lakh: 100000) when it is at most two decimals of it."""
    if amount < size or (amount * 100) % size:
        return None
    number = amount // size if amount % size == 0 else amount / size
    spelt = _alternatives(regex.escape(word) for word in sorted(words, key=len, reverse=True))
    return f"{number_pattern(number, one_as_article=True)}[ {HYPHENS}]?{spelt}"


def _money(value: Value) -> str:
    amount = value.value
    if not isinstance(amount, int):
        return f"{QUANTITY_BEFORE}{regex.escape(number_text(amount))}{QUANTITY_AFTER}"
    forms = [f"{number_pattern(amount)}(?:\\.0{{1,2}})?"]
    for size in sorted(set(SCALES.values()), reverse=True):
        if size == 1000 and amount >= 100_000:
            continue  # 500 thousand is no way to write 5 lakh
        scaled = _scaled(amount, size, [word for word, of in SCALES.items() if of == size and word != "l"])
        if scaled is not None:
            forms.append(scaled)
    short = _scaled(amount, 100_000, ["l"])
    if short is not None:  # ₹5L: the letter alone is lakh only after a currency (5 l may be litres)
        forms.append(f"(?<=(?:₹|rs\\.?|inr)\\s?){short}")
    return f"{QUANTITY_BEFORE}{_alternatives(forms)}{QUANTITY_AFTER}"


def _percent(value: Value) -> str:
    signs = _alternatives(
        regex.escape(alias) for alias in ("per cent", "per-cent", "percent", "pct", "प्रतिशत", "%")
    )
    return f"{QUANTITY_BEFORE}{number_pattern(value.value)}(?:\\.0{{1,2}})?\\s?{signs}{QUANTITY_AFTER}"


def _bool(value: Value) -> str:
    if value.value:
        return f"{_NOT_NEGATED}{_alternatives(POSITIVE)}"
    exclusion = f"{_NOT_NEGATED}{_alternatives(EXCLUSIONS)}"
    return _alternatives([exclusion, SENTENCE_NO, NEGATED_POSITIVE, *map(regex.escape, NEGATIVE)])


def words_pattern(text: str) -> str | None:
    """A label's or a short text's words as a literal (whitespace, ``_`` and hyphens between words
    free), not negated; None for a text too long to be a safe literal."""
    folded = unicode.fold(text.replace("_", " "))
    pieces = folded.split()
    if not pieces or len(pieces) > MAX_TEXT_WORDS or len(folded) > MAX_TEXT_CHARACTERS:
        return None
    if not regex.search(r"\w", folded):
        return None
    return f"{NOT_A_TAIL}{_NOT_NEGATED}" + rf"[\s_{HYPHENS}]?".join(map(regex.escape, pieces))


def _date(value: Value) -> str:
    year, month, day = (int(part) for part in value.value.split("-"))
    full = MONTHS[month - 1]
    name = _alternatives([full, *(["sept\\.?"] if month == 9 else []), full[:3] + "\\.?"])
    nth = r"(?:st|nd|rd|th)?"
    d, m = (f"0?{part}" if part < 10 else str(part) for part in (day, month))
    return _alternatives(
        [
            f"{d}{nth}[ {HYPHENS}](?:of )?{name},?[ {HYPHENS}]{year}",
            f"{name} {d}{nth},? {year}",
            f"{year}-{m}-{d}",
            f"{d}[/.{HYPHENS}]{m}[/.{HYPHENS}]{year}",
        ]
    )


def expected_regex(value: Value, *, labels: Mapping[str, str] | None = None) -> str | None:
    """The ``hard_fact`` pattern for `value` (see the module's note), None for a text too long to be
    safe as a literal. An enum's label in `labels` (the answer written for it: "India only" for
    ``pan_india``) is matched as well as the value's own words."""
    if value.type == NUMBER_UNIT:
        return _number_unit(value)
    if value.type == MONEY:
        return _money(value)
    if value.type == PERCENT:
        return _percent(value)
    if value.type == BOOL:
        return _bool(value)
    if value.type == DATE:
        return _date(value)
    if value.type == ENUM and (labels or {}).get(value.value):
        forms = [words_pattern(str(value.value)), words_pattern((labels or {})[value.value])]
        return _alternatives(form for form in forms if form is not None) if any(forms) else None
    if value.type in (ENUM, TEXT):
        return words_pattern(str(value.value))
    raise ValueError(f"unknown value type {value.type!r}")
