"""A run's folder run again (re-graded from its journal, or resumed) keeps the earlier run's rows and
reports under a number (run.1.jsonl, results.1.md, ...; the next time 2), says so on stderr, and a kept
run is still a run that assay compare reads, with the signatures of its own results.N.json."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run
from test_run_cli import SYSTEM, write_gold

from assay.harness.earlier import keep_earlier, next_number, numbered, results_beside

REPORTS = ("run.jsonl", "results.json", "results.md", "results.html")


@pytest.fixture
def system(tmp_path: Path) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    return path


def test_running_a_folder_again_keeps_the_earlier_reports_numbered_and_says_where(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    first = {name: (out / name).read_bytes() for name in REPORTS}

    code, _, stderr = run(argv, capsys)  # every item in the journal: graded again, nothing asked
    assert code == 0 and "asked 0 items" in stderr
    # a changed bot behind the same address is not asked by a re-run: said, with the way to ask it
    assert (
        "4 of 4 items answered before (the journal): not asked again; their replies are graded anew" in stderr
    )
    assert "give --fresh to ask the system again" in stderr
    for name in REPORTS:
        assert (out / numbered(name, 1)).read_bytes() == first[name]  # the earlier run's, byte for byte
        assert (out / name).exists()  # and this run's own
    assert "kept the earlier run's run.jsonl, results.json, results.md, results.html" in stderr
    assert f"in {out} as run.1.jsonl, results.1.json, results.1.md, results.1.html" in stderr

    code, _, stderr = run(argv, capsys)
    assert code == 0 and "as run.2.jsonl, results.2.json" in stderr
    assert (out / "results.1.md").read_bytes() == first["results.md"]  # never written over


def test_a_first_run_keeps_nothing_and_says_nothing_of_it(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "run"
    code, _, stderr = run(
        ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)], capsys
    )
    assert code == 0 and "kept" not in stderr
    assert sorted(path.name for path in out.iterdir()) == sorted([*REPORTS, "journal.jsonl"])


def test_a_kept_run_compares_with_the_newest_reading_its_own_signatures(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    assert run(argv, capsys)[0] == 0
    code, stdout, stderr = run(["compare", str(out / "run.1.jsonl"), str(out)], capsys)
    assert code == 0, stderr
    assert "no results.json beside it" not in stderr  # results.1.json was read for the kept run
    assert "factual" in stdout


def test_numbers_only_grow_past_a_gap_and_pair_rows_with_their_results(tmp_path: Path) -> None:
    (tmp_path / "results.3.md").write_text("an earlier run's\n", encoding="utf-8")
    (tmp_path / "results.md").write_text("the last run's\n", encoding="utf-8")
    (tmp_path / "notes.7.md").write_text("not a run's\n", encoding="utf-8")
    assert next_number(tmp_path) == 4
    kept = keep_earlier(tmp_path)
    assert kept is not None and kept.number == 4 and list(kept.renamed) == ["results.md"]
    assert (tmp_path / "results.4.md").read_text(encoding="utf-8") == "the last run's\n"
    assert keep_earlier(tmp_path) is None  # nothing left to keep
    assert results_beside(tmp_path / "run.4.jsonl") == tmp_path / "results.4.json"
    assert results_beside(tmp_path / "run.jsonl") == tmp_path / "results.json"
