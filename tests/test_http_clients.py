"""The HTTP clients of the systems, the judges and the URL check (``assay.http_clients``): each request in
flight on a client of its own, whose connection is kept alive for the next one, against a real server
on 127.0.0.1; and a module the HTTP stack imports on every request, when it is missing, looked for once
in the process, not once a request."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from assay.harness.systems.http_common import JsonPoster

ROOT = Path(__file__).resolve().parents[1]


class Counting(BaseHTTPRequestHandler):
    """Answers every POST after 50 ms with {"text": ...}, and notes the connection (the client's port)
    each request came on."""

    protocol_version = "HTTP/1.1"  # keep-alive
    ports: list[int] = []  # noqa: RUF012 (one server at a time)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.ports.append(self.client_address[1])
        time.sleep(0.05)
        body = json.dumps({"text": "30 days"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    Counting.ports = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/ask"
    httpd.shutdown()
    httpd.server_close()


def test_requests_in_flight_each_have_a_connection_and_reuse_it_for_the_next(server: str) -> None:
    async def ask_all() -> list[object]:
        poster = JsonPoster(server)
        try:
            replies = []
            for _ in range(5):  # five waves of eight at once
                replies += await asyncio.gather(*(poster.post({"question": f"q{n}"}) for n in range(8)))
            return [value for value, _ in replies]
        finally:
            await poster.aclose()

    values = asyncio.run(ask_all())
    assert values == [{"text": "30 days"}] * 40
    assert len(Counting.ports) == 40
    # eight in flight at once: eight connections, each asked again in every wave (none opened a request)
    assert len(set(Counting.ports)) == 8


# A Python where sniffio cannot be imported, which counts how often the import system looks for it, then
# asks a real server 20 times through a system's HTTP client and prints the count.
HIDDEN_SNIFFIO = """
import asyncio, sys

looked = []


class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "sniffio":
            looked.append(name)
            raise ModuleNotFoundError("No module named 'sniffio'", name=name)
        return None


sys.meta_path.insert(0, Hide())
sys.modules.pop("sniffio", None)
from assay.harness.systems.http_common import JsonPoster


async def main():
    poster = JsonPoster(sys.argv[1])
    for n in range(20):
        await poster.post({"question": f"q{n}"})
    await poster.aclose()


asyncio.run(main())
print(len(looked))
"""


def test_a_missing_module_the_http_stack_imports_per_request_is_looked_for_once(server: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", HIDDEN_SNIFFIO, server],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == 1  # httpcore imports it about twelve times a request: 240 without
    assert len(Counting.ports) == 20
