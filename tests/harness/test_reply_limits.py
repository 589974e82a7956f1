"""The bounds on a system's reply (issue 22), against real systems: a server on 127.0.0.1 that sends a
body that never ends, a Content-Length of 100 MB, 200,000 citations or 50,000 contexts; a Python
function in process that returns as much. Each is one item's ``system_error`` naming the limit, found
in seconds and a bounded amount of memory, and every other item of the run is answered as usual.
Assay's own reading of a reply is never the system's time, nor blamed on it."""

from __future__ import annotations

import asyncio
import json
import re
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from budget import LOADED, SECOND, assert_within
from cli_run import run
from reply_server import Reply as Sent
from reply_server import ReplyServer, reply_server
from test_run_cli import rows_of, write_gold

from assay.harness.runner import CallTimedOut, RunOptions, ask_item, within
from assay.harness.systems import SystemFailure, answer_from, load_system
from assay.harness.systems.base import System, reply_arrived
from assay.harness.systems.limits import MAX_BODY_BYTES, MAX_CITATIONS, MAX_CONTEXTS, MAX_REPLY_CHARS
from assay.records import Record

MB = 1_000_000
T = TypeVar("T")
TOO_MANY = {
    "citations": {"text": "30 days", "citations": ["a"] * 200_000},
    "contexts": {"text": "30 days", "contexts": [{"document": "d", "text": "a passage"}] * 50_000},
}
TOO_MANY_REASON = {
    "citations": f"the reply has 200,000 citations, more than the {MAX_CITATIONS:,} a reply may have",
    "contexts": f"the reply has 50,000 contexts, more than the {MAX_CONTEXTS:,} a reply may have",
}


@pytest.fixture
def server() -> Iterator[ReplyServer]:
    with reply_server() as found:
        yield found


def item_number(request: bytes) -> int:
    """The gold item a request asks, in a plain JSON body or a chat's messages (test_run_cli's
    questions hold their number: "waiting period 1", "in town 3")."""
    found = re.search(rb"(?:period|town) (\d+)", request)
    assert found is not None, request
    return int(found.group(1))


ANSWER = {"text": "It is 10 days."}
COMPLETION = {"choices": [{"message": {"content": "It is 10 days."}}]}


def answers_but(number: int, sent: Sent, answer: dict[str, Any] = ANSWER) -> Any:
    """A server's reply: `sent` to item `number`, `answer` to the others."""
    fine = Sent(body=json.dumps(answer).encode())
    # the run's check before the first item (its question has no number) is answered as the others are
    return lambda request: sent if b"assay probe" not in request and item_number(request) == number else fine


def peak_allocated_mb(call: Callable[[], T]) -> tuple[T, float]:
    """What `call` returns, and the most memory Python held for it at once, in MB. Traced allocations,
    not the process's peak RSS: a test process that already peaked higher would hide any growth."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()


def run_system(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: str, timeout: str, *options: str
) -> dict[str, dict[str, Any]]:
    """`assay run` of three items (item01 the hostile one) with the system: each row by its id."""
    gold, out = write_gold(tmp_path / "gold.jsonl", 3), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", system, "--out", str(out), "--timeout", timeout]
    argv += ["--max-system-errors", "1"]  # item01 is a system error: the point here, not a gate's
    code, _, stderr = run([*argv, "--retries", "0", "--concurrency", "2", *options], capsys)
    assert code == 0, stderr
    return {row["id"]: row for row in rows_of(out)}


def test_an_endless_body_is_cut_at_the_limit_and_the_run_goes_on(
    tmp_path: Path, server: ReplyServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.reply = answers_but(1, Sent(body=b'{"text": "', endless=True))
    rows, peak = peak_allocated_mb(lambda: run_system(tmp_path, capsys, f"http:{server.url}/ask", "60"))
    # Not the 60 s timeout but the limit, reached at once: the reason below says which, and the server's
    # bytes sent say how far it was read (no clock: a loaded machine took 132 s over the three items).
    assert peak < 300  # the issue saw 3.3-4.1 GB for this one item
    assert server.finished.wait(10) and server.sent < 50 * MB  # the rest was never read
    assert rows["item01"]["reply"]["error"] == f"reply body over {MAX_BODY_BYTES:,} bytes (read no further)"
    assert rows["item01"]["outcome"] == "system_error"
    assert rows["item01"]["reply"]["raw"].startswith('{"text": "')  # what came first: the trace
    assert [rows[f"item{n:02d}"]["response"] for n in (0, 2)] == ["It is 10 days."] * 2


def ask_once(system: System) -> Any:
    async def once() -> Any:
        try:
            return await system.ask("What is the grace period?", "policy")
        finally:
            await system.aclose()

    return asyncio.run(once())


def http_system(server: ReplyServer, kind: str) -> System:
    if kind == "openai":
        return load_system(f"openai:{server.url}/v1", {"model": "m"})
    return load_system(f"http:{server.url}/ask")


@pytest.mark.parametrize("kind", ["http", "openai"])
def test_a_content_length_past_the_limit_is_refused_before_the_body_is_read(
    server: ReplyServer, kind: str
) -> None:
    server.reply = Sent(body=b'{"text": "', declared=100 * MB)
    started = time.monotonic()
    with pytest.raises(SystemFailure) as failure:
        ask_once(http_system(server, kind))
    assert failure.value.reason == (
        f"reply body over {MAX_BODY_BYTES:,} bytes: its Content-Length is 100,000,000 (refused unread)"
    )
    assert time.monotonic() - started < 20  # refused unread: not the default timeout's wait for 100 MB
    assert server.finished.wait(10) and server.sent < 30 * MB  # what the sockets' buffers took, no more


@pytest.mark.parametrize("many", ["citations", "contexts"])
@pytest.mark.parametrize("kind", ["in process", "http", "openai"])
def test_200000_citations_or_50000_contexts_are_the_items_system_error_found_at_once(
    tmp_path: Path, server: ReplyServer, capsys: pytest.CaptureFixture[str], kind: str, many: str
) -> None:
    reply = TOO_MANY[many]
    if kind == "openai":
        completion = {"choices": [{"message": {"content": "30 days"}}], **reply}
        server.reply = answers_but(1, Sent(body=json.dumps(completion).encode()), COMPLETION)
        system = f"openai:{server.url}/v1"
    elif kind == "http":
        server.reply = answers_but(1, Sent(body=json.dumps(reply).encode()))
        system = f"http:{server.url}/ask"
    else:  # a plain def, as the issue's: its reply was parsed past the timeout and blamed on "async def"
        bot = tmp_path / "bot.py"
        bot.write_text(
            "import json\n"
            f"MANY = json.loads({json.dumps(json.dumps(reply))})\n"
            "def answer(question, scope=None, model=None):\n"
            "    return MANY if '1' in question else 'It is 10 days.'\n",
            encoding="utf-8",
        )
        system = f"{bot}:answer"
    started = time.monotonic()
    options = ["--system-option", "model=m"] if kind == "openai" else []
    rows = run_system(tmp_path, capsys, system, "5", *options)
    assert time.monotonic() - started < 30  # a loaded machine's room; the reason below says it was no timeout
    assert rows["item01"]["reply"]["error"] == TOO_MANY_REASON[many]
    assert rows["item01"]["outcome"] == "system_error"
    assert [rows[f"item{n:02d}"]["response"] for n in (0, 2)] == ["It is 10 days."] * 2


def test_reading_a_reply_after_it_came_is_never_the_systems_time() -> None:
    """The system replied at once; assay's reading of it (standing in: 0.4 s of work on the loop) runs
    past the 0.2 s timeout, and the reply is the system's answer, not its timeout."""

    async def replies_then_assay_reads() -> str:
        reply_arrived(off_loop=True)
        time.sleep(0.4)  # assay's work on the reply, which holds the loop
        return "30 days"

    assert asyncio.run(within(0.2, replies_then_assay_reads)) == "30 days"


def test_a_plain_function_past_its_timeout_is_not_said_to_be_an_async_def_that_held_the_loop(
    tmp_path: Path,
) -> None:
    """A plain def runs in a thread: when the loop was held meanwhile (here by other work on it), its
    late reply is its own lateness, and the reason says no more than that."""
    bot = tmp_path / "slow_bot.py"
    bot.write_text("import time\ndef answer(question, scope=None):\n    time.sleep(0.4)\n    return 'x'\n")
    system = load_system(f"{bot}:answer")
    record = Record(id="q", question="What is the grace period?", answers=("30 days",), response="")

    async def asked_while_the_loop_is_held() -> Any:
        asked = asyncio.ensure_future(ask_item(record, system, RunOptions(timeout=0.2, retries=0)))
        await asyncio.sleep(0.01)  # the call is in its thread
        time.sleep(0.6)  # something else holds the loop past the timeout and the function's return
        return await asked

    asked = asyncio.run(asked_while_the_loop_is_held())
    assert asked.reply.error == "no reply within 0.2 s (the timeout)"


def test_an_async_def_that_blocks_the_loop_is_still_told_so() -> None:
    async def blocks() -> str:
        time.sleep(0.4)
        return "x"

    with pytest.raises(CallTimedOut) as timed_out:
        asyncio.run(within(0.2, blocks))
    assert timed_out.value.held


@pytest.mark.parametrize(
    "unit",
    ["[a", "[1", "[1-20]", "[a:p3]", "(Source: d pp. 1-20)", "[Source: d p.1 p.2 ", "[1] x", "[" + "a" * 999],
)
def test_the_citations_of_a_200000_character_text_are_read_in_well_under_a_second(unit: str) -> None:
    """Reading the citations written in a text is linear in it ("[a[a[a..." was quadratic: minutes)."""
    text = (unit * (MAX_REPLY_CHARS // len(unit) + 1))[:MAX_REPLY_CHARS]

    def read() -> None:
        try:
            answer_from(text)
        except SystemFailure as failure:  # more distinct citations than a reply may have: said at once
            assert failure.reason.startswith("the reply has")

    assert_within(read, LOADED * SECOND, "the citations")  # budget.py's units: minutes were the defect


def test_a_reply_a_million_levels_deep_is_the_items_system_error_in_process_and_over_http(
    server: ReplyServer,
) -> None:
    """A JSON value (or a Python list) nested a million deep: no RecursionError escapes, no exit 3."""
    server.reply = Sent(body=b"[" * 1_000_000 + b"]" * 1_000_000)
    for kind in ("http", "openai"):
        with pytest.raises(SystemFailure, match="nesting 1000000 levels deep"):
            ask_once(http_system(server, kind))
    deep: Any = "30 days"
    for _ in range(1_000_000):
        deep = [deep]
    with pytest.raises(SystemFailure, match=r"^malformed reply: a list, not a text"):
        answer_from(deep)
    with pytest.raises(SystemFailure, match=r"item 0 must be a text or a mapping, found a list"):
        answer_from({"text": "x", "citations": deep})
