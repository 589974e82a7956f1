"""One cell of a sweep: chunk every document, index the chunks, retrieve for every question, and score
each question's retrieval by character span (``spans.score_spans``).

A cell is computed from nothing but its inputs: fresh chunks and a fresh index on every call, never
cached across cells, so two cells can only agree when their chunkings retrieve the same characters.

Scopes: ``per-document`` builds one index per document and searches each question in the documents its
gold spans are in (for chunk_eval: its corpus file), as a team with one index per source would;
``pooled`` builds one index over every document and searches every question in it. A question whose
spans are in several documents gets the per-document rankings interleaved, rank by rank, in the order
its spans name the documents (BM25 scores of two indexes do not compare).

Recall at a budget of retrieved characters reads the top ``budget // size`` chunks (at least 1) of the
same ranking; for the token chunker, whose size is in tokens, ``size`` there is the mean length of the
cell's chunks in characters.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from ...errors import InputError, UsageError
from .chunking import Chunk, char_chunks, token_chunks
from .retrievers import RETRIEVER_LIBRARIES, RETRIEVERS, make_retriever
from .spans import GoldSpan, SpanQuestion, SpanSet, budget_k, score_spans

CHUNKERS = {"chars": char_chunks, "tokens": token_chunks}
SCOPES = ("per-document", "pooled")
# A cell holds every chunk's text and its words at once, so its memory grows with the characters it
# chunks: the text times size / (size - overlap). An overlap near 1 multiplies a corpus by up to the
# size (0.99 at 1600 copies a 5 MB document 100 times: 500 million characters, 1.5 GB and two minutes
# a cell), so a cell past this many characters is refused before anything is chunked. 100 million is
# a 5 MB corpus at an overlap of 0.95, or a 85 MB one at 0.15.
MAX_CHUNKED_CHARACTERS = 100_000_000


@dataclass(frozen=True)
class CellConfig:
    """One cell: chunk size (characters, or tokens for the token chunker), overlap as a fraction of it."""

    size: int
    overlap: float
    k: int
    budget: int
    chunker: str = "chars"
    retriever: str = "bm25"
    scope: str = "per-document"

    @property
    def overlap_units(self) -> int:
        """The overlap in characters (or tokens): round(size * overlap), so 400 at 0.15 is 60, and always
        less than the size (round(2 * 0.9) would be the whole size, a window that never moves)."""
        return min(round(self.size * self.overlap), self.size - 1)


@dataclass(frozen=True)
class QuestionScore:
    id: str
    corpus: str
    category: str | None
    recall_at_k: float
    recall_at_budget: float
    precision_at_k: float
    iou: float
    hit_at_k: bool
    reciprocal_rank: float


@dataclass(frozen=True)
class CellResult:
    """A cell's scores (one per question, in the questions' order), its timings in seconds (chunk,
    index, search, score), how many chunks it made, and how many chunks it read at the budget (for the
    token chunker, from its chunks' mean length; None for a result made without it)."""

    config: CellConfig
    scores: tuple[QuestionScore, ...]
    timings: dict[str, float]
    chunks: int
    k_at_budget: int | None = None


def check_config(config: CellConfig) -> None:
    """UsageError, naming the value and the fix, for a cell no sweep can run."""
    if isinstance(config.size, bool) or not isinstance(config.size, int) or config.size < 1:
        raise UsageError(
            f"chunk size {config.size!r} is not a positive whole number", fix="give sizes such as 200,400"
        )
    if not 0 <= config.overlap < 1:
        raise UsageError(
            f"overlap {config.overlap:g} is not a fraction of the size in [0, 1)",
            fix="give overlaps as fractions of the size, such as 0,0.15 (0.15 at 400 is 60 characters)",
        )
    if config.k < 1:
        raise UsageError(
            f"k {config.k} is below 1", fix="give k of at least 1 (the chunks retrieved per question)"
        )
    if config.budget < 1:
        raise UsageError(
            f"budget {config.budget} is below 1", fix="give the budget of retrieved characters, such as 3200"
        )
    for kind, name, known in (
        ("chunker", config.chunker, CHUNKERS),
        ("scope", config.scope, SCOPES),
        ("retriever", config.retriever, RETRIEVERS),
    ):
        if name not in known:
            raise UsageError(f"unknown {kind} {name!r}", fix=f"use one of: {', '.join(sorted(known))}")
    RETRIEVER_LIBRARIES[config.retriever]()  # installed: a MissingExtra now, not after reading the corpus


def chunked_characters(spans: SpanSet, config: CellConfig) -> int:
    """About how many characters the cell's chunks hold: each document's length times
    size / (size - overlap), the copies its overlap makes (a document shorter than a chunk is one chunk).
    The token chunker's windows step by tokens, and repeat its text by the same ratio."""
    step = config.size - config.overlap_units
    return sum(
        len(document.text) if len(document.text) <= config.size else len(document.text) * config.size // step
        for document in spans.documents
    )


def check_cost(spans: SpanSet, config: CellConfig) -> None:
    """UsageError for a cell whose chunks would hold more than MAX_CHUNKED_CHARACTERS."""
    characters = chunked_characters(spans, config)
    if characters > MAX_CHUNKED_CHARACTERS:
        corpus = sum(len(document.text) for document in spans.documents)
        repeats = config.size / (config.size - config.overlap_units)
        raise UsageError(
            f"size {config.size} overlap {config.overlap:g} would chunk about {characters:,} characters "
            f"({corpus:,} in the documents, repeated {repeats:.0f} times by the overlap), past the "
            f"{MAX_CHUNKED_CHARACTERS:,} a cell may hold (its memory grows with them)",
            fix="give a smaller overlap (0.5 repeats the text twice, 0.15 1.2 times), or fewer documents",
        )


def check_documents(spans: SpanSet) -> None:
    """Document names are unique and every gold span lies in one of the documents, start <= end: a span
    elsewhere could never be retrieved, and its question would score 0 for a reason no chunking can
    change; a span past the text's end would count characters that are not there as never found, and
    a reversed one would silently ask for nothing. Two documents of one name would overwrite each
    other's chunks."""
    lengths: dict[str, int] = {}
    for document in spans.documents:
        if document.name in lengths:
            raise InputError(
                f"two documents named {document.name!r}",
                where=f"corpus {document.corpus}",
                fix="give each document its own name",
            )
        lengths[document.name] = len(document.text)
    for question in spans.questions:
        for span in question.spans:
            problem = span_problem(span, lengths)
            if problem:
                raise InputError(f"a gold span {problem[0]}", where=f"question {question.id}", fix=problem[1])


def span_problem(span: GoldSpan, lengths: dict[str, int]) -> tuple[str, str] | None:
    """What is wrong with a span in its document and the fix, or None."""
    where = f"({span.start}..{span.end})"
    if span.document not in lengths:
        return (
            f"is in {span.document!r}, none of the {len(lengths)} documents",
            "give the document the question's spans are in",
        )
    if span.end < span.start:
        return f"ends before it starts {where}", "give the span's start before its end"
    if span.start < 0:
        return f"starts before the start of {span.document!r} {where}", "give offsets from 0"
    if span.end > lengths[span.document]:
        return (
            f"runs past the end of {span.document!r} {where}, {lengths[span.document]} characters",
            "give the document text the offsets were taken from, unchanged",
        )
    return None


def groups(spans: SpanSet, chunks: dict[str, list[Chunk]], scope: str) -> list[tuple[list[Chunk], list[int]]]:
    """The indexes to build: each one's chunks and the questions (by position) searched in it."""
    if scope == "pooled":
        pooled = [chunk for document in spans.documents for chunk in chunks[document.name]]
        return [(pooled, list(range(len(spans.questions))))]
    asked: dict[str, list[int]] = {document.name: [] for document in spans.documents}
    for position, question in enumerate(spans.questions):
        for name in question.documents:
            asked[name].append(position)
    return [(chunks[name], positions) for name, positions in asked.items() if positions]


def interleaved(rankings: Sequence[list[Chunk]]) -> list[Chunk]:
    if len(rankings) == 1:
        return rankings[0]
    return [chunk for rank in zip_longest(*rankings) for chunk in rank if chunk is not None]


def run_cell(spans: SpanSet, config: CellConfig) -> CellResult:
    """The cell's per-question scores, computed from fresh chunks and fresh indexes."""
    check_config(config)
    check_documents(spans)
    check_cost(spans, config)
    clock = time.perf_counter()
    chunker = CHUNKERS[config.chunker]
    chunks = {doc.name: chunker(doc, config.size, config.overlap_units) for doc in spans.documents}
    texts = {doc.name: doc.text for doc in spans.documents}
    timings = {"chunk": time.perf_counter() - clock, "index": 0.0, "search": 0.0}
    count = sum(len(found) for found in chunks.values())
    unit = config.size if config.chunker == "chars" else chunk_mean(chunks)
    budget_depth = budget_k(config.budget, unit)
    depth = max(config.k, budget_depth)
    rankings: list[list[list[Chunk]]] = [[] for _ in spans.questions]
    for group_chunks, positions in groups(spans, chunks, config.scope):
        clock = time.perf_counter()
        chunk_texts = [texts[chunk.document][chunk.start : chunk.end] for chunk in group_chunks]
        retriever = make_retriever(config.retriever, chunk_texts)
        timings["index"] += time.perf_counter() - clock
        clock = time.perf_counter()
        found = retriever.search([spans.questions[p].question for p in positions], depth)
        timings["search"] += time.perf_counter() - clock
        for position, indexes in zip(positions, found):
            rankings[position].append([group_chunks[i] for i in indexes])
    clock = time.perf_counter()
    scores = tuple(
        question_score(question, interleaved(ranked) if ranked else [], config.k, budget_depth)
        for question, ranked in zip(spans.questions, rankings)
    )
    timings["score"] = time.perf_counter() - clock
    return CellResult(config=config, scores=scores, timings=timings, chunks=count, k_at_budget=budget_depth)


def chunk_mean(chunks: dict[str, list[Chunk]]) -> int:
    lengths = [chunk.end - chunk.start for found in chunks.values() for chunk in found]
    return max(1, round(sum(lengths) / len(lengths))) if lengths else 1


def question_score(question: SpanQuestion, ranked: list[Chunk], k: int, budget_depth: int) -> QuestionScore:
    at_k = score_spans(question.spans, ranked[:k])
    at_budget = score_spans(question.spans, ranked[:budget_depth])
    return QuestionScore(
        id=question.id,
        corpus=question.corpus,
        category=question.category,
        recall_at_k=at_k.recall,
        recall_at_budget=at_budget.recall,
        precision_at_k=at_k.precision,
        iou=at_k.iou,
        hit_at_k=at_k.hit,
        reciprocal_rank=at_k.reciprocal_rank,
    )
