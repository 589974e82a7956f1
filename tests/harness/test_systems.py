"""Systems under test in process: what a system may return (answer_from), real callables written to
answer, to be slow, to raise and to return garbage, how a spec is loaded, and the [system] table of an
assay.toml."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from assay.errors import UsageError
from assay.harness.systems import (
    SystemFailure,
    answer_from,
    load_system,
    load_system_config,
    system_options,
)
from assay.harness.systems.base import System
from assay.harness.systems.inprocess import InProcessSystem
from assay.parts import Citation, Context, Reply, parse_part, part_dict

POLICY = "hdfc-ergo__my-optima-secure__wordings"


def ask(system: System, question: str = "What is the grace period?", scope: str | None = POLICY) -> Reply:
    async def once() -> Reply:
        try:
            return await system.ask(question, scope)
        finally:
            await system.aclose()

    return asyncio.run(once())


# --- answer_from: what a system may return ---------------------------------------------------------


def cited(**fields: object) -> dict[str, object]:
    """A reply with one citation of these fields."""
    return {"text": "x", "citations": [fields]}


def test_a_text_is_the_answer_with_the_citations_written_in_it() -> None:
    answer = answer_from(f"30 days [Source: {POLICY}, p.13]")
    assert answer.text == f"30 days [Source: {POLICY}, p.13]"
    assert dataclasses.replace(answer, text=None) == Reply(citations=(Citation(POLICY, 13),))


def test_a_full_mapping_is_read_field_by_field() -> None:
    answer = answer_from(
        {
            "text": "30 days",
            "citations": [{"document": POLICY, "page": 13, "quote": "thirty days"}, "prospectus p.2"],
            "contexts": [
                {"document": POLICY, "page": 13, "text": "grace period of 30 days", "start": 4, "end": 27}
            ],
            "blocked": False,
            "route": "brain_main::gemini",
            "model": "gemini-2.5",
            "latency_ms": 1200,  # a bot's own extra: ignored
        }
    )
    assert answer.text == "30 days"
    assert dataclasses.replace(answer, text=None) == Reply(
        citations=(Citation(POLICY, 13, quote="thirty days"), Citation("prospectus", 2)),
        contexts=(Context(POLICY, 13, 4, 27, "grace period of 30 days"),),
        blocked=False,
        route="brain_main::gemini",
        model="gemini-2.5",
    )


@pytest.mark.parametrize("key", ["text", "answer", "response", "reply_text"])
def test_the_text_may_be_spelled_as_bots_spell_it(key: str) -> None:
    assert answer_from({key: "30 days"}).text == "30 days"


def test_the_text_is_the_key_that_holds_a_text() -> None:
    """A bot's `response` may be the model's raw reply, beside the answer."""
    assert answer_from({"answer": "30 days", "response": {"choices": []}}).text == "30 days"
    assert answer_from({"answer": "30 days", "text": "30 days"}).text == "30 days"  # the same text twice


def test_sources_are_citations_and_the_first_document_key_wins() -> None:
    answer = answer_from({"answer": "x", "sources": [{"document": POLICY, "source": "a.pdf", "page": 2}]})
    assert answer.citations == (Citation(POLICY, 2),)
    both = answer_from({"answer": "x", "citations": ["a"], "sources": ["b"]})
    assert both.citations == (Citation("a"),)


def test_a_serialised_document_is_a_context() -> None:
    context = {"page_content": "30 days", "source": POLICY, "page": 4}
    answer = answer_from({"result": "x", "contexts": [context]})
    assert answer.contexts == (Context(POLICY, 4, text="30 days"),)


@dataclass
class BotReply:
    text: str
    citations: list[dict[str, object]] = field(default_factory=list)
    route: str | None = None


class PydanticLike:
    """What a pydantic model offers: model_dump()."""

    def __init__(self, **fields: object) -> None:
        self.fields = fields

    def model_dump(self) -> dict[str, object]:
        return dict(self.fields)


class BrokenDump:
    def model_dump(self) -> dict[str, object]:
        raise RuntimeError("boom")


def test_a_dataclass_or_a_pydantic_model_is_read_as_its_mapping() -> None:
    answer = answer_from(BotReply("30 days", [{"document": POLICY, "page": 13}], "bm25"))
    assert answer.text == "30 days" and answer.route == "bm25"
    assert answer.citations == (Citation(POLICY, 13),)
    assert answer_from(PydanticLike(answer="30 days [Source: a, p.2]")).citations == (Citation("a", 2),)
    with pytest.raises(SystemFailure, match=r"a BrokenDump whose model_dump\(\) raised RuntimeError"):
        answer_from(BrokenDump())
    with pytest.raises(SystemFailure, match="a type, not a text"):
        answer_from(BotReply)  # the class, not a reply


def test_brain_used_is_the_route() -> None:
    answer = answer_from({"text": "x", "brain_used": "sales_brain::continue"})
    assert answer.route == "sales_brain::continue"


def test_without_citations_they_are_read_from_the_text_against_the_contexts() -> None:
    answer = answer_from(
        {"text": "30 days [2]", "contexts": [{"document": "a", "page": 1}, {"document": POLICY, "page": 13}]}
    )
    assert answer.citations == (Citation(POLICY, 13),)
    empty = answer_from({"text": "30 days [1]", "citations": [], "contexts": [{"document": "a", "page": 1}]})
    assert empty.citations == (Citation("a", 1),)


def test_given_citations_win_over_the_text() -> None:
    answer = answer_from({"text": "30 days [Source: other, p.1]", "citations": [{"document": POLICY}]})
    assert answer.citations == (Citation(POLICY),)


def test_a_blocked_reply_needs_no_text() -> None:
    answer = answer_from({"blocked": True})
    assert answer.text == "" and answer.blocked is True


def test_string_contexts_are_passages_of_no_known_document() -> None:
    answer = answer_from({"text": "x [1]", "contexts": ["the grace period is 30 days"]})
    assert answer.contexts == (Context("", text="the grace period is 30 days"),)
    assert answer.citations == (Citation(""),)  # cites a passage whose document nobody knows


@pytest.mark.parametrize(
    ("page", "expected"), [(3, 3), (3.0, 3), ("3", 3), (" 12 ", 12), (None, None)]
)
def test_a_page_may_be_any_spelling_of_a_whole_number(page: object, expected: int | None) -> None:
    assert answer_from(cited(document="d", page=page)).citations[0].page == expected


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    assert answer_from({"text": "30 days \ud800"}).text == "30 days \ufffd"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "a NoneType, not a text or a mapping"),
        (b"30 days", "a bytes, not a text"),
        (30, "a int, not a text"),
        (["30 days"], "a list, not a text"),
        ({"answer_text": "30 days"}, "a mapping without 'text' (its keys: answer_text)"),
        ({"text": None}, "a mapping without 'text'"),
        ({"text": 30}, "field 'text' must be a text, found a int 30"),
        ({"text": "x", "answer": "y"}, "both 'text' and 'answer' given, with different texts"),
        ({"answer": {"value": "x"}}, "field 'answer' must be a text, found a dict"),
        ({"text": "x", "blocked": "yes"}, "field 'blocked' must be true or false"),
        ({"text": "x", "blocked": 1}, "field 'blocked' must be true or false"),
        ({"text": "x", "route": 7}, "field 'route' must be a text"),
        ({"text": "x", "model": ["m"]}, "field 'model' must be a text"),
        ({"text": "x", "citations": "doc p.3"}, "field 'citations' must be a list, found a str"),
        ({"text": "x", "citations": {"document": "d"}}, "field 'citations' must be a list"),
        ({"text": "x", "citations": [7]}, "field 'citations' item 0 must be a text or a mapping"),
        ({"text": "x", "citations": [" "]}, "field 'citations' item 0 is blank"),
        (cited(page=3), "field 'citations' item 0 needs a 'document'"),
        (cited(document=5), "item 0 needs a 'document' (a non-blank text), found a int"),
        (cited(document="d", page=float("nan")), "item 0 page must be a page number"),
        (cited(document="d", page=0), "item 0 page must be a page number (1 or more)"),
        (cited(document="d", page=2.5), "page must be a page number"),
        (cited(document="d", page=True), "page must be a page number"),
        (cited(document="d", page="three"), "page must be a page number"),
        (cited(document="d", start=9, end=2), "ends (2) before it starts (9)"),
        (cited(document="d", start=-1), "start must be an offset (0 or more)"),
        ({"text": "x", "contexts": [{"text": "p"}]}, "field 'contexts' item 0 needs a 'document'"),
        ({"text": "x", "contexts": [None]}, "field 'contexts' item 0 must be a text or a mapping"),
        ({"text": "x", "contexts": [{"document": "d", "text": 5}]}, "field 'text' must be a text"),
    ],
)
def test_anything_malformed_is_a_failure_naming_the_field(value: object, reason: str) -> None:
    with pytest.raises(SystemFailure, match=r"^malformed reply: ") as failure:
        answer_from(value)
    assert reason in failure.value.reason


def test_an_answer_round_trips_through_a_run_row() -> None:
    """The Reply an answer carries is what run.jsonl writes and load_records reads back."""
    answer = answer_from(
        {"text": "30 days [1]", "contexts": [{"document": POLICY, "page": 13, "text": "x"}], "blocked": False}
    )
    reply = dataclasses.replace(answer, text=None)  # on a record, the text is its response
    assert parse_part(Reply, part_dict(reply)) == reply


# --- in process: real callables ----------------------------------------------------------------------

BOT = '''
import asyncio, threading, time

CALLS = []

def answer(question, scope=None, **options):
    CALLS.append((question, scope, options, threading.current_thread().name))
    return {"text": f"30 days [Source: {scope}, p.13]", "route": "extractive", **options}

async def answer_async(question, scope=None):
    await asyncio.sleep(0)
    return f"async: {question} ({scope})"

IN_FLIGHT = [0, 0]  # now, at most
LOCK = threading.Lock()

def slow(question, scope=None):
    with LOCK:
        IN_FLIGHT[0] += 1
        IN_FLIGHT[1] = max(IN_FLIGHT)
    time.sleep(0.3)
    with LOCK:
        IN_FLIGHT[0] -= 1
    return "slow"

def exits(question, scope=None):
    raise SystemExit(3)

def fails(question, scope=None):
    raise ValueError("no index for " + str(scope))

def silent_fail(question, scope=None):
    raise KeyError

def garbage(question, scope=None):
    return {"text": "x", "citations": [{"document": "d", "page": float("nan")}]}

def nothing(question, scope=None):
    return None

def awaits_later(question, scope=None):
    return answer_async(question, scope=scope)

def no_scope(question):
    return "x"

class Bot:
    def answer(self, question, scope=None):
        return "method"

bot = Bot()
NOT_CALLABLE = 3
'''


def calls(system: System) -> list[tuple[Any, ...]]:
    """The calls the bot module behind an in-process system recorded."""
    assert isinstance(system, InProcessSystem)
    return list(sys.modules[system.function.__module__].CALLS)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(BOT, encoding="utf-8")
    return path


def test_a_sync_function_answers_in_a_worker_thread_with_scope_and_options(bot_file: Path) -> None:
    system = load_system(f"{bot_file}:answer", {"route": "custom"})
    answer = ask(system)
    assert answer.text == f"30 days [Source: {POLICY}, p.13]"
    assert answer.citations == (Citation(POLICY, 13),)
    assert answer.route == "custom"  # the option reached the function as a keyword
    question, scope, options, thread = calls(system)[-1]
    assert (question, scope, options) == ("What is the grace period?", POLICY, {"route": "custom"})
    assert thread != threading.main_thread().name  # it ran off the event loop


def test_an_async_function_is_awaited(bot_file: Path) -> None:
    assert ask(load_system(f"{bot_file}:answer_async")).text == f"async: What is the grace period? ({POLICY})"
    assert ask(load_system(f"{bot_file}:answer_async"), scope=None).text.endswith("(None)")


def test_a_sync_function_that_returns_an_awaitable_has_it_awaited(bot_file: Path) -> None:
    assert ask(load_system(f"{bot_file}:awaits_later")).text.startswith("async: ")


def test_a_method_of_an_object_is_a_dotted_name(bot_file: Path) -> None:
    assert ask(load_system(f"{bot_file}:bot.answer")).text == "method"


def test_sync_calls_run_concurrently_so_the_runners_limits_hold(bot_file: Path) -> None:
    system = load_system(f"{bot_file}:slow")

    async def many() -> None:
        await asyncio.gather(*(system.ask("q", None) for _ in range(12)))

    asyncio.run(many())
    assert isinstance(system, InProcessSystem)
    peak = sys.modules[system.function.__module__].IN_FLIGHT[1]
    assert peak > 8  # more at once than the default pool's cpu_count + 4 threads would allow

    async def cut() -> None:
        await asyncio.wait_for(system.ask("q", None), 0.05)

    with pytest.raises(TimeoutError):  # the runner's timeout is not held up by the thread
        asyncio.run(cut())


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("fails", f"raised ValueError: no index for {POLICY}"),
        ("silent_fail", "raised KeyError"),
        ("exits", "raised SystemExit: 3"),
        ("garbage", "malformed reply: field 'citations' item 0 page must be a page number (1 or more), found a float nan"),  # noqa: E501
        ("nothing", "malformed reply: a NoneType, not a text or a mapping with 'text'"),
    ],
)
def test_a_raising_or_garbage_function_is_a_system_failure(bot_file: Path, name: str, reason: str) -> None:
    with pytest.raises(SystemFailure) as failure:
        ask(load_system(f"{bot_file}:{name}"))
    assert failure.value.reason == reason


def test_a_module_spec_is_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "probe_bot_pkg").mkdir()
    (tmp_path / "probe_bot_pkg" / "__init__.py").write_text("")
    (tmp_path / "probe_bot_pkg" / "chat.py").write_text("def reply(question, scope=None):\n  return 'pkg'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    system = load_system("probe_bot_pkg.chat:reply")
    assert ask(system).text == "pkg"
    assert system.signature() == "probe_bot_pkg.chat:reply"


def test_a_module_in_the_working_folder_is_found_though_assay_does_not_put_it_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cwd_probe_bot.py").write_text("def reply(question, scope=None):\n    return 'here'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert ask(load_system("cwd_probe_bot:reply")).text == "here"


def test_the_signature_is_the_spec_and_its_sorted_options(bot_file: Path) -> None:
    system = load_system(f"{bot_file}:answer", {"top_k": "5", "mode": "strict"})
    assert system.signature() == f"{bot_file}:answer|mode=strict|top_k=5"


def test_config_options_reach_the_function_and_the_command_line_wins(bot_file: Path) -> None:
    config = {"options": {"route": "from-config", "top_k": 5}}
    system = load_system(f"{bot_file}:answer", {"route": "from-cli"}, config)
    assert ask(system).route == "from-cli"
    assert calls(system)[-1][2] == {"route": "from-cli", "top_k": 5}  # a TOML number stays a number


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("", {}, "no system to ask"),
        ("  ", {}, "no system to ask"),
        ("bot", {}, "cannot read the system spec 'bot'"),
        ("no_such_module_xyz:answer", {}, "cannot import the module 'no_such_module_xyz'"),
        ("{dir}/missing.py:answer", {}, "does not exist"),
        ("{dir}/bot.py:nope", {}, "has no 'nope'"),
        ("{dir}/bot.py:NOT_CALLABLE", {}, "is a int, not a function"),
        ("{dir}/bot.py:no_scope", {}, "cannot be called as function(question, scope=...)"),
        ("{dir}/bot.py:answer_async", {"top_k": "5"}, "function(question, scope=..., top_k=...)"),
        ("{dir}/bot.py:", {}, "cannot read the system spec"),
        ("http:ftp://x", {}, "http: is followed by a URL"),
    ],
)
def test_a_spec_that_cannot_be_loaded_is_a_usage_error_with_the_fix(
    bot_file: Path, spec: str, options: dict[str, str], message: str
) -> None:
    with pytest.raises(UsageError) as error:
        load_system(spec.replace("{dir}", str(bot_file.parent)), options)
    assert message in error.value.what
    assert error.value.fix


def test_a_module_that_raises_on_import_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("raise RuntimeError('missing API key')\n")
    (tmp_path / "typo.py").write_text("def answer(question, scope=None)\n    return 1\n")
    with pytest.raises(UsageError, match="raised RuntimeError: missing API key"):
        load_system(f"{tmp_path / 'broken.py'}:answer")
    with pytest.raises(UsageError, match="raised SyntaxError"):
        load_system(f"{tmp_path / 'typo.py'}:answer")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"url": "http://x"}, "[system] has no key 'url'"),
        ({"options": "top_k=5"}, "[system] options is not a table"),
        ({"request": {"q": "{question}"}}, "[system] request is for http systems, and this one is in-proc"),
        ({"headers": {"X": "y"}}, "[system] headers is for http or openai systems"),
    ],
)
def test_a_config_key_another_system_reads_is_refused(
    bot_file: Path, config: dict[str, Any], message: str
) -> None:
    with pytest.raises(UsageError) as error:
        load_system(f"{bot_file}:answer", {}, config)
    assert message in error.value.what


def test_without_a_spec_the_configs_is_used(bot_file: Path) -> None:
    assert ask(load_system("", {}, {"spec": f"{bot_file}:bot.answer"})).text == "method"


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([], {}),
        (["top_k=5", "mode=strict"], {"top_k": "5", "mode": "strict"}),
        (["filter=a=b"], {"filter": "a=b"}),  # the value may hold '='
        (["empty="], {"empty": ""}),
    ],
)
def test_system_options_are_key_value_pairs(pairs: list[str], expected: dict[str, str]) -> None:
    assert system_options(pairs) == expected


@pytest.mark.parametrize(
    ("pairs", "message"),
    [(["top_k"], "is not KEY=VALUE"), (["=5"], "is not KEY=VALUE"), (["a=1", "a=2"], "a is given twice")],
)
def test_a_bad_system_option_is_a_usage_error(pairs: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        system_options(pairs)


# --- the [system] table of an assay.toml -------------------------------------------------------------


def test_the_system_table_is_read_from_assay_toml(tmp_path: Path) -> None:
    path = tmp_path / "assay.toml"
    path.write_text(
        textwrap.dedent(
            """
            [judge]
            concurrency = 2

            [system]
            spec = "http:http://127.0.0.1:8000/ask"

            [system.request]
            question = "{question}"
            policy_filter_ids = ["{scope}"]

            [system.response]
            text = "answer"
            citations = "sources"
            """
        ),
        encoding="utf-8",
    )
    assert load_system_config(path) == {
        "spec": "http:http://127.0.0.1:8000/ask",
        "request": {"question": "{question}", "policy_filter_ids": ["{scope}"]},
        "response": {"text": "answer", "citations": "sources"},
    }


def test_a_file_without_a_system_table_gives_an_empty_one(tmp_path: Path) -> None:
    path = tmp_path / "assay.toml"
    path.write_text("[judge]\nconcurrency = 2\n", encoding="utf-8")
    assert load_system_config(path) == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[system\n", "not valid TOML"),
        ("system = 3\n", "system is not a [system] table"),
        ("[system]\nendpoint = 'x'\n", "[system] has no key 'endpoint'"),
        ("[system]\nspec = 3\n", "[system] spec is not a text"),
    ],
)
def test_a_bad_config_file_is_a_usage_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "assay.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as error:
        load_system_config(path)
    assert message in error.value.what and error.value.where == str(path)


def test_a_missing_or_binary_config_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the config file"):
        load_system_config(tmp_path / "none.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe[system]")
    with pytest.raises(UsageError, match="not UTF-8"):
        load_system_config(tmp_path / "bin.toml")


def test_importing_the_systems_loads_no_http_client() -> None:
    import subprocess

    code = "import sys, assay.harness.systems; print('httpx' in sys.modules)"
    src = str(Path(__file__).resolve().parents[2] / "src")
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": src}, check=True
    )
    assert found.stdout.strip() == "False"


METHODS = """
class Bot:
    def answer(self, question, scope=None):
        return "30 days"


def no_scope(question):
    return "30 days"
"""


@pytest.mark.parametrize(
    ("target", "options", "fix"),
    [
        ("Bot.answer", {}, "name the method of an instance (bot.py:bot.answer"),
        ("no_scope", {}, "give it the parameters (question, scope=None, **options)"),
        ("no_scope", {"top_k": "5"}, "or leave out the --system-option"),
    ],
)
def test_a_callable_that_cannot_take_the_call_is_told_the_fix_that_fits_it(
    tmp_path: Path, target: str, options: dict[str, str], fix: str
) -> None:
    path = tmp_path / "methods.py"
    path.write_text(METHODS, encoding="utf-8")
    with pytest.raises(UsageError) as error:
        load_system(f"{path}:{target}", options)
    assert fix in error.value.fix
    assert "--system-option" not in error.value.fix or options  # no option given, none to leave out


@pytest.mark.parametrize("reply", [lambda text: text, lambda text: {"text": text, "citations": ["doc, p.1"]}])
def test_a_reply_far_longer_than_any_answer_is_the_systems_failure_not_minutes_of_scoring(reply: Any) -> None:
    from assay.harness.systems.base import MAX_REPLY_CHARS

    assert answer_from(reply("x" * MAX_REPLY_CHARS)).text == "x" * MAX_REPLY_CHARS
    with pytest.raises(SystemFailure, match=r"the reply's text is 200,001 characters, more than the 200,000"):
        answer_from(reply("x" * (MAX_REPLY_CHARS + 1)))
