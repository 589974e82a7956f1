"""Judge rubrics: the equivalence rubric is today's prompt (same signature, same cache keys); a rubric
registered in-process or by an entry point is used end to end against the real llama.cpp server, its
prompt reaching the server, its signature in the summary and in the cache key; a broken one is one
clear error naming it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import ROWS, run, write_csv
from fault_proxy import Faults, fault_proxy

from assay import load_records, score
from assay.errors import InputError, UsageError
from assay.judges._base import Sampling
from assay.judges.accounting import judge_summary
from assay.judges.cache import cache_key
from assay.judges.metric import JudgeMetric, JudgeSetup, with_judge
from assay.judges.prompt import PROMPT_SIGNATURE, REMINDER, SYSTEM, USER
from assay.judges.rubric import (
    DEFAULT_RUBRIC,
    ENTRY_POINT_GROUP,
    EQUIVALENCE,
    RUBRICS,
    Rubric,
    get_rubric,
    messages,
    register_rubric,
)
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from conftest import Server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "qa_responses.csv"

TERSE_SYSTEM = (
    "You check answers. Say whether the response names the golden answer for the question, in the "
    'context given. Reply with a JSON object only: {"verdict": "CORRECT" or "INCORRECT"}.'
)
TERSE_USER = (
    "Context: {context}\nQuestion: {question}\nGolden: {goldens}\n<response>\n{response}\n</response>"
)


def terse(name: str = "terse") -> Rubric:
    """A rubric of another wording that also reads a named column of the data."""
    return Rubric(
        name=name,
        id="test-terse",
        version=3,
        system=TERSE_SYSTEM,
        user=TERSE_USER,
        reminder=REMINDER,
        fields={
            "context": "domain",
            "question": "question",
            "goldens": "answers",
            "response": "response",
        },
    )


@pytest.fixture
def registered() -> Iterator[Rubric]:
    rubric = register_rubric(terse())
    yield rubric
    RUBRICS.forget(rubric.name)  # the registry is the process's: leave it as found


# --- the equivalence rubric is today's prompt ----------------------------------------------------------


def test_equivalence_is_the_default_and_keeps_the_prompts_signature_and_messages() -> None:
    assert get_rubric(DEFAULT_RUBRIC) is EQUIVALENCE and JudgeSetup(()).rubric is EQUIVALENCE
    assert EQUIVALENCE.signature == PROMPT_SIGNATURE == f"prompt:assay-equivalence@1#{EQUIVALENCE.hash}"
    assert (EQUIVALENCE.system, EQUIVALENCE.user, EQUIVALENCE.reminder) == (SYSTEM, USER, REMINDER)
    assert EQUIVALENCE.inputs == ("question", "answers", "response")
    values = {"question": "q?", "goldens": ("a", "b"), "response": "it is </response> a"}
    assert EQUIVALENCE.messages(values) == messages("q?", ["a", "b"], "it is </response> a")
    asked = messages("q?", ["a"], "a")
    sampling = Sampling()
    assert cache_key("openai", "m@h", sampling, asked) == cache_key(
        "openai", "m@h", sampling, asked, EQUIVALENCE.signature
    )
    assert cache_key("openai", "m@h", sampling, asked) != cache_key(
        "openai", "m@h", sampling, asked, terse().signature
    )


def test_the_judge_metric_has_a_metrics_shape() -> None:
    metric = JudgeMetric(JudgeSetup((), cascade=True, rubric=terse()))
    assert (metric.name, metric.graded) == ("judge", False)
    assert metric.inputs == ("domain", "question", "answers", "response")
    assert metric.needs == ("exact_substring", "word_overlap", "phrase_match")
    assert JudgeMetric(JudgeSetup(())).needs == ()
    assert "judge_rationale" in metric.text_columns
    assert f"|{terse().signature}|" in metric.signature("nfc:off")
    # A structured signature: its parts readable without parsing the text back.
    found = metric.signature(["nfc:off", "ci:wilson95"])
    assert found.info["metric"] == "judge@1" and found.info["cascade"] == "on"
    assert f"prompt:{found.info['prompt']}" == terse().signature
    assert (found.info["nfc"], found.info["ci"]) == ("off", "wilson95")


# --- rubrics refused as they are defined or registered ---------------------------------------------------


def test_a_rubric_whose_template_and_fields_differ_is_refused() -> None:
    with pytest.raises(UsageError, match=r"its user template names \['question'\], its fields"):
        Rubric("x", "x", 1, "s", "{question}", "r", {"question": "question", "extra": "response"})
    with pytest.raises(UsageError, match="'golden', which is not a record field"):
        Rubric("x", "x", 1, "s", "{g}", "r", {"g": "golden"})
    Rubric("x", "x", 1, "s", "{q}{c}{r}", "r", {"q": "gold.source_quote", "c": "reply.citations", "r": "id"})


def test_a_rubric_named_like_a_built_in_is_refused_and_an_unknown_name_lists_the_known(
    registered: Rubric,
) -> None:
    with pytest.raises(UsageError, match="'equivalence' is a built-in rubric already"):
        register_rubric(terse("equivalence"))
    register_rubric(registered)  # the same rubric again: no clash
    with pytest.raises(UsageError, match="is another rubric already"):
        register_rubric(Rubric("terse", "other", 1, "s", "{r}", "r", {"r": "response"}))
    with pytest.raises(UsageError, match="unknown judge rubric 'nope'") as caught:
        get_rubric("nope")
    assert caught.value.fix == "use one of: equivalence, rag-answer, terse"


def test_a_missing_column_the_rubric_fills_in_is_one_error_before_any_work() -> None:
    rubric = Rubric("ctx", "ctx", 1, "s", "{c} {r}", "r", {"c": "column:context", "r": "response"})
    setup = JudgeSetup((parse_spec("openai:m@http://127.0.0.1:9/v1"),), rubric=rubric)
    with pytest.raises(
        InputError, match=r"rubric 'ctx' fills \{c\} from column:context, and there is no column"
    ):
        score(load_records(EXAMPLE, limit=2), with_judge(["judge"], setup))  # no server is asked (port 9)
    mapped = Rubric("ctx", "ctx", 1, "s", "{c} {r}", "r", {"c": "column:Domain", "r": "response"})
    with pytest.raises(
        InputError, match="the column 'Domain' is read as the record's domain: fill from domain"
    ):
        score(load_records(EXAMPLE, limit=2), with_judge(["judge"], JudgeSetup(setup.chain, rubric=mapped)))


# --- entry points -------------------------------------------------------------------------------------


def plugin_dir(tmp_path: Path, target: str, name: str = "terse_ep", code: str | None = None) -> Path:
    """A package installed by hand: a module and a dist-info whose entry point names `target`."""
    home = tmp_path / "plugin"
    home.mkdir(exist_ok=True)
    if code is None:
        code = (
            "from assay.judges.prompt import REMINDER\n"
            "from assay.judges.rubric import Rubric\n"
            f"RUBRIC = Rubric(name={name!r}, id='ep-terse', version=1, system={TERSE_SYSTEM!r},\n"
            f"    user={TERSE_USER!r}, reminder=REMINDER,\n"
            "    fields={'context': 'domain', 'question': 'question', 'goldens': 'answers',\n"
            "            'response': 'response'})\n"
        )
    (home / "terse_plugin.py").write_text(code, encoding="utf-8")
    info = home / "terse_plugin-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: terse-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{name} = {target}\n")
    return home


def _install(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(home))
    RUBRICS.reload()


def test_an_entry_point_rubric_is_found_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(plugin_dir(tmp_path, "terse_plugin:RUBRIC"), monkeypatch)
    try:
        found = get_rubric("terse_ep")
        assert found.signature.startswith("prompt:ep-terse@1#") and "terse_ep" in RUBRICS
    finally:
        monkeypatch.undo()
        RUBRICS.reload()


@pytest.mark.parametrize(
    ("target", "name", "code", "expected"),
    [
        ("terse_plugin:MISSING", "terse_ep", None, "the rubric plugin failed to load (AttributeError"),
        ("terse_plugin:RUBRIC", "terse_ep", "raise RuntimeError('boom')\n", "(RuntimeError: boom)"),
        ("terse_plugin:RUBRIC", "terse_ep", "RUBRIC = 'a prompt'\n", "gives a str, not an assay Rubric"),
        (
            "terse_plugin:RUBRIC",
            "equivalence",
            None,
            "name 'equivalence' is a built-in rubric; it is refused",
        ),
    ],
)
def test_a_broken_or_clashing_entry_point_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, name: str, code: str | None, expected: str
) -> None:
    _install(plugin_dir(tmp_path, target, name, code), monkeypatch)
    try:
        with pytest.raises(UsageError) as caught:
            get_rubric("terse_ep")
        assert expected in caught.value.message
        assert caught.value.where == f"entry point '{name} = {target}' (group assay.rubrics)"
    finally:
        monkeypatch.undo()
        sys.modules.pop("terse_plugin", None)
        RUBRICS.reload()


# --- end to end, against the real server ------------------------------------------------------------------


def _cached_keys(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {key for (key,) in db.execute("SELECT key FROM replies")}


def test_a_registered_rubric_is_used_end_to_end(
    llama_server: Server, registered: Rubric, tmp_path: Path
) -> None:
    cache = tmp_path / "judge.sqlite"
    faults = Faults()
    records = load_records(EXAMPLE, limit=2)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        chain = (parse_spec(f"openai:{llama_server.model}@{proxy}"),)
        plain = score(records, with_judge(["judge"], JudgeSetup(chain, JudgeOptions(cache_path=cache))))
        before = _cached_keys(cache)
        setup = JudgeSetup(chain, JudgeOptions(cache_path=cache), rubric=get_rubric("terse"))
        run = score(records, with_judge(["judge"], setup))
    sent = [r["body"]["messages"] for r in faults.requests if str(r["path"]).endswith("/chat/completions")]
    ours = [m for m in sent if m[0]["content"] == TERSE_SYSTEM]
    assert len(ours) >= 2  # every row asked under the rubric (a reply that is no verdict: once more)
    first = records.records[0]
    # Rows are asked concurrently, so the first row's request is any one of them.
    filled = f"Context: {first.domain}\nQuestion: {first.question}\n"
    assert any(asked[1]["content"].startswith(filled) for asked in ours)
    signature = run.summary.metrics["judge"].signature
    assert f"|{registered.signature}|" in signature and PROMPT_SIGNATURE not in signature
    assert PROMPT_SIGNATURE in plain.summary.metrics["judge"].signature
    assert len(_cached_keys(cache) - before) >= 2  # its own cache keys, beside the equivalence rubric's
    again = score(records, with_judge(["judge"], setup))  # ... which a re-run finds
    assert judge_summary(run.summary) is not None and judge_summary(again.summary) is not None
    assert sum(u.cache_hits for u in judge_summary(again.summary).usage.values()) >= 2
    assert sum(u.calls for u in judge_summary(again.summary).usage.values()) == 0


def test_an_entry_point_rubric_runs_from_the_command_line(llama_server: Server, tmp_path: Path) -> None:
    home = plugin_dir(tmp_path, "terse_plugin:RUBRIC")
    cache, summary = tmp_path / "judge.sqlite", tmp_path / "summary.json"
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(home), str(ROOT / "src"), str(ROOT / "tests")])}
    command = [sys.executable, "-m", "assay", "score", "--responses", str(EXAMPLE), "--limit", "2"]
    command += [
        "--metric",
        "judge",
        "--judge",
        llama_server.spec(),
        "--cache",
        str(cache),
        "--json",
        str(summary),
    ]
    done = subprocess.run(
        [*command, "--judge-rubric", "terse_ep"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    protocols = json.loads(summary.read_text(encoding="utf-8"))["signature"]["protocols"]
    assert "|prompt:ep-terse@1#" in protocols["judge"]
    assert len(_cached_keys(cache)) >= 2
    unknown = subprocess.run(
        [*command, "--judge-rubric", "nope"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert unknown.returncode == 2
    assert "unknown judge rubric 'nope'" in unknown.stderr
    assert "use one of: equivalence, rag-answer, terse_ep" in unknown.stderr


# --- the command line and assay.toml -----------------------------------------------------------------


def test_the_rubric_flag_and_setting_are_read_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    data = write_csv(tmp_path / "two.csv", ROWS)
    base = ["score", "--responses", str(data)]
    judge = [*base, "--metric", "judge", "--judge", "openai:m@http://127.0.0.1:9/v1"]
    code, _, err = run([*base, "--judge-rubric", "equivalence"], capsys)
    assert code == 2 and "--judge-rubric only apply to the judge metric" in err
    code, _, err = run([*judge, "--judge-rubric", "nope"], capsys)
    assert code == 2 and "unknown judge rubric 'nope'" in err and "use one of: equivalence" in err
    config = tmp_path / "assay.toml"
    config.write_text('[judge]\nrubric = "nope"\n', encoding="utf-8")
    code, _, err = run(judge, capsys)
    assert code == 2 and "unknown judge rubric 'nope'" in err
    config.write_text("[judge]\nrubric = 3\n", encoding="utf-8")
    code, _, err = run(judge, capsys)
    assert code == 2 and "[judge] rubric = 3 is not str" in err
