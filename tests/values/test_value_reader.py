"""The one value reader (``assay.values.reading``) on numbers as people write them, currencies and
qualified units, and its users reading alike: value_match, the gold build's ``value_in_text`` and
grounding's ``stated_numbers``/``states``."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from assay import score
from assay.scorers import Outcome
from assay.scorers.grounding.text import Stated, stated_numbers, states
from assay.values import (
    Value,
    parse_answer,
    read_values,
    render_answer,
    same_value,
    typed_value,
    value_in_text,
)
from assay.values.reading import HIGH, LOW, word_number

PASS, FAIL = Outcome.PASS, Outcome.FAIL


def read(text: str) -> list[str]:
    return [render_answer(mention.value) for mention in read_values(text)]


@pytest.mark.parametrize(
    ("words", "number"),
    [
        ("thirty", 30),
        ("twenty-four", 24),
        ("one hundred and eighty", 180),
        ("a hundred", 100),
        ("two thousand five hundred", 2_500),
        ("two thousand and five", 2_005),
        ("one lakh fifty thousand", 150_000),
        ("twelve crore", 120_000_000),
        ("two crore fifty lakh", 25_000_000),
        ("one million two hundred thousand", 1_200_000),
        ("a dozen", 12),
        ("two dozen", 24),
        ("nine hundred ninety-nine", 999),
    ],
)
def test_number_words_to_any_size_are_read(words: str, number: int) -> None:
    assert word_number(words) == number
    mentions = read_values(f"It is {words} days.")
    assert [(m.value.value, m.value.unit) for m in mentions] == [(number, "day")]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("one hundred and eighty days", ["180 days"]),
        ("30 (thirty) days", ["30 days"]),
        ("thirty (30) days", ["30 days"]),
        ("15(fifteen) days", ["15 days"]),
        ("30 (thirty-five) days", ["30"]),  # the echo disagrees: which is meant? a bare number
        ("thirty and sixty days", ["30 days", "60 days"]),  # two numbers, not ninety
        ("one hundred and two hundred days", ["100 days", "200 days"]),
        ("Rupees Five Lakh only", ["₹5 lakh"]),  # as an Indian cheque writes it
        ("a dozen hospitals", ["12"]),
        ("२४ महीने", ["24 months"]),  # Devanagari digits
        ("Sum insured 5,00,000 or 1,000,000", ["500000", "1000000"]),  # Indian and Western grouping
        ("the one you chose", []),  # "one" alone is no number
    ],
)
def test_numbers_as_people_write_them(text: str, values: list[str]) -> None:
    assert read(text) == values


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("30-60 days", [LOW, HIGH]),
        ("30 to 60 days", [LOW, HIGH]),
        ("30 – 60 days", [LOW, HIGH]),
        ("between 30 and 60 days", [LOW, HIGH]),
        ("from 30 to 60 days", [LOW, HIGH]),
        ("₹5 to 10 lakh", [LOW, HIGH]),
        ("30 or 60 days", [None, None]),  # alternatives, not a range
        ("30 and 60 days", [None, None]),  # two values
        ("30, 60 days", [None, None]),
    ],
)
def test_a_range_is_read_as_a_range(text: str, ends: list[str | None]) -> None:
    mentions = read_values(text)
    assert [m.range_end for m in mentions] == ends
    assert mentions[0].value.unit == mentions[1].value.unit  # both ends in the range's unit


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("₹1,499", 1499, "INR"),
        ("Rs. 1,499", 1499, "INR"),
        ("Rs 1499/-", 1499, "INR"),
        ("INR 1,499", 1499, "INR"),
        ("1,499 rupees", 1499, "INR"),
        ("$1,499", 1499, "USD"),
        ("US$ 1,499", 1499, "USD"),
        ("USD 1,499", 1499, "USD"),
        ("1,499 dollars", 1499, "USD"),
        ("€20", 20, "EUR"),
        ("20 euros", 20, "EUR"),
        ("EUR 20", 20, "EUR"),
        ("£15", 15, "GBP"),
        ("15 pounds", 15, "GBP"),
        ("GBP 15", 15, "GBP"),
        ("CHF 200", 200, "CHF"),
        ("A$ 30", 30, "AUD"),
        ("$10k", 10_000, "USD"),
        ("$1.5 million", 1_500_000, "USD"),
        ("₹5L", 500_000, "INR"),
        ("5 lakh", 500_000, None),  # a scale names no currency
        ("1.5 million", 1_500_000, None),
    ],
)
def test_a_currency_is_part_of_a_money_value(text: str, amount: int, currency: str | None) -> None:
    assert [(m.value.type, m.value.value, m.value.unit) for m in read_values(text)] == [
        ("money", amount, currency)
    ]


RUPEES_1499, DOLLARS_1499, ANY_1499 = (Value("money", 1499, unit) for unit in ("INR", "USD", None))


@pytest.mark.parametrize(
    ("expected", "found", "same"),
    [
        (RUPEES_1499, DOLLARS_1499, False),  # a different currency is a different value
        (DOLLARS_1499, RUPEES_1499, False),
        (Value("money", 1499, "EUR"), Value("money", 1499, "GBP"), False),
        (RUPEES_1499, ANY_1499, True),  # no currency named: nothing says otherwise
        (DOLLARS_1499, ANY_1499, True),
        (ANY_1499, DOLLARS_1499, True),
        (DOLLARS_1499, Value("money", 1500, "USD"), False),
    ],
)
def test_currencies_compare_as_the_rule_says(expected: Value, found: Value, same: bool) -> None:
    assert same_value(expected, found) is same


@pytest.mark.parametrize(
    ("raw", "unit", "value"),
    [
        (1499, "USD", DOLLARS_1499),
        (1499, "$", DOLLARS_1499),
        (1499, "dollars", DOLLARS_1499),
        (1499, "EUR", Value("money", 1499, "EUR")),
        ("$1,499", None, DOLLARS_1499),  # the value says its own currency
        (1499, None, RUPEES_1499),  # no currency written: rupees, the gold sets' convention
        (5, "lakh", Value("money", 500_000, "INR")),
        (5, "USD million", Value("money", 5_000_000, "USD")),
        ("5 lakh", "INR", Value("money", 500_000, "INR")),
    ],
)
def test_the_gold_values_unit_carries_the_currency(raw: Any, unit: str | None, value: Value) -> None:
    assert typed_value(raw, answer_type="money", unit=unit) == value


def test_a_gold_amount_in_another_currency_than_its_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="reads as"):
        typed_value("$1,499", answer_type="money", unit="INR")


DAYS_7 = Value("number_unit", 7, "day")
BUSINESS_7 = Value("number_unit", 7, "business day")


@pytest.mark.parametrize(
    ("expected", "found", "same"),
    [
        (DAYS_7, BUSINESS_7, True),  # the gold does not distinguish
        (DAYS_7, Value("number_unit", 7, "working day"), True),
        (DAYS_7, Value("number_unit", 7, "calendar day"), True),
        (Value("number_unit", 1, "week"), BUSINESS_7, False),  # 7 business days are not a week
        (Value("number_unit", 1, "week"), Value("number_unit", 7, "calendar day"), True),
        (BUSINESS_7, Value("number_unit", 7, "working day"), True),  # business = working
        (BUSINESS_7, Value("number_unit", 7, "calendar day"), False),
        (BUSINESS_7, DAYS_7, False),  # the gold's qualifier must be stated
        (BUSINESS_7, Value("number_unit", 1, "week"), False),
        (Value("number_unit", 7, "calendar day"), DAYS_7, True),  # calendar days are days
        (Value("number_unit", 7, "calendar day"), BUSINESS_7, False),
        (Value("number_unit", 2, "business day"), Value("number_unit", 48, "business hour"), False),
        (Value("number_unit", 7, "clear day"), BUSINESS_7, False),
    ],
)
def test_qualified_units_compare_as_the_gold_unit_says(expected: Value, found: Value, same: bool) -> None:
    assert same_value(expected, found) is same


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("within 7 business days", BUSINESS_7),
        ("7 Business Days", BUSINESS_7),
        ("7 working days", Value("number_unit", 7, "working day")),
        ("30 consecutive working days", Value("number_unit", 30, "working day")),
        ("7 calendar days", Value("number_unit", 7, "calendar day")),
        ("14 clear days' notice", Value("number_unit", 14, "clear day")),
        ("3 banking days", Value("number_unit", 3, "banking day")),
        ("4 business hours", Value("number_unit", 4, "business hour")),
        ("seven business days", BUSINESS_7),
    ],
)
def test_a_qualified_unit_is_read_with_its_qualifier(text: str, value: Value) -> None:
    assert [m.value for m in read_values(text)] == [value]


@pytest.mark.parametrize(
    ("unit", "canonical"),
    [("business days", "business day"), ("Business_Days", "business day"), ("working-days", "working day"),
     ("calendar days", "calendar day"), ("USD", "USD"), ("$", "USD"), ("dollars", "USD"), ("€", "EUR")],
)  # fmt: skip
def test_a_gold_unit_keeps_its_qualifier_and_currency(unit: str, canonical: str) -> None:
    from assay.values import canonical_unit

    assert canonical_unit(unit) == canonical


def test_a_qualified_unit_renders_with_its_qualifier() -> None:
    assert render_answer(BUSINESS_7) == "7 business days"
    assert render_answer(Value("number_unit", 1, "working day")) == "1 working day"
    assert parse_answer("7 business days") == BUSINESS_7


# --- every user of the reader reads alike -------------------------------------------------------------


def value_match(value: Value, response: str) -> Outcome:
    row = {"question": "q", "answer": "a", "response": response, "value": value.value, "unit": value.unit,
           "value_type": value.type}  # fmt: skip
    return score(pd.DataFrame([row]), ["value_match"]).metrics["value_match"].outcome(0)


@pytest.mark.parametrize(
    ("value", "response", "outcome"),
    [
        (Value("number_unit", 180, "day"), "Pre-existing diseases wait one hundred and eighty days.", PASS),
        (Value("number_unit", 30, "day"), "The grace period is 30 (thirty) days.", PASS),
        (Value("number_unit", 30, "day"), "The grace period is thirty (30) days.", PASS),
        (Value("money", 150_000, "INR"), "The limit is one lakh fifty thousand rupees.", PASS),
        (Value("money", 1499, "INR"), "It costs $1,499 a year.", FAIL),  # another currency
        (Value("money", 1499, "USD"), "It costs $1,499 a year.", PASS),
        (Value("money", 1499, "USD"), "It costs USD 1,499 a year.", PASS),
        (Value("money", 1499, "USD"), "It costs ₹1,499 a year.", FAIL),
        (Value("money", 1499, "USD"), "It costs 1,499 per year.", PASS),  # no currency said: any
        (DAYS_7, "Refunds are issued within 7 business days.", PASS),
        (DAYS_7, "Refunds are issued within 7 working days.", PASS),
        (Value("number_unit", 30, "day"), "The waiting period is 30 working days.", PASS),
        (Value("number_unit", 1, "week"), "Refunds are issued within 7 business days.", FAIL),
        (BUSINESS_7, "Refunds are issued within 7 working days.", PASS),
        (BUSINESS_7, "Refunds are issued within 7 calendar days.", FAIL),
        (BUSINESS_7, "Refunds are issued within 7 days.", FAIL),
    ],
)
def test_value_match_reads_with_the_reader(value: Value, response: str, outcome: Outcome) -> None:
    assert value_match(value, response) is outcome


@pytest.mark.parametrize(
    ("value", "quote", "stated"),
    [
        (Value("number_unit", 180, "day"), "a waiting period of one hundred and eighty days", True),
        (Value("number_unit", 30, "day"), "within 30 (thirty) days of the due date", True),
        (Value("money", 1499, "USD"), "The Pro plan costs $1,499 per year.", True),
        (Value("money", 1499, "USD"), "The Pro plan costs ₹1,499 per year.", False),
        (Value("money", 1499, "USD"), "The Pro plan costs 1,499 per year.", True),
        (DAYS_7, "refunds within 7 business days", True),
        (BUSINESS_7, "refunds within 7 calendar days", False),
    ],
)
def test_the_gold_build_reads_quotes_with_the_reader(value: Value, quote: str, stated: bool) -> None:
    assert value_in_text(value, quote) is stated


@pytest.mark.parametrize(
    ("reply", "page", "supported"),
    [
        ("The grace period is 30 (thirty) days.", "a grace period of thirty days", True),
        ("The grace period is thirty days.", "a grace period of 30 (thirty) days", True),
        ("It costs $1,499.", "Price: $1,499 per seat", True),
        ("It costs $1,499.", "Price: ₹1,499 per seat", False),
        ("It costs $1,499.", "Price: 1,499 per seat", True),  # a page's bare amount is of any currency
        ("Refunds take 7 working days.", "refunds within 7 business days", True),
        ("Refunds take 7 calendar days.", "refunds within 7 business days", False),
    ],
)
def test_grounding_reads_replies_and_pages_with_the_reader(reply: str, page: str, supported: bool) -> None:
    numbers: list[Stated] = stated_numbers(reply)
    assert len(numbers) == 1
    assert states(page, numbers[0]) is supported


# --- the gold build's checks read units and currencies alike --------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "unit", "quote", "codes"),
    [
        ("refund_days", 7, "business days", "Refunds are issued within 7 business days.", []),
        ("refund_days", 7, "business days", "Refunds take 7 calendar days.", ["value_not_in_quote"]),
        ("refund_days", 7, "days", "Refunds take 7 working days.", []),  # the gold does not distinguish
        ("plan_price", 1499, "USD", "The Pro plan costs $1,499 per year.", []),
        ("plan_price", 1499, "USD", "The Pro plan costs ₹1,499 per year.", ["value_not_in_quote"]),
        ("deductible_amount", 1499, "$", "A deductible of $1,499 applies.", []),  # any currency is money's
        ("refund_days", 7, "months", "Refunds are issued within 7 months.", ["unit_mismatch"]),
    ],
)
def test_gold_checks_read_qualified_units_and_currencies(
    field: str, value: Any, unit: str, quote: str, codes: list[str]
) -> None:
    from assay.harness.checks import consistency_checks
    from assay.harness.facts import Claim
    from assay.harness.templates import inferred_template

    claim = Claim(document="acme", field=field, value=value, unit=unit, quote=quote)
    checks = consistency_checks(claim, quote, inferred_template(claim), min_confidence="low")
    assert [check.code for check in checks] == codes


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("Do not take more than 8 tablets in 24 hours.", True),
        ("A pack holds 8 tablet strips.", True),  # the unit's word, singular or plural
        ("Take 8 capsules.", False),
        ("Take 18 tablets.", False),
    ],
)
def test_a_unit_the_reader_does_not_know_is_stated_by_its_own_word(text: str, states: bool) -> None:
    value = typed_value(8, answer_type="number_unit", unit="tablets")
    assert value_in_text(value, text) is states
