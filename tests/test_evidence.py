"""Evidence comes from the call that decides: with evidence asked for, each row's verdict and its
evidence are one scorer call's result (hard_fact searches each row once), and the verdicts are those
of the fast path without evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run

from assay import score
from assay.records import load_records
from assay.scorers import hard_fact
from assay.scoring import ScoreOptions
from assay.trace import explain, traces

FACTS = pd.DataFrame(
    {
        "id": ["hit", "miss", "blank", "none", "hindi"],
        "question": ["How long?"] * 5,
        "answer": ["30 days", "30 days", "30 days", "30 days", "1947"],
        "response": ["Refunds within 30 DAYS.", "No idea.", "  ", "Thirty days.", "भारत १९४७ में"],
        "expected_regex": [r"30 days", r"30 days", r"30 days", None, r"1947"],
    }
)
SEARCHED = 4  # the rows with a pattern (the blank one too, which the core then fails); not the patternless


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts hard_fact's search is run on, in order (the real search runs: this only counts)."""
    searched: list[str] = []
    real = hard_fact.search

    def counted(compiled: object, text: str) -> object:
        searched.append(text)
        return real(compiled, text)  # type: ignore[arg-type]

    monkeypatch.setattr(hard_fact, "search", counted)
    return searched


def test_hard_fact_decides_and_explains_each_row_with_one_search(searches: list[str]) -> None:
    run = score(FACTS, ["hard_fact"], evidence=True)
    assert len(searches) == SEARCHED  # one search a row: the verdict's, which the evidence reads
    found = [traces(run, index)["hard_fact"] for index in range(len(FACTS))]
    assert len(searches) == SEARCHED  # traces read the evidence kept with the verdicts
    assert [t.outcome for t in found] == ["pass", "fail", "fail", "unscored", "pass"]
    assert found[0].rule.startswith("expected '30 days' (golden answer); matched '30 DAYS' at 15-22")
    assert found[0].span == (15, 22)
    assert found[4].span == (5, 9)  # the Devanagari digits the match stands for, in the original


def test_a_stored_verdict_without_its_evidence_is_explained_by_searching_again(searches: list[str]) -> None:
    run = score(FACTS, ["hard_fact"])  # the fast path: no evidence kept
    assert len(searches) == SEARCHED
    traces(run, 0)
    assert len(searches) == SEARCHED + 1  # the one case left: a verdict decided without its evidence


def test_explain_scores_its_row_with_its_evidence_in_one_search(searches: list[str]) -> None:
    _, found = explain(load_records(FACTS), "hit", ["hard_fact"])
    assert searches == ["refunds within 30 days."]
    assert found["hard_fact"].span == (15, 22)


def test_cli_trace_searches_each_row_once(
    searches: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, written = tmp_path / "facts.csv", tmp_path / "traces.jsonl"
    FACTS.to_csv(data, index=False)
    argv = ["score", "--responses", str(data), "--metric", "hard_fact", "--trace", str(written)]
    argv += ["--out", str(tmp_path / "out.csv"), "--trace-col", "--workers", "1"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert len(searches) == SEARCHED  # --out, its trace column and --trace: no second search
    lines = [json.loads(line) for line in written.read_text(encoding="utf-8").splitlines()]
    assert [line["traces"]["hard_fact"]["outcome"] for line in lines] == [
        "pass",
        "fail",
        "fail",
        "unscored",
        "pass",
    ]


@pytest.mark.parametrize(
    "metrics",
    [
        ["exact_substring", "word_overlap", "phrase_match", "hard_fact"],
        ["token_f1", "token_em", "squad_em", "squad_f1"],
    ],
)
@pytest.mark.parametrize("inflection", [False, True])
def test_verdicts_decided_with_their_evidence_are_the_fast_paths(
    metrics: list[str], inflection: bool
) -> None:
    options = ScoreOptions(inflection=inflection)
    fast, together = (
        score(FACTS, metrics, options=options),
        score(FACTS, metrics, options=options, evidence=True),
    )
    assert together.blank == fast.blank
    for name, scores in fast.metrics.items():
        decided = together.metrics[name]
        assert (decided.outcomes, decided.answer_index, decided.reasons) == (
            scores.outcomes,
            scores.answer_index,
            scores.reasons,
        )
        assert (decided.values, decided.extras) == (scores.values, scores.extras)
        assert decided.evidence is not None and len(decided.evidence) == len(FACTS)
    assert together.summary == fast.summary


VALUES = pd.DataFrame(
    {
        "id": list("abcdef"),
        "question": ["How long?", "What is the fee?", "When?", "Is it covered?", "How much?", "How long?"],
        "answers": [
            ["30 days", "a month"],
            ["$5"],
            ["2024-01-05", "5 January 2024"],
            ["Yes"],
            ["10%", "ten percent"],
            ["Thirty days"],
        ],
        "response": [
            "Refunds within 30 days.",
            "The fee is $6.",
            "It starts on 5 Jan 2024.",
            "No, it is not covered.",
            "It is about 10 percent.",
            "",
        ],
    }
)


@pytest.mark.parametrize(
    "metric", ["value_match", "exact_substring", "word_overlap", "phrase_match", "squad_f1"]
)
def test_evidence_of_the_deciding_call_says_what_a_stored_verdict_explained_says(metric: str) -> None:
    stored, decided = score(VALUES, [metric]), score(VALUES, [metric], evidence=True)
    assert stored.metrics[metric].evidence is None
    assert [traces(decided, i) for i in range(len(VALUES))] == [traces(stored, i) for i in range(len(VALUES))]
