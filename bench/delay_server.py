"""A local HTTP server that answers every request after a fixed delay, as a remote model, RAG system or web
site would, and counts what it served: the far side of the concurrency benches (bench_run.py,
bench_judge.py, bench_urls.py). It runs in a process of its own, so its work is not the client's.

    POST .../chat/completions   an OpenAI chat completion whose content is {"verdict": "CORRECT"}
    GET  .../models             the model list (at once: the judge's preflight)
    POST anything else          a system's JSON reply {"text": "It is N days."} (N: the question's number)
    GET or HEAD anything else   200, an empty page (a URL that is up)
    GET  /stats                 what was served, as JSON (at once)

Written on asyncio streams with keep-alive, so that the server's own cost per request stays far below
the delay: http.server's thread per connection costs over a millisecond a request, which at 32 in flight
shows up as time the client did not spend.

    with delay_server(0.2) as url:   # http://127.0.0.1:PORT
        ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

COMPLETION = json.dumps(
    {
        "model": "bench",
        "choices": [{"message": {"role": "assistant", "content": '{"verdict": "CORRECT"}'}}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 6},
    }
).encode()
MODELS = json.dumps({"object": "list", "data": [{"id": "bench", "object": "model"}]}).encode()
NUMBER = re.compile(rb"\d+")


def serve(port: int, delay: float) -> None:
    served = {"chat": 0, "models": 0, "system": 0, "page": 0}

    def reply(method: str, target: str, body: bytes) -> tuple[str, bytes]:
        """The kind of request (what `served` counts) and the body of its answer."""
        if method == "POST" and target.endswith("/chat/completions"):
            return "chat", COMPLETION
        if method == "POST":
            number = NUMBER.search(body)
            days = 10 * (int(number.group()) + 1) if number else 30
            return "system", json.dumps({"text": f"It is {days} days."}).encode()
        if target.endswith("/models"):
            return "models", MODELS
        return "page", b""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *headers = head.decode("latin-1").split("\r\n")
                method, target, _ = request_line.split(" ", 2)
                sizes = [int(h.split(":", 1)[1]) for h in headers if h.lower().startswith("content-length:")]
                body = await reader.readexactly(sizes[0] if sizes else 0)
                if target == "/stats":
                    kind, data = "", json.dumps(served).encode()
                else:
                    kind, data = reply(method, target, body)
                    served[kind] += 1
                if kind in ("chat", "system", "page"):
                    await asyncio.sleep(delay)
                head_out = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}"
                writer.write(head_out.encode() + b"\r\n\r\n" + (b"" if method == "HEAD" else data))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=1024)
        await server.serve_forever()

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def served(url: str) -> dict[str, int]:
    """What the server at `url` has answered so far, by kind."""
    with urllib.request.urlopen(f"{url}/stats", timeout=5) as response:
        return dict(json.load(response))


@contextmanager
def delay_server(delay: float) -> Iterator[str]:
    """The server in a process of its own, answering after `delay` seconds; its base URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, __file__, "--port", str(port), "--delay", str(delay)])
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                served(url)
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("the delay server did not start")
        yield url
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, required=True, help="seconds before each answer")
    arguments = parser.parse_args()
    serve(arguments.port, arguments.delay)
