"""One HTTP layer: what the judges, the systems under test and the URL check share about asking a server.

- **Timeouts.** A request's ``timeout`` is a total deadline: connecting, sending and reading the whole body
  (httpx's own timeout bounds each read, so a body that drips a byte at a time would never end):
  ``within_deadline``. A request past it is described by ``failure`` ("no whole reply within the 2 s
  timeout").
- **Which failures are worth asking again.** ``RETRY_STATUSES``: 408 (the server timed out waiting for the
  request), 429 (rate-limited), 500 and the gateway statuses 502, 503, 504; and every transport fault
  (connection refused or reset, a timeout). A system under test answering 500 has answered: its caller
  takes 500 out (``SYSTEM_RETRY_STATUSES``), since that reply is scored against it.
- **How long to wait.** ``retry_after`` reads the server's Retry-After (RFC 9110: delay-seconds, or an
  HTTP date); one cap, ``MAX_RETRY_AFTER``: a wait asked past it is not waited for (``past_cap``): the judge
  gives the row to the next judge at once, the URL check keeps the answer it has. Without Retry-After,
  ``backoff``: exponential, with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter",
  2015: many clients waiting on one server do not retry together), each wait at most the cap.
- **Secrets never leave the process** (issue 9): an API key sent, anything that looks like an Authorization
  value (``Bearer ...``, ``Basic ...``) and the userinfo of a URL (``http://user:pw@host``) become
  ``[redacted]`` in every reply, error message and URL shown (``redact``, ``display_url``), so a server
  that echoes the request cannot carry them into a run row, a judge's rationale, a trace, a report or a
  cache. ``clean`` also replaces a lone surrogate (``"\\ud800"``, which JSON allows and UTF-8 cannot
  encode) by U+FFFD instead of crashing every writer.

No httpx here: the callers own their clients (httpx costs a tenth of a second to import, which a run that
asks no server should not pay).
"""

from __future__ import annotations

import asyncio
import base64
import math
import random
import time
from collections.abc import Awaitable
from email.utils import parsedate_to_datetime
from typing import TypeVar
from urllib.parse import unquote, urlsplit

import regex

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})  # the request may pass if sent again
SYSTEM_RETRY_STATUSES = RETRY_STATUSES - {500}  # a system's own 500 is its answer to the question
MAX_RETRY_AFTER = 60.0  # seconds: the longest wait for one retry, asked by the server or backed off
_DELAY_SECONDS = regex.compile(r"\s*[0-9]+(?:\.[0-9]+)?\s*")  # "inf", "1e400", "-5", "1_0" are no delay

REDACTED = "[redacted]"
_MIN_SECRET = 4  # shorter values are not redacted literally (they would blank common words)
_secrets: set[str] = set()  # every key, URL password and secret header value this process sends
# An Authorization value in prose: the scheme, then a token-like word (six or more token characters,
# one at least a digit or a symbol, so that "a basic answer" stays as it is). The literal values
# this process sends are registered and redacted whatever they look like.
_TOKEN = r"(?=[A-Za-z0-9._~+/=-]*?[0-9._~+/=-])[A-Za-z0-9._~+/=-]{6,}"
_AUTH_VALUE = regex.compile(rf"\b(Bearer|Basic)\s+{_TOKEN}", regex.IGNORECASE)
_USERINFO = regex.compile(r"\b([a-z][a-z0-9+.-]*://)[^/\s@]+@", regex.IGNORECASE)


# --- timeouts ---------------------------------------------------------------------------------------


async def within_deadline(request: Awaitable[T], timeout: float) -> T:
    """The request's result within `timeout` seconds from now, body and all (TimeoutError past it):
    httpx reads a non-streamed body before it returns, so the deadline covers it."""
    return await asyncio.wait_for(request, timeout)


def failure(exc: BaseException, timeout: float, deadline: str = "timeout") -> str:
    """What went wrong with a request, for a message: the deadline passed (named `deadline`), or the
    exception's type and its text, redacted (an error's text can hold the URL, and with it a password)."""
    if isinstance(exc, TimeoutError):
        return f"no whole reply within the {timeout:g} s {deadline}"
    detail = redact(str(exc))
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


# --- retries ----------------------------------------------------------------------------------------


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """The seconds a Retry-After header asks to wait (delay-seconds, or an HTTP date: 0 once past), or
    None when there is none or it is no delay. Not capped: see ``past_cap``."""
    if value is None:
        return None
    if _DELAY_SECONDS.fullmatch(value):
        seconds = float(value)
        return seconds if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(when - (time.time() if now is None else now), 0.0)


def past_cap(seconds: float | None, cap: float = MAX_RETRY_AFTER) -> bool:
    """Whether a server asked for a wait longer than the cap (which is then not waited for)."""
    return seconds is not None and seconds > cap


def capped(seconds: float | None, cap: float = MAX_RETRY_AFTER) -> float | None:
    """A wait held to the cap, for a caller whose retries are another's to decide."""
    return None if seconds is None else min(seconds, cap)


def backoff(base: float, attempt: int, cap: float = MAX_RETRY_AFTER) -> float:
    """The wait before retry number `attempt` (0 for the first): a uniform draw up to base * 2**attempt,
    at most `cap` ("full jitter")."""
    return random.uniform(0, min(cap, base * 2**attempt))


# --- secrets ----------------------------------------------------------------------------------------


def register_secret(value: str) -> None:
    """A value this process sends (an API key, a URL's password, a header read from the environment)
    that no output may show."""
    if len(value) >= _MIN_SECRET:
        _secrets.add(value)


def register_url(url: str) -> None:
    """The userinfo of a URL, as it is sent: user name, password, and the Basic value made of them."""
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:  # not a URL: the client says so later, and display_url still hides any userinfo
        return
    secret = password if password is not None else user  # a user name alone: a gateway's token
    if secret:
        register_secret(secret)
        register_secret(unquote(secret))
    if user is not None or password is not None:  # the Basic value httpx makes of them
        userinfo = f"{unquote(user or '')}:{unquote(password or '')}"
        register_secret(base64.b64encode(userinfo.encode()).decode())


def redact(text: str) -> str:
    """The text without secrets: registered values, Authorization values and URL userinfo."""
    text = _AUTH_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    for secret in sorted(_secrets, key=len, reverse=True):  # a longer secret may hold a shorter one
        text = text.replace(secret, REDACTED)
    return text


def display_url(url: str) -> str:
    """The URL without its userinfo, for labels, messages, signatures and cache keys."""
    return str(_USERINFO.sub(lambda m: m.group(1), url))


def clean(text: str) -> str:
    """Text from a server, safe to keep and write: lone surrogates replaced, secrets redacted."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate; a pair split into two code points is joined again
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return redact(text)


__all__ = [
    "MAX_RETRY_AFTER",
    "REDACTED",
    "RETRY_STATUSES",
    "SYSTEM_RETRY_STATUSES",
    "backoff",
    "capped",
    "clean",
    "display_url",
    "failure",
    "past_cap",
    "redact",
    "register_secret",
    "register_url",
    "retry_after",
    "within_deadline",
]
