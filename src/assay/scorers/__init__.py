"""Scorers registered by name."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..errors import UsageError
from ._base import MetricScores, Outcome, Scorer
from .hard_fact import HARD_FACT
from .seed import EXACT_SUBSTRING, WORD_OVERLAP
from .squad import MLQA_EM, MLQA_F1, SQUAD_EM, SQUAD_F1
from .unicode import PHRASE_MATCH, TOKEN_EM, TOKEN_F1

JUDGE = "judge"  # the LLM judge's metric: not a Scorer (see assay.judges), scored from score() all the same

SCORERS: Mapping[str, Scorer] = MappingProxyType(
    {
        s.name: s
        for s in (
            EXACT_SUBSTRING,
            WORD_OVERLAP,
            PHRASE_MATCH,
            TOKEN_F1,
            TOKEN_EM,
            SQUAD_EM,
            SQUAD_F1,
            MLQA_EM,
            MLQA_F1,
            HARD_FACT,
        )
    }
)


def get_scorer(name: str) -> Scorer:
    try:
        return SCORERS[name]
    except KeyError:
        known = ", ".join(SCORERS)
        raise UsageError(f"unknown metric '{name}'", fix=f"use one of: {known}") from None


__all__ = ["JUDGE", "SCORERS", "MetricScores", "Outcome", "Scorer", "get_scorer"]
