"""Retrievers of a sweep behind one small protocol: given the chunks' texts at construction, ``search``
ranks them for each of a batch of queries, best first.

``bm25_retriever`` is BM25 (bm25s, its default Lucene variant, k1 1.5, b 0.75) over the words of the
``regex`` module (letters, marks and digits: Devanagari and Tamil words keep their vowel signs, which the
``\\w`` of bm25s's own tokenizer splits off), lowercased, English stopwords dropped, Snowball-stemmed
(English; other scripts pass through the stemmer unchanged). It is deterministic: a ranking is sorted by
score, then by chunk position, never by bm25s's own top-k (whose order of ties is not stable).

Only chunks with a positive score are retrieved: a chunk that shares no word with the query was not found,
and ranking such chunks by position would credit a retriever with what its input order put first. So a
query of only stopwords, or only of words no chunk has, retrieves nothing (its recall is 0, and it still
counts in every mean), and a query may retrieve fewer than k chunks.

bm25s, numpy and the stemmer load only when a retriever is built, never with ``import assay``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import regex

from ...errors import UsageError

TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}_]+")  # two characters or more, like bm25s's \w\w+


class Retriever(Protocol):
    """Ranks the chunks it was built on for each query: chunk indexes, best first, ties by position."""

    name: str

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]: ...


def words(text: str) -> list[str]:
    """The text's words, lowercased (casefold would change the length of some words; lower is enough)."""
    return TOKEN.findall(text.lower())


def english_analyser() -> Callable[[list[str]], list[str]]:
    """English stopwords (bm25s's list, NLTK's) out; no stemming (see the module docstring)."""
    from bm25s.stopwords import STOPWORDS_EN

    stopwords = frozenset(STOPWORDS_EN)

    def analyse(tokens: list[str]) -> list[str]:
        return [token for token in tokens if token not in stopwords]

    return analyse


class Bm25:
    """BM25 over a fixed list of chunk texts, batch-searched; see the module docstring."""

    name = "bm25"

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.analyse = english_analyser()
        self.size = len(texts)
        self.vocabulary: dict[str, int] = {}
        corpus_ids = [[self.token_id(token) for token in self.analyse(words(text))] for text in texts]
        self.index: Any = None
        if self.size and self.vocabulary:
            self.index = bm25s.BM25()
            self.index.index((corpus_ids, dict(self.vocabulary)), show_progress=False)

    def token_id(self, token: str) -> int:
        return self.vocabulary.setdefault(token, len(self.vocabulary))

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        if k < 1:
            raise UsageError(f"k {k} retrieves nothing", fix="give a k of at least 1")
        return [self.ranked(query, k) for query in queries]

    def ranked(self, query: str, k: int) -> list[int]:
        import numpy as np

        known = [self.vocabulary[token] for token in self.analyse(words(query)) if token in self.vocabulary]
        if self.index is None or not known:
            return []
        scores = self.index.get_scores_from_ids(known)
        positive = np.flatnonzero(scores > 0)
        # A stable sort of the negated scores keeps equal scores in chunk order.
        order = positive[np.argsort(-scores[positive], kind="stable")]
        return [int(index) for index in order[:k]]


def bm25_retriever(texts: Sequence[str]) -> Retriever:
    """A BM25 retriever over the chunks' texts."""
    return Bm25(texts)


RETRIEVERS: dict[str, Callable[[Sequence[str]], Retriever]] = {"bm25": bm25_retriever}


def make_retriever(name: str, texts: Sequence[str]) -> Retriever:
    """The retriever called ``name`` over the texts; an unknown name is a UsageError listing the known."""
    if name not in RETRIEVERS:
        raise UsageError(f"unknown retriever {name!r}", fix=f"use one of: {', '.join(sorted(RETRIEVERS))}")
    return RETRIEVERS[name](texts)
