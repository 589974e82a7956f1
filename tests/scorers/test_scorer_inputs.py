"""Scorers declare their inputs and return their evidence: the core resolves every declaration the same
way, refuses a missing one at load, and builds traces from evidence, for any scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run

from assay import InputError, MetricScores, ScoreOptions, Scorer, available_metrics, load_records, score
from assay.scorers import SCORERS, Evidence
from assay.scoring import check_inputs, row_inputs
from assay.trace import traces

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"


def echo(name: str, *inputs: str) -> Scorer:
    """A scorer passing the rows whose first declared input is truthy, without evidence of its own."""

    def score_rows(responses, answer_sets, *values):  # type: ignore[no-untyped-def]
        scores = MetricScores.all_failing(name, len(responses))
        for row, value in enumerate(values[0]):
            scores.outcomes[row] = bool(value)
        return scores

    return Scorer(
        name=name,
        description=f"{name} passes what its input says",
        view=str,
        score_rows=score_rows,
        inputs=inputs,
    )


def test_every_kind_of_declared_input_is_resolved(tmp_path: Path) -> None:
    path = tmp_path / "parts.jsonl"
    rows = [
        {
            "id": "a",
            "question": "q",
            "answer": "x",
            "response": "r",
            "flag": "yes",
            "scope": "in",
            "gold": {"quote": "the quote"},
            "reply": {"blocked": True},
        },
        {
            "id": "b",
            "question": "q",
            "answer": "x",
            "response": "r",
            "flag": "",
            "scope": "",
            "gold": {"page": 3},
            "reply": {"route": "rag"},
        },
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    dataset = load_records(path)
    for name, expected in [
        ("column:flag", [1, 0]),
        ("scope", [1, 0]),
        ("gold.quote", [1, 0]),
        ("reply.blocked", [1, 0]),
    ]:
        scorer = echo("probe", name)
        check_inputs(dataset, scorer, ScoreOptions())
        assert (
            list(scorer.score_rows(["r", "r"], [("x",), ("x",)], *_resolved(dataset, name)).outcomes)
            == expected
        )


def _resolved(dataset, name):  # type: ignore[no-untyped-def]
    return [row_inputs(dataset.records, name, ScoreOptions())]


@pytest.mark.parametrize(
    ("need", "message", "fix"),
    [
        (
            "column:weight",
            "probe needs each row's 'weight', and there is no column 'weight'",
            "add the column",
        ),
        ("gold.quote", "probe needs each row's gold quote, and there is no column 'quote'", "'gold' column"),
        (
            "reply.citations",
            "probe needs each row's reply citations, and there is no column 'reply'",
            "'reply'",
        ),
        (
            "scope",
            "probe needs each row's scope, and there is no column 'scope'",
            "add the column named 'scope'",
        ),
    ],
)
def test_a_missing_input_is_one_error_naming_the_metric_and_the_column(
    need: str, message: str, fix: str
) -> None:
    with pytest.raises(InputError) as caught:
        check_inputs(load_records(EXAMPLE), echo("probe", need), ScoreOptions())
    assert message in caught.value.message
    assert fix in caught.value.fix


def test_which_metrics_a_file_can_run_follows_from_the_declarations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dataset = load_records(EXAMPLE)  # a lang column, no expected_regex
    found = available_metrics(dataset, ScoreOptions())
    assert "hard_fact" not in found and "exact_substring" in found
    assert "mlqa_em" not in found  # one --metric away, like squad_em, though the file has its lang column
    monkeypatch.setitem(SCORERS._added, "needs_flag", echo("needs_flag", "column:flag"))
    monkeypatch.setitem(SCORERS._added, "needs_lang", echo("needs_lang", "lang"))
    found = available_metrics(dataset, ScoreOptions())
    assert "needs_flag" not in found and "needs_lang" in found


def test_hard_fact_reads_its_pattern_from_the_gold_object_too(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    rows = [
        {
            "question": "q",
            "answer": "a",
            "response": "paid in 30 days",
            "gold": {"expected_regex": r"30\s+days"},
        },
        {
            "question": "q",
            "answer": "a",
            "response": "paid in 40 days",
            "gold": {"expected_regex": r"30\s+days"},
        },
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run_ = score(path, ["hard_fact"])
    assert list(run_.metrics["hard_fact"].outcomes) == [1, 0]
    assert "hard_fact" in available_metrics(run_.dataset, ScoreOptions())


def test_evidence_when_asked_is_the_trace_and_costs_nothing_otherwise() -> None:
    plain = score(EXAMPLE)
    assert all(scores.evidence is None for scores in plain.metrics.values())
    asked = score(EXAMPLE, evidence=True, options=ScoreOptions(inflection=True))
    again = score(EXAMPLE, options=ScoreOptions(inflection=True))
    for scores in asked.metrics.values():
        assert scores.evidence is not None and len(scores.evidence) == len(asked.records)
        assert all(isinstance(found, Evidence) for found in scores.evidence)
    for index in range(len(asked.records)):
        assert traces(asked, index) == traces(again, index)


def test_a_hard_fact_trace_shows_the_pattern_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "facts.csv"
    path.write_text(
        "question,answer,response,expected_regex\nq,a,paid in 30 days,30\\s+days\n", encoding="utf-8"
    )
    code, _, err = run(
        ["score", "--responses", str(path), "--metric", "hard_fact", "--trace", str(tmp_path / "t.jsonl")],
        capsys,
    )
    assert code == 0, err
    written = json.loads((tmp_path / "t.jsonl").read_text(encoding="utf-8"))
    rule = "expected 'a' (golden answer); matched '30 days' at 8-15 (pattern '30\\s+days')"
    assert written["traces"]["hard_fact"]["rule"] == rule


def test_a_scorer_registered_alone_runs_everywhere_and_gets_a_generic_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SCORERS._added, "probe", echo("probe", "column:flag"))  # one registration
    frame = pd.DataFrame(
        {"question": ["q", "q"], "answer": ["x", "y"], "response": ["r", "s"], "flag": [1, 0]}
    )
    found = traces(score(frame, ["probe"]), 1)["probe"]
    assert (found.outcome, found.golden, found.span) == ("fail", "y", None)
    assert "probe passes what its input says" in found.rule
    from assay.report.rows import write_verdicts

    write_verdicts(score(frame, ["probe"]), tmp_path / "x.csv")  # used to be a KeyError in trace.py
    assert "probe" in (tmp_path / "x.csv").read_text(encoding="utf-8").splitlines()[0]
