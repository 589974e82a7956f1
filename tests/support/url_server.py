"""A real HTTP server on 127.0.0.1 that answers each URL class on demand, for the URL checker's tests.

Its paths (any method; HEAD gets the headers of what GET would):

    /  /home                  200, a home page            /ok, /page/<anything>    200
    /status/<code>            that status (?retry_after=N adds Retry-After: N)
    /redirect/<code>?to=P     that redirect status to P (relative or absolute)
    /chain/<n>                302 to /chain/<n-1> ... /chain/0 answers 200
    /loop/a, /loop/b          302 to each other          /no-location   302 without a Location
    /cookie/doc               without the cookie seen=1: 302 setting it, to /cookie/check, which sends back
    /deep/moved               301 to /                    /deep/members  302 to /account/login?next=...
    /cross                    302 to the same server as "localhost" (another host name)
    /to-https                 301 to https://127.0.0.1:<a closed port>/ok
    /to-loopback              302 to http://127.0.0.1:<port>/ok (for a check that starts at "localhost")
    /head/<code>              HEAD answers <code>, GET 200
    /flaky/<n>/<code>/<key>   <code> for the first n requests of that key (?retry_after=N), then 200
    /drop, /garbage           the connection closed with no answer; an answer that is not HTTP
    /hang                     sleeps until the server stops     /trickle   200, then a byte every 0.2 s
    /slow/<key>?ms=N          200 after N ms (the server counts the requests in flight per Host)
    /doc.pdf, /range.pdf      a real PDF (/range.pdf answers a Range with 206)
    /fake.pdf                 HTML served as a PDF
    /etag/<key>, /lastmod/<key>   200 with an ETag / Last-Modified; 304 to a matching conditional request

It records every request: method, path, Host, headers, and when it arrived.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from conftest import free_port

PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n" + b"x" * 3000
HTML = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body>Hello</body></html>"
ETAG = '"v1"'
LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT"


@dataclass
class Seen:
    method: str
    path: str
    host: str
    headers: dict[str, str]
    at: float
    client_port: int  # the connection it came on


@dataclass
class Record:
    requests: list[Seen] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # requests per path, query left off
    in_flight: Counter[str] = field(default_factory=Counter)  # per Host
    most_in_flight: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def hits(self, path: str) -> int:
        with self.lock:
            return self.counts[path]

    def to(self, path: str) -> list[Seen]:
        with self.lock:
            return [seen for seen in self.requests if seen.path == path]


@dataclass(frozen=True)
class UrlServer:
    port: int
    record: Record
    closed_port: int  # nothing listens there

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def _handler(server: UrlServer) -> type[BaseHTTPRequestHandler]:
    record = server.record

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def do_GET(self) -> None:
            self._serve("GET")

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            host = self.headers.get("Host", "")
            with record.lock:
                record.requests.append(
                    Seen(
                        method, parts.path, host, dict(self.headers), time.monotonic(), self.client_address[1]
                    )
                )
                record.counts[parts.path] += 1
                count = record.counts[parts.path]
                record.in_flight[host] += 1
                record.most_in_flight[host] = max(record.most_in_flight[host], record.in_flight[host])
            self.counted: str | None = host
            try:
                self._route(method, parts.path, parse_qs(parts.query), count)
            finally:
                self._answered()

        def send_response(self, code: int, message: str | None = None) -> None:
            self._answered()
            super().send_response(code, message)

        def _answered(self) -> None:
            """A request stops counting as in flight when its answer starts: the client may have the
            answer, and send its next request, before this thread is done writing it."""
            if getattr(self, "counted", None) is not None:
                with record.lock:
                    record.in_flight[self.counted] -= 1
                self.counted = None

        def _route(self, method: str, path: str, query: dict[str, list[str]], count: int) -> None:
            words = path.strip("/").split("/")
            first = words[0]
            retry = {"Retry-After": query["retry_after"][0]} if "retry_after" in query else {}
            if path in ("/", "/home", "/ok", "/account/login") or first == "page":
                return self._send(method, 200)
            if first == "status":
                return self._send(method, int(words[1]), retry)
            if first == "redirect":
                return self._send(method, int(words[1]), {"Location": query["to"][0]})
            if first == "chain":
                left = int(words[1])
                if left:
                    return self._send(method, 302, {"Location": f"/chain/{left - 1}"})
                return self._send(method, 200)
            if first == "flaky":
                times, status = int(words[1]), int(words[2])
                return self._send(method, status, retry) if count <= times else self._send(method, 200)
            if first == "head":
                return self._send(method, int(words[1]) if method == "HEAD" else 200)
            if first in ("etag", "lastmod"):
                return self._validated(method, first)
            if first == "slow":
                time.sleep(int(query.get("ms", ["300"])[0]) / 1000)
                return self._send(method, 200)
            return self._special(method, path)

        def _special(self, method: str, path: str) -> None:
            here = f"http://127.0.0.1:{server.port}"
            redirects = {
                "/loop/a": "/loop/b",
                "/loop/b": "/loop/a",
                "/deep/moved": "/",
                "/deep/members": "/account/login?next=/deep/members",
                "/cross": f"http://localhost:{server.port}/ok",
                "/to-https": f"https://127.0.0.1:{server.closed_port}/ok",
                "/to-loopback": f"{here}/ok",
            }
            if path in redirects:
                return self._send(
                    method,
                    301 if path in ("/deep/moved", "/to-https") else 302,
                    {"Location": redirects[path]},
                )
            if path == "/cookie/doc" and "seen=1" not in self.headers.get("Cookie", ""):
                return self._send(method, 302, {"Location": "/cookie/check", "Set-Cookie": "seen=1; Path=/"})
            if path == "/cookie/check":
                return self._send(method, 302, {"Location": "/cookie/doc"})
            if path == "/cookie/doc":
                return self._send(method, 200)
            if path == "/drop":  # no answer at all: the connection closed
                self.close_connection = True
                return None
            if path == "/garbage":  # not HTTP
                self.close_connection = True
                self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n")
                return None
            if path == "/no-location":
                return self._send(method, 302)
            if path == "/hang":
                record.stop.wait(30)
                return None
            if path == "/trickle":
                return self._trickle(method)
            if path in ("/doc.pdf", "/range.pdf"):
                return self._pdf(method, path == "/range.pdf")
            if path == "/fake.pdf":
                return self._send(method, 200, {"Content-Type": "application/pdf"}, HTML)
            return self._send(method, 404)

        def _validated(self, method: str, kind: str) -> None:
            if kind == "etag":
                fresh = self.headers.get("If-None-Match") == ETAG
                headers = {"ETag": ETAG}
            else:
                fresh = self.headers.get("If-Modified-Since") == LAST_MODIFIED
                headers = {"Last-Modified": LAST_MODIFIED}
            self._send(method, 304 if fresh else 200, headers, b"" if fresh else HTML)

        def _pdf(self, method: str, ranges: bool) -> None:
            asked = self.headers.get("Range", "")
            if ranges and asked.startswith("bytes=0-"):
                end = min(int(asked.removeprefix("bytes=0-")), len(PDF_BYTES) - 1)
                headers = {
                    "Content-Type": "application/pdf",
                    "Content-Range": f"bytes 0-{end}/{len(PDF_BYTES)}",
                }
                return self._send(method, 206, headers, PDF_BYTES[: end + 1])
            return self._send(method, 200, {"Content-Type": "application/pdf"}, PDF_BYTES)

        def _trickle(self, method: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            while method == "GET" and not record.stop.wait(0.2):
                try:
                    self.wfile.write(b"%")
                    self.wfile.flush()
                except OSError:
                    return

        def _send(
            self, method: str, status: int, headers: dict[str, str] | None = None, body: bytes = HTML
        ) -> None:
            self.send_response(status)
            for name, value in {"Content-Type": "text/html", **(headers or {})}.items():
                self.send_header(name, value)
            body = b"" if status == 304 else body
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if method == "GET":
                with suppress(OSError):  # the client read the bytes it wanted and closed
                    self.wfile.write(body)

    return Handler


@contextmanager
def url_server() -> Iterator[UrlServer]:
    """A running server, stopped (and its sleepers woken) when the block ends."""
    port = free_port()
    server = UrlServer(port, Record(), free_port())
    httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(server))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.record.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
