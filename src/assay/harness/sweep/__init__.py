"""``assay sweep``: a retrieval sweep over chunk size and overlap measured by character spans.

Questions carry gold character spans in their documents (``chunk_eval.load_chunk_eval``, or a gold
set's quote spans); each cell of the grid chunks the documents afresh (``chunking``), indexes the chunks
(``retrievers``), retrieves for every question and scores it by span (``spans``, ``cell.run_cell``).
"""

from __future__ import annotations

from .cell import CellConfig, CellResult, QuestionScore, run_cell
from .chunk_eval import load_chunk_eval
from .chunking import Chunk, char_chunks, token_chunks
from .retrievers import Retriever, bm25_retriever
from .spans import GoldSpan, SpanDocument, SpanQuestion, SpanScore, SpanSet, budget_k, score_spans

__all__ = [
    "CellConfig",
    "CellResult",
    "Chunk",
    "GoldSpan",
    "QuestionScore",
    "Retriever",
    "SpanDocument",
    "SpanQuestion",
    "SpanScore",
    "SpanSet",
    "bm25_retriever",
    "budget_k",
    "char_chunks",
    "load_chunk_eval",
    "run_cell",
    "score_spans",
    "token_chunks",
]
