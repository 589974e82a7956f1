"""Judge many rows: a chain of judges, a cache, bounded concurrency, rate limits, a cost ceiling.

Each row goes to the first judge of the chain; on a judge that is unavailable (past its retries) or
whose reply, asked twice, is still not a verdict, it goes to the next. A row no judge could decide is
*unscored*, with the reason and the last raw reply kept. Every reply is cached the moment it arrives,
so a killed run loses nothing: run it again and the finished rows come from the cache.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..scorers import Outcome
from ._base import Judge, JudgeUnavailable, Reply, Usage
from .cache import Cache, cache_key
from .prompt import CORRECT, Parsed, fit_response, messages, parse_verdict, reminded

Progress = Callable[[int, int], None]  # (rows done, rows in all)


@dataclass(frozen=True)
class JudgeOptions:
    concurrency: int = 8
    max_response_chars: int = 8000  # longer responses are cut, with a marker, and counted
    max_cost: float | None = None  # stop sending requests once this much is spent
    cache_path: Path | None = None  # None: no cache
    refresh: bool = False  # ask again even when the cache has a reply (and store the new one)


@dataclass(frozen=True)
class Item:
    """One row for the judges."""

    index: int
    question: str
    answers: tuple[str, ...]
    response: str


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome  # PASS, FAIL or UNSCORED
    judge: str | None = None  # the label of the judge that decided
    rationale: str | None = None
    raw: str | None = None  # the last reply that was not a verdict, kept for an unscored row
    reason: str | None = None  # why a row is unscored


@dataclass
class RunStats:
    usage: dict[str, Usage] = field(default_factory=dict)  # by judge label, in chain order
    truncated: int = 0
    over_budget: int = 0  # rows left unscored because --max-cost was reached
    seconds: float = 0.0


class _BudgetSpent(Exception):
    pass


class _RateLimit:
    """At most `per_second` request starts per second for one judge."""

    def __init__(self, per_second: float | None) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self.next_start = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            now = time.monotonic()
            delay = self.next_start - now
            self.next_start = max(now, self.next_start) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


@dataclass
class _Run:
    chain: Sequence[Judge]
    options: JudgeOptions
    cache: Cache | None
    stats: RunStats
    slots: asyncio.Semaphore
    limits: dict[str, _RateLimit]

    def spent(self) -> float:
        return sum(usage.cost for usage in self.stats.usage.values())

    async def ask(
        self, judge: Judge, item: Item, sent: str, asked: list[dict[str, str]], attempt: int
    ) -> Reply:
        """One reply: from the cache if it has it, else from the judge (then cached at once)."""
        usage = self.stats.usage[judge.label]
        key = request_key(judge, item, sent, attempt)
        if self.cache is not None and not self.options.refresh:
            cached = self.cache.get(key)
            if cached is not None:
                usage.cache_hits += 1
                return cached
        async with self.slots:
            if self.options.max_cost is not None and self.spent() >= self.options.max_cost:
                raise _BudgetSpent  # checked once a slot is free: what was in flight has been counted
            await self.limits[judge.label].wait()
            reply = await judge.complete(asked)
        usage.add(reply, judge.prices)
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply

    async def judge(self, item: Item) -> Judgement:
        sent, truncated = fit_response(item.response, self.options.max_response_chars)
        self.stats.truncated += truncated
        asked = messages(item.question, item.answers, sent)
        reason, raw = "no judge in the chain", None
        for judge in self.chain:
            try:
                reply = await self.ask(judge, item, sent, asked, 0)
                parsed = parse_verdict(reply.text)
                if parsed.verdict is None:  # one retry, reminded of the format
                    reply = await self.ask(judge, item, sent, reminded(asked, reply.text), 1)
                    parsed = parse_verdict(reply.text)
            except _BudgetSpent:
                self.stats.over_budget += 1
                return Judgement(Outcome.UNSCORED, reason=f"--max-cost {self.options.max_cost} was reached")
            except JudgeUnavailable as exc:
                self.stats.usage[judge.label].failures += 1
                reason, raw = f"{judge.label} unavailable: {exc}", None
                continue
            if parsed.verdict is not None:
                return _decided(parsed, judge.label)
            self.stats.usage[judge.label].failures += 1
            reason, raw = f"{judge.label} replied twice without a verdict", reply.text
        return Judgement(Outcome.UNSCORED, raw=raw, reason=reason)


def request_key(judge: Judge, item: Item, sent: str, attempt: int = 0) -> str:
    """The cache key of asking `judge` about `item` (its response as sent, cut to the limit)."""
    return cache_key(judge.kind, judge.model, judge.sampling, item.question, item.answers, sent, attempt)


def all_cached(items: Sequence[Item], judge: Judge, options: JudgeOptions) -> bool:
    """Whether the cache holds `judge`'s first reply for every item (then no server is needed)."""
    if options.cache_path is None or options.refresh or not options.cache_path.exists():
        return False
    keys = [request_key(judge, i, fit_response(i.response, options.max_response_chars)[0]) for i in items]
    cache = Cache(options.cache_path)
    try:
        return cache.has_all(keys)
    finally:
        cache.close()


def _decided(parsed: Parsed, label: str) -> Judgement:
    outcome = Outcome.PASS if parsed.verdict == CORRECT else Outcome.FAIL
    return Judgement(outcome, judge=label, rationale=parsed.rationale)


async def judge_items(
    items: Sequence[Item],
    chain: Sequence[Judge],
    options: JudgeOptions,
    progress: Progress | None = None,
) -> tuple[list[Judgement], RunStats]:
    """Every item's judgement, in order, and what the run cost."""
    stats = RunStats(usage={judge.label: Usage() for judge in chain})
    cache = Cache(options.cache_path) if options.cache_path is not None else None
    run = _Run(
        chain,
        options,
        cache,
        stats,
        asyncio.Semaphore(options.concurrency),
        {judge.label: _RateLimit(judge.requests_per_second) for judge in chain},
    )
    started, done = time.monotonic(), 0

    async def one(item: Item) -> Judgement:
        nonlocal done
        judgement = await run.judge(item)
        done += 1
        if progress is not None:
            progress(done, len(items))
        return judgement

    try:
        judgements = list(await asyncio.gather(*map(one, items)))
    finally:
        if cache is not None:
            cache.close()
        for judge in chain:
            await judge.close()
    stats.seconds = time.monotonic() - started
    return judgements, stats
