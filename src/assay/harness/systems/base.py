"""What every system under test shares: the protocol, the two ways it fails, and ``answer_from``, which
turns what a system returned (a text, or a mapping) into a ``parts.Reply`` with its text.

A system's failure comes in two kinds, because the runner treats them differently: a TransportError
(connection refused or reset, a timeout, HTTP 429/502/503/504) may pass if asked again, so it is retried;
a SystemFailure (the system raised, answered HTTP 4xx/500, returned something that is not a reply) is
the system's own answer to that item, and asking again would only repeat it.

The mapping a system may return (unknown keys are ignored: a bot's reply carries extras of its own, such
as timings or debug traces; a dataclass, or a pydantic model's ``model_dump()``, is read as its mapping):

    text       the reply's text; also spelled ``answer``, ``response``, ``reply_text`` or ``result``
               (the one of them that is a text: two different texts are ambiguous)
    citations  (or ``sources``) a list: strings ("doc p.3", "[Source: doc, p.3]") or mappings {document,
               page, quote, start, end} (``document`` may be spelled ``doc``, ``source`` or ``title``,
               the first given wins); when absent or empty, the citations written in the text are read
               (citations.py)
    contexts   a list: strings (the passage; its document unknown, "") or mappings {document, page,
               text, start, end} (``text`` may be spelled ``content`` or ``page_content``)
    blocked    true when a guard stopped the reply (then the text may be missing: "")
    route      which path of the system answered; also spelled ``brain_used`` (the seed's name)
    model      the model that wrote the reply

Anything else (None, bytes, a number, a citation without a document, a page that is not a positive
whole number, NaN) is a SystemFailure whose reason names the field (reading.py). Every field, every
count and an HTTP body have a bound (limits.py, docs/limits.md): a reply past one is a SystemFailure
naming the field, its size and the limit, checked before the field is parsed.

The runner's timeout measures the system, never assay's reading of its reply: an adapter calls
``reply_arrived`` the moment the system's own reply is in (the function returned, the body was read),
and the runner's clock (``ReplyClock``) stops there.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from ...net import clean
from ...parts import Reply
from .limits import MAX_REPLY_CHARS, OverLimit, check_reply, cut_raw
from .reading import Malformed, reply_of

__all__ = [
    "MAX_REPLY_CHARS",
    "ReplyClock",
    "System",
    "SystemFailure",
    "TransportError",
    "answer_from",
    "reply_arrived",
    "timing_replies",
]


class TransportError(Exception):
    """The request did not get through (retryable): connection refused or reset, a timeout, HTTP
    408/429/502/503/504 (``net.SYSTEM_RETRY_STATUSES``). ``retry_after`` is the wait in seconds the
    server asked for, when it did."""

    def __init__(self, reason: str, retry_after: float | None = None, overload: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.overload = overload  # the server said it is busy (429, 503): fewer are sent to it at once


class SystemFailure(Exception):
    """The system's own failure (not retried): it raised, answered HTTP 4xx/500, or returned something
    that is not a reply. ``reason`` is what the run row's ``reply.error`` says; ``raw`` is the reply as
    it came, when there was one."""

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class System(Protocol):
    """A system under test, as the runner sees it. An adapter may also have ``async def probe(self)``,
    the check before a run asks it anything (probe.py: raises SystemDown when the system is down)."""

    spec: str  # as given on the command line

    def signature(self) -> str:
        """The spec and its options (never a secret): the run's signature and the journal's header."""
        ...

    async def ask(self, question: str, scope: str | None) -> Reply:
        """The system's reply (its text set) to one question, restricted to `scope` (a document id)
        when given; raises TransportError or SystemFailure."""
        ...

    async def aclose(self) -> None:
        """Release what the system holds (an HTTP client's connections)."""
        ...


def answer_from(value: object, *, raw: str | None = None) -> Reply:
    """The Reply (its text set) of what a system returned: a Reply with its text, a text, or a mapping
    (see the module's docstring); SystemFailure("malformed reply: ...") for anything else, and
    SystemFailure naming the field and its limit for a reply past a bound. `raw` is kept as the
    Reply's raw (cut to limits.RAW_LIMIT)."""
    raw = cut_raw(raw)
    try:
        answer = _checked(value) if isinstance(value, Reply) else reply_of(value, raw)
    except OverLimit as exc:
        reason = clean(str(exc))
        reason += f" {TEXT_TOO_LONG}" if reason.startswith("the reply's text is") else ""
        raise SystemFailure(reason, raw=raw) from None
    except (Malformed, TypeError) as exc:
        raise _malformed(str(exc), raw) from None
    if answer.text is None:
        raise _malformed("a Reply without its text (give text='' for a reply without one)", raw)
    return answer


TEXT_TOO_LONG = "(an answer is never that long: does the system echo its contexts?)"


def _checked(reply: Reply) -> Reply:
    """A Reply a system built itself, held to the bounds of one read from a mapping, and its texts
    cleaned as a mapping's are (a lone surrogate replaced, secrets redacted); its raw cut."""
    check_reply(reply)
    for name in ("raw", "error"):
        if getattr(reply, name) is not None and not isinstance(getattr(reply, name), str):
            raise TypeError(f"the Reply's {name} is a {type(getattr(reply, name)).__name__}, not a text")
    return dataclasses.replace(
        reply,
        text=_clean(reply.text),
        citations=tuple(
            dataclasses.replace(part, document=clean(part.document), quote=_clean(part.quote))
            for part in reply.citations
        ),
        contexts=tuple(
            dataclasses.replace(part, document=clean(part.document), text=_clean(part.text))
            for part in reply.contexts
        ),
        route=_clean(reply.route),
        model=_clean(reply.model),
        raw=_clean(cut_raw(reply.raw)),
        error=_clean(reply.error),
    )


def _clean(text: str | None) -> str | None:
    return None if text is None else clean(text)


def _malformed(reason: str, raw: str | None) -> SystemFailure:
    """The failure of a reply that is not one; the reason cleaned (it may quote a key of the reply's)."""
    return SystemFailure(f"malformed reply: {clean(reason)}", raw=raw)


# --- the clock of the runner's timeout --------------------------------------------------------------


@dataclass
class ReplyClock:
    """When the system's own reply came in (``time.monotonic()``), as its adapter saw it: the runner's
    timeout measures the system up to there, and the reading after it is assay's. `off_loop`: the
    system's code ran off the event loop (a plain function in a thread, a server over HTTP), so it
    cannot be what held the loop when the runner's timer was late."""

    replied_at: float | None = None
    off_loop: bool = False


_CLOCK: ContextVar[ReplyClock | None] = ContextVar("assay_reply_clock", default=None)


@contextmanager
def timing_replies(clock: ReplyClock) -> Iterator[ReplyClock]:
    """`clock` is the one ``reply_arrived`` sets for the tasks (and threads) started inside the block
    (each copies the context it starts in)."""
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)


def reply_arrived(*, off_loop: bool) -> None:
    """The system's own reply is in: the runner's clock stops (the last call wins: a plain function
    that returns an awaitable has replied when it is awaited). A no-op outside a runner's call."""
    clock = _CLOCK.get()
    if clock is not None:
        clock.replied_at, clock.off_loop = time.monotonic(), off_loop
