"""token_f1: SQuAD's token F1 under the unicode profile, best over the golden answers, reported as a mean."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import assay.parallel as parallel
from assay import Outcome, build_report, score, summary_dict
from assay.parallel import score_file
from assay.report.text import render_text


def f1_of(goldens: list[str] | str, response: str) -> tuple[Outcome, float]:
    answers = goldens if isinstance(goldens, list) else [goldens]
    frame = pd.DataFrame({"question": ["q"], "answers": [answers], "response": [response]})
    scores = score(frame, ["token_f1"]).metrics["token_f1"]
    assert scores.values is not None
    return scores.outcome(0), scores.values[0]


@pytest.mark.parametrize(
    ("goldens", "response", "expected"),
    [
        ("New Delhi", "New Delhi", 1.0),
        ("New Delhi", "the capital is New Delhi", 2 * (2 / 5) * 1 / (2 / 5 + 1)),  # P 2/5, R 1
        ("New Delhi", "Mumbai", 0.0),
        ("1947 to 1947", "1947", 2 * 1 * (1 / 3) / (1 + 1 / 3)),  # a multiset: 1947 counts once here
        ("नई दिल्ली", "राजधानी नई दिल्ली है।", 2 * (2 / 4) * 1 / (2 / 4 + 1)),
        ("北京大学", "北京", 2 * 1 * 0.5 / 1.5),  # Chinese: one token per character
        (["Mumbai", "New Delhi"], "New Delhi", 1.0),  # the best answer decides
    ],
)
def test_f1_values(goldens: list[str] | str, response: str, expected: float) -> None:
    outcome, value = f1_of(goldens, response)
    assert value == pytest.approx(expected, abs=1e-12)
    assert (outcome is Outcome.PASS) is (value == 1.0)


def test_a_golden_answer_without_words_is_unscored() -> None:
    outcome, value = f1_of("?", "anything")
    assert (outcome, value) == (Outcome.UNSCORED, 0.0)


def test_the_summary_reports_the_mean_over_scored_rows() -> None:
    frame = pd.DataFrame(
        {
            "question": ["q1", "q2", "q3", "q4"],
            "answer": ["New Delhi", "New Delhi", "?", "Paris"],
            "response": ["New Delhi", "Delhi", "x", ""],  # 1.0, 2/3, unscored, blank (0)
            "Domain": ["A", "A", "A", "B"],
        }
    )
    summary = summary_dict(score(frame, ["token_f1"]).summary)["metrics"]["token_f1"]
    assert summary["combined"]["mean"] == pytest.approx((1.0 + 2 / 3 + 0.0) / 3)
    assert summary["domains"]["A"]["mean"] == pytest.approx((1.0 + 2 / 3) / 2)
    assert summary["domains"]["B"]["mean"] == 0.0
    assert (summary["combined"]["unscored"], summary["combined"]["blank"]) == (1, 1)
    report = render_text(build_report(score(frame, ["token_f1"]).summary), detail=True)
    assert "mean" in report.splitlines()[3] and "0.556" in report


def test_several_processes_give_the_same_mean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = "".join(f"q{i},answer {i % 7},the answer {i % 5} here\n" for i in range(300))
    path = tmp_path / "f1.csv"
    path.write_text("question,answer,response\n" + rows, encoding="utf-8")
    monkeypatch.setattr(parallel, "MIN_BYTES_PER_WORKER", 1)
    alone = summary_dict(score_file(path, ["token_f1"], workers=1).summary)
    shared = summary_dict(score_file(path, ["token_f1"], workers=3).summary)
    assert shared["metrics"]["token_f1"]["combined"]["mean"] == pytest.approx(
        alone["metrics"]["token_f1"]["combined"]["mean"], abs=1e-12
    )
