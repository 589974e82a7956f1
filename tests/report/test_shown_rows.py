"""The rows a report shows (``report.shown``): every row of a small run; of a large one, the rows to
review and each metric's first rows of each verdict and each agreement bucket, a bounded number. Their
traces are computed for them alone, once, and what the page and the Markdown report say of each shown
row is what they said when every row's trace was computed from the calls that decided it."""

from __future__ import annotations

import dataclasses
import json
import re
from array import array
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_html_scale import bench_html

import assay
import assay.report.rows
from assay.metric import Evidence, MetricScores, Outcome
from assay.parallel import score_file
from assay.report import shown as shown_module
from assay.report.html import LISTED_IDS, render_html
from assay.report.markdown import render_markdown
from assay.report.model import build_report, is_miss
from assay.report.rows import verdict_rows
from assay.report.shown import FIRST_OF_EACH, SHOWN_ROWS, scores_of_rows, shown_rows
from assay.scoring import ScoreRun, score

EXAMPLE = bench_html.EXAMPLE
ROWS = 3 * SHOWN_ROWS  # the example's 56 rows in turn, with fresh ids


def repeated(path: Path, rows: int = ROWS) -> Path:
    """The bench's file of the example's rows in turn (bench/bench_html.py writes the same one)."""
    return bench_html.write_rows(path, rows)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> ScoreRun:
    return score(assay.load_records(repeated(tmp_path_factory.mktemp("rows") / "rows.csv")))


def page_rows(html: str) -> dict[str, list[Any]]:
    """The table's rows as the page holds them (its JSON), by id, each trace's rule as its text."""
    found = re.search(r'<template id="assay-rows">(.*?)</template>', html, re.S)
    assert found is not None
    data = json.loads(found[1])
    rows = {}
    for row in data["rows"]:
        traces = [
            trace if not trace else [trace[0], data["strings"][trace[1]], *trace[2:]] for trace in row[8]
        ]
        rows[row[0]] = [*row[:8], traces]
    return rows


def test_a_run_of_up_to_shown_rows_rows_shows_every_row() -> None:
    run = score(assay.load_records(EXAMPLE))
    report = build_report(run)
    assert [row.id for row in report.rows] == [record.id for record in run.records]
    assert "note selection" not in render_html(report)


def test_a_large_run_shows_its_review_rows_and_the_first_rows_of_each_verdict_and_bucket(
    large: ScoreRun,
) -> None:
    shown = shown_rows(large)
    assert shown == sorted(set(shown))  # in input order, each once
    assert large.summary.agreement is not None
    groups = len(large.metrics) * len(Outcome) + len(large.summary.agreement.buckets)
    assert SHOWN_ROWS <= len(shown) < SHOWN_ROWS + groups + 12  # a round of each group, the review rows
    ids = {large.records[index].id for index in shown}
    assert large.summary.review is not None and large.summary.review.rows
    assert {row.id for row in large.summary.review.rows} <= ids
    kept = set(shown)
    groups_rows = [
        [index for index, found in enumerate(scores.outcomes) if found == code]
        for scores in large.metrics.values()
        for code in Outcome
    ]
    buckets = [row["agreement"] for row in verdict_rows(large, trace=False)]  # and the agreement pair's
    groups_rows += [
        [index for index, found in enumerate(buckets) if found == bucket] for bucket in set(buckets)
    ]

    def prefix(rows: list[int]) -> int:  # how many of a verdict's first rows are all shown
        return next((at for at, index in enumerate(rows) if index not in kept), len(rows))

    # as many of each: the shown rows are the rows to review and every verdict's first k rows, for one k
    # (at least FIRST_OF_EACH), whichever verdict a row was taken for
    k = min(prefix(rows) for rows in groups_rows if len(rows) > prefix(rows))
    assert k >= FIRST_OF_EACH
    review = {index for index in shown if large.records[index].id in ids_to_review(large)}
    assert kept == review | {index for rows in groups_rows for index in rows[:k]}


def ids_to_review(run: ScoreRun) -> set[str]:
    assert run.summary.review is not None
    return {row.id for row in run.summary.review.rows}


def test_traces_are_computed_for_the_shown_rows_only(
    large: ScoreRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    traced: list[int] = []
    original = assay.report.rows.trace_rows

    def counted(run: ScoreRun, start: int, stop: int) -> list[Any]:
        traced.append(stop - start)
        return original(run, start, stop)

    monkeypatch.setattr(assay.report.rows, "trace_rows", counted)
    report = build_report(large)
    assert len(report.rows) == len(shown_rows(large)) < len(large.records)
    assert sum(traced) == len(report.rows)  # each shown row's traces, once, and no other row's
    assert all(row.traces.keys() == large.metrics.keys() for row in report.rows)


def test_the_page_says_of_each_shown_row_what_it_said_with_every_rows_evidence(
    large: ScoreRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference is the report as it was: every row, each trace read from the call that decided it
    (``evidence=True``); the bounded page's rows must be those rows, unchanged."""
    bounded = page_rows(render_html(build_report(large)))
    monkeypatch.setattr(shown_module, "SHOWN_ROWS", len(large.records))
    monkeypatch.setattr(shown_module.shown_rows, "__defaults__", (len(large.records),))
    with_evidence = score(large.dataset, evidence=True)
    everything = page_rows(render_html(build_report(with_evidence)))
    assert len(everything) == len(large.records) > len(bounded)
    for ident, row in bounded.items():
        assert row == everything[ident], ident


def test_the_markdown_report_is_unchanged_by_the_selection(
    large: ScoreRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its misses are the first metric's first ones, and its count of misses is over every row."""
    bounded = render_markdown(build_report(large))
    first = next(iter(large.metrics))
    missed = sum(is_miss(row[first]) for row in verdict_rows(large, trace=False))
    assert f"## Top misses of `{first}` (10 of {missed})" in bounded
    monkeypatch.setattr(shown_module.shown_rows, "__defaults__", (len(large.records),))
    assert bounded == render_markdown(build_report(score(large.dataset, evidence=True)))


def test_a_run_scored_for_its_reports_is_scored_without_evidence(tmp_path: Path) -> None:
    """A report shows some rows' traces: the run keeps no evidence of every row (--trace asks for it)."""
    data = repeated(tmp_path / "rows.csv", 100)
    assert all(s.evidence is None for s in score_file(data, whole=True).run.metrics.values())  # type: ignore[union-attr]
    traced = score_file(data, whole=True, trace=tmp_path / "traces.jsonl").run
    assert traced is not None and all(s.evidence is not None for s in traced.metrics.values())


def test_a_metrics_columns_are_cut_to_the_rows_every_field_of_them() -> None:
    evidence = [Evidence(f"rule {i}", None, "g", "r") for i in range(4)]
    scores = MetricScores(
        metric="m",
        outcomes=bytearray([0, 1, 2, 3]),
        answer_index=array("i", [0, 1, -1, 2]),
        extras={"count": array("i", [5, 6, 7, 8])},
        reasons={2: "no golden answer"},
        values=array("d", [0.0, 1.0, 0.5, 0.25]),
        texts={"why": ["a", "b", None, "d"]},
        evidence=evidence,
        details={"run": "wide"},
    )
    cut = scores_of_rows(scores, [1, 2])
    assert cut == MetricScores(
        metric="m",
        outcomes=bytearray([1, 2]),
        answer_index=array("i", [1, -1]),
        extras={"count": array("i", [6, 7])},
        reasons={1: "no golden answer"},
        values=array("d", [1.0, 0.5]),
        texts={"why": ["b", None]},
        evidence=evidence[1:3],
        details={"run": "wide"},
    )
    # every field is given above: a new field of MetricScores must be cut by scores_of_rows too
    assert {field.name for field in dataclasses.fields(MetricScores)} == {
        "metric", "outcomes", "answer_index", "extras", "reasons", "values", "texts", "evidence", "details",
    }  # fmt: skip


def test_the_cli_report_of_a_large_file_says_what_it_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = repeated(tmp_path / "rows.csv")
    code, _, err = run(["score", "--responses", str(data), "--html", str(tmp_path / "r.html")], capsys)
    assert code == 0, err
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    shown = len(page_rows(html))
    assert SHOWN_ROWS <= shown < ROWS
    assert f"This table shows {shown} of the run's {ROWS} rows" in html


def test_a_large_runs_page_lists_its_first_ids_to_review_and_counts_the_rest(large: ScoreRun) -> None:
    """The overlap-only ids grow with the run: the page lists the first LISTED_IDS (in its text and in
    its summary for machines, with their count); --json keeps them all."""
    report = build_report(large)
    ids = list(report.as_dict()["agreement"]["review_ids"])
    assert len(ids) > LISTED_IDS
    page = render_html(report)
    found = re.search(r'<script type="application/json" id="assay-summary">(.*?)</script>', page, re.S)
    assert found is not None
    embedded = json.loads(found[1])
    assert embedded["agreement"]["review_ids"] == ids[:LISTED_IDS]
    assert embedded["agreement"]["review_ids_total"] == len(ids)
    assert embedded["metrics"] == report.as_dict()["metrics"]  # every number as --json has it
    assert f"{ids[LISTED_IDS - 1]} and {len(ids) - LISTED_IDS} more" in page
    assert ids[LISTED_IDS] not in page.split('id="agreement"')[1].split("</section>")[0]
