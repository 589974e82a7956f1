"""Questions with gold character spans, and the per-question metrics of a retrieval by character span.

A retrieval is measured by the characters it returns, never by chunk ids: two chunkings of one document
have different ids but the same characters, so only spans compare them. Every metric is interval
arithmetic over the gold spans and the retrieved chunks' spans, each merged per document first, so two
overlapping chunks never count a character twice and two overlapping gold spans never ask for it twice:

    recall      |gold & retrieved| / |gold|
    precision   |gold & retrieved| / |retrieved|      (retrieved = the union of the chunks' spans)
    iou         |gold & retrieved| / |gold | retrieved|
    hit         every gold span lies wholly inside the union of the retrieved spans (full containment:
                a span across a chunk border counts when the two chunks are both retrieved)
    reciprocal  1 / the rank of the first retrieved chunk that overlaps a gold span, within the k
                retrieved; 0 when none of them does (so the mean is MRR@k)

Precision and IoU count the retrieved characters once, where chunking_evaluation (the public tool that
measures by span) sums the chunks' lengths, so an overlap of 15% there lowers precision by itself;
recall is the same in both. A question without gold characters has recall 0 (there is nothing it
could find), as does an empty retrieval; an empty retrieval has precision 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class SpanDocument:
    """One indexable document: a chunk_eval corpus file, or a PDF's pages joined."""

    name: str
    corpus: str
    text: str


@dataclass(frozen=True)
class GoldSpan:
    """A reference: the characters [start, end) of one document's text."""

    document: str
    start: int
    end: int


@dataclass(frozen=True)
class SpanQuestion:
    """A question and the spans that answer it; ``corpus`` is its rollup group, ``category`` an optional
    second one. In the per-document scope it is searched in the documents its spans are in."""

    id: str
    question: str
    corpus: str
    category: str | None
    spans: tuple[GoldSpan, ...]

    @property
    def documents(self) -> tuple[str, ...]:
        """The documents its spans are in, in first-seen order."""
        return tuple(dict.fromkeys(span.document for span in self.spans))


@dataclass(frozen=True)
class SpanSet:
    """The documents and the questions of one sweep; ``sha256`` holds the hashes of the inputs (corpus
    files and the questions or gold file) by name, so a result says what it was measured on."""

    documents: tuple[SpanDocument, ...]
    questions: tuple[SpanQuestion, ...]
    sha256: dict[str, str] = field(default_factory=dict)


class Located(Protocol):
    """Anything with a document and a [start, end) span: a GoldSpan, a chunking.Chunk."""

    @property
    def document(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


Intervals = dict[str, list[tuple[int, int]]]


def merged(spans: Iterable[Located]) -> Intervals:
    """The spans as sorted, disjoint, non-empty intervals per document (touching ones joined)."""
    by_document: dict[str, list[tuple[int, int]]] = {}
    for span in spans:
        if span.end > span.start:
            by_document.setdefault(span.document, []).append((span.start, span.end))
    out: Intervals = {}
    for document, pairs in by_document.items():
        pairs.sort()
        joined = [pairs[0]]
        for start, end in pairs[1:]:
            last_start, last_end = joined[-1]
            if start <= last_end:
                joined[-1] = (last_start, max(last_end, end))
            else:
                joined.append((start, end))
        out[document] = joined
    return out


def length(intervals: Intervals) -> int:
    return sum(end - start for pairs in intervals.values() for start, end in pairs)


def overlap_length(first: Intervals, second: Intervals) -> int:
    """|first & second| in characters, by a merge walk over each document's sorted intervals."""
    total = 0
    for document, pairs in first.items():
        others = second.get(document, [])
        i = j = 0
        while i < len(pairs) and j < len(others):
            start = max(pairs[i][0], others[j][0])
            end = min(pairs[i][1], others[j][1])
            if end > start:
                total += end - start
            if pairs[i][1] < others[j][1]:
                i += 1
            else:
                j += 1
    return total


@dataclass(frozen=True)
class SpanScore:
    """One retrieval's metrics against one question's gold spans."""

    recall: float
    precision: float
    iou: float
    hit: bool
    reciprocal_rank: float


def contains_all(gold: Intervals, retrieved: Intervals) -> bool:
    """Whether every gold interval lies wholly inside one retrieved interval (retrieved is merged, so a
    gold span covered by two touching or overlapping chunks is inside their joined interval)."""
    for document, pairs in gold.items():
        others = retrieved.get(document, [])
        for start, end in pairs:
            if not any(other_start <= start and end <= other_end for other_start, other_end in others):
                return False
    return bool(gold)


def first_relevant_rank(gold: Intervals, ranked: Sequence[Located]) -> int | None:
    """The 1-based rank of the first chunk that shares a character with a gold interval, or None (an
    empty chunk inside a gold span shares none, as recall says)."""
    for rank, chunk in enumerate(ranked, start=1):
        for start, end in gold.get(chunk.document, []):
            if max(start, chunk.start) < min(end, chunk.end):
                return rank
    return None


def score_spans(gold: Sequence[Located], ranked: Sequence[Located]) -> SpanScore:
    """All the metrics of one ranked retrieval (its chunks best first) against one question's gold."""
    gold_intervals = merged(gold)
    got = merged(ranked)
    wanted, returned = length(gold_intervals), length(got)
    common = overlap_length(gold_intervals, got)
    union = wanted + returned - common
    rank = first_relevant_rank(gold_intervals, ranked)
    return SpanScore(
        recall=common / wanted if wanted else 0.0,
        precision=common / returned if returned else 0.0,
        iou=common / union if union else 0.0,
        hit=contains_all(gold_intervals, got),
        reciprocal_rank=1.0 / rank if rank else 0.0,
    )


def budget_k(budget: int, size: int) -> int:
    """How many chunks of ``size`` a budget of retrieved characters buys: budget // size, at least 1."""
    return max(1, budget // size)
