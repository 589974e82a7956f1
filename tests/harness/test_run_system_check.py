"""A run checks its system before the first item (issue 23): a system that is down is exit 2 with the
reason and its address, and no item is asked; a run whose every item is a system error is exit 2; more
than --max-system-errors of them fail the gate; refusal recall counts every refusal item; an in-process
bot whose packages are not where assay runs is told the environment fix. Every server is a real one on
127.0.0.1 that records what it was sent."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_run_cli import write_gold

from conftest import free_port


@dataclass(frozen=True)
class Seen:
    """One request as the server got it."""

    method: str
    path: str
    probe: bool  # it carried the probe's header
    body: Any


Answer = Callable[[Seen], tuple[int, bytes, str]]  # status, body, content type


@dataclass
class Recorder:
    url: str = ""
    seen: list[Seen] = field(default_factory=list)

    @property
    def items(self) -> list[Seen]:
        """The requests that asked an item (not the probe's)."""
        return [one for one in self.seen if not one.probe]


@contextmanager
def recording_server(answer: Answer) -> Iterator[Recorder]:
    found, lock = Recorder(), threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _serve(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen = Seen(self.command, self.path, "X-Assay-Probe" in self.headers, json.loads(data or b"null"))
            with lock:
                found.seen.append(seen)
            status, body, kind = answer(seen)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()


def json_reply(value: Any, status: int = 200) -> tuple[int, bytes, str]:
    return status, json.dumps(value).encode(), "application/json"


def bot_answer(seen: Seen) -> tuple[int, bytes, str]:
    """A JSON bot that answers every question "30 days"."""
    return json_reply({"text": "30 days"})


def openai_answer(models: list[str]) -> Answer:
    """An OpenAI-compatible server: GET /v1/models lists `models` (404 when None), chat completions
    answer "30 days"."""

    def answer(seen: Seen) -> tuple[int, bytes, str]:
        if seen.method == "GET":
            return json_reply({"object": "list", "data": [{"id": m, "object": "model"} for m in models]})
        completion = {"model": "m", "choices": [{"message": {"role": "assistant", "content": "30 days"}}]}
        return json_reply(completion)

    return answer


def run_args(tmp_path: Path, spec: str, *extra: str, items: int = 8) -> list[str]:
    gold = write_gold(tmp_path / "gold.jsonl", items)
    return ["run", "--gold", str(gold), "--system", spec, "--out", str(tmp_path / "run"), *extra]


def assert_nothing_asked(tmp_path: Path, stderr: str) -> None:
    assert stderr.startswith("assay: error: the system at http://127.0.0.1:") and stderr.count("\n") == 1
    assert "nothing was asked (checked before the first item)" in stderr and "Fix: " in stderr
    assert not (tmp_path / "run" / "run.jsonl").exists()
    assert not (tmp_path / "run" / "journal.jsonl").exists()


# --- down ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["openai", "http"])
def test_a_system_with_nothing_listening_is_exit_2_before_any_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    url = f"http://user:hunter2secret@127.0.0.1:{free_port()}"  # nothing listens there
    spec = f"openai:{url}/v1" if kind == "openai" else f"http:{url}/ask"
    options = ["--system-option", "model=m"] if kind == "openai" else []
    code, stdout, stderr = run(run_args(tmp_path, spec, *options), capsys)
    assert code == 2 and stdout == ""
    assert_nothing_asked(tmp_path, stderr)
    assert "does not answer" in stderr and "ConnectError" in stderr
    assert "hunter2secret" not in stderr  # the address is shown without its password


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (503, "answered POST with HTTP 503"),
        (502, "answered POST with HTTP 502"),
        (404, "has nothing at that address"),
        (401, "refused the credentials"),
    ],
)
def test_an_http_system_answering_a_down_status_is_exit_2_and_no_item_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: int, said: str
) -> None:
    with recording_server(lambda seen: json_reply({"error": "not now"}, status)) as server:
        code, _, stderr = run(run_args(tmp_path, f"http:{server.url}/ask"), capsys)
    assert code == 2
    assert_nothing_asked(tmp_path, stderr)
    assert said in stderr
    assert len(server.seen) == 1 and server.items == []  # the probe only
    probe = server.seen[0]
    assert probe.method == "POST" and probe.path == "/ask" and probe.body["scope"] is None
    assert probe.body["question"].startswith("assay probe:")


def test_an_http_system_that_answers_with_a_web_page_is_not_the_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with recording_server(lambda seen: (200, b"<html><body>Welcome</body></html>", "text/html")) as server:
        code, _, stderr = run(run_args(tmp_path, f"http:{server.url}/"), capsys)
    assert code == 2 and "a body that is not JSON (text/html)" in stderr
    assert server.items == []


def test_an_http_system_that_refuses_the_probes_question_is_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 422 is a server that is there: the probe's question is not the items' (they report their own)."""

    def answer(seen: Seen) -> tuple[int, bytes, str]:
        return json_reply({"detail": "no scope"}, 422) if seen.probe else bot_answer(seen)

    with recording_server(answer) as server:
        code, _, stderr = run(
            run_args(tmp_path, f"http:{server.url}/ask", "--max-system-errors", "1"), capsys
        )
    assert code in (0, 1), stderr
    assert len(server.items) == 8


def test_a_bot_whose_code_fails_on_the_probe_alone_is_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 500 is the bot's own code failing, here on the probe's scope of null that no item sends: the
    items are asked, and answered."""

    def answer(seen: Seen) -> tuple[int, bytes, str]:
        return json_reply({"error": "scope is None"}, 500) if seen.body["scope"] is None else bot_answer(seen)

    with recording_server(answer) as server:
        code, _, stderr = run(run_args(tmp_path, f"http:{server.url}/ask"), capsys)
    assert code in (0, 1), stderr
    assert len(server.items) == 8


def test_an_openai_system_is_probed_by_its_models_list_and_one_short_completion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with recording_server(openai_answer(["other", "m"])) as server:
        argv = run_args(tmp_path, f"openai:{server.url}/v1", "--system-option", "model=m")
        code, _, stderr = run(argv, capsys)
    assert code in (0, 1), stderr
    probes = [one for one in server.seen if one.probe]
    assert [(one.method, one.path) for one in probes] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]
    assert probes[1].body["max_tokens"] == 1 and probes[1].body["model"] == "m"
    assert server.seen[:2] == probes  # before any item
    assert len(server.items) == 8


def test_an_openai_system_that_does_not_serve_the_model_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with recording_server(openai_answer(["llama-3"])) as server:
        argv = run_args(tmp_path, f"openai:{server.url}/v1", "--system-option", "model=m")
        code, _, stderr = run(argv, capsys)
    assert code == 2
    assert_nothing_asked(tmp_path, stderr)
    assert "does not serve the model 'm'" in stderr and "llama-3" in stderr
    assert server.items == [] and [one.method for one in server.seen] == ["GET"]


def test_an_openai_system_without_a_models_list_is_judged_by_its_completion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gateway may not serve GET /models (404): the short completion decides, here a 503."""

    def answer(seen: Seen) -> tuple[int, bytes, str]:
        return json_reply({"error": "no"}, 404 if seen.method == "GET" else 503)

    with recording_server(answer) as server:
        argv = run_args(tmp_path, f"openai:{server.url}/v1", "--system-option", "model=m")
        code, _, stderr = run(argv, capsys)
    assert code == 2 and "chat/completions answered POST with HTTP 503" in stderr
    assert server.items == []


def test_a_run_the_journal_answers_whole_needs_no_system_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Re-grading from the journal asks nothing, so a system that is gone since is no reason to stop."""
    with recording_server(bot_answer) as server:
        argv = run_args(tmp_path, f"http:{server.url}/ask")
        first, _, stderr = run(argv, capsys)
        assert first in (0, 1), stderr
    again, _, stderr = run(argv, capsys)  # the server is shut down now
    assert again == first, stderr
    code, _, stderr = run([*argv, "--fresh"], capsys)  # --fresh asks every item: the check comes first
    assert code == 2 and "does not answer" in stderr
    assert (tmp_path / "run" / "journal.jsonl").read_text(encoding="utf-8").count("\n") == 9  # kept


# --- system errors -------------------------------------------------------------------------------

# An in-process bot that fails on the items whose number is in FAIL (item numbers are in the questions).
FAILING_BOT = """
FAIL = {fail!r}


def answer(question, scope=None):
    number = int("".join(ch for ch in question if ch.isdigit()))
    if ("network" in question) if FAIL == "network" else number in FAIL:
        raise TimeoutError("the index of " + str(scope) + " is not loaded")
    return {{"text": f"It is {{10 * (number + 1)}} days.", "citations": [{{"document": scope, "page": 2}}]}}
"""


def failing_bot(tmp_path: Path, fail: object) -> str:
    path = tmp_path / "failing_bot.py"
    path.write_text(FAILING_BOT.format(fail=fail), encoding="utf-8")
    return f"{path}:answer"


def test_a_run_whose_every_item_is_a_system_error_is_exit_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, stderr = run(run_args(tmp_path, failing_bot(tmp_path, set(range(8)))), capsys)
    assert code == 2
    last = stderr.splitlines()[-1]
    assert last.startswith("assay: error: ") and "every one of the 8 items is a system error" in last
    assert "TimeoutError: the index of" in last
    assert (tmp_path / "run" / "results.md").exists()  # the reports say each item's reason


@pytest.mark.parametrize(
    ("failing", "flags", "code"),
    [
        ({5}, [], 0),  # 1 of 8 (12.5%): within the default 20%
        ({1, 5, 6}, [], 1),  # 3 of 8 (37.5%)
        ({1, 5, 6}, ["--max-system-errors", "40%"], 0),
        ({5}, ["--max-system-errors", "0.1"], 1),
        ({5}, ["--gate", "hard_fact>=0", "--max-system-errors", "0.1"], 1),
    ],
)
def test_more_than_the_share_of_system_errors_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failing: set[int], flags: list[str], code: int
) -> None:
    got, _, stderr = run(run_args(tmp_path, failing_bot(tmp_path, failing), *flags), capsys)
    assert got == code, stderr
    share = f"system errors: {len(failing)} of 8 items ({100 * len(failing) / 8:.1f}%)"
    if code == 1:
        assert f"assay: gate FAILED: {share}, more than --max-system-errors" in stderr
        results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
        assert results["gate"]["passed"] is False and results["gate"]["system_errors"]["errors"] == len(
            failing
        )
        assert "## Gate: FAILED" in (tmp_path / "run" / "results.md").read_text(encoding="utf-8")
    else:
        assert "gate FAILED" not in stderr


def test_a_share_that_is_not_one_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = run(
        run_args(tmp_path, failing_bot(tmp_path, set()), "--max-system-errors", "1.5"), capsys
    )
    assert code == 2 and "--max-system-errors: give a share from 0 to 1 (0.2 or 20%), got '1.5'" in stderr


def test_refusal_recall_counts_the_refusal_items_the_system_failed_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Items 3, 7, 11 and 15 of 16 are refusal items, and the bot fails on each."""
    argv = run_args(tmp_path, failing_bot(tmp_path, "network"), "--max-system-errors", "1", items=16)
    code, stdout, stderr = run(argv, capsys)
    assert code in (0, 1), stderr
    said = (
        "refusal recall: 0.0% (0 of 4 refusal items declined; 4 of them system errors, counted as not "
        "declined)"
    )
    assert said in (tmp_path / "run" / "results.md").read_text(encoding="utf-8")
    assert said in stdout  # the headline printed
    refusal = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["headline"][
        "refusal"
    ]
    assert (refusal["recall"], refusal["refusal_items"], refusal["refusal_system_errors"]) == (0.0, 4, 4)


# --- in process, across environments --------------------------------------------------------------


def test_a_bot_whose_packages_are_missing_here_is_told_the_environment_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rag_bot.py").write_text(
        "import framework_only_in_the_bots_venv\n\ndef answer(question, scope=None):\n    return ''\n",
        encoding="utf-8",
    )
    package = tmp_path / "botpkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "api.py").write_text("from framework_only_in_the_bots_venv import chain\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for spec in (f"{tmp_path / 'rag_bot.py'}:answer", "botpkg.api:answer"):
        code, _, stderr = run(run_args(tmp_path, spec), capsys)
        assert code == 2 and stderr.count("\n") == 1
        assert "needs the module 'framework_only_in_the_bots_venv', which is not installed" in stderr
        assert "pip install assay" in stderr and "--system http://" in stderr
        assert "fix the file so it imports" not in stderr and "check the spelling" not in stderr


def test_a_bot_file_that_cannot_import_for_itself_is_still_told_to_fix_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "broken_bot.py"
    bot.write_text("def answer(question, scope=None)\n    return ''\n", encoding="utf-8")
    code, _, stderr = run(run_args(tmp_path, f"{bot}:answer"), capsys)
    assert code == 2 and "raised SyntaxError" in stderr and "Fix: fix the file so it imports" in stderr
    code, _, stderr = run(run_args(tmp_path, "no_such_bot_module_here.api:answer"), capsys)
    assert code == 2 and "check the spelling" in stderr and "pip install assay" not in stderr


def test_a_bot_missing_a_package_of_an_assay_extra_is_told_that_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lean install running the example bot: bm25s is [rag]'s. None in sys.modules makes its import fail
    # as a missing package does (ModuleNotFoundError naming it), here where the package is installed.
    monkeypatch.setitem(sys.modules, "bm25s", None)
    bot = tmp_path / "bm25_bot.py"
    bot.write_text("import bm25s\n\ndef answer(question, scope=None):\n    return ''\n", encoding="utf-8")
    code, _, stderr = run(run_args(tmp_path, f"{bot}:answer"), capsys)
    assert code == 2 and "needs the module 'bm25s'" in stderr
    assert "Fix: pip install 'assay[rag]' (it brings bm25s)" in stderr and "--system http://" in stderr
