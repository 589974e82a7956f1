"""assay run --labels: each metric's accuracy calibrated on people's labels of the replies (the file
assay view saves), only where the labelled reply is the one this run graded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run
from test_run_cli import SYSTEM, rows_of, write_gold

ITEMS = 60


@pytest.fixture
def system(tmp_path: Path) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    return path


def right_days(question: str) -> str:
    """What a right reply names: the gold's days for the item the question asks of."""
    number = int("".join(ch for ch in question if ch.isdigit()))
    return f"{10 * (number + 1)} days"


def test_a_run_calibrates_on_labels_of_unchanged_replies(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", ITEMS)
    out = tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run([*argv, "--max-system-errors", "1"], capsys)[0] in (0, 1)
    rows = rows_of(out)
    # a person marks 40 replies: correct where the reply names the golden days; one mark is of a reply
    # the system has since changed (the file keeps the reply marked), which must be left out
    marked = []
    for row in rows[:40]:
        right = right_days(row["question"]) in row["response"] or "network" in row["question"]
        marked.append(row | {"human_label": "correct" if right else "incorrect"})
    marked[0]["response"] = "an older reply"
    labels = tmp_path / "human_labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in marked), encoding="utf-8")
    code, printed, _ = run([*argv, "--max-system-errors", "1", "--labels", str(labels)], capsys)
    assert code in (0, 1)
    assert "accuracy calibrated on the human labels in 'human_label' of" in printed
    assert f"39 of {ITEMS}" in printed  # 40 marks, one of another reply
    assert f"1 label(s) in {labels} were given to another reply than this one and are left out" in printed


def test_a_missing_labels_file_is_said_before_the_system_is_asked(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 4)
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(tmp_path / "run")]
    code, _, err = run([*argv, "--labels", str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "no such file" in err
    assert not (tmp_path / "asked.log").exists()
