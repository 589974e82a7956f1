"""What the two HTTP adapters share: one POST of a JSON body, its failures sorted into TransportError
(retryable) and SystemFailure (the system's own), the settings they read, and headers with secrets.

``timeout`` is a total deadline for each request, connecting, sending and reading the whole body (httpx's
own timeout bounds each read, so a body that drips a byte at a time would never end); the runner has its
own per-item timeout, and this one only makes sure the client never hangs on its own. Secrets (an API key,
a header's value read from the environment) are registered with the judges' redaction, so a server that
echoes them cannot carry them into a run row's raw reply or error.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import regex

from ...cells import ValueProblem, parse_json
from ...errors import UsageError
from ...judges._clean import display_url, redact, register_secret, register_url
from .base import SystemFailure, TransportError

TRANSPORT_STATUSES = frozenset({429, 502, 503, 504})  # the request may pass if sent again
DEFAULT_TIMEOUT = 60.0
RAW_LIMIT = 20_000  # characters of a reply kept as its raw text: a run row is not an archive
MAX_RETRY_AFTER = 60.0
_ENV_REFERENCE = regex.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class JsonPoster:
    """POSTs JSON to one URL with one set of headers, over one client made on first use."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    _client: httpx.AsyncClient | None = field(default=None, repr=False)

    async def post(self, body: Mapping[str, Any]) -> tuple[Any, str]:
        """The reply's JSON value and its raw text (redacted, capped); TransportError or SystemFailure."""
        try:
            response = await asyncio.wait_for(self._http().post(self.url, json=body), self.timeout)
        except TimeoutError:
            raise TransportError(f"no whole reply within the {self.timeout:g} s timeout") from None
        except (httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
            raise SystemFailure(f"cannot send the request ({_detail(exc)})") from None
        except httpx.TransportError as exc:
            raise TransportError(_detail(exc)) from None
        except httpx.HTTPError as exc:  # a body that cannot be decoded, too many redirects
            raise SystemFailure(_detail(exc)) from None
        raw = redact(response.text)
        shown = raw if len(raw) <= RAW_LIMIT else raw[:RAW_LIMIT] + " [...]"
        if response.status_code in TRANSPORT_STATUSES:
            raise TransportError(f"HTTP {response.status_code}", retry_after=_retry_after(response))
        if response.is_redirect:  # never followed: the address asked is the one signed and reported
            where = redact(response.headers.get("location", "nowhere said"))
            reason = f"HTTP {response.status_code}, a redirect to {where} (give --system that address)"
            raise SystemFailure(reason, raw=shown)
        if not 200 <= response.status_code < 300:
            snippet = " ".join(raw.split())[:200]
            reason = f"HTTP {response.status_code}" + (f": {snippet}" if snippet else "")
            raise SystemFailure(reason, raw=shown)
        try:
            return parse_json(response.text), shown
        except ValueError as exc:  # json.JSONDecodeError, or a ValueProblem (a lone surrogate, ...)
            reason = f"malformed reply: HTTP 200 with {_not_json(response, raw, exc)}"
            raise SystemFailure(reason, shown) from None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers=dict(self.headers),
                timeout=self.timeout,
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _not_json(response: httpx.Response, raw: str, exc: ValueError) -> str:
    """What came instead of JSON: its type and first words (an HTML error page, an event stream)."""
    if not raw.strip():
        return "an empty body, not JSON"
    kind = response.headers.get("content-type", "no content type").split(";")[0].strip()
    what = exc.what if isinstance(exc, ValueProblem) else str(exc)
    snippet = " ".join(raw.split())[:80]
    return f"a body that is not JSON ({what}), {kind}: {snippet!r}"


def _detail(exc: BaseException) -> str:
    detail = redact(str(exc))  # an error's text can hold the URL, and with it a password
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked to wait (Retry-After, as seconds or an HTTP date), capped."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER) if math.isfinite(seconds) else None


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
                f"the header {name!r} reads ${{{missing[0]}}}, which is not set", where=where,
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
