"""assay run (harness.run.run_gold) carries records: the gold file is read once, the answered records are
scored in memory (run.jsonl is never read back) and run.jsonl is written once, whole. Counted on a real
run of the in-process system of test_run_cli, with every open and rename of the process watched."""

from __future__ import annotations

import builtins
import io
import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_run_cli import SYSTEM, write_gold

from assay.errors import UsageError
from assay.harness.run import run_gold
from assay.harness.systems import load_system

WRITING = set("wax+")


class FileTally:
    """Every open (for reading or for writing) and every rename onto a path, by its real path."""

    def __init__(self) -> None:
        self.reads: Counter[Path] = Counter()
        self.writes: Counter[Path] = Counter()

    def opened(self, file: Any, mode: str) -> None:
        if isinstance(file, (str, os.PathLike)):
            kind = self.writes if WRITING & set(mode) else self.reads
            kind[Path(os.path.realpath(file))] += 1

    def renamed(self, target: Any) -> None:
        self.writes[Path(os.path.realpath(target))] += 1


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileTally]:
    """Count opens through io.open (Path.open, open) and atomic writes (os.replace) while a test runs."""
    found = FileTally()
    real_open, real_replace = io.open, os.replace

    def counted_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        found.opened(file, mode)
        return real_open(file, mode, *args, **kwargs)

    def counted_replace(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        found.renamed(target)
        real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(io, "open", counted_open)
    monkeypatch.setattr(builtins, "open", counted_open)
    monkeypatch.setattr(os, "replace", counted_replace)
    yield found


@pytest.mark.parametrize(
    ("more", "items"),
    [
        ([], 8),  # every item
        (["--scope", "acme__gold__wordings", "--limit", "3"], 3),  # the gold set filtered
    ],
)
def test_a_run_reads_the_gold_file_once_and_writes_run_jsonl_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tally: FileTally, more: list[str], items: int
) -> None:
    gold, out, bot = write_gold(tmp_path / "gold.jsonl", 8), tmp_path / "run", tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    tally.reads.clear()
    tally.writes.clear()
    code, _, stderr = run(
        ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out), *more], capsys
    )
    assert code == 0, stderr
    rows = out.resolve() / "run.jsonl"
    assert tally.reads[gold.resolve()] == 1 and tally.writes[gold.resolve()] == 0
    assert tally.writes[rows] == 1 and tally.reads[rows] == 0
    assert len(rows.read_text(encoding="utf-8").splitlines()) == items


def test_a_resumed_run_reads_the_gold_file_once_and_writes_run_jsonl_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tally: FileTally
) -> None:
    gold, out, bot = write_gold(tmp_path / "gold.jsonl", 6), tmp_path / "run", tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    first = (out / "run.jsonl").read_text(encoding="utf-8")
    tally.reads.clear()
    tally.writes.clear()
    code, _, stderr = run(argv, capsys)  # every answer from the journal
    assert code == 0 and "6 answered before" in stderr, stderr
    assert tally.reads[gold.resolve()] == 1 and tally.writes[(out / "run.jsonl").resolve()] == 1
    assert (out / "run.jsonl").read_text(encoding="utf-8") == first


def test_a_scoring_that_fails_leaves_the_answers_in_run_jsonl_without_verdicts(
    tmp_path: Path, tally: FileTally
) -> None:
    """As the journal does: the answers were paid for, and `assay score run.jsonl` can grade them later."""
    gold, out, bot = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run", tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    system = load_system(f"{bot}:answer", {}, None)
    with pytest.raises(UsageError, match="no_such_metric"):
        run_gold(gold, system, out, metrics=["hard_fact", "no_such_metric"])
    rows = [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == [f"item{n:02d}" for n in range(4)]
    assert rows[0]["response"] == "It is 10 days." and "hard_fact" not in rows[0] and "outcome" not in rows[0]
    assert tally.writes[(out / "run.jsonl").resolve()] == 1
