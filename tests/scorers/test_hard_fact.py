"""hard_fact: each row's own pattern, found as a whole in the response, in any script."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run

from assay import InputError, Outcome, score
from assay.report.model import build_report
from assay.report.text import warnings
from assay.scorers.hard_fact import PATTERN_SECONDS, TIMED_OUT
from assay.trace import traces


def hard_fact(pattern: str | None, response: str) -> Outcome:
    frame = pd.DataFrame(
        {"question": ["q"], "answer": ["a"], "response": [response], "expected_regex": [pattern]}
    )
    return score(frame, ["hard_fact"]).metrics["hard_fact"].outcome(0)


@pytest.mark.parametrize(
    ("pattern", "response", "passes"),
    [
        (r"24", "open 24 hours", True),
        (r"24", "in 2024", False),  # a number never inside a longer number
        (r"11", "flight 711", False),
        (r"24", "a 2.24 ratio", False),
        (r"24", "it is 24.", True),  # a full stop after is not a decimal
        (r"30 days", "within 30 DAYS of purchase", True),  # case-insensitive
        (r"50%", "covers 50% of the cost", True),  # punctuation kept for patterns that name it
        (r"1947", "भारत १९४७ में आज़ाद हुआ", True),  # Indic digits fold to ASCII
        (r"दिल", "दिल्ली में", False),  # no match inside a Devanagari word
        (r"दिल्ली", "राजधानी दिल्ली।", True),
        (r"\d+ (?:day|days)", "a 90 day wait", True),
        (r"\D+", "abc", True),  # the pattern is not case-folded: \D stays \D
    ],
)
def test_hard_fact_cases(pattern: str, response: str, passes: bool) -> None:
    assert (hard_fact(pattern, response) is Outcome.PASS) is passes


@pytest.mark.parametrize("pattern", [None, "", "  "])
def test_a_row_without_a_pattern_is_unscored(pattern: str | None) -> None:
    assert hard_fact(pattern, "anything") is Outcome.UNSCORED


def test_a_bad_pattern_is_an_error_naming_the_row_and_pattern() -> None:
    frame = pd.DataFrame(
        {"id": ["r7"], "question": ["q"], "answer": ["a"], "response": ["x"], "expected_regex": ["(24"]}
    )
    with pytest.raises(InputError, match=r"row id r7: the expected_regex '\(24' does not compile"):
        score(frame, ["hard_fact"])


def test_cli_regex_column_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "facts.csv"
    path.write_text(
        "question,answer,response,pattern\nq,a,waiting period of 30 days,30 days\n", encoding="utf-8"
    )
    code, out, _ = run(
        ["score", "--responses", str(path), "--metric", "hard_fact", "--regex-col", "pattern", "--detail"],
        capsys,
    )
    assert code == 0
    assert "combined     1       1    100.0%" in out


def test_asking_for_hard_fact_without_a_pattern_column_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
    code, _, err = run(["score", "--responses", str(example), "--metric", "hard_fact"], capsys)
    assert code == 2
    assert "hard_fact needs each row's pattern, and there is no column 'expected_regex'" in err
    assert "Fix: add the column, or name it with --regex-col NAME" in err


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("a{1000000000}", r"its repeat '\{1000000000\}' is above 1,000"),
        ("x{1001}", r"its repeat '\{1001\}' is above 1,000"),
        ("a{2,99999}", r"its repeat '\{2,99999\}' is above 1,000"),
        ("a{" + "9" * 5000 + "}", r"its repeat '\{9+'\.\.\. \(5,002 characters\) is above"),
        ("(?:a{1000}){1000}", "with its counted repeats expanded it is over 10,000 items"),
        ("((ab{100}){10}){20}", "with its counted repeats expanded it is over 10,000 items"),
        ("(" * 150 + "a" + ")" * 150, "it nests groups more than 100 deep"),
        ("ab" * 6000, "it is 12,000 characters long"),
    ],
)
def test_a_pattern_that_would_compile_huge_is_refused_before_compiling(pattern: str, why: str) -> None:
    frame = pd.DataFrame(
        {"id": ["big"], "question": ["q"], "answer": ["a"], "response": ["a"], "expected_regex": [pattern]}
    )
    with pytest.raises(
        InputError, match=rf"row id big: the expected_regex .* would compile too large: {why}"
    ):
        score(frame, ["hard_fact"])


@pytest.mark.parametrize(
    "pattern",
    [
        r"\d{1,3}(?:,\d{3})*",
        r"[a-z]{2,1000}",
        r"\p{L}{5}\N{LATIN SMALL LETTER A}{3}",
        r"[{]{3}",
        r"(?:ab){e<=1}",
        r"a{,5}b{5,}",
    ],
)
def test_bounded_patterns_are_not_refused(pattern: str) -> None:
    assert hard_fact(pattern, "anything") in (Outcome.PASS, Outcome.FAIL)


@pytest.mark.parametrize(
    ("pattern", "response"),
    [
        (r"(a|aa)+$", "a" * 40 + "!"),  # issue 9's: 52 s without a budget, x1.6 per extra a
        (r"(a|aa)+b", "a" * 60),
        (r"(\w|\w\w)+$", "abc" * 20 + "!"),
        (r"(\d|\d\d)+$", "1" * 60 + "x"),
    ],
)
def test_a_catastrophic_pattern_leaves_its_row_unscored_within_the_budget(
    pattern: str, response: str
) -> None:
    frame = pd.DataFrame(
        {"id": ["slow", "fine"], "question": "q", "answer": "a", "response": [response, "open 24 hours"]}
        | {"expected_regex": [pattern, "24"]}
    )
    started = time.perf_counter()
    run = score(frame, ["hard_fact"])
    # The budget honoured: the pattern alone ran 52 s without it (and these patterns, 40 a's: hours).
    # The clock's time: a loaded machine's stretch is allowed, many-fold.
    assert time.perf_counter() - started < 10 + 2 * PATTERN_SECONDS
    scores = run.metrics["hard_fact"]
    assert (scores.outcome(0), scores.outcome(1)) == (Outcome.UNSCORED, Outcome.PASS)
    assert scores.reasons[0].startswith(TIMED_OUT)
    assert run.summary.metrics["hard_fact"].timed_out_ids == ("slow",)
    trace = traces(run, 0)["hard_fact"]
    assert (trace.outcome, trace.rule) == ("unscored", scores.reasons[0])
    assert any(
        "1 row unscored, their pattern ran past its time budget: ids slow" in w
        for w in warnings(build_report(run.summary))
    )
