"""Systems under test over HTTP, against real servers on 127.0.0.1: a stdlib server written here that
speaks OpenAI chat completions and plain JSON, with the faults of a real deployment (a closed port, 5xx,
a hang past the timeout, a body dripped a byte at a time, bodies that are not replies), and once the
real llama.cpp server of tests/conftest.py."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from assay import Reply
from assay.errors import UsageError
from assay.harness.systems import SystemFailure, TransportError, load_system, load_system_config
from assay.harness.systems.base import System
from assay.parts import Citation
from conftest import Server, free_port

POLICY = "hdfc-ergo__my-optima-secure__wordings"
QUESTION = "What is the grace period?"


@dataclass
class Scripted:
    """What the server answers one request with."""

    status: int = 200
    body: Any = None  # a JSON value, or bytes sent as they are
    headers: dict[str, str] = field(default_factory=dict)
    hang: float = 0.0  # seconds before answering
    drip: float | None = None  # send the body one byte per this many seconds


@dataclass
class Endpoint:
    url: str  # http://127.0.0.1:PORT
    answer: Callable[[dict[str, Any]], Scripted]
    requests: list[dict[str, Any]] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)


def chat_completion(request: dict[str, Any]) -> Scripted:
    """A completion that says which scope reached it (a system message, or metadata) and cites it."""
    body = request["body"]
    system = [m["content"] for m in body["messages"] if m["role"] == "system"]
    scope = (body.get("metadata") or {}).get("scope") or (system[0].split(": ")[-1] if system else "none")
    content = f"The grace period is 30 days [Source: {scope}, p.13]."
    return Scripted(body={
        "id": "chatcmpl-1", "object": "chat.completion", "model": "served-model-v2",
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    })  # fmt: skip


def json_reply(request: dict[str, Any]) -> Scripted:
    return Scripted(body={"answer": f"30 days for {request['body']}", "route": "extractive"})


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    found = Endpoint("", chat_completion)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            request = {"path": self.path, "body": body, "headers": dict(self.headers)}
            found.requests.append(request)
            scripted = found.answer(request)
            if scripted.hang:
                found.released.wait(scripted.hang)
            payload = scripted.body
            if not isinstance(payload, bytes):
                payload = json.dumps(payload).encode()
            try:
                self.send_response(scripted.status)
                for name, value in {"Content-Type": "application/json", **scripted.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                for at in range(len(payload)) if scripted.drip else ():
                    self.wfile.write(payload[at : at + 1])
                    self.wfile.flush()
                    time.sleep(scripted.drip or 0)
                    if found.released.is_set():
                        return
                if not scripted.drip:
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up: as it should
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield found
    finally:
        found.released.set()
        server.shutdown()
        server.server_close()


def ask(system: System, question: str = QUESTION, scope: str | None = POLICY) -> Reply:
    async def once() -> Reply:
        try:
            return await system.ask(question, scope)
        finally:
            await system.aclose()

    return asyncio.run(once())


def openai(endpoint: Endpoint, **options: str) -> System:
    return load_system(f"openai:{endpoint.url}/v1", {"model": "asked-model", **options})


# --- OpenAI-compatible chat ----------------------------------------------------------------------------


def test_a_chat_completion_is_the_answer_its_model_and_its_citations(endpoint: Endpoint) -> None:
    answer = ask(openai(endpoint))
    assert answer.text == f"The grace period is 30 days [Source: {POLICY}, p.13]."
    assert answer.citations == (Citation(POLICY, 13),)
    assert answer.model == "served-model-v2"  # the completion's, not the one asked for
    assert answer.raw is not None and json.loads(answer.raw)["id"] == "chatcmpl-1"
    assert answer.error is None and answer.blocked is None
    [request] = endpoint.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "asked-model" and request["body"]["temperature"] == 0.0


@pytest.mark.parametrize(
    ("scope_as", "scope", "system_message", "metadata"),
    [
        ("system", POLICY, f"Answer only from the documents of: {POLICY}", None),
        ("metadata", POLICY, None, {"scope": POLICY}),
        ("both", POLICY, f"Answer only from the documents of: {POLICY}", {"scope": POLICY}),
        ("both", None, None, None),  # no scope: nothing is sent for it
    ],
)
def test_the_scope_travels_as_a_system_message_metadata_or_both(
    endpoint: Endpoint, scope_as: str, scope: str | None, system_message: str | None, metadata: Any
) -> None:
    answer = ask(openai(endpoint, scope_as=scope_as), scope=scope)
    body = endpoint.requests[-1]["body"]
    systems = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert systems == ([system_message] if system_message else [])
    assert body.get("metadata") == metadata
    assert body["messages"][-1] == {"role": "user", "content": QUESTION}
    assert answer.citations == (Citation(scope or "none", 13),)  # the server saw that scope


def test_the_system_prompt_and_metadata_key_are_options(endpoint: Endpoint) -> None:
    prompt = "Policy {scope} only; cite it."
    ask(openai(endpoint, scope_as="both", system_prompt=prompt, metadata_key="policy"))
    body = endpoint.requests[-1]["body"]
    assert body["messages"][0]["content"] == f"Policy {POLICY} only; cite it."
    assert body["metadata"] == {"policy": POLICY}


def test_sampling_options_are_sent_and_signed(endpoint: Endpoint) -> None:
    system = openai(endpoint, temperature="0.7", max_tokens="64", seed="3")
    ask(system)
    body = endpoint.requests[-1]["body"]
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.7, 64, 3)
    assert system.signature() == (
        f"openai:{endpoint.url}/v1|model=asked-model|scope_as=system"
        "|system_prompt='Answer only from the documents of: {scope}'|max_tokens=64|seed=3|temperature=0.7"
    )


def test_the_api_key_is_read_from_the_variable_named_and_never_shown(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROBE_BOT_KEY", "sk-probe-1234567890")
    endpoint.answer = lambda request: Scripted(body={
        "model": "m",
        "choices": [{"message": {"content": f"echo {request['headers'].get('Authorization')}"}}],
    })  # fmt: skip
    system = openai(endpoint, api_key_env="PROBE_BOT_KEY")
    answer = ask(system)
    assert endpoint.requests[-1]["headers"]["Authorization"] == "Bearer sk-probe-1234567890"
    assert "sk-probe-1234567890" not in answer.text + (answer.raw or "") + system.signature()
    assert "api_key_env=PROBE_BOT_KEY" in system.signature()


@pytest.mark.parametrize(
    ("message", "finish", "text"),
    [
        ({"content": None, "refusal": "I cannot help with that."}, "stop", "I cannot help with that."),
        ({"content": ""}, "content_filter", ""),
    ],
)
def test_a_refusal_or_a_content_filter_is_blocked(
    endpoint: Endpoint, message: dict[str, Any], finish: str, text: str
) -> None:
    body = {"model": "m", "choices": [{"message": message, "finish_reason": finish}]}
    endpoint.answer = lambda request: Scripted(body=body)
    answer = ask(openai(endpoint))
    assert answer.blocked is True and answer.text == text


def test_content_parts_are_joined(endpoint: Endpoint) -> None:
    parts = [{"type": "text", "text": "30 days "}, {"type": "text", "text": "[Source: a, p.2]"}]
    body = {"model": "m", "choices": [{"message": {"content": parts}}]}
    endpoint.answer = lambda request: Scripted(body=body)
    answer = ask(openai(endpoint))
    assert answer.text == "30 days [Source: a, p.2]" and answer.citations == (Citation("a", 2),)


def test_a_gateways_contexts_beside_the_completion_are_read(endpoint: Endpoint) -> None:
    endpoint.answer = lambda request: Scripted(body={
        "model": "m", "choices": [{"message": {"content": "30 days [1]"}}],
        "contexts": [{"document": POLICY, "page": 13, "text": "a grace period of 30 days"}],
    })  # fmt: skip
    answer = ask(openai(endpoint))
    assert answer.citations == (Citation(POLICY, 13),)
    assert answer.contexts[0].text == "a grace period of 30 days"


# --- faults: which are the transport's (retried) and which the system's --------------------------------

TRANSPORT_FAULTS = [
    pytest.param(Scripted(status=503, body={"error": "overloaded"}), "HTTP 503", id="503"),
    pytest.param(Scripted(status=502, body=b"bad gateway"), "HTTP 502", id="502"),
    pytest.param(Scripted(status=504, body=b""), "HTTP 504", id="504"),
    pytest.param(Scripted(status=429, body={}, headers={"Retry-After": "2"}), "HTTP 429", id="429"),
    pytest.param(Scripted(hang=30.0, body={}), "no whole reply within the 0.5 s timeout", id="hang"),
    pytest.param(Scripted(drip=0.05, body={"choices": [{"message": {"content": "x" * 600}}]}),
                 "no whole reply within the 0.5 s timeout", id="drip"),
]  # fmt: skip
SYSTEM_FAULTS = [
    pytest.param(Scripted(status=500, body={"detail": "Key"}), 'HTTP 500: {"detail": "Key"}', id="500"),
    pytest.param(Scripted(status=400, body={"error": "bad"}), "HTTP 400", id="400"),
    pytest.param(Scripted(status=401, body=b""), "HTTP 401", id="401"),
    pytest.param(Scripted(status=404, body=b"no route"), "HTTP 404: no route", id="404"),
    pytest.param(Scripted(body=b"<html>oops</html>"), "HTTP 200 with a body that is not JSON", id="html"),
    pytest.param(Scripted(body=b'{"a": "\\ud800"}'), "a lone surrogate", id="surrogate"),
]  # fmt: skip


@pytest.mark.parametrize(("scripted", "reason"), TRANSPORT_FAULTS)
@pytest.mark.parametrize("kind", ["openai", "http"])
def test_transport_faults_are_transport_errors(
    endpoint: Endpoint, kind: str, scripted: Scripted, reason: str
) -> None:
    endpoint.answer = lambda request: scripted
    # A short timeout where it is the fault's measure, a long one where the fault is a status: a loaded
    # machine's server took over 0.5 s to send a 503.
    timeout = "0.5" if scripted.hang or scripted.drip else "30"
    if kind == "openai":
        system = openai(endpoint, timeout=timeout)
    else:
        system = load_system(f"http:{endpoint.url}/ask", {"timeout": timeout})
    started = time.monotonic()
    with pytest.raises(TransportError) as error:
        ask(system)
    assert reason in error.value.reason
    assert time.monotonic() - started < 15.0  # the client never hangs on its own (the faults: 30 s)
    assert error.value.retry_after == (2.0 if scripted.status == 429 else None)


@pytest.mark.parametrize("kind", ["openai", "http"])
def test_a_closed_port_is_a_transport_error(kind: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    spec = f"openai:{url}/v1" if kind == "openai" else f"http:{url}/ask"
    with pytest.raises(TransportError, match="ConnectError"):
        ask(load_system(spec, {"model": "m"} if kind == "openai" else {}))


def failure_reason(endpoint: Endpoint, kind: str, scripted: Scripted) -> str:
    """The SystemFailure's reason when the endpoint (`kind`: openai or http) replies `scripted`."""
    endpoint.answer = lambda request: scripted
    system = openai(endpoint) if kind == "openai" else load_system(f"{endpoint.url}/ask")
    with pytest.raises(SystemFailure) as failure:
        ask(system)
    return failure.value.reason


@pytest.mark.parametrize(("scripted", "reason"), SYSTEM_FAULTS)
@pytest.mark.parametrize("kind", ["openai", "http"])
def test_the_systems_own_errors_are_system_failures(
    endpoint: Endpoint, kind: str, scripted: Scripted, reason: str
) -> None:
    assert reason in failure_reason(endpoint, kind, scripted)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"choices": []}, "not a chat completion"),
        ({"object": "error"}, "not a chat completion"),
        ([1, 2], "not a chat completion"),
        ({"choices": [{"message": {"content": None}}]}, "the completion has no text content"),
        ({"choices": [{"message": {"content": [{"type": "image"}]}}]}, "content part 0 is not a text part"),
        ({"choices": [{"message": {"content": 30}}]}, "the completion's content is a int"),
        ({"choices": [{"message": {"content": "x"}}], "contexts": "oops"}, "field 'contexts' must be a list"),
    ],
)
def test_a_body_that_is_not_a_chat_completion_is_a_system_failure(
    endpoint: Endpoint, body: Any, reason: str
) -> None:
    endpoint.answer = lambda request: Scripted(body=body)
    with pytest.raises(SystemFailure) as failure:
        ask(openai(endpoint))
    assert reason in failure.value.reason and failure.value.raw == json.dumps(body)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "an openai system needs a model"),
        ({"model": "m", "scope_as": "header"}, "scope_as='header' is not one of system, metadata, both"),
        ({"model": "m", "api_key_env": "PROBE_UNSET_VAR_XYZ"}, "$PROBE_UNSET_VAR_XYZ, which is not set"),
        ({"model": "m", "api_key_env": " "}, "api_key_env is empty"),
        ({"model": "m", "timeout": "0"}, "timeout='0' is not more than 0"),
        ({"model": "m", "timeout": "soon"}, "timeout='soon' is not more than 0"),
        ({"model": "m", "temperature": "nan"}, "temperature='nan' is not a number"),
        ({"model": "m", "max_tokens": "1.5"}, "max_tokens='1.5' is not a whole number"),
        ({"model": "m", "top_k": "5"}, "an openai system has no option 'top_k'"),
    ],
)
def test_a_bad_openai_option_is_a_usage_error(options: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as error:
        load_system("openai:http://127.0.0.1:9/v1", options)
    assert message in error.value.what


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openai:ftp://host/v1", "is not an http:// or https:// address"),
        ("openai:http://127.0.0.1:99999/v1", "cannot be read"),
        ("openai:", "is not an http:// or https:// address"),
    ],
)
def test_a_bad_url_is_a_usage_error(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_system(spec, {"model": "m"})


# --- plain JSON over HTTP -----------------------------------------------------------------------------


def test_the_default_request_and_a_reply_that_is_the_mapping(endpoint: Endpoint) -> None:
    endpoint.answer = lambda request: Scripted(body={
        "answer": "30 days", "citations": [{"document": POLICY, "page": 13}], "brain_used": "extractive",
    })  # fmt: skip
    answer = ask(load_system(f"http:{endpoint.url}/ask"))
    assert endpoint.requests[-1]["body"] == {"question": QUESTION, "scope": POLICY}
    assert answer.text == "30 days"
    assert answer.citations == (Citation(POLICY, 13),) and answer.route == "extractive"


def test_a_bare_url_is_an_http_system_and_a_json_text_is_the_reply(endpoint: Endpoint) -> None:
    endpoint.answer = lambda request: Scripted(body=f"30 days [Source: {POLICY}, p.2]")
    answer = ask(load_system(f"{endpoint.url}/ask"), scope=None)
    assert endpoint.requests[-1]["body"] == {"question": QUESTION, "scope": None}
    assert answer.citations == (Citation(POLICY, 2),)


TEMPLATE = {
    "query": {"text": "{question}", "lang": "en"},
    "policy_filter_ids": ["{scope}"],
    "label": "policy:{scope}",
    "scope": "{scope}",
    "top_k": 5,
    "debug": False,
    "raw": "{not a placeholder}",
}


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (POLICY, {
            "query": {"text": QUESTION, "lang": "en"}, "policy_filter_ids": [POLICY],
            "label": f"policy:{POLICY}", "scope": POLICY, "top_k": 5, "debug": False,
            "raw": "{not a placeholder}",
        }),
        (None, {
            "query": {"text": QUESTION, "lang": "en"}, "policy_filter_ids": [], "label": "policy:",
            "scope": None, "top_k": 5, "debug": False, "raw": "{not a placeholder}",
        }),
    ],
)  # fmt: skip
def test_the_request_template_is_filled_anywhere_in_it(
    endpoint: Endpoint, scope: str | None, expected: dict[str, Any]
) -> None:
    endpoint.answer = json_reply
    ask(load_system(f"http:{endpoint.url}/ask", {}, {"request": TEMPLATE}), scope=scope)
    assert endpoint.requests[-1]["body"] == expected


RESPONSE = {
    "text": "data.answer",
    "citations": "data.sources",
    "contexts": "retrieval.chunks",
    "blocked": "guard.blocked",
    "route": "trace.0.step",
    "model": "meta.model",
}


def test_the_response_mapping_reads_dotted_paths(endpoint: Endpoint) -> None:
    endpoint.answer = lambda request: Scripted(body={
        "data": {"answer": "30 days [2]", "sources": None},
        "retrieval": {"chunks": [{"document": "x", "page": 1}, {"document": POLICY, "page": 13}]},
        "guard": {"blocked": False}, "trace": [{"step": "bm25"}], "meta": {"model": "extractive-1"},
        "text": "not this one",
    })  # fmt: skip
    answer = ask(load_system(f"http:{endpoint.url}/ask", {}, {"response": RESPONSE}))
    assert answer.text == "30 days [2]"
    assert answer.citations == (Citation(POLICY, 13),)  # [2], the second chunk
    assert (answer.blocked, answer.route, answer.model) == (False, "bm25", "extractive-1")


def test_a_text_path_that_leads_nowhere_fails_unless_the_reply_is_blocked(endpoint: Endpoint) -> None:
    endpoint.answer = lambda request: Scripted(body={"data": {}, "guard": {"blocked": False}})
    system = load_system(f"http:{endpoint.url}/ask", {}, {"response": RESPONSE})
    with pytest.raises(SystemFailure, match=r"nothing at 'data.answer' \(the text, in \[system.response\]\)"):
        ask(system)
    endpoint.answer = lambda request: Scripted(body={"guard": {"blocked": True}})
    answer = ask(load_system(f"http:{endpoint.url}/ask", {}, {"response": RESPONSE}))
    assert answer.blocked is True and answer.text == ""


def test_headers_read_secrets_from_the_environment(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROBE_BOT_TOKEN", "tok-abcdef-123456")
    endpoint.answer = lambda request: Scripted(body={"answer": f"echo {request['headers'].get('X-Api-Key')}"})
    config = {"headers": {"X-Api-Key": "${PROBE_BOT_TOKEN}", "X-Tenant": "acme"}}
    system = load_system(f"http:{endpoint.url}/ask", {}, config)
    answer = ask(system)
    headers = endpoint.requests[-1]["headers"]
    assert headers["X-Api-Key"] == "tok-abcdef-123456" and headers["X-Tenant"] == "acme"
    assert "tok-abcdef-123456" not in answer.text + (answer.raw or "") + system.signature()
    assert system.signature().endswith("|header=X-Api-Key|header=X-Tenant")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"request": {"q": "fixed"}}, "[system.request] never sends the question"),
        ({"request": "q={question}"}, "[system] request is not a table"),
        ({"response": {"answer": "a"}}, "[system.response] has no field 'answer'"),
        ({"response": {"text": 3}}, "[system.response] text is not a dotted path"),
        ({"response": "answer"}, "[system] response is not a table"),
        ({"headers": {"X-Key": "${PROBE_UNSET_VAR_XYZ}"}}, "reads ${PROBE_UNSET_VAR_XYZ}, which is not set"),
        ({"headers": {"X-Key": 3}}, "headers must be a table of texts"),
    ],
)
def test_a_bad_http_mapping_is_a_usage_error(config: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as error:
        load_system("http:http://127.0.0.1:9/ask", {}, config)
    assert message in error.value.what


def test_an_openai_system_takes_no_request_mapping() -> None:
    with pytest.raises(UsageError, match="request is for http systems, and this one is openai"):
        load_system("openai:http://127.0.0.1:9/v1", {"model": "m"}, {"request": {"q": "{question}"}})


def test_concurrent_questions_are_asked_at_once(endpoint: Endpoint) -> None:
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def slowly(request: dict[str, Any]) -> Scripted:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.3)
        with lock:
            in_flight[0] -= 1
        return Scripted(body={"answer": request["body"]["question"]})

    endpoint.answer = slowly
    system = load_system(f"http:{endpoint.url}/ask")

    async def many() -> list[str]:
        try:
            answers = await asyncio.gather(*(system.ask(f"q{i}", None) for i in range(8)))
        finally:
            await system.aclose()
        return [answer.text for answer in answers]

    assert asyncio.run(many()) == [f"q{i}" for i in range(8)]
    assert peak[0] > 1  # they were in flight together, not one after another


# --- the real llama.cpp server ------------------------------------------------------------------------


def test_a_real_openai_compatible_server_answers(llama_server: Server) -> None:
    options = {"model": llama_server.model, "max_tokens": "8", "scope_as": "both"}
    system = load_system(f"openai:{llama_server.base_url}", options)
    answer = ask(system, question="Say: 30 days [1].")
    assert isinstance(answer.text, str) and answer.text.strip()
    assert answer.raw is not None
    assert answer.model == json.loads(answer.raw)["model"]  # the completion's model
    assert answer.model


def test_the_documented_assay_toml_makes_a_working_system(
    endpoint: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/systems.md's example, pointed at the test server: it loads, sends what it says, reads back."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "systems.md").read_text(encoding="utf-8")
    example = docs.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "assay.toml").write_text(example, encoding="utf-8")
    monkeypatch.setenv("BOT_TOKEN", "tok-docs-123456")
    config = load_system_config(tmp_path / "assay.toml")
    endpoint.answer = lambda request: Scripted(body={
        "answer": "30 days [1]", "retrieval": {"chunks": [{"document": POLICY, "page": 13}]},
        "guard": {"blocked": False}, "brain_used": "bm25", "meta": {"model": "extractive"},
    })  # fmt: skip
    answer = ask(load_system(f"http:{endpoint.url}/ask", {}, config))
    request = endpoint.requests[-1]
    assert request["body"] == {"question": QUESTION, "policy_filter_ids": [POLICY], "top_k": 5}
    assert request["headers"]["Authorization"] == "Bearer tok-docs-123456"
    assert answer.citations == (Citation(POLICY, 13),) and answer.route == "bm25"


HTML_PAGE = Scripted(body=b"<html><body>Bad gateway</body></html>", headers={"Content-Type": "text/html"})


@pytest.mark.parametrize(
    ("kind", "scripted", "reason"),
    [
        ("http", Scripted(307, b"", {"Location": "/ask/"}), "HTTP 307, a redirect to /ask/ (give --system"),
        ("http", HTML_PAGE,
         "a body that is not JSON (Expecting value: line 1 column 1 (char 0)), text/html: '<html><body>Bad"),
        ("http", Scripted(body=b""), "HTTP 200 with an empty body, not JSON"),
        ("openai", Scripted(body=b'data: {"choices": []}\n\n', headers={"Content-Type": "text/event-stream"}),
         "text/event-stream: 'data: {"),
        ("openai", Scripted(body={"error": {"message": "model  overloaded"}}),
         "not a chat completion (its error: model overloaded)"),
    ],
)  # fmt: skip
def test_a_reply_that_is_not_one_says_what_came_instead(
    endpoint: Endpoint, kind: str, scripted: Scripted, reason: str
) -> None:
    assert reason in failure_reason(endpoint, kind, scripted)
