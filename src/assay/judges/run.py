"""Judge many rows: a chain of judges, a cache, bounded concurrency, rate limits, a cost ceiling.

Each row goes to the first judge of the chain; on a judge that is unavailable (past its retries) or
whose reply, asked twice, is still not a verdict, it goes to the next. A row no judge could decide is
*unscored*, with the reason and the last raw reply kept.

Every reply is cached the moment it arrives, so a killed run loses nothing. A run first walks every
row through the whole chain *in the cache*: rows decided there (by any judge, even one that is down
today) cost nothing, and when that is all of them no server is contacted at all. Only the rest go to
the judges, after each judge's preflight.

With a jury (``jury.py``) every judge is asked every row, each through the same cache, and the row's
verdict is the jury's rule applied to their votes: a row is found in the cache only when every judge's
reply is there, and a row that is not asks only the judges whose replies are missing.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..concurrency import AdaptiveLimit, Turn
from ..errors import UsageError
from ..metric import Outcome
from ..net import redact
from ._base import CONCURRENCY, MAX_RESPONSE_CHARS, Completion, Judge, JudgeDown, JudgeUnavailable
from .accounting import JudgeUsage, UncountedUsage
from .cache import Cache, cache_key
from .jury import JuryRule, Vote, decide
from .prompt import CORRECT, INCORRECT, NO_VERDICT, Parsed, fit_response
from .rubric import EQUIVALENCE, Rubric

Progress = Callable[[int, int], None]  # (rows done, rows in all)
Messages = list[dict[str, str]]


@dataclass(frozen=True)
class JudgeOptions:
    concurrency: int = CONCURRENCY
    max_response_chars: int = MAX_RESPONSE_CHARS  # longer responses are cut, with a marker, and counted
    max_cost: float | None = None  # stop sending requests once this much is spent (in-flight ones finish)
    cache_path: Path | None = None  # None: no cache
    refresh: bool = False  # ask again even when the cache has a reply (and store the new one)

    def __post_init__(self) -> None:
        for name in ("concurrency", "max_response_chars"):
            if getattr(self, name) < 1:
                raise UsageError(
                    f"{name} must be at least 1, got {getattr(self, name)}", fix="give a positive number"
                )
        if self.max_cost is not None and self.max_cost != self.max_cost:  # NaN: no spend would reach it
            raise UsageError("max_cost is not a number (nan)", fix="give 0 or more (in USD)")
        if self.max_cost is not None and self.max_cost < 0:
            raise UsageError(f"max_cost must not be negative, got {self.max_cost}", fix="give 0 or more")


@dataclass(frozen=True)
class Item:
    """One row for the judges: its index, and the value of each placeholder of the rubric's template."""

    index: int
    values: Mapping[str, object]


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome  # PASS, FAIL or UNSCORED
    judge: str | None = None  # the label of the judge that decided, or what decided instead
    model: str | None = None  # the model id the server said it used (@fingerprint when given)
    rationale: str | None = None
    raw: str | None = None  # the last reply that was not a verdict, kept for an unscored row
    reason: str | None = None  # why a row is unscored
    votes: tuple[Vote, ...] = ()  # with a jury: every judge's vote, in the jury's order


@dataclass
class RunStats:
    usage: dict[str, JudgeUsage] = field(default_factory=dict)  # by judge label, in chain order
    truncated: int = 0
    over_budget: int = 0  # rows left unscored because --max-cost was reached
    seconds: float = 0.0
    dropped: list[str] = field(default_factory=list)  # judges left out of the chain, unreadable cache rows


class ConcurrencyLowered(UserWarning):
    """A judge's server turned requests away for load, and fewer are sent to it at once (said once)."""


class _Held:
    """What one request holds while it is sent: its turn under its judge's adaptive limit, and a slot of
    the run's --concurrency. Handed back and taken again when the server turned it away for load."""

    def __init__(self, limit: AdaptiveLimit, slots: asyncio.Semaphore) -> None:
        self.limit, self.slots = limit, slots
        self.turn: Turn | None = None
        self.slot = False

    async def take(self) -> None:
        self.turn = await self.limit.acquire()  # the judge's limit first, then the run's: one order
        await self.slots.acquire()
        self.slot = True

    async def give_back(self) -> None:
        if self.slot:
            self.slots.release()
            self.slot = False
        if self.turn is not None:
            self.turn = None
            await self.limit.release()


class _BudgetSpent(Exception):
    pass


class _NotCached(Exception):
    pass


class _LeftChain(Exception):
    """The judge left the chain (its cost cannot be counted) while the row waited for it."""


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


@dataclass(frozen=True)
class Jury:
    """Every judge of the chain asked every row, and the rule that decides on their votes."""

    rule: JuryRule
    labels: tuple[str, ...]  # the whole jury's, the judges down at the preflight too


@dataclass
class _Run:
    chain: Sequence[Judge]
    options: JudgeOptions
    cache: Cache | None
    stats: RunStats
    rubric: Rubric = EQUIVALENCE
    slots: asyncio.Semaphore | None = None  # set for the live pass
    limits: dict[str, _RateLimit] = field(default_factory=dict)
    at_once: dict[str, AdaptiveLimit] = field(default_factory=dict)  # label -> requests in flight to it
    left: dict[str, str] = field(default_factory=dict)  # label -> why it left the chain mid-run
    lowered: set[str] = field(default_factory=set)  # judges whose concurrency was lowered (said once)
    jury: Jury | None = None
    absent: dict[str, str] = field(default_factory=dict)  # label -> why the preflight left it out

    def spent(self) -> float:
        return sum(usage.cost for usage in self.stats.usage.values())

    async def ask(self, judge: Judge, asked: Messages, live: bool) -> Completion:
        """One reply: from the cache if it has it, else (when `live`) from the judge, cached at once."""
        usage = self.stats.usage[judge.label]
        key = cache_key(judge.kind, judge.identity, judge.sampling, asked, self.rubric.signature)
        if self.cache is not None and not (live and self.options.refresh):
            cached = self.cache.get(key)
            if cached is not None:
                usage.cache_hits += 1
                usage.models.add(_served(cached))
                return cached
        if not live:
            raise _NotCached
        assert self.slots is not None
        held = _Held(self.at_once[judge.label], self.slots)
        try:
            await held.take()
            if self.options.max_cost is not None and self.spent() >= self.options.max_cost:
                raise _BudgetSpent  # checked once a slot is free: what was in flight has been counted
            if judge.label in self.left:  # it left while this row waited for a slot
                raise _LeftChain
            reply = await self.complete(judge, asked, held)
        finally:
            await held.give_back()
        await held.limit.succeeded()
        usage.add(
            reply.prompt_tokens,
            reply.completion_tokens,
            judge.prices.cost(reply.prompt_tokens, reply.completion_tokens),
        )
        usage.models.add(_served(reply))
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply

    async def complete(self, judge: Judge, asked: Messages, held: _Held) -> Completion:
        """The judge's reply. One whose cost cannot be counted is no reply under --max-cost, and its
        judge leaves the chain for the rest of the run (else the ceiling could never stop it)."""
        pace = self.limits[judge.label].wait
        try:
            if _tells_load(judge):
                return await judge.complete(asked, pace=pace, overload=self.overload_hook(judge, held))  # type: ignore[call-arg]
            return await judge.complete(asked, pace=pace)
        except UncountedUsage as exc:
            if self.options.max_cost is None and exc.completion is not None:
                return exc.completion  # no usage at all: counted as nothing, as it always was
            if self.options.max_cost is not None and judge.label not in self.left:
                self.left[judge.label] = redact(str(exc))
                self.stats.dropped.append(
                    f"left {judge.label} out of the chain for the rest of the run: {self.left[judge.label]}, "
                    f"and its cost cannot be counted against --max-cost {self.options.max_cost}"
                )
            raise

    def overload_hook(self, judge: Judge, held: _Held) -> Callable[[str], Awaitable[bool]]:
        """What the judge calls when the server turned the request away for load: the limit halved (said
        once), and, when the retry is free, the request's turn given back and waited for again."""

        async def overload(failure: str) -> bool:
            assert held.turn is not None
            before = held.limit.limit
            free = await held.limit.overloaded(held.turn)
            if held.limit.limit < before:
                self.said_lowered(judge.label, failure, before, held.limit.limit)
            if free:
                await held.give_back()
                await held.take()
            return free

        return overload

    def said_lowered(self, label: str, failure: str, before: int, now: int) -> None:
        if label in self.lowered:
            return
        self.lowered.add(label)
        warnings.warn(
            ConcurrencyLowered(
                f"the judge {label} turned requests away ({failure}) with {before} at once: sending it "
                f"{now} at once now (one more after each run of replies, up to --concurrency "
                f"{self.options.concurrency}); the requests turned away are asked again"
            ),
            stacklevel=1,
        )

    async def judge(self, item: Item, live: bool) -> Judgement:
        """The row's judgement; with `live` False, from the cache alone (raises _NotCached)."""
        if self.jury is not None:
            return await self.jury_judgement(item, live)
        asked = self.asked(item, live)
        reason, raw = "no judge in the chain", None
        for judge in self.chain:
            if judge.label in self.left:
                reason = f"{judge.label} left the chain: {self.left[judge.label]}"
                continue
            try:
                parsed, reply = await self.verdict_of(judge, asked, live)
            except _BudgetSpent:
                self.stats.over_budget += 1
                return Judgement(
                    Outcome.UNSCORED, raw=raw, reason=f"--max-cost {self.options.max_cost} was reached"
                )
            except _LeftChain:
                reason = f"{judge.label} left the chain: {self.left[judge.label]}"
                continue
            except JudgeUnavailable as exc:
                self.stats.usage[judge.label].failures += 1
                reason = f"{judge.label} unavailable: {redact(str(exc))}"
                continue
            if parsed.verdict is not None:
                return _decided(parsed, judge.label, reply)
            if live:
                self.stats.usage[judge.label].failures += 1
            reason = f"{judge.label} replied twice without a verdict ({parsed.problem})"
            raw = reply.text
        return Judgement(Outcome.UNSCORED, raw=raw, reason=reason)

    async def verdict_of(self, judge: Judge, asked: Messages, live: bool) -> tuple[Parsed, Completion]:
        """One judge's reading of a row, and the reply read: asked again once, reminded of the format,
        when the first reply is not a verdict."""
        reply = await self.ask(judge, asked, live)
        parsed = self.parsed(reply.text)
        if parsed.verdict is None:
            reply = await self.ask(judge, self.rubric.reminded(asked, reply.text), live)
            parsed = self.parsed(reply.text)
        return parsed, reply

    async def jury_judgement(self, item: Item, live: bool) -> Judgement:
        """The row's judgement by the jury: every judge's vote, at once, and the rule on them; with `live`
        False, from the cache alone (raises _NotCached unless every judge's reply is there)."""
        assert self.jury is not None
        asked = self.asked(item, live)
        hits = {label: usage.cache_hits for label, usage in self.stats.usage.items()}
        members = {judge.label: judge for judge in self.chain}
        try:
            asking = (self.vote(members, label, asked, live) for label in self.jury.labels)
            votes = await asyncio.gather(*asking)
        except _NotCached:
            for label, count in hits.items():  # counted once, when the row is judged in the live pass
                self.stats.usage[label].cache_hits = count
            raise
        if any(vote.reason == _OVER_BUDGET for vote in votes):
            self.stats.over_budget += 1
        outcome, reason = decide(self.jury.rule, votes)
        return Judgement(outcome, judge=f"jury ({self.jury.rule.name})", reason=reason, votes=tuple(votes))

    async def vote(self, members: Mapping[str, Judge], label: str, asked: Messages, live: bool) -> Vote:
        """One judge's vote on a row, or its missing vote and why: never a verdict it did not give."""
        judge = members.get(label)
        if judge is None:
            return Vote(label, None, reason=self.absent.get(label, "left out of the jury"))
        if label in self.left:
            return Vote(label, None, reason=f"left the chain: {self.left[label]}")
        try:
            parsed, reply = await self.verdict_of(judge, asked, live)
        except _BudgetSpent:
            return Vote(label, None, reason=_OVER_BUDGET)
        except _LeftChain:
            return Vote(label, None, reason=f"left the chain: {self.left[label]}")
        except JudgeUnavailable as exc:
            self.stats.usage[label].failures += 1
            return Vote(label, None, reason=f"unavailable: {redact(str(exc))}")
        if parsed.verdict is None:
            if live:
                self.stats.usage[label].failures += 1
            why = f"replied twice without a verdict ({parsed.problem})"
            return Vote(label, None, reason=why, raw=reply.text)
        return Vote(label, parsed.verdict, parsed.rationale, _served(reply))

    def asked(self, item: Item, live: bool) -> Messages:
        """The rubric's messages for one row, the text under grading cut to the length limit (counted
        once, in the live pass)."""
        values = dict(item.values)
        for placeholder in self.rubric.fitted:
            text = values[placeholder]
            if isinstance(text, str):
                values[placeholder], truncated = fit_response(text, self.options.max_response_chars)
                if live:
                    self.stats.truncated += truncated
        return self.rubric.messages(values)

    def parsed(self, text: str) -> Parsed:
        """The rubric's reading of a reply; a verdict other than CORRECT or INCORRECT (a plugin parser's
        mistake) is no verdict."""
        parsed = self.rubric.parse(text)
        if parsed.verdict not in (CORRECT, INCORRECT, None):
            return Parsed(None, problem=f"{NO_VERDICT} ({self.rubric.name} read {parsed.verdict!r})")
        return parsed


_OVER_BUDGET = "--max-cost was reached"
_DOWN = "down at the preflight, and left out (see the warnings)"


def _decided(parsed: Parsed, label: str, reply: Completion) -> Judgement:
    outcome = Outcome.PASS if parsed.verdict == CORRECT else Outcome.FAIL
    return Judgement(outcome, judge=label, model=_served(reply), rationale=parsed.rationale)


def _served(reply: Completion) -> str:
    return reply.model + (f"@{reply.fingerprint}" if reply.fingerprint else "")


async def judge_items(
    items: Sequence[Item],
    chain: Sequence[Judge],
    options: JudgeOptions,
    progress: Progress | None = None,
    rubric: Rubric = EQUIVALENCE,
    jury: JuryRule | None = None,
) -> tuple[list[Judgement], RunStats]:
    """Every item's judgement under `rubric`, in order, and what the run cost; with `jury`, every judge
    of the chain is asked every item, and the jury's rule decides."""
    stats = RunStats(usage={judge.label: JudgeUsage() for judge in chain})
    cache = Cache(options.cache_path) if options.cache_path is not None else None
    whole = Jury(jury, tuple(judge.label for judge in chain)) if jury is not None else None
    started = time.monotonic()
    try:
        found = await _from_cache(_Run(chain, options, cache, stats, rubric, jury=whole), items)
        pending = [item for item in items if item.index not in found]
        if pending:
            working, stats.dropped = await preflight(chain)
            live = _Run(working, options, cache, stats, rubric, asyncio.Semaphore(options.concurrency))
            live.jury = whole
            live.absent = {judge.label: _DOWN for judge in chain if judge not in working}
            live.limits = {judge.label: _RateLimit(judge.requests_per_second) for judge in working}
            live.at_once = {judge.label: await _at_once(judge, options.concurrency) for judge in working}
            try:
                found |= await _live(live, pending, len(items) - len(pending), len(items), progress)
            finally:
                stats.dropped.extend(_lowered_notes(live.at_once))
    finally:
        if cache is not None:
            cache.close()
            if cache.unreadable:
                stats.dropped.append(
                    f"{len(cache.unreadable)} cached replies in {cache.path} were not readable replies "
                    "(tampered or truncated) and were asked again"
                )
        for judge in chain:
            await judge.close()
    stats.seconds = time.monotonic() - started
    return [found[item.index] for item in items], stats


async def _at_once(judge: Judge, most: int) -> AdaptiveLimit:
    """The judge's adaptive limit: the slots its server reports (llama.cpp's), never above `most`
    (--concurrency), and never raised past them; a server that does not say starts at `most`."""
    ask = getattr(judge, "server_slots", None)  # a judge over HTTP may know; a plugin need not
    slots = await ask() if callable(ask) else None
    if isinstance(slots, int) and slots >= 1:
        most = min(most, slots)
    return AdaptiveLimit(most, most)


def _lowered_notes(at_once: Mapping[str, AdaptiveLimit]) -> list[str]:
    return [
        f"sent {label} at most {limit.lowest} requests at once (from {limit.started_at}): its server turned "
        "requests away for load (HTTP 429 or 503, or the deadline passed), and they were asked again"
        for label, limit in at_once.items()
        if limit.lowered
    ]


def _tells_load(judge: Judge) -> bool:
    """Whether the judge's complete() takes `overload` (the built-in HTTP judge does; a plugin may not)."""
    try:
        return "overload" in inspect.signature(judge.complete).parameters
    except (TypeError, ValueError):
        return False


async def _from_cache(run: _Run, items: Sequence[Item]) -> dict[int, Judgement]:
    """The judgements the cache already holds, through the whole chain (no server is contacted)."""
    if run.cache is None or run.options.refresh:
        return {}
    found = {}
    for item in items:
        try:
            found[item.index] = await run.judge(item, live=False)
        except _NotCached:
            continue
    return found


async def _live(
    run: _Run, items: Sequence[Item], done: int, total: int, progress: Progress | None
) -> dict[int, Judgement]:
    async def one(item: Item) -> Judgement:
        nonlocal done
        judgement = await run.judge(item, live=True)
        done += 1
        if progress is not None:
            progress(done, total)
        return judgement

    if progress is not None:
        progress(done, total)  # the rows the cache decided: the live pass's pace is of the rest
    tasks = [asyncio.ensure_future(one(item)) for item in items]
    try:
        judgements = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:  # stop the others before the cache and connections close under them
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return {item.index: judgement for item, judgement in zip(items, judgements)}


async def preflight(chain: Sequence[Judge]) -> tuple[tuple[Judge, ...], list[str]]:
    """The judges that pass their preflight, and a note for each one that is down (it is left out:
    the chain exists to survive that). A judge set up wrongly (a refused key, a model the endpoint
    does not serve) stops the run, and so does a chain with no judge up."""
    failures = await asyncio.gather(*(judge.preflight() for judge in chain), return_exceptions=True)
    for failure in failures:
        if failure is not None and not isinstance(failure, JudgeDown):
            raise failure
    working = tuple(judge for judge, failure in zip(chain, failures) if failure is None)
    if not working:
        raise next(f for f in failures if f is not None)
    dropped = [
        f"left {judge.label} out of the chain: {redact(failure.message)}"
        for judge, failure in zip(chain, failures)
        if isinstance(failure, JudgeDown)
    ]
    return working, dropped
