"""Typed values for gold sets: a curated fact's value typed, its answer rendered, its ``hard_fact``
pattern, and whether a text states it.

The pieces live in four modules, each with its own note: ``types`` (the value, units, currencies,
qualified units and the equivalences kept between them, rendering), ``reading`` (the values a text
states, in every form people write them; a golden answer's value), ``patterns`` (hard_fact patterns)
and ``variants`` (the answers a pattern must match and the near misses it must not). This module is the
one to import.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import regex

from ..text import unicode
from .patterns import PATTERN_FLAGS, expected_regex
from .reading import (
    FALSE_WORDS,
    SCALES,
    TRUE_WORDS,
    Mention,
    parse_answer,
    read_values,
    value_in_text,
    values_in_text,
    word_number,
)
from .types import (
    ANSWER_TYPES,
    BOOL,
    COUNT,
    CURRENCIES,
    DATE,
    DAY,
    HOUR,
    MINUTE,
    MONEY,
    MONTH,
    NUMBER_UNIT,
    NUMERIC_TYPES,
    PERCENT,
    PERCENT_SIGN,
    RUPEES,
    WEEK,
    YEAR,
    Value,
    canonical_unit,
    convert,
    equivalents,
    is_currency,
    plain_number,
    render_answer,
    same_value,
    split_unit,
)
from .variants import answer_variants, near_misses

# A field name's last word -> the unit its values are in (initial_waiting_period_days -> day). A word
# anywhere in the name decides only for percentages (room_rent_capped_at_pct_of_si).
FIELD_SUFFIXES: Mapping[str, str] = {
    **dict.fromkeys(("days", "day"), DAY), **dict.fromkeys(("weeks", "week"), WEEK),
    **dict.fromkeys(("months", "month"), MONTH), **dict.fromkeys(("years", "year", "yrs"), YEAR),
    **dict.fromkeys(("hours", "hour", "hrs"), HOUR), **dict.fromkeys(("minutes", "mins"), MINUTE),
    **dict.fromkeys(("pct", "percent", "percentage"), PERCENT_SIGN),
    **dict.fromkeys(("count", "number", "num"), COUNT),
    **dict.fromkeys(("amount", "inr", "rupees", "premium", "deductible"), RUPEES),
    **{code.casefold(): code for code in ("USD", "EUR", "GBP")},  # price_usd
}  # fmt: skip
_PERCENT_WORDS = frozenset(("pct", "percent", "percentage"))


def unit_from_field(field_name: str) -> str | None:
    """The canonical unit a field's name gives its values, or None: ``..._days`` -> ``day``,
    ``..._months`` -> ``month``, ``co_payment_pct`` -> ``%``, ``day_care_treatments_count`` ->
    ``count``, ``deductible_amount`` -> ``INR``; ``min_entry_age`` says no unit (days or years)."""
    words = [word for word in regex.split(r"[\W_]+", field_name.casefold()) if word]
    if not words:
        return None
    if words[-1] in FIELD_SUFFIXES:
        return FIELD_SUFFIXES[words[-1]]
    if not _PERCENT_WORDS.isdisjoint(words):
        return PERCENT_SIGN
    return None


def _unit_words(unit: str | None) -> list[str]:
    return [word for word in (unit or "").casefold().replace("rs.", "rs").split() if word != "of"]


def money_scale(unit: str | None) -> int | None:
    """How many of a currency one of `unit` is when it names a scale (``lakh``, ``INR crore``, ``Rs
    lakhs``, ``thousand``, ``USD million``), else None."""
    words = [word for word in _unit_words(unit) if word not in CURRENCIES]
    return SCALES.get(words[0]) if len(words) == 1 and words[0] != "l" else None


def money_currency(unit: str | None) -> str | None:
    """The currency a money fact's unit names (``USD``, ``$``, ``dollars``, ``INR lakh``), else None."""
    canonical = canonical_unit(unit)
    if is_currency(canonical):
        return canonical
    return next((CURRENCIES[word] for word in _unit_words(unit) if word in CURRENCIES), None)


def _unit_for(answer_type: str, unit: str | None) -> str | None:
    canonical = canonical_unit(unit)
    if answer_type == MONEY:
        currency = money_currency(unit)
        if canonical is not None and currency is None and money_scale(unit) is None:
            raise ValueError(
                "money is in a currency (INR, ₹, USD, $, EUR, €, GBP, £, ..., or lakh/crore of one), "
                f"not {unit!r}"
            )
        return currency or RUPEES  # no currency written: rupees, the gold sets' convention (types' note)
    if answer_type == PERCENT:
        if canonical not in (None, PERCENT_SIGN):
            raise ValueError(f"a percentage has no unit {unit!r}")
        return PERCENT_SIGN
    if answer_type == NUMBER_UNIT and (is_currency(canonical) or money_scale(unit)):
        raise ValueError(f"the unit {unit!r} makes it money")
    if answer_type == NUMBER_UNIT and canonical == PERCENT_SIGN:
        raise ValueError(f"the unit {unit!r} makes it a percent")
    return canonical if answer_type == NUMBER_UNIT else None


def _number_of(raw: Any, answer_type: str, unit: str | None) -> Value:
    if isinstance(raw, str):
        parsed = parse_answer(raw)
        if parsed is None:
            try:
                parsed = Value(answer_type, plain_number(Decimal(raw.replace(",", "").strip())), unit)
            except (InvalidOperation, ValueError):
                raise ValueError(f"{raw!r} is not a number or an amount") from None
        if parsed.unit is None and parsed.type in (NUMBER_UNIT, answer_type):
            return Value(answer_type, parsed.value, unit)  # "5,00,000", "5 lakh": of the fact's currency
        if parsed.type != answer_type or (unit is not None and parsed.unit != unit):
            raise ValueError(f"{raw!r} reads as {render_answer(parsed)!r}, not a {answer_type} in {unit}")
        return parsed
    return Value(answer_type, plain_number(raw), unit)


def _scaled_money(raw: Any, scale: int, currency: str) -> Value:
    """An amount given in lakh or crore (``5`` with the unit ``lakh``), in its currency."""
    if not isinstance(raw, str):
        return Value(MONEY, plain_number(Decimal(str(plain_number(raw))) * scale), currency)
    parsed = parse_answer(raw)
    if parsed is not None and parsed.type == MONEY:
        return Value(MONEY, parsed.value, parsed.unit or currency)  # "₹5 lakh" says its own scale
    if parsed is None or parsed.type != NUMBER_UNIT or parsed.unit is not None:
        raise ValueError(f"{raw!r} is not a number of lakh or crore")
    return _scaled_money(parsed.value, scale, currency)


def typed_value(raw: Any, *, answer_type: str, unit: str | None = None) -> Value:
    """`raw` (a fact's value) as a Value of `answer_type`; ValueError with the reason when it cannot be
    one: null, a list (sum-insured options), a text where a number is due, an unknown type or unit."""
    if answer_type not in ANSWER_TYPES:
        raise ValueError(f"unknown answer type {answer_type!r} (known: {', '.join(ANSWER_TYPES)})")
    if raw is None:
        raise ValueError("the value is null")
    if isinstance(raw, (list, tuple, set, dict)):
        raise ValueError(f"the value is a {type(raw).__name__} of {len(raw)} items, not one value")
    canonical = _unit_for(answer_type, unit)
    if answer_type == MONEY and money_currency(unit) is None and isinstance(raw, str):
        parsed = parse_answer(raw)  # "$1,499" with no unit: its own currency, not the default
        canonical = parsed.unit if parsed and parsed.type == MONEY and parsed.unit else canonical
    scale = money_scale(unit) if answer_type == MONEY else None
    if scale is not None:
        return _scaled_money(raw, scale, canonical or RUPEES)
    if answer_type in NUMERIC_TYPES:
        return _number_of(raw, answer_type, canonical)
    if answer_type == BOOL:
        return Value(BOOL, _truth(raw))
    if answer_type == DATE:
        return Value(DATE, _date_of(raw))
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"{answer_type} needs a non-empty text, found {raw!r}")
    return Value(answer_type, raw.strip())


def _truth(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    folded = unicode.fold(str(raw)).strip(" .!")
    if folded in TRUE_WORDS or folded in FALSE_WORDS:
        return folded in TRUE_WORDS
    raise ValueError(f"{raw!r} is not true or false (yes/no)")


def _date_of(raw: Any) -> str:
    if isinstance(raw, datetime.date):
        return raw.isoformat()[:10]
    parsed = parse_answer(str(raw))
    if parsed is None or parsed.type != DATE:
        raise ValueError(f"{raw!r} is not a date (15 August 1947, 1947-08-15)")
    return str(parsed.value)


__all__ = [
    "ANSWER_TYPES",
    "CURRENCIES",
    "PATTERN_FLAGS",
    "Mention",
    "Value",
    "answer_variants",
    "canonical_unit",
    "convert",
    "equivalents",
    "expected_regex",
    "is_currency",
    "money_currency",
    "money_scale",
    "near_misses",
    "parse_answer",
    "read_values",
    "render_answer",
    "same_value",
    "split_unit",
    "typed_value",
    "unit_from_field",
    "value_in_text",
    "values_in_text",
    "word_number",
]
