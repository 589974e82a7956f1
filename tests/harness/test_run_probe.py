"""assay run against systems and gold sets written to break it: a disk that fills while the journal is
written, scopes that are numbers, gold items without a question, a system that prints, one that raises
what is not an Exception, and replies too deep to show."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_run_cli import gold_item, write_gold

SRC = Path(__file__).resolve().parents[2] / "src"


def rows_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]


def write_system(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "probe_bot.py"
    path.write_text(body, encoding="utf-8")
    return path


# --- a disk that fills -------------------------------------------------------------------------

# `assay run` with the size a process may write capped (RLIMIT_FSIZE: a write past it fails with EFBIG,
# as one on a full disk fails with ENOSPC), SIGXFSZ ignored so that the write fails rather than the process.
CAPPED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({cap}, {cap}))
from assay.cli import main
sys.exit(main(sys.argv[1:]))
"""

LONG_REPLY = 'def answer(question, scope=None):\n    return "10 days " + "x" * 3000\n'


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_journal_that_cannot_be_written_is_a_write_error_and_the_journal_keeps_only_whole_lines(
    tmp_path: Path,
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 8), tmp_path / "run"
    bot = write_system(tmp_path, LONG_REPLY)
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-c", CAPPED.format(cap=10_000), *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2, done.stderr
    assert "could not write this file" in done.stderr and "internal error" not in done.stderr
    lines = (out / "journal.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""  # it ends with a whole line
    assert all(json.loads(line) for line in lines[:-1])
    assert len(lines) - 2 < 8  # some items were not journaled: the disk was full


# --- the gold set --------------------------------------------------------------------------------

ECHO = "def answer(question, scope=None):\n    return {'text': f'{type(scope).__name__} {scope}'}\n"


def test_a_scope_written_as_a_number_reaches_the_system_as_text_and_is_selected_by_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    items = [gold_item(0) | {"scope": 7}, gold_item(1) | {"scope": 8}]
    gold.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    bot, out = write_system(tmp_path, ECHO), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out), "--scope", "7"]
    code, _, stderr = run(argv, capsys)
    assert code == 0, stderr
    rows = rows_of(out)
    assert [row["id"] for row in rows] == ["item00"]
    assert rows[0]["response"] == "str 7" and rows[0]["scope"] == 7  # the item's own key as it was


@pytest.mark.parametrize("question", [None, "", "   ", 42])
def test_an_item_without_a_question_is_refused_before_the_system_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], question: object
) -> None:
    gold = tmp_path / "gold.jsonl"
    items = [gold_item(0), gold_item(1) | {"question": question}]
    gold.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    bot, out = write_system(tmp_path, ECHO), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    code, _, stderr = run(argv, capsys)
    assert code == 2
    assert "line 2" in stderr and "item01" in stderr and "question" in stderr
    assert not (out / "journal.jsonl").exists() or "item" not in (out / "journal.jsonl").read_text()


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ([], "empty"),
        ([gold_item(0), gold_item(1), gold_item(0)], "duplicate id"),
    ],
)
def test_a_gold_set_that_cannot_be_run_names_a_fix_assay_run_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[dict[str, Any]], said: str
) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(item) + "\n" for item in lines), encoding="utf-8")
    bot, out = write_system(tmp_path, ECHO), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    code, _, stderr = run(argv, capsys)
    assert code == 2 and said in stderr
    assert "--responses" not in stderr and "--allow-duplicate-ids" not in stderr  # flags of assay score


# --- systems that misbehave in process --------------------------------------------------------------

PRINTS = """
import sys

def answer(question, scope=None):
    print("retrieved 3 chunks for", scope)
    return "10 days"
"""


def test_what_a_system_prints_goes_to_stderr_and_leaves_the_headline_on_stdout_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "run"
    bot = write_system(tmp_path, PRINTS)
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    code, stdout, stderr = run(argv, capsys)
    assert code == 0, stderr
    assert "retrieved 3 chunks" not in stdout and stdout.startswith("# assay run")
    assert "retrieved 3 chunks for acme__gold__wordings" in stderr


RAISES = """
import asyncio

def sync_interrupt(question, scope=None):
    raise KeyboardInterrupt

def sync_generator_exit(question, scope=None):
    raise GeneratorExit

async def async_generator_exit(question, scope=None):
    raise GeneratorExit

def deep(question, scope=None):
    nested = []
    for _ in range(100_000):
        nested = [nested]
    return {"text": "10 days", "citations": nested}
"""


@pytest.mark.parametrize(
    ("function", "error"),
    [
        ("sync_interrupt", "raised KeyboardInterrupt"),
        ("sync_generator_exit", "raised GeneratorExit"),
        ("async_generator_exit", "raised GeneratorExit"),
        ("deep", "malformed reply: field 'citations' item 0 must be a text or a mapping, found a list [["),
    ],
)
def test_what_a_system_raises_or_returns_is_its_items_error_never_the_runs_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], function: str, error: str
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "run"
    bot = write_system(tmp_path, RAISES)
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:{function}", "--out", str(out)]
    code, _, stderr = run(argv, capsys)
    assert code == 2 and "every one of the 2 items is a system error" in stderr, stderr  # not a crash
    errors = [row["reply"]["error"] for row in rows_of(out)]
    assert len(errors) == 2 and all(found.startswith(error) for found in errors), errors


# --- outputs of an earlier run ----------------------------------------------------------------------

DIES = """
import os

def answer(question, scope=None, die="no"):
    if die == "yes" and "period 2" in question:
        os._exit(9)  # the process ends here, as under kill -9
    return "10 days"
"""


def test_a_run_that_dies_leaves_no_reports_of_the_earlier_run_beside_its_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 6), tmp_path / "run"
    bot = write_system(tmp_path, DIES)
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0 and (out / "results.md").exists()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    again = ["--fresh", "--system-option", "die=yes", "--concurrency", "1"]
    command = [sys.executable, "-m", "assay", *argv, *again]
    died = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert died.returncode == 9, died.stderr
    left = sorted(path.name for path in out.iterdir())
    # run.jsonl and results.* were the other system's answers: kept as an earlier run's, never as this one's
    kept = ["results.1.html", "results.1.json", "results.1.md", "run.1.jsonl"]
    assert left == ["journal.jsonl", *kept]


# --- progress --------------------------------------------------------------------------------------------

class Terminal(io.StringIO):
    """A text stream that says it is a terminal, as stderr does in a shell."""

    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_says_the_time_left_is_not_known_before_an_item_is_done() -> None:
    from assay.cli.run import RunProgress

    stream = Terminal()
    progress = RunProgress(stream)
    progress(0, 8)
    progress.close()
    first = stream.getvalue().split("\r")[1]
    assert first.startswith("assay: asking [") and "0/8 items" in first
    assert "0 s left" not in first and "items, ? left" in first  # tqdm's word for not known yet


MOVES = """
import os

def answer(question, scope=None, to="."):
    os.chdir(to)  # a system that moves the working folder (to its index's, say)
    return "10 days"
"""


def test_a_system_that_changes_the_working_folder_does_not_move_the_runs_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_gold(tmp_path / "gold.jsonl", 2)
    write_system(tmp_path, MOVES)
    (tmp_path / "index").mkdir()
    monkeypatch.chdir(tmp_path)  # relative paths, as a user types them
    argv = ["run", "--gold", "gold.jsonl", "--system", "probe_bot.py:answer", "--out", "run"]
    code, _, stderr = run([*argv, "--system-option", f"to={tmp_path / 'index'}"], capsys)
    assert code == 0, stderr
    assert (tmp_path / "run" / "results.md").exists() and not (tmp_path / "index" / "run").exists()
    assert Path.cwd() == tmp_path
