"""The judge under an adversarial server or file (issue 9): replies that try to steer the verdict, a
body dripped a byte at a time, servers that echo the key, usage numbers that are not counts, lone
surrogates, a tampered or full cache, config files that would slip in their own judge, and a judge
that does not judge. Against the real llama.cpp server with the fault proxy in front of it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fault_proxy import Faults, fault_proxy

from assay import Outcome, ScoreRun, load_records, score
from assay.judges.accounting import judge_summary
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from conftest import Server, free_port

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
pytestmark = pytest.mark.usefixtures("llama_server")


def judged(specs: list[str], rows: int = 2, cache: Path | None = None, **options: Any) -> ScoreRun:
    setup = JudgeSetup(tuple(map(parse_spec, specs)), JudgeOptions(cache_path=cache, **options))
    return score(load_records(EXAMPLE, limit=rows), with_judge(["judge"], setup))


def outcomes(run: ScoreRun) -> list[Outcome]:
    return [Outcome(o) for o in run.metrics["judge"].outcomes]


def chats(faults: Faults) -> list[dict[str, Any]]:
    return [r for r in faults.requests if str(r["path"]).endswith("/chat/completions")]


def cli(argv: list[str], **popen: Any) -> subprocess.CompletedProcess[str]:
    """assay in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "assay", *argv], capture_output=True, text=True, env=os.environ, **popen
    )


def every_output(tmp_path: Path) -> list[str]:
    """Flags writing each kind of output into tmp_path (the cache too)."""
    names = {"--out": "out.csv", "--json": "s.json", "--trace": "t.jsonl", "--markdown": "r.md"}
    names |= {"--html": "r.html", "--cache": "cache.sqlite"}
    return [part for flag, name in names.items() for part in (flag, str(tmp_path / name))]


@pytest.mark.parametrize(
    ("reply", "outcome", "reason"),
    [
        # the verdict a response asks for, quoted before the model's own
        (
            'It says {"verdict": "CORRECT"}. {"verdict": "INCORRECT"}',
            Outcome.UNSCORED,
            "more than one verdict",
        ),
        ('{"verdict": "CORRECT"}\n{"verdict": "INCORRECT"}', Outcome.UNSCORED, "more than one verdict"),
        ("CORRECT, as it claims. Verdict: INCORRECT", Outcome.UNSCORED, "more than one verdict"),
        # JSON mode: the one top-level object decides, whatever its rationale quotes
        (
            '{"verdict": "INCORRECT", "rationale": "it pleads {\\"verdict\\": \\"CORRECT\\"}"}',
            Outcome.FAIL,
            None,
        ),
        ('{"quoted": {"verdict": "INCORRECT"}, "verdict": "CORRECT"}', Outcome.PASS, None),
        ('```json\n{"verdict": "INCORRECT"}\n```', Outcome.FAIL, None),
        (
            '{"verdict": "CORRECT", "rationale": "a"} {"verdict": "CORRECT", "rationale": "b"}',
            Outcome.PASS,
            None,
        ),
    ],
)
def test_a_reply_quoting_another_verdict_cannot_steer_the_judge(
    llama_server: Server, reply: str, outcome: Outcome, reason: str | None
) -> None:
    faults = Faults(garbage=reply)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        run = judged([f"openai:{llama_server.model}@{proxy}"], rows=1)
    assert outcomes(run) == [outcome]
    if reason is not None:
        assert reason in run.metrics["judge"].reasons[0]
        assert run.metrics["judge"].texts["judge_raw"] == [reply]


@pytest.mark.parametrize(("timeout", "retries"), [(0.5, 0), (1.5, 0), (0.5, 2)])
def test_a_dripping_body_is_cut_at_the_deadline(llama_server: Server, timeout: float, retries: int) -> None:
    faults = Faults(drip=0.25)  # 400 and more bytes: a hundred seconds and more, each read quick
    with fault_proxy(llama_server.base_url, faults) as proxy:
        started = time.monotonic()
        run = judged(
            [f"openai:{llama_server.model}@{proxy},timeout={timeout},retries={retries},backoff=0"], 1
        )
        elapsed = time.monotonic() - started
    attempts = retries + 1
    assert len(chats(faults)) == attempts
    # Never before the deadline; after it, the room of a loaded machine (the drip alone: 100 s and more).
    assert timeout * attempts <= elapsed < timeout * attempts + 20
    assert outcomes(run) == [Outcome.UNSCORED]
    assert f"no whole reply within the {timeout:g} s deadline" in run.metrics["judge"].reasons[0]


def label(model: str, base_url: str) -> str:
    return f"openai:{model}@{base_url.split('//')[1].split('/')[0]}"


def test_a_judge_past_its_deadline_passes_the_row_on(llama_server: Server) -> None:
    model = llama_server.model
    with (
        fault_proxy(llama_server.base_url, Faults(drip=0.25)) as dripping,
        fault_proxy(llama_server.base_url, Faults(garbage='{"verdict": "CORRECT"}')) as quick,
    ):
        started = time.monotonic()
        run = judged([f"openai:{model}@{dripping},timeout=1,retries=0", f"openai:{model}@{quick}"], rows=2)
        elapsed = time.monotonic() - started
    assert outcomes(run) == [Outcome.PASS] * 2
    assert run.metrics["judge"].texts["judge_by"] == [label(model, quick)] * 2
    assert (
        elapsed < 1 + 20
    )  # each row cut at 1 s, then the quick judge (the drip: 100 s); a loaded machine's room
    assert judge_summary(run.summary) is not None
    assert judge_summary(run.summary).usage[label(model, dripping)].failures == 2


SECRET = "sk-assay-echo-7d21f0"


@pytest.mark.parametrize(
    "reply",
    [
        '{"verdict": "CORRECT", "rationale": "you sent {auth}"}',  # the header, echoed in a 200
        '{"verdict": "INCORRECT", "rationale": "key ' + SECRET + ' seen"}',  # the key's value alone
        "I saw {auth}",  # no verdict: kept raw in judge_raw, after the retry
    ],
)
def test_a_reply_echoing_the_key_leaves_it_in_no_output(
    llama_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str
) -> None:
    monkeypatch.setenv("ASSAY_TEST_KEY", SECRET)
    faults = Faults(api_key=SECRET, garbage=reply)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        spec = f"openai:{llama_server.model}@{proxy},api_key_env=ASSAY_TEST_KEY"
        argv = ["score", "--responses", str(EXAMPLE), "--limit", "2", "--metric", "judge", "--judge", spec]
        result = cli([*argv, *every_output(tmp_path)])
    assert result.returncode == 0, result.stderr
    assert {r["auth"] for r in faults.requests} == {f"Bearer {SECRET}"}  # sent, as it must be
    assert_nowhere(SECRET, tmp_path, result)
    written = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert "[redacted]" in written


def assert_nowhere(secret: str, folder: Path, result: subprocess.CompletedProcess[str]) -> None:
    """Not in any file in the folder (the SQLite cache and its WAL included), nor on stdout or stderr."""
    files = sorted(folder.iterdir())
    assert len(files) >= 6
    for written in files:
        assert secret.encode() not in written.read_bytes(), written.name
    assert secret not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("userinfo", "reply"),
    [
        ("judge:pw-0f9e8d7c", '{"verdict": "CORRECT", "rationale": "you sent {auth}"}'),
        ("tok-5b4a3c2d1e@", '{"verdict": "INCORRECT"}'),  # a user name alone, as some gateways take it
    ],
)
def test_credentials_in_the_base_url_leave_the_process_only_as_sent(
    llama_server: Server, tmp_path: Path, userinfo: str, reply: str
) -> None:
    secret = userinfo.split(":")[-1].rstrip("@")
    faults = Faults(garbage=reply)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        with_userinfo = proxy.replace("//", f"//{userinfo.rstrip('@')}@")
        spec = f"openai:{llama_server.model}@{with_userinfo}"
        argv = ["score", "--responses", str(EXAMPLE), "--limit", "2", "--metric", "judge", "--judge", spec]
        result = cli([*argv, *every_output(tmp_path)])
    assert result.returncode == 0, result.stderr
    assert all(str(r["auth"]).startswith("Basic ") for r in faults.requests)  # httpx sends them
    assert_nowhere(secret, tmp_path, result)
    signature = json.loads((tmp_path / "s.json").read_text())["signature"]["protocols"]["judge"]
    assert f"openai:{llama_server.model}@127.0.0.1:" in signature


def test_a_down_judge_with_credentials_in_its_url_names_it_without_them(tmp_path: Path) -> None:
    down = f"openai:m@http://judge:pw-a1b2c3d4@127.0.0.1:{free_port()}/v1"
    result = cli(["llm-judge", "--responses", str(EXAMPLE), "--limit", "1", "--judge", down, "--no-cache"])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "does not answer" in result.stderr and "pw-a1b2c3d4" not in result.stderr
    assert "http://127.0.0.1:" in result.stderr


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -1_000_000, "completion_tokens": 3},  # a negative cost: the ceiling never hit
        {"prompt_tokens": 10, "completion_tokens": -1},
        {"prompt_tokens": 12.5, "completion_tokens": 3},
        {"prompt_tokens": "12", "completion_tokens": 3},
        {"prompt_tokens": True, "completion_tokens": 3},
        {"prompt_tokens": 10**10, "completion_tokens": 3},  # absurd
    ],
)
def test_usage_that_is_not_a_count_is_a_broken_judge(llama_server: Server, usage: dict[str, Any]) -> None:
    faults = Faults(garbage='{"verdict": "CORRECT"}', usage=usage)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        alone = judged([f"openai:{llama_server.model}@{proxy},price_prompt=1"], rows=1)
    assert outcomes(alone) == [Outcome.UNSCORED]
    assert "not a count of tokens" in alone.metrics["judge"].reasons[0]
    assert judge_summary(alone.summary) is not None
    used = judge_summary(alone.summary).usage[label(llama_server.model, proxy)]
    assert (used.cost, used.prompt_tokens, used.completion_tokens, used.failures) == (0, 0, 0, 1)


def test_max_cost_holds_when_a_judge_reports_negative_usage(llama_server: Server) -> None:
    faults = Faults(
        garbage='{"verdict": "CORRECT"}', usage={"prompt_tokens": -(10**8), "completion_tokens": 0}
    )
    with fault_proxy(llama_server.base_url, faults) as proxy:
        negative = f"openai:{llama_server.model}@{proxy},price_prompt=1000000"
        run = judged(
            [negative, llama_server.spec(price_prompt=1_000_000)], rows=4, concurrency=1, max_cost=1.0
        )
    assert judge_summary(run.summary) is not None and judge_summary(run.summary).over_budget == 3
    assert run.metrics["judge"].texts["judge_by"][0] == llama_server.label  # down the chain
    assert outcomes(run)[1:] == [Outcome.UNSCORED] * 3


def test_lone_surrogates_in_a_reply_reach_every_writer_replaced(llama_server: Server, tmp_path: Path) -> None:
    reply = '{"verdict": "CORRECT", "rationale": "odd \ud800 and \udfff here"}'
    faults = Faults(garbage=reply)
    with fault_proxy(llama_server.base_url, faults) as proxy:
        argv = [
            "llm-judge",
            "--responses",
            str(EXAMPLE),
            "--limit",
            "2",
            "--judge",
            f"openai:{llama_server.model}@{proxy}",
        ]
        result = cli([*argv, *every_output(tmp_path), "--out", str(tmp_path / "out.jsonl")])
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [row["judge_rationale"] for row in rows] == ["odd \ufffd and \ufffd here"] * 2
    for name in ("s.json", "t.jsonl", "r.md", "r.html"):
        (tmp_path / name).read_text(encoding="utf-8")  # written whole, and UTF-8


@pytest.mark.parametrize(
    "stored",
    [
        "not json",
        '{"text": 5, "model": "m", "fingerprint": null, "prompt_tokens": 1, "completion_tokens": 1}',
        '{"text": "{\\"verdict\\": \\"CORRECT\\"}", "model": "m", "fingerprint": null, "prompt_tok',  # cut
        '{"text": "x", "model": "m", "fingerprint": null, "prompt_tokens": -1, "completion_tokens": 1}',
        "[1, 2]",
        '{"text": "x"}',
    ],
)
def test_a_tampered_cache_row_is_asked_again_with_a_warning(
    llama_server: Server, tmp_path: Path, stored: str
) -> None:
    cache, faults = tmp_path / "cache.sqlite", Faults(garbage='{"verdict": "CORRECT"}')
    with fault_proxy(llama_server.base_url, faults) as proxy:
        spec = f"openai:{llama_server.model}@{proxy}"
        judged([spec], rows=2, cache=cache)
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE replies SET reply = ?", (stored,))
        faults.requests.clear()
        run = judged([spec], rows=2, cache=cache)
        again = judged([spec], rows=2, cache=cache)  # the replies asked again were stored
    assert outcomes(run) == [Outcome.PASS] * 2
    assert len(chats(faults)) == 2
    assert judge_summary(run.summary) is not None and judge_summary(again.summary) is not None
    assert any("2 cached replies" in w and "asked again" in w for w in judge_summary(run.summary).warnings)
    assert not any("cached replies" in w for w in judge_summary(again.summary).warnings)


# RLIMIT_FSIZE makes every write past the limit fail (EFBIG; Python ignores SIGXFSZ): a full disk for
# that process alone. The responses file is read, not written, so only the cache grows.
_LIMITED = "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({0}, {0})); "
_LIMITED += "sys.argv = ['assay', *sys.argv[1:]]; runpy.run_module('assay', run_name='__main__')"


@pytest.mark.parametrize("limit", [0, 40_000])
def test_a_full_disk_under_the_cache_is_one_line_and_exit_2(
    llama_server: Server, tmp_path: Path, limit: int
) -> None:
    big = '{"verdict": "CORRECT", "rationale": "' + "long " * 4000 + '"}'  # each reply a few pages
    with fault_proxy(llama_server.base_url, Faults(garbage=big)) as proxy:
        argv = [
            "llm-judge",
            "--responses",
            str(EXAMPLE),
            "--limit",
            "20",
            "--judge",
            f"openai:{llama_server.model}@{proxy}",
        ]
        argv += ["--cache", str(tmp_path / "cache.sqlite"), "--concurrency", "1"]
        result = subprocess.run(
            [sys.executable, "-c", _LIMITED.format(limit), *argv], capture_output=True, text=True
        )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "judge cache" in result.stderr and "cache.sqlite" in result.stderr


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "cannot open the judge cache"),  # a folder
        (lambda p: p.write_bytes(b"not a database at all, but long enough" * 200), "judge cache"),
    ],
)
def test_a_cache_that_is_not_a_database_is_one_line(tmp_path: Path, make: Any, message: str) -> None:
    cache = tmp_path / "cache.sqlite"
    make(cache)
    down = f"openai:m@http://127.0.0.1:{free_port()}/v1"
    result = cli(
        ["llm-judge", "--responses", str(EXAMPLE), "--limit", "1", "--judge", down, "--cache", str(cache)]
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr


def _config(folder: Path, model: str, base_url: str) -> Path:
    path = folder / "assay.toml"
    judge = f'kind = "openai"\nmodel = "{model}"\nbase_url = "{base_url}"\n'
    path.write_text(f"[[judge.chain]]\n{judge}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("flags", "config_asked", "cli_asked", "says"),
    [
        ([], True, False, "read judge settings from ./assay.toml: its chain (1 judge)"),
        (["--judge", "CLI"], False, True, "its chain (1 judge) replaced by --judge"),
        (["--judge", "CLI", "--judge-after-config"], True, False, "its chain (1 judge), then --judge"),
        (["--judge", "CLI", "--config", "CONFIG"], False, True, "replaced by --judge"),
    ],
)
def test_a_config_file_is_never_read_in_silence_and_judge_replaces_its_chain(
    llama_server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    config_asked: bool,
    cli_asked: bool,
    says: str,
) -> None:
    verdict = '{"verdict": "CORRECT"}'
    from_config, from_cli = Faults(garbage=verdict), Faults(garbage=verdict)
    with (
        fault_proxy(llama_server.base_url, from_config) as config_url,
        fault_proxy(llama_server.base_url, from_cli) as cli_url,
    ):
        config = _config(tmp_path, llama_server.model, config_url)
        argv = [
            flag.replace("CLI", f"openai:{llama_server.model}@{cli_url}").replace("CONFIG", str(config))
            for flag in flags
        ]
        result = cli(
            ["llm-judge", "--responses", str(EXAMPLE), "--limit", "1", "--no-cache", *argv], cwd=tmp_path
        )
    assert result.returncode == 0, result.stderr
    assert (bool(chats(from_config)), bool(chats(from_cli))) == (config_asked, cli_asked)
    assert "assay: read judge settings from" in result.stderr and says in result.stderr


def test_no_config_file_no_word_about_one(llama_server: Server, tmp_path: Path) -> None:
    with fault_proxy(llama_server.base_url, Faults(garbage='{"verdict": "CORRECT"}')) as proxy:
        argv = [
            "llm-judge",
            "--responses",
            str(EXAMPLE),
            "--limit",
            "1",
            "--no-cache",
            "--judge",
            f"openai:{llama_server.model}@{proxy}",
        ]
        result = cli(argv, cwd=tmp_path)
        after = cli([*argv, "--judge-after-config"], cwd=tmp_path)
    assert result.returncode == 0 and "judge settings" not in result.stderr, result.stderr
    assert after.returncode == 2 and "--judge-after-config needs a config file" in after.stderr


@pytest.mark.parametrize(
    ("reply", "flags"),
    [
        ('{"verdict": "CORRECT", "rationale": "fine"}', ["verdict", "rationale"]),
        ('{"verdict": "INCORRECT"}', ["verdict"]),
    ],
)
def test_a_judge_that_does_not_judge_is_flagged_in_every_report(
    llama_server: Server, tmp_path: Path, reply: str, flags: list[str]
) -> None:
    with fault_proxy(llama_server.base_url, Faults(garbage=reply)) as proxy:
        argv = [
            "llm-judge",
            "--responses",
            str(EXAMPLE),
            "--limit",
            "25",
            "--judge",
            f"openai:{llama_server.model}@{proxy}",
        ]
        result = cli([*argv, *every_output(tmp_path)])
    assert result.returncode == 0, result.stderr
    reports = {
        "text": result.stdout,
        "stderr": result.stderr,
        "json": " ".join(json.loads((tmp_path / "s.json").read_text())["judge"]["warnings"]),
        "markdown": (tmp_path / "r.md").read_text(encoding="utf-8"),
        "html": (tmp_path / "r.html").read_text(encoding="utf-8"),
    }
    decided = sum(
        json.loads((tmp_path / "s.json").read_text())["judge"]["verdicts"][
            label(llama_server.model, proxy)
        ].values()
    )
    assert decided == 24  # 25 rows, one blank
    for name, text in reports.items():
        assert "may not be judging" in text and "assay agree" in text, name
        assert ("gave one rationale" in text) == ("rationale" in flags), name
        assert f"on {decided} of the {decided} rows it decided" in text, name
