"""Typed values and their units: what a gold item's ``expected_value`` is, and when two values are equal.

A value is a number with a canonical unit (``30`` ``day``), an amount of money in rupees, a percentage,
a boolean, a date (ISO ``YYYY-MM-DD``), an enum label or a text. Units are spelt many ways in facts and
answers (``days``, ``Days``, ``d``, ``yrs``, ``₹``, ``pct``); ``canonical_unit`` folds them to one name.

Equivalences between units are kept only where they are exact, so that a pattern or a comparison
never passes a different quantity: 7 days = 1 week, 24 hours = 1 day, 60 minutes = 1 hour, 12 months =
1 year. One approximate equivalence is kept on purpose, because policy wordings and people use it for
the same period (issue 11 lists it): **1 month = 30 days**, for exactly one month; 2 months is not
60 days and 1 year is not 365 days (leap years, calendar months). A conversion into a smaller unit is
kept up to ``MAX_CONVERTED`` of it (48 months for 4 years, 48 hours for 2 days; nobody writes 30 days
as 720 hours).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

# The reading and comparing rules' version: change a unit, an equivalence or a reading rule, bump it (it
# is in value_match's signature: two runs with one signature read values alike).
VALUES_VERSION = 2
NUMBER_UNIT, MONEY, PERCENT, BOOL, ENUM, TEXT, DATE = (
    "number_unit", "money", "percent", "bool", "enum", "text", "date"
)  # fmt: skip
ANSWER_TYPES = (NUMBER_UNIT, MONEY, PERCENT, BOOL, ENUM, TEXT, DATE)
NUMERIC_TYPES = (NUMBER_UNIT, MONEY, PERCENT)
RUPEES, PERCENT_SIGN = "INR", "%"
DAY, WEEK, MONTH, YEAR, HOUR, MINUTE, COUNT = "day", "week", "month", "year", "hour", "minute", "count"

# How units are written -> the canonical unit. Keys are casefolded; Hindi forms as people type them.
UNIT_ALIASES: Mapping[str, str] = {
    **dict.fromkeys(("day", "days", "calendar day", "calendar days", "दिन", "दिनों"), DAY),
    **dict.fromkeys(("week", "weeks", "wk", "wks", "सप्ताह", "हफ्ते", "हफ़्ते", "हफ्ता"), WEEK),
    **dict.fromkeys(("month", "months", "mth", "mths", "महीने", "महीना", "महीनों", "माह"), MONTH),
    **dict.fromkeys(("year", "years", "yr", "yrs", "वर्ष", "साल", "सालों", "वर्षों"), YEAR),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "घंटे", "घंटा", "घंटों"), HOUR),
    **dict.fromkeys(("minute", "minutes", "min", "mins", "मिनट"), MINUTE),
    **dict.fromkeys(("count", "counts", "number", "procedures", "treatments", "hospitals", "items"), COUNT),
    **dict.fromkeys(("inr", "rs", "rs.", "₹", "rupee", "rupees", "रुपये", "रुपए"), RUPEES),
    **dict.fromkeys(("%", "percent", "per cent", "pct", "percentage", "प्रतिशत"), PERCENT_SIGN),
}
# Units that name the value's type rather than a unit (the facts write them in the unit field).
TYPE_WORDS = frozenset(("boolean", "bool", "enum", "text", "string", "date", "null", "none", ""))
# A unit's name in a rendered answer: (singular, plural).
UNIT_WORDS: Mapping[str, tuple[str, str]] = {
    DAY: ("day", "days"), WEEK: ("week", "weeks"), MONTH: ("month", "months"), YEAR: ("year", "years"),
    HOUR: ("hour", "hours"), MINUTE: ("minute", "minutes"),
}  # fmt: skip

# (larger, smaller) -> how many smaller make one larger: exact by definition.
EXACT_FACTORS: Mapping[tuple[str, str], int] = {
    (WEEK, DAY): 7, (DAY, HOUR): 24, (HOUR, MINUTE): 60, (YEAR, MONTH): 12,
}  # fmt: skip
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
MAX_CONVERTED = 120  # a conversion into a smaller unit is kept up to this many of it


@dataclass(frozen=True)
class Value:
    """A typed value: `value` is an int or float (number_unit, money in rupees, percent), a bool, or a
    str (enum label, text, ISO date); `unit` is canonical ("day", "INR", "%") or None."""

    type: str
    value: Any
    unit: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The gold item's ``expected_value``."""
        return {"value": self.value, "unit": self.unit}


def canonical_unit(unit: str | None) -> str | None:
    """The canonical name of a unit as written (``Days`` -> ``day``), None for no unit or a word that
    names a type (``boolean``, ``enum``); an unknown unit is kept casefolded and stripped."""
    if unit is None:
        return None
    folded = " ".join(unit.casefold().split())
    if folded in TYPE_WORDS:
        return None
    return UNIT_ALIASES.get(folded, folded)


def plain_number(number: Any) -> int | float:
    """An int when the number is whole (30.0 -> 30), else the float; ValueError for what is not one."""
    if isinstance(number, bool) or not isinstance(number, (int, float, Decimal, Fraction)):
        raise ValueError(f"{number!r} is not a number")
    if isinstance(number, float) and (number != number or number in (float("inf"), float("-inf"))):
        raise ValueError(f"{number!r} is not a finite number")
    if number == int(number):
        return int(number)
    return float(number)


def number_text(number: int | float) -> str:
    """A number as written in an answer: 30, 7.5, 0.25 (no exponent, no trailing zeros)."""
    if isinstance(number, int):
        return str(number)
    text = format(Decimal(repr(number)).normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _factor(larger: str, smaller: str) -> int | None:
    return EXACT_FACTORS.get((larger, smaller))


def convert(number: int | float, unit: str, to: str) -> int | float | None:
    """`number` `unit` in the unit `to`, when an equivalence (see the module's note) gives it exactly."""
    if unit == to:
        return number
    if (number, unit, to) == (1, MONTH, DAY):
        return 30  # the one approximate equivalence, both ways
    if (number, unit, to) == (30, DAY, MONTH):
        return 1
    down, up = _factor(unit, to), _factor(to, unit)
    if down is not None:
        converted = Fraction(number) * down
        return plain_number(converted) if converted <= MAX_CONVERTED else None
    if up is not None:
        converted = Fraction(number) / up
        return plain_number(converted) if converted.denominator == 1 else None
    return None


def equivalents(number: int | float, unit: str) -> list[tuple[int | float, str]]:
    """The value itself first, then every other (number, unit) equal to it by an equivalence."""
    found: list[tuple[int | float, str]] = [(number, unit)]
    for other in UNIT_WORDS:
        converted = convert(number, unit, other)
        if converted is not None and other != unit:
            found.append((converted, other))
    return found


def comparable_units(unit: str | None) -> frozenset[str | None]:
    """Units whose values could be read as an answer in `unit`: itself, and those it converts with."""
    if unit is None or unit == COUNT:
        return frozenset((None, COUNT))
    related = {unit}
    for larger, smaller in [*EXACT_FACTORS, (MONTH, DAY)]:
        if unit in (larger, smaller):
            related |= {larger, smaller}
    return frozenset(related)


def same_value(expected: Value, found: Value) -> bool:
    """Whether `found` is the value `expected` (numbers compared as quantities, through equivalences)."""
    if expected.type != found.type:
        if expected.type == NUMBER_UNIT and expected.unit in (None, COUNT) and found.type == DATE:
            return isinstance(expected.value, int) and found.value[:4] == f"{expected.value:04d}"
        return False
    if expected.type == NUMBER_UNIT:
        if expected.unit in (None, COUNT) or found.unit in (None, COUNT):
            return (
                found.unit in (None, COUNT)
                and expected.unit in (None, COUNT)
                and expected.value == found.value
            )
        converted = convert(found.value, found.unit or "", expected.unit)
        return converted is not None and converted == expected.value
    if expected.type in (ENUM, TEXT):
        return " ".join(str(expected.value).casefold().replace("_", " ").split()) == " ".join(
            str(found.value).casefold().replace("_", " ").split()
        )
    return bool(expected.value == found.value)


def iso_date(year: int, month: int, day: int) -> str | None:
    """The ISO text of a real date, None for one that does not exist (31 February)."""
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


LAKH, CRORE = 100_000, 10_000_000


def indian_grouping(number: int) -> str:
    """A whole number's digits in Indian grouping: 500000 -> 5,00,000; 12345678 -> 1,23,45,678."""
    sign, plain = ("-", str(-number)) if number < 0 else ("", str(number))
    head, tail = plain[:-3], plain[-3:]
    groups: list[str] = []
    while len(head) > 2:
        head, group = head[:-2], head[-2:]
        groups.insert(0, group)
    return sign + ",".join([part for part in (head, *groups) if part] + [tail])


def rupees_text(amount: int | float) -> str:
    """An amount as an Indian reader writes it: ₹5 lakh, ₹1.5 crore, ₹50,000."""
    if isinstance(amount, int) and amount >= CRORE and (amount * 100) % CRORE == 0:
        return f"₹{number_text(plain_number(Fraction(amount, CRORE)))} crore"
    if isinstance(amount, int) and amount >= LAKH and (amount * 100) % LAKH == 0:
        return f"₹{number_text(plain_number(Fraction(amount, LAKH)))} lakh"
    return f"₹{indian_grouping(amount)}" if isinstance(amount, int) else f"₹{number_text(amount)}"


def quantity_text(number: int | float, unit: str | None) -> str:
    """A number with its unit's word: 30 days, 1 month, 586 (a count or no unit: the number alone)."""
    if unit is None or unit == COUNT:
        return number_text(number)
    singular, plural = UNIT_WORDS.get(unit, (unit, unit))
    return f"{number_text(number)} {singular if number == 1 else plural}"


def render_answer(
    value: Value, *, yes: str = "Yes", no: str = "No", labels: Mapping[str, str] | None = None
) -> str:
    """The expected answer in words: "30 days", "36 months", "20%", "₹5 lakh", "Yes"/"No", an enum's
    label (from `labels`, else its value with "_" as spaces), a date as "15 August 1947"."""
    if value.type == NUMBER_UNIT:
        return quantity_text(value.value, value.unit)
    if value.type == MONEY:
        return rupees_text(value.value)
    if value.type == PERCENT:
        return f"{number_text(value.value)}%"
    if value.type == BOOL:
        return yes if value.value else no
    if value.type == ENUM:
        return (labels or {}).get(value.value) or str(value.value).replace("_", " ")
    if value.type == DATE:
        day = datetime.date.fromisoformat(value.value)
        return f"{day.day} {MONTHS[day.month - 1].title()} {day.year}"  # not strftime: no locale
    return str(value.value)
