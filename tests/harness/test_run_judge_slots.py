"""assay run with a judge on a one-slot local server (issue 23): the run's judge is sent no more requests
at once than the server reports (llama.cpp's GET /props), and a server that reports nothing but answers
503 when busy is sent fewer once it does, said once on stderr; either way every item is decided by the
judge, none runs out its deadline or its retries. Real servers on 127.0.0.1 (tests/support)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run
from slot_server import SlotServer, slot_server
from test_run_cli import SYSTEM, rows_of, write_gold

ITEMS = 12


def judged_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], server: SlotServer) -> tuple[str, Path]:
    gold, out = write_gold(tmp_path / "gold.jsonl", ITEMS), tmp_path / "run"
    bot = tmp_path / "bot.py"
    bot.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    with slot_server(server):
        judge = f"openai:m@{server.url},timeout=2,retries=1,backoff=0.01"
        argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
        code, _, stderr = run(
            [*argv, "--judge", judge, "--judge-all", "--no-cache", "--concurrency", "8"], capsys
        )
    assert code in (0, 1), stderr  # graded: the gate's verdict is not the point here
    return stderr, out


def judged_items(out: Path) -> int:
    # item 5 is a system_error (the bot raises): no judge is asked about it
    return sum(row["decided_by"] == "judge" for row in rows_of(out))


def test_a_server_reporting_one_slot_never_holds_more_than_one_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = SlotServer(slots=1, busy=503, props=True, seconds=0.05)
    stderr, out = judged_run(tmp_path, capsys, server)
    assert server.most_at_once == 1 and server.turned_away == 0
    assert judged_items(out) == ITEMS - 1 and "unscored" not in {row["outcome"] for row in rows_of(out)}
    assert "turned requests away" not in stderr


def test_a_busy_server_that_reports_nothing_is_sent_fewer_and_every_item_is_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = SlotServer(slots=1, busy=503, seconds=0.05)
    stderr, out = judged_run(tmp_path, capsys, server)
    assert server.turned_away > 0  # it was sent eight at first
    assert judged_items(out) == ITEMS - 1 and "unscored" not in {row["outcome"] for row in rows_of(out)}
    assert stderr.count("assay: warning: the judge openai:m@127.0.0.1:") == 1
    assert "turned requests away (HTTP 503) with 8 at once: sending it 4 at once now" in stderr


def test_a_busy_system_is_asked_fewer_questions_at_once_and_every_item_is_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", ITEMS), tmp_path / "run"
    with slot_server(SlotServer(slots=1, busy=503, seconds=0.05)) as server:
        argv = ["run", "--gold", str(gold), "--system", f"openai:{server.url}", "--system-option", "model=m"]
        code, _, stderr = run([*argv, "--out", str(out), "--concurrency", "8", "--retries", "1"], capsys)
    assert code in (0, 1), stderr
    assert server.turned_away > 0  # asked eight at once at first
    assert not [row["id"] for row in rows_of(out) if row["outcome"] == "system_error"]  # none lost to 503s
    assert stderr.count("assay: warning: the system answered HTTP 503 with 8 questions at once") == 1
