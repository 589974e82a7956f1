"""hard_fact: each row's own pattern, found as a whole in the response, in any script."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from assay import InputError, Outcome, score
from cli_run import run


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
        ["score", "--responses", str(path), "--metric", "hard_fact", "--regex-col", "pattern"], capsys
    )
    assert code == 0
    assert "combined     1       1    100.0%" in out


def test_asking_for_hard_fact_without_a_pattern_column_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "qa_responses.csv"
    code, _, err = run(["score", "--responses", str(example), "--metric", "hard_fact"], capsys)
    assert code == 2
    assert "hard_fact needs each row's pattern, and there is no column 'expected_regex'" in err
    assert "Fix: add the column, or name it with --regex-col NAME" in err
