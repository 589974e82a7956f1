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
- **Secrets never leave the process** (issues 9 and 22): an API key sent, anything that looks like an
  Authorization value (``Bearer ...``, ``Basic ...``) and the userinfo of a URL (``http://user:pw@host``)
  become ``[redacted]`` in every reply and error message (``redact``), in every spelling a server may
  echo them in: as sent, JSON-escaped (``\\u00e4``, ``\\/``), URL-encoded, base64 (a Basic value), and
  escaped twice over. So a server that echoes the request cannot carry them into a run row, a judge's
  rationale, a trace, a report or a cache. A spec or URL is named, printed, signed and written without
  its userinfo (``display_url``); the one used to connect keeps it. ``clean`` also replaces a lone
  surrogate (``"\\ud800"``, which JSON allows and UTF-8 cannot encode) by U+FFFD instead of crashing
  every writer.

No httpx here: the callers own their clients (httpx costs a tenth of a second to import, which a run that
asks no server should not pay).
"""

from __future__ import annotations

import math
import random
import re
import string
import threading
import time
from base64 import b64encode, urlsafe_b64encode
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
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
# Every key, URL password and secret header value this process sends, with the pattern of its spellings.
_secrets: dict[str, re.Pattern[str]] = {}
_secrets_lock = threading.Lock()
# An Authorization value in prose: the scheme, then a token-like word (six or more token characters,
# one at least a digit or a symbol, so that "a basic answer" stays as it is). The literal values
# this process sends are registered and redacted whatever they look like. A backslash is a token
# character: a JSON-escaped token ("abc\/def") is one token, not a redacted head and a shown tail.
_TOKEN = r"(?=[A-Za-z0-9._~+/=\\-]*?[0-9._~+/=\\-])[A-Za-z0-9._~+/=\\-]{6,}"
_AUTH_VALUE = regex.compile(rf"\b(Bearer|Basic)\s+{_TOKEN}", regex.IGNORECASE)
# A URL's userinfo: from "://" (or its JSON spelling ":\/\/") to the last "@" before the next "/".
# Anchored on "://" itself, never on the scheme before it: a scheme-shaped run ("a.a.a.a...") tried at
# each of its letters made the search quadratic (80,000 characters took 50 s). In a user's URL (a spec)
# anything up to that "@" may be userinfo ("p@ss", "p#ss"); in a server's text the userinfo also stops
# at a quote or an angle bracket, so that the JSON or HTML around a URL is never swallowed.
_SPEC_USERINFO = regex.compile(r"(:(?:\\/|/){2})[^/\s]*@")
_TEXT_USERINFO = regex.compile(r"(:(?:\\/|/){2})[^/\s\"'<>]*@")
# How JSON writes a character besides \uXXXX (which it may use for any): a backslash, then this.
_JSON_SHORT = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}


# --- timeouts ---------------------------------------------------------------------------------------


async def within_deadline(request: Awaitable[T], timeout: float) -> T:
    """The request's result within `timeout` seconds from now, body and all (TimeoutError past it):
    httpx reads a non-streamed body before it returns, so the deadline covers it."""
    import asyncio  # here: the command line loads this module for its messages, with no request to make

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
    from email.utils import parsedate_to_datetime  # here: slow to load, and an HTTP date is rare

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
    that no output may show, in any spelling (``redact``)."""
    if len(value) < _MIN_SECRET:
        return
    with _secrets_lock:
        if value not in _secrets:  # compiled once, here: a few hundredths of a second
            _secrets[value] = _secret_pattern(value)


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
        register_secret(_base64(userinfo)[0])  # padded: its forms include it unpadded


def redact(text: str) -> str:
    """The text without secrets: Authorization values, URL userinfo, and each registered secret in
    every spelling a server may send it back in (``_spellings``): every occurrence of each, and where
    two overlap, their union. Linear in the text's length: one search per secret, each trying every
    place once against a pattern of bounded steps."""
    text = _AUTH_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _TEXT_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    with _secrets_lock:
        patterns = list(_secrets.values())
    found = sorted(span for pattern in patterns for span in _overlapping(pattern, text))
    spans: list[list[int]] = []
    for start, end in found:
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    pieces, kept = [], 0
    for start, end in spans:
        pieces += [text[kept:start], REDACTED]
        kept = end
    return "".join([*pieces, text[kept:]])


def _overlapping(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """Where the pattern matches, each place it starts at (an occurrence may begin inside the last
    one: "abab" twice in "ababab"). Each search skips ahead to the next place a spelling can start."""
    at = 0
    while (match := pattern.search(text, at)) is not None:
        yield match.span()
        at = match.start() + 1


def _secret_pattern(secret: str) -> re.Pattern[str]:
    """Every spelling of a secret and of its base64, as one alternation (the longest form first). One
    pattern per secret, not one for all: a pattern of every secret, compiled again as each is
    registered, took seconds once a process had sent fifty. The stdlib's re: several times faster than
    regex here, whose features it does not need."""
    ordered = sorted(_literal_forms(secret), key=lambda form: (-len(form), form))
    return re.compile(_secrets_spelling(ordered))


def _literal_forms(secret: str) -> set[str]:
    """The secret and its base64 (standard and URL-safe alphabets), each with its padding and without
    (a server may drop it; a longer form is tried first, so "[redacted]=" never shows it); the Basic
    value of a URL's user and password is registered as a secret of its own."""
    forms = {secret, *_base64(secret)}
    return forms | {form.rstrip("=") for form in forms if len(form.rstrip("=")) >= _MIN_SECRET}


def _base64(text: str) -> list[str]:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no client sends it, so no server echoes its base64
        return []
    return [b64encode(data).decode(), urlsafe_b64encode(data).decode()]


def _secrets_spelling(literals: list[str]) -> str:
    """A pattern for the literals however a server may spell each of their characters: as it is, as
    JSON escapes it (``\\uXXXX`` of either case, a surrogate pair beyond the BMP; ``\\/``, ``\\"`` and
    the other short escapes), or URL-encoded (``%XX`` of its UTF-8 bytes, either case; ``+`` for a
    space); escaped again (JSON text inside a JSON string: ``\\\\u00e4``; ``%25C3``). Spelled character
    by character, so a secret half escaped (only its ``/`` as ``\\/``) is still one match.

    The alternation is split by how the text at a place starts (a character as it is, a run of
    backslashes, a "%"), then by the first character's spelling, each followed by the rests of the
    literals that start so (longest first): a place is tried against the few literals that can start
    there, the run of backslashes or "%25"s read once for all of them (five times faster)."""
    plain: dict[str, list[str]] = {}
    escaped: dict[str, list[str]] = {}
    encoded: dict[str, list[str]] = {}
    for literal in literals:
        first = _spellings(literal[0])
        rest = "".join(_spellings(char).anyhow() for char in literal[1:])
        for heads, ways in ((plain, first.plain), (escaped, first.escaped), (encoded, first.encoded)):
            for head in ways:
                heads.setdefault(head, []).append(rest)
    branches = [_grouped(plain)]
    branches += [f"{_ESCAPES}(?:{_grouped(escaped)})"] if escaped else []
    branches += [f"{_PERCENTS}(?:{_grouped(encoded)})"] if encoded else []
    return "|".join(branches)


def _grouped(rests_by_head: dict[str, list[str]]) -> str:
    return "|".join(f"{head}(?:{'|'.join(rests)})" for head, rests in rests_by_head.items())


# A backslash escaping, up to three JSON texts deep (1, 3 or 7 of them; a backslash itself is 2, 4
# or 8), and "%" up to three URL-encodings deep: bounded, so that a run of backslashes costs each place
# it is tried a few steps, never the run. Possessive: what follows an escape's run is never a backslash.
_BACKSLASHES = r"\\\\{0,7}"  # one, then up to seven: it starts with a literal, which re looks for fast
_ESCAPES = _BACKSLASHES + "+"
_PERCENTS = "%(?:25){0,3}"


@dataclass(frozen=True)
class _Spellings:
    """The ways one character may be written, as patterns: as it is, after a run of backslashes (its
    JSON escapes), and after a "%" (its URL encoding)."""

    plain: tuple[str, ...]
    escaped: tuple[str, ...] = ()
    encoded: tuple[str, ...] = ()

    def anyhow(self) -> str:
        if not self.escaped and not self.encoded:
            return "|".join(self.plain)  # one literal character: no group, so that literals run together
        escaped, encoded = "|".join(self.escaped), "|".join(self.encoded)
        return f"(?:{'|'.join(self.plain)}|{_ESCAPES}(?:{escaped})|{_PERCENTS}(?:{encoded}))"


# Never escaped by a JSON encoder (it escapes quotes, backslashes, controls and, by choice, "/" and what
# is not ASCII, and some "<", ">", "&", "'") nor by URL-encoding (RFC 3986's unreserved characters): as
# they are only. A token of them is a literal, which compiles at once and is searched fast (spelling
# every character every way made a 1,000-character token's pattern take 7 s to compile).
_PLAIN_ONLY = frozenset(string.ascii_letters + string.digits + "-._~")


def _spellings(char: str) -> _Spellings:
    if char in _PLAIN_ONLY:
        return _Spellings((re.escape(char),))
    plain = [_BACKSLASHES if char == "\\" else re.escape(char)]  # an escaped backslash: more of them
    if char == " ":
        plain.append(r"\+")
    escaped = [re.escape(_JSON_SHORT[char])] if char in _JSON_SHORT and char != "\\" else []
    units = char.encode("utf-16-be", "surrogatepass")  # beyond the BMP, JSON writes a surrogate pair
    escaped.append(_ESCAPES.join(f"u(?i:{units[at : at + 2].hex()})" for at in range(0, len(units), 2)))
    encoded = char.encode("utf-8", "surrogatepass").hex()
    pairs = [encoded[at : at + 2] for at in range(0, len(encoded), 2)]
    return _Spellings(tuple(plain), tuple(escaped), (f"(?i:{_PERCENTS.join(pairs)})",))


def display_url(url: str) -> str:
    """A spec, URL or message without the userinfo of any URL in it (``openai:http://u:pw@host/v1``
    is ``openai:http://host/v1``): the one form in which a spec is named, printed, signed or written
    (labels, messages, signatures, journals, reports, cache keys). The spec used to connect keeps it."""
    return str(_SPEC_USERINFO.sub(lambda m: m.group(1), url))


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
