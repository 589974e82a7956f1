"""Real data: 2,896 Natural Questions answers with several golden answers per row and repeated ids.

The file lives in the shared data folder beside the repository (../shared/data/nq_human). Without it these
tests skip, except in CI (CI=true), where a missing data folder is a failure, not a quiet pass.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from assay import Dataset, InputError, Outcome, ScoreRun, load_records, score, summary_dict
from assay.cli import main

NQ_HUMAN = Path(__file__).resolve().parents[2] / "shared" / "data" / "nq_human" / "nq_human_even.jsonl"
ROWS = 2896


@pytest.fixture(scope="module")
def nq_path() -> Path:
    if not NQ_HUMAN.is_file():
        reason = f"shared data file not found: {NQ_HUMAN} (the repository's ../shared/data folder)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI=true, so missing data is an error")
        pytest.skip(reason)
    return NQ_HUMAN


@pytest.fixture(scope="module")
def dataset(nq_path: Path) -> Dataset:
    return load_records(nq_path, allow_duplicate_ids=True)


@pytest.fixture(scope="module")
def run(dataset: Dataset) -> ScoreRun:
    return score(dataset)


def test_duplicate_ids_stop_loading_unless_allowed(nq_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_records(nq_path)
    assert caught.value.message.startswith(f"{nq_path} line 5: duplicate id 'nq0-def_0' (first at line 1)")


def test_every_row_loads(dataset: Dataset) -> None:
    assert len(dataset) == ROWS
    assert [r.row for r in dataset.records] == list(range(1, ROWS + 1))
    assert dataset.columns == ("id", "question", "answers", "response", "human_label")
    assert dataset.null_cells == {}


def test_rows_carry_several_golden_answers(dataset: Dataset) -> None:
    first = dataset.records[0]
    assert (first.id, first.answers, first.response) == (
        "nq0-def_0",
        ("6 geese a-laying", "maids a-milking"),
        "six geese a-laying",
    )
    assert max(len(r.answers) for r in dataset.records) > 2
    assert all(r.answers and all(isinstance(a, str) for a in r.answers) for r in dataset.records)


def test_extra_column_is_kept_in_meta(dataset: Dataset) -> None:
    labels = {r.meta["human_label"] for r in dataset.records}
    assert labels == {"correct", "possibly_correct", "incorrect"}


def test_no_domain_column_means_one_empty_domain(dataset: Dataset, run: ScoreRun) -> None:
    assert {r.domain for r in dataset.records} == {""}
    for metric in run.summary.metrics.values():
        assert list(metric.domains) == [""]
    assert run.summary.agreement is not None and list(run.summary.agreement.domains) == [""]


@pytest.mark.parametrize("metric", ["exact_substring", "word_overlap"])
def test_counts_add_up(run: ScoreRun, metric: str) -> None:
    combined = summary_dict(run.summary)["metrics"][metric]["combined"]
    assert combined["n"] == ROWS
    assert combined["passed"] + combined["failed"] + combined["unscored"] == ROWS
    assert 0 < combined["passed"] < ROWS


def test_agreement_buckets_add_up(run: ScoreRun) -> None:
    agreement = summary_dict(run.summary)["agreement"]
    assert sum(agreement["overall"].values()) == ROWS
    assert sum(agreement["domains"][""].values()) == ROWS
    assert len(agreement["review_ids"]) == agreement["overall"]["overlap_only"]


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def _words(text: str) -> set[str]:
    """The seed's word set, punctuation meaning Unicode category P, written out the slow, obvious way."""
    words = set()
    for word in text.lower().split():
        while word and _is_punctuation(word[0]):
            word = word[1:]
        while word and _is_punctuation(word[-1]):
            word = word[:-1]
        if word:
            words.add(word)
    return words


@pytest.mark.parametrize(
    ("metric", "passes"),
    [
        ("exact_substring", lambda answer, response: answer.lower() in response.lower()),
        ("word_overlap", lambda answer, response: _words(answer) <= _words(response)),
    ],
    ids=["exact_substring", "word_overlap"],
)
def test_verdicts_follow_the_one_line_definitions(
    run: ScoreRun, metric: str, passes: Callable[[str, str], bool]
) -> None:
    # A row passes when any of its golden answers passes (the rule for several answers).
    expected = [any(passes(a, r.response) for a in r.answers) for r in run.records]
    actual = [outcome == Outcome.PASS for outcome in run.metrics[metric].outcomes]
    assert actual == expected


def test_cli_scores_the_file_with_allow_duplicate_ids(
    nq_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.jsonl"
    assert main(["score", "--responses", str(nq_path), "--allow-duplicate-ids", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == ROWS
    assert rows[0]["answers"] == ["6 geese a-laying", "maids a-milking"]
    assert f"{ROWS} rows" in capsys.readouterr().out.splitlines()[0]


def test_cli_without_allow_duplicate_ids_exits_2(nq_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--responses", str(nq_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"assay: error: {nq_path} line 5: duplicate id 'nq0-def_0'")
    assert "--allow-duplicate-ids" in err
