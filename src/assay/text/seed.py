"""Tokenisation of the seed's word-overlap protocol, with "punctuation" meaning Unicode category P.

The seed splits the lowercased text on whitespace and strips leading and trailing punctuation from
each word. ``string.punctuation`` is ASCII only and would leave the danda in ``दिल्ली।``; category P
(Pc, Pd, Ps, Pe, Pi, Pf, Po) covers the danda, smart quotes, dashes and the ellipsis. Symbols
(category S: ``$``, ``+``, ``=``) are not punctuation and stay part of the word.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def strip_punctuation(word: str) -> str:
    start, end = 0, len(word)
    while start < end and is_punctuation(word[start]):
        start += 1
    while end > start and is_punctuation(word[end - 1]):
        end -= 1
    return word[start:end]


def seed_words(lowered: str) -> frozenset[str]:
    """The seed's word set of already-lowercased text; words that are all punctuation vanish."""
    return frozenset(word for word in map(strip_punctuation, lowered.split()) if word)


def is_empty_golden(answer: str) -> bool:
    """True for a golden answer with no words: empty, whitespace or punctuation only (the seed's caveat 1)."""
    stripped = answer.strip()
    if not stripped:
        return True
    if not is_punctuation(stripped[0]):
        return False  # the common case, decided without tokenising
    return not seed_words(stripped)


def occurs_as_word(word: str, lowered: str) -> bool:
    """True when ``word`` is in ``seed_words(lowered)``, without tokenising all of ``lowered``.

    ``word`` must be a non-empty result of ``strip_punctuation``. A whitespace-delimited token strips to
    ``word`` exactly when the token is ``word`` with only punctuation around it, so it suffices to find
    each occurrence and look outward to the nearest whitespace. For a short golden word and a long
    response this is several times faster than splitting and stripping every response token.
    """
    start = lowered.find(word)
    while start != -1:
        end = start + len(word)
        if _only_punctuation_before(lowered, start) and _only_punctuation_after(lowered, end):
            return True
        start = lowered.find(word, start + 1)
    return False


def _only_punctuation_before(text: str, index: int) -> bool:
    while index > 0:
        char = text[index - 1]
        if char.isspace():
            return True
        if not is_punctuation(char):
            return False
        index -= 1
    return True


def _only_punctuation_after(text: str, index: int) -> bool:
    while index < len(text):
        char = text[index]
        if char.isspace():
            return True
        if not is_punctuation(char):
            return False
        index += 1
    return True
