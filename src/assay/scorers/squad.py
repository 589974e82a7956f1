"""``squad_em``/``squad_f1`` and ``mlqa_em``/``mlqa_f1``: the official evaluation scripts' numbers.

Each row's score is the best over its golden answers, as in the scripts; the dataset's EM and F1 are
the means (the scripts print them x100). MLQA's rules depend on the row's ``lang`` (en, es, hi, vi,
de, ar, zh); a row in another language is unscored, with that reason, where the script would stop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..text.search import joined_tokens, token_counts
from ..text.squad import MLQA_LANGUAGES, mlqa_tokens, squad_tokens
from ._base import PASS, UNSCORED, MetricScores, Scorer, explain_tokens, f1_of_counts

Tokenise = Callable[[str], list[str]]


def _score(
    metric: str,
    graded: bool,
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    tokenisers: Sequence[Tokenise | None],
    langs: Sequence[str] | None = None,
) -> MetricScores:
    scores = MetricScores.all_failing(metric, len(responses), graded=graded)
    for row, (response, answers, tokenise) in enumerate(zip(responses, answer_sets, tokenisers)):
        if tokenise is None:
            scores.outcomes[row] = UNSCORED
            lang = repr(langs[row]) if langs is not None else "this row's language"
            scores.reasons[row] = (
                f"MLQA has no rules for the language {lang}; it has {', '.join(MLQA_LANGUAGES)}"
            )
            continue
        # The response's tokens counted once per row, not once per golden answer, a chunk at a time.
        predicted_counts = token_counts(response, tokenise)
        predicted_length = sum(predicted_counts.values())
        goldens = [tokenise(answer) for answer in answers]
        if graded:
            best, negative_index = max(
                (f1_of_counts(_common(golden, predicted_counts), predicted_length, len(golden)), -i)
                for i, golden in enumerate(goldens)
            )
            assert scores.values is not None
            scores.values[row], scores.answer_index[row] = best, -negative_index
            if best == 1.0:
                scores.outcomes[row] = PASS
        else:
            # In order: the tokens themselves only for a golden answer of as many.
            same_length = [i for i, golden in enumerate(goldens) if len(golden) == predicted_length]
            predicted = tokenise(response) if same_length else []
            index = next((i for i in same_length if goldens[i] == predicted), -1)
            if index >= 0:
                scores.outcomes[row], scores.answer_index[row] = PASS, index
    return scores


def _common(golden: list[str], predicted: Counter[str]) -> int:
    """The size of the multiset overlap (SQuAD's num_same), reading only the golden tokens."""
    return sum((Counter(golden) & predicted).values())


def _mlqa_tokeniser(lang: str) -> Tokenise | None:
    language = lang.strip().lower()
    return (lambda text: mlqa_tokens(text, language)) if language in MLQA_LANGUAGES else None


def _squad(metric: str, graded: bool) -> Callable[[Sequence[str], Sequence[tuple[str, ...]]], MetricScores]:
    def score_rows(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
        return _score(metric, graded, responses, answer_sets, [squad_tokens] * len(responses))

    return score_rows


def _mlqa(
    metric: str, graded: bool
) -> Callable[[Sequence[str], Sequence[tuple[str, ...]], Sequence[str]], MetricScores]:
    def score_rows(
        responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], langs: Sequence[str]
    ) -> MetricScores:
        return _score(metric, graded, responses, answer_sets, list(map(_mlqa_tokeniser, langs)), langs)

    return score_rows


def _squad_seen(inputs: Mapping[str, Any]) -> Callable[[str], str]:
    """How the SQuAD script sees a text: its tokens joined by spaces."""
    return lambda text: joined_tokens(text, squad_tokens)


def _mlqa_seen(inputs: Mapping[str, Any]) -> Callable[[str], str]:
    """How the MLQA script sees a text in the row's language; a row it has no rules for (unscored,
    with the scorer's reason) is shown as it came."""
    lang = (inputs.get("lang") or "").strip().lower()
    if lang not in MLQA_LANGUAGES:
        return str
    return lambda text: joined_tokens(text, lambda chunk: mlqa_tokens(chunk, lang))


def _scorer(name: str, graded: bool, family: str) -> Scorer:
    official = "SQuAD v1.1" if family == "squad" else "MLQA"
    what = "token F1" if graded else "exact match"
    return Scorer(
        name=name,
        description=f"the official {official} evaluation script's {what}, best over the golden answers",
        view=str,  # the scripts lowercase and strip punctuation themselves
        score_rows=_squad(name, graded) if family == "squad" else _mlqa(name, graded),
        signature_parts=(f"profile:{family}@1",),
        graded=graded,
        inputs=("lang",) if family == "mlqa" else (),
        explain=explain_tokens(str.split),  # a seen text is its tokens joined by spaces
        seen_by=_squad_seen if family == "squad" else _mlqa_seen,
        # Both families run when named: their exact match is near 0% on sentence-long responses (and their
        # F1 a low mean), so a file with a language column does not get them unasked either.
        default=False,
    )


SQUAD_EM, SQUAD_F1 = _scorer("squad_em", False, "squad"), _scorer("squad_f1", True, "squad")
MLQA_EM, MLQA_F1 = _scorer("mlqa_em", False, "mlqa"), _scorer("mlqa_f1", True, "mlqa")
