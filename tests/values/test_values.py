"""Typed values: typing facts, rendering answers, reading values from text, and hard_fact patterns that
match every variant of their value and none of its near misses, checked through the real scorer."""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from assay import score
from assay.scorers._base import PASS
from assay.scorers.grounding.quotes import sentinel_reason
from assay.text.pattern_size import oversize
from assay.values import (
    Value,
    answer_variants,
    expected_regex,
    near_misses,
    parse_answer,
    read_values,
    render_answer,
    typed_value,
    unit_from_field,
    value_in_text,
)
from assay.values.patterns import PATTERN_FLAGS
from assay.values.types import UNIT_ALIASES, UNIT_WORDS, canonical_unit, convert
from conftest import skip_or_fail

FACTS = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance" / "facts"


def day(number: int) -> Value:
    return Value("number_unit", number, "day")


def hard_fact_passes(pairs: Sequence[tuple[str, str]]) -> list[bool]:
    """Whether the real hard_fact scorer passes each (pattern, response), scored in one run."""
    frame = pd.DataFrame(
        {
            "question": ["q"] * len(pairs),
            "answer": ["a"] * len(pairs),
            "response": [response for _, response in pairs],
            "expected_regex": [pattern for pattern, _ in pairs],
        }
    )
    scores = score(frame, ["hard_fact"]).metrics["hard_fact"]
    return [scores.outcome(row) is PASS for row in range(len(pairs))]


def pattern_failures(values: Sequence[Value]) -> tuple[int, list[tuple[Value, str, str]]]:
    """(how many answers were checked, each (value, answer, what went wrong)) for every value's
    pattern against its variants (must pass) and near misses (must not)."""
    rows: list[tuple[Value, str, str, bool]] = []
    for value in values:
        pattern = expected_regex(value)
        assert pattern is not None, value
        assert oversize(pattern) is None, (value, oversize(pattern))
        variants, misses = answer_variants(value), near_misses(value)
        assert variants[0] == render_answer(value)
        assert misses, value  # a generator that knows no near miss tests nothing
        rows += [(value, pattern, text, True) for text in variants]
        rows += [(value, pattern, text, False) for text in misses]
    passed = hard_fact_passes([(pattern, text) for _, pattern, text, _ in rows])
    failures = [
        (value, text, "missed" if want else "matched a near miss")
        for (value, _, text, want), got in zip(rows, passed)
        if got != want
    ]
    return len(rows), failures


# --- typing facts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "answer_type", "unit", "expected"),
    [
        (30, "number_unit", "days", day(30)),
        (30, "number_unit", "Days", day(30)),
        (30.0, "number_unit", "day", day(30)),  # a whole float is an int
        (36, "number_unit", "months", Value("number_unit", 36, "month")),
        (24, "number_unit", "hrs", Value("number_unit", 24, "hour")),
        (586, "number_unit", "count", Value("number_unit", 586, "count")),
        (586, "number_unit", "procedures", Value("number_unit", 586, "count")),
        (10051, "number_unit", None, Value("number_unit", 10051, None)),
        ("30 days", "number_unit", None, day(30)),
        ("thirty days", "number_unit", "day", day(30)),
        (500000, "money", "INR", Value("money", 500000, "INR")),
        (500000, "money", "₹", Value("money", 500000, "INR")),
        ("₹5 lakh", "money", None, Value("money", 500000, "INR")),
        ("Rs. 5,00,000", "money", "Rs", Value("money", 500000, "INR")),
        (5, "money", "lakh", Value("money", 500000, "INR")),  # an amount in a scale of rupees
        (1.5, "money", "INR crore", Value("money", 15000000, "INR")),
        ("7.5", "money", "Rs lakhs", Value("money", 750000, "INR")),
        ("₹5 lakh", "money", "lakh", Value("money", 500000, "INR")),  # it says its own scale
        (20, "percent", "percent", Value("percent", 20, "%")),
        (20, "percent", "%", Value("percent", 20, "%")),
        (12.5, "percent", None, Value("percent", 12.5, "%")),
        (True, "bool", "boolean", Value("bool", True)),
        ("No", "bool", None, Value("bool", False)),
        ("pan_india", "enum", "enum", Value("enum", "pan_india")),
        (" Single Private A/C Room ", "text", None, Value("text", "Single Private A/C Room")),
        ("15 August 1947", "date", None, Value("date", "1947-08-15")),
        (datetime.date(1947, 8, 15), "date", None, Value("date", "1947-08-15")),
    ],
)
def test_a_fact_value_is_typed(raw: Any, answer_type: str, unit: str | None, expected: Value) -> None:
    assert typed_value(raw, answer_type=answer_type, unit=unit) == expected


@pytest.mark.parametrize(
    ("raw", "answer_type", "unit", "reason"),
    [
        (None, "number_unit", "days", "null"),
        ([500000, 750000], "money", "INR", "list of 2 items"),
        ("about a month or so", "number_unit", "day", "not a number"),
        ("30 days", "number_unit", "months", "reads as '30 days'"),  # unit mismatch
        (30, "money", "days", "money is in a currency"),  # USD is one now: tests/values/test_value_reader.py
        (30, "number_unit", "USD", "makes it money"),
        ("5 days", "money", "lakh", "not a number of lakh"),
        (5, "number_unit", "lakh", "makes it money"),
        (30, "number_unit", "%", "percent"),
        (True, "number_unit", "day", "not a number"),  # a bool is no number
        ("maybe", "bool", None, "not true or false"),
        ("", "text", None, "non-empty"),
        (30, "score", None, "unknown answer type"),
        ("31 February 2020", "date", None, "not a date"),
    ],
)
def test_a_value_that_cannot_be_typed_says_why(
    raw: Any, answer_type: str, unit: str | None, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        typed_value(raw, answer_type=answer_type, unit=unit)


@pytest.mark.parametrize(
    ("field", "unit"),
    [
        ("initial_waiting_period_days", "day"),
        ("pre_existing_disease_waiting_months", "month"),
        ("policy_term_options_years", "year"),
        ("tat_cashless_authorization_hours", "hour"),
        ("co_payment_pct", "%"),
        ("room_rent_capped_at_pct_of_si", "%"),  # pct anywhere: a percentage of something
        ("day_care_treatments_count", "count"),  # "day" first is no unit: the last word decides
        ("deductible_amount", "INR"),
        ("min_entry_age", None),  # days or years: the name cannot say
        ("grace_period", None),
        ("complaint_per_10k_claims", None),
        ("", None),
    ],
)
def test_a_field_name_gives_its_unit(field: str, unit: str | None) -> None:
    assert unit_from_field(field) == unit


@pytest.mark.parametrize("unit", sorted(UNIT_WORDS))
def test_every_spelling_of_a_unit_is_in_its_pattern(unit: str) -> None:
    spellings = [alias for alias, canonical in UNIT_ALIASES.items() if canonical == unit]
    assert spellings
    pattern = regex.compile(expected_regex(Value("number_unit", 7, unit)) or "", PATTERN_FLAGS)
    for spelling in spellings:
        assert pattern.fullmatch(f"7 {spelling}"), spelling
        assert canonical_unit(spelling.upper()) == unit


@pytest.mark.parametrize(
    ("number", "unit", "to", "expected"),
    [
        (48, "month", "year", 4),
        (24, "month", "year", 2),
        (2, "year", "month", 24),
        (14, "day", "week", 2),
        (48, "hour", "day", 2),
        (30, "day", "month", 1),  # the one approximate equivalence
        (1, "month", "day", 30),
        (60, "day", "month", None),  # ... for one month only
        (2, "month", "day", None),
        (1, "year", "day", None),  # not 365 days
        (30, "month", "year", None),  # not 2.5 years
        (30, "day", "hour", None),  # 720 hours: past MAX_CONVERTED, nobody writes it
    ],
)
def test_only_exact_equivalences_convert(number: int, unit: str, to: str, expected: int | None) -> None:
    assert convert(number, unit, to) == expected


# --- rendering and reading -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "options", "answer"),
    [
        (day(30), {}, "30 days"),
        (day(1), {}, "1 day"),
        (Value("number_unit", 36, "month"), {}, "36 months"),
        (Value("number_unit", 586, "count"), {}, "586"),
        (Value("percent", 20, "%"), {}, "20%"),
        (Value("percent", 12.5, "%"), {}, "12.5%"),
        (Value("money", 500000, "INR"), {}, "₹5 lakh"),
        (Value("money", 750000, "INR"), {}, "₹7.5 lakh"),
        (Value("money", 10000000, "INR"), {}, "₹1 crore"),
        (Value("money", 15000000, "INR"), {}, "₹1.5 crore"),
        (Value("money", 50000, "INR"), {}, "₹50,000"),
        (Value("money", 1234567, "INR"), {}, "₹12,34,567"),
        (Value("bool", True), {}, "Yes"),
        (Value("bool", False), {"no": "Not covered"}, "Not covered"),
        (Value("enum", "pan_india"), {}, "pan india"),
        (Value("enum", "pan_india"), {"labels": {"pan_india": "Anywhere in India"}}, "Anywhere in India"),
        (Value("date", "1947-08-15"), {}, "15 August 1947"),
    ],
)
def test_an_answer_is_rendered(value: Value, options: dict[str, Any], answer: str) -> None:
    assert render_answer(value, **options) == answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30 days", day(30)),
        ("thirty days", day(30)),
        ("Thirty (30) days.", day(30)),
        ("३० दिन", day(30)),  # Devanagari digits, a Hindi unit
        ("₹5 lakh", Value("money", 500000, "INR")),
        ("Rs. 5,00,000/-", Value("money", 500000, "INR")),
        ("INR 500000", Value("money", 500000, "INR")),
        ("20%", Value("percent", 20, "%")),
        ("20 per cent", Value("percent", 20, "%")),
        ("Yes", Value("bool", True)),
        ("No.", Value("bool", False)),
        ("1947", Value("number_unit", 1947, None)),
        ("१९४७", Value("number_unit", 1947, None)),
        ("15 August 1947", Value("date", "1947-08-15")),
        ("August 15, 1947", Value("date", "1947-08-15")),
        ("a month", Value("number_unit", 1, "month")),
        ("One", Value("number_unit", 1, None)),  # alone, a word is a number
        ("Mahatma Gandhi", None),
        ("World War 2", None),  # a name holding a number is not a number
        ("30 days or 60 days", None),
        ("", None),
    ],
)
def test_a_golden_answer_is_parsed(text: str, expected: Value | None) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # "10 lakh" names no currency: an amount of any (rendered in Western grouping)
        ("usually Rs 5,00,000, but some offer 10 lakh", ["₹5 lakh", "1,000,000"]),
        ("waiting periods of 10, 15, 30 days", ["10 days", "15 days", "30 days"]),
        ("waiting periods of 10,15,30 days", []),  # no grouping, no list: as hard_fact, inside a number
        ("30 or 60 days", ["30 days", "60 days"]),  # the bare 30 takes the unit after it
        ("5 to 10 lakh", ["500,000", "1,000,000"]),
        ("₹5 to 10 lakh", ["₹5 lakh", "₹10 lakh"]),  # the range's currency and scale are both ends'
        ("586 day care treatments", ["586"]),  # day care is no unit of days
        ("a 24x7 helpline, in the 3rd year", []),  # 24x7 is a code; the 3rd year is not 3 years
        ("covid-19 cover for 4 consecutive years", ["4 years"]),  # 19 is the tail of a word
        ("twenty-four hours, a month, 16 thousand hospitals", ["24 hours", "1 month", "16000"]),
        ("on 15 August 1947 and 1947-08-15", ["15 August 1947", "15 August 1947"]),
        ("15 August 1947 (31 February 2020 does not exist)", ["15 August 1947", "31", "2020"]),
    ],
)
def test_the_values_a_text_states_are_read(text: str, read: list[str]) -> None:
    assert [render_answer(mention.value) for mention in read_values(text)] == read


@pytest.mark.parametrize(
    ("value", "quote", "stated"),
    [
        (day(30), "in no case later than the Grace Period of 30 days from the expiry date.", True),
        (
            Value("number_unit", 48, "month"),
            "covered without a break, for a period of 4 consecutive years",
            True,
        ),
        (Value("number_unit", 24, "month"), "Two Year waiting periods The conditions listed below", True),
        (day(30), "free look period of thirty days from date of receipt", True),
        (day(30), "30-day waiting period: Code - Excl03", True),
        (
            Value("percent", 50, "%"),
            "The accumulated No Claim Bonus shall not exceed 50% of the Sum Insured",
            True,
        ),
        (Value("number_unit", 586, "count"), "585 Chalazion Surgery 586 Circumcision Surgery", True),
        (Value("money", 500000, "INR"), "Sum Insured options: Rs. 5,00,000 / 7,50,000", True),
        (Value("money", 500000, "INR"), "Sum Insured of 5 lakh", True),
        (day(30), "a period of 300 days", False),
        (day(30), "within 30 months", False),
        (day(30), "see clause 30", False),  # a bare number is not 30 days
        (Value("number_unit", 24, "month"), "in 2024", False),
        (Value("money", 500000, "INR"), "₹50 lakh", False),
        (Value("date", "1947-08-15"), "on the 15th of August, 1947", True),
        (
            Value("text", "Single Private A/C Room"),
            "the room type is “Single Private A/C Room (upgradable",
            True,
        ),
        (Value("text", "No cap; choose any room"), "choose to change the room category", None),  # paraphrase
        (Value("bool", True), "What is covered We shall cover the Medical Expenses", None),  # a reading
        (Value("enum", "pan_india"), "All benefits are available in India only", None),
    ],
)
def test_a_quote_states_its_value(value: Value, quote: str, stated: bool | None) -> None:
    assert value_in_text(value, quote) is stated


# --- patterns, through the real hard_fact scorer -----------------------------------------------------


@pytest.mark.parametrize(
    ("value", "response", "passes"),
    [
        (Value("number_unit", 24, "month"), "24 months", True),
        (Value("number_unit", 24, "month"), "2 years", True),
        (Value("number_unit", 24, "month"), "in 2024", False),
        (Value("number_unit", 24, "hour"), "in 2024", False),
        (Value("number_unit", 48, "month"), "4 years", True),
        (day(30), "30 days", True),
        (day(30), "thirty days", True),
        (day(30), "a 30-day period", True),
        (day(30), "30 day", True),
        (day(30), "1 month", True),
        (day(30), "300 days", False),
        (day(30), "3 days", False),
        (day(30), "30 months", False),
        (day(30), "20-30 days", False),  # a range asserts neither end
        (day(30), "30 working days", True),  # the gold unit has no qualifier: any is optional
        (Value("number_unit", 7, "business day"), "7 business days", True),
        (Value("number_unit", 7, "business day"), "within 7 working days", True),
        (Value("number_unit", 7, "business day"), "7 days", False),  # the gold unit's qualifier is required
        (Value("number_unit", 7, "business day"), "7 calendar days", False),
        (day(4), "twenty-four days", False),
        (Value("number_unit", 586, "count"), "586 day care treatments", True),
        (Value("number_unit", 586, "count"), "586 days", False),
        (Value("money", 500000, "INR"), "₹5 lakh", True),
        (Value("money", 500000, "INR"), "Rs. 5,00,000", True),
        (Value("money", 500000, "INR"), "INR 500000", True),
        (Value("money", 500000, "INR"), "5 lakhs", True),
        (Value("money", 500000, "INR"), "₹50 lakh", False),
        (Value("money", 500000, "INR"), "₹15 lakh", False),
        (Value("money", 500000, "INR"), "₹5 crore", False),
        (Value("percent", 20, "%"), "20 percent", True),
        (Value("percent", 20, "%"), "20 per cent", True),
        (Value("percent", 20, "%"), "120%", False),
        (Value("bool", True), "Yes", True),
        (Value("bool", True), "It is covered.", True),
        (Value("bool", True), "not covered", False),
        (Value("bool", True), "no", False),
        (Value("bool", True), "isn't covered", False),
        (Value("bool", True), "No, it is not covered.", False),
        (Value("bool", True), "It is not currently covered.", False),
        (Value("bool", False), "No", True),
        (Value("bool", False), "not covered", True),
        (Value("bool", False), "It is excluded.", True),
        (Value("bool", False), "It is not excluded.", False),
        (Value("bool", False), "No doubt it is covered", False),  # "no" is not the answer's word here
        (Value("bool", False), "covered", False),
        (Value("enum", "pan_india"), "Cover is Pan-India.", True),
        (Value("enum", "indemnity"), "a non-indemnity plan", False),
        (Value("date", "1947-08-15"), "on 15th August 1947", True),
        (Value("date", "1947-08-15"), "in 1947", False),
    ],
)
def test_a_pattern_passes_what_states_its_value_and_nothing_near(
    value: Value, response: str, passes: bool
) -> None:
    pattern = expected_regex(value)
    assert pattern is not None
    assert hard_fact_passes([(pattern, response)]) == [passes]


NUMBERS = range(1, 401)


@pytest.mark.parametrize("unit", ["day", "week", "month", "year", "hour", "minute", "count", None])
def test_every_number_with_each_unit_matches_its_variants_and_no_near_miss(unit: str | None) -> None:
    checked, failures = pattern_failures([Value("number_unit", number, unit) for number in NUMBERS])
    assert not failures, failures[:20]
    assert checked > 8 * len(NUMBERS)  # variants and misses for every number


AMOUNTS = sorted(
    {k * 10**e for k in (1, 2, 3, 5, 7, 10, 12, 15, 25, 50, 75, 99) for e in range(3, 9)}
    | {150_000, 250_000, 750_000, 1_250_000, 4_500_000, 123_456, 1_234_567, 999}
)


def test_every_amount_matches_its_variants_and_no_near_miss() -> None:
    checked, failures = pattern_failures([Value("money", amount, "INR") for amount in AMOUNTS])
    assert not failures, failures[:20]
    assert checked > 10 * len(AMOUNTS)


def test_every_percentage_matches_its_variants_and_no_near_miss() -> None:
    percents: list[int | float] = [*range(101), 2.5, 12.5, 0.5, 33.33]
    _, failures = pattern_failures([Value("percent", percent, "%") for percent in percents])
    assert not failures, failures[:20]


def test_booleans_labels_texts_and_dates_match_their_variants_and_no_near_miss() -> None:
    start = datetime.date(1947, 1, 1)
    dates = [Value("date", (start + datetime.timedelta(days=step)).isoformat()) for step in range(0, 800, 11)]
    words = [Value("enum", label) for label in ("pan_india", "family_floater", "indemnity", "hospital_cash")]
    texts = [Value("text", "Single Private A/C Room"), Value("text", "HDFHLIP25041V062425")]
    texts += [
        Value("number_unit", 5, "kg"),
        Value("number_unit", 12, "sessions"),
    ]  # units assay does not know
    _, failures = pattern_failures([Value("bool", True), Value("bool", False), *dates, *words, *texts])
    assert not failures, failures[:20]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=10**9).map(lambda n: n * 1000))
def test_any_round_amount_matches_its_variants_and_no_near_miss(amount: int) -> None:
    _, failures = pattern_failures([Value("money", amount, "INR")])
    assert not failures, failures


def test_fractional_and_zero_quantities_match_their_variants_and_no_near_miss() -> None:
    values = [Value("number_unit", number, unit) for number in (0, 0.5, 1.5, 2.5, 7.25)
              for unit in ("day", "month", "year", "hour", None)]  # fmt: skip
    values += [Value("money", 1234.5, "INR"), Value("money", 0, "INR"), Value("percent", 0.25, "%")]
    _, failures = pattern_failures(values)
    assert not failures, failures[:20]


QUANTITIES = st.one_of(
    st.builds(
        Value,
        st.just("number_unit"),
        st.integers(0, 10**6),
        st.sampled_from(["day", "week", "month", "year", "hour", "minute", None]),
    ),
    st.builds(Value, st.just("money"), st.integers(0, 10**12), st.just("INR")),
    st.builds(Value, st.just("percent"), st.integers(0, 1000), st.just("%")),
    st.builds(Value, st.just("bool"), st.booleans()),
    st.dates(datetime.date(1000, 1, 1), datetime.date(2999, 12, 31)).map(
        lambda d: Value("date", d.isoformat())
    ),
)


@settings(max_examples=300, deadline=None)
@given(QUANTITIES)
def test_a_rendered_answer_parses_back_to_its_value(value: Value) -> None:
    assert parse_answer(render_answer(value)) == value


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_reading_any_text_never_raises(text: str) -> None:
    for mention in read_values(text):
        assert 0 <= mention.start < mention.end
    parse_answer(text)
    value_in_text(day(30), text)


def test_the_real_facts_numbers_are_stated_in_their_quotes() -> None:
    if not FACTS.is_dir():
        skip_or_fail(f"{FACTS} is missing (the shared insurance facts)")
    verdicts: dict[bool | None, list[str]] = {True: [], False: [], None: []}
    for path in sorted(FACTS.glob("*.json")):
        for field, fact in json.loads(path.read_text(encoding="utf-8")).items():
            typed = _typed_fact(field, fact) if isinstance(fact, dict) and "value" in fact else None
            quote = (fact.get("source_quote") or "") if isinstance(fact, dict) else ""
            if (
                typed is None
                or typed.type not in ("number_unit", "money", "percent")
                or sentinel_reason(quote)
            ):
                continue  # no number, or no quote: "not stated", "backfilled ... see source_url"
            verdicts[value_in_text(typed, quote)].append(f"{path.stem}.{field}")
    # Every curated number with a quote is stated in it: 4 consecutive years for 48 months, Two Year
    # for 24 months, 586 in a list of procedures.
    assert verdicts[False] == [] and verdicts[None] == []
    assert len(verdicts[True]) == 35  # the six files' numbers with a quote


@pytest.mark.parametrize(
    ("label", "response", "passes"),
    [
        ("India only", "Treatment is covered in India only.", True),
        ("India only", "Cover is pan-India.", True),  # the value's own words still match
        ("India only", "Not India only: worldwide.", False),
        ("Pan India: treatment within India only", "Pan India: treatment within India only", True),
    ],
)
def test_an_enum_label_is_matched_as_well_as_its_value(label: str, response: str, passes: bool) -> None:
    value, labels = Value("enum", "pan_india"), {"pan_india": label}
    pattern = expected_regex(value, labels=labels)
    assert pattern is not None
    variants = answer_variants(value, labels=labels)
    assert variants[0] == label
    assert all(hard_fact_passes([(pattern, variant) for variant in variants]))
    assert hard_fact_passes([(pattern, response)]) == [passes]


def test_a_long_text_gets_no_pattern() -> None:
    assert (
        expected_regex(Value("text", "No cap; choose any room category up to the Sum Insured " * 3)) is None
    )


def test_the_real_facts_patterns_match_their_answers_and_no_near_miss() -> None:
    if not FACTS.is_dir():
        skip_or_fail(f"{FACTS} is missing (the shared insurance facts)")
    values = []
    for path in sorted(FACTS.glob("*.json")):
        for field, fact in json.loads(path.read_text(encoding="utf-8")).items():
            if isinstance(fact, dict) and "value" in fact:
                typed = _typed_fact(field, fact)
                if typed is not None:
                    values.append(typed)
    assert len(values) == 93  # the typable facts of the six files (not null, not a list)
    _, failures = pattern_failures([value for value in values if expected_regex(value) is not None])
    assert not failures, failures[:20]


def _typed_fact(field: str, fact: dict[str, Any]) -> Value | None:
    raw, unit = fact["value"], fact.get("unit") or unit_from_field(field)
    canonical = canonical_unit(unit)
    if isinstance(raw, bool):
        kind = "bool"
    elif isinstance(raw, str):
        kind = "enum" if unit == "enum" else "text"
    else:
        kind = {"INR": "money", "%": "percent"}.get(canonical or "", "number_unit")
    try:
        return typed_value(raw, answer_type=kind, unit=unit)
    except ValueError:
        return None  # null values and sum-insured lists: the gold build reports them
