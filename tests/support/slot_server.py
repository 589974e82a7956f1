"""A judge server on 127.0.0.1 with a fixed number of slots, as a local llama.cpp server has: an
OpenAI-compatible chat endpoint that answers each request after `seconds`, and a request past its slots
either waits its turn (``busy="queue"``, as llama.cpp does) or is turned away (``busy=503`` or ``429``).
With `props`, it reports its slots as llama.cpp's server does (``GET /props``: ``total_slots``; ``GET
/slots``: one entry a slot); without, those are 404, as on vLLM or OpenAI. It counts the requests it got,
turned away, and the most it ever held at once.

    with slot_server(SlotServer(slots=1, busy=503)) as server:
        ... --judge openai:m@{server.url} ...
        assert server.most_at_once == 1
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERDICT = '{"verdict": "CORRECT", "rationale": "the reply states the expected value"}'


@dataclass
class SlotServer:
    slots: int = 1
    busy: int | str = 503  # a request past the slots: turned away with this status, or "queue"d
    props: bool = False  # reports its slots (GET /props, GET /slots), as llama.cpp's server does
    seconds: float = 0.05  # each completion's time in a slot
    url: str = ""  # up to /v1, once started
    chats: int = 0  # chat requests received
    turned_away: int = 0
    most_at_once: int = 0  # the most requests it ever held at once (in a slot or queued)
    _held: int = 0
    _in_slot: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    free: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.free = threading.Condition(self.lock)

    def enter(self) -> bool:
        """A chat request arrives: True once it has a slot, False when it is turned away."""
        with self.lock:
            self.chats += 1
            self._held += 1
            self.most_at_once = max(self.most_at_once, self._held)
            if self._in_slot >= self.slots and self.busy != "queue":
                self._held -= 1
                self.turned_away += 1
                return False
            self.free.wait_for(lambda: self._in_slot < self.slots)
            self._in_slot += 1
            return True

    def leave(self) -> None:
        with self.lock:
            self._in_slot -= 1
            self._held -= 1
            self.free.notify_all()


def _handler(server: SlotServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self._send(200, {"data": [{"id": "m"}]})
            elif self.path == "/props" and server.props:
                self._send(200, {"total_slots": server.slots, "default_generation_settings": {}})
            elif self.path == "/slots" and server.props:
                self._send(200, [{"id": n, "is_processing": False} for n in range(server.slots)])
            else:
                self._send(404, {"error": {"message": "File Not Found", "type": "not_found_error"}})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not server.enter():
                status = int(server.busy)
                self._send(status, {"error": {"message": "the server is busy", "code": status}})
                return
            try:
                if self._client_gone():  # llama.cpp drops a queued task whose client hung up
                    return
                time.sleep(server.seconds)
            finally:
                # the slot is free once the reply is made, before it is sent: a client that has its reply
                # and asks again at once must not find its own finished request still holding the slot
                server.leave()
            choice = {"message": {"content": VERDICT}}
            usage = {"prompt_tokens": 20, "completion_tokens": 8}
            self._send(200, {"model": "m", "choices": [choice], "usage": usage})

        def _client_gone(self) -> bool:
            """The client closed its connection while the request waited for a slot (its deadline)."""
            readable, _, _ = select.select([self.connection], [], [], 0)
            try:
                return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def slot_server(server: SlotServer) -> Iterator[SlotServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
