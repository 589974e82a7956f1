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
from ..text.search import first_occurring
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
        goldens = [(index, soft_keys(golden)) for index, golden in enumerate(answer_sets[row])]
        goldens = [(index, keys) for index, keys in goldens if keys]
        # Keys hold no space: a spaced run inside the spaced response is a whole-word run. One pass
        # over the response, however many golden answers.
        found = first_occurring([f" {' '.join(keys)} " for _, keys in goldens], spaced)
        if found >= 0:
            scores.outcomes[row], scores.answer_index[row] = SOFT_PASS, goldens[found][0]
