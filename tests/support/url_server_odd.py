"""A raw HTTP server on 127.0.0.1 that misbehaves on demand, for the URL checker's tests of servers it
was not written against: each answer is written byte by byte, so it can be what http.server never sends
(a gzip bomb, an endless chunked body, headers dripped a byte at a time, HEAD hanging while GET answers).

Its paths (the answer's bytes are in ``ANSWERS``; a path not there is 404):

    /bomb.pdf                Content-Encoding: gzip, 1 MB inflating to 1 GB (%PDF- and zeros)
    /bomb-endless            the same gzip stream without an end, chunked
    /brotli.pdf              Content-Encoding: br (bytes no decoder here reads)
    /deflate.pdf, /raw-deflate.pdf   a PDF as deflate: zlib-wrapped, and raw (both are sent as "deflate")
    /bad-gzip.pdf            Content-Encoding: gzip, and bytes that do not inflate
    /endless                 200, chunked, chunks for ever (Range ignored)
    /big.pdf                 200, Range ignored, a PDF followed by 50 MB
    /drip-headers            the status line and headers a byte every 0.1 s
    /head-hangs              HEAD never answered; GET 200
    /half-headers            the connection closed in the middle of the headers
    /http10                  an HTTP/1.0 answer without Content-Length, closed to end it
    /junk.pdf, /bom.pdf      a PDF after 600 bytes of whitespace junk; after a UTF-8 BOM
    /pdf-as-html             a PDF served as text/html
    /location?to=X           302 to X exactly as given (unquoted from the query)
    /status/<code>?h=Name:Value   that status with the header given
    /together/<n>            200 once n requests to it are in flight at once; 503 when they never are

Every request's method, path and headers are recorded.
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from conftest import free_port

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
BOMB_MB = 1024  # the bomb inflates to this many MB


def _gzip_blocks() -> tuple[bytes, bytes, bytes]:
    """A gzip stream in three parts: its start (the header, then %PDF- and a MB of zeros), a part that
    inflates to one more MB of zeros and may be repeated (a full flush before it resets the compressor,
    so each MB compresses to the same thousand bytes), and its end. Repeated, the end's CRC is not that
    of the whole; no reader of the first bytes gets there."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    start = packer.compress(PDF + block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    return start, again, packer.flush()


START, AGAIN, END = _gzip_blocks()
BOMB = START + AGAIN * (BOMB_MB - 1) + END


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class OddServer:
    port: int
    requests: list[Seen] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    barriers: dict[int, threading.Barrier] = field(default_factory=dict)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def to(self, path: str) -> list[Seen]:
        with self.lock:
            return [seen for seen in self.requests if seen.path == path]


Writer = Callable[[socket.socket, OddServer, str, dict[str, list[str]]], None]


def _head(status: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _whole(status: str, headers: dict[str, str], body: bytes) -> Writer:
    def write(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
        head = _head(status, {**headers, "Content-Length": str(len(body)), "Connection": "close"})
        conn.sendall(head + (body if method == "GET" else b""))

    return write


def _bomb(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    headers = {"Content-Type": "application/pdf", "Content-Encoding": "gzip", "Connection": "close"}
    conn.sendall(_head("200 OK", {**headers, "Content-Length": str(len(BOMB))}))
    if method == "GET":
        conn.sendall(BOMB)


def _bomb_endless(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    headers = {"Content-Type": "application/pdf", "Content-Encoding": "gzip", "Transfer-Encoding": "chunked"}
    conn.sendall(_head("200 OK", headers))
    parts = [START, *[AGAIN] * 63]
    while method == "GET" and not server.stop.is_set():
        chunk = b"".join(parts)
        conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        parts = [AGAIN] * 64


def _endless(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    conn.sendall(_head("200 OK", {"Content-Type": "application/pdf", "Transfer-Encoding": "chunked"}))
    chunk = b"%PDF-" + b"x" * 65531
    while method == "GET" and not server.stop.is_set():
        conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))


def _big(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    size = len(PDF) + (50 << 20)
    conn.sendall(_head("200 OK", {"Content-Type": "application/pdf", "Content-Length": str(size)}))
    if method == "GET":
        conn.sendall(PDF)
        block = bytes(1 << 20)
        for _ in range(50):
            conn.sendall(block)


def _drip(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    for byte in _head("200 OK", {"Content-Length": "0"}):
        if server.stop.wait(0.1):
            return
        conn.sendall(bytes([byte]))


def _head_hangs(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    if method == "HEAD":
        server.stop.wait(30)
        return
    _whole("200 OK", {"Content-Type": "text/html"}, b"<p>here</p>")(conn, server, method, query)


def _half_headers(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/ht")


def _http10(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    head = b"HTTP/1.0 200 OK\r\nContent-Type: application/pdf\r\n\r\n"
    conn.sendall(head + (PDF if method == "GET" else b""))


def _location(conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]]) -> None:
    target = query.get("to", [""])[0]
    head = f"HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    conn.sendall(head.encode("utf-8"))


def _encoded(encoding: str) -> dict[str, str]:
    return {"Content-Type": "application/pdf", "Content-Encoding": encoding}


def _raw_deflate(data: bytes) -> bytes:
    """Deflate without zlib's header, as some servers send "deflate"."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ANSWERS: dict[str, Writer] = {
    "/bomb.pdf": _bomb,
    "/bomb-endless": _bomb_endless,
    "/brotli.pdf": _whole("200 OK", _encoded("br"), b"\x0b\x01"),
    "/deflate.pdf": _whole("200 OK", _encoded("deflate"), zlib.compress(PDF)),
    "/raw-deflate.pdf": _whole("200 OK", _encoded("deflate"), _raw_deflate(PDF)),
    "/bad-gzip.pdf": _whole("200 OK", _encoded("gzip"), b"\x1f\x8b\x08\x00" + b"not deflate at all" * 10),
    "/endless": _endless,
    "/big.pdf": _big,
    "/drip-headers": _drip,
    "/head-hangs": _head_hangs,
    "/half-headers": _half_headers,
    "/http10": _http10,
    "/junk.pdf": _whole("200 OK", {"Content-Type": "application/pdf"}, b" \r\n\t" * 150 + PDF),
    "/bom.pdf": _whole("200 OK", {"Content-Type": "application/pdf"}, b"\xef\xbb\xbf" + PDF),
    "/pdf-as-html": _whole("200 OK", {"Content-Type": "text/html"}, PDF),
    "/location": _location,
    "/ok": _whole("200 OK", {"Content-Type": "text/html"}, b"<p>ok</p>"),
}


def _status(
    conn: socket.socket, server: OddServer, method: str, query: dict[str, list[str]], code: str
) -> None:
    headers = {"Content-Type": "text/html"}
    for given in query.get("h", []):
        name, _, value = given.partition(":")
        headers[name] = value
    _whole(code, headers, b"<p>status</p>")(conn, server, method, query)


def _together(conn: socket.socket, server: OddServer, method: str, count: int) -> None:
    with server.lock:
        barrier = server.barriers.setdefault(count, threading.Barrier(count, timeout=3))
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        return _whole("503 Service Unavailable", {}, b"<p>alone</p>")(conn, server, method, {})
    _whole("200 OK", {"Content-Type": "text/html"}, b"<p>together</p>")(conn, server, method, {})


def _serve(conn: socket.socket, server: OddServer) -> None:
    with conn, suppress(OSError):
        reader = conn.makefile("rb")
        request_line = reader.readline(65536).decode("latin-1").split()
        headers: dict[str, str] = {}
        while (line := reader.readline(65536)) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip()] = value.strip()
        if len(request_line) < 2:
            return
        method, target = request_line[0], request_line[1]
        parts = urlsplit(target)
        path, query = unquote(parts.path), parse_qs(parts.query)
        with server.lock:
            server.requests.append(Seen(method, path, headers))
        if path.startswith("/together/"):
            return _together(conn, server, method, int(path.removeprefix("/together/")))
        if path.startswith("/status/"):
            return _status(conn, server, method, query, path.removeprefix("/status/"))
        ANSWERS.get(path, _whole("404 Not Found", {}, b"<p>no</p>"))(conn, server, method, query)
        conn.shutdown(socket.SHUT_WR)
        with suppress(OSError):  # let the client close first, so that no reset loses the answer
            conn.settimeout(1.0)
            conn.recv(1)


@contextmanager
def odd_server() -> Iterator[OddServer]:
    """A running server, stopped when the block ends."""
    server = OddServer(free_port())
    listener = socket.create_server(("127.0.0.1", server.port))
    listener.settimeout(0.05)

    def accept() -> None:
        while not server.stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            threading.Thread(target=_serve, args=(conn, server), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        thread.join()
        listener.close()
        time.sleep(0)
