"""A run checks its judge chain before the first question (issue 22): a judge that does not answer is
exit 2 before the system (a real HTTP endpoint on 127.0.0.1, counting requests) is asked anything."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_run import run
from reply_server import Reply as Sent
from reply_server import reply_server
from test_judge_uncounted import Reported, judge_server
from test_run_cli import write_gold

from conftest import free_port


@dataclass
class System:
    """An http system on 127.0.0.1 that answers every question "30 days": its spec, and how often it
    was asked."""

    spec: str = ""
    asked: int = 0


@pytest.fixture
def system() -> Iterator[System]:
    found, lock = System(), threading.Lock()

    def answer(request: bytes) -> Sent:
        with lock:  # the server answers each request in a thread of its own
            found.asked += b"assay probe:" not in request  # the run's check of the system is no item
        return Sent(body=json.dumps({"text": "30 days"}).encode())

    with reply_server() as server:
        server.reply = answer
        found.spec = f"http:{server.url}/ask"
        yield found


def dead_judge() -> str:
    return f"openai:m@http://127.0.0.1:{free_port()}/v1"  # nothing listens there


@pytest.mark.parametrize("chain", [[dead_judge()], [dead_judge(), dead_judge()]], ids=["one", "two"])
def test_a_chain_with_no_judge_up_is_refused_before_the_system_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: System, chain: list[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 6), tmp_path / "run"
    judges = [flag for spec in chain for flag in ("--judge", spec)]
    argv = ["run", "--gold", str(gold), "--system", system.spec, "--out", str(out), "--no-cache", *judges]
    code, stdout, stderr = run(argv, capsys)
    assert code == 2 and stdout == ""
    assert stderr.startswith("assay: error: the judge endpoint http://127.0.0.1:") and stderr.count("\n") == 1
    assert "does not answer" in stderr and "before the system is asked anything" in stderr
    assert system.asked == 0
    assert not (out / "run.jsonl").exists()


def test_a_chain_with_one_judge_up_runs_on_the_judge_that_is_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: System
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    with judge_server(Reported({"prompt_tokens": 5, "completion_tokens": 1})) as url:
        judges = ["--judge", dead_judge(), "--judge", f"openai:m@{url}", "--judge-all"]
        argv = ["run", "--gold", str(gold), "--system", system.spec, "--out", str(out), "--no-cache", *judges]
        code, _, stderr = run(argv, capsys)
    assert code in (0, 1), stderr  # graded: the gate's verdict is not the point here
    assert system.asked == 4
    assert "- decided by: the matchers 0, the judge 4 " in (out / "results.md").read_text(encoding="utf-8")
