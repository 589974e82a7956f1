"""assay run against a real JSON endpoint on 127.0.0.1 that fails in known ways: 503s that pass, a hang, a
500 and a reply that is not JSON. Every item keeps its row; only the 503s are retried."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from cli_run import run
from test_run_cli import gold_item, rows_of, write_gold


class Endpoint(BaseHTTPRequestHandler):
    """Answers each item's question by its number: 0 and 4 answer, 1 is busy (503) twice, 2 hangs,
    3 fails (500), 5 replies with text that is not JSON."""

    calls: ClassVar[dict[str, int]] = {}
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "X-Assay-Probe" in self.headers:  # the run's check before the first item
            return self._send(200, b'{"text": "up"}')
        question = body["question"]
        with self.lock:
            self.calls[question] = self.calls.get(question, 0) + 1
            attempt = self.calls[question]
        number = int("".join(ch for ch in question if ch.isdigit()))
        if number == 1 and attempt <= 2:
            return self._send(503, b'{"error": "busy"}')
        if number == 2:
            time.sleep(60)  # far past the 3 s timeout (x 3 attempts), so a loaded machine's room is clear
        if number == 3:
            return self._send(500, b'{"error": "the index is not loaded"}')
        if number == 5:
            return self._send(200, b"<html>not json</html>")
        days = 10 * (number + 1)
        self._send(200, json.dumps({"text": f"It is {days} days.", "scope": body["scope"]}).encode())

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    Endpoint.calls = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # the hung reply's broken pipe
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/ask"
    server.shutdown()
    server.server_close()


def test_every_item_keeps_its_row_and_only_transport_errors_are_retried(
    tmp_path: Path, endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 6), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"http:{endpoint}", "--out", str(out)]
    started = time.monotonic()
    # A 3 s timeout: a loaded machine's quick replies took over 1 s.
    code, _, stderr = run([*argv, "--timeout", "3", "--retries", "2", "--concurrency", "3"], capsys)
    assert code == 1 and "gate FAILED: system errors: 3 of 6 items (50.0%)" in stderr, stderr
    assert time.monotonic() - started < 40  # the hung item cut at 3 s per attempt, not its 60 s
    rows = {row["id"]: row for row in rows_of(out)}
    assert list(rows) == [f"item{n:02d}" for n in range(6)]
    assert rows["item00"]["response"] == "It is 10 days."
    assert rows["item01"]["response"] == "It is 20 days."  # after two 503s
    assert rows["item02"]["reply"]["error"] == "no reply within 3 s (the timeout)"
    assert "500" in rows["item03"]["reply"]["error"]
    assert rows["item05"]["reply"]["error"] and rows["item05"]["response"] == ""
    calls = {question: Endpoint.calls[question] for question in Endpoint.calls}
    assert calls[gold_item(1)["question"]] == 3 and calls[gold_item(3)["question"]] == 1
    assert calls[gold_item(5)["question"]] == 1
