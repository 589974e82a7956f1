"""A judge whose cost cannot be counted leaves the chain once --max-cost is set (issue 22): a server on
127.0.0.1 that reports negative, absurd or no usage is sent a bounded few requests, not one per row."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from assay import Dataset, Outcome, ScoreRun, score
from assay.judges.accounting import judge_summary
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from assay.records import Record

ROWS = 40


@dataclass
class Reported:
    """What the fake server reports as usage (None: no usage key), and the chat requests it received."""

    usage: dict[str, Any] | None
    chats: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def handler(reported: Reported) -> type[BaseHTTPRequestHandler]:
    class OpenAICompatible(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._send({"data": [{"id": "m"}]})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            with reported.lock:
                reported.chats += 1
            body: dict[str, Any] = {
                "model": "m",
                "choices": [{"message": {"content": '{"verdict": "CORRECT", "rationale": "same"}'}}],
            }
            if reported.usage is not None:
                body["usage"] = reported.usage
            self._send(body)

        def _send(self, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    return OpenAICompatible


@contextmanager
def judge_server(reported: Reported) -> Iterator[str]:
    """A fake OpenAI-compatible judge on 127.0.0.1 serving model "m": its base URL (up to /v1)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(reported))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def serve() -> Iterator[Any]:
    with ExitStack() as servers:

        def start(reported: Reported) -> str:
            url = servers.enter_context(judge_server(reported))
            return f"openai:m@{url},price_prompt=1,price_completion=1"

        yield start


def judged(specs: list[str], **options: Any) -> ScoreRun:
    records = [
        Record(str(n), f"question {n}?", (f"answer {n}",), f"reply {n}", row=n + 1) for n in range(ROWS)
    ]
    dataset = Dataset(records, "rows", ("id", "question", "answer", "response"), {}, {})
    setup = JudgeSetup(tuple(map(parse_spec, specs)), JudgeOptions(**options))
    return score(dataset, with_judge(["judge"], setup))


UNCOUNTED = [
    pytest.param({"prompt_tokens": -1_000_000, "completion_tokens": 3}, id="negative"),
    pytest.param({"prompt_tokens": 10**12, "completion_tokens": 3}, id="absurd"),
    pytest.param({"prompt_tokens": "12", "completion_tokens": 3}, id="text"),
    pytest.param(None, id="no-usage"),
]


@pytest.mark.parametrize("usage", UNCOUNTED)
@pytest.mark.parametrize("concurrency", [1, 4])
def test_under_max_cost_a_judge_whose_cost_cannot_be_counted_leaves_the_chain(
    serve: Any, usage: dict[str, Any] | None, concurrency: int
) -> None:
    broken, sound = Reported(usage), Reported({"prompt_tokens": 10, "completion_tokens": 2})
    run = judged([serve(broken), serve(sound)], max_cost=1000.0, concurrency=concurrency)
    assert 1 <= broken.chats <= concurrency  # what was in flight when the first reply came back
    assert sound.chats == ROWS  # every row went down the chain
    assert run.metrics["judge"].outcomes.count(Outcome.PASS) == ROWS
    summary = judge_summary(run.summary)
    assert summary is not None
    [note] = [w for w in summary.warnings if "out of the chain for the rest of the run" in w]
    assert "cannot be counted against --max-cost 1000.0" in note


@pytest.mark.parametrize("usage", UNCOUNTED)
def test_alone_under_max_cost_it_is_asked_once_and_every_row_says_why(
    serve: Any, usage: dict[str, Any] | None
) -> None:
    broken = Reported(usage)
    run = judged([serve(broken)], max_cost=1000.0, concurrency=1)
    assert broken.chats == 1
    assert run.metrics["judge"].outcomes.count(Outcome.UNSCORED) == ROWS
    reasons = run.metrics["judge"].reasons  # by row
    assert all("left the chain" in reasons[row] for row in range(1, ROWS))


def test_without_max_cost_no_usage_is_counted_as_nothing_and_a_broken_count_breaks_the_row(
    serve: Any,
) -> None:
    silent, negative = Reported(None), Reported({"prompt_tokens": -5, "completion_tokens": 1})
    assert judged([serve(silent)]).metrics["judge"].outcomes.count(Outcome.PASS) == ROWS
    assert silent.chats == ROWS
    assert judged([serve(negative)]).metrics["judge"].outcomes.count(Outcome.UNSCORED) == ROWS
    assert negative.chats == ROWS  # broken for the row, as before: nothing to protect without a ceiling
