"""`assay lint`: problems in golden answers, each named with its row and a fix; exit 1 on any error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run

from assay import load_records
from assay.lint import ERROR, WARNING, lint

GOLD = (
    "id,question,answer\n"
    "ok,Capital of India?,New Delhi\n"
    "spaced,Largest state?, Rajasthan \n"
    "empty,Which river?,\n"
    "punct,Which year?,?\n"
    "nfd,Which cafe\u0301?,Cafe\u0301 Coffee Day\n"
    "mixed,Where?,D\u0435lhi\n"
    "first,Who wrote Gitanjali?,Tagore\n"
    "second,Who wrote  Gitanjali?,Rabindranath Tagore\n"
)


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    path = tmp_path / "gold.csv"
    path.write_text(GOLD, encoding="utf-8")
    return path


def test_each_check_finds_its_row(gold: Path) -> None:
    findings = lint(load_records(gold, need_responses=False))
    found = sorted((f.check, f.where.rsplit("(id ", 1)[1].rstrip(")"), f.severity) for f in findings)
    assert found == sorted(
        [
            ("whitespace", "spaced", WARNING),
            ("empty-golden", "empty", ERROR),
            ("empty-golden", "punct", ERROR),
            ("not-nfc", "nfd", WARNING),  # the answer
            ("not-nfc", "nfd", WARNING),  # the question
            ("mixed-script", "mixed", WARNING),
            ("conflicting-answers", "second", WARNING),  # same question once normalised, other answers
        ]
    )


def test_a_clean_file_has_no_findings(tmp_path: Path) -> None:
    path = tmp_path / "clean.csv"
    path.write_text(
        "question,answer\nCapital of India?,New Delhi\nभारत की राजधानी?,नई दिल्ली\n", encoding="utf-8"
    )
    assert lint(load_records(path, need_responses=False)) == []


def test_cli_prints_findings_and_exits_1_on_errors(gold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["lint", str(gold)], capsys)
    assert code == 1
    assert f"{gold} line 4 (id empty): error: golden answer '' has no words" in out
    assert "Fix: write the answer, or drop the row" in out
    assert out.splitlines()[-1] == f"assay lint: 2 errors, 5 warnings in 8 rows of {gold}"


def test_cli_exits_0_on_warnings_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "warn.jsonl"
    path.write_text('{"question": "q", "answers": [" Delhi "]}\n', encoding="utf-8")
    code, out, _ = run(["lint", str(path)], capsys)
    assert code == 0
    assert "warning: golden answer ' Delhi ' has leading or trailing whitespace" in out


def test_cli_bad_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["lint", str(tmp_path / "missing.csv")], capsys)
    assert code == 2
    assert err.startswith("assay: error: ")


def test_hard_fact_patterns_must_compile_and_find_their_own_golden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "facts.csv"
    path.write_text(
        "id,question,answer,pattern\nok,q1,30 days,30 days\nmiss,q2,24 hours,2024\nbad,q3,x,(oops\n",
        encoding="utf-8",
    )
    code, out, _ = run(["lint", str(path), "--regex-col", "pattern"], capsys)
    assert code == 1
    assert "(id miss): error: the expected_regex '2024' finds none of the golden answers ['24 hours']" in out
    assert "(id bad): error: the expected_regex '(oops' does not compile (missing ) at position 5)" in out
    assert "(id ok)" not in out


@pytest.mark.parametrize("column", ["source_quote", "context"])
def test_golden_answers_must_phrase_match_their_own_source_quote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str
) -> None:
    path = tmp_path / "gold.jsonl"
    rows = [
        ("ok", ["30 days"], "Claims are settled within 30 days of filing."),
        ("other", ["one month", "30 days"], "Claims are settled within 30 days."),  # one answer suffices
        ("inflected", ["हिमालय"], "यह हिमालयी पर्वत श्रृंखला है।"),  # not the word: an error, strictly
        ("missing", ["24 hours"], "Claims are settled within 2 days."),
        ("no-quote", ["anything"], ""),  # nothing quoted, nothing to check
    ]
    path.write_text(
        "".join(
            json.dumps({"id": id_, "question": "q", "answers": answers, column: quote}, ensure_ascii=False)
            + "\n"
            for id_, answers, quote in rows
        ),
        encoding="utf-8",
    )
    code, out, _ = run(["lint", str(path)], capsys)
    assert code == 1
    unsupported = [
        line for line in out.splitlines() if f"occurs in the row's {column} under phrase_match" in line
    ]
    assert [line.split("(id ")[1].split(")")[0] for line in unsupported] == ["inflected", "missing"]
