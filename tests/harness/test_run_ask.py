"""ask_all: the system under test asked every item with bounded concurrency, a timeout per call, retries for
transport errors only, and every failure that item's row; rows in the items' order, each journaled.

The systems here are real Python objects implementing the System protocol (spec, signature, ask, aclose),
each written to fail in one known way."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from assay.errors import UsageError
from assay.harness.gold_set import GoldSet, load_gold_set, run_row
from assay.harness.journal import JournalHeader, open_journal
from assay.harness.runner import RunOptions, SystemFailure, TransportError, ask_all, run_to_end
from assay.parts import Citation, Reply


class Scripted:
    """A system whose reply to each question is `behave(question, attempt)`, awaited; it counts the calls
    in flight (the most at once) and every call per question."""

    spec = "test:scripted"

    def __init__(self, behave: Callable[[str, int], Awaitable[Any]]) -> None:
        self.behave = behave
        self.calls: dict[str, int] = {}
        self.in_flight = self.most_in_flight = 0
        self.closed = False

    def signature(self) -> str:
        return self.spec

    async def ask(self, question: str, scope: str | None) -> Any:
        self.calls[question] = self.calls.get(question, 0) + 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await self.behave(question, self.calls[question])
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        self.closed = True


def items(count: int) -> list[dict[str, Any]]:
    return [
        {"id": f"q{n:02d}", "scope": "acme__gold", "question": f"question {n}", "expected_answer": "30 days"}
        for n in range(count)
    ]


def gold_of(tmp_path: Path, asked: list[dict[str, Any]]) -> GoldSet:
    """The items as a gold file's records, read as a run reads them."""
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in asked), encoding="utf-8")
    return load_gold_set(path)


def ask(
    tmp_path: Path, system: Scripted, asked: list[dict[str, Any]], **options: Any
) -> list[dict[str, Any]]:
    """ask_all through a journal in tmp_path, in the runner's own event loop (as run_gold runs it); each
    answered record as its row (the item, response and reply: what the journal and run.jsonl hold)."""
    gold = gold_of(tmp_path, asked)
    with open_journal(tmp_path, JournalHeader(system.signature(), "0" * 64)) as journal:
        answered = run_to_end(ask_all(gold, system, journal, RunOptions(**{"backoff": 0.01, **options})))
    return [run_row(item, record) for item, record in zip(gold.items, answered)]


async def answers_30_days(question: str, attempt: int) -> Reply:
    await asyncio.sleep(0.01)
    return Reply(text="30 days", citations=(Citation("acme__gold", 2),))


@pytest.mark.parametrize("concurrency", [1, 3, 8])
def test_no_more_calls_are_in_flight_than_the_concurrency(tmp_path: Path, concurrency: int) -> None:
    system = Scripted(answers_30_days)
    rows = ask(tmp_path, system, items(12), concurrency=concurrency)
    assert system.most_in_flight == concurrency  # reached, and never passed
    assert [row["response"] for row in rows] == ["30 days"] * 12


def test_rows_come_in_the_items_order_whatever_order_they_finish_in(tmp_path: Path) -> None:
    async def later_ones_first(question: str, attempt: int) -> Reply:
        await asyncio.sleep(0.05 - int(question.split()[1]) * 0.004)  # question 0 finishes last
        return Reply(text=question.upper())

    rows = ask(tmp_path, Scripted(later_ones_first), items(10), concurrency=10)
    assert [row["id"] for row in rows] == [item["id"] for item in items(10)]
    assert [row["response"] for row in rows] == [f"QUESTION {n}" for n in range(10)]


def test_a_row_is_the_item_with_the_response_and_the_reply_with_its_latency(tmp_path: Path) -> None:
    (row,) = ask(tmp_path, Scripted(answers_30_days), items(1))
    assert {key: row[key] for key in items(1)[0]} == items(1)[0]
    assert row["response"] == "30 days"
    assert row["reply"]["citations"] == [{"document": "acme__gold", "page": 2}]
    assert 0.005 < row["reply"]["latency"] < 5


def test_transport_errors_are_retried_and_then_the_answer_is_the_row(tmp_path: Path) -> None:
    async def refused_twice(question: str, attempt: int) -> Reply:
        if attempt <= 2:
            raise TransportError("connection refused")
        return Reply(text="30 days")

    system = Scripted(refused_twice)
    (row,) = ask(tmp_path, system, items(1), retries=2)
    assert system.calls == {"question 0": 3}
    assert row["response"] == "30 days" and "error" not in row["reply"]


def test_transport_errors_past_the_retries_are_the_items_system_error(tmp_path: Path) -> None:
    async def always_refused(question: str, attempt: int) -> Reply:
        raise TransportError("connection refused")

    system = Scripted(always_refused)
    (row,) = ask(tmp_path, system, items(1), retries=1)
    assert system.calls == {"question 0": 2}
    assert row["response"] == ""
    assert row["reply"]["error"] == "transport error, 2 attempts: connection refused"


def test_a_wait_the_server_asks_for_is_kept_before_the_retry(tmp_path: Path) -> None:
    async def too_many_requests(question: str, attempt: int) -> Reply:
        if attempt == 1:
            busy = TransportError("HTTP 429")
            busy.retry_after = 0.4  # the server's Retry-After (systems.base.TransportError carries it)
            raise busy
        return Reply(text="30 days")

    started = time.monotonic()
    (row,) = ask(tmp_path, Scripted(too_many_requests), items(1), backoff=0.01)
    assert row["response"] == "30 days" and time.monotonic() - started >= 0.4


def test_the_reply_a_failing_system_sent_is_kept_in_the_row(tmp_path: Path) -> None:
    async def server_error(question: str, attempt: int) -> Reply:
        failure = SystemFailure("HTTP 500")
        failure.raw = "<html>Internal Server Error</html>"  # as systems.base.SystemFailure carries it
        raise failure

    (row,) = ask(tmp_path, Scripted(server_error), items(1))
    assert row["reply"]["error"] == "HTTP 500" and row["reply"]["raw"] == "<html>Internal Server Error</html>"


async def raises(question: str, attempt: int) -> Reply:
    raise ValueError("the index is not loaded")


async def fails(question: str, attempt: int) -> Reply:
    raise SystemFailure("HTTP 500 from http://127.0.0.1:9/ask")


async def returns_a_list(question: str, attempt: int) -> Any:
    return ["30 days"]


async def returns_none(question: str, attempt: int) -> Any:
    return None


async def answers_with_an_error(question: str, attempt: int) -> Reply:
    return Reply(text="", error="the model is overloaded", route="fallback")


@pytest.mark.parametrize(
    ("behave", "error"),
    [
        (raises, "the system raised ValueError: the index is not loaded"),
        (fails, "HTTP 500 from http://127.0.0.1:9/ask"),
        (returns_a_list, "malformed reply: ask() returned a list, not a Reply"),
        (returns_none, "malformed reply: ask() returned None, not a Reply"),
        (answers_with_an_error, "the model is overloaded"),
    ],
)
def test_a_system_failure_is_the_items_row_and_is_not_retried(
    tmp_path: Path, behave: Callable[[str, int], Awaitable[Any]], error: str
) -> None:
    system = Scripted(behave)
    (row,) = ask(tmp_path, system, items(1), retries=3)
    assert system.calls == {"question 0": 1}
    assert row["response"] == "" and row["reply"]["error"] == error
    assert row["reply"]["latency"] >= 0


def test_an_error_message_without_text_is_named_by_its_type(tmp_path: Path) -> None:
    async def bare(question: str, attempt: int) -> Reply:
        raise KeyError

    (row,) = ask(tmp_path, Scripted(bare), items(1))
    assert row["reply"]["error"] == "the system raised KeyError: KeyError"


async def hangs(question: str, attempt: int) -> Reply:
    await asyncio.Event().wait()
    raise AssertionError("never set")


async def ignores_its_cancellation(question: str, attempt: int) -> Reply:
    for _ in range(100):  # some 10 s, whatever it is told
        try:
            await asyncio.sleep(0.1)
        except asyncio.CancelledError:
            continue
    raise AssertionError("outlived the test")


async def hangs_in_a_thread(question: str, attempt: int) -> Reply:
    # A sync system run in a thread, as the in-process adapter runs one: the thread cannot be stopped.
    await asyncio.to_thread(threading.Event().wait, 30)
    raise AssertionError("outlived the test")


@pytest.mark.parametrize("behave", [hangs, ignores_its_cancellation, hangs_in_a_thread])
def test_a_call_past_the_timeout_is_the_items_system_error_and_the_run_ends(
    tmp_path: Path, behave: Callable[[str, int], Awaitable[Any]]
) -> None:
    async def hangs_on_one(question: str, attempt: int) -> Reply:
        found = behave if question == "question 1" else answers_30_days
        return await found(question, attempt)

    started = time.monotonic()
    rows = ask(tmp_path, Scripted(hangs_on_one), items(4), timeout=0.3, concurrency=2)
    # The run ends at the timeout (0.3 s), not when the call does (10 s and more): a loaded machine's room.
    assert time.monotonic() - started < 8
    errors = [row["reply"].get("error") for row in rows]
    assert errors == [None, "no reply within 0.3 s (the timeout)", None, None]
    assert [row["response"] for row in rows] == ["30 days", "", "30 days", "30 days"]


def test_an_async_call_that_holds_the_event_loop_past_the_timeout_is_timed_out_and_says_why(
    tmp_path: Path,
) -> None:
    async def blocks_the_loop(question: str, attempt: int) -> Reply:
        time.sleep(0.4)  # blocking code in an async def: no timer can fire meanwhile
        return Reply(text="30 days")

    rows = ask(tmp_path, Scripted(blocks_the_loop), items(2), timeout=0.2, concurrency=2)
    errors = [row["reply"].get("error") for row in rows]
    said = "no reply within 0.2 s (the timeout): the call held the event loop"
    assert all(error and error.startswith(said) for error in errors), errors
    assert [row["response"] for row in rows] == ["", ""]


def test_a_timeout_the_system_raises_itself_is_its_own_error_not_the_runs(tmp_path: Path) -> None:
    async def socket_timeout(question: str, attempt: int) -> Reply:
        raise TimeoutError("timed out reading the index")

    (row,) = ask(tmp_path, Scripted(socket_timeout), items(1), timeout=30)
    assert row["reply"]["error"] == "the system raised TimeoutError: timed out reading the index"


def test_every_item_is_accounted_for_whatever_each_does(tmp_path: Path) -> None:
    ways = [answers_30_days, raises, fails, returns_a_list, hangs, answers_with_an_error]

    async def mixed(question: str, attempt: int) -> Any:
        return await ways[int(question.split()[1]) % len(ways)](question, attempt)

    asked = items(24)
    rows = ask(tmp_path, Scripted(mixed), asked, timeout=0.2, concurrency=5)
    assert [row["id"] for row in rows] == [item["id"] for item in asked]
    failed = [row["id"] for row in rows if row["reply"].get("error")]
    assert len(failed) == 20 and all(row["response"] == "30 days" for row in rows if row["id"] not in failed)
    journal_lines = (tmp_path / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(journal_lines) == 1 + 24  # the header, then one line per item


def test_progress_counts_items_done_of_all(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    with open_journal(tmp_path, JournalHeader("test:scripted", "0" * 64)) as journal:
        progress = lambda done, total: seen.append((done, total))  # noqa: E731
        run_to_end(
            ask_all(gold_of(tmp_path, items(3)), Scripted(answers_30_days), journal, RunOptions(), progress)
        )
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 0}, "concurrency must be a whole number of at least 1, got 0"),
        ({"retries": -1}, "retries must be a whole number of at least 0, got -1"),
        ({"timeout": 0}, "timeout must be more than 0 seconds, got 0"),
        ({"timeout": float("nan")}, "timeout must be a number of seconds, got nan"),
        ({"backoff": -1.0}, "backoff must be a number of seconds, got -1.0"),
    ],
)
def test_run_options_refuse_values_that_make_no_run(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        RunOptions(**options)
