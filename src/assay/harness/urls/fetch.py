"""One request of the URL check, and the rules around it: a URL vetted before it is asked (scheme, DNS,
public addresses), each host's turn (its limit of requests in flight and the interval between their
starts), a request bounded in time and bytes, and HEAD answered by a GET when the HEAD is refused.
check.py walks the redirects and gives the class; this module only asks."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
import regex

if TYPE_CHECKING:
    from .check import CheckSettings

PDF_WINDOW = 1024  # bytes asked for (Range) and searched for %PDF- (readers accept bytes before it)
MAX_BODY = 4096  # bytes read at most from any body, whatever the server sends
BAD_HOST = regex.compile(r"[\p{Cc}\p{Z}%<>\"{}|\\^`/?#@]")  # no name holds one: a resolver must not see it
NO_SUCH_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


@dataclass
class Answer:
    """One URL's answer at one hop (after a HEAD refused and its GET), or the fault that stopped it."""

    status: int | None = None
    headers: httpx.Headers = field(default_factory=httpx.Headers)
    body: bytes | None = None  # the first bytes, when asked with GET
    asked: str = ""  # "HEAD 405, GET " when a HEAD was refused
    fault: str = ""  # why no answer: "timed out after 2 s", "connection refused", ...
    klass: str = "error"  # the class a fault gives
    transient: bool = False  # worth asking again


class HostGate:
    """One host's turn: at most `per_host` requests in flight, their starts `interval` seconds apart."""

    def __init__(self, per_host: int, interval: float) -> None:
        self.slots = asyncio.Semaphore(per_host)
        self.spacing = asyncio.Lock()
        self.interval = interval
        self.next_start = 0.0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self.slots:
            async with self.spacing:
                loop = asyncio.get_running_loop()
                wait = self.next_start - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.next_start = loop.time() + self.interval
            yield


@dataclass
class Fetcher:
    """The client every request goes through, and each host's gate."""

    settings: CheckSettings
    client: httpx.AsyncClient
    gates: dict[str, HostGate] = field(default_factory=dict)
    resolved: dict[str, tuple[str, ...]] = field(default_factory=dict)  # host -> its addresses, this run

    def gate(self, host: str) -> HostGate:
        if host not in self.gates:
            self.gates[host] = HostGate(self.settings.per_host, self.settings.interval)
        return self.gates[host]


def phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _address_kind(address: str) -> str | None:
    """What makes an address not public ("loopback", "private", ...), or None when it is public."""
    ip = ipaddress.ip_address(address.split("%")[0])  # an IPv6 zone (fe80::1%eth0) is no part of it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if ip.is_global else "non-global"


def _host(url: str) -> str | Answer:
    """The host `url` names, or why it cannot be asked (a scheme refused, a malformed URL)."""
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # the port is checked here, for its ValueError
    except ValueError as exc:  # an unclosed [ of an IPv6 host, a port that is not a number
        return Answer(fault=f"malformed URL: {exc}", klass="broken")
    if parts.scheme not in ("http", "https"):
        scheme = f"this one is {parts.scheme}:" if parts.scheme else "this one has no scheme"
        return Answer(fault=f"not checked: only http and https URLs are ({scheme})", klass="blocked")
    if not host:
        return Answer(fault="malformed URL: no host", klass="broken")
    if BAD_HOST.search(host):
        return Answer(fault=f"malformed URL: the host {host!r} is not a valid name", klass="broken")
    return host


async def _resolve(host: str, timeout: float) -> tuple[str, ...] | Answer:
    """The addresses `host` resolves to, or the DNS fault."""
    try:
        lookup = asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        infos = await asyncio.wait_for(lookup, timeout)
    except TimeoutError:
        return Answer(fault=f"DNS: no answer for {host} within {timeout:g} s", transient=True)
    except socket.gaierror as exc:
        if exc.errno in NO_SUCH_HOST:
            return Answer(fault=f"DNS: no such host {host}", klass="broken", transient=True)
        return Answer(fault=f"DNS: {host} could not be resolved ({exc.strerror})", transient=True)
    except (UnicodeError, ValueError):
        return Answer(fault=f"malformed URL: the host {host!r} is not a valid name", klass="broken")
    return tuple(str(info[4][0]) for info in infos)


async def vet(url: str, fetcher: Fetcher) -> Answer | None:
    """None when `url` may be asked; else the refusal or the DNS fault, as an answer-less Answer. A
    host's addresses are looked up once a run (a failed lookup is asked again, on a retry)."""
    host = _host(url)
    if isinstance(host, Answer):
        return host
    addresses = fetcher.resolved.get(host)
    if addresses is None:
        found = await _resolve(host, fetcher.settings.timeout)
        if isinstance(found, Answer):
            return found
        addresses = fetcher.resolved[host] = found
    settings = fetcher.settings
    if settings.allow_private or host in settings.private_hosts:
        return None
    for address in addresses:
        kind = _address_kind(address)
        if kind is not None:
            reason = f"refused: {host} is {address}, a {kind} address (--allow-private checks it)"
            return Answer(fault=reason, klass="blocked")
    return None


async def _first_bytes(response: httpx.Response) -> bytes:
    """At most MAX_BODY bytes of the body, whatever the server sends (the caller's timeout bounds time)."""
    body = b""
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= PDF_WINDOW:
            break
    return body[:MAX_BODY]


async def _request(
    url: str, method: str, ranged: bool, fetcher: Fetcher, validators: dict[str, str]
) -> Answer:
    """One request, in its host's turn, within the timeout; a fault becomes an answer-less Answer."""
    settings = fetcher.settings
    headers = dict(validators)
    if method == "GET" and ranged:
        headers["Range"] = f"bytes=0-{PDF_WINDOW - 1}"
    async with fetcher.gate(urlsplit(url).hostname or "").turn():
        try:
            async with asyncio.timeout(settings.timeout):
                request = fetcher.client.build_request(method, url, headers=headers)
                response = await fetcher.client.send(request, stream=True)
                try:
                    body = await _first_bytes(response) if method == "GET" else None
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            return Answer(fault=f"timed out after {settings.timeout:g} s", transient=True)
        except httpx.InvalidURL as exc:
            return Answer(fault=f"malformed URL: {exc}", klass="broken")
        except httpx.ConnectError as exc:
            return Answer(fault=f"connection failed: {_cause(exc)}", transient=True)
        except httpx.HTTPError as exc:  # a dropped connection, a protocol violation, a bad encoding
            return Answer(fault=f"{type(exc).__name__}: {_cause(exc)}", transient=True)
    return Answer(response.status_code, response.headers, body)


def _cause(exc: BaseException) -> str:
    """The system's words for the innermost cause ("Connection refused"), else the exception's own."""
    inner: BaseException | None = exc
    for _ in range(10):  # a chain, not a cycle
        if inner is None:
            break
        if isinstance(inner, ssl.SSLError):  # its errno is OpenSSL's, not the system's
            return f"TLS: {getattr(inner, 'verify_message', None) or inner.reason or inner}"
        if isinstance(inner, OSError) and inner.errno and inner.errno > 0:
            return os.strerror(inner.errno)
        inner = inner.__cause__ or inner.__context__
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())[:200].rstrip(".")


async def ask(url: str, method: str, fetcher: Fetcher, validators: dict[str, str]) -> Answer:
    """One hop's answer: the HEAD, or the GET asked when the HEAD was refused (or a range was)."""
    answer = await _request(url, method, True, fetcher, validators)
    if method == "HEAD" and answer.status is not None and answer.status >= 400 and answer.status != 429:
        head = answer.status
        answer = await _request(url, "GET", True, fetcher, validators)
        answer.asked = f"HEAD {head}, GET "
    if answer.status == 416:  # an empty file cannot serve bytes 0-1023: ask for it whole (still bounded)
        asked = answer.asked
        answer = await _request(url, "GET", False, fetcher, validators)
        answer.asked = asked
    return answer


