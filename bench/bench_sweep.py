"""What a sweep costs: the 8-cell grid of issue 13 (sizes 200, 400, 800, 1600 x overlaps 0, 0.15; k 5,
a budget of 3,200 characters; BM25) over the five chunk_eval corpora, cell by cell (``run_cell``, each
from fresh chunks and a fresh index), with per-document indexes and, in the same run, one pooled index.

Prints each cell's recall@5, recall at the budget, chunk count and timings (chunk, index, search,
score), the grid's wall time against its target of 5 s, and the ratio of the pooled grid's time to the
per-document one's (a pooled index scores every chunk of every corpus for every question). Each figure
is the best of ``--runs`` runs: a shared machine is noisy.

    python bench/bench_sweep.py --runs 3
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from assay.harness.sweep import CellConfig, CellResult, SpanSet, load_chunk_eval, run_cell

CHUNK_EVAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "chunk_eval"  # as the tests find it
SIZES = (200, 400, 800, 1600)
OVERLAPS = (0.0, 0.15)
TARGET_SECONDS = 5.0


def grid(spans: SpanSet, scope: str) -> tuple[float, list[CellResult]]:
    clock = time.perf_counter()
    results = [
        run_cell(spans, CellConfig(size, overlap, k=5, budget=3200, scope=scope))
        for size in SIZES
        for overlap in OVERLAPS
    ]
    return time.perf_counter() - clock, results


def best_grid(spans: SpanSet, scope: str, runs: int) -> tuple[float, list[CellResult]]:
    return min((grid(spans, scope) for _ in range(runs)), key=lambda timed: timed[0])


def show(seconds: float, results: list[CellResult], scope: str) -> None:
    print(f"\n{scope}: the grid in {seconds:.2f} s")
    header = f"{'size':>5} {'overlap':>7} {'chunks':>7} {'R@5':>6} {'R@3200':>7}"
    print(f"  {header}   chunk  index search  score (s)")
    for result in results:
        config, scores, timings = result.config, result.scores, result.timings
        at_k = sum(score.recall_at_k for score in scores) / len(scores)
        at_budget = sum(score.recall_at_budget for score in scores) / len(scores)
        steps = " ".join(f"{timings[step]:6.3f}" for step in ("chunk", "index", "search", "score"))
        cell = f"{config.size:>5} {config.overlap_units:>7} {result.chunks:>7}"
        print(f"  {cell} {at_k:6.3f} {at_budget:7.3f}  {steps}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=CHUNK_EVAL, help="the chunk_eval folder")
    parser.add_argument("--runs", type=int, default=3, help="runs of each grid; the best counts (default: 3)")
    args = parser.parse_args()
    clock = time.perf_counter()
    spans = load_chunk_eval(sorted(args.data.glob("*.md")), args.data / "questions_df.csv")
    loaded = time.perf_counter() - clock
    print(f"loaded {len(spans.documents)} corpora, {len(spans.questions)} questions in {loaded:.2f} s")
    run_cell(spans, CellConfig(400, 0.0, k=5, budget=3200))  # bm25s and numpy imported before the clock
    per_document = best_grid(spans, "per-document", args.runs)
    pooled = best_grid(spans, "pooled", args.runs)
    show(*per_document, "per-document")
    show(*pooled, "pooled")
    verdict = "within" if per_document[0] <= TARGET_SECONDS else "OVER"
    print(f"\nper-document grid: {per_document[0]:.2f} s, {verdict} the {TARGET_SECONDS:g} s target")
    print(f"pooled / per-document time: {pooled[0] / per_document[0]:.2f}x")


if __name__ == "__main__":
    main()
