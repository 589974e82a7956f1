"""What the two HTTP adapters share: one POST of a JSON body, its failures sorted into TransportError
(retryable) and SystemFailure (the system's own), the settings they read, and headers with secrets.

The HTTP layer is ``assay.net``'s: ``timeout`` is a total deadline for each request (``net.within_deadline``);
the runner has its own per-item timeout, and this one only makes sure the client never hangs on its own.
The statuses retried are ``net.SYSTEM_RETRY_STATUSES`` (408, 429, 502, 503, 504: a system's own 500 is its
answer), with the server's Retry-After (``net.retry_after``, held to ``net.MAX_RETRY_AFTER``). Secrets (an
API key, a header's value read from the environment) are registered with ``net``'s redaction, so a server
that echoes them cannot carry them into a run row's raw reply or error.

A reply's body is read as it streams in, and no further than ``limits.MAX_BODY_BYTES`` (a Content-Length
past it is refused before a byte is read): an endless body costs the limit, not the machine's memory.
The body's bytes are counted after httpx undoes a content encoding, so a gzip bomb is cut too (one
network chunk of it may inflate to some tens of megabytes before it is counted).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import regex

from ... import net
from ...cells import ValueProblem, parse_json
from ...concurrency import OVERLOAD_STATUSES
from ...errors import UsageError
from ...extras import missing_extra
from ...net import display_url, redact, register_secret, register_url
from .base import SystemFailure, TransportError, reply_arrived
from .limits import MAX_BODY_BYTES, RAW_LIMIT, cut_raw
from .probe import PROBE_HEADER, SystemDown, no_reply

try:
    import httpx
except ImportError:  # a lean install (pip install assay): name the extra that brings httpx
    raise missing_extra(
        "httpx",
        "to ask a system over HTTP (http: and openai: systems)",
        alternative="run the system in process (--system module:function)",
    ) from None

from ...http_clients import Clients, ssl_context  # after httpx: a lean install is told the extra

DEFAULT_TIMEOUT = 60.0
ERROR_BODY_BYTES = 4 * RAW_LIMIT  # of a reply that is not a 2xx: as much as its raw keeps, no more
MAX_FAILURE_CHARS = 500  # of httpx's message about a failed exchange
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_REDACT_MARGIN = 4_096  # characters past the raw's cut that redaction reads (a secret across the cut)
_ENV_REFERENCE = regex.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Received:
    """One exchange as far as it was read: the status, the headers, the body's text (decoded, whole for a
    2xx within MAX_BODY_BYTES, only its start for any other status)."""

    status: int
    headers: httpx.Headers
    text: str


@dataclass
class JsonPoster:
    """POSTs JSON to one URL with one set of headers, each request on a client of its own (lent by
    ``http_clients.Clients``, made on first use, its connection kept alive for the next request)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    _clients: Clients | None = field(default=None, repr=False)

    async def post(self, body: Mapping[str, Any]) -> tuple[Any, str]:
        """The reply's JSON value and its raw text (redacted, capped); TransportError or SystemFailure."""
        try:
            received = await net.within_deadline(self._exchange(body), self.timeout)
        except TimeoutError as exc:
            raise TransportError(self._failure(exc)) from None
        except (httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
            raise SystemFailure(f"cannot send the request ({self._failure(exc)})") from None
        except httpx.TransportError as exc:
            raise TransportError(self._failure(exc)) from None
        except httpx.HTTPError as exc:  # a body that cannot be decoded, too many redirects
            raise SystemFailure(self._failure(exc)) from None
        reply_arrived(off_loop=True)  # the system's part is done: what follows is assay's reading
        shown = _shown_raw(received.text)
        _refuse_status(received, shown)
        try:
            return parse_json(received.text), shown
        except ValueError as exc:  # json.JSONDecodeError, or a ValueProblem (a lone surrogate, ...)
            reason = f"malformed reply: HTTP 200 with {_not_json(received, shown, exc)}"
            raise SystemFailure(reason, shown) from None

    async def probe(self, method: str, url: str, body: Mapping[str, Any] | None) -> Received:
        """One request of the system's check before a run (probe.py), with the probe's header, on a
        client of its own (the run asks in another event loop), read as an item's reply is; SystemDown
        when no reply came, or one that cannot be read."""
        request = method
        try:
            async with httpx.AsyncClient(
                headers={**self.headers, PROBE_HEADER: "1"}, timeout=self.timeout, verify=ssl_context()
            ) as client:
                return await net.within_deadline(self._exchange(body, client, method, url), self.timeout)
        except (TimeoutError, httpx.HTTPError) as exc:
            raise no_reply(url, request, self._failure(exc)) from None
        except SystemFailure as exc:
            raise SystemDown(
                f"the system at {display_url(url)} answered {request} with a reply that cannot be read "
                f"({exc.reason})",
                fix="check that --system is the system's address",
            ) from None

    async def _exchange(
        self,
        body: Mapping[str, Any] | None,
        client: httpx.AsyncClient | None = None,
        method: str = "POST",
        url: str | None = None,
    ) -> Received:
        """The request sent (a POST of `body` to the poster's URL, unless told otherwise) and its reply
        read as it streams in: a 2xx body up to MAX_BODY_BYTES (past it, or a Content-Length past it,
        the SystemFailure "reply body over N bytes", the rest never read), any other status's only as
        far as its reason shows."""
        if client is None:
            async with self._http().lease() as lent:
                return await self._exchange(body, lent, method, url)
        async with client.stream(method, url or self.url, json=body) as response:
            if not response.is_success:
                data, _ = await _read_up_to(response, ERROR_BODY_BYTES)
                return Received(response.status_code, response.headers, _decoded(response, data))
            declared = _declared_length(response)
            if declared is not None and declared > MAX_BODY_BYTES:
                raise SystemFailure(
                    f"reply body over {MAX_BODY_BYTES:,} bytes: its Content-Length is {declared:,} "
                    "(refused unread)"
                )
            data, cut = await _read_up_to(response, MAX_BODY_BYTES)
            if cut:
                raw = _shown_raw(_decoded(response, data[: RAW_LIMIT * 4]))
                raise SystemFailure(f"reply body over {MAX_BODY_BYTES:,} bytes (read no further)", raw=raw)
            return Received(response.status_code, response.headers, _decoded(response, data))

    def _failure(self, exc: BaseException) -> str:
        """What went wrong, cut: httpx's message may quote what the server sent ("illegal status line:
        b'...'")."""
        said = net.failure(exc, self.timeout)
        return said if len(said) <= MAX_FAILURE_CHARS else f"{said[:MAX_FAILURE_CHARS]}... (cut)"

    def _http(self) -> Clients:
        if self._clients is None:
            self._clients = Clients(headers=dict(self.headers), timeout=self.timeout)
        return self._clients

    async def aclose(self) -> None:
        if self._clients is not None:
            await self._clients.aclose()
            self._clients = None


async def _read_up_to(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """The body's bytes (its content encoding undone) up to `limit`, and whether there was more: what
    is past the limit is never read (the connection is closed with the response, not drained)."""
    data = bytearray()
    async for chunk in response.aiter_bytes():
        if len(data) + len(chunk) > limit:
            data += chunk[: limit - len(data)]
            return bytes(data), True
        data += chunk
    return bytes(data), False


def _declared_length(response: httpx.Response) -> int | None:
    """The Content-Length the server declared, when it is a number (a bad one: the stream tells)."""
    value = response.headers.get("content-length", "").strip()
    return int(value) if value.isdecimal() and len(value) <= 20 else None


def _decoded(response: httpx.Response, data: bytes) -> str:
    """The body's text in its declared charset (UTF-8 when none is, or an unknown one is); bytes that
    do not decode become U+FFFD, as httpx's ``Response.text`` does."""
    charset = response.charset_encoding or "utf-8"
    try:
        return data.decode(charset, errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


def _shown_raw(text: str) -> str:
    """The raw text a run row keeps: cut (limits.RAW_LIMIT), then redacted (a margin past the cut, so
    that a secret across it is still found)."""
    if len(text) <= RAW_LIMIT:
        return redact(text)
    return cut_raw(redact(text[: RAW_LIMIT + _REDACT_MARGIN])) or ""


def _refuse_status(received: Received, shown: str) -> None:
    """TransportError for a status worth asking again, SystemFailure for a redirect or another non-2xx."""
    status = received.status
    if status in net.SYSTEM_RETRY_STATUSES:
        asked = net.capped(net.retry_after(received.headers.get("retry-after")))
        raise TransportError(f"HTTP {status}", retry_after=asked, overload=status in OVERLOAD_STATUSES)
    # A redirect is never followed: the address asked is the one signed and reported.
    if status in _REDIRECTS and "location" in received.headers:
        where = redact(received.headers.get("location", "nowhere said"))
        raise SystemFailure(f"HTTP {status}, a redirect to {where} (give --system that address)", raw=shown)
    if not 200 <= status < 300:
        snippet = " ".join(shown.split())[:200]
        raise SystemFailure(f"HTTP {status}" + (f": {snippet}" if snippet else ""), raw=shown)


def _not_json(received: Received, raw: str, exc: ValueError) -> str:
    """What came instead of JSON: its type and first words (an HTML error page, an event stream)."""
    if not raw.strip():
        return "an empty body, not JSON"
    kind = received.headers.get("content-type", "no content type").split(";")[0].strip()
    what = exc.what if isinstance(exc, ValueProblem) else str(exc)
    snippet = " ".join(raw[:1000].split())[:80]
    return f"a body that is not JSON ({what}), {kind}: {snippet!r}"


def check_url(url: str, spec: str) -> str:
    """An address the client can POST to (http(s), a host, a port in range), its userinfo registered
    as a secret; UsageError otherwise."""
    fix = "give an address like http://127.0.0.1:8000/ask"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it checks the range)
    except ValueError as exc:
        what = f"the URL of --system {display_url(spec)!r} cannot be read ({exc})"
        raise UsageError(what, fix=fix) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--system {display_url(spec)!r} is not an http:// or https:// address", fix=fix)
    register_url(url)
    return url


def number_setting(
    settings: Mapping[str, object], key: str, default: float | None, *, least: float
) -> float | None:
    """A setting's number (from --system-option text, or a TOML number); UsageError when it is not one,
    not finite, or below `least` (a timeout must be more than 0: `least` is exclusive for it)."""
    value = settings.get(key)
    if value is None:
        return default
    try:
        readable = isinstance(value, (int, float, str)) and not isinstance(value, bool)
        number = float(value) if readable else math.nan  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if not math.isfinite(number) or number < least or (key == "timeout" and number <= 0):
        wanted = "more than 0" if key == "timeout" else f"a number of at least {least:g}"
        raise UsageError(f"the system option {key}={value!r} is not {wanted}", fix=f"give {key} a number")
    return number


def check_settings(settings: Mapping[str, object], known: frozenset[str], kind: str) -> None:
    unknown = sorted(set(settings) - known)
    if unknown:
        raise UsageError(
            f"{kind} has no option {', '.join(map(repr, unknown))}",
            fix=f"use: {', '.join(sorted(known))}",
        )


def expanded_headers(headers: object, where: str) -> dict[str, str]:
    """The [system.headers] table with each ``${VAR}`` read from the environment (a secret stays out
    of assay.toml); the values are registered as secrets. UsageError for a variable that is not set."""
    if headers is None:
        return {}
    if not isinstance(headers, Mapping) or not all(isinstance(v, str) for v in headers.values()):
        raise UsageError("headers must be a table of texts", where=where, fix='write Name = "value"')
    found: dict[str, str] = {}
    for name, template in headers.items():
        missing = [var for var in _ENV_REFERENCE.findall(template) if not os.environ.get(var)]
        if missing:
            raise UsageError(
                f"the header {name!r} reads ${{{missing[0]}}}, which is not set",
                where=where,
                fix=f"export {missing[0]}=...",
            )
        value = _ENV_REFERENCE.sub(lambda m: os.environ[m.group(1)], template)
        if value != template:
            register_secret(value)
            for var in _ENV_REFERENCE.findall(template):
                register_secret(os.environ[var])
        found[str(name)] = value
    return found


def api_key_header(api_key_env: str | None) -> dict[str, str]:
    """The Authorization header of the key in the variable `api_key_env` names (never the key itself
    in a setting); UsageError when it is not set."""
    if api_key_env is None:
        return {}
    key = os.environ.get(api_key_env)
    if not key:
        raise UsageError(
            f"the system reads its API key from ${api_key_env}, which is not set",
            fix=f"export {api_key_env}=..., or name another variable with --system-option api_key_env=NAME",
        )
    register_secret(key)
    return {"Authorization": f"Bearer {key}"}
