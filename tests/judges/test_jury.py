"""The jury's rules, its summary and its checks, on votes written by hand (the jury against real servers
is tests/judges/test_jury_servers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import Outcome
from assay.errors import UsageError
from assay.judges.jury import (
    JURY_RULES,
    JuryRow,
    Member,
    Vote,
    decide,
    family_warnings,
    jury_rule,
    jury_summary,
)
from assay.judges.metric import JudgeSetup
from assay.judges.spec import family_is_known, model_family, parse_spec

C, W, N = "CORRECT", "INCORRECT", None  # a vote: CORRECT, wrong (INCORRECT), or none
PASS, FAIL, UNSCORED = Outcome.PASS, Outcome.FAIL, Outcome.UNSCORED


def votes(*verdicts: str | None) -> list[Vote]:
    return [
        Vote(f"judge{i}", verdict, reason=None if verdict else "unavailable: HTTP 500")
        for i, verdict in enumerate(verdicts)
    ]


@pytest.mark.parametrize(
    ("rule", "cast", "outcome"),
    [
        ("majority", (C, C), PASS),
        ("majority", (C, W), UNSCORED),  # a tie: no majority, never a pass
        ("majority", (C, N), UNSCORED),  # one of two is not more than half of the jury
        ("majority", (C, C, W), PASS),
        ("majority", (W, W, C), FAIL),
        ("majority", (C, C, N), PASS),  # 2 of 3: a majority of the whole jury, the missing vote aside
        ("majority", (C, W, N), UNSCORED),
        ("majority", (C, C, W, W), UNSCORED),
        ("majority", (N, N), UNSCORED),
        ("unanimous", (C, C, C), PASS),
        ("unanimous", (C, C, W), FAIL),
        ("unanimous", (C, N), UNSCORED),  # every vote cast is CORRECT, but one is missing
        ("unanimous", (W, N), FAIL),  # one INCORRECT decides, whatever the missing vote
        ("unanimous", (N, N), UNSCORED),
        ("consensus", (C, C), PASS),
        ("consensus", (W, W), FAIL),
        ("consensus", (C, W), UNSCORED),
        ("consensus", (W, N), UNSCORED),
    ],
)
def test_each_rule_decides_on_the_votes_it_has(
    rule: str, cast: tuple[str | None, ...], outcome: Outcome
) -> None:
    found, reason = decide(JURY_RULES[rule], votes(*cast))
    assert found is outcome
    assert (reason is None) == (outcome is not UNSCORED)


def test_an_undecided_row_says_the_count_and_why_votes_are_missing() -> None:
    _, reason = decide(JURY_RULES["majority"], votes(C, N))
    assert reason == (
        "the jury (majority) did not decide: 1 CORRECT, 0 INCORRECT, 1 without a vote "
        "(judge1: unavailable: HTTP 500)"
    )


@pytest.mark.parametrize("name", ["sometimes", "", "majority-ish"])
def test_an_unknown_rule_is_a_usage_error_naming_the_rules(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        jury_rule(name)
    assert "unknown jury rule" in caught.value.what
    assert all(rule in (caught.value.fix or "") for rule in JURY_RULES)


def test_a_jury_of_one_or_with_one_judge_twice_is_a_usage_error() -> None:
    one = parse_spec("openai:a@http://127.0.0.1:9/v1")
    with pytest.raises(UsageError, match="a jury needs two judges or more, and the chain has 1"):
        JudgeSetup((one,), jury="majority")
    with pytest.raises(UsageError, match=r"names the judge openai:a@127\.0\.0\.1:9 twice"):
        JudgeSetup((one, parse_spec("openai:a@http://127.0.0.1:9/v1,seed=3")), jury="majority")
    with pytest.raises(UsageError, match="unknown jury rule 'most'"):
        JudgeSetup((one, parse_spec("openai:b@http://127.0.0.1:9/v1")), jury="most")


def test_the_jury_is_in_the_signature_and_a_chain_signs_as_before() -> None:
    chain = (parse_spec("openai:a@http://127.0.0.1:9/v1"), parse_spec("openai:b@http://127.0.0.1:9/v1"))
    assert not any(part.startswith("jury:") for part in JudgeSetup(chain).signature_parts())
    assert "jury:unanimous" in JudgeSetup(chain, jury="unanimous").signature_parts()


@pytest.mark.parametrize(
    ("model", "family", "known"),
    [
        ("/models/SmolLM2-135M-Instruct.Q4_1.gguf", "smollm", True),
        ("/cache/gemma-3-270m-q4_k_m.gguf", "gemma", True),
        ("Mistral-7B-Instruct-v0.3", "mistral", True),
        ("o3-mini", "gpt", True),
        ("/models/Zephyr-7b-beta.gguf", "zephyr", False),  # not a known family: its name's leading letters
    ],
)
def test_a_models_family_and_whether_it_is_known(model: str, family: str, known: bool) -> None:
    assert (model_family(model), family_is_known(model)) == (family, known)


def test_judges_of_one_family_are_warned_about_and_an_unknown_family_is_said() -> None:
    members = [Member("a", "smollm", True), Member("b", "gemma", True), Member("c", "smollm", True)]
    found = family_warnings(members)
    assert len(found) == 1 and "the jury's judges a, c are of one model family, smollm" in found[0]
    assert family_warnings(members[:2]) == []
    unknown = family_warnings([Member("a", "zephyr", False), Member("b", "gemma", True)])
    assert unknown == [
        "the model family of the jury's judge a is unknown (read as its name's leading letters, 'zephyr'): "
        "a judge of the same family under another name would not be noticed"
    ]


def test_the_summary_counts_votes_finds_splits_and_measures_agreement() -> None:
    rows = [
        JuryRow(0, "q0", votes(C, C)),
        JuryRow(1, "q1", votes(C, W)),
        JuryRow(2, "q2", votes(W, W)),
        JuryRow(3, "q3", votes(W, N)),  # not every vote: out of Fleiss' kappa, and unpaired in alpha
    ]
    found = jury_summary(JURY_RULES["majority"], ["judge0", "judge1"], rows)
    assert found["split"] == [{"row": 1, "id": "q1", "votes": {"judge0": C, "judge1": W}}]
    assert found["votes"] == {
        "judge0": {C: 2, W: 2, "missing": 0},
        "judge1": {C: 1, W: 2, "missing": 1},
    }
    assert (found["rows"], found["rows_every_judge_voted"]) == (4, 3)
    # by hand, over q0-q2: P-bar = (1 + 0 + 1) / 3, p = (1/2, 1/2), P-bar_e = 1/2: kappa = 1/3
    assert found["fleiss_kappa"] == pytest.approx(1 / 3)
    # by hand: n = 6 pairable values (3 C, 3 W), 2 disagreeing coincidences: 1 - 5 * 2 / (2 * 3 * 3) = 4/9
    assert found["krippendorff_alpha"] == pytest.approx(4 / 9)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--judge", "openai:a@http://127.0.0.1:9/v1", "--jury"], "a jury needs two judges or more"),
        (
            [
                "--judge",
                "openai:a@http://127.0.0.1:9/v1",
                "--judge",
                "openai:b@http://127.0.0.1:9/v1",
                "--jury",
                "most",
            ],
            "unknown jury rule 'most'",
        ),
    ],
)
def test_the_cli_refuses_a_bad_jury_before_any_work(
    good: Path, flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_run import run

    code, _, err = run(["score", "--responses", str(good), "--metric", "judge", "--no-cache", *flags], capsys)
    assert code == 2 and said in err and "--jury" in err


def test_the_jury_flag_needs_the_judge_metric(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli_run import run

    code, _, err = run(["score", "--responses", str(good), "--jury"], capsys)
    assert code == 2 and "--jury only apply to the judge metric" in err


def test_a_config_file_names_its_jury(tmp_path: Path) -> None:
    from assay.judges.spec import load_config

    config = tmp_path / "assay.toml"
    config.write_text('[judge]\njury = "consensus"\n', encoding="utf-8")
    assert load_config(config) == ([], {"jury": "consensus"})
    config.write_text("[judge]\njury = 2\n", encoding="utf-8")
    with pytest.raises(UsageError, match="jury = 2 is not str"):
        load_config(config)
