"""A proxy on 127.0.0.1 in front of the real llama.cpp server that adds the faults a real server will
not produce on demand: HTTP 500 or 429 (with Retry-After), a reply that is not a verdict, a refusal
of JSON mode, a refused API key, a reply that echoes the Authorization header, usage numbers that are
not counts, a body dripped a byte at a time. Whatever it does not fault it forwards, untouched, to the
real server. It records every request it receives."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


@dataclass
class Faults:
    status: int | None = None  # answer chat completions with this HTTP status ...
    times: int | None = None  # ... this many times (None: always), then forward
    retry_after: str | None = None  # the Retry-After header sent with the status
    garbage: str | None = None  # answer chat completions with this content instead of the model's
    # ("{auth}" in it becomes the request's Authorization header: a server that echoes it)
    usage: dict[str, Any] | None = None  # the usage sent with the garbage reply
    drip: float | None = None  # send chat completions' bodies one byte per this many seconds
    reject_json_mode: bool = False  # answer 400 to a request that asks for response_format
    api_key: str | None = None  # refuse (401) any request without "Bearer <api_key>"
    echo_auth: bool = False  # put the request's Authorization header into the injected error's body
    requests: list[dict[str, Any]] = field(default_factory=list)  # what arrived: path, body, headers
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(upstream: str, faults: Faults) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._serve(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._serve(json.loads(self.rfile.read(length)) if length else {})

        def _serve(self, body: dict[str, Any] | None) -> None:
            with faults.lock:
                auth = self.headers.get("Authorization")
                faults.requests.append(
                    {"path": self.path, "body": body, "auth": auth, "at": time.monotonic()}
                )
                fault = self._fault(body)
            if fault is not None:
                status, headers, payload = fault
                return self._send(status, headers, payload)
            path = self.path.removeprefix("/v1")
            if body is None:
                reply = httpx.get(f"{upstream}{path}", timeout=120)
            else:
                reply = httpx.post(f"{upstream}{path}", json=body, timeout=120)
            self._send(reply.status_code, {}, reply.content)

        def _fault(self, body: dict[str, Any] | None) -> tuple[int, dict[str, str], bytes] | None:
            if faults.api_key is not None and self.headers.get("Authorization") != f"Bearer {faults.api_key}":
                return 401, {}, b'{"error": {"message": "invalid api key"}}'
            if body is None:
                return None
            if faults.reject_json_mode and "response_format" in body:
                return 400, {}, b'{"error": {"message": "response_format is not supported"}}'
            if faults.status is not None and (faults.times is None or faults.times > 0):
                if faults.times is not None:
                    faults.times -= 1
                headers = {"Retry-After": faults.retry_after} if faults.retry_after else {}
                echoed = f" (you sent {self.headers.get('Authorization')})" if faults.echo_auth else ""
                return (
                    faults.status,
                    headers,
                    json.dumps({"error": {"message": f"injected{echoed}"}}).encode(),
                )
            if faults.garbage is not None:
                content = faults.garbage.replace("{auth}", self.headers.get("Authorization") or "")
                completion = {
                    "model": "garbage",
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": faults.usage or {"prompt_tokens": 10, "completion_tokens": 3},
                }
                return 200, {}, json.dumps(completion).encode()
            if faults.drip is not None:
                verdict = {"choices": [{"message": {"content": '{"verdict": "CORRECT"}'}}]}
                return 200, {}, json.dumps(verdict).encode() + b" " * 400
            return None

        def _send(self, status: int, headers: dict[str, str], payload: bytes) -> None:
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if faults.drip is None or not self.path.endswith("/chat/completions"):
                self.wfile.write(payload)
                return
            try:  # a byte at a time: each read is quick, the whole body takes len(payload) * drip
                for byte in payload:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(faults.drip)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up, as it should

    return Handler


@contextmanager
def fault_proxy(upstream: str, faults: Faults) -> Iterator[str]:
    """Serve on a free port; yield its base URL (ending in /v1)."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), _handler(upstream.removesuffix("/v1").rstrip("/") + "/v1", faults)
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
