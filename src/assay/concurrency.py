"""How many requests one server is sent at once, adapted to what it can take (AIMD, as TCP does).

A limit starts where it is set (a server's own word for its slots, or the user's --concurrency) and never
goes above the user's. A request the server turned away for load (HTTP 429 or 503, or no reply within the
deadline) halves it, once for every wave of requests sent at that limit: eight requests turned away
together halve it once, not eight times. A run of successes as long as the limit raises it by one.

The request turned away is asked again, waiting its turn under the lowered limit. It does not count
against its retries when more requests were in flight while it was (those sent with it, or after it
while it waited) than the lowered limit lets go at once: it failed because too many were sent, and
fewer will be. With no more than that (alone, or with as few as the limit still allows), the failure
is the server's own trouble, or the request's, and the caller's retries count it: a slow server is
not asked again and again for free.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import deque
from dataclasses import dataclass

OVERLOAD_STATUSES = frozenset({429, 503})  # the server says it is busy (too many requests, unavailable)


@dataclass(frozen=True)
class Turn:
    """A request's place under the limit: the wave (the limit's generation) it was sent in, how many
    were in flight with it when it was sent (itself included), and its number among the turns given."""

    generation: int
    in_flight: int = 1
    number: int = 0


class AdaptiveLimit:
    """At most `limit` requests in flight, `start` at first, between 1 and `most`."""

    def __init__(self, start: int, most: int) -> None:
        self.most = max(1, most)
        self.limit = max(1, min(start, self.most))
        self.started_at = self.limit
        self.lowest = self.limit  # the lowest it went: what the run reports
        self.in_flight = 0
        self._successes = 0
        self._generation = 0
        self._given = 0  # turns given so far
        # The most in flight since each turn was given, as (turn number, in flight) with the numbers
        # rising and the counts falling: the first entry at or after a turn's number holds the most in
        # flight since then. Counts run from 1 to `most`, so it never holds more than `most` entries.
        self._peaks: list[tuple[int, int]] = []
        # Requests waiting for a turn, first come first served. A freed turn is handed to one waiter
        # (a Condition's notify_all would wake every one to find all but one still shut out: with
        # thousands of rows queued, that was most of a judge run's CPU).
        self._waiting: deque[asyncio.Future[Turn]] = deque()

    async def acquire(self) -> Turn:
        """Wait until fewer than the limit are in flight (and every earlier waiter has its turn); the
        request's turn."""
        if self.in_flight < self.limit and not self._waiting:
            return self._give()
        waiter: asyncio.Future[Turn] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed a turn as it was cancelled: pass it on
                self.in_flight -= 1
                self._hand_on()
            raise

    def _give(self) -> Turn:
        self.in_flight += 1
        self._given += 1
        while self._peaks and self._peaks[-1][1] <= self.in_flight:
            self._peaks.pop()
        self._peaks.append((self._given, self.in_flight))
        return Turn(self._generation, self.in_flight, self._given)

    def _hand_on(self) -> None:
        """Hand the turns the limit allows now to the waiters, oldest first (one cancelled is passed)."""
        while self.in_flight < self.limit and self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(self._give())

    async def release(self) -> None:
        self.in_flight -= 1
        self._hand_on()

    async def succeeded(self) -> None:
        """A reply: after as many in a row as the limit, one more may be in flight (up to `most`)."""
        self._successes += 1
        if self._successes >= self.limit and self.limit < self.most:
            self.limit += 1
            self._successes = 0
            self._hand_on()

    async def overloaded(self, turn: Turn) -> bool:
        """The server turned the request of `turn` away for load: halve the limit (once per wave). True
        when more were in flight while it was than the limit now allows (so its retry is free: see the
        module's docstring)."""
        if turn.generation == self._generation and self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.lowest = min(self.lowest, self.limit)
            self._generation += 1
        self._successes = 0
        return self.company(turn) > self.limit

    def company(self, turn: Turn) -> int:
        """The most requests in flight at once, itself included, while the request of `turn` was: those
        sent with it, and those sent after it while it waited (the server may have seen them first)."""
        at = bisect.bisect_left(self._peaks, (turn.number, 0))
        since = self._peaks[at][1] if at < len(self._peaks) else 0
        return max(turn.in_flight, since, self.in_flight)

    @property
    def lowered(self) -> bool:
        return self.lowest < self.started_at


__all__ = ["OVERLOAD_STATUSES", "AdaptiveLimit", "Turn"]
