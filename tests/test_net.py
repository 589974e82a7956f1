"""assay.net, the one HTTP layer of the judges, the systems under test and the URL check, against a real
HTTP server on 127.0.0.1 written here (each request answered with a scripted status, headers and pace):
Retry-After read from a real response, the one cap, backoff with jitter, the total deadline, the retry
statuses as a judge and a system see them, and secrets kept out of every message."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from assay import net
from assay.harness.systems import SystemFailure, TransportError, load_system
from assay.judges._base import JudgeUnavailable
from assay.judges.openai_http import OpenAIJudge
from conftest import free_port


@dataclass
class Scripted:
    """The answer to every request: a status, headers, and a body sent a byte per `drip` seconds."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"{}"
    drip: float = 0.0


@dataclass
class Server:
    url: str
    answer: Scripted = field(default_factory=Scripted)
    requests: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def server() -> Iterator[Server]:
    port = free_port()
    found = Server(f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._answer()

        def _answer(self) -> None:
            found.requests += 1
            scripted = found.answer
            self.send_response(scripted.status)
            for name, value in {"Content-Length": str(len(scripted.body)), **scripted.headers}.items():
                self.send_header(name, value)
            self.end_headers()
            for at in range(len(scripted.body)):
                if scripted.drip and found.stop.wait(scripted.drip):
                    return
                self.wfile.write(scripted.body[at : at + 1])

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        found.stop.set()
        httpd.shutdown()
        httpd.server_close()


def header_of(server: Server, value: str) -> str | None:
    """The Retry-After a real response carries when the server sends `value`."""
    server.answer = Scripted(status=429, headers={"Retry-After": value})
    return httpx.get(f"{server.url}/limited").headers.get("retry-after")


# --- Retry-After -------------------------------------------------------------------------------------

DELAYS = [
    ("2", 2.0),
    ("0", 0.0),
    ("1.5", 1.5),  # a decimal, as some servers send
    ("120", 120.0),  # read as asked; the cap is the caller's to apply (past_cap, capped)
    ("inf", None),  # RFC 9110's delay-seconds are digits: these are no delay
    ("1e400", None),
    ("1_0", None),
    ("nan", None),
    ("-5", None),
    ("soon", None),
    ("", None),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date past: no wait
]


@pytest.mark.parametrize(("value", "seconds"), DELAYS)
def test_retry_after_is_read_from_a_real_response(server: Server, value: str, seconds: float | None) -> None:
    assert net.retry_after(header_of(server, value)) == seconds


def test_retry_after_as_an_http_date_is_the_seconds_until_it(server: Server) -> None:
    now = time.time()
    asked = net.retry_after(header_of(server, formatdate(now + 30, usegmt=True)), now=now)
    assert asked is not None and 29.0 <= asked <= 30.0  # the date has whole seconds


def test_no_retry_after_is_none() -> None:
    assert net.retry_after(None) is None


@pytest.mark.parametrize(
    ("asked", "past", "held"),
    [(None, False, None), (0.0, False, 0.0), (60.0, False, 60.0), (60.5, True, 60.0), (3600.0, True, 60.0)],
)
def test_one_cap_of_sixty_seconds(asked: float | None, past: bool, held: float | None) -> None:
    assert net.MAX_RETRY_AFTER == 60.0
    assert (net.past_cap(asked), net.capped(asked)) == (past, held)


# --- backoff -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "attempt", "most"), [(0.5, 0, 0.5), (0.5, 3, 4.0), (1.0, 10, 60.0), (0, 2, 0)]
)
def test_backoff_is_a_jittered_draw_up_to_the_doubled_base_and_the_cap(
    base: float, attempt: int, most: float
) -> None:
    waits = [net.backoff(base, attempt) for _ in range(200)]
    assert all(0 <= wait <= most for wait in waits)
    assert len(set(waits)) > 1 or most == 0  # jitter: requests waiting together do not retry together


# --- the statuses worth asking again -----------------------------------------------------------------


def test_the_retry_statuses() -> None:
    assert {408, 429, 500, 502, 503, 504} == net.RETRY_STATUSES
    assert {408, 429, 502, 503, 504} == net.SYSTEM_RETRY_STATUSES  # a system's 500 is its answer


def ask_system(server: Server) -> None:
    system = load_system(f"http:{server.url}/ask", {"timeout": "2"})

    async def ask() -> None:
        try:
            await system.ask("What is the grace period?", None)
        finally:
            await system.aclose()

    asyncio.run(ask())


@pytest.mark.parametrize("status", sorted(net.SYSTEM_RETRY_STATUSES))
def test_a_systems_retry_status_is_a_transport_error(server: Server, status: int) -> None:
    server.answer = Scripted(status=status, headers={"Retry-After": "3600"})
    with pytest.raises(TransportError) as error:
        ask_system(server)
    assert error.value.reason == f"HTTP {status}"
    assert error.value.retry_after == 60.0  # the hour asked for, held to the cap (the runner waits)


@pytest.mark.parametrize("status", [500, 501, 400, 404])
def test_a_systems_other_status_is_its_own_failure(server: Server, status: int) -> None:
    server.answer = Scripted(status=status, body=b"oops")
    with pytest.raises(SystemFailure):
        ask_system(server)


def judge(server: Server, retries: int = 2, timeout: float = 5.0) -> OpenAIJudge:
    return OpenAIJudge(f"{server.url}/v1", "m", retries=retries, backoff=0.01, timeout=timeout)


def complete(judge: OpenAIJudge) -> Any:
    async def one() -> Any:
        try:
            return await judge.complete([{"role": "user", "content": "Is it 30 days?"}])
        finally:
            await judge.close()

    return asyncio.run(one())


@pytest.mark.parametrize("status", sorted(net.RETRY_STATUSES))
def test_a_judges_retry_status_is_asked_again_then_the_judge_is_unavailable(
    server: Server, status: int
) -> None:
    server.answer = Scripted(status=status)
    with pytest.raises(JudgeUnavailable, match=f"HTTP {status}, after 2 retries"):
        complete(judge(server))
    assert server.requests == 3


def test_a_judge_asked_to_wait_past_the_cap_gives_the_row_up_at_once(server: Server) -> None:
    server.answer = Scripted(status=429, headers={"Retry-After": "3600"})
    started = time.monotonic()
    with pytest.raises(JudgeUnavailable, match="Retry-After 3600 s is past the 60 s cap"):
        complete(judge(server))
    assert (
        server.requests == 1 and time.monotonic() - started < 30.0
    )  # asked an hour; a loaded machine's room


def test_a_judge_waits_the_retry_after_it_is_asked(server: Server) -> None:
    server.answer = Scripted(status=503, headers={"Retry-After": "1"})
    started = time.monotonic()
    with pytest.raises(JudgeUnavailable):
        complete(judge(server, retries=1))
    assert server.requests == 2 and time.monotonic() - started >= 1.0


# --- the deadline ------------------------------------------------------------------------------------


@pytest.mark.parametrize("deadline", ["timeout", "deadline"])
def test_a_dripping_body_is_cut_at_the_total_deadline(server: Server, deadline: str) -> None:
    server.answer = Scripted(body=b"x" * 400, drip=0.05)  # 20 s of body; each read is quick

    async def fetch() -> None:
        async with httpx.AsyncClient(timeout=0.5) as client:
            await net.within_deadline(client.get(f"{server.url}/drip"), 0.5)

    started = time.monotonic()
    with pytest.raises(TimeoutError) as error:
        asyncio.run(fetch())
    assert time.monotonic() - started < 10.0  # cut at 0.5 s: the room is a loaded machine's, not the drip's
    assert net.failure(error.value, 0.5, deadline) == f"no whole reply within the 0.5 s {deadline}"


# --- secrets -----------------------------------------------------------------------------------------


def test_a_connection_error_to_a_url_with_a_password_is_described_without_it() -> None:
    url = f"http://user:hunter2-secret@127.0.0.1:{free_port()}/v1"
    net.register_url(url)

    async def fetch() -> None:
        async with httpx.AsyncClient(timeout=2) as client:
            await client.get(url)

    with pytest.raises(httpx.ConnectError) as error:
        asyncio.run(fetch())
    described = net.failure(error.value, 2)
    assert described.startswith("ConnectError") and "hunter2-secret" not in described
    assert net.display_url(url) == url.replace("user:hunter2-secret@", "")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Authorization: Bearer sk-abc123XYZ", "Authorization: Bearer [redacted]"),
        ("Basic dXNlcjpwYXNz= was sent", "Basic [redacted] was sent"),
        ("a basic answer", "a basic answer"),  # a word, not a token
        ("see http://bob:pw@host/x", "see http://[redacted]@host/x"),
        ("the key is key-registered-42", "the key is [redacted]"),
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
    ],
)
def test_clean_redacts_secrets_and_replaces_lone_surrogates(text: str, shown: str) -> None:
    net.register_secret("key-registered-42")
    assert net.clean(text) == shown


def test_a_secret_a_server_echoes_never_reaches_a_systems_error(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NET_TEST_KEY", "sk-echoed-secret-99")
    server.answer = Scripted(status=400, body=b"bad request with key sk-echoed-secret-99")
    system = load_system(f"openai:{server.url}/v1", {"model": "m", "api_key_env": "NET_TEST_KEY"})

    async def ask() -> None:
        try:
            await system.ask("What is the grace period?", None)
        finally:
            await system.aclose()

    with pytest.raises(SystemFailure) as failure:
        asyncio.run(ask())
    assert "sk-echoed-secret-99" not in failure.value.reason
    assert "[redacted]" in failure.value.reason
