"""Scorers under the ``unicode`` profile: ``phrase_match``, ``token_f1`` and ``token_em``.

All three see both sides normalised (``text.unicode.normalise``), so NFC/NFD, legacy Indic sequences,
invisible characters, case, Indic digits and punctuation no longer decide a verdict. A golden answer
with no words (empty, or punctuation only) cannot be matched against anything: such a row is
*unscored*, with its reason, never a pass. With several golden answers the best one decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from ..text import unicode
from ._base import PASS, UNSCORED, MetricScores, Scorer, overlap_f1
from .inflection import soft_phrase_pass

NO_WORDS = "the golden answer has no words (empty or punctuation only)"


Tokens = list[str]


def _scorable(
    scores: MetricScores,
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    tokenise: Callable[[str], Tokens],
) -> Iterator[tuple[int, Tokens, list[tuple[int, Tokens]]]]:
    """(row, response tokens, [(answer index, golden tokens)]) for each row with a golden answer that has
    words; every other row is marked unscored, with the reason."""
    for row, (response, answers) in enumerate(zip(responses, answer_sets)):
        goldens = [(index, tokens) for index, tokens in enumerate(map(tokenise, answers)) if tokens]
        if goldens:
            yield row, tokenise(response), goldens
        else:
            scores.outcomes[row] = UNSCORED
            scores.reasons[row] = NO_WORDS


def _phrase_match(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """Pass when a golden answer's words occur in the response as a contiguous run of whole words."""
    scores = MetricScores.all_failing("phrase_match", len(responses))
    for row, words, goldens in _scorable(scores, responses, answer_sets, unicode.words):
        spaced = f" {' '.join(words)} "
        # Words hold no space, so a space-delimited run inside the spaced response is a whole-word run.
        index = next((index for index, golden in goldens if f" {' '.join(golden)} " in spaced), -1)
        if index >= 0:
            scores.outcomes[row], scores.answer_index[row] = PASS, index
    return scores


def _token_em(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """Pass when the response's tokens are a golden answer's tokens, in order (SQuAD's exact match,
    under the unicode profile; scripts written without spaces are compared character by character)."""
    scores = MetricScores.all_failing("token_em", len(responses))
    for row, tokens, goldens in _scorable(scores, responses, answer_sets, unicode.f1_tokens):
        index = next((index for index, golden in goldens if golden == tokens), -1)
        if index >= 0:
            scores.outcomes[row], scores.answer_index[row] = PASS, index
    return scores


def _token_f1(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """The best token F1 over the golden answers, per row; the row passes when it is 1."""
    scores = MetricScores.all_failing("token_f1", len(responses), graded=True)
    values = scores.values
    assert values is not None
    for row, tokens, goldens in _scorable(scores, responses, answer_sets, unicode.f1_tokens):
        best, negative_index = max((overlap_f1(golden, tokens), -index) for index, golden in goldens)
        values[row], scores.answer_index[row] = best, -negative_index  # ties: the first answer
        if best == 1.0:
            scores.outcomes[row] = PASS
    return scores


PHRASE_MATCH = Scorer(
    name="phrase_match",
    description="the golden answer's words occur in the response as a contiguous run of whole words, "
    "under the unicode profile; a golden answer with no words is unscored",
    view=unicode.normalise,
    score_rows=_phrase_match,
    signature_parts=(unicode.SIGNATURE,),
    soft_pass=soft_phrase_pass,
)

TOKEN_F1 = Scorer(
    name="token_f1",
    description="SQuAD's token F1 (multiset overlap) under the unicode profile, best over the golden "
    "answers; reported as a mean, and a row passes when its F1 is 1",
    view=unicode.normalise,
    score_rows=_token_f1,
    signature_parts=(unicode.SIGNATURE,),
    graded=True,
)

TOKEN_EM = Scorer(
    name="token_em",
    description="the response's tokens equal a golden answer's, under the unicode profile",
    view=unicode.normalise,
    score_rows=_token_em,
    signature_parts=(unicode.SIGNATURE,),
)
