"""The progress line, as a terminal shows it: `assay score` run in its own process with stderr on a real
pseudo-terminal. Its line is rewritten in place with carriage returns; a shorter figure must not leave
the tail of a longer one on the screen (the hand-written bar did: "12 s left   left"). The shortening
comes from the judge's pass, whose few rows follow the matchers' many: the judge is a real HTTP server
on 127.0.0.1 that answers every question CORRECT."""

from __future__ import annotations

import csv
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ROWS = 60_000  # more than one batch of the matchers (scoring.BATCH_ROWS), so their figures run long
ASKED = 3  # rows with a response, the only ones the judge is asked about (a blank one fails unasked)


class _Judge(BaseHTTPRequestHandler):
    """The two calls of an OpenAI-compatible API the judge makes: the model list, and a completion."""

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        verdict = json.dumps({"verdict": "CORRECT", "rationale": "same answer"})
        message = {"role": "assistant", "content": verdict}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        self._send(
            {"model": "fake", "choices": [{"message": message, "finish_reason": "stop"}], "usage": usage}
        )

    def _send(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:  # quiet: the test reads only assay's stderr
        pass


@pytest.fixture(scope="module")
def judge_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def responses(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "answers.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "answer", "response"])
        for row in range(ROWS):
            writer.writerow([row, "Capital of India?", "Delhi", "Delhi" if row < ASKED else ""])
    return path


def _command(responses: Path, judge_url: str) -> list[str]:
    return [sys.executable, "-m", "assay", "score", "--responses", str(responses),
            "--metric", "exact_substring", "--metric", "judge",
            "--judge", f"openai:fake@{judge_url}", "--no-cache"]  # fmt: skip


def _environment() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }


def _run_on_a_terminal(command: list[str], cwd: Path) -> tuple[int, bytes]:
    """The exit code, and every byte the command wrote to stderr, which is a pseudo-terminal 200
    columns wide (stdout is a pipe)."""
    main, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        stdin=subprocess.DEVNULL,
    )
    os.close(terminal)  # the child holds its own copy: reading ends when it exits
    written = bytearray()
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the terminal's other side is closed
            break
        if not chunk:
            break
        written += chunk
    os.close(main)
    return process.wait(timeout=120), bytes(written)


def _screen(written: str) -> list[str]:
    """The lines a terminal shows for `written`: a carriage return moves back to the line's start,
    and what follows overwrites character by character, leaving the rest of the line in place."""
    lines, line, column = [], [], 0
    for char in written:
        if char == "\r":
            column = 0
        elif char == "\n":
            lines.append("".join(line))
            line, column = [], 0
        else:
            line[column : column + 1] = [char]
            column += 1
    return [*lines, "".join(line)] if line else lines


def test_the_progress_line_leaves_nothing_of_a_longer_one_behind(
    responses: Path, judge_url: str, tmp_path: Path
) -> None:
    code, written = _run_on_a_terminal(_command(responses, judge_url), tmp_path)
    text = written.decode("utf-8")
    assert code == 0, text
    progress = [line for line in text.split("\n") if "rows, " in line]
    assert len(progress) == 1, text  # one line, rewritten in place
    drawn = progress[0].rstrip("\r").split("\r")
    assert any(f"/{ROWS:,} rows, " in figure for figure in drawn), drawn  # the matchers' pass
    last = drawn[-1]
    assert f"] {ASKED}/{ASKED} rows, " in last, last  # the judge's pass, finished
    assert last.rstrip().endswith(" s left"), last
    longest = max(len(figure.rstrip()) for figure in drawn)
    assert longest > len(last.rstrip()) + 3, drawn  # a shorter line did follow a longer one
    shown = next(line for line in _screen(text.replace("\r\n", "\n")) if "rows, " in line)
    assert shown.rstrip() == last.rstrip()  # nothing left over from the longer ones


def test_no_progress_is_written_when_stderr_is_not_a_terminal(
    responses: Path, judge_url: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        _command(responses, judge_url), cwd=tmp_path, env=_environment(), capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert b"\r" not in done.stderr
    assert b"rows, " not in done.stderr and b"assay: scoring " not in done.stderr
