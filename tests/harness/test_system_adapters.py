"""System adapters by spec prefix: one from another package, installed for real (pip, into a target
directory on PYTHONPATH), used by `assay run --system echo:...` and listed by --help; a broken or
clashing one refused with one error naming its entry point; the built-in `scripted:` double and the
ScriptedSystem class; the forms of --help, errors and docs built from (or checked against) the registry."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_plugins import assay, install_plugin
from test_run_cli import gold_item, write_gold

from assay.errors import UsageError
from assay.harness.systems import (
    SYSTEMS,
    ScriptedSystem,
    SystemAdapter,
    SystemFailure,
    TransportError,
    load_system,
    spec_forms,
)
from assay.harness.systems.adapters import spec_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "systems.md"

# A system adapter of another package: `echo:WORD` answers "N days" from the question, WORD appended.
ECHO_MODULE = """
from assay.harness.systems import SystemAdapter, answer_from


class Echo:
    def __init__(self, spec, word):
        self.spec, self.word = spec, word

    def signature(self):
        return self.spec

    async def ask(self, question, scope):
        number = int("".join(ch for ch in question if ch.isdigit()) or 0)
        text = f"It is {10 * (number + 1)} days, {self.word}."
        return answer_from({"text": text, "citations": [{"document": scope, "page": 2}]})

    async def aclose(self):
        pass


ECHO = SystemAdapter(
    prefix="echo", form="echo:WORD", description="the days, then WORD", make=lambda s: Echo(s.spec, s.target)
)
CLASH = SystemAdapter(prefix="openai", form="openai:X", description="clash", make=lambda s: Echo(s.spec, "x"))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(
        tmp_path_factory.mktemp("systems"),
        "echoplugin",
        ECHO_MODULE,
        "echo = echoplugin:ECHO",
        "assay.systems",
    )


def test_a_plugin_adapter_answers_assay_run_by_its_prefix(site: Path, tmp_path: Path) -> None:
    write_gold(tmp_path / "gold.jsonl", 3)
    done = assay(site, "run", "--gold", "gold.jsonl", "--system", "echo:truly", "--out", "run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "run.jsonl").read_text().splitlines()]
    assert [row["response"] for row in rows] == [f"It is {days} days, truly." for days in (10, 20, 30)]
    assert rows[0]["hard_fact"] is True and rows[1]["hard_fact"] is True
    assert rows[0]["reply"]["citations"] == [{"document": gold_item(0)["scope"], "page": 2}]


def test_a_plugin_adapter_is_listed_by_run_help(site: Path, tmp_path: Path) -> None:
    done = assay(site, "run", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "echo:WORD" in " ".join(done.stdout.split())


@pytest.mark.parametrize(
    ("entry", "spec", "expected"),
    [
        (
            "broken = echoplugin:MISSING",
            "broken:x",
            "the system adapter plugin failed to load (AttributeError",
        ),
        (
            "clash = echoplugin:CLASH",
            "openai:http://127.0.0.1:9/v1",
            "prefix 'openai' has the name of a built-in",
        ),
    ],
)
def test_a_broken_or_clashing_adapter_stops_the_run_naming_its_entry_point(
    tmp_path: Path, entry: str, spec: str, expected: str
) -> None:
    site = install_plugin(tmp_path, "echoplugin", ECHO_MODULE, entry, "assay.systems")
    write_gold(tmp_path / "gold.jsonl", 1)
    done = assay(site, "run", "--gold", "gold.jsonl", "--system", spec, "--out", "run", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert f"entry point '{entry}' (group assay.systems)" in done.stderr


# --- the scripted double ------------------------------------------------------------------------------


def ask(system: object, question: str, scope: str | None = "doc") -> object:
    assert isinstance(system, ScriptedSystem)
    return asyncio.run(system.ask(question, scope))


@pytest.mark.parametrize(
    ("script", "default", "question", "text"),
    [
        ({"q?": "30 days"}, None, "q?", "30 days"),
        ({"q?": {"text": "30 days", "citations": ["doc p.2"]}}, None, "q?", "30 days"),
        ({}, "I do not know", "other?", "I do not know"),
        (lambda question, scope: f"{question} in {scope}", None, "q?", "q? in doc"),
    ],
)
def test_a_scripted_system_answers_from_its_script(
    script: object, default: object, question: str, text: str
) -> None:
    system = ScriptedSystem(script, default=default) if default else ScriptedSystem(script)  # type: ignore[arg-type]
    assert ask(system, question).text == text  # type: ignore[attr-defined]
    assert system.asked == [(question, "doc")]


@pytest.mark.parametrize(
    ("script", "error", "reason"),
    [
        ({}, SystemFailure, "the script has no reply to 'q?'"),
        ({"q?": TransportError("reset")}, TransportError, "reset"),
        ({"q?": None}, SystemFailure, "malformed reply"),
    ],
)
def test_a_scripted_system_fails_as_scripted(script: dict[str, object], error: type, reason: str) -> None:
    with pytest.raises(error) as caught:
        ask(ScriptedSystem(script), "q?")
    assert reason in caught.value.reason


def test_scripted_file_is_a_system_spec(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps({"q?": "30 days"}), encoding="utf-8")
    system = load_system(f"scripted:{script}", {"default": "no idea"})
    assert ask(system, "q?").text == "30 days"  # type: ignore[attr-defined]
    assert ask(system, "else?").text == "no idea"  # type: ignore[attr-defined]
    assert system.signature() == f"scripted:{script}"


@pytest.mark.parametrize(
    ("text", "options", "config", "message"),
    [
        ('{"q?": "a"}', {"top_k": "5"}, {}, "a scripted system has no option 'top_k'"),
        ('["a"]', {}, {}, "the script is a JSON list"),
        ("{", {}, {}, "cannot read the script of"),
        (
            '{"q?": "a"}',
            {},
            {"headers": {"X": "y"}},
            "headers is for http or openai systems, and this one is scripted",
        ),
    ],
)
def test_a_bad_scripted_spec_is_a_usage_error(
    tmp_path: Path, text: str, options: dict[str, str], config: dict[str, object], message: str
) -> None:
    script = tmp_path / "replies.json"
    script.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_system(f"scripted:{script}", options, config)
    assert message in caught.value.what


# --- the registry in process, and the lists built from it -------------------------------------------------


def test_an_adapter_registered_in_process_is_loaded_by_its_prefix() -> None:
    adapter = SystemAdapter(
        "canned", "canned:TEXT", "always TEXT", make=lambda s: ScriptedSystem(lambda q, c: s.target)
    )
    SYSTEMS.register(adapter)
    try:
        assert ask(load_system("canned:hello"), "anything").text == "hello"  # type: ignore[attr-defined]
        assert spec_forms().endswith("scripted:FILE.json or canned:TEXT")
        with pytest.raises(UsageError, match="has the name of a built-in prefix"):
            SYSTEMS.register(SystemAdapter("http", "http:X", "a clash", make=adapter.make))
    finally:
        SYSTEMS.forget("canned")


@pytest.mark.parametrize(
    ("prefix", "reads", "message"),
    [
        ("", (), "prefix '' is not a plain name"),
        ("a.b", (), "is not a plain name"),
        ("x", ("url",), "no key"),
    ],
)
def test_an_adapter_is_checked_as_it_is_made(prefix: str, reads: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        SystemAdapter(prefix, "x:Y", "x", make=ScriptedSystem, reads=reads)  # type: ignore[arg-type]


def test_the_forms_of_errors_help_and_docs_are_the_registrys() -> None:
    forms = spec_forms()
    assert (
        forms
        == "pkg.module:function, path/to/file.py:function, openai:BASE_URL, http:URL or scripted:FILE.json"
    )
    with pytest.raises(UsageError) as caught:
        load_system("bot")
    assert caught.value.fix == f"give --system as {forms}"
    documented = DOCS.read_text(encoding="utf-8")
    for form, _ in spec_table():
        for each in form.split(", "):
            assert f"`{each}`" in documented, f"docs/systems.md does not list {each}"
