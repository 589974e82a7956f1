"""Outcomes with the real judge (the llama.cpp server of tests/conftest.py): when --judge ran it decides the
factual verdict, in its own words; a judge reply that is not a verdict (tests/support/fault_proxy.py answering
for the real server) leaves the item unscored, and it stays unscored though hard_fact passes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_proxy import Faults, fault_proxy
from test_outcomes import CITED, Case, item, run_rows, write_rows

from assay import score
from assay.harness.outcomes import FACTUAL, outcomes, with_outcomes
from assay.harness.run_gate import GateSettings, check_run
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from assay.scorers import Outcome
from assay.scoring import ScoreRun
from conftest import Server

CASES = [
    Case(item("right"), "The free-look period is 15 days.", CITED),
    Case(item("wrong"), "The free-look period is 45 days.", {}),
]


def judged(tmp_path: Path, base_url: str, model: str) -> ScoreRun:
    path = write_rows(tmp_path / "run.jsonl", run_rows(CASES))
    setup = JudgeSetup((parse_spec(f"openai:{model}@{base_url}"),), JudgeOptions(cache_path=None))
    return score(path, with_judge(["hard_fact", "value_match", "judge"], setup))


def test_the_judge_decides_in_its_own_words(llama_server: Server, tmp_path: Path) -> None:
    run = judged(tmp_path, llama_server.base_url, llama_server.model)
    expected = {Outcome.PASS: {"correct"}, Outcome.FAIL: {"wrong_cited", "wrong_uncited"}}
    decided = [run.metrics["judge"].outcome(index) for index in range(len(CASES))]
    assert Outcome.UNSCORED not in decided  # the real model gives verdicts: they decide, below
    for index, (outcome, reason) in enumerate(outcomes(run)):
        verdict = run.metrics["judge"].outcome(index)
        assert outcome in expected.get(verdict, {"unscored"})
        assert reason.startswith(f"judge: openai:{llama_server.model}")


def test_a_judge_reply_that_is_not_a_verdict_stays_unscored(llama_server: Server, tmp_path: Path) -> None:
    with fault_proxy(llama_server.base_url, Faults(garbage="lorem ipsum")) as proxy:
        run = judged(tmp_path, proxy, llama_server.model)
    assert run.metrics["hard_fact"].outcome(0) is Outcome.PASS  # a matcher would have passed it
    found = outcomes(run)
    assert [outcome for outcome, _ in found] == ["unscored", "unscored"]
    assert all(reason.startswith("judge: ") and "lorem ipsum" in reason for _, reason in found)
    graded = with_outcomes(run)
    assert graded.summary.metrics[FACTUAL].combined.unscored == 2
    gate = check_run(graded, GateSettings.parse(["factual>=0.5"]))
    assert not gate.passed and gate.checks[0].outcome == "too many unscored"


pytestmark = pytest.mark.usefixtures("llama_server")
