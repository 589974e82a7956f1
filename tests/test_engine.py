"""The engine: one kind of metric. Run scorers (``Scorer.score_run``) read the verdicts they `need`, scored
first in the same run; async ones are awaited; the summary is built once and carries what they report of
the run (``MetricScores.details``); and the core names no metric of a higher layer."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from assay import load_records, score
from assay.errors import UsageError
from assay.metric import MetricScores, Outcome, RunView, Scorer
from assay.scorer_registry import SCORERS, declared, default_pair, plan

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"
# The core modules of the engine and what it reads of scorers: none may name the LLM judge, nor import a
# scorer or a judge (they find scorers through the registry).
CORE = [
    "metric.py",
    "scorer_registry.py",
    "scorer_inputs.py",
    "scoring.py",
    "summary.py",
    "comparison.py",
    "agreement.py",
    "trace.py",
    "parallel.py",
    "scorers/__init__.py",
    "scorers/_base.py",
]
ROWS = "id,question,answer,response\na,q,Delhi,It is Delhi\nb,q,Agra,Paris\nc,q,Agra,\n"


def _rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text(ROWS, encoding="utf-8")
    return path


def _copy_of(metric: str, name: str, *, invert: bool = False) -> Scorer:
    """A run scorer giving `metric`'s verdicts (inverted: pass <-> fail), with how many rows it saw."""

    def copy(view: RunView) -> MetricScores:
        found = view.metrics[metric]
        scores = MetricScores.all_failing(name, len(view.records))
        for row, outcome in enumerate(found.outcomes):
            passed = outcome == Outcome.PASS
            scores.outcomes[row] = Outcome.PASS if passed != invert else Outcome.FAIL
        scores.details = {"rows": len(view.records), "saw": sorted(view.metrics)}
        return scores

    return Scorer(name, f"{metric}'s verdicts", score_run=copy, needs=(metric,), default=False)


def _async_copy(metric: str, name: str) -> Scorer:
    plain = _copy_of(metric, name)
    assert plain.score_run is not None
    run = plain.score_run

    async def copy(view: RunView) -> MetricScores:
        await asyncio.sleep(0)
        return run(view)  # type: ignore[return-value]

    return Scorer(name, "awaited", score_run=copy, needs=(metric,), default=False)


def test_a_run_scorer_reads_the_verdicts_it_needs_scored_first_in_the_same_run(tmp_path: Path) -> None:
    run = score(load_records(_rows(tmp_path)), [_copy_of("exact_substring", "copied")])
    assert list(run.metrics) == ["exact_substring", "copied"]  # the need added, before its reader
    assert bytes(run.metrics["copied"].outcomes) == bytes(run.metrics["exact_substring"].outcomes)
    assert run.summary.details["copied"] == {"rows": 3, "saw": ["exact_substring"]}
    assert run.summary.metrics["copied"].combined == run.summary.metrics["exact_substring"].combined


@pytest.mark.parametrize("make", [_copy_of, _async_copy], ids=["sync", "async"])
def test_run_scorers_in_a_chain_are_scored_in_the_order_of_their_needs(tmp_path: Path, make: object) -> None:
    first = make("word_overlap", "first")  # type: ignore[operator]
    second = _copy_of("first", "second", invert=True)
    run = score(load_records(_rows(tmp_path)), [second, first])  # named in the wrong order
    assert list(run.metrics) == ["word_overlap", "first", "second"]
    passed = [row for row, o in enumerate(run.metrics["second"].outcomes) if o == Outcome.PASS]
    assert passed == [1]  # the inverse of word_overlap; the blank row c stays failed by the core
    assert run.summary.blank == 1


def test_an_optional_need_is_read_when_it_runs_and_not_added_otherwise(tmp_path: Path) -> None:
    def saw(view: RunView) -> MetricScores:
        scores = MetricScores.all_failing("reader", len(view.records))
        scores.details = sorted(view.metrics)
        return scores

    reader = Scorer("reader", "reads what ran", score_run=saw, needs=("phrase_match?", "token_f1?"))
    alone = score(load_records(_rows(tmp_path)), [reader, "phrase_match"])
    assert list(alone.metrics) == ["phrase_match", "reader"] and alone.summary.details["reader"] == [
        "phrase_match"
    ]


@pytest.mark.parametrize(
    ("needs", "message"),
    [
        ((("a", ("b",)), ("b", ("a",))), "the metrics' needs make a cycle: a -> b -> a"),
        ((("a", ("a",)),), "a cycle: a -> a"),
        (
            (("a", ("no_such_metric",)),),
            "the metric 'a' needs the metric 'no_such_metric', which no registry",
        ),
    ],
    ids=["two", "itself", "unknown"],
)
def test_a_cycle_or_an_unknown_need_is_a_usage_error_before_any_work(
    needs: Sequence[tuple[str, tuple[str, ...]]], message: str
) -> None:
    def never(view: RunView) -> MetricScores:
        raise AssertionError("scored")

    scorers = [Scorer(name, "x", score_run=never, needs=need) for name, need in needs]
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan(scorers)


@pytest.mark.parametrize("both", [True, False], ids=["both", "neither"])
def test_a_scorer_is_a_row_scorer_or_a_run_scorer(both: bool) -> None:
    def rows(responses: Sequence[str], answers: Sequence[tuple[str, ...]]) -> MetricScores:
        return MetricScores.all_failing("x", len(responses))

    def run(view: RunView) -> MetricScores:
        return MetricScores.all_failing("x", len(view.records))

    with pytest.raises(UsageError, match="score_rows and score_run"):
        Scorer("x", "x", score_rows=rows if both else None, score_run=run if both else None)


def test_a_run_scorer_giving_the_wrong_number_of_verdicts_is_named(tmp_path: Path) -> None:
    short = Scorer("short", "x", score_run=lambda view: MetricScores.all_failing("short", 1))
    with pytest.raises(UsageError, match="the metric 'short' gave 1 verdicts for 3 rows"):
        score(load_records(_rows(tmp_path)), [short])


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("review", ("exact_substring", "word_overlap", "phrase_match")),
        ("cascade", ("exact_substring", "word_overlap", "phrase_match")),
    ],
)
def test_which_metrics_feed_the_review_and_the_cascade_is_declared_by_the_scorers(
    flag: str, expected: tuple[str, ...]
) -> None:
    assert declared(flag) == expected
    assert default_pair() == ("exact_substring", "word_overlap")


@pytest.mark.parametrize("module", CORE)
def test_the_core_names_no_judge_and_imports_no_scorer(module: str) -> None:
    source = (SRC / module).read_text(encoding="utf-8")
    assert "judge" not in source.lower()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and module.count("/") == 0:
            target = "." * node.level + (node.module or "")
            assert not target.startswith((".scorers", ".judges", "assay.scorers", "assay.judges")), target


def test_the_registry_finds_every_built_in_scorer_by_its_name() -> None:
    assert all(SCORERS[name].name == name for name in SCORERS.built_in_names())
