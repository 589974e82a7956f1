"""A system under test on 127.0.0.1 that replies whatever a test sets: a body of bytes (any status, any
headers), a body that never ends, or a Content-Length far past what it then sends. It counts the
body's bytes it got out before the client went away, so that a test can tell how much was read.

    with reply_server() as server:
        server.reply = Reply(body=b'{"text": "30 days"}')
        ... ask http:{server.url}/ask ...
        server.reply = Reply(endless=True)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = 64 * 1024
# An endless body stops here all the same: a client that reads it all must not take the machine with it.
SAFETY_CAP = 1_000_000_000


@dataclass
class Reply:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    endless: bool = False  # after `body`, spaces for ever (no Content-Length: it ends when the client goes)
    declared: int | None = None  # a Content-Length instead of the body's own; then `body`, then spaces


@dataclass
class ReplyServer:
    url: str = ""
    reply: Reply | Callable[[bytes], Reply] = field(default_factory=Reply)
    sent: int = 0  # body bytes the last reply got out before it ended or the client went
    finished: threading.Event = field(default_factory=threading.Event)  # the last reply's writing ended
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply_to(self, request: bytes) -> Reply:
        return self.reply(request) if callable(self.reply) else self.reply


def _handler(server: ReplyServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # a connection kept for the next request: a fuzzer sends thousands
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart (delayed ACK)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            request = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            server.finished.clear()
            reply = server.reply_to(request)
            self.send_response(reply.status)
            for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                self.send_header(name, value)
            # A body that never ends, or one a 204 or 304 must not have, ends the connection with it.
            closes = reply.endless or reply.status in (204, 304)
            if closes:
                self.send_header("Connection", "close")
            if not reply.endless:
                self.send_header("Content-Length", str(reply.declared or len(reply.body)))
            self.end_headers()
            sent = 0
            try:
                sent = self._write(reply.body, sent)
                if reply.endless or reply.declared:
                    limit = SAFETY_CAP if reply.endless else (reply.declared or 0)
                    padding = b" " * CHUNK
                    while sent < limit:
                        sent = self._write(padding[: limit - sent], sent)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as it should
                pass
            finally:
                with server.lock:
                    server.sent = sent
                server.finished.set()
            if closes:
                self.close_connection = True

        def _write(self, data: bytes, sent: int) -> int:
            self.wfile.write(data)
            return sent + len(data)

    return Handler


@contextmanager
def reply_server() -> Iterator[ReplyServer]:
    found = ReplyServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(found))
    httpd.daemon_threads = True
    httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
    found.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield found
    finally:
        httpd.shutdown()
        httpd.server_close()
