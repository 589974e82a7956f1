"""A password in a system's or a judge's URL (``http://user:pw@host``, sent as Basic auth) against a real
server on 127.0.0.1 that echoes it back in every spelling it could (as it is, JSON-escaped, URL-encoded,
base64, the Authorization header itself) in reply texts, routes, models, citations, contexts, raw bodies
and error bodies: after ``assay run`` no file of the run and neither stdout nor stderr holds the password
in any of them, while the Basic auth still reached the server. Issue 22, item 4."""

from __future__ import annotations

import json
import re
import threading
from base64 import b64encode, urlsafe_b64encode
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from cli_run import run
from test_run_cli import write_gold

from assay.harness.systems.limits import MAX_LABEL_CHARS
from conftest import free_port

USER = "alice"
# A "/" that JSON may write "\/", a ":" and a "+" that URL-encoding changes, a space, and letters that
# JSON writes as \u00e4 and URL-encoding as two bytes.
PASSWORD = "hunter/2:pä ss+wörd"
USERINFO = f"{USER}:{quote(PASSWORD, safe='')}"
BASIC = b64encode(f"{USER}:{PASSWORD}".encode()).decode()


def spellings() -> dict[str, str]:
    """Every way the password, or the Basic value made of it, may come back from a server."""
    url_encoded = quote(PASSWORD, safe="")
    return {
        "as it is": PASSWORD,
        "JSON-escaped": json.dumps(PASSWORD)[1:-1],
        "JSON-escaped, / as \\/": json.dumps(PASSWORD)[1:-1].replace("/", "\\/"),
        "JSON-escaped, letters kept": json.dumps(PASSWORD, ensure_ascii=False)[1:-1].replace("/", "\\/"),
        "JSON-escaped twice": json.dumps(json.dumps(PASSWORD))[3:-3],
        "URL-encoded": url_encoded,
        "URL-encoded, / kept": quote(PASSWORD),
        "URL-encoded, lower-case hex": re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), url_encoded),
        "form-encoded": quote_plus(PASSWORD),
        "base64": b64encode(PASSWORD.encode()).decode(),
        "base64, URL-safe, unpadded": urlsafe_b64encode(PASSWORD.encode()).decode().rstrip("="),
        "the Basic value": BASIC,
        "the Basic value, unpadded": BASIC.rstrip("="),
    }


# Parts of the password: a redaction that stops short (at the "/", the ":" or the "+") shows one of them.
FRAGMENTS = ("hunter", "wörd", "w\\u00f6rd", "w%C3%B6rd", "w%c3%b6rd", "p\\u00e4", "p%C3%A4")


def echo(authorization: str) -> str:
    """What the server says back: each spelling, the header it was sent, and the URL with the password."""
    said = [f"{name}: {value}" for name, value in spellings().items()]
    return " | ".join([*said, f"header: {authorization}", f"url: http://{USERINFO}@example.test/x"])


@dataclass
class Echo:
    """The server: what it was sent (each Authorization header), and its address."""

    port: int = 0
    authorizations: list[str] = field(default_factory=list)

    def base(self, userinfo: bool = True) -> str:
        return f"http://{USERINFO + '@' if userinfo else ''}127.0.0.1:{self.port}"


def _label(said: str) -> str:
    """As much of the echo as a reply's route or model may hold (``limits.MAX_LABEL_CHARS``; past it the
    reply is refused whole, and nothing would be left to redact), in whole spellings."""
    kept: list[str] = []
    for part in said.split(" | "):
        if len(" | ".join([*kept, part])) > MAX_LABEL_CHARS:
            break
        kept.append(part)
    return " | ".join(kept)


def _number(question: str) -> int:
    return int("".join(char for char in question if char.isdigit()) or 0)


def _system_reply(question: str, said: str) -> tuple[int, str, Any]:
    """An http system's answer by the item's number: 1 fails (500, the echo in a JSON error), 2 is a bad
    request (400, the echo as plain text), 5 is not JSON, the others answer with the echo everywhere."""
    number = _number(question)
    if number == 1:
        return 500, "application/json", {"error": said}
    if number == 2:
        return 400, "text/plain", said
    if number == 5:
        return 200, "text/html", f"<html>{said}</html>"
    text = f"It is {10 * (number + 1)} days. {said}"
    return 200, "application/json", {
        "text": text, "route": _label(said), "model": _label(said),
        "citations": [{"document": said, "page": 2, "quote": said}],
        "contexts": [{"document": said, "text": said}, said],
    }  # fmt: skip


def _completion(body: dict[str, Any], said: str) -> Any:
    """A chat completion: a judge's verdict (it asks for JSON) whose rationale is the echo, or a
    system's answer with the echo in it."""
    question = str(body["messages"][-1]["content"])
    if "response_format" in body or "verdict" in question:
        content = json.dumps({"verdict": "CORRECT", "rationale": said})
    else:
        content = f"It is {10 * (_number(question) + 1)} days. {said}"
    return {
        "model": _label(said),
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }


@pytest.fixture
def server() -> Iterator[Echo]:
    found = Echo()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # the judge's preflight
            self._send(200, "application/json", {"data": [{"id": "judge-model"}, {"id": "bot-model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            authorization = self.headers.get("Authorization", "")
            with lock:
                found.authorizations.append(authorization)
            said = echo(authorization)
            if self.path.endswith("/chat/completions"):
                self._send(200, "application/json", _completion(body, said))
            else:
                self._send(*_system_reply(str(body.get("question")), said))

        def _send(self, status: int, kind: str, payload: Any) -> None:
            # JSON as a PHP server writes it: every non-ASCII letter \u-escaped, every "/" as "\/"
            text = payload if isinstance(payload, str) else json.dumps(payload).replace("/", "\\/")
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield found
    finally:
        httpd.shutdown()
        httpd.server_close()


def _strings(value: Any) -> Iterator[str]:
    """Every text in a JSON value, keys too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _texts(path: Path) -> list[str]:
    """A file's text, and each text in it once decoded when it is JSON or JSON lines (a value's
    escapes in the file are not what a reader of the value sees)."""
    data = path.read_bytes()
    text = data.decode("utf-8", "replace")
    texts = [text, data.decode("latin-1")]  # a binary file (the judge's cache) as bytes
    lines = text.splitlines() if path.suffix == ".jsonl" else [text] if path.suffix == ".json" else []
    for line in lines:
        texts += list(_strings(json.loads(line)))
    return texts


def leaks(texts: list[str]) -> list[str]:
    """The spellings and fragments of the password the texts hold, by name."""
    wanted = {**spellings(), **{f"fragment {part!r}": part for part in FRAGMENTS}}
    return sorted({name for name, value in wanted.items() for text in texts if value in text})


def _assert_nothing_leaks(out: Path, stdout: str, stderr: str) -> None:
    files = sorted(path for path in out.rglob("*") if path.is_file())
    written = {path.name for path in files}
    assert {"run.jsonl", "journal.jsonl", "results.json", "results.md", "results.html"} <= written
    for path in files:
        assert leaks(_texts(path)) == [], path.name
    assert leaks([stdout]) == [], "stdout"
    assert leaks([stderr]) == [], "stderr"


def _run(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> Path:
    """`assay run` of six items with `argv`, checked for every spelling of the password in every file
    of the run and on stdout and stderr."""
    gold, out = write_gold(tmp_path / "gold.jsonl", 6), tmp_path / "run"
    common = ["run", "--gold", str(gold), "--out", str(out), "--retries", "0", "--timeout", "20"]
    common += ["--max-system-errors", "1"]  # some echoes are system errors: not the point here
    cache = ["--cache", str(out / "judge-cache.sqlite")] if "--judge" in argv else []
    code, stdout, stderr = run([*common, *argv, *cache], capsys)
    assert code == 0, stderr
    _assert_nothing_leaks(out, stdout, stderr)
    return out


def _system_argv(server: Echo, tmp_path: Path, form: str) -> tuple[list[str], str]:
    """The command line of each way a URL with a password reaches a run, and the spec as reported."""
    base, shown = server.base(), server.base(userinfo=False)
    if form == "http:URL":
        return ["--system", f"http:{base}/ask"], f"http:{shown}/ask"
    if form == "URL":
        return ["--system", f"{base}/ask"], f"{shown}/ask"
    if form == "openai:URL":
        return ["--system", f"openai:{base}/v1", "--system-option", "model=bot-model"], f"openai:{shown}/v1"
    config = tmp_path / "assay.toml"
    config.write_text(f'[system]\nspec = "http:{base}/ask"\n', encoding="utf-8")
    return ["--config", str(config)], f"http:{shown}/ask"


@pytest.mark.parametrize("form", ["http:URL", "URL", "openai:URL", "[system] spec of --config"])
def test_a_systems_password_is_sent_and_never_written_or_printed(
    tmp_path: Path,
    server: Echo,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    form: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./assay.toml but the test's own
    argv, shown = _system_argv(server, tmp_path, form)
    out = _run(tmp_path, argv, capsys)
    assert server.authorizations and set(server.authorizations) == {f"Basic {BASIC}"}  # userinfo connects
    signatures = json.loads((out / "results.json").read_text(encoding="utf-8"))["signatures"]
    assert signatures["system"] == shown  # the host, port and path stay: only the userinfo goes
    assert f"http://127.0.0.1:{server.port}/" in signatures["system_signature"]
    assert USER not in signatures["system"] + signatures["system_signature"]


def test_a_judges_password_is_sent_and_never_written_or_printed(
    tmp_path: Path, server: Echo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    judge = f"openai:judge-model@{server.base()}/v1,max_tokens=64"
    argv = ["--system", f"http:{server.base(userinfo=False)}/ask", "--judge", judge, "--judge-all"]
    out = _run(tmp_path, argv, capsys)
    assert f"Basic {BASIC}" in server.authorizations  # the judge was asked, with the userinfo
    signatures = json.loads((out / "results.json").read_text(encoding="utf-8"))["signatures"]
    assert signatures["judges"] == [f"openai:judge-model@127.0.0.1:{server.port}"]


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--system", "opnai:http://{userinfo}@127.0.0.1:{port}/v1"),  # a prefix mistyped: once in process
        ("--system", "http:ftp://{userinfo}@127.0.0.1:{port}/ask"),  # not an http(s) URL
        ("--system", "http://alice:hunter2@wörd@127.0.0.1:99999/ask"),  # an "@" in the password, a bad port
        ("--judge", "openai:m@http://alice:hunter,wörd@127.0.0.1:{port}/v1"),  # a "," splits the spec
    ],
)
def test_a_spec_that_is_refused_is_named_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 2)
    argv = ["run", "--gold", str(gold), "--out", str(tmp_path / "run")]
    if flag == "--judge":
        argv += ["--system", f"http://127.0.0.1:{free_port()}/ask"]
    code, stdout, stderr = run([*argv, flag, value.format(userinfo=USERINFO, port=free_port())], capsys)
    assert code == 2 and "assay: error:" in stderr
    assert leaks([stdout, stderr]) == [] and USER not in stderr


def test_a_system_that_does_not_answer_is_reported_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "run"
    system = f"http://{USERINFO}@127.0.0.1:{free_port()}/ask"  # nothing listens: connection refused
    code, stdout, stderr = run(["run", "--gold", str(gold), "--out", str(out), "--system", system], capsys)
    assert code == 2 and "ConnectError" in stderr and "nothing was asked" in stderr  # the check first
    assert "http://127.0.0.1:" in stderr and not (out / "run.jsonl").exists()
    assert leaks([stdout]) == [] and leaks([stderr]) == []


# --- resuming: the journal signs the system without its userinfo --------------------------------------


# An in-process system whose option is a URL with a password (the endpoint it asks in turn), which it
# says in its reply: the signature the journal keeps is its spec and options, and once it kept the
# password; the option's password is a secret as a URL system's is.
BOT = """
from urllib.parse import unquote, urlsplit


def answer(question, scope=None, endpoint=""):
    number = int("".join(ch for ch in question if ch.isdigit()))
    password = unquote(urlsplit(endpoint).password)
    return "It is " + str(10 * (number + 1)) + " days (as " + password + ")."
"""


def test_a_changed_password_resumes_and_a_changed_address_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Decided: a URL's user and password are not part of the system's identity (a rotated key asks the
    same system, and the journal must not keep a verifier of the password, not even a hash); its
    scheme, host, port and path are."""
    gold, out, bot = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run", tmp_path / "bot.py"
    bot.write_text(BOT, encoding="utf-8")
    argv = ["run", "--gold", str(gold), "--out", str(out), "--system", f"{bot}:answer", "--system-option"]
    code, _, stderr = run([*argv, f"endpoint=http://{USERINFO}@127.0.0.1:8080/search"], capsys)
    assert code == 0, stderr
    header = json.loads((out / "journal.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["system"].endswith("|endpoint=http://127.0.0.1:8080/search")
    _assert_nothing_leaks(out, "", stderr)

    rotated = f"endpoint=http://{USER}:another-password-7@127.0.0.1:8080/search"
    code, _, stderr = run([*argv, rotated], capsys)
    assert code == 0 and "4 of 4 items answered before" in stderr

    moved = f"endpoint=http://{USERINFO}@127.0.0.1:8080/search/v2"
    code, _, stderr = run([*argv, moved], capsys)
    assert code == 2 and "another system" in stderr and "127.0.0.1:8080/search/v2" in stderr
    assert leaks([stderr]) == [] and "another-password-7" not in stderr


def test_a_journal_that_holds_a_password_resumes_and_never_shows_it(
    tmp_path: Path, server: Echo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal whose header holds a URL's userinfo (an older assay, a plug-in adapter that signed
    its spec as given) is compared as if it did not, and refused without it."""
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "run"
    system = f"http:{server.base(userinfo=False)}/ask"
    argv = ["run", "--gold", str(gold), "--out", str(out), "--retries", "0", "--max-system-errors", "1"]
    assert run([*argv, "--system", system], capsys)[0] == 0
    journal = out / "journal.jsonl"
    header, *rows = journal.read_text(encoding="utf-8").splitlines()
    written = json.loads(header)
    written["system"] = written["system"].replace("http://", f"http://{USERINFO}@", 1)
    journal.write_text("\n".join([json.dumps(written), *rows]) + "\n", encoding="utf-8")
    code, _, stderr = run([*argv, "--system", system], capsys)
    assert code == 0 and "2 of 2 items answered before" in stderr

    journal.write_text("\n".join([json.dumps(written), *rows]) + "\n", encoding="utf-8")
    code, _, stderr = run([*argv, "--system", f"{system}/elsewhere"], capsys)
    assert code == 2 and "another system" in stderr and leaks([stderr]) == []
