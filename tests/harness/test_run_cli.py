"""assay run from the command line: a gold set asked of an in-process system (a Python file), the rows in
DIR/run.jsonl (records with their Gold and Reply, scored again by assay score), a run killed with
SIGKILL and started again asking no finished item twice, and the usage errors."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

from assay.records import load_records
from conftest import Server

SCOPES = ("acme__gold__wordings", "acme__silver__wordings")


def gold_item(number: int) -> dict[str, Any]:
    """An item as `assay gold build` writes it (docs/gold.md); every fourth a refusal item."""
    scope = SCOPES[number % 2]
    base = {"id": f"item{number:02d}", "scope": scope, "field": f"field_{number}"}
    if number % 4 == 3:
        return base | {
            "question": f"Which hospitals in town {number} are in the network?",
            "expected_answer": "The policy documents do not list network hospitals.",
            "expected_value": None,
            "expected_regex": None,
            "answer_type": None,
            "category": "refusal",
            "expected_refusal": True,
            "source": None,
        }
    days = 10 * (number + 1)
    return base | {
        "question": f"How many days is waiting period {number}?",
        "expected_answer": f"{days} days",
        "expected_value": {"value": days, "unit": "day"},
        "expected_regex": rf"(?<!\d){days}\s*days?\b",
        "answer_type": "number_unit",
        "category": "waiting",
        "expected_refusal": False,
        "source": {"document": scope, "title": scope.split("__")[1], "page": 2, "quote": f"{days} days"},
    }


def write_gold(path: Path, count: int) -> Path:
    lines = [json.dumps(gold_item(number), ensure_ascii=False) for number in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# The system under test: a file of its own, answering "N days" from the question (wrong on item 2),
# declining the network questions, failing on item 5; each question asked is appended to a log first.
SYSTEM = '''
import time

LOG = {log!r}


def answer(question, scope=None, pause="0"):
    with open(LOG, "a", encoding="utf-8") as handle:
        handle.write(question + "\\n")
    time.sleep(float(pause))
    number = int("".join(ch for ch in question if ch.isdigit()))
    if "network" in question:
        return {{"text": "I cannot find that in the policy documents.", "blocked": False}}
    if number == 5:
        raise RuntimeError("the index of " + str(scope) + " is not loaded")
    days = 10 * (number + 1) + (1 if number == 2 else 0)
    cited = [{{"document": scope, "page": 2}}]
    return {{"text": f"It is {{days}} days.", "citations": cited, "route": "bm25"}}
'''


@pytest.fixture
def system(tmp_path: Path) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(SYSTEM.format(log=str(tmp_path / "asked.log")), encoding="utf-8")
    return path


def asked(tmp_path: Path) -> list[str]:
    log = tmp_path / "asked.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def rows_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]


def assay_command() -> list[str]:
    """`python -m assay`, as a user runs it."""
    return [sys.executable, "-m", "assay"]


# --- a run --------------------------------------------------------------------------------------------


def test_a_run_writes_every_item_once_in_gold_order_as_records_with_gold_and_reply(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 8), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    code, _, stderr = run(argv, capsys)
    assert code == 0, stderr
    rows = rows_of(out)
    assert [row["id"] for row in rows] == [f"item{n:02d}" for n in range(8)]
    by_id = {row["id"]: row for row in rows}
    assert by_id["item00"]["response"] == "It is 10 days." and by_id["item00"]["hard_fact"] is True
    assert by_id["item02"]["hard_fact"] is False  # 31 days for 30
    assert by_id["item05"]["response"] == ""
    error = by_id["item05"]["reply"]["error"]  # the adapter's words, then the exception's
    assert error.endswith("raised RuntimeError: the index of acme__silver__wordings is not loaded")
    assert by_id["item00"]["reply"]["citations"] == [{"document": "acme__gold__wordings", "page": 2}]
    assert {key: by_id["item01"][key] for key in gold_item(1)} == gold_item(1)  # the item as it was
    records = load_records(out / "run.jsonl").records
    assert records[0].gold is not None and records[0].gold.value == 10 and records[0].reply is not None
    assert records[5].reply is not None and records[5].reply.error is not None
    assert "asked 8 items" in stderr and "0 answered before" in stderr


def test_its_rows_are_scored_again_by_assay_score_without_the_system(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    again = tmp_path / "again.jsonl"
    argv = ["score", "--responses", str(out / "run.jsonl"), "--metric", "hard_fact", "--out", str(again)]
    code, _, stderr = run([*argv, "--on-conflict", "replace"], capsys)
    assert code == 0, stderr
    rescored = [json.loads(line) for line in again.read_text(encoding="utf-8").splitlines()]
    assert [row["hard_fact"] for row in rescored] == [row["hard_fact"] for row in rows_of(out)]


@pytest.mark.parametrize("flag", ["--scope", "--policy"])
def test_scope_and_its_alias_policy_ask_only_that_scopes_items_and_limit_the_first_n(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 8), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out), flag, SCOPES[1]]
    assert run([*argv, "--limit", "3", "--max-system-errors", "1"], capsys)[0] == 0  # item05 fails
    assert [row["id"] for row in rows_of(out)] == ["item01", "item03", "item05"]
    assert len(asked(tmp_path)) == 3


def test_an_unknown_scope_is_a_usage_error_listing_the_known_ones(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 4)
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(tmp_path / "run")]
    code, _, stderr = run([*argv, "--scope", "acme__gold"], capsys)
    assert code == 2
    assert f"no item of the gold set has the scope 'acme__gold' (its scopes: {', '.join(SCOPES)})" in stderr
    assert asked(tmp_path) == []  # nothing asked


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--concurrency", "0"], "argument --concurrency: give 1 or more, got 0"),
        (["--timeout", "0"], "argument --timeout: give a number of seconds above 0, got 0"),
        (["--system-option", "pause"], "argument --system-option: 'pause' is not KEY=VALUE"),
        (["--cascade"], "--cascade only apply to a judge. Fix: add --judge SPEC, or drop them"),
        (["--gate-on", "lower"], "--gate-on only apply to a gate"),
    ],
)
def test_bad_flags_are_usage_errors_before_anything_is_asked(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 4)
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(tmp_path / "run")]
    code, _, stderr = run([*argv, *extra], capsys)
    assert (code, asked(tmp_path)) == (2, [])
    assert message in stderr


def test_another_systems_journal_in_the_folder_is_refused_until_fresh(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    code, _, stderr = run([*argv, "--system-option", "pause=0.01"], capsys)
    assert code == 2 and "the journal holds the answers of another system" in stderr and "--fresh" in stderr
    assert run([*argv, "--system-option", "pause=0.01", "--fresh"], capsys)[0] == 0
    assert len(asked(tmp_path)) == 8  # every item twice: the fresh run asked them all again


def test_the_same_command_again_asks_nothing(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    first = rows_of(out)
    code, _, stderr = run(argv, capsys)
    assert code == 0 and "asked 0 items" in stderr and "4 answered before" in stderr
    assert len(asked(tmp_path)) == 4 and rows_of(out) == first


# --- kill -9, and the same command again -------------------------------------------------------------


def test_a_run_killed_with_sigkill_resumes_asking_no_finished_item_again(
    tmp_path: Path, system: Path
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 16), tmp_path / "run"
    command = [
        *assay_command(),
        "run",
        "--gold",
        str(gold),
        "--system",
        f"{system}:answer",
        "--out",
        str(out),
        "--concurrency",
        "2",
        "--system-option",
        "pause=0.25",
    ]
    killed = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and killed.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 1 + 5:  # the header and 5 items
            break
        time.sleep(0.02)
    assert killed.poll() is None, killed.stderr.read().decode() if killed.stderr else ""
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait(10)
    assert killed.returncode == -signal.SIGKILL
    finished = {json.loads(line)["question"] for line in journal.read_text(encoding="utf-8").splitlines()[1:]}
    before = asked(tmp_path)
    assert 5 <= len(finished) < 16 and not (out / "run.jsonl").exists()

    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    asked_again = asked(tmp_path)[len(before) :]
    assert not finished & set(asked_again)  # no finished item was asked again
    assert set(asked_again) | finished == {gold_item(n)["question"] for n in range(16)}
    assert [row["id"] for row in rows_of(out)] == [f"item{n:02d}" for n in range(16)]  # each once, in order
    assert f"{len(finished)} of 16 items answered before" in again.stderr


# --- the gate, the judge, the config -------------------------------------------------------------------


@pytest.mark.parametrize(("bar", "code"), [("0.95", 1), ("0.30", 0)])
def test_the_gate_exits_1_when_the_run_misses_its_bar(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str], bar: str, code: int
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 8)
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(tmp_path / "run")]
    found, _, stderr = run([*argv, "--gate", f"hard_fact>={bar}", "--max-unscored", "0.5"], capsys)
    assert found == code, stderr
    assert ("gate FAILED" in stderr) is (code == 1)


def test_a_gate_on_a_metric_the_run_does_not_score_fails_before_anything_is_asked(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = write_gold(tmp_path / "gold.jsonl", 4)
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(tmp_path / "run")]
    code, _, stderr = run([*argv, "--gate", "squad_f1>=0.5"], capsys)
    assert (code, asked(tmp_path)) == (2, [])
    assert "the gate 'squad_f1>=0.5' names a metric this run does not score" in stderr


def test_the_system_may_be_named_by_the_config_file(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, config = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "assay.toml"
    config.write_text(f'[system]\nspec = "{system}:answer"\n', encoding="utf-8")
    argv = ["run", "--gold", str(gold), "--out", str(tmp_path / "run")]
    code, _, stderr = run([*argv, "--config", str(config)], capsys)
    assert code == 0, stderr
    assert len(asked(tmp_path)) == 4
    code, _, stderr = run([*argv, "--fresh"], capsys)
    assert code == 2 and "no system to ask. Fix: give --system SPEC" in stderr


def test_with_a_judge_its_verdicts_are_in_the_rows(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str], llama_server: Server
) -> None:
    from assay.judges.rubric import RUBRICS

    rubric = "rag-answer" if "rag-answer" in RUBRICS else "equivalence"  # rag-answer: the metrics branch's
    gold, out = write_gold(tmp_path / "gold.jsonl", 4), tmp_path / "run"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out), "--no-cache"]
    code, _, stderr = run([*argv, "--judge", llama_server.spec(), "--judge-rubric", rubric], capsys)
    assert code == 0, stderr
    assert all("judge" in row for row in rows_of(out))
    assert "no judge" not in stderr


# --- help and progress ---------------------------------------------------------------------------------

RUN_FLAGS = ["--gold", "--system", "--out", "--scope", "--policy", "--limit", "--concurrency", "--timeout",
             "--retries", "--system-option", "--sources", "--judge", "--judge-rubric", "--config", "--gate",
             "--gate-on", "--gate-scope", "--fresh"]  # fmt: skip


def test_help_mentions_every_flag_in_a_runs_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["run", "--help"], capsys)
    assert code == 0
    assert [flag for flag in RUN_FLAGS if flag not in out] == []
    text = " ".join(out.split())
    assert "--concurrency N questions in flight (default: 4)" in text  # the system's, not the judge's
    assert "(default rag-answer:" in text and "--metric judge" not in text


def test_progress_off_a_terminal_says_items_done_of_all_and_what_came_from_the_journal() -> None:
    from assay.cli.run import RunProgress

    stream = io.StringIO()
    progress = RunProgress(stream)
    for done in range(3, 9):
        progress(done, 8)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "assay: 3 of 8 items answered before (the journal): not asked again"
    assert re.fullmatch(r"assay: asking 8/8 items, \d+s elapsed", lines[-1])  # the seconds are the machine's
    assert len(lines) == 2  # the rest comes every PROGRESS_EVERY seconds, not once an item


def test_a_sync_system_hung_in_its_thread_holds_neither_the_run_nor_the_process(tmp_path: Path) -> None:
    hung = tmp_path / "hung.py"
    hung.write_text(
        "import time\n\ndef answer(question, scope=None):\n"
        "    if question.endswith(' 1?'):\n        time.sleep(60)\n    return {'text': 'It is 10 days.'}\n",
        encoding="utf-8",
    )
    gold, out = write_gold(tmp_path / "gold.jsonl", 3), tmp_path / "run"
    command = [*assay_command(), "run", "--gold", str(gold), "--system", f"{hung}:answer"]
    # within 15 s, not the 60 s of the hung call (subprocess.TimeoutExpired otherwise)
    command += ["--out", str(out), "--timeout", "0.5"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=15)
    assert done.returncode == 1, done.stderr  # 1 of 3 items a system error: more than --max-system-errors
    errors = [row["reply"].get("error") for row in rows_of(out)]
    assert errors == [None, "no reply within 0.5 s (the timeout)", None]
    assert "Task was destroyed" not in done.stderr and "Traceback" not in done.stderr


def test_an_out_folder_is_made_with_its_parents(
    tmp_path: Path, system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, out = write_gold(tmp_path / "gold.jsonl", 2), tmp_path / "runs" / "v2" / "ci"
    argv = ["run", "--gold", str(gold), "--system", f"{system}:answer", "--out", str(out)]
    code, _, stderr = run(argv, capsys)
    assert code == 0, stderr
    assert len(rows_of(out)) == 2


def test_the_judge_is_told_the_model_the_replies_name_for_the_cross_family_rule() -> None:
    from assay.harness.run import _with_system_model
    from assay.judges.metric import JudgeSetup
    from assay.judges.spec import parse_spec
    from assay.parts import Reply
    from assay.records import Record

    setup = JudgeSetup((parse_spec("openai:Qwen2.5-7B-Instruct@http://127.0.0.1:9/v1"),))
    replies = [Reply(model="qwen2.5-14b"), Reply(model="qwen2.5-14b"), Reply()]
    rows = [Record(f"q{n}", "question", ("answer",), "", reply=reply) for n, reply in enumerate(replies)]
    told = _with_system_model(setup, rows)
    assert told is not None and told.system_model == "qwen2.5-14b"
    assert any("same model family" in warning for warning in told.warnings())
    named = JudgeSetup(setup.chain, system_model="llama-3-8b")  # --system-model wins over the replies
    assert _with_system_model(named, rows) is named
