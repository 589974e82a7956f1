"""Soft passes: rows a scorer failed that pass once inflections are tolerated (``--inflection``).

A soft pass is its own outcome (``Outcome.SOFT_PASS``), counted apart in every report and never
folded into the strict accuracy: stemmers collide, so a soft pass is a claim to check, not a match.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from ..text import unicode
from ..text.inflection import soft_key
from ._base import SOFT_PASS, MetricScores


def soft_keys(normalised: str) -> list[str]:
    """The inflection-tolerant keys of a normalised text's words, in order."""
    return list(map(soft_key, unicode.words(normalised)))


def soft_phrase_pass(
    scores: MetricScores, responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]
) -> None:
    """Mark as soft passes the failed rows where a golden answer's words, each compared by its
    `soft_key`, occur in the response as a contiguous run of whole words."""
    failed = itertools.compress(range(len(scores)), map(operator.not_, scores.outcomes))
    for row in failed:
        spaced = f" {' '.join(soft_keys(responses[row]))} "
        for index, golden in enumerate(answer_sets[row]):
            keys = soft_keys(golden)
            if keys and f" {' '.join(keys)} " in spaced:  # keys hold no space: a whole-word run
                scores.outcomes[row], scores.answer_index[row] = SOFT_PASS, index
                break
