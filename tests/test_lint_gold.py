"""assay lint on a gold set: its own patterns, refusal items, contradictions, and quotes re-verified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.lint import ERROR, WARNING, lint
from assay.records import load_records
from test_gold_records import ITEM, REFUSAL


def findings_of(tmp_path: Path, *items: dict[str, object]) -> list[tuple[str, str, str]]:
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    dataset = load_records(path, allow_duplicate_ids=True, need_responses=False)
    return [(f.severity, f.check, f.where.rsplit("(id ", 1)[1].rstrip(")")) for f in lint(dataset)]


def test_a_sound_gold_set_has_no_findings(tmp_path: Path) -> None:
    assert findings_of(tmp_path, ITEM, REFUSAL) == []


def test_a_pattern_missing_its_own_answer_is_an_error(tmp_path: Path) -> None:
    broken = {**ITEM, "expected_regex": "(?:60|sixty) days"}
    assert findings_of(tmp_path, broken) == [(ERROR, "pattern-misses-golden", "b2")]


@pytest.mark.parametrize(
    "change",
    [
        {"source": ITEM["source"]},
        {"expected_value": {"value": 30, "unit": "day"}},
        {"expected_regex": "30 days"},
    ],
)
def test_a_refusal_item_with_a_source_value_or_pattern_is_an_error(
    tmp_path: Path, change: dict[str, object]
) -> None:
    found = findings_of(tmp_path, {**REFUSAL, **change})
    assert (ERROR, "refusal-with-source", "r1") in found


def test_the_same_question_with_two_answers_is_an_error_in_a_gold_set(tmp_path: Path) -> None:
    other = {**ITEM, "id": "b3", "expected_answer": "15 days", "expected_regex": "15 days"}
    assert findings_of(tmp_path, ITEM, other) == [(ERROR, "conflicting-answers", "b3")]


def test_the_same_question_of_two_scopes_is_no_contradiction(tmp_path: Path) -> None:
    other = {**ITEM, "id": "b3", "scope": "other__policy", "expected_answer": "15 days"}
    other["expected_regex"] = "15 days"
    assert findings_of(tmp_path, ITEM, other) == []


def test_plain_rows_still_get_a_warning_only(tmp_path: Path) -> None:
    rows = [{"id": "1", "question": "q?", "answer": "a"}, {"id": "2", "question": "q?", "answer": "b"}]
    assert findings_of(tmp_path, *rows) == [(WARNING, "conflicting-answers", "2")]


def test_the_cli_says_quotes_were_not_checked_without_sources(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(ITEM) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "assay", "lint", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "pass --sources DIR" in done.stderr
    assert "0 errors, 0 warnings in 1 rows" in done.stdout
