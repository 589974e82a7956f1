"""Asking a system every gold item: at most `concurrency` questions in flight, a timeout per call, retries
(with backoff) only for transport errors, and each finished item journaled before it counts as done (the
journal committed every ``journal.COMMIT_EVERY`` second and when the asking stops, however it stops).

Whatever the system does, every item's record gets its response and Reply, in gold order: an exception,
a ``SystemFailure``, a timeout, a reply that is not a ``Reply`` with its text, or transport errors past
the retries each become that record's empty response with ``reply.error`` saying why (the
``system_error`` outcome). Nothing the system does ends the run early or loses an item.

A system that never returns is abandoned at its timeout, not waited for. An async call is cancelled and
left to finish (or not) on its own; a sync system's call runs in a thread, and a thread cannot be stopped,
so ``run_to_end`` gives the event loop a default executor of daemon threads, one per call: a hung call
holds neither the run's end nor the interpreter's exit (``ThreadPoolExecutor``'s workers are joined at
exit, and ``asyncio.run`` waits for them and for every task it cancels).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import warnings
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .. import net
from ..concurrency import AdaptiveLimit, Turn
from ..errors import UsageError
from ..parts import Reply
from ..records import Record
from .gold_set import GoldSet, with_reply
from .journal import COMMIT_EVERY
from .systems.base import ReplyClock, SystemFailure, TransportError, timing_replies
from .systems.threads import DaemonThreads

if TYPE_CHECKING:
    from .journal import Journal
    from .systems.base import System

Progress = Callable[[int, int], None]  # (items done, items in all): resumed items count as done
MAX_REASON_CHARS = 1000  # an error's text kept in reply.error (an HTML error page says nothing more)
T = TypeVar("T")


@dataclass(frozen=True)
class RunOptions:
    """How the system is asked. `timeout` is per call (each retry has its own), in seconds; a transport
    error is retried `retries` times, after `backoff` seconds, doubling each time."""

    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.5

    def __post_init__(self) -> None:
        for name, value, least in (("concurrency", self.concurrency, 1), ("retries", self.retries, 0)):
            if type(value) is not int or value < least:
                raise UsageError(f"{name} must be a whole number of at least {least}, got {value!r}")
        for name, number in (("timeout", self.timeout), ("backoff", self.backoff)):
            if not isinstance(number, (int, float)) or not number >= 0 or number == float("inf"):
                raise UsageError(f"{name} must be a number of seconds, got {number!r}")
        if self.timeout <= 0:
            raise UsageError(f"timeout must be more than 0 seconds, got {self.timeout!r}")


@dataclass(frozen=True)
class _Asked:
    reply: Reply  # with its text (the record's response to be)
    retry: bool  # transport failed on every attempt: a resumed run asks again


async def ask_all(
    gold: GoldSet,
    system: System,
    journal: Journal,
    options: RunOptions,
    progress: Progress | None = None,
) -> list[Record]:
    """Every gold record with its response and Reply (no verdicts), in gold order. Records the journal
    has answered are not asked again; each new answer is journaled as it comes."""
    records: list[Record | None] = [journal.answered(record) for record in gold.records]
    pending = iter([index for index, record in enumerate(records) if record is None])
    done = len(records) - sum(record is None for record in records)
    if progress is not None:
        progress(done, len(records))

    at_once = SystemLimit(options.concurrency)

    async def worker() -> None:
        nonlocal done
        for index in pending:  # one shared iterator: each item is taken by exactly one worker
            asked = await at_once.ask(gold.records[index], system, options)
            answered = with_reply(gold.records[index], asked.reply)
            journal.record_answer(gold.items[index], answered, retry=asked.retry)
            records[index] = answered
            done += 1
            if progress is not None:
                progress(done, len(records))

    try:
        async with asyncio.TaskGroup() as workers:  # an error of our own (a full disk) stops them all
            committing = workers.create_task(_commit_every(journal, COMMIT_EVERY))
            asking = [workers.create_task(worker()) for _ in range(options.concurrency)]
            await asyncio.gather(*asking)
            committing.cancel()
    except BaseExceptionGroup as group:  # the error itself (an OutputError), not the group's wrapping
        raise _first(group) from None
    finally:  # the end, an error or Ctrl-C (the task cancelled): what was answered is made durable
        journal.commit()
    return [record for record in records if record is not None]


async def _commit_every(journal: Journal, seconds: float) -> None:
    """Commit the journal every `seconds` while the run asks: the answers written are durable within
    about that long, in a group (one fsync), however quiet the run is after them."""
    while True:
        await asyncio.sleep(seconds)
        journal.commit()


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


class SystemConcurrencyLowered(UserWarning):
    """The system's server turned questions away for load, and fewer are sent to it at once (said once)."""


class SystemLimit:
    """The questions in flight to the system: at most --concurrency, halved when its server says it is
    busy (HTTP 429 or 503) and grown back after a run of answers (``concurrency.AdaptiveLimit``). A
    question turned away with more in flight than the lowered limit allows is asked again in its turn,
    without using a retry (``concurrency``)."""

    def __init__(self, most: int) -> None:
        self.limit = AdaptiveLimit(most, most)
        self.said = False

    async def ask(self, record: Record, system: System, options: RunOptions) -> _Asked:
        turn: Turn | None = await self.limit.acquire()

        async def busy(exc: TransportError) -> None:
            nonlocal turn
            assert turn is not None
            before = self.limit.limit
            if not await self.limit.overloaded(turn):
                return  # one at a time and still busy: the server's trouble, and the retries count it
            self._say_lowered(exc, before)
            turn = None
            await self.limit.release()
            turn = await self.limit.acquire()
            raise _AskAgain

        try:
            while True:
                try:
                    asked = await ask_item(record, system, options, busy=busy)
                except _AskAgain:
                    continue
                if asked.reply.error is None:
                    await self.limit.succeeded()
                return asked
        finally:
            if turn is not None:
                await self.limit.release()

    def _say_lowered(self, exc: TransportError, before: int) -> None:
        if self.limit.limit >= before or self.said:
            return
        self.said = True
        warnings.warn(
            SystemConcurrencyLowered(
                f"the system answered {_said(exc)} with {before} questions at once: asking it "
                f"{self.limit.limit} at once now (one more after each run of answers, up to "
                f"--concurrency {self.limit.most}); the questions turned away are asked again"
            ),
            stacklevel=1,
        )


class _AskAgain(Exception):
    """A question turned away for load, its turn given back and taken again: ask it anew."""


async def ask_item(
    record: Record,
    system: System,
    options: RunOptions,
    busy: Callable[[TransportError], Awaitable[None]] | None = None,
) -> _Asked:
    """One item asked until it has an answer, a failure of the system's, or no retries left. `busy` is
    told of a server that said it is busy (it may raise to have the item asked again in a later turn)."""
    question, scope = record.question, record.scope or None
    for attempt in range(1, options.retries + 2):
        started = time.monotonic()
        try:
            answer = await within(options.timeout, lambda: system.ask(question, scope))
        except TransportError as exc:
            if exc.overload and busy is not None:
                await busy(exc)
            if attempt > options.retries:
                tries = f"{attempt} attempt{'s' if attempt > 1 else ''}"
                return _Asked(_failed(f"transport error, {tries}: {_said(exc)}", started), True)
            await asyncio.sleep(_pause(options, attempt, exc))
            continue
        except SystemFailure as exc:  # its reply as it came, when there was one: the row's trace
            raw = getattr(exc, "raw", None)
            reply = Reply(raw=raw if isinstance(raw, str) else None)
            return _Asked(_failed(_said(exc), started, reply), False)
        except CallTimedOut as exc:
            reason = f"no reply within {options.timeout:g} s (the timeout){BLOCKED_LOOP if exc.held else ''}"
            return _Asked(_failed(reason, started), False)
        except Exception as exc:  # the system's code raised: its failure on this item, not the run's
            reason = f"the system raised {type(exc).__name__}: {_said(exc)}"
            return _Asked(_failed(reason, started), False)
        return _Asked(_answered(answer, started), False)
    raise AssertionError("unreachable: the last attempt returns")  # pragma: no cover


def _pause(options: RunOptions, attempt: int, exc: BaseException) -> float:
    """The wait before the next attempt: the backoff, doubled each time; longer when the server asked
    for longer (HTTP 429's Retry-After), up to ``net.MAX_RETRY_AFTER``."""
    asked = getattr(exc, "retry_after", None)
    wanted = min(float(asked), net.MAX_RETRY_AFTER) if isinstance(asked, (int, float)) and asked > 0 else 0.0
    return max(float(options.backoff * 2 ** (attempt - 1)), wanted)


class CallTimedOut(Exception):
    """The system did not reply within the timeout (apart from a TimeoutError the system raises);
    `held`: it replied late, and its code runs on the event loop, where it may have held every timer."""

    def __init__(self, held: bool = False) -> None:
        super().__init__()
        self.held = held


BLOCKED_LOOP = (
    ": the call held the event loop past its timeout (code that blocks inside an async def system "
    "does; make it a plain def, which runs in a thread, or await the blocking part with asyncio.to_thread)"
)
# How long assay's own reading of a reply that came in time may run past the timeout: it is bounded
# (limits.py) and takes well under a second; this only keeps a broken plug-in from holding the run.
READING_GRACE = 30.0


async def within(seconds: float, call: Callable[[], Awaitable[T]]) -> T:
    """The call's result, or CallTimedOut after `seconds`. Unlike ``asyncio.wait_for``, a call that
    ignores its cancellation (it catches CancelledError, or waits on a thread) is abandoned, not
    waited for: the timeout is a promise to the run, whatever the system does. A call that returns
    past it all the same (it blocked the loop, so the timer could not fire) is timed out too.

    The time measured is the system's: up to the moment its adapter said its reply was in
    (``systems.base.reply_arrived``), not assay's reading of the reply after it. A system that never
    says (a plug-in's) is measured up to its return."""
    clock = ReplyClock()
    started = time.monotonic()

    async def timed() -> tuple[T, float]:
        value = await call()
        return value, time.monotonic()  # when the call returned, not when the loop got round to it

    with timing_replies(clock):  # the task copies the context, and the clock with it
        task = asyncio.ensure_future(timed())
    try:
        finished, _ = await asyncio.wait({task}, timeout=seconds)
        if not finished and _in_time(clock, started, seconds):  # the reply came: assay is reading it
            finished, _ = await asyncio.wait({task}, timeout=READING_GRACE)
    finally:
        if not task.done():
            task.cancel()  # abandoned: it may still finish, and nobody waits for it
    if not finished:
        task.add_done_callback(_forget)
        raise CallTimedOut
    value, returned = task.result()
    if not _in_time(clock, started, seconds, returned):
        raise CallTimedOut(held=not clock.off_loop)
    return value


def _in_time(clock: ReplyClock, started: float, seconds: float, returned: float | None = None) -> bool:
    """Whether the system replied within `seconds` of `started`: by its adapter's clock, else by when
    the call returned (False when neither is known yet)."""
    replied = clock.replied_at if clock.replied_at is not None else returned
    return replied is not None and replied - started <= seconds


def _forget(task: asyncio.Future[Any]) -> None:
    """An abandoned call's late end: its result or error is nobody's (and not "never retrieved")."""
    if not task.cancelled():
        task.exception()


def _answered(answer: Any, started: float) -> Reply:
    """An answer with the call's latency; a value that is not a Reply with its text, or one carrying an
    error, is a failed reply."""
    if not isinstance(answer, Reply) or not isinstance(answer.text, str):
        return _failed(f"malformed reply: ask() returned {_kind(answer)}", started)
    if answer.error:
        return _failed(_cut(str(answer.error)), started, answer)
    return dataclasses.replace(answer, latency=_seconds(started))


def _failed(reason: str, started: float, reply: Reply | None = None) -> Reply:
    """A failed reply: no text (the response is empty), the error said, what came kept."""
    return dataclasses.replace(reply or Reply(), text="", error=reason, latency=_seconds(started))


def _seconds(started: float) -> float:
    return round(time.monotonic() - started, 4)


def _said(exc: BaseException) -> str:
    """An exception's message, cut to MAX_REASON_CHARS; its type's name when it says nothing."""
    try:
        text = str(exc).strip() or type(exc).__name__
    except Exception:  # a system's own exception whose __str__ raises (or is a 5,000-digit number)
        text = type(exc).__name__
    return _cut(text)


def _cut(text: str) -> str:
    """A reason as a row keeps it: cut, a lone surrogate replaced and secrets redacted (net.clean)."""
    return net.clean(text if len(text) <= MAX_REASON_CHARS else f"{text[:MAX_REASON_CHARS]}... (cut)")


def _kind(value: Any) -> str:
    if isinstance(value, Reply):
        return "a Reply without its text (text=None)"
    return f"{'None' if value is None else f'a {type(value).__name__}'}, not a Reply"


# --- the event loop of a run ------------------------------------------------------------------------------


def run_to_end(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` in a new event loop whose default executor (``asyncio.to_thread``'s) starts a daemon
    thread per call, and close the loop without waiting for calls abandoned at their timeout."""
    loop = asyncio.new_event_loop()
    try:
        loop.set_default_executor(DaemonThreads())
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel_leftovers(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
            main.close()  # when it never ran (a no-op when it did)


def _cancel_leftovers(loop: asyncio.AbstractEventLoop, grace: float = 1.0) -> None:
    """Cancel what is left (abandoned calls, or everything after Ctrl-C) and give it `grace` seconds
    to end; a task that ignores its cancellation is left behind, as it would hold the run forever."""
    leftovers = asyncio.all_tasks(loop)
    for task in leftovers:
        task.cancel()
    if leftovers:
        loop.run_until_complete(asyncio.wait(leftovers, timeout=grace))
    for task in leftovers:
        if task.done():
            _forget(task)


__all__ = [
    "CallTimedOut",
    "DaemonThreads",
    "Progress",
    "RunOptions",
    "SystemFailure",
    "TransportError",
    "ask_all",
    "ask_item",
    "run_to_end",
    "within",
]
