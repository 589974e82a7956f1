"""The sweep probed again on its review: the cost of a high overlap, gold sets of real PDFs of one's own
(a quote across a page break, a page without text, dozens of pages, two documents and an unrelated one in
the sources folder, refusals only, an empty file) and the house's intervals behind the rollup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import InputError, UsageError
from assay.harness.sweep import CellConfig, CellResult, GoldSpan, SpanDocument, SpanQuestion, SpanSet, run_cell
from assay.harness.sweep.cell import MAX_CHUNKED_CHARACTERS, chunked_characters
from assay.harness.sweep.sweep import run_sweep

# --- what a high overlap costs ---------------------------------------------------------------------------

BIG = "claims are paid within thirty days of the bill " * 45_000  # 2.1 million characters


def big_spans() -> SpanSet:
    question = SpanQuestion("q1", "when are claims paid?", "big", None, (GoldSpan("big", 0, 40),))
    return SpanSet((SpanDocument("big", "big", BIG),), (question,))


@pytest.mark.parametrize(
    ("overlap", "repeats", "refused"),
    [
        (0.99, 100, True),  # a step of 16 characters: 210 million of them
        (0.98, 50, True),  # a step of 32: 105 million
        (0.95, 20, False),  # a step of 80: 42 million
        (0.15, 1600 / 1360, False),
    ],
)
def test_a_cell_that_would_repeat_the_text_past_the_limit_is_refused(overlap, repeats, refused):
    spans, config = big_spans(), CellConfig(1600, overlap, k=5, budget=3200)
    estimate = chunked_characters(spans, config)
    assert estimate == pytest.approx(len(BIG) * repeats, rel=1e-6)
    assert (estimate > MAX_CHUNKED_CHARACTERS) is refused
    if refused:  # at once: before this, 0.99 took minutes and gigabytes
        with pytest.raises(UsageError, match=r"repeated \d+ times by the overlap") as raised:
            run_cell(spans, config)
        assert "smaller overlap" in str(raised.value.fix)


def test_a_sweep_refuses_a_costly_cell_before_it_runs_any():
    ran: list[CellConfig] = []

    def counting(spans: SpanSet, config: CellConfig) -> CellResult:
        ran.append(config)
        return run_cell(spans, config)

    with pytest.raises(UsageError, match="size 400 overlap 0.99"):
        run_sweep(big_spans(), [400, 1600], [0.0, 0.99], cell=counting)
    assert ran == []


def test_a_short_document_is_one_chunk_whatever_the_overlap():
    spans = SpanSet((SpanDocument("d", "d", "short text"),), ())
    assert chunked_characters(spans, CellConfig(1600, 0.99, k=5, budget=3200)) == len("short text")
