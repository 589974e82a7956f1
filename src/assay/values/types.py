"""Typed values and their units: what a gold item's ``expected_value`` is, and when two values are equal.

A value is a number with a canonical unit (``30`` ``day``), an amount of money with its currency, a
percentage, a boolean, a date (ISO ``YYYY-MM-DD``), an enum label or a text. Units are spelt many ways in
facts and answers (``days``, ``Days``, ``d``, ``yrs``, ``₹``, ``pct``); ``canonical_unit`` folds them to
one name.

**Money.** A money value's unit is its currency's ISO code (``INR``, ``USD``, ``EUR``, ``GBP``, ...:
``CURRENCIES`` maps signs, codes and words to it), or None for an amount that names no currency
("5,00,000", "5 lakh", "1.5 million"). A different currency is a different value ($1,499 is not
₹1,499); an amount with no currency equals an amount of any currency, since nothing says otherwise.
A gold fact of money with no unit is in rupees (``INR``), the convention of the policy wordings
assay's gold sets were built on: write the unit (``USD``, ``$``, ``dollars``) for another currency.

**Qualified units.** "business days", "working days", "calendar days", "clear days", "banking days",
"business hours" keep their qualifier in the unit: ``business day`` (qualifier ``business``, base unit
``day``). A qualified quantity converts into nothing else (7 business days are not 1 week, and
24 business hours are not a business day), except a calendar one, which is the plain unit said
explicitly. Compared as the expected value's unit says (``same_value``): an expected unit without a
qualifier is stated by any qualified form of the same number and base unit (the gold does not
distinguish: "7 business days" states "7 days", though not "1 week"); an expected qualified unit needs
the same qualifier or an equivalent one (``business`` = ``working``; ``calendar`` = no qualifier), so
"7 calendar days" is not "7 business days", and "7 days" is not "7 working days".

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
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

# The reading and comparing rules' version: change a unit, an equivalence or a reading rule, bump it (it
# is in value_match's signature: two runs with one signature read values alike).
VALUES_VERSION = 3
NUMBER_UNIT, MONEY, PERCENT, BOOL, ENUM, TEXT, DATE = (
    "number_unit", "money", "percent", "bool", "enum", "text", "date"
)  # fmt: skip
ANSWER_TYPES = (NUMBER_UNIT, MONEY, PERCENT, BOOL, ENUM, TEXT, DATE)
NUMERIC_TYPES = (NUMBER_UNIT, MONEY, PERCENT)
RUPEES, PERCENT_SIGN = "INR", "%"
DAY, WEEK, MONTH, YEAR, HOUR, MINUTE, COUNT = "day", "week", "month", "year", "hour", "minute", "count"

# Currency signs, codes and words (casefolded) -> the ISO 4217 code. "$" alone is the US dollar, as a
# reader takes it without a country; other dollars carry their prefix (C$, A$). A sign after a number is
# read too ("1,499 €"). "pounds" is sterling: weights are written lb or kg in the documents assay reads.
CURRENCY_SIGNS: Mapping[str, str] = {
    "₹": "INR", "rs": "INR", "rs.": "INR", "$": "USD", "us$": "USD", "€": "EUR", "£": "GBP",
    "c$": "CAD", "ca$": "CAD", "a$": "AUD", "au$": "AUD", "s$": "SGD", "hk$": "HKD", "nz$": "NZD",
    "¥": "JPY", "₩": "KRW", "₽": "RUB", "₱": "PHP", "৳": "BDT",
}  # fmt: skip
CURRENCY_CODES = frozenset(("INR", "USD", "EUR", "GBP", "CAD", "AUD", "SGD", "HKD", "NZD", "JPY", "CNY",
                            "CHF", "AED", "SAR", "ZAR", "SEK", "NOK", "DKK", "KRW", "RUB", "PHP",
                            "BDT", "PKR", "LKR", "NPR", "MYR", "THB", "IDR", "BRL", "MXN"))  # fmt: skip
CURRENCY_WORDS: Mapping[str, str] = {
    **dict.fromkeys(("rupee", "rupees", "रुपये", "रुपए", "रुपया"), "INR"),
    **dict.fromkeys(("dollar", "dollars", "us dollar", "us dollars"), "USD"),
    **dict.fromkeys(("euro", "euros"), "EUR"),
    **dict.fromkeys(("pound", "pounds", "pound sterling", "pounds sterling", "sterling"), "GBP"),
    **dict.fromkeys(("yen",), "JPY"), **dict.fromkeys(("dirham", "dirhams"), "AED"),
}  # fmt: skip
CURRENCIES: Mapping[str, str] = {
    **{code.casefold(): code for code in CURRENCY_CODES}, **CURRENCY_SIGNS, **CURRENCY_WORDS
}
# Qualifiers that make a unit another quantity ("7 business days" are not a week), and the base units
# they qualify; equivalent qualifiers (a business day is a working day). "calendar" is the plain unit
# said explicitly: equivalent to no qualifier.
UNIT_QUALIFIERS = ("business", "working", "calendar", "clear", "banking")
QUALIFIED_BASES = (DAY, WEEK, MONTH, YEAR, HOUR)
EQUIVALENT_QUALIFIERS: Mapping[str | None, frozenset[str | None]] = {
    "business": frozenset(("business", "working")), "working": frozenset(("business", "working")),
    "calendar": frozenset(("calendar", None)), None: frozenset((None, "calendar")),
}  # fmt: skip

# How units are written -> the canonical unit. Keys are casefolded; Hindi forms as people type them.
_PLAIN_ALIASES: Mapping[str, str] = {
    **dict.fromkeys(("day", "days", "दिन", "दिनों"), DAY),
    **dict.fromkeys(("week", "weeks", "wk", "wks", "सप्ताह", "हफ्ते", "हफ़्ते", "हफ्ता"), WEEK),
    **dict.fromkeys(("month", "months", "mth", "mths", "महीने", "महीना", "महीनों", "माह"), MONTH),
    **dict.fromkeys(("year", "years", "yr", "yrs", "वर्ष", "साल", "सालों", "वर्षों"), YEAR),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "घंटे", "घंटा", "घंटों"), HOUR),
    **dict.fromkeys(("minute", "minutes", "min", "mins", "मिनट"), MINUTE),
    **dict.fromkeys(("count", "counts", "number", "procedures", "treatments", "hospitals", "items"), COUNT),
    **dict.fromkeys(("%", "percent", "per cent", "pct", "percentage", "प्रतिशत"), PERCENT_SIGN),
}
UNIT_ALIASES: Mapping[str, str] = {
    **_PLAIN_ALIASES,
    **CURRENCIES,
    **{f"{qualifier} {written}": f"{qualifier} {unit}" for qualifier in UNIT_QUALIFIERS
       for written, unit in _PLAIN_ALIASES.items() if unit in QUALIFIED_BASES and written.isascii()},
}  # fmt: skip
# Units that name the value's type rather than a unit (the facts write them in the unit field).
TYPE_WORDS = frozenset(("boolean", "bool", "enum", "text", "string", "date", "null", "none", ""))
# A unit's name in a rendered answer: (singular, plural). A qualified unit is its qualifier and these.
UNIT_WORDS: Mapping[str, tuple[str, str]] = {
    DAY: ("day", "days"), WEEK: ("week", "weeks"), MONTH: ("month", "months"), YEAR: ("year", "years"),
    HOUR: ("hour", "hours"), MINUTE: ("minute", "minutes"),
}  # fmt: skip
QUALIFIED_UNITS = frozenset(f"{qualifier} {base}" for qualifier in UNIT_QUALIFIERS
                            for base in QUALIFIED_BASES)

# (larger, smaller) -> how many smaller make one larger: exact by definition.
EXACT_FACTORS: Mapping[tuple[str, str], int] = {
    (WEEK, DAY): 7, (DAY, HOUR): 24, (HOUR, MINUTE): 60, (YEAR, MONTH): 12,
}  # fmt: skip
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
MAX_CONVERTED = 120  # a conversion into a smaller unit is kept up to this many of it


@dataclass(frozen=True)
class Value:
    """A typed value: `value` is an int or float (number_unit, money, percent), a bool, or a str (enum
    label, text, ISO date); `unit` is canonical ("day", "business day", "%") or None; a money value's
    unit is its currency's ISO code ("INR", "USD") or None for an amount that names none."""

    type: str
    value: Any
    unit: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The gold item's ``expected_value``."""
        return {"value": self.value, "unit": self.unit}


def canonical_unit(unit: str | None) -> str | None:
    """The canonical name of a unit as written (``Days`` -> ``day``, ``Business-Days`` -> ``business
    day``, ``$`` -> ``USD``), None for no unit or a word that names a type (``boolean``, ``enum``); an
    unknown unit is kept casefolded and stripped."""
    if unit is None:
        return None
    folded = " ".join(unit.casefold().split())
    if folded in TYPE_WORDS:
        return None
    if folded in UNIT_ALIASES:
        return UNIT_ALIASES[folded]
    spaced = " ".join(folded.replace("_", " ").replace("-", " ").split())  # business_days, business-days
    return UNIT_ALIASES.get(spaced, folded)


def is_currency(unit: str | None) -> bool:
    """Whether a canonical unit is a currency's code (``INR``, ``USD``)."""
    return unit in CURRENCY_CODES


def split_unit(unit: str | None) -> tuple[str | None, str | None]:
    """(qualifier, base unit) of a canonical unit: ``business day`` -> (``business``, ``day``), ``day``
    -> (None, ``day``)."""
    if unit is None:
        return None, None
    qualifier, _, base = unit.partition(" ")
    if base in QUALIFIED_BASES and qualifier in UNIT_QUALIFIERS:
        return qualifier, base
    return None, unit


def _plain(unit: str) -> str | None:
    """The unit whose equivalences `unit` has: itself without a qualifier, or its base when calendar
    (a calendar day is a day); None for a unit qualified otherwise (business, working, clear days)."""
    qualifier, base = split_unit(unit)
    return base if qualifier in (None, "calendar") else None


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
    """`number` `unit` in the unit `to`, when an equivalence (see the module's note) gives it exactly;
    a unit qualified otherwise than calendar converts only into itself."""
    if unit == to:
        return number
    unit_plain, to_plain = _plain(unit), _plain(to)
    if unit_plain is None or to_plain is None:
        return None
    unit, to = unit_plain, to_plain
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
    """The value itself first, then every other (number, unit) equal to it by an equivalence, in plain
    units (7 business days has none; 7 calendar days is 7 days and 1 week)."""
    found: list[tuple[int | float, str]] = [(number, unit)]
    for other in UNIT_WORDS:
        converted = convert(number, unit, other)
        if converted is not None and other != unit:
            found.append((converted, other))
    return found


@functools.lru_cache(maxsize=256)  # a reply of many values asks it of each
def comparable_units(unit: str | None) -> frozenset[str | None]:
    """Units whose values could be read as an answer in `unit`: itself, those it converts with, and
    their qualified forms (a reply's "7 business days" is a candidate for "7 days", or "1 week")."""
    if unit is None or unit == COUNT:
        return frozenset((None, COUNT))
    _, base = split_unit(unit)
    related = {unit, base}
    for larger, smaller in [*EXACT_FACTORS, (MONTH, DAY)]:
        if base in (larger, smaller):
            related |= {larger, smaller}
    qualified = {other for other in QUALIFIED_UNITS if split_unit(other)[1] in related}
    return frozenset(related | qualified)


def _same_quantity(expected: Value, found: Value) -> bool:
    """Numbers with units, compared as the expected unit says (the module's note on qualified units)."""
    wanted, base = split_unit(expected.unit)
    qualifier, found_base = split_unit(found.unit)
    if qualifier not in EQUIVALENT_QUALIFIERS.get(wanted, frozenset((wanted,))):
        if wanted is not None:
            return False
        # The gold does not distinguish: "7 business days" states "7 days", as written, not "1 week".
        return found_base == base and found.value == expected.value
    if wanted in (None, "calendar") and qualifier in (None, "calendar"):
        converted = convert(found.value, found_base or "", base or "")
    else:  # business = working: the same number of the same base unit
        converted = found.value if found_base == base else None
    return converted is not None and converted == expected.value


def _same_money(expected: Value, found: Value) -> bool:
    """An amount names a currency or none: two currencies must be one; no currency is any."""
    if expected.unit is not None and found.unit is not None and expected.unit != found.unit:
        return False
    return bool(expected.value == found.value)


def same_value(expected: Value, found: Value) -> bool:
    """Whether `found` is the value `expected` (numbers compared as quantities, through equivalences;
    qualified units and currencies as the module's note says)."""
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
        return _same_quantity(expected, found)
    if expected.type == MONEY:
        return _same_money(expected, found)
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


# How an amount of each currency is written in an answer: its sign before the number, else its code.
_SIGN_OF: Mapping[str, str] = {"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£"}


def western_grouping(number: int) -> str:
    """A whole number's digits in Western grouping: 1499 -> 1,499; 1500000 -> 1,500,000."""
    return f"{number:,}"


def money_text(amount: int | float, currency: str | None) -> str:
    """An amount as a reader writes it in its currency: ₹5 lakh (rupees in Indian style), $1,499,
    €20.5, CHF 1,000; an amount of no currency as its digits (5,00,000 when a lakh multiple is meant is
    not knowable: Western grouping)."""
    if currency == RUPEES:
        return rupees_text(amount)
    digits = western_grouping(amount) if isinstance(amount, int) else number_text(amount)
    if currency is None:
        return digits
    sign = _SIGN_OF.get(currency)
    return f"{sign}{digits}" if sign else f"{currency} {digits}"


def quantity_text(number: int | float, unit: str | None) -> str:
    """A number with its unit's word: 30 days, 1 month, 586 (a count or no unit: the number alone)."""
    if unit is None or unit == COUNT:
        return number_text(number)
    qualifier, base = split_unit(unit)
    singular, plural = UNIT_WORDS.get(base or unit, (base or unit, base or unit))
    word = singular if number == 1 else plural
    return f"{number_text(number)} {qualifier} {word}" if qualifier else f"{number_text(number)} {word}"


def render_answer(
    value: Value, *, yes: str = "Yes", no: str = "No", labels: Mapping[str, str] | None = None
) -> str:
    """The expected answer in words: "30 days", "7 business days", "20%", "₹5 lakh", "$1,499",
    "Yes"/"No", an enum's label (from `labels`, else its value with "_" as spaces), a date as "15 August
    1947"."""
    if value.type == NUMBER_UNIT:
        return quantity_text(value.value, value.unit)
    if value.type == MONEY:
        return money_text(value.value, value.unit)
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
