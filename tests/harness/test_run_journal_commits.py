"""The journal commits in groups: `assay run` in a subprocess whose os.write and os.fsync of the journal
are logged (a wrapper records each call on the journal's descriptor, then makes it). The run writes a
line per item and fsyncs a group of them at most once a second while it asks, and once more when it
stops: at the end, and on Ctrl-C."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from test_run_cli import write_gold

from assay.harness.journal import COMMIT_EVERY, JOURNAL_NAME

ROOT = Path(__file__).resolve().parents[2]

# The system: each answer after `pause` seconds; from item `hang_from` on, no answer for a minute.
SYSTEM = """
import time


def answer(question, scope=None, pause="0", hang_from="100000"):
    number = int("".join(ch for ch in question if ch.isdigit()))
    time.sleep(60 if number >= int(hang_from) else float(pause))
    return {"text": f"It is {10 * (number + 1)} days."}
"""

# The CLI with os.write and os.fsync of the journal logged, as (call, monotonic seconds) lines.
LOGGED_CLI = """
import json, os, sys, time

LOG, JOURNAL = sys.argv[1], sys.argv[2]
real_write, real_fsync = os.write, os.fsync
log = open(LOG, "a", encoding="utf-8")


def journal(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == JOURNAL
    except OSError:
        return False


def logged(name, real):
    def call(fd, *args):
        if journal(fd):
            log.write(json.dumps([name, time.monotonic()]) + "\\n")
            log.flush()
        return real(fd, *args)
    return call


os.write, os.fsync = logged("write", real_write), logged("fsync", real_fsync)
from assay.cli import main

sys.exit(main(sys.argv[3:]))
"""


def run_logged(tmp_path: Path, items: int, *options: str) -> tuple[subprocess.Popen[str], Path, Path]:
    """`assay run` of `items` gold items started in a subprocess; the process, its journal and its log."""
    system = tmp_path / "bot.py"
    system.write_text(SYSTEM, encoding="utf-8")
    gold, out, log = write_gold(tmp_path / "gold.jsonl", items), tmp_path / "run", tmp_path / "calls.log"
    out.mkdir()
    journal = out / JOURNAL_NAME
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out), *options]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(
        [sys.executable, "-c", LOGGED_CLI, str(log), str(journal.resolve()), *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    return process, journal, log


def calls(log: Path) -> list[tuple[str, float]]:
    return [tuple(json.loads(line)) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_run_commits_its_lines_in_groups_at_most_once_a_second_and_at_the_end(tmp_path: Path) -> None:
    # 60 items, two at a time, 0.08 s each: the asking lasts 2.4 s at the least
    process, journal, log = run_logged(tmp_path, 60, "--concurrency", "2", "--system-option", "pause=0.08")
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    made = calls(log)
    writes = [at for call, at in made if call == "write"]
    fsyncs = [at for call, at in made if call == "fsync"]
    assert len(writes) == 1 + 60  # the header, then a line per item
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 61
    assert 2 <= len(fsyncs) < len(writes) / 10  # never an fsync a line
    assert fsyncs[-1] > writes[-1]  # the last lines committed when the asking ended
    assert fsyncs[0] < writes[-1]  # and lines committed while it went on (not only at the end)
    while_asking = [at for at in fsyncs if at < writes[-1]]
    gaps = [later - earlier for earlier, later in itertools.pairwise(while_asking)]
    assert all(gap >= COMMIT_EVERY * 0.99 for gap in gaps), gaps  # at most one commit a second


def test_a_run_stopped_by_ctrl_c_commits_what_it_wrote(tmp_path: Path) -> None:
    # items 0-5 answered at once, the rest never (within the test): Ctrl-C once six lines are written
    process, journal, log = run_logged(
        tmp_path, 12, "--concurrency", "2", "--system-option", "hang_from=6", "--timeout", "120"
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 1 + 6:
            break
        time.sleep(0.02)
    assert process.poll() is None, process.stderr.read() if process.stderr else ""
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    made = calls(log)
    last_write = max(at for call, at in made if call == "write")
    assert any(call == "fsync" and at > last_write for call, at in made)  # committed on the way out
    lines = journal.read_text(encoding="utf-8").splitlines()
    # two at once: the lines come in the order the replies did
    assert sorted(json.loads(line)["id"] for line in lines[1:]) == [f"item{n:02d}" for n in range(6)]


def test_the_logged_calls_are_those_of_the_journal_only(tmp_path: Path) -> None:
    """The wrapper above logs the journal's descriptor, not every write of the process (a guard for the
    two tests: their counts would mean nothing otherwise)."""
    process, _, log = run_logged(tmp_path, 3)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    writes: list[Any] = [at for call, at in calls(log) if call == "write"]
    assert len(writes) == 1 + 3
