"""Scorers under the ``unicode`` profile: ``phrase_match``, ``token_f1`` and ``token_em``.

All three see both sides normalised (``text.unicode.normalise``), so NFC/NFD, legacy Indic sequences,
invisible characters, case, Indic digits and punctuation no longer decide a verdict. A golden answer
with no words (empty, or punctuation only) cannot be matched against anything: such a row is
*unscored*, with its reason, never a pass. With several golden answers the best one decides.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..text import unicode
from ..text.search import first_occurring, token_counts
from ._base import PASS, UNSCORED, AnswerSets, MetricScores, Scorer, f1_of_counts
from .inflection import soft_phrase_pass

NO_WORDS = "the golden answer has no words (empty or punctuation only)"


Tokens = list[str]
Words = TypeVar("Words", list[str], str)  # a text's words: tokens, or joined; empty when it has none


def _goldens_by_row(
    answer_sets: Sequence[tuple[str, ...]], tokenise: Callable[[str], Words]
) -> list[list[tuple[int, Words]]]:
    """Each row's golden answers that have words, as (answer index, words); each distinct answer is
    tokenised once, since answers repeat (one question, several responses)."""
    distinct = dict.fromkeys(itertools.chain.from_iterable(answer_sets))
    tokens_of = dict(zip(distinct, map(tokenise, distinct)))
    if isinstance(answer_sets, AnswerSets) and answer_sets.single is not None:
        return [[(0, tokens)] if tokens else [] for tokens in map(tokens_of.__getitem__, answer_sets.single)]
    return [
        [(index, tokens_of[answer]) for index, answer in enumerate(answers) if tokens_of[answer]]
        for answers in answer_sets
    ]


def _mark_unscored(scores: MetricScores, goldens_by_row: Sequence[list[Any]]) -> None:
    """A row none of whose golden answers has words cannot be matched against anything."""
    for row in itertools.compress(range(len(goldens_by_row)), map(operator.not_, goldens_by_row)):
        scores.outcomes[row] = UNSCORED
        scores.reasons[row] = NO_WORDS


def _phrase_match(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """Pass when a golden answer's words occur in the response as a contiguous run of whole words."""
    scores = MetricScores.all_failing("phrase_match", len(responses))
    goldens_by_row = _goldens_by_row(answer_sets, _spaced_golden)
    _mark_unscored(scores, goldens_by_row)
    outcomes, answer_index = scores.outcomes, scores.answer_index
    for row, (response, goldens) in enumerate(zip(responses, goldens_by_row)):
        if not goldens:
            continue
        # Words hold no space, so a space-delimited run inside the spaced response is a whole-word run.
        spaced = unicode.spaced_words(response)
        found = first_occurring([golden for _, golden in goldens], spaced)  # one pass, however many
        if found >= 0:
            outcomes[row], answer_index[row] = PASS, goldens[found][0]
    return scores


def _spaced_golden(answer: str) -> str:
    """The answer's words as one string with a space before and after each; empty when it has none."""
    found = unicode.words(answer)
    return f" {' '.join(found)} " if found else ""


def _token_em(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """Pass when the response's tokens are a golden answer's tokens, in order (SQuAD's exact match,
    under the unicode profile; scripts written without spaces are compared character by character)."""
    scores = MetricScores.all_failing("token_em", len(responses))
    goldens_by_row = _goldens_by_row(answer_sets, unicode.f1_tokens)
    _mark_unscored(scores, goldens_by_row)
    for row, (response, goldens) in enumerate(zip(responses, goldens_by_row)):
        if not goldens:
            continue
        _, length = unicode.token_overlap([], response)  # the count alone first: a long response
        same_length = [(index, golden) for index, golden in goldens if len(golden) == length]
        tokens = unicode.f1_tokens(response) if same_length else []
        index = next((index for index, golden in same_length if golden == tokens), -1)
        if index >= 0:
            scores.outcomes[row], scores.answer_index[row] = PASS, index
    return scores


def _token_f1(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    """The best token F1 over the golden answers, per row; the row passes when it is 1."""
    scores = MetricScores.all_failing("token_f1", len(responses), graded=True)
    values = scores.values
    assert values is not None
    goldens_by_row = _goldens_by_row(answer_sets, unicode.f1_tokens)
    _mark_unscored(scores, goldens_by_row)
    outcomes, answer_index = scores.outcomes, scores.answer_index
    for row, (response, goldens) in enumerate(zip(responses, goldens_by_row)):
        if not goldens:
            continue
        best, index = -1.0, -1
        overlap = _overlap_with(response, len(goldens))
        for candidate, golden in goldens:
            f1 = f1_of_counts(*overlap(golden), len(golden))
            if f1 > best:  # ties: the first answer
                best, index = f1, candidate
        values[row], answer_index[row] = best, index
        if best == 1.0:
            outcomes[row] = PASS
    return scores


def _overlap_with(response: str, answers: int) -> Callable[[Tokens], tuple[int, int]]:
    """(common tokens, response tokens) of a golden answer's tokens with the response's. A short row: in
    C, without making the response's tokens; a long one: the response's tokens are counted once, so
    that a row of thousands of answers reads its response once."""
    if answers * len(response) <= 1 << 20:  # short: a pass in C per answer is cheaper than counting
        return functools.partial(unicode.token_overlap, normalised=response)
    counts = token_counts(response, unicode.f1_tokens)
    length = sum(counts.values())
    return lambda golden: (sum((Counter(golden) & counts).values()), length)


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
