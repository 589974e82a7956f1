"""run_sweep and its reports on a small synthetic corpus whose every number can be worked out by hand,
a broken sweep (a cell that ignores its chunking: fault injection, as seed 002's stale results file),
and the HTML page opened in a real headless Chromium: one line per overlap with a point at each size.

The corpus: words of nine letters and a space, so word i starts at 10 * i and every multiple of 10 is a
word boundary: the character chunker's windows fall exactly on them ([0, 100), [100, 200), ... at 100
with no overlap; a step of 80 at an overlap of 0.2). Each answer is one word found nowhere else, so BM25
retrieves only the chunks holding it; a third question shares no word with the corpus and retrieves
nothing."""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assay.harness.sweep.cell import CellConfig, CellResult, run_cell
from assay.harness.sweep.chunk_eval import load_chunk_eval
from assay.harness.sweep.report import leaderboard, leaderboard_markdown, write_sweep
from assay.harness.sweep.spans import GoldSpan, SpanSet
from assay.harness.sweep.sweep import Sweep, run_sweep

if TYPE_CHECKING:
    from playwright.sync_api import Browser

FILLER = "loremipsu"
HOSTILE = "<img src=x onerror=alert(1)>"  # a corpus (file) name: text in every report, never markup
# (corpus, word index, answer word, question)
QUESTIONS = (
    ("alpha", 3, "quokkazed", "Where is the quokkazed?"),
    ("alpha", 25, "wombatics", "Which line holds wombatics?"),
    (HOSTILE, 12, "numbatsxy", "Anything about nothingness?"),  # no word of it is in the corpus
)
WORDS = 40  # per corpus: 399 characters


def corpus_text(corpus: str) -> str:
    words = [FILLER] * WORDS
    for name, index, answer, _ in QUESTIONS:
        if name == corpus:
            words[index] = answer
    return " ".join(words)


def synthetic(folder: Path) -> tuple[list[Path], Path]:
    """The corpus files and a questions CSV in chunk_eval's format (question, references, corpus_id)."""
    folder.mkdir(parents=True, exist_ok=True)
    corpora = sorted({name for name, *_ in QUESTIONS})
    paths = []
    for name in corpora:
        path = folder / f"{name}.md"
        path.write_text(corpus_text(name), encoding="utf-8")
        paths.append(path)
    questions = folder / "questions.csv"
    with questions.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "references", "corpus_id"])
        for name, index, answer, question in QUESTIONS:
            reference = {"content": answer, "start_index": 10 * index, "end_index": 10 * index + 9}
            writer.writerow([question, json.dumps([reference]), name])
    return paths, questions


@pytest.fixture(scope="module")
def spans(tmp_path_factory: pytest.TempPathFactory) -> SpanSet:
    paths, questions = synthetic(tmp_path_factory.mktemp("corpus"))
    return load_chunk_eval(paths, questions)


@pytest.fixture(scope="module")
def sweep(spans: SpanSet) -> Sweep:
    return run_sweep(spans, [100, 200], [0, 0.2], k=5, budget=200)


def cell_of(sweep: Sweep, size: int, overlap: float) -> dict[str, Any]:
    return next(cell for cell in sweep.to_json() if (cell["size"], cell["overlap"]) == (size, overlap))


# Per cell, the two answerable questions' precision (9 gold characters over the characters retrieved);
# the third question scores 0 everywhere. At 100/0.2 the second answer (250-259) is in two chunks,
# [160, 260) and [240, 340), whose union is 180 characters; at 200 in the last chunk, [200, 399).
PRECISIONS = {(100, 0.0): (9 / 100, 9 / 100), (100, 0.2): (9 / 100, 9 / 180), (200, 0.0): (9 / 200, 9 / 199)}


@pytest.mark.parametrize(("size", "overlap"), list(PRECISIONS))
def test_the_metrics_are_the_ones_worked_out_by_hand(sweep: Sweep, size: int, overlap: float) -> None:
    cell = cell_of(sweep, size, overlap)
    first, second = PRECISIONS[size, overlap]
    expected = {
        "recall_at_k": 2 / 3, "recall_at_budget": 2 / 3, "precision_at_k": (first + second) / 3,
        "iou": (first + second) / 3, "hit_at_k": 2 / 3, "mrr": 2 / 3, "n": 3,
    }  # fmt: skip
    assert {name: cell["overall"][name] for name in expected} == pytest.approx(expected)
    assert cell["corpora"]["alpha"]["recall_at_k"] == 1.0 and cell["corpora"]["alpha"]["n"] == 2
    assert cell["corpora"][HOSTILE] | {"intervals": None} == {
        "recall_at_k": 0.0, "recall_at_budget": 0.0, "precision_at_k": 0.0, "iou": 0.0, "hit_at_k": 0.0,
        "mrr": 0.0, "n": 1, "intervals": None,
    }  # fmt: skip
    assert cell["config"]["overlap_units"] == round(size * overlap)
    assert cell["config"]["k_at_budget"] == 200 // size


def test_every_cell_has_the_fields_of_the_issue_and_its_own_provenance(sweep: Sweep, spans: SpanSet) -> None:
    cells = sweep.to_json()
    assert [(cell["size"], cell["overlap"]) for cell in cells] == [
        (100, 0.0),
        (100, 0.2),
        (200, 0.0),
        (200, 0.2),
    ]
    metrics = {"recall_at_k", "recall_at_budget", "precision_at_k", "iou", "hit_at_k", "mrr", "n"}
    for cell in cells:
        assert {"size", "overlap", "k", "budget", "overall", "corpora"} <= set(cell)
        assert (cell["k"], cell["budget"]) == (5, 200)
        for group in [cell["overall"], *cell["corpora"].values()]:
            assert metrics <= set(group)
            assert set(group["intervals"]) == metrics - {"n"}
        assert cell["hashes"] == spans.sha256 and len(cell["hashes"]) == 3
        assert {"chunk", "index", "search", "score", "cell"} <= set(cell["timings"])
        assert cell["config"] | {"overlap_units": 0, "k_at_budget": 0} == {
            "chunker": "chars", "retriever": "bm25", "scope": "per-document", "units": "characters",
            "overlap_units": 0, "k_at_budget": 0,
        }  # fmt: skip
    assert [cell["chunks"] for cell in cells] == [
        8,
        10,
        4,
        6,
    ]  # 399 characters: 4 windows of 100, 5 steps of 80


def test_intervals_hold_the_mean_and_are_reproducible(sweep: Sweep, spans: SpanSet) -> None:
    again = run_sweep(spans, [100, 200], [0, 0.2], k=5, budget=200)
    for cell, repeat in zip(sweep.to_json(), again.to_json()):
        assert cell["overall"]["intervals"] == repeat["overall"]["intervals"]
        for metric, interval in cell["overall"]["intervals"].items():
            assert interval["low"] <= cell["overall"][metric] <= interval["high"]


def test_a_tie_at_the_budget_goes_to_the_smaller_size_then_overlap(sweep: Sweep) -> None:
    assert len({cell["overall"]["recall_at_budget"] for cell in sweep.to_json()}) == 1
    assert (sweep.winner.size, sweep.winner.overlap) == (100, 0.0)
    board = leaderboard(sweep)
    assert [(cell["size"], cell["overlap"]) for cell in board["leaderboard"]] == [
        (100, 0.0), (100, 0.2), (200, 0.0), (200, 0.2)
    ]  # fmt: skip
    assert [cell["winner"] for cell in board["leaderboard"]] == [True, False, False, False]


def test_the_winner_is_the_best_recall_at_the_budget_not_at_k(spans: SpanSet) -> None:
    # One question whose gold span is the first 150 characters of alpha. At a budget of 100 characters a
    # cell reads one chunk (at least one): [0, 100) at size 100 finds 100 of 150, [0, 200) at 200 all.
    question = dataclasses.replace(spans.questions[0], spans=(GoldSpan("alpha", 0, 150),))
    sweep = run_sweep(dataclasses.replace(spans, questions=(question,)), [100, 200], [0], k=1, budget=100)
    recalls = {cell["size"]: cell["overall"]["recall_at_budget"] for cell in sweep.to_json()}
    assert recalls == {100: pytest.approx(100 / 150), 200: 1.0}
    assert sweep.winner.size == 200


def stale_cell() -> Any:
    """A cell that computes once and returns that result for every config: seed 002's bug, on purpose."""
    first: list[CellResult] = []

    def cell(spans: SpanSet, config: CellConfig) -> CellResult:
        if not first:
            first.append(run_cell(spans, config))
        return CellResult(config, first[0].scores, first[0].timings, first[0].chunks)

    return cell


def test_a_sweep_whose_cells_ignore_their_chunking_is_flagged_broken(spans: SpanSet, tmp_path: Path) -> None:
    sweep = run_sweep(spans, [100, 200], [0, 0.2], k=5, budget=200, cell=stale_cell())
    assert sweep.broken is not None
    assert "BROKEN SWEEP" in sweep.broken and "size 100 overlap 0 and size 200 overlap 0" in sweep.broken
    board = write_sweep(tmp_path, sweep)
    assert board["broken"] == sweep.broken
    markdown = (tmp_path / "sweep.md").read_text(encoding="utf-8")
    assert markdown.splitlines()[2].startswith("> **BROKEN SWEEP")  # shouted first, under the title
    assert json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))["broken"] == sweep.broken


def test_the_honest_sweep_is_not_broken(sweep: Sweep) -> None:
    assert sweep.broken is None


def test_cells_that_chunk_alike_may_agree_without_being_broken(spans: SpanSet) -> None:
    # Documents of 399 characters are one chunk at 1000 and at 2000: the same chunking, the same scores.
    sweep = run_sweep(spans, [1000, 2000], [0], k=5, budget=3200)
    scores = [cell.result.scores for cell in sweep.cells]
    assert scores[0] == scores[1]
    assert sweep.broken is None


def test_the_markdown_names_the_winner_and_keeps_data_text_inert(sweep: Sweep) -> None:
    markdown = leaderboard_markdown(leaderboard(sweep))
    assert "**Winner** (at the budget): size 100, overlap 0 (0)" in markdown
    assert "| **1** (winner) | 100 | 0 (0) | 8 |" in markdown
    assert HOSTILE not in markdown and "&lt;img src=x onerror=alert(1)&gt;" in markdown


# --- the page in a real browser --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page_path(sweep: Sweep, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep")
    write_sweep(out, sweep)
    return out / "sweep.html"


@pytest.fixture
def opened(browser: Browser, page_path: Path) -> Iterator[Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append(f"a dialog opened: {dialog.message}"))
    page.goto(page_path.as_uri(), wait_until="load")
    yield page
    assert errors == []  # no CSP violation, no script run from the data
    page.close()


@pytest.mark.parametrize("metric", ["recall_at_k", "recall_at_budget"])
def test_each_chart_has_one_line_per_overlap_with_a_point_at_each_size(opened: Any, metric: str) -> None:
    chart = f'svg[data-metric="{metric}"]'
    lines = opened.eval_on_selector_all(
        f"{chart} g.series",
        """groups => groups.map(g => ({
            overlap: g.getAttribute('data-overlap'),
            points: g.querySelector('polyline').getAttribute('points').trim().split(/\\s+/).length,
            sizes: [...g.querySelectorAll('circle.point')].map(c => Number(c.getAttribute('data-size'))),
            values: [...g.querySelectorAll('circle.point')].map(c => Number(c.getAttribute('data-value'))),
            shown: g.getBoundingClientRect().width > 0,
        }))""",
    )
    assert [line["overlap"] for line in lines] == ["0.0", "0.2"]
    for line in lines:
        assert line["sizes"] == [100, 200] and line["points"] == 2 and line["shown"]
        assert line["values"] == pytest.approx([2 / 3, 2 / 3])
    legend = opened.eval_on_selector_all(f"{chart} g.legend text", "texts => texts.map(t => t.textContent)")
    assert legend == ["overlap 0", "overlap 0.2"]


def test_the_page_shows_the_table_and_the_winner_and_data_stays_text(opened: Any) -> None:
    ranks = opened.eval_on_selector_all(
        '[data-section="leaderboard"] tbody tr',
        "rows => rows.map(r => r.getAttribute('data-size') + '/' + r.getAttribute('data-overlap'))",
    )
    assert ranks == ["100/0.0", "100/0.2", "200/0.0", "200/0.2"]
    assert opened.inner_text('[data-field="winner"]').startswith(
        "Winner (at the budget): size 100, overlap 0"
    )
    corpora = opened.eval_on_selector_all(
        '[data-section="corpora"] tbody th', "cells => cells.map(c => c.textContent)"
    )
    assert HOSTILE in corpora  # shown as text
    assert opened.eval_on_selector_all("main img", "images => images.length") == 0
    assert opened.query_selector(".broken") is None
