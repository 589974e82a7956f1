"""Progress in a log (issue 23): with stderr a pipe, as in CI, every long phase of a command says where it
is at least every PROGRESS_EVERY seconds ($ASSAY_PROGRESS_EVERY here, so a test need not wait 10 s), even
while nothing finishes: asking the system, then judging, with the time elapsed and the time left. Real
subprocesses, a real judge server on 127.0.0.1 that serves one request at a time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from slot_server import SlotServer, slot_server
from test_run_cli import SYSTEM, write_gold

SRC = Path(__file__).resolve().parents[2] / "src"
LINE = re.compile(r"^assay: (asking|judging|scoring[^:]*?) (\d+)/(\d+) (items|rows), (\w+) elapsed(, .*)?$")


def assay(*argv: str, every: str = "0.1") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "ASSAY_PROGRESS_EVERY": every}
    command = [sys.executable, "-m", "assay", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=180, check=False)


def progress_lines(stderr: str) -> list[tuple[str, int, int, str]]:
    found = [LINE.match(line) for line in stderr.splitlines()]
    return [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(6) or "") for m in found if m]


def test_a_run_in_a_log_says_its_progress_while_asking_and_while_judging(tmp_path: Path) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 3)
    bot = tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    with slot_server(SlotServer(slots=1, props=True, seconds=0.6)) as judge:
        done = assay(
            "run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(tmp_path / "run"),
            "--concurrency", "1", "--system-option", "pause=0.6",
            "--judge", f"openai:m@{judge.url}", "--judge-all", "--no-cache",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = progress_lines(done.stderr)
    asking = [line for line in lines if line[0] == "asking"]
    judging = [line for line in lines if line[0] == "judging"]
    # said again while no item finished: the line comes on the clock, not only when an item is done
    assert sum(line[1] == 0 for line in asking) >= 2, done.stderr
    assert sum(line[1] == 0 for line in judging) >= 2, done.stderr
    assert asking[-1][1:3] == (3, 3) and judging[-1][1:3] == (3, 3)
    assert any(left.startswith(", about ") and left.endswith(" left") for *_, left in asking[1:]), done.stderr
    assert lines.index(asking[-1]) < lines.index(judging[0])  # asked first, then judged


def test_assay_score_in_a_log_says_its_judging_progress(tmp_path: Path) -> None:
    responses = tmp_path / "answers.csv"
    responses.write_text(
        "id,question,answer,response\n1,Capital?,Delhi,Delhi\n2,River?,Ganga,the Yamuna\n", encoding="utf-8"
    )
    with slot_server(SlotServer(slots=1, props=True, seconds=0.6)) as judge:
        done = assay(
            "score", "--responses", str(responses), "--metric", "judge",
            "--judge", f"openai:m@{judge.url}", "--no-cache",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    judging = [line for line in progress_lines(done.stderr) if line[0] == "judging"]
    assert sum(line[1] == 0 for line in judging) >= 2, done.stderr
    assert judging[-1][1:] == (2, 2, "")  # its end, said once
    assert "\r" not in done.stderr  # lines for a log, not a terminal's bar


def test_a_quick_run_in_a_log_says_no_more_than_before(tmp_path: Path) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 2)
    bot = tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    done = assay(
        "run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(tmp_path / "run"), every="60"
    )
    assert done.returncode == 0, done.stderr
    assert [line[:3] for line in progress_lines(done.stderr)] == [("asking", 2, 2)]  # its end only


def test_an_interval_that_is_not_seconds_is_a_usage_error(tmp_path: Path) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 2)
    bot = tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    done = assay(
        "run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(tmp_path / "run"), every="0"
    )
    assert done.returncode == 2 and "ASSAY_PROGRESS_EVERY='0' is not a number of seconds" in done.stderr
    assert not (tmp_path / "asked.log").exists()  # said before anything was asked
