"""assay lint on a gold set: its own patterns, refusal items, contradictions, and quotes re-verified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_gold_records import ITEM, REFUSAL

from assay.lint import ERROR, WARNING, lint
from assay.records import load_records


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
    assert "0 errors, 0 warnings in 1 row " in done.stdout


POLICY = "Section 4.\nA Grace Period of 30 days is allowed for renewal.\n"


def sourced_item(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A gold set whose one item quotes `POLICY` (as built), and a sources folder holding `text`."""
    from assay.documents import file_sha256

    sources = tmp_path / "sources" / "acme"
    sources.mkdir(parents=True)
    (sources / "policy.txt").write_text(POLICY, encoding="utf-8")
    start = POLICY.index("Grace Period of 30 days")
    source = {
        "document": "acme__policy",
        "path": "acme/policy.txt",
        "sha256": file_sha256(sources / "policy.txt"),
        "page": 1,
        "end_page": 1,
        "span": [start, start + len("Grace Period of 30 days")],
        "quote": "Grace Period of 30 days",
        "match_level": "exact",
    }
    (sources / "policy.txt").write_text(text, encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({**ITEM, "source": source}) + "\n", encoding="utf-8")
    return gold, tmp_path / "sources"


def lint_with_sources(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    gold, sources = sourced_item(tmp_path, text)
    command = [sys.executable, "-m", "assay", "lint", str(gold), "--sources", str(sources), "--no-cache"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_a_quote_still_in_its_unchanged_source_is_fine(tmp_path: Path) -> None:
    done = lint_with_sources(tmp_path, POLICY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors, 0 warnings in 1 row " in done.stdout


def test_a_quote_gone_from_a_reissued_source_is_an_error(tmp_path: Path) -> None:
    done = lint_with_sources(tmp_path, "Section 4.\nA Grace Period of 15 days is allowed for renewal.\n")
    assert done.returncode == 1
    assert "warning: " in done.stdout and "is not the file the gold set was built from" in done.stdout
    gone = "error: the item's quote 'Grace Period of 30 days' is no longer found in acme/policy.txt"
    assert gone in done.stdout


def test_a_quote_that_moved_is_a_warning_with_its_new_place(tmp_path: Path) -> None:
    moved = "Preface.\n" + POLICY.replace("Grace Period", "grace period")
    done = lint_with_sources(tmp_path, moved)
    assert done.returncode == 0, done.stdout
    start = moved.index("grace period")
    assert f"now found in acme/policy.txt on page 1, span [{start}, {start + 23}] (normalised)" in done.stdout


def test_an_item_whose_source_is_not_among_the_sources_is_an_error(tmp_path: Path) -> None:
    gold, sources = sourced_item(tmp_path, POLICY)
    (sources / "acme" / "policy.txt").unlink()
    (sources / "other.txt").write_text("unrelated", encoding="utf-8")
    command = [sys.executable, "-m", "assay", "lint", str(gold), "--sources", str(sources), "--no-cache"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "error: the item's source 'acme/policy.txt' is not among the sources" in done.stdout
