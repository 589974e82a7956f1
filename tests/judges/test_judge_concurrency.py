"""The judge's concurrency fits its server (issue 23): it starts from the slots a llama.cpp server reports
(GET /props), never above --concurrency, and halves on requests turned away for load (503, 429, the
deadline passed), asking them again rather than failing their rows; it grows back by one after a run of
replies. Against real servers on 127.0.0.1 with one slot (tests/support/slot_server.py)."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from slot_server import SlotServer, slot_server

from assay import Dataset, Outcome, ScoreRun, score
from assay.concurrency import AdaptiveLimit
from assay.judges.accounting import judge_summary
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.run import ConcurrencyLowered, JudgeOptions
from assay.judges.spec import parse_spec
from assay.records import Record


def judged(spec: str, rows: int, concurrency: int = 8) -> ScoreRun:
    records = [
        Record(str(n), f"question {n}?", (f"answer {n}",), f"reply {n}", row=n + 1) for n in range(rows)
    ]
    dataset = Dataset(records, "rows", ("id", "question", "answer", "response"), {}, {})
    setup = JudgeSetup((parse_spec(spec),), JudgeOptions(concurrency=concurrency))
    return score(dataset, with_judge(["judge"], setup))


def notes(run: ScoreRun) -> tuple[str, ...]:
    summary = judge_summary(run.summary)
    assert summary is not None
    return tuple(summary.warnings)


def test_a_server_that_reports_one_slot_is_sent_one_request_at_a_time() -> None:
    with slot_server(SlotServer(slots=1, busy=503, props=True)) as server, warnings.catch_warnings():
        warnings.simplefilter("error", ConcurrencyLowered)  # nothing was turned away to lower
        run = judged(f"openai:m@{server.url},retries=0", rows=16, concurrency=8)
    assert run.metrics["judge"].outcomes.count(Outcome.PASS) == 16
    assert server.most_at_once == 1 and server.turned_away == 0 and server.chats == 16


def test_reported_slots_never_raise_it_above_concurrency() -> None:
    with slot_server(SlotServer(slots=4, busy=503, props=True, seconds=0.1)) as server:
        run = judged(f"openai:m@{server.url},retries=0", rows=12, concurrency=2)
    assert run.metrics["judge"].outcomes.count(Outcome.PASS) == 12
    assert server.most_at_once <= 2


@pytest.mark.parametrize("status", [503, 429])
def test_a_busy_server_that_reports_no_slots_lowers_it_and_no_row_fails(status: int) -> None:
    # retries=1: without the adaptation, a row turned away twice would go unscored
    with (
        slot_server(SlotServer(slots=1, busy=status, seconds=0.05)) as server,
        pytest.warns(
            ConcurrencyLowered, match=f"turned requests away \\(HTTP {status}\\) with 8 at once"
        ) as said,
    ):
        run = judged(f"openai:m@{server.url},retries=1,backoff=0.01", rows=24, concurrency=8)
    assert run.metrics["judge"].outcomes.count(Outcome.PASS) == 24  # every row decided, none unscored
    assert server.turned_away > 0
    assert len([w for w in said if issubclass(w.category, ConcurrencyLowered)]) == 1  # said once
    [note] = [note for note in notes(run) if "requests at once" in note]
    assert "at most 1 requests at once (from 8)" in note


def test_a_queueing_server_whose_requests_pass_their_deadline_lowers_it_and_no_row_fails() -> None:
    # llama.cpp without --slots: it queues; eight at once, 0.25 s each, run the later ones past 1 s
    queueing = SlotServer(slots=1, busy="queue", seconds=0.25)
    with slot_server(queueing) as server, pytest.warns(ConcurrencyLowered, match="deadline"):
        run = judged(f"openai:m@{server.url},timeout=1,retries=0", rows=10, concurrency=8)
    assert run.metrics["judge"].outcomes.count(Outcome.PASS) == 10


# --- the limit itself ----------------------------------------------------------------------------------


def test_the_limit_halves_once_a_wave_grows_back_by_one_and_stays_within_bounds() -> None:
    async def walk() -> None:
        limit = AdaptiveLimit(start=8, most=8)
        turns = [await limit.acquire() for _ in range(8)]
        assert limit.in_flight == 8
        # 8 in flight, 4 from now on: each had more company than the limit allows, so its retry is free
        assert [await limit.overloaded(turn) for turn in turns] == [True] * 8
        assert limit.limit == 4  # one wave, one halving
        for _ in range(8):
            await limit.release()
        turn = await limit.acquire()  # alone: lowered all the same, but its retry counts (a slow server)
        assert not await limit.overloaded(turn) and limit.limit == 2
        await limit.release()
        pair = [await limit.acquire(), await limit.acquire()]
        assert [await limit.overloaded(turn) for turn in pair] == [True, True] and limit.limit == 1
        for _ in pair:
            await limit.release()
        turn = await limit.acquire()
        assert not await limit.overloaded(turn) and limit.limit == 1  # at the floor: the retry counts
        await limit.release()
        for _ in range(1 + 2 + 3):
            await limit.succeeded()
        assert limit.limit == 4 and limit.lowest == 1 and limit.lowered
        for _ in range(100):
            await limit.succeeded()
        assert limit.limit == 8  # never above most
        assert AdaptiveLimit(start=20, most=3).limit == 3 and AdaptiveLimit(start=0, most=3).limit == 1

    asyncio.run(walk())


def test_a_request_sent_alone_but_joined_while_it_waited_had_that_company() -> None:
    # Sent alone at a limit of 1; the limit grew to 2 and a second request went out and came back before
    # the first was turned away. The server saw two at once: the first one's retry is free, as theirs
    # would have been had they been sent together (a loaded client reads replies late).
    async def walk() -> None:
        limit = AdaptiveLimit(start=1, most=8)
        alone = await limit.acquire()
        await limit.succeeded()  # an earlier request's reply: one more may go
        joined = await limit.acquire()
        await limit.release()  # the second one's reply came first
        assert limit.in_flight == 1 and alone.in_flight == 1 and joined.in_flight == 2
        assert limit.company(alone) == 2
        assert await limit.overloaded(alone) and limit.limit == 1
        await limit.release()
        later = await limit.acquire()  # sent alone, and alone all along: its retry counts
        assert limit.company(later) == 1 and not await limit.overloaded(later)
        await limit.release()

    asyncio.run(walk())


def test_the_company_kept_stays_within_the_most_in_flight() -> None:
    async def walk() -> None:
        limit = AdaptiveLimit(start=4, most=4)
        for wave in range(200):
            turns = [await limit.acquire() for _ in range(1 + wave % 4)]
            assert [limit.company(turn) for turn in turns] == [len(turns)] * len(turns)
            for _ in turns:
                await limit.release()
        assert len(limit._peaks) <= 4  # one entry per count at most, however many turns were given

    asyncio.run(walk())


def test_waiters_get_their_turns_first_come_first_served_one_for_each_freed() -> None:
    async def walk() -> None:
        limit = AdaptiveLimit(start=2, most=2)
        held = [await limit.acquire(), await limit.acquire()]
        order: list[int] = []

        async def wait(n: int) -> None:
            await limit.acquire()
            order.append(n)

        waiting = [asyncio.create_task(wait(n)) for n in range(500)]
        await asyncio.sleep(0)
        assert order == [] and limit.in_flight == 2
        for freed in range(1, 4):
            await limit.release()
            await asyncio.sleep(0)
            assert order == list(range(freed)) and limit.in_flight == 2  # one waiter a freed turn
        for task in waiting[3:]:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert len(held) == 2

    asyncio.run(walk())


def test_a_waiter_cancelled_as_it_is_handed_a_turn_passes_it_on() -> None:
    async def walk() -> None:
        limit = AdaptiveLimit(start=1, most=1)
        await limit.acquire()
        first = asyncio.create_task(limit.acquire())
        second = asyncio.create_task(limit.acquire())
        await asyncio.sleep(0)
        await limit.release()  # the turn goes to the first waiter...
        first.cancel()  # ...which is cancelled before it runs: the second must get it
        await asyncio.sleep(0)
        assert first.cancelled()
        turn = await asyncio.wait_for(second, 1)
        assert limit.in_flight == 1 and turn.in_flight == 1

    asyncio.run(walk())
