"""What every scorer shares: token F1, the rule of a token-counting metric, quoting for rules; and,
re-exported from the core (``assay.metric``, where the engine reads them), the outcome codes, the scorer
description and per-metric result columns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..metric import (
    EMPTY_GOLDEN,
    FAIL,
    OPTIONAL,
    PASS,
    SOFT_PASS,
    UNSCORED,
    Alignment,
    AnswerSets,
    BatchScorer,
    Evidence,
    Explain,
    ExplainRows,
    MetricScores,
    Outcome,
    RunScorer,
    RunView,
    Scorer,
    Seen,
    SeenBy,
    SeenRows,
    SoftPass,
    Span,
)
from ..text.search import token_counts

__all__ = [
    "EMPTY_GOLDEN",
    "FAIL",
    "OPTIONAL",
    "PASS",
    "SOFT_PASS",
    "UNSCORED",
    "Alignment",
    "AnswerSets",
    "BatchScorer",
    "Evidence",
    "Explain",
    "ExplainRows",
    "MetricScores",
    "Outcome",
    "RunScorer",
    "RunView",
    "Scorer",
    "Seen",
    "SeenBy",
    "SeenRows",
    "SoftPass",
    "Span",
    "as_written",
    "explain_tokens",
    "f1_of_counts",
    "overlap_f1",
]


def overlap_f1(golden: Sequence[str], response: Sequence[str]) -> float:
    """SQuAD v1.1's token F1: the harmonic mean of precision and recall over the multiset overlap."""
    return f1_of_counts(sum((Counter(golden) & Counter(response)).values()), len(response), len(golden))


def f1_of_counts(common: int, response_tokens: int, golden_tokens: int) -> float:
    """Token F1 from the overlap's size and the two token counts (as SQuAD's script computes it)."""
    if common == 0:
        return 0.0
    precision, recall = common / response_tokens, common / golden_tokens
    return 2 * precision * recall / (precision + recall)


def explain_tokens(tokenise: Callable[[str], list[str]]) -> Explain:
    """The rule of a token-counting metric (an F1, or an exact match when the row has no score), whose
    texts are seen as their tokens joined by spaces."""

    def explain(seen: Seen) -> tuple[str, Span | None]:
        if seen.score is None:  # exact match
            if seen.outcome is Outcome.PASS:
                return "the response's tokens equal the golden answer's", None
            return "the response's tokens differ from every golden answer's", None
        golden = tokenise(seen.golden or "")
        response = token_counts(seen.response, tokenise)  # no list of a long text's tokens
        common, length = sum((Counter(golden) & response).values()), sum(response.values())
        counts = f"{common} tokens in common; precision {common}/{length}, recall {common}/{len(golden)}"
        return f"token F1 {seen.score:.3f} with the best golden answer: {counts}", None

    return explain


def as_written(text: str) -> str:
    """`text` quoted for a rule, as the user wrote it: repr's quotes and escapes of control characters,
    but a backslash shown once (a pattern's ``\\s`` is ``\\s``, not ``\\\\s``)."""
    return repr(text).replace("\\\\", "\\")
