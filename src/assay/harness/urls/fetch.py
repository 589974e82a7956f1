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
import threading
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import regex

from ...extras import missing_extra

try:
    import httpx
except ImportError:  # a lean install (pip install assay): name the extra that brings httpx
    raise missing_extra("httpx", "to check URLs") from None

from ...http_clients import Clients  # after httpx: a lean install is told the extra

if TYPE_CHECKING:
    from .settings import CheckSettings

PDF_WINDOW = 1024  # bytes asked for (Range) and searched for %PDF- (readers accept bytes before it)
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
    unread: str = ""  # the Content-Encoding of a GET's body that was not read (br, zstd)
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
    """The clients the requests go through (each request on one of its own, lent for its origin), and
    each host's gate."""

    settings: CheckSettings
    clients: Clients
    gates: dict[str, HostGate] = field(default_factory=dict)
    resolved: dict[str, tuple[str, ...]] = field(default_factory=dict)  # host -> its addresses, this run
    canary: asyncio.Task[bool] | None = None  # does the resolver resolve the canary? asked once a run
    head_unanswered: set[str] = field(default_factory=set)  # hosts whose HEAD went unanswered, GET not

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


def host_of_url(url: str) -> str | Answer:
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


def _settle(future: asyncio.Future[list[Any]], result: list[Any] | None, error: BaseException | None) -> None:
    if future.done():  # the wait timed out: nobody is listening
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result or [])


async def _getaddrinfo(host: str) -> list[Any]:
    """getaddrinfo in a thread of its own, a daemon: a resolver that never answers costs a thread
    until it gives up, but never holds the run's end (asyncio's executor, which loop.getaddrinfo uses,
    is waited for when the loop closes, and queues lookups behind a handful of stuck ones)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[list[Any]] = loop.create_future()

    def lookup() -> None:
        try:
            result: list[Any] | None = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
            error: BaseException | None = None
        except BaseException as exc:  # handed to the waiting task, whatever it is
            result, error = None, exc
        with suppress(RuntimeError):  # the loop closed while the resolver thought
            loop.call_soon_threadsafe(_settle, future, result, error)

    threading.Thread(target=lookup, name=f"assay-dns-{host}", daemon=True).start()
    return await future


async def _resolve(host: str, timeout: float) -> tuple[str, ...] | Answer:
    """The addresses `host` resolves to, or the DNS fault."""
    try:
        infos = await asyncio.wait_for(_getaddrinfo(host), timeout)
    except TimeoutError:
        return Answer(fault=f"DNS: no answer for {host} within {timeout:g} s", transient=True)
    except socket.gaierror as exc:
        if exc.errno in NO_SUCH_HOST:
            return Answer(fault=f"DNS: no such host {host}", klass="broken", transient=True)
        return Answer(fault=f"DNS: {host} could not be resolved ({exc.strerror})", transient=True)
    except (UnicodeError, ValueError):
        return Answer(fault=f"malformed URL: the host {host!r} is not a valid name", klass="broken")
    return tuple(str(info[4][0]) for info in infos)


def _is_literal(host: str) -> bool:
    """Whether `host` is an IP address (which getaddrinfo answers without asking any resolver)."""
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


async def _canary_resolves(names: tuple[str, ...], timeout: float) -> bool:
    """Whether any of `names` resolves (to any address): the resolver answers here."""
    for name in names:
        if not isinstance(await _resolve(name, timeout), Answer):
            return True
    return False


async def _resolver_resolves(fetcher: Fetcher) -> bool:
    """Whether this machine's resolver demonstrably resolves names in this run: a host of the run
    resolved to a public address, or a canary name resolves. Without that, a "no such host" is what an
    offline machine (or a firewalled CI runner) says of every name, dead or alive."""
    settings = fetcher.settings
    if not settings.dns_canary:  # no canary given: the resolver is believed
        return True
    for host, addresses in fetcher.resolved.items():
        if not _is_literal(host) and any(_address_kind(address) is None for address in addresses):
            return True
    if fetcher.canary is None:  # one lookup a run, shared by every URL that needs it
        fetcher.canary = asyncio.create_task(_canary_resolves(settings.dns_canary, settings.timeout))
    return await asyncio.shield(fetcher.canary)


async def _no_such_host(host: str, answer: Answer, fetcher: Fetcher) -> Answer:
    """A "no such host" answer, believed (broken) only when the resolver resolves other names here."""
    if answer.klass != "broken" or await _resolver_resolves(fetcher):
        return answer
    canary = ", ".join(fetcher.settings.dns_canary)
    reason = (
        f"{answer.fault}, but the resolver resolves nothing here (not even {canary}: offline?): "
        "a dead host cannot be told from an offline machine"
    )
    return Answer(fault=reason, transient=True)


async def vet(url: str, fetcher: Fetcher) -> Answer | None:
    """None when `url` may be asked; else the refusal or the DNS fault, as an answer-less Answer. A
    host's addresses are looked up once a run (a failed lookup is asked again, on a retry)."""
    host = host_of_url(url)
    if isinstance(host, Answer):
        return host
    addresses = fetcher.resolved.get(host)
    if addresses is None:
        found = await _resolve(host, fetcher.settings.timeout)
        if isinstance(found, Answer):
            return await _no_such_host(host, found, fetcher)
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


HELD_LOCATION = "assay.location"  # where hold_location keeps a response's Location


async def hold_location(response: httpx.Response) -> None:
    """A response hook: the Location header taken out of httpx's sight (and kept in the response's
    extensions). httpx builds the next request of every redirect even when it is told not to follow
    them, and raises on a Location it cannot build one from (javascript:, mailto:, a bad port), which
    would lose the answer; check.py follows redirects by hand and judges each Location itself."""
    if "location" in response.headers:
        response.extensions[HELD_LOCATION] = response.headers["location"]
        del response.headers["location"]


# zlib's window bits for each Content-Encoding read: gzip's header, zlib's (deflate as RFC 9110 says)
WINDOW_BITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class _Inflater:
    """A body's bytes decoded, never more than asked for at a time: httpx's own decoders inflate each
    network chunk whole, so a gzip bomb (64 KB becoming 64 MB) would cost memory before a byte is
    looked at. Accept-Encoding: identity is asked, but servers send gzip regardless."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.inflater = zlib.decompressobj(bits)
        self.started = False

    def __call__(self, data: bytes, most: int) -> bytes:
        try:
            out = self.inflater.decompress(data, most)
        except zlib.error as exc:
            if self.started or self.bits != zlib.MAX_WBITS:
                raise httpx.DecodingError(f"the {self._name()} body does not decode: {exc}") from None
            self.bits = -zlib.MAX_WBITS  # deflate sent raw, without zlib's header: servers do
            self.inflater = zlib.decompressobj(self.bits)
            return self(data, most)
        self.started = self.started or bool(out)
        return out

    def _name(self) -> str:
        return "deflate" if self.bits in (zlib.MAX_WBITS, -zlib.MAX_WBITS) else "gzip"


async def _first_bytes(response: httpx.Response) -> bytes | None:
    """The first PDF_WINDOW bytes of the body (decoded), whatever the server sends: bounded in bytes
    read and in bytes inflated (the caller's timeout bounds time). None when the body's encoding is
    one this check does not read (br, zstd, several at once)."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    inflate = _Inflater(WINDOW_BITS[encoding]) if encoding in WINDOW_BITS else None
    if inflate is None and encoding not in ("", "identity"):
        return None
    body = b""
    async for chunk in response.aiter_raw():
        body += inflate(chunk, PDF_WINDOW - len(body)) if inflate else chunk
        if len(body) >= PDF_WINDOW:
            break
    return body[:PDF_WINDOW]


async def _head_ended(response: httpx.Response) -> bytes | None:
    """A HEAD answer read to its end, which HTTP says has no body whatever its Content-Length: the
    connection is kept alive for the next URL only once its reader has seen the answer end. Closed
    unread, every URL would pay a new connection (and, over https, a new TLS handshake)."""
    async for _ in response.aiter_raw():
        pass
    return None


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
                async with fetcher.clients.lease(url) as client:
                    request = client.build_request(method, url, headers=headers)
                    response = await client.send(request, stream=True)
                    try:
                        if method == "GET":
                            body = await _first_bytes(response)
                        else:
                            body = await _head_ended(response)
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
    answered = response.headers
    unread = answered.get("content-encoding", "") if method == "GET" and body is None else ""
    if HELD_LOCATION in response.extensions:
        answered = answered.copy()
        answered["location"] = response.extensions[HELD_LOCATION]
    return Answer(response.status_code, answered, body, unread=unread)


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
    host = urlsplit(url).hostname or ""
    if method == "HEAD" and host in fetcher.head_unanswered:  # a timeout per URL saved
        answer = await _request(url, "GET", True, fetcher, validators)
        answer.asked = "GET (HEAD goes unanswered on this host) "
        return answer
    answer = await _request(url, method, True, fetcher, validators)
    if method == "HEAD" and answer.status is not None and answer.status >= 400 and answer.status != 429:
        head = answer.status
        answer = await _request(url, "GET", True, fetcher, validators)
        answer.asked = f"HEAD {head}, GET "
    elif method == "HEAD" and answer.status is None and answer.transient:
        # Servers that never answer HEAD (it hangs, or the connection drops) while serving GET exist;
        # a GET that fails too gives its own fault.
        head_fault = answer.fault
        answer = await _request(url, "GET", True, fetcher, validators)
        answer.asked = f"HEAD {head_fault}, GET "
        if answer.status is not None:
            fetcher.head_unanswered.add(host)
    if answer.status == 416:  # an empty file cannot serve bytes 0-1023: ask for it whole (still bounded)
        asked = answer.asked
        answer = await _request(url, "GET", False, fetcher, validators)
        answer.asked = asked
    return answer
