"""The judge against a real OpenAI-compatible server (llama.cpp's, on 127.0.0.1) and a real in-process
model. The model is far too small to judge well: these tests check the mechanics (round trip, JSON
mode, determinism, usage, the cache, the fallback chain, unscored replies, the cost ceiling, resuming
after a kill), never whether a verdict is right. Faults a real server will not produce on demand come
from a proxy in front of it (tests/support/fault_proxy.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_proxy import Faults, fault_proxy

from assay import Outcome, ScoreRun, load_records, score, summary_dict
from assay.errors import UsageError
from assay.judges._base import Sampling
from assay.judges.accounting import JudgeUsage, judge_summary
from assay.judges.llama_local import LlamaJudge
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.openai_http import OpenAIJudge
from assay.judges.prompt import REMINDER
from assay.judges.rubric import messages
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from conftest import Server, free_port

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
pytestmark = pytest.mark.usefixtures("llama_server")


def judged(specs: list[str], rows: int = 3, cache: Path | None = None, **options: object) -> ScoreRun:
    """The first `rows` rows of the example, judged by the chain `specs`."""
    setup_options = {key: options.pop(key) for key in ("cascade", "system_model") if key in options}
    judge_options = JudgeOptions(cache_path=cache, **options)  # type: ignore[arg-type]
    setup = JudgeSetup(tuple(map(parse_spec, specs)), judge_options, **setup_options)  # type: ignore[arg-type]
    metrics = ["judge", *(["exact_substring", "word_overlap", "phrase_match"] if setup.cascade else [])]
    return score(load_records(EXAMPLE, limit=rows), with_judge(metrics, setup))


def usage(run: ScoreRun, label: str) -> JudgeUsage:
    assert judge_summary(run.summary) is not None
    return judge_summary(run.summary).usage[label]


def outcomes(run: ScoreRun) -> list[Outcome]:
    return [Outcome(o) for o in run.metrics["judge"].outcomes]


def chat_requests(faults: Faults) -> list[dict[str, object]]:
    return [r for r in faults.requests if str(r["path"]).endswith("/chat/completions")]


def test_round_trip_gives_a_verdict_per_row_with_usage(llama_server: Server) -> None:
    run = judged([llama_server.spec()], rows=3)
    assert all(o in (Outcome.PASS, Outcome.FAIL) for o in outcomes(run))  # JSON mode: always parseable
    label = llama_server.label
    assert run.metrics["judge"].texts["judge_by"] == [label] * 3
    used = usage(run, label)
    assert used.calls == 3 and used.cache_hits == 0
    assert used.prompt_tokens > 300 and used.completion_tokens > 0
    assert used.models == {llama_server.model}  # the served model id, recorded per judge ...
    assert run.metrics["judge"].texts["judge_model"] == [llama_server.model] * 3  # ... and per verdict
    signature = run.summary.metrics["judge"].signature
    assert "|prompt:assay-equivalence@1#" in signature and "|nfc:off|ci:wilson95|assay:" in signature


def test_json_mode_is_asked_for_and_dropped_where_the_server_refuses_it(llama_server: Server) -> None:
    faults = Faults()
    with fault_proxy(llama_server.base_url, faults) as proxy:
        judged([f"openai:{llama_server.model}@{proxy}"], rows=1)
    assert [r["body"]["response_format"] for r in chat_requests(faults)] == [{"type": "json_object"}]  # type: ignore[index]
    refusing = Faults(reject_json_mode=True)
    with fault_proxy(llama_server.base_url, refusing) as proxy:  # one at a time: the first finds out
        run = judged([f"openai:{llama_server.model}@{proxy}"], rows=2, concurrency=1)
    bodies = [r["body"] for r in chat_requests(refusing)]
    assert "response_format" in bodies[0]  # type: ignore[operator]
    assert all("response_format" not in body for body in bodies[1:])  # type: ignore[operator]
    assert len(outcomes(run)) == 2  # verdicts or unscored, parsed from text: never an error


def test_temperature_zero_gives_identical_output(llama_server: Server) -> None:
    asked = messages("What is the capital of France?", ["Paris"], "It is Paris, on the Seine.")

    async def twice() -> list[str]:
        judge = OpenAIJudge(llama_server.base_url, llama_server.model, sampling=Sampling(max_tokens=48))
        try:
            return [(await judge.complete(asked)).text for _ in range(2)]
        finally:
            await judge.close()

    first, second = asyncio.run(twice())
    assert first == second and first.strip()


def test_a_cached_rerun_makes_no_call_and_gives_identical_results(
    llama_server: Server, tmp_path: Path
) -> None:
    cache, label = tmp_path / "cache.sqlite", llama_server.label
    first = judged([llama_server.spec()], rows=3, cache=cache)
    again = judged([llama_server.spec()], rows=3, cache=cache)
    assert (
        usage(first, label).calls,
        usage(again, label).calls,
        usage(again, label).cache_hits,
    ) == (3, 0, 3)
    assert outcomes(again) == outcomes(first)
    assert again.metrics["judge"].texts == first.metrics["judge"].texts
    refreshed = judged([llama_server.spec()], rows=3, cache=cache, refresh=True)
    assert usage(refreshed, label).calls == 3


def test_a_judge_that_is_down_is_left_out_and_the_next_one_judges(llama_server: Server) -> None:
    down = f"openai:{llama_server.model}@http://127.0.0.1:{free_port()}/v1"
    run = judged([down, llama_server.spec()], rows=2)
    assert run.metrics["judge"].texts["judge_by"] == [llama_server.label] * 2
    assert judge_summary(run.summary) is not None
    assert any("does not answer" in warning for warning in judge_summary(run.summary).warnings)


def test_a_judge_failing_with_500_falls_through_to_the_next(llama_server: Server) -> None:
    faults = Faults(status=500)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        failing = f"openai:{llama_server.model}@{proxy},retries=1,backoff=0.01"
        run = judged([failing, llama_server.spec()], rows=2)
    assert len(chat_requests(faults)) == 4  # each row: the request and its one retry
    assert run.metrics["judge"].texts["judge_by"] == [llama_server.label] * 2
    assert usage(run, llama_server.label).calls == 2


def test_429_is_retried_after_the_time_the_server_asks(llama_server: Server) -> None:
    faults = Faults(status=429, times=1, retry_after="1")
    with fault_proxy(llama_server.base_url, faults) as proxy:
        started = time.monotonic()
        run = judged([f"openai:{llama_server.model}@{proxy},backoff=0"], rows=1)
        waited = time.monotonic() - started
    assert len(chat_requests(faults)) == 2
    assert outcomes(run)[0] in (Outcome.PASS, Outcome.FAIL)
    assert waited >= 1.0  # Retry-After honoured


def test_garbage_is_unscored_with_the_raw_reply_kept_after_one_retry(llama_server: Server) -> None:
    faults = Faults(garbage="lorem ipsum dolor sit amet")
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy}"], rows=2)
    scores = run.metrics["judge"]
    assert outcomes(run) == [Outcome.UNSCORED, Outcome.UNSCORED]
    assert scores.texts["judge_raw"] == ["lorem ipsum dolor sit amet"] * 2
    assert "replied twice without a verdict" in scores.reasons[0]
    last_messages = [r["body"]["messages"][-1]["content"] for r in chat_requests(faults)]  # type: ignore[index]
    assert len(last_messages) == 4 and last_messages.count(REMINDER) == 2  # one retry per row
    tally = summary_dict(run.summary)["metrics"]["judge"]["combined"]
    assert (tally["unscored"], tally["passed"], tally["failed"], tally["accuracy"]) == (2, 0, 0, None)


def test_preflight_fails_fast_with_clear_messages(
    llama_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(UsageError, match="does not answer"):
        judged([f"openai:m@http://127.0.0.1:{free_port()}/v1"], rows=1)
    with pytest.raises(UsageError, match="does not serve the model 'no-such-model'"):
        judged([f"openai:no-such-model@{llama_server.base_url}"], rows=1)
    monkeypatch.setenv("ASSAY_TEST_KEY", "wrong")
    refusing = fault_proxy(llama_server.base_url, Faults(api_key="right"))
    with refusing as proxy, pytest.raises(UsageError, match=r"refused the API key.*\$ASSAY_TEST_KEY"):
        judged([f"openai:{llama_server.model}@{proxy},api_key_env=ASSAY_TEST_KEY"], rows=1)


def test_the_api_key_is_sent_but_never_written(
    llama_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-assay-test-4a7c19"
    monkeypatch.setenv("ASSAY_TEST_KEY", secret)
    faults = Faults(api_key=secret)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        spec = f"openai:{llama_server.model}@{proxy},api_key_env=ASSAY_TEST_KEY"
        cache = tmp_path / "cache.sqlite"
        argv = ["score", "--responses", str(EXAMPLE), "--limit", "2", "--metric", "judge", "--judge", spec]
        argv += [
            "--cache",
            str(cache),
            "--out",
            str(tmp_path / "out.csv"),
            "--json",
            str(tmp_path / "s.json"),
        ]
        argv += ["--trace", str(tmp_path / "t.jsonl")]
        result = subprocess.run(
            [sys.executable, "-m", "assay", *argv], capture_output=True, text=True, env=os.environ
        )
    assert result.returncode == 0, result.stderr
    assert {r["auth"] for r in faults.requests} == {f"Bearer {secret}"}
    for written in tmp_path.iterdir():
        assert secret.encode() not in written.read_bytes(), written.name
    assert secret not in result.stdout + result.stderr


def test_max_cost_stops_cleanly_and_says_what_was_left(llama_server: Server) -> None:
    expensive = llama_server.spec(price_prompt=1_000_000)  # a dollar a token
    run = judged([expensive], rows=4, concurrency=1, max_cost=1.0)
    assert outcomes(run)[0] in (Outcome.PASS, Outcome.FAIL)
    assert outcomes(run)[1:] == [Outcome.UNSCORED] * 3
    assert judge_summary(run.summary) is not None and judge_summary(run.summary).over_budget == 3
    assert "--max-cost 1.0 was reached" in run.metrics["judge"].reasons[1]


def test_the_cascade_sends_only_the_undecided_rows(llama_server: Server) -> None:
    run = judged([llama_server.spec()], rows=14, cascade=True)
    judge = judge_summary(run.summary)
    assert judge is not None
    assert (
        judge.decided_by_cascade > 0 and judge.sent_to_judges + judge.decided_by_cascade + judge.blank == 14
    )
    calls = usage(run, llama_server.label).calls
    assert judge.sent_to_judges <= calls <= 2 * judge.sent_to_judges  # a reply without a verdict: one retry
    by = run.metrics["judge"].texts["judge_by"]
    matchers = [run.metrics[m].outcomes for m in ("exact_substring", "word_overlap", "phrase_match")]
    for row, decided_by in enumerate(by):
        if decided_by is not None and decided_by.startswith("cascade"):
            assert {column[row] for column in matchers} == {run.metrics["judge"].outcomes[row]}
    both, agree = judge.agreement["phrase_match"]
    assert 0 < both <= judge.sent_to_judges and 0 <= agree <= both  # rows the judge left unscored drop out


def test_a_judge_of_the_systems_family_is_warned_about(llama_server: Server) -> None:
    run = judged([llama_server.spec()], rows=1, system_model="HuggingFaceTB/SmolLM2-1.7B-Instruct")
    assert judge_summary(run.summary) is not None
    assert any("same model family (smollm)" in warning for warning in judge_summary(run.summary).warnings)


def test_a_killed_run_resumes_from_the_cache_losing_and_repeating_no_row(
    llama_server: Server, tmp_path: Path
) -> None:
    cache, out, summary = tmp_path / "cache.sqlite", tmp_path / "out.csv", tmp_path / "s.json"
    argv = [sys.executable, "-m", "assay", "llm-judge", "--responses", str(EXAMPLE), "--limit", "8"]
    argv += ["--judge", llama_server.spec(), "--cache", str(cache), "--concurrency", "1"]
    process = subprocess.Popen(
        [*argv, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while _cached(cache) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    done_before = _cached(cache)
    assert 3 <= done_before < 8 and not out.exists()
    result = subprocess.run(
        [*argv, "--out", str(out), "--json", str(summary)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    used = json.loads(summary.read_text())["judge"]["usage"][llama_server.label]
    assert used["cache_hits"] >= done_before and used["calls"] + used["cache_hits"] == 8
    ids = [line.split(",", 1)[0] for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert ids == [r.id for r in load_records(EXAMPLE, limit=8).records]


def _cached(cache: Path) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(cache, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM replies").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_the_in_process_model_judges_too(model_path: Path) -> None:
    judge = LlamaJudge(str(model_path), n_threads=2, sampling=Sampling(max_tokens=48))
    run = score(load_records(EXAMPLE, limit=2), with_judge(["judge"], JudgeSetup((judge,))))
    assert all(o in (Outcome.PASS, Outcome.FAIL, Outcome.UNSCORED) for o in outcomes(run))
    assert usage(run, judge.label).calls >= 2


def test_the_cli_reads_a_chain_from_a_config_file(
    llama_server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_run import run

    config = tmp_path / "assay.toml"
    config.write_text(
        "[judge]\nconcurrency = 2\n"
        f'cache = "{tmp_path / "c.sqlite"}"\n\n'
        f'[[judge.chain]]\nkind = "openai"\nmodel = "{llama_server.model}"\n'
        f'base_url = "{llama_server.base_url}"\n',
        encoding="utf-8",
    )
    code, out, err = run(
        ["llm-judge", "--responses", str(EXAMPLE), "--limit", "2", "--config", str(config)], capsys
    )
    assert code == 0, err
    assert "judge: 2 rows sent to the chain" in out
    assert (tmp_path / "c.sqlite").exists()
    code, _, err = run(["score", "--responses", str(EXAMPLE), "--metric", "judge"], capsys)
    assert code == 2 and "the judge metric needs a chain of judges" in err


def test_over_long_responses_are_cut_with_a_marker_and_counted(llama_server: Server) -> None:
    faults = Faults(garbage='{"verdict": "CORRECT"}')  # quick replies: only what was sent matters here
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy}"], rows=2, max_response_chars=20)
    assert judge_summary(run.summary) is not None and judge_summary(run.summary).truncated == 2
    sent = [r["body"]["messages"][-1]["content"] for r in chat_requests(faults)]  # type: ignore[index]
    assert all("[... truncated by assay:" in text and "more characters not shown]" in text for text in sent)


def test_requests_keep_to_the_rate_limit(llama_server: Server) -> None:
    faults = Faults(garbage='{"verdict": "INCORRECT"}')
    with fault_proxy(llama_server.base_url, faults) as proxy:
        started = time.monotonic()
        judged([f"openai:{llama_server.model}@{proxy},rps=10"], rows=6, concurrency=6)
        elapsed = time.monotonic() - started
    assert len(chat_requests(faults)) == 6
    assert elapsed >= 0.5  # six starts at ten a second: the last one at least 0.5 s after the first


def test_two_processes_share_one_cache(tmp_path: Path) -> None:
    cache, go = tmp_path / "shared.sqlite", tmp_path / "go"
    script = (
        "import os, sys, time; from assay.judges.cache import Cache\n"
        "from assay.judges._base import Completion\n"
        "while not os.path.exists(sys.argv[3]): time.sleep(0.001)\n"  # both start together
        "c = Cache(sys.argv[1])\n"
        "for i in range(1000):\n"
        "    c.put(f'{sys.argv[2]}-{i}', Completion(text=str(i), model='m'))\n"
        "    assert c.get(f'{sys.argv[2]}-{i}').text == str(i)\n"
    )
    writers = [subprocess.Popen([sys.executable, "-c", script, str(cache), name, str(go)]) for name in "ab"]
    time.sleep(0.5)  # both interpreters up and waiting
    go.touch()
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM replies").fetchone()[0] == 2000


def test_json_mode_refused_under_concurrency_loses_no_row(llama_server: Server) -> None:
    faults = Faults(reject_json_mode=True, garbage='{"verdict": "CORRECT"}')  # text mode: a quick verdict
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy}"], rows=4, concurrency=4)
    assert outcomes(run) == [Outcome.PASS] * 4  # requests in flight when JSON mode was refused ask again


def test_the_gap_a_server_asks_for_is_kept(llama_server: Server) -> None:
    faults = Faults(status=429, times=1, retry_after="1", garbage='{"verdict": "CORRECT"}')
    with fault_proxy(llama_server.base_url, faults) as proxy:
        judged([f"openai:{llama_server.model}@{proxy},backoff=0"], rows=1)
    first, second = (r["at"] for r in chat_requests(faults))
    assert second - first >= 1.0  # type: ignore[operator]


def test_request_starts_keep_to_the_rate(llama_server: Server) -> None:
    faults = Faults(garbage='{"verdict": "CORRECT"}')
    with fault_proxy(llama_server.base_url, faults) as proxy:
        judged([f"openai:{llama_server.model}@{proxy},rps=10"], rows=5, concurrency=5)
    starts = sorted(float(str(r["at"])) for r in chat_requests(faults))
    # Ten a second, whatever the concurrency: five starts span 0.4 s at the client. The proxy notes a
    # request when its thread reads it, so one start's note may come late on a loaded machine (a new
    # connection, a thread not yet run): the span is allowed one interval less, never the whole of it.
    assert len(starts) == 5 and starts[-1] - starts[0] >= 0.4 - 0.1


def test_a_judge_that_twice_gives_no_verdict_passes_the_row_on(llama_server: Server) -> None:
    faults = Faults(garbage="I would rather not say.")
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy}", llama_server.spec()], rows=2)
    assert run.metrics["judge"].texts["judge_by"] == [llama_server.label] * 2
    assert len(chat_requests(faults)) == 4  # each row asked twice of the first judge


def test_an_error_that_echoes_the_key_does_not_carry_it_into_any_output(
    llama_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-assay-echo-91f3"
    monkeypatch.setenv("ASSAY_TEST_KEY", secret)
    faults = Faults(status=403, echo_auth=True)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy},api_key_env=ASSAY_TEST_KEY"], rows=1)
    assert outcomes(run) == [Outcome.UNSCORED]
    assert "HTTP 403" in run.metrics["judge"].reasons[0] and secret not in run.metrics["judge"].reasons[0]
    assert secret not in json.dumps(summary_dict(run.summary))


def test_a_cached_rerun_sends_no_request_at_all(llama_server: Server, tmp_path: Path) -> None:
    cache, faults = tmp_path / "cache.sqlite", Faults(garbage='{"verdict": "CORRECT"}')
    with fault_proxy(llama_server.base_url, faults) as proxy:
        judged([f"openai:{llama_server.model}@{proxy}"], rows=3, cache=cache)
        assert len(chat_requests(faults)) == 3
        faults.requests.clear()
        judged([f"openai:{llama_server.model}@{proxy}"], rows=3, cache=cache)
    assert faults.requests == []  # not even the preflight's GET /models
