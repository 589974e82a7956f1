"""The retrieval half of the example bot: words, chunks with offsets, sentences, one BM25 index per
document (`bm25s`), built once per process and shared by threads, and the search of a scope's index.

A chunk's retrieval score is its BM25 score divided by the most the question could score (the sum of its
terms' idf, a term no chunk holds weighing the most): the share of the question's weight the chunk
covers, from 0 to 1, so that one floor fits every document and every question. Ties go to the earlier
chunk, so equal inputs give equal answers.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import bm25s  # type: ignore[import-untyped]
import numpy as np
import regex
import Stemmer
from bm25s.stopwords import STOPWORDS_EN  # type: ignore[import-untyped]

from assay.harness import DEFAULT_PAGE_CACHE, load_sources

CHUNK_CHARS = 600
OVERLAP_CHARS = 150

WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
# British -ise/-isation spelt as -ize/-ization, so "hospitalisation" meets "hospitalization" (Snowball
# stems the two apart).
BRITISH_ISE = regex.compile(r"(?<=\p{L}{3})is(?=e|ed|es|ing|ation|ations)$")
# Lucene's English stop words, and the words a question is asked with, which say nothing of its subject.
QUESTION_WORDS = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did",
                  "can", "could", "would", "should", "may", "might", "shall", "has", "have", "had", "its",
                  "many", "much", "under", "any", "i", "my", "me", "we", "our", "you", "your")  # fmt: skip
STOP = frozenset(STOPWORDS_EN) | frozenset(QUESTION_WORDS)
_stemmer = Stemmer.Stemmer("english")
_stem_lock = threading.Lock()  # a PyStemmer object is not documented as safe across threads


class Chunk(NamedTuple):
    document: str
    page: int  # 1-based
    start: int  # offsets into the page text, [start, end)
    end: int
    text: str


class Hit(NamedTuple):
    score: float  # the share of the question's weight the chunk covers, 0..1
    order: int  # the chunk's position in its document (ties go to the earlier)
    chunk: Chunk


# --- words -----------------------------------------------------------------------------------------


def terms(text: str) -> list[str]:
    """The words BM25 counts: lower-cased, stop words dropped, stemmed. pdfium's U+FFFE (a hyphen at a
    line's end) separates words, as the printed hyphen does."""
    words = [
        BRITISH_ISE.sub("iz", word)
        for word in WORD.findall(text.replace("\ufffe", " ").lower())
        if word not in STOP
    ]
    with _stem_lock:
        return list(_stemmer.stemWords(words))


# --- chunks and sentences ----------------------------------------------------------------------------


def chunk_spans(text: str, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[tuple[int, int]]:
    """[start, end) spans of at most `size` characters overlapping by about `overlap`, cut at whitespace
    (a word is cut only when it is longer than `size`) and trimmed of it."""
    spans: list[tuple[int, int]] = []
    start = _skip_space(text, 0)
    while start < len(text):
        cut = len(text) if len(text) - start <= size else _snap_back(text, start + size, start)
        end = cut
        while text[end - 1].isspace():
            end -= 1
        spans.append((start, end))
        if cut >= len(text):
            break
        next_start = _skip_space(text, _snap_back(text, cut - overlap, start))
        start = next_start if next_start > start else _skip_space(text, cut)  # always move on
    return spans


def _snap_back(text: str, at: int, floor: int) -> int:
    """The last whitespace at or before `at` (after `floor`), else `at` itself (one very long word)."""
    cut = at
    while cut > floor and not text[cut - 1].isspace():
        cut -= 1
    return cut if cut > floor else at


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


# A sentence ends at . ! ? or ; before whitespace, or where a line starts a list item or a numbered clause
# ("•", "a.", "iv)", "4.1.3."): policy wordings run their clauses as lists more than as sentences.
SENTENCE_END = regex.compile(
    r"(?<=[.!?;])\s+|\n(?=\s*(?:[\u2022\u25cf\u25aa\u2013\-*]|\(?[0-9ivxIVX]{1,4}[.)]|\(?[a-z][.)]\s))"
)
LINE = regex.compile(r"[^\n]+")
NEWLINE = regex.compile(r"\n")
LONG_SENTENCE = 400
RUNNING_SHARE = 0.5  # a line on half the pages or more (digits aside) is a running header or footer


class Span(NamedTuple):
    start: int
    end: int
    running: bool  # a running header or footer ("UIN: ... 29"), not the body's text


def running_lines(pages: Sequence[str]) -> frozenset[str]:
    """The lines that repeat on RUNNING_SHARE of the pages or more, page numbers aside: the headers and
    footers a printed document runs, which would otherwise glue themselves to the body's sentences."""
    counts = Counter(key for page in pages for key in {line_key(line) for line in page.split("\n")} if key)
    least = max(3, RUNNING_SHARE * len(pages))
    return frozenset(key for key, count in counts.items() if count >= least)


def line_key(line: str) -> str:
    return " ".join(regex.sub(r"\d+", "#", line).lower().split()) if regex.search(r"\p{L}", line) else ""


def sentence_spans(text: str, running: frozenset[str] = frozenset()) -> list[Span]:
    """The page's sentences, whitespace trimmed; running lines one after another are a sentence of their
    own (a footer's "UIN: ..." and the code on the line below it)."""
    spans: list[Span] = []
    body_start = 0
    for line in [*LINE.finditer(text), None]:
        if line is not None and line_key(line.group()) not in running:
            continue
        body_end = line.start() if line else len(text)
        spans += [span for span in _body_sentences(text, body_start, body_end) if span.end > span.start]
        if line is not None:
            start, end = _trimmed(text, line.start(), line.end())
            if spans and spans[-1].running and not text[spans[-1].end : start].strip():
                start = spans.pop().start
            spans.append(Span(start, end, running=True))
            body_start = line.end()
    return spans


def _body_sentences(text: str, start: int, end: int) -> list[Span]:
    spans, at = [], start
    for boundary in [*SENTENCE_END.finditer(text, start, end), None]:
        stop = boundary.start() if boundary else end
        spans += [Span(*_trimmed(text, *piece), running=False) for piece in _lines_of(text, at, stop)]
        at = boundary.end() if boundary else end
    return spans


def _lines_of(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A "sentence" over LONG_SENTENCE characters (a table's rows run on without a full stop) as runs of
    whole lines of up to that many (a longer line alone); a shorter one whole."""
    if end - start <= LONG_SENTENCE:
        return [(start, end)]
    pieces, first, last = [], start, start
    for line_end in [*(found.start() for found in NEWLINE.finditer(text, start, end)), end]:
        if line_end - first > LONG_SENTENCE and last > first:
            pieces.append((first, last))
            first = last
        last = line_end
    return [*pieces, (first, end)]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def as_written(text: str) -> str:
    """A passage as a reply shows it: lines joined, runs of whitespace one space, U+FFFE a hyphen."""
    return " ".join(text.replace("\ufffe", "-").split())


# --- the index ---------------------------------------------------------------------------------------


class DocumentIndex:
    """One document's chunks, its BM25 index, and each term's idf (the weights sentences are scored by)."""

    def __init__(self, document: str, pages: Sequence[str], size: int, overlap: int) -> None:
        self.document = document
        self.pages = tuple(pages)
        self.chunks = tuple(
            Chunk(document, number, start, end, page[start:end])
            for number, page in enumerate(pages, 1)
            for start, end in chunk_spans(page, size, overlap)
        )
        running = running_lines(pages)
        self.sentences = tuple(tuple(sentence_spans(page, running)) for page in pages)
        tokens = [terms(chunk.text) for chunk in self.chunks]
        self.document_frequency = Counter(term for chunk_terms in tokens for term in set(chunk_terms))
        self.retriever = bm25s.BM25()  # Lucene's BM25 (k1 1.5, b 0.75); a term's weight tops out at its idf
        if self.chunks:
            self.retriever.index(tokens, show_progress=False)

    def idf(self, term: str) -> float:
        """Lucene's idf, as bm25s computes it; a term in no chunk weighs the most."""
        count, total = self.document_frequency.get(term, 0), len(self.chunks)
        return math.log(1 + (total - count + 0.5) / (count + 0.5))

    def search(self, query: Sequence[str], k: int) -> list[Hit]:
        """The k best chunks, scored 0..1 (BM25 over the question's whole weight), ties by position."""
        weight = sum(self.idf(term) for term in query)
        known = [term for term in query if term in self.document_frequency]
        if not self.chunks or not known or weight <= 0:
            return []
        scores = np.asarray(self.retriever.get_scores(known), dtype=np.float64) / weight
        order = np.lexsort((np.arange(len(scores)), -scores))[:k]  # by score, then by position
        return [Hit(float(scores[i]), int(i), self.chunks[i]) for i in order if scores[i] > 0]


_indexes: dict[tuple[Path, int, int], dict[str, DocumentIndex]] = {}
_indexes_lock = threading.Lock()


def indexes(
    sources: Path,
    size: int = CHUNK_CHARS,
    overlap: int = OVERLAP_CHARS,
    page_cache: Path = DEFAULT_PAGE_CACHE,
) -> dict[str, DocumentIndex]:
    """Every document's index for a sources folder, built on first use and then shared (a lock makes
    threads that ask at once wait for one build rather than each building its own)."""
    key = (sources.resolve(), size, overlap)
    with _indexes_lock:
        if key not in _indexes:
            documents = load_sources(key[0], cache_dir=page_cache)
            _indexes[key] = {
                doc_id: DocumentIndex(doc_id, doc.pages, size, overlap) for doc_id, doc in documents.items()
            }
        return _indexes[key]


def question_terms(question: str, scope: str | None) -> list[str]:
    """The question's terms; with a scope, less the words of its name: the scope already says which
    document, and its name in the question ("... under RISE") selects nothing inside it."""
    query = terms(question)
    if scope is None:
        return query
    name = set(terms(scope.replace("_", " ").replace("-", " ")))
    return [term for term in query if term not in name] or query


def retrieve(question: str, scope: str | None, found: Mapping[str, DocumentIndex], k: int) -> list[Hit]:
    """The k best chunks of the scope's document (of every document without a scope)."""
    if scope is not None and scope not in found:
        known = ", ".join(sorted(found)) or "none"
        raise ValueError(f"unknown scope {scope!r}: the sources hold the documents {known}")
    query = question_terms(question, scope)
    chosen = [found[scope]] if scope is not None else list(found.values())
    hits = [hit for index in chosen for hit in index.search(query, k)]
    return sorted(hits, key=lambda hit: (-hit.score, hit.chunk.document, hit.order))[:k]
