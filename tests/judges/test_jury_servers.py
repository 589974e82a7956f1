"""A jury of two real llama.cpp servers of two model families (SmolLM2 and Gemma 3 270M), each behind a
recording proxy (tests/support/fault_proxy.py) so that every request is counted. The models are far too
small to judge well: these tests check what holds whatever they say (a vote per judge or a recorded
failure on every row, the jury's verdict is its rule on those votes, each judge's cost, the cache per
judge), never whether a verdict is right."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from fault_proxy import Faults, fault_proxy

from assay import Outcome, ScoreRun, load_records, score
from assay.judges.accounting import JudgeSummary, judge_summary
from assay.judges.jury import JURY_RULES, Vote, decide
from assay.judges.metric import VOTES_COLUMN, JudgeSetup, with_judge
from assay.judges.run import JudgeOptions
from assay.judges.spec import parse_spec
from assay.stats import fleiss_kappa, krippendorff_alpha_nominal
from conftest import Server

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
ROWS = 4  # two cores: few rows, short replies
MAX_TOKENS = 48


@dataclass
class Juror:
    """A judge on a real server, behind a proxy that counts what it is asked."""

    server: Server
    proxy: str
    faults: Faults

    @property
    def spec(self) -> str:
        return f"openai:{self.server.model}@{self.proxy},max_tokens={MAX_TOKENS},retries=0"

    @property
    def label(self) -> str:
        return parse_spec(self.spec).label

    def chats(self) -> int:
        """Chat completions asked so far (the preflight's GETs aside)."""
        return sum(str(r["path"]).endswith("/chat/completions") for r in self.faults.requests)


@dataclass
class Juried:
    smollm: Juror
    gemma: Juror
    smollm_again: Juror  # the SmolLM2 server again, behind a proxy of its own: a third judge, same family
    cache: Path
    first: ScoreRun
    asked_first: dict[str, int]  # chat requests per judge label, in the first run
    again: ScoreRun  # the same jury, the same cache
    asked_again: dict[str, int]
    third: ScoreRun  # the jury and a third judge, the same cache
    asked_third: dict[str, int]


def juried(jurors: list[Juror], cache: Path, rule: str = "majority", rows: int = ROWS) -> ScoreRun:
    setup = JudgeSetup(tuple(parse_spec(j.spec) for j in jurors), JudgeOptions(cache_path=cache), jury=rule)
    return score(load_records(EXAMPLE, limit=rows), with_judge(["judge"], setup))


def counted(jurors: list[Juror], before: dict[str, int]) -> dict[str, int]:
    return {j.label: j.chats() - before.get(j.label, 0) for j in jurors}


@pytest.fixture(scope="module")
def jury_run(
    llama_server: Server, gemma_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Juried]:
    """The jury of SmolLM2 and Gemma judging ROWS rows, then again from the cache, then with a third
    judge added: three runs, each judge's requests counted."""
    cache = tmp_path_factory.mktemp("jury") / "cache.sqlite"
    with ExitStack() as stack:
        jurors = []
        for server in (llama_server, gemma_server, llama_server):
            faults = Faults()
            jurors.append(Juror(server, stack.enter_context(fault_proxy(server.base_url, faults)), faults))
        pair = jurors[:2]
        first = juried(pair, cache)
        asked_first = counted(jurors, {})
        before = {j.label: j.chats() for j in jurors}
        again = juried(pair, cache)
        asked_again = counted(jurors, before)
        before = {j.label: j.chats() for j in jurors}
        third = juried(jurors, cache)
        asked_third = counted(jurors, before)
        yield Juried(*jurors, cache, first, asked_first, again, asked_again, third, asked_third)


def votes_of(run: ScoreRun) -> list[list[Vote]]:
    """Each row's votes, as its judge_votes column holds them."""
    column = run.metrics["judge"].texts[VOTES_COLUMN]
    return [[Vote(label, **vote) for label, vote in json.loads(text).items()] for text in column]


def accounting(run: ScoreRun) -> JudgeSummary:
    found = judge_summary(run.summary)
    assert found is not None
    return found


def test_every_row_has_one_vote_per_judge_or_a_recorded_failure(jury_run: Juried) -> None:
    labels = [jury_run.smollm.label, jury_run.gemma.label]
    rows = votes_of(jury_run.first)
    assert len(rows) == ROWS
    for row in rows:
        assert [vote.judge for vote in row] == labels
        for vote in row:
            assert vote.verdict in ("CORRECT", "INCORRECT") or (vote.verdict is None and vote.reason)


def test_the_jurys_verdict_is_its_rule_applied_to_the_votes(jury_run: Juried) -> None:
    scores = jury_run.first.metrics["judge"]
    for index, row in enumerate(votes_of(jury_run.first)):
        outcome, reason = decide(JURY_RULES["majority"], row)
        assert Outcome(scores.outcomes[index]) is outcome
        assert scores.reasons.get(index) == reason
        assert scores.texts["judge_by"][index] == "jury (majority)"


def test_each_judge_is_asked_every_row_and_its_cost_reported(jury_run: Juried) -> None:
    usage = accounting(jury_run.first).usage
    for juror in (jury_run.smollm, jury_run.gemma):
        asked = jury_run.asked_first[juror.label]
        assert ROWS <= asked <= 2 * ROWS  # every row, and a retry where a reply was not a verdict
        assert usage[juror.label].calls == asked and usage[juror.label].cache_hits == 0
        assert usage[juror.label].prompt_tokens > 100 * ROWS and usage[juror.label].completion_tokens > 0
        assert usage[juror.label].models == {juror.server.model}
    assert jury_run.asked_first[jury_run.smollm_again.label] == 0


def test_the_split_rows_and_the_agreement_are_reported(jury_run: Juried) -> None:
    rows = votes_of(jury_run.first)
    jury = accounting(jury_run.first).as_dict()["jury"]
    split = [i for i, row in enumerate(rows) if len({v.verdict for v in row} - {None}) == 2]
    assert [found["row"] for found in jury["split"]] == split
    complete = [row for row in rows if all(v.verdict for v in row)]
    counts = [
        [sum(v.verdict == verdict for v in row) for verdict in ("CORRECT", "INCORRECT")] for row in complete
    ]
    assert jury["fleiss_kappa"] == fleiss_kappa(counts)
    assert jury["krippendorff_alpha"] == krippendorff_alpha_nominal(
        [[v.verdict for v in row] for row in rows]
    )
    assert jury["judges"] == [jury_run.smollm.label, jury_run.gemma.label]


def test_a_cached_rerun_sends_no_request_and_gives_the_same_verdicts(jury_run: Juried) -> None:
    assert set(jury_run.asked_again.values()) == {0}
    usage = accounting(jury_run.again).usage
    assert all(usage[label].calls == 0 for label in usage)
    assert all(usage[label].cache_hits >= ROWS for label in usage)
    assert jury_run.again.metrics["judge"].texts == jury_run.first.metrics["judge"].texts
    assert jury_run.again.metrics["judge"].outcomes == jury_run.first.metrics["judge"].outcomes


def test_a_third_judge_is_the_only_one_asked(jury_run: Juried) -> None:
    asked = jury_run.asked_third
    assert asked[jury_run.smollm.label] == 0 and asked[jury_run.gemma.label] == 0
    assert asked[jury_run.smollm_again.label] >= ROWS
    assert all(len(row) == 3 for row in votes_of(jury_run.third))
    # the first two judges' votes are the ones they gave before
    before = [row[:2] for row in votes_of(jury_run.first)]
    assert [row[:2] for row in votes_of(jury_run.third)] == before


def test_two_judges_of_one_family_are_warned_about(jury_run: Juried) -> None:
    warned = [w for w in accounting(jury_run.third).warnings if "of one model family" in w]
    assert warned == [
        f"the jury's judges {jury_run.smollm.label}, {jury_run.smollm_again.label} are of one model family, "
        "smollm: they share their biases, and their agreement says less; give judges of different families"
    ]
    assert not any("model family" in w for w in accounting(jury_run.first).warnings)


def test_a_judge_that_fails_has_no_vote_and_no_verdict_is_made_up(jury_run: Juried, tmp_path: Path) -> None:
    failing = Faults(status=500)  # every chat completion: HTTP 500, and retries=0
    with fault_proxy(jury_run.gemma.server.base_url, failing) as proxy:
        broken = Juror(jury_run.gemma.server, proxy, failing)
        for rule in JURY_RULES:  # SmolLM2's replies are in the cache: only the failing judge is asked
            run = juried([jury_run.smollm, broken], jury_run.cache, rule)
            scores = run.metrics["judge"]
            for index, (kept, missing) in enumerate(votes_of(run)):
                assert kept == votes_of(jury_run.first)[index][0]
                assert missing.verdict is None and "unavailable" in str(missing.reason)
                assert Outcome(scores.outcomes[index]) is decide(JURY_RULES[rule], [kept, missing])[0]
            assert accounting(run).usage[broken.label].failures == ROWS
    assert jury_run.smollm.chats() == jury_run.asked_first[jury_run.smollm.label]  # never asked again


def test_the_cli_runs_the_jury_and_warns_on_stderr(
    jury_run: Juried, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_run import run

    specs = [arg for j in (jury_run.smollm, jury_run.smollm_again) for arg in ("--judge", j.spec)]
    out_json = jury_run.cache.parent / "summary.json"
    argv = ["score", "--responses", str(EXAMPLE), "--limit", str(ROWS), "--metric", "judge", *specs]
    code, out, err = run([*argv, "--jury", "--cache", str(jury_run.cache), "--json", str(out_json)], capsys)
    assert code == 0, err
    assert "assay: warning: the jury's judges" in err and "one model family, smollm" in err
    assert "jury (majority: " in out and "Fleiss' kappa" in out and "Krippendorff's alpha" in out
    assert json.loads(out_json.read_text(encoding="utf-8"))["judge"]["jury"]["rule"] == "majority"
