"""The two deterministic protocols of the seed evaluation scripts, reproduced exactly.

``exact_substring``: ``answer.lower() in response.lower()`` -- no trimming, no other normalisation.
``word_overlap``: both sides lowercased, split on whitespace, leading/trailing Unicode punctuation
stripped, and the golden word set must be a subset of the response's. With several golden answers a
row passes if any answer passes, and the verdict records which one.
"""

from __future__ import annotations

from functools import lru_cache

from ..text.seed import occurs_as_word, seed_words
from ._base import Outcome, RowScore, Scorer


def _exact_substring(response: str, answers: tuple[str, ...]) -> RowScore:
    for index, answer in enumerate(answers):
        if answer in response:
            return RowScore(Outcome.PASS, index)
    return RowScore(Outcome.FAIL)


# Golden answers repeat across rows (one question, several responses); tokenise each once.
_golden_words = lru_cache(maxsize=1 << 16)(seed_words)


def _word_overlap(response: str, answers: tuple[str, ...]) -> RowScore:
    best = RowScore(Outcome.FAIL)
    best_ratio = -1.0
    for index, answer in enumerate(answers):
        words = _golden_words(answer)
        matching = sum(1 for word in words if occurs_as_word(word, response))
        if matching == len(words):  # an empty golden word set passes, as in the seed (caveat 1)
            return RowScore(Outcome.PASS, index, (matching, len(words)))
        if matching / len(words) > best_ratio:
            best_ratio = matching / len(words)
            best = RowScore(Outcome.FAIL, index, (matching, len(words)))
    return best


EXACT_SUBSTRING = Scorer(
    name="exact_substring",
    description="the golden answer occurs in the response as one contiguous run of characters (lowercased)",
    view=str.lower,
    score_row=_exact_substring,
)

WORD_OVERLAP = Scorer(
    name="word_overlap",
    description="every golden word occurs among the response's words, in any order (lowercased, "
    "split on whitespace, Unicode punctuation stripped from the ends of each word)",
    view=str.lower,
    score_row=_word_overlap,
    extra_columns=("matching_words", "total_golden_words"),
)
