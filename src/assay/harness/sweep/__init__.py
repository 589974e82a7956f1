"""``assay sweep``: a retrieval sweep over chunk size and overlap measured by character spans.

Questions carry gold character spans in their documents (``chunk_eval.load_chunk_eval``, or a gold
set's quote spans); each cell of the grid chunks the documents afresh (``chunking``), indexes the chunks
(``retrievers``), retrieves for every question and scores it by span (``spans``, ``cell.run_cell``).
A gold set's quote spans over its PDFs are questions too (``gold_spans.load_gold_spans``). The grid of
cells, its broken flag and its winner at the budget are ``sweep.run_sweep``; the reports, ``report``.
"""

from __future__ import annotations

from .cell import CellConfig, CellResult, QuestionScore, run_cell
from .chunk_eval import load_chunk_eval
from .chunking import Chunk, char_chunks, token_chunks
from .gold_spans import GoldSpans, load_gold_spans, read_gold_spans
from .report import leaderboard, write_sweep
from .retrievers import Retriever, bm25_retriever
from .spans import GoldSpan, SpanDocument, SpanQuestion, SpanScore, SpanSet, budget_k, score_spans
from .sweep import CellSummary, Sweep, run_sweep

__all__ = [
    "CellConfig",
    "CellResult",
    "CellSummary",
    "Chunk",
    "GoldSpan",
    "GoldSpans",
    "QuestionScore",
    "Retriever",
    "SpanDocument",
    "SpanQuestion",
    "SpanScore",
    "SpanSet",
    "Sweep",
    "bm25_retriever",
    "budget_k",
    "char_chunks",
    "leaderboard",
    "load_chunk_eval",
    "load_gold_spans",
    "read_gold_spans",
    "run_cell",
    "run_sweep",
    "score_spans",
    "token_chunks",
    "write_sweep",
]
