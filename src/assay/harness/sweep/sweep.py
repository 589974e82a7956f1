"""A sweep: one cell (``cell.run_cell``) per chunk size and overlap, each rolled up with intervals, the
check that its cells really differ, and the winner at a fixed budget of retrieved characters.

Overlaps are fractions of the size (0.15 at 400 characters is 60). Every cell is computed afresh from
its own chunks and index and keeps its own config, the inputs' hashes, its timings and chunk count.

Broken: in seed 002's original sweep every cell re-read one stale results file, so every cell reported
the same numbers. Here two cells whose chunkings differ (their chunk boundaries, computed again here,
apart from the cell) but whose per-question scores are identical, tuple for tuple, flag the sweep as
broken (``Sweep.broken`` says which cells). Cells whose chunkings are the same (documents shorter than
both sizes, or overlaps rounding to the same characters) may agree, and are not flagged; nor are cells
in which no question found a gold character (all 0 whatever the chunking).

The winner is the cell with the highest overall recall at the budget: at a fixed k, bigger chunks
retrieve more characters and win by that alone; at a fixed budget every cell retrieves about as many.
Ties go to the smaller size, then the smaller overlap (the cheaper index, the fewer characters).
There is no winner (None) when no cell retrieved a gold character at the budget.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import InputError, UsageError
from .cell import CHUNKERS, CellConfig, CellResult, QuestionScore, check_config, check_cost, run_cell
from .rollup import CellRollup, roll_up
from .spans import SpanSet

DEFAULT_SIZES = (200, 400, 800, 1600)
DEFAULT_OVERLAPS = (0.0, 0.15)
DEFAULT_K = 5
DEFAULT_BUDGET = 3200
RANKED_BY = "recall_at_budget"

CellRunner = Callable[[SpanSet, CellConfig], CellResult]
Progress = Callable[[int, int, "CellSummary"], None]  # cells done, of total, the cell just done


@dataclass(frozen=True)
class CellSummary:
    """One cell: its result, its rollup, the hashes of what it measured, and its chunking's fingerprint."""

    result: CellResult
    rollup: CellRollup
    hashes: Mapping[str, str]
    chunking: str  # sha256 of every chunk's (document, start, end): equal only for equal chunkings
    seconds: float  # the whole cell, rollup included

    @property
    def config(self) -> CellConfig:
        return self.result.config

    def to_json(self) -> dict[str, Any]:
        """The cell's sweep.json entry: the issue's fields first, then categories, config, hashes, timings."""
        config, rolled = self.config, self.rollup.to_json()
        return {
            "size": config.size,
            "overlap": config.overlap,
            "k": config.k,
            "budget": config.budget,
            "overall": rolled["overall"],
            "corpora": rolled["corpora"],
            "categories": rolled["categories"],
            "config": {
                "chunker": config.chunker,
                "retriever": config.retriever,
                "scope": config.scope,
                "units": "characters" if config.chunker == "chars" else "tokens",
                "overlap_units": config.overlap_units,
                "k_at_budget": self.result.k_at_budget,
            },
            "chunks": self.result.chunks,
            "hashes": dict(self.hashes),
            "chunking_sha256": self.chunking,
            "timings": {**self.result.timings, "cell": self.seconds},
        }


@dataclass(frozen=True)
class Sweep:
    cells: tuple[CellSummary, ...]  # in grid order: sizes, then overlaps within a size
    broken: str | None  # why the sweep cannot be trusted, or None
    winner: CellConfig | None  # None when no cell retrieved a gold character at the budget

    def ranked(self) -> list[CellSummary]:
        """The cells best first: by overall recall at the budget, then smaller size, smaller overlap."""
        return sorted(self.cells, key=_rank_key)

    def to_json(self) -> list[dict[str, Any]]:
        """sweep.json: a list, one entry per cell (``CellSummary.to_json``)."""
        return [cell.to_json() for cell in self.cells]

    def summary_json(self) -> dict[str, Any]:
        """What is not one cell's: the winner, the broken flag, how cells are ranked."""
        winner = self.winner
        return {
            "winner": None
            if winner is None
            else {"size": winner.size, "overlap": winner.overlap, "overlap_units": winner.overlap_units},
            "ranked_by": RANKED_BY,
            "ties": "the smaller size, then the smaller overlap",
            "broken": self.broken,
            "cells": len(self.cells),
        }


def _rank_key(cell: CellSummary) -> tuple[float, int, float]:
    return (-(cell.rollup.overall.means[RANKED_BY] or 0.0), cell.config.size, cell.config.overlap)


def grid(
    sizes: Sequence[int],
    overlaps: Sequence[float],
    *,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    chunker: str = "chars",
    retriever: str = "bm25",
    scope: str = "per-document",
) -> list[CellConfig]:
    """The cells of a sweep, each checked (``cell.check_config``): sizes, then overlaps within a size.
    UsageError for a grid no sweep can run, naming the value and the fix."""
    if not sizes or not overlaps:
        raise UsageError("no sizes or no overlaps", fix="give at least one size and one overlap")
    for name, values in (("size", sizes), ("overlap", overlaps)):
        if len(set(values)) != len(values):
            raise UsageError(f"a {name} is given twice: {list(values)}", fix=f"give each {name} once")
    configs = [
        CellConfig(size, float(overlap), k, budget, chunker=chunker, retriever=retriever, scope=scope)
        for size in sizes
        for overlap in overlaps
    ]
    for config in configs:
        check_config(config)
    return configs


def run_sweep(
    spans: SpanSet,
    sizes: Sequence[int] = DEFAULT_SIZES,
    overlaps: Sequence[float] = DEFAULT_OVERLAPS,
    *,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    chunker: str = "chars",
    retriever: str = "bm25",
    scope: str = "per-document",
    progress: Progress | None = None,
    cell: CellRunner = run_cell,
) -> Sweep:
    """Every cell of the grid, each computed afresh by `cell` (``run_cell``; a test may pass another to
    inject a fault), rolled up; the broken check; the winner at the budget."""
    configs = grid(sizes, overlaps, k=k, budget=budget, chunker=chunker, retriever=retriever, scope=scope)
    if not spans.questions:  # every mean would be of nothing, and a winner among cells of nothing
        raise InputError("no questions to sweep", fix="give questions with gold spans in the documents")
    for config in configs:  # every cell's cost checked before the first runs, not after minutes of them
        check_cost(spans, config)
    cells: list[CellSummary] = []
    for config in configs:
        clock = time.perf_counter()
        result = cell(spans, config)
        rolled = roll_up(result.scores)
        seconds = time.perf_counter() - clock
        summary = CellSummary(result, rolled, dict(spans.sha256), chunking_sha256(spans, config), seconds)
        cells.append(summary)
        if progress is not None:
            progress(len(cells), len(configs), summary)
    found = tuple(cells)
    return Sweep(found, broken_reason(found, spans), winner_of(found))


def winner_of(cells: Sequence[CellSummary]) -> CellConfig | None:
    """The best cell's config, or None when every cell's recall at the budget is 0: then the tie rule
    alone would crown the smallest size, a winner no measurement chose."""
    best = min(cells, key=_rank_key)
    return best.config if best.rollup.overall.means[RANKED_BY] else None


def chunking_sha256(spans: SpanSet, config: CellConfig) -> str:
    """A fingerprint of the cell's chunking, computed here and not by the cell: every chunk's document
    and span, in order. Two cells with equal fingerprints chunked alike."""
    chunker = CHUNKERS[config.chunker]
    digest = hashlib.sha256()
    for document in spans.documents:
        for chunk in chunker(document, config.size, config.overlap_units):
            digest.update(f"{chunk.document}\0{chunk.start}\0{chunk.end}\n".encode())
    return digest.hexdigest()


def _score_tuples(scores: Sequence[QuestionScore]) -> tuple[tuple[Any, ...], ...]:
    return tuple(
        (s.id, s.recall_at_k, s.recall_at_budget, s.precision_at_k, s.iou, s.hit_at_k, s.reciprocal_rank)
        for s in scores
    )


def broken_reason(cells: Sequence[CellSummary], spans: SpanSet) -> str | None:
    """Why the sweep is broken: cells with different chunkings and identical per-question scores, where
    computing the two afresh (``run_cell``, whatever ran them) does not give those scores again.

    Different chunkings can truly agree: when no question found a gold character (all 0 whatever the
    chunking: questions sharing no word with the corpus; these cells are left out at once), or when
    documents are so short that the top k of either chunking holds every chunk with a query word. So
    an agreement is evidence only when the cells' own scores are not what their configs give."""
    seen: dict[tuple[tuple[Any, ...], ...], CellSummary] = {}
    pairs: list[str] = []
    for summary in cells:
        if not any(score.recall_at_k or score.recall_at_budget for score in summary.result.scores):
            continue
        scores = _score_tuples(summary.result.scores)
        first = seen.setdefault(scores, summary)
        differ = first is not summary and first.chunking != summary.chunking
        if differ and not truly_alike(first, summary, spans):
            pairs.append(f"{_label(first.config)} and {_label(summary.config)}")
    if not pairs:
        return None
    return (
        f"BROKEN SWEEP: cells with different chunkings gave identical per-question results "
        f"({'; '.join(pairs)}): a cell is not computed from its own chunks and index (a stale or shared "
        "result), so no cell of this sweep can be trusted"
    )


def truly_alike(first: CellSummary, second: CellSummary, spans: SpanSet) -> bool:
    """Whether both cells' scores are what their configs give when computed afresh."""
    return all(
        _score_tuples(run_cell(spans, summary.config).scores) == _score_tuples(summary.result.scores)
        for summary in (first, second)
    )


def _label(config: CellConfig) -> str:
    return f"size {config.size} overlap {config.overlap:g}"
