"""Retrievers of a sweep behind one small protocol: given the chunks' texts at construction, ``search``
ranks them for each of a batch of queries, best first.

``bm25_retriever`` is BM25 (bm25s, its default Lucene variant, k1 1.5, b 0.75) over the words of the
``regex`` module (``\\w\\w+``: runs of two or more letters, marks, digits; Devanagari and Tamil words keep
their vowel signs, which the ``\\w`` of bm25s's own tokenizer, Python's ``re``, splits off so that
"हिन्दी" is no word at all), lowercased, English stopwords (bm25s's list) dropped, not stemmed. These
are bm25s.tokenize's defaults with stopwords="en", which is what reproduces issue 13's measured recalls
(a Snowball stemmer raises recall@5 by about 0.02). Chinese and Japanese, written without spaces, are
the exception: a run of Han, Hiragana or Katakana is its overlapping pairs of characters (a lone one is
a word by itself), as Lucene's CJK analyzer does, because as ``\\w\\w+`` a whole clause would be one word
that no question repeats (recall@5 on XQuAD's Chinese 0.11 that way, 0.99 by pairs). Thai, Lao, Khmer
and Burmese are also written without spaces and are still read as runs: a known limit.

It is deterministic: a ranking is sorted by score, then by chunk position, never by bm25s's own top-k
(whose order of ties is not stable).

Only chunks with a positive score are retrieved: a chunk that shares no word with the query was not found,
and ranking such chunks by position would credit a retriever with what its input order put first. So a
query of only stopwords, or only of words no chunk has, retrieves nothing (its recall is 0, and it still
counts in every mean), and a query may retrieve fewer than k chunks.

bm25s and numpy load only when a retriever is built, never with ``import assay``. An embedding retriever
would be one more entry of ``RETRIEVERS`` (a function of the chunks' texts returning a Retriever).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import regex

from ...errors import UsageError
from ...extras import missing_extra
from .chunking import CJK  # the scripts without spaces: one list for the chunker and BM25

# the regex module's \w holds marks (Unicode's definition), re's does not; CJK runs are split in words()
WORD = regex.compile(rf"[{CJK}]+|[^\W{CJK}]{{2,}}")
UNSPACED = regex.compile(rf"[{CJK}]")


class Retriever(Protocol):
    """Ranks the chunks it was built on for each query: chunk indexes, best first, ties by position."""

    name: str

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]: ...


def words(text: str) -> list[str]:
    """The text's words, lowercased (before matching, as bm25s does); a CJK run as its character pairs."""
    found: list[str] = WORD.findall(text.lower())
    if not UNSPACED.search(text):  # the common case, without a loop over the words
        return found
    found, runs = [], found
    for word in runs:
        if len(word) > 1 and UNSPACED.match(word):
            found.extend(word[i : i + 2] for i in range(len(word) - 1))
        else:
            found.append(word)
    return found


def english_stopwords() -> frozenset[str]:
    """English stopwords: bm25s's list (NLTK's)."""
    from bm25s.stopwords import STOPWORDS_EN  # type: ignore[import-untyped]

    return frozenset(STOPWORDS_EN)


def load_bm25s() -> Any:
    """bm25s (``pip install 'assay[rag]'``); a missing one is a MissingExtra, which the sweep's settings
    check raises before any document is read."""
    try:
        import bm25s  # type: ignore[import-untyped]
    except ImportError:
        raise missing_extra("bm25s", "for the BM25 retriever of the sweep") from None
    return bm25s


class Bm25:
    """BM25 over a fixed list of chunk texts, batch-searched; see the module docstring."""

    name = "bm25"

    def __init__(self, texts: Sequence[str]) -> None:
        bm25s = load_bm25s()
        self.stopwords = english_stopwords()
        self.vocabulary: dict[str, int] = {}
        corpus_ids = [self.ids(text) for text in texts]
        self.index: Any = None
        if self.vocabulary:
            self.index = bm25s.BM25()
            self.index.index((corpus_ids, dict(self.vocabulary)), show_progress=False)

    def ids(self, text: str) -> list[int]:
        """The text's words (stopwords out) as ids, new words added to the vocabulary."""
        vocabulary, stopwords = self.vocabulary, self.stopwords
        return [vocabulary.setdefault(word, len(vocabulary)) for word in words(text) if word not in stopwords]

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        if k < 1:
            raise UsageError(f"k {k} retrieves nothing", fix="give a k of at least 1")
        return [self.ranked(query, k) for query in queries]

    def ranked(self, query: str, k: int) -> list[int]:
        import numpy as np

        vocabulary, stopwords = self.vocabulary, self.stopwords
        known = [vocabulary[word] for word in words(query) if word in vocabulary and word not in stopwords]
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
# What each retriever loads, to be checked with the sweep's settings: a missing extra is said before any work.
RETRIEVER_LIBRARIES: dict[str, Callable[[], object]] = {"bm25": load_bm25s}


def make_retriever(name: str, texts: Sequence[str]) -> Retriever:
    """The retriever called ``name`` over the texts; an unknown name is a UsageError listing the known."""
    if name not in RETRIEVERS:
        raise UsageError(f"unknown retriever {name!r}", fix=f"use one of: {', '.join(sorted(RETRIEVERS))}")
    return RETRIEVERS[name](texts)
