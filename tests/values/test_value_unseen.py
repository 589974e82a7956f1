"""value_match and the generated hard_fact patterns on replies a RAG assistant writes: the value in
markdown, tables and citations passes; page and section numbers, counts of something else, hedged,
approximate and strictly compared values do not. Both scorers are run on each reply, and must agree."""

from __future__ import annotations

import pandas as pd
import pytest
from budget import SECOND, assert_within

from assay import score
from assay.scorers import Outcome
from assay.values import Value, expected_regex, parse_answer

DAYS_30 = Value("number_unit", 30, "day")
COUNT_30 = Value("number_unit", 30, "count")
LAKH_5 = Value("money", 500_000, "INR")
PERCENT_20 = Value("percent", 20, "%")


def verdicts(value: Value, response: str) -> tuple[bool, bool]:
    """(value_match passed, hard_fact with the generated pattern passed) on one reply."""
    row = {"question": "q", "answer": "a", "response": response, "value": value.value, "unit": value.unit,
           "value_type": value.type, "expected_regex": expected_regex(value)}  # fmt: skip
    metrics = score(pd.DataFrame([row]), ["value_match", "hard_fact"]).metrics
    return tuple(metrics[name].outcome(0) is Outcome.PASS for name in ("value_match", "hard_fact"))  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("value", "response"),
    [
        (DAYS_30, "**30 days**"),
        (DAYS_30, "| Grace period | 30 days |"),
        (DAYS_30, "30 days [Source: policy.pdf, p.4]"),
        (DAYS_30, "The grace period is 30 days (Section 4.2, p. 12)."),
        (DAYS_30, "- Grace period: **30 days**\n- Waiting period: 2 years"),
        (DAYS_30, "It's thirty (30) days"),
        (COUNT_30, "There are 30 network hospitals."),
        (LAKH_5, "| Sum insured | ₹5,00,000 |"),
        (LAKH_5, "Rs.500000/-"),
        (PERCENT_20, "A 20 per cent co-payment applies [p. 7]."),
    ],
)
def test_a_value_around_markup_and_citations_passes_both(value: Value, response: str) -> None:
    assert verdicts(value, response) == (True, True)


@pytest.mark.parametrize(
    ("value", "response"),
    [
        (DAYS_30, "See page 30."),
        (DAYS_30, "The policy does not specify it (see p. 30)."),
        (DAYS_30, "Refer to Section 30 of the policy."),
        (COUNT_30, "Section 30"),
        (COUNT_30, "(p. 30)"),
        (COUNT_30, "Clause 30 applies."),
        (COUNT_30, "§ 30"),
    ],
)
def test_a_reference_or_a_count_of_something_else_is_no_value(value: Value, response: str) -> None:
    assert verdicts(value, response) == (False, False)


@pytest.mark.parametrize(
    ("value", "response"),
    [
        (DAYS_30, "about 30 days"),
        (DAYS_30, "It takes around thirty days."),
        (DAYS_30, "nearly 30 days"),
        (DAYS_30, "more than 30 days"),
        (DAYS_30, "less than 30 days"),
        (DAYS_30, "The grace period is not 30 days but 60 days."),
        (LAKH_5, "The sum insured is over ₹5 lakh."),
        (LAKH_5, "not ₹5 lakh"),
        (PERCENT_20, "about 20%"),
        (PERCENT_20, "below 20 per cent"),
        (DAYS_30, "प्रतीक्षा अवधि 30 दिन नहीं है।"),  # Hindi negates after the value
        (LAKH_5, "₹5 लाख नहीं"),
    ],
)
def test_an_approximate_strictly_bounded_or_negated_value_fails_both(value: Value, response: str) -> None:
    assert verdicts(value, response) == (False, False)


@pytest.mark.parametrize(
    ("value", "response"),
    [
        (DAYS_30, "Claims must be filed within 30 days."),
        (DAYS_30, "The grace period is up to 30 days."),
        (DAYS_30, "It shall be not more than 30 days."),
        (DAYS_30, "You need at least 30 days of continuous cover."),
        (LAKH_5, "Cover up to ₹5 lakh."),
        (PERCENT_20, "The co-payment shall not exceed 20%."),
    ],
)
def test_an_inclusive_bound_states_the_value_in_both(value: Value, response: str) -> None:
    assert verdicts(value, response) == (True, True)


def test_an_upper_bound_with_an_open_end_commits_to_nothing() -> None:
    assert verdicts(DAYS_30, "up to 30 days or more")[0] is False


@pytest.mark.parametrize(
    ("value", "response", "passes"),
    [
        # answer first: a later sentence's value is context
        (
            DAYS_30,
            "The grace period is 30 days. The waiting period for pre-existing diseases is 36 months.",
            True,
        ),
        (DAYS_30, "Grace: 30 days. Free look: 15 days.", True),
        (DAYS_30, "| Grace period | 30 days |\n| Free-look period | 15 days |", True),
        # another value before it, in its sentence, or later with a contrast, denial or correction
        (DAYS_30, "The grace period is 15 days. (Some say 30 days, but that is incorrect.)", False),
        (DAYS_30, "The grace period is 60 days; 30 days applies only to monthly mode.", False),
        (DAYS_30, "Grace period: 15 days (monthly), 30 days (annual)", False),
        (DAYS_30, "The grace period is 30 days. However, monthly mode has 15 days.", False),
        (DAYS_30, "The grace period is 30 days? No, it is 15 days.", False),
        (DAYS_30, "The grace period is 30 days. Actually, it is 15 days.", False),
    ],
)
def test_a_reply_is_read_answer_first(value: Value, response: str, passes: bool) -> None:
    assert verdicts(value, response)[0] is passes


@pytest.mark.parametrize(
    "response",
    ["I believe it is 30 days.", "I think the grace period is 30 days.", "It seems to be 30 days."],
)
def test_a_belief_is_a_hedge(response: str) -> None:
    assert verdicts(DAYS_30, response)[0] is False


def test_may_be_states_a_rule_not_a_doubt() -> None:
    assert verdicts(DAYS_30, "Claims may be filed within 30 days of discharge.") == (True, True)


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("1947", Value("number_unit", 1947)),
        ("15 August 1947", Value("date", "1947-08-15")),
        ("August 15, 1947", Value("date", "1947-08-15")),
        ("1947-08-15", Value("date", "1947-08-15")),
        ("₹ 5,00,000", LAKH_5),
        ("Rs.500000/-", LAKH_5),
        ("20 per cent", PERCENT_20),
        ("Thirty days", DAYS_30),
        ("Yes.", Value("bool", True)),
        # not one value: the row is unscored, never failed
        ("-3", None),  # a sign is not read, and -3 is not 3
        ("Mahatma Gandhi", None),
        ("World War 2", None),
        ("about 30 days", None),
        ("30 or 60 days", None),
    ],
)
def test_a_golden_answer_is_read_as_one_value_or_none(answer: str, value: Value | None) -> None:
    assert parse_answer(answer) == value


@pytest.mark.parametrize(
    "response",
    [
        "30" * 5000,  # a 10,000-digit run: no int too long to print
        "1" + ",00" * 3000,
        "0." + "1" * 5000,
        "(" * 5000 + "30 days",
        "not " * 10000 + "30 days",
        "₹" * 10000,
    ],
)
def test_a_pathological_reply_is_scored_without_a_crash(response: str) -> None:
    verdicts(DAYS_30, response)


@pytest.mark.parametrize(
    "response",
    [
        ("The grace period is 30 days. " * 40_000)[:1_000_000],
        "usually 30 days " * 60_000,  # every mention hedged, in one sentence
        "30 days or 60 days, " * 50_000,  # every mention with a rival
    ],
)
def test_a_megabyte_reply_takes_seconds_not_minutes(response: str) -> None:
    # each took from 20 s to 4 minutes when every value's sentence and rivals were found by a scan
    assert_within(lambda: verdicts(DAYS_30, response), 15 * SECOND, "a megabyte reply")  # budget.py's units


@pytest.mark.parametrize(
    ("value", "response"),
    [
        (DAYS_30, "３０ days"),  # full-width digits
        (DAYS_30, "٣٠ days"),  # Arabic-Indic digits
        (DAYS_30, "३०\u00a0दिन"),  # a no-break space
        (DAYS_30, "\ufeff30 days"),
        (LAKH_5, "₹\u00a05,00,000"),
    ],
)
def test_other_digits_and_spaces_read_alike(value: Value, response: str) -> None:
    assert verdicts(value, response) == (True, True)


@pytest.mark.parametrize(
    ("value", "response", "passes"),
    [
        # a rate is no rival to a total, nor to another rate: the word after "per" tells them apart
        (LAKH_5, "The sum insured is ₹5 lakh, and the room rent cap is ₹5,000 per day.", True),
        (Value("money", 5000, "INR"), "Room rent ₹5,000 per day within a sum insured of ₹5 lakh.", True),
        (Value("money", 5000, "INR"), "Room rent: ₹5,000 per day, ICU ₹10,000 per day.", False),
        # joined alternatives share the rate
        (DAYS_30, "15 or 30 days per claim", False),
        (LAKH_5, "₹5 lakh per annum or ₹10 lakh per annum", False),
    ],
)
def test_a_rate_competes_only_with_a_rate_of_its_kind(value: Value, response: str, passes: bool) -> None:
    assert verdicts(value, response)[0] is passes


def value_match_passes(value: Value, response: str) -> bool:
    return verdicts(value, response)[0]


@pytest.mark.parametrize(
    ("response", "passes"),
    [
        # another fact, with its own subject, in a clause of the answer's sentence: no rival
        ("The grace period is 30 days, and the free-look period is 15 days.", True),
        ("The free-look period is 15 days, and the grace period is 30 days.", True),
        ("The grace period is 30 days, but the waiting period is 36 months.", True),
        # the same subject twice, or none named before the first value: still two candidates
        ("The grace period is 30 days, and the grace period is 60 days for monthly premiums.", False),
        ("30 days, but the period is 60 days for some plans.", False),
        ("It is 30 days, but the period is 60 days for some plans.", False),
        ("It is 30 or 60 days.", False),
    ],
)
def test_a_second_fact_in_the_answers_sentence_is_no_rival_when_said_of_something_else(
    response: str, passes: bool
) -> None:
    assert value_match_passes(DAYS_30, response) is passes
