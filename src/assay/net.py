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

import asyncio
import math
import random
import re
import threading
import time
from base64 import b64encode, urlsafe_b64encode
from collections.abc import Awaitable
from dataclasses import dataclass
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
_secrets_lock = threading.Lock()
_secret_pattern: tuple[int, re.Pattern[str] | None] = (0, None)  # (len(_secrets) it was made of, it)
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
    that no output may show, in any spelling (``redact``)."""
    if len(value) >= _MIN_SECRET:
        with _secrets_lock:
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
        register_secret(_base64(userinfo)[0])


def redact(text: str) -> str:
    """The text without secrets: Authorization values, URL userinfo, and each registered secret in
    every spelling a server may send it back in (``_secret_spelling``), every occurrence of each, where
    two overlap too (their union is redacted). Linear in the text's length: one search of one compiled
    pattern, which tries each place once."""
    text = _AUTH_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _TEXT_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    pattern = _secrets_pattern()
    if pattern is None:
        return text
    spans: list[list[int]] = []
    for match in pattern.finditer(text):  # one match (the longest secret's) per place
        start, end = match.span(1)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    if not spans:
        return text
    pieces, kept = [], 0
    for start, end in spans:
        pieces += [text[kept:start], REDACTED]
        kept = end
    return "".join([*pieces, text[kept:]])


def _secrets_pattern() -> re.Pattern[str] | None:
    """Every spelling of every registered secret, as one alternation, the longest literal first (a
    longer secret may hold a shorter one); made again only when a secret was registered since."""
    global _secret_pattern
    with _secrets_lock:
        made_of, pattern = _secret_pattern
        if made_of != len(_secrets):  # secrets are only ever added: a new count is a new set
            forms = {form for secret in _secrets for form in _literal_forms(secret)}
            ordered = sorted(forms, key=lambda form: (-len(form), form))
            # a lookahead: a match at every place one starts, overlapping ones too (the stdlib's re, a
            # few times faster than regex on this pattern, and it needs nothing of regex's)
            pattern = re.compile(f"(?=({_secrets_spelling(ordered)}))") if ordered else None
            _secret_pattern = (len(_secrets), pattern)
        return pattern


def _literal_forms(secret: str) -> list[str]:
    """The secret, and its base64 (standard and URL-safe alphabets, padding dropped: the padding says
    nothing of the secret, and a server may leave it out); the Basic value of a URL's user and
    password is registered as a secret of its own."""
    return [secret, *_base64(secret)]


def _base64(text: str) -> list[str]:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no client sends it, so no server echoes its base64
        return []
    return list(dict.fromkeys(encode(data).decode().rstrip("=") for encode in (b64encode, urlsafe_b64encode)))


def _secrets_spelling(literals: list[str]) -> str:
    """A pattern for the literals however a server may spell each of their characters: as it is, as
    JSON escapes it (``\\uXXXX`` of either case, a surrogate pair beyond the BMP; ``\\/``, ``\\"`` and
    the other short escapes), or URL-encoded (``%XX`` of its UTF-8 bytes, either case; ``+`` for a
    space); escaped again (JSON text inside a JSON string: ``\\\\u00e4``; ``%25C3``). Spelled character
    by character, so a secret half escaped (only its ``/`` as ``\\/``) is still one match.

    The alternation is split three ways by how the text at a place starts (a character as it is, a
    backslash, a "%"), the run of backslashes or "%25"s read once for all the literals: a text of a
    million backslashes, tried at each of them against every secret, is then seconds less work."""
    plain, escaped, encoded = [], [], []
    for literal in literals:
        first = _spellings(literal[0])
        rest = "".join(_spellings(char).anyhow() for char in literal[1:])
        plain.append(f"(?:{first.plain}){rest}")
        escaped.append(f"(?:{first.escaped}){rest}")
        encoded.append(f"(?:{first.encoded}){rest}")
    return f"{'|'.join(plain)}|{_ESCAPES}(?:{'|'.join(escaped)})|{_PERCENTS}(?:{'|'.join(encoded)})"


# A backslash escaping, up to three JSON texts deep (1, 3 or 7 of them; a backslash itself is 2, 4
# or 8), and "%" up to three URL-encodings deep: bounded, so that a run of backslashes costs each place
# it is tried a few steps, never the run. Possessive: what follows an escape's run is never a backslash.
_BACKSLASHES = r"\\{1,8}"
_ESCAPES = _BACKSLASHES + "+"
_PERCENTS = "%(?:25){0,3}"


@dataclass(frozen=True)
class _Spellings:
    """The ways one character may be written, as patterns: as it is, after a run of backslashes (its
    JSON escape), and after a "%" (its URL encoding)."""

    plain: str
    escaped: str
    encoded: str

    def anyhow(self) -> str:
        return f"(?:{self.plain}|{_ESCAPES}(?:{self.escaped})|{_PERCENTS}(?:{self.encoded}))"


def _spellings(char: str) -> _Spellings:
    plain = [_BACKSLASHES if char == "\\" else re.escape(char)]  # an escaped backslash: more of them
    escaped = [re.escape(_JSON_SHORT[char])] if char in _JSON_SHORT and char != "\\" else []
    units = char.encode("utf-16-be", "surrogatepass")  # beyond the BMP, JSON writes a surrogate pair
    escaped.append(f"{_ESCAPES}".join(f"u(?i:{units[at : at + 2].hex()})" for at in range(0, len(units), 2)))
    encoded = char.encode("utf-8", "surrogatepass").hex()
    if char == " ":
        plain.append(r"\+")
    pairs = [encoded[at : at + 2] for at in range(0, len(encoded), 2)]
    return _Spellings("|".join(plain), "|".join(escaped), f"(?i:{_PERCENTS.join(pairs)})")


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
