"""Generated ``expected_regex`` patterns are self-contained: compiled alone with the flags the gold set
documents (``PATTERN_FLAGS``) and searched in a reply's raw text, as a team's own runner does, each
matches its answer and every answer variant, and no near miss: a longer number (a digit before or after,
a decimal part, a grouping prefix), another unit or currency, a negated, approximate or bounded value.
The same patterns keep working through assay's own ``hard_fact`` (which folds the reply first)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.harness.gold import hard_fact_matcher
from assay.values import (
    PATTERN_FLAGS,
    Value,
    answer_variants,
    expected_regex,
    near_misses,
    render_answer,
    value_in_text,
)
from assay.values.patterns import APPROXIMATE, STRICTLY
from assay.values.reading import APPROXIMATIONS, STRICT_BOUNDS
from assay.values.types import UNIT_WORDS
from conftest import skip_or_fail

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance"
TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "gold.md"
# Digits other than ASCII: a raw-text runner does not fold them (assay's hard_fact does), so a variant
# written in them (३० दिन) is checked through hard_fact only; docs/gold.md says so.
NON_ASCII_DIGIT = regex.compile(r"[^\P{Nd}0-9]")
_DIGIT_RUN = regex.compile(r"\d+(?:[,.]\d+)*")


def alone(pattern: str) -> regex.Pattern[str]:
    """The pattern as a team's runner compiles it: alone, with the documented flags."""
    return regex.compile(pattern, PATTERN_FLAGS)


def longer_numbers(answer: str) -> list[str]:
    """The answer with its first number made longer: a digit before (124, 2024) or after (245), a
    decimal part (24.5), a grouping prefix (1,24)."""
    found = _DIGIT_RUN.search(answer)
    if found is None:
        return []
    head, number, tail = answer[: found.start()], found.group(), answer[found.end() :]
    longer = [f"1{number}", f"20{number}", f"{number}5", f"1,{number}"]
    if "." not in number:
        longer.append(f"{number}.5")
    return [f"{head}{form}{tail}" for form in longer]


def other_units(value: Value) -> list[str]:
    """The value's number in units that are not its own (nor equal to it: 2 years is 24 months)."""
    if value.type == "percent":
        return [f"{render_answer(value)[:-1]} days", f"{render_answer(value)[:-1]} points"]
    if value.type != "number_unit":
        return []
    number = render_answer(Value("number_unit", value.value, None))
    found = [f"{number} {plural}" for unit, (_, plural) in UNIT_WORDS.items() if unit != value.unit]
    found += [f"{number}%", f"₹{number}"]
    return [text for text in found if not value_in_text(value, text)]


def generated_misses(value: Value, answer: str) -> list[str]:
    """Near misses made here, beside ``values.near_misses``: longer numbers, other units, negations."""
    negated = [f"not {answer}", f"It is not {answer}.", f"never {answer}"]
    if value.type == "bool":  # "not No" may well say no; a sentence answer has its own negations
        return negated if value.value and len(answer.split()) == 1 else []
    if value.type in ("enum", "text"):
        return negated
    return [*longer_numbers(answer), *other_units(value), *negated]


def failures(value: Value, answer: str, pattern: str, labels: dict[str, str] | None = None) -> list[str]:
    """What `pattern`, compiled alone and through hard_fact, gets wrong about `value`: each answer it
    misses and each near miss it matches, named."""
    raw, through_hard_fact = alone(pattern), hard_fact_matcher(pattern)
    wrong = []
    for text in dict.fromkeys([answer, *answer_variants(value, labels=labels)]):
        if not NON_ASCII_DIGIT.search(text) and raw.search(text) is None:
            wrong.append(f"alone, misses {text!r}")
        if not through_hard_fact(text):
            wrong.append(f"through hard_fact, misses {text!r}")
    for text in dict.fromkeys([*near_misses(value), *generated_misses(value, answer)]):
        hit = raw.search(text)
        if hit is not None:
            wrong.append(f"alone, matches the near miss {text!r} at {hit.group()!r}")
        if through_hard_fact(text):
            wrong.append(f"through hard_fact, matches the near miss {text!r}")
    return wrong


# --- the shared gold set ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_items(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, object]]]:
    """The shared insurance gold set, built with assay.harness as `assay gold build --refusals` builds it."""
    if not (SHARED / "facts").is_dir() or not (SHARED / "pdfs").is_dir():
        skip_or_fail(f"the shared insurance data is missing: {SHARED}")
    from assay.documents import load_sources
    from assay.harness.claims import verify_claims
    from assay.harness.facts import load_facts
    from assay.harness.gold import build_gold
    from assay.harness.templates import load_templates

    templates = load_templates(TEMPLATES)
    sources = load_sources(SHARED / "pdfs", cache_dir=tmp_path_factory.mktemp("pages"))
    verification = verify_claims(load_facts(SHARED / "facts"), sources, templates=templates)
    yield list(build_gold(verification, templates, refusals=True).items)


def item_value(item: dict[str, object]) -> tuple[Value, dict[str, str] | None]:
    """A gold item's typed value and, for an enum, its label (the answer written for it)."""
    expected = item["expected_value"]
    assert isinstance(expected, dict)
    value = Value(str(item["answer_type"]), expected["value"], expected["unit"])
    labels = {str(value.value): str(item["expected_answer"])} if value.type == "enum" else None
    return value, labels


def test_every_shared_gold_pattern_alone_matches_its_answers_and_no_near_miss(
    shared_items: list[dict[str, object]],
) -> None:
    with_pattern = [item for item in shared_items if item["expected_regex"] is not None]
    assert len(with_pattern) >= 80
    wrong = {}
    for item in with_pattern:
        value, labels = item_value(item)
        problems = failures(value, str(item["expected_answer"]), str(item["expected_regex"]), labels)
        if problems:
            wrong[str(item["id"])] = problems
    assert not wrong, wrong


def test_the_shared_gold_patterns_read_alike_under_the_regex_module_s_version_1(
    shared_items: list[dict[str, object]],
) -> None:
    """A runner that compiles with ``regex.V1`` too (set operations in classes, full case folding)
    gets the same verdicts: the patterns use nothing the two versions read differently."""
    differ = []
    for item in shared_items:
        if item["expected_regex"] is None:
            continue
        value, labels = item_value(item)
        pattern, answer = str(item["expected_regex"]), str(item["expected_answer"])
        version_0, version_1 = alone(pattern), regex.compile(pattern, PATTERN_FLAGS | regex.V1)
        texts = [
            *answer_variants(value, labels=labels),
            *near_misses(value),
            *generated_misses(value, answer),
        ]
        differ += [
            (item["id"], text)
            for text in texts
            if bool(version_0.search(text)) != bool(version_1.search(text))
        ]
    assert not differ, differ


def test_the_shared_gold_patterns_are_shorter_than_before(shared_items: list[dict[str, object]]) -> None:
    lengths = [len(str(item["expected_regex"])) for item in shared_items if item["expected_regex"]]
    # Before issue 20 (hard_fact added the boundaries): 92 patterns, mean 428 characters (443 with the
    # reader's currencies), and 45 of them matched "2024 months" for "24 months" compiled alone.
    assert sum(lengths) / len(lengths) < 428


# --- values of every kind, generated ----------------------------------------------------------------------

CURRENCY_UNITS = ["INR", "USD", "EUR", "JPY", None]  # None: an amount that names no currency
_UNITS = ["day", "week", "month", "year", "hour", "minute", "count", None, "business day"]
VALUES = st.one_of(
    st.builds(Value, st.just("number_unit"), st.integers(0, 5000), st.sampled_from(_UNITS)),
    st.builds(Value, st.just("percent"), st.integers(0, 100) | st.sampled_from([2.5, 12.5]), st.just("%")),
    st.builds(Value, st.just("money"), st.integers(1, 10**6).map(lambda n: n * 1000), st.just("INR")),
    st.builds(Value, st.just("money"), st.integers(1, 10**7), st.sampled_from(CURRENCY_UNITS)),
    st.builds(Value, st.just("bool"), st.booleans()),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_any_value_s_pattern_alone_matches_its_answers_and_no_near_miss(value: Value) -> None:
    pattern = expected_regex(value)
    assert pattern is not None
    assert not failures(value, render_answer(value), pattern)


@pytest.mark.parametrize(
    "value",
    [
        Value("number_unit", 24, "month"),
        Value("number_unit", 30, "day"),
        Value("number_unit", 180, "day"),
        Value("number_unit", 1, "year"),
        Value("number_unit", 48, "hour"),
        Value("number_unit", 7, "business day"),
        Value("number_unit", 586, "count"),
        Value("number_unit", 12, "sessions"),
        Value("percent", 20, "%"),
        Value("percent", 12.5, "%"),
        Value("money", 500_000, "INR"),
        Value("money", 15_000_000, "INR"),
        Value("money", 1_234_567, "INR"),
        Value("money", 2_500, "INR"),
        Value("money", 1_499, "USD"),
        Value("money", 2_000_000, "EUR"),
        Value("money", 1_000, "CHF"),
        Value("money", 1_499, None),
        Value("number_unit", 7, "calendar day"),
        Value("number_unit", 3, "clear day"),
        Value("bool", True),
        Value("bool", False),
        Value("date", "1947-08-15"),
        Value("enum", "pan_india"),
        Value("text", "Single Private A/C Room"),
    ],
    ids=str,
)
def test_a_value_s_pattern_alone_matches_its_answers_and_no_near_miss(value: Value) -> None:
    pattern = expected_regex(value)
    assert pattern is not None
    assert not failures(value, render_answer(value), pattern)


@pytest.mark.parametrize(
    ("value", "reply", "matches"),
    [
        (Value("number_unit", 24, "month"), "a waiting period of 24 months", True),
        (Value("number_unit", 24, "month"), "in 2024 months", False),
        (Value("number_unit", 24, "month"), "after 124 months", False),
        (Value("number_unit", 24, "month"), "after 24.5 months", False),
        (Value("number_unit", 24, "month"), "after 1,24 months", False),
        (Value("number_unit", 24, "month"), "It is not 24 months.", False),
        (Value("number_unit", 24, "month"), "it isn't 24 months", False),
        (Value("number_unit", 24, "month"), "it isn\u2019t 24 months", False),
        (Value("number_unit", 24, "month"), "about 24 months", False),
        (Value("number_unit", 24, "month"), "more than 24 months", False),
        (Value("number_unit", 24, "month"), "no more than 24 months", True),  # an inclusive bound
        (Value("number_unit", 24, "month"), "up to 24 months", True),
        (Value("number_unit", 24, "month"), "24 weeks", False),
        (Value("number_unit", 24, "month"), "Two years", True),
        (Value("number_unit", 24, "month"), "twenty-four (24) months", True),
        (Value("number_unit", 24, "month"), "24 (twenty\u2011four) months", True),  # a non-breaking hyphen
        (Value("number_unit", 24, "month"), "a 24-month wait", True),
        (Value("number_unit", 24, "month"), "24\u00a0months", True),
        (Value("number_unit", 30, "day"), "30 (thirty) days", True),
        (Value("number_unit", 30, "day"), "a thirty-day grace period", True),
        (Value("number_unit", 30, "day"), "20-30 days", False),
        (Value("number_unit", 30, "day"), "30 day care procedures", False),
        (Value("number_unit", 180, "day"), "one hundred and eighty days", True),
        (Value("number_unit", 180, "day"), "a hundred and eighty days", True),
        (Value("number_unit", 4, "day"), "twenty-four days", False),
        (Value("number_unit", 7, "day"), "within 7 business days", True),
        (Value("number_unit", 7, "business day"), "within 7 days", False),
        (Value("number_unit", 7, "business day"), "within seven working days", True),
        (Value("number_unit", 7, "business day"), "within 1 week", False),  # a counting unit converts not
        (Value("number_unit", 1, "week"), "within 7 business days", False),
        (Value("number_unit", 1, "week"), "within 7 days", True),
        (Value("number_unit", 48, "month"), "4 consecutive years", True),
        (Value("number_unit", 586, "count"), "586 day care procedures", True),
        (Value("number_unit", 586, "count"), "see page 586", False),
        (Value("number_unit", 586, "count"), "Rs 586", False),
        (Value("percent", 20, "%"), "a co-payment of 20 per cent", True),
        (Value("percent", 20, "%"), "a co-payment of 120%", False),
        (Value("percent", 20, "%"), "not 20%", False),
        (Value("money", 500_000, "INR"), "Rs. 5,00,000/-", True),
        (Value("money", 500_000, "INR"), "INR 500,000", True),
        (Value("money", 500_000, "INR"), "₹5L", True),
        (Value("money", 500_000, "INR"), "5 l of water", False),
        (Value("money", 500_000, "INR"), "₹5,00,000.5", False),
        (Value("money", 500_000, "INR"), "$500,000", False),
        (Value("money", 500_000, "INR"), "500,000 USD", False),
        (Value("money", 1499, "USD"), "$1,499", True),
        (Value("money", 1499, "USD"), "USD 1,499", True),
        (Value("money", 1499, "USD"), "US$1,499 a year", True),
        (Value("money", 1499, "USD"), "1,499 dollars", True),
        (Value("money", 1499, "USD"), "₹1,499", False),
        (Value("money", 1499, "USD"), "Rs. 1,499", False),
        (Value("money", 1499, "USD"), "€1,499", False),
        (Value("money", 1499, "USD"), "1,499 EUR", False),
        (Value("money", 2_000_000, "EUR"), "€2 million", True),
        (Value("money", 2_000_000, "EUR"), "£2 million", False),
        (Value("money", 50_000, "GBP"), "£50k", True),
        (Value("money", 1499, None), "$1,499", True),  # an amount that names no currency is any's
        (Value("money", 1499, None), "₹1,499", True),
        (Value("money", 1000, "CHF"), "CHF 1,000", True),
        (Value("money", 1000, "CHF"), "$1,000", False),
        (Value("number_unit", 7, "calendar day"), "7 days", True),
        (Value("number_unit", 7, "calendar day"), "1 week", True),
        (Value("number_unit", 7, "calendar day"), "7 business days", False),
        (Value("bool", True), "Yes, it is covered.", True),
        (Value("bool", True), "It is uncovered.", False),
        (Value("bool", True), "It is not covered.", False),
        (Value("bool", False), "There is no cover for it.", True),
        (Value("bool", False), "Yes, it is covered.", False),
        (Value("date", "1947-08-15"), "on 15 August 1947", True),
        (Value("date", "1947-08-15"), "on 15 August 19470", False),
        (Value("enum", "indemnity"), "an indemnity plan", True),
        (Value("enum", "indemnity"), "a non-indemnity plan", False),
        (Value("enum", "indemnity"), "indemnitys", False),
    ],
)
def test_a_pattern_alone_reads_a_raw_reply_as_a_careful_reader(
    value: Value, reply: str, matches: bool
) -> None:
    pattern = expected_regex(value)
    assert pattern is not None
    assert (alone(pattern).search(reply) is not None) is matches


def test_indic_digits_match_through_hard_fact_only() -> None:
    pattern = expected_regex(Value("number_unit", 30, "day"))
    assert pattern is not None
    assert hard_fact_matcher(pattern)("३० दिन")  # hard_fact folds the digits first
    assert alone(pattern).search("३० दिन") is None  # a raw runner gets ASCII digits (docs/gold.md)
    assert alone(pattern).search("30 दिन") is not None


def test_the_hedge_words_are_reading_s() -> None:
    """The words that make a pattern's quantity approximate or bounded are reading's, all of them."""
    hedges = regex.compile(rf"(?:{APPROXIMATE}|{STRICTLY})", PATTERN_FLAGS)
    for word in (*APPROXIMATIONS, *STRICT_BOUNDS):
        assert hedges.fullmatch(word), word


def test_a_pattern_is_the_same_text_in_every_process() -> None:
    """No set order leaks into a pattern: gold.jsonl is byte-stable across runs."""
    code = (
        "from assay.values import Value, expected_regex as e; "
        "print([e(Value('number_unit', 586, 'count')), e(Value('money', 5, 'GBP')), "
        "e(Value('number_unit', 7, 'business day')), e(Value('number_unit', 24, 'month'))])"
    )
    printed = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True,
            text=True, check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(printed) == 1


def test_the_gold_docs_give_the_flags() -> None:
    assert "regex.IGNORECASE" in DOCS.read_text(encoding="utf-8")
    assert PATTERN_FLAGS == regex.IGNORECASE
