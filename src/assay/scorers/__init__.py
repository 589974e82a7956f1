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

# What runs when no metric is named: the original evaluation scripts' pair, phrase_match, and where
# their inputs exist hard_fact and the MLQA scores. The SQuAD and token scores are one --metric away:
# on sentence-long responses their exact-match forms are near 0% and would only crowd the report.
DEFAULT_METRICS = ("exact_substring", "word_overlap", "phrase_match", "mlqa_em", "mlqa_f1", "hard_fact")


def get_scorer(name: str) -> Scorer:
    try:
        return SCORERS[name]
    except KeyError:
        known = ", ".join(SCORERS)
        raise UsageError(f"unknown metric '{name}'", fix=f"use one of: {known}") from None


__all__ = ["DEFAULT_METRICS", "JUDGE", "SCORERS", "MetricScores", "Outcome", "Scorer", "get_scorer"]
