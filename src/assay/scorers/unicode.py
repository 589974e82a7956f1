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
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import regex

from ..text import unicode
from ..text.inflection import rule_of, soft_key
from ..text.search import first_occurring, token_counts
from ._base import (
    PASS,
    UNSCORED,
    Alignment,
    AnswerSets,
    MetricScores,
    Outcome,
    Scorer,
    Seen,
    Span,
    explain_tokens,
    f1_of_counts,
)
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


_WORD = regex.compile(unicode.WORD_PATTERN)  # the unicode profile's word (text.unicode.words)
_LAST_WORD = regex.compile(f"(?r){unicode.WORD_PATTERN}")  # searched from the end
# Pieces (clusters) repeat endlessly across rows: each is normalised once.
NORMALISED = Alignment(functools.lru_cache(1 << 16)(unicode.normalise_keeping_spaces), collapse=True)


def _explain_phrase(seen: Seen) -> tuple[str, Span | None]:
    golden_words = unicode.words(seen.golden or "")
    if seen.outcome is Outcome.FAIL:
        present = set(map(_group, _WORD.finditer(seen.response)))  # no list of a long text's words
        absent = [word for word in golden_words if word not in present]
        why = f"absent: {', '.join(absent)}" if absent else "each occurs, but not together in this order"
        return f"the golden words do not occur as a contiguous run of whole words ({why})", None
    soft = seen.outcome is Outcome.SOFT_PASS
    key: Callable[[str], str] = soft_key if soft else str
    at = _run_at(
        unicode.spaced_words(seen.response)
        if not soft
        else _spaced(map(soft_key, map(_group, _WORD.finditer(seen.response)))),
        _spaced(map(key, golden_words)),
    )
    located = (
        []
        if at is None
        else list(itertools.islice(_WORD.finditer(seen.response), at, at + len(golden_words)))
    )
    span = seen.locate(located[0].start(), located[-1].end()) if located else None
    if not soft:
        return "the golden words occur in the response as a contiguous run of whole words", span
    matched = list(map(_group, located))
    tolerated = "; ".join(rule_of(g, r) for g, r in zip(golden_words, matched) if g != r)
    return f"a soft pass: the golden words occur only with inflections tolerated ({tolerated})", span


def _group(match: regex.Match[str]) -> str:
    return str(match.group())


def _spaced(words: Iterable[str]) -> str:
    return f" {' '.join(words)} "


def _run_at(spaced_words: str, spaced_run: str) -> int | None:
    """Where a run of words starts among words, both `_spaced`, as a word index, or None. Words hold no
    space, so this is a substring search (linear, where comparing slices at each word would cost words
    x run), and the spaces before the place found count the words before it."""
    at = spaced_words.find(spaced_run)
    return None if at < 0 else spaced_words.count(" ", 0, at)


_explain_token_f1 = explain_tokens(unicode.f1_tokens)


def _explain_token_em(seen: Seen) -> tuple[str, Span | None]:
    """token_em's span: from the response's first word to its last (the official scores see no offsets)."""
    if seen.outcome is not Outcome.PASS:
        return _explain_token_f1(seen)
    first = _WORD.search(seen.response)
    if first is None:
        return _explain_token_f1(seen)[0], None
    last = _LAST_WORD.search(seen.response)
    assert last is not None
    return _explain_token_f1(seen)[0], seen.locate(first.start(), last.end())


PHRASE_MATCH = Scorer(
    name="phrase_match",
    description="the golden answer's words occur in the response as a contiguous run of whole words, "
    "under the unicode profile; a golden answer with no words is unscored",
    view=unicode.normalise,
    score_rows=_phrase_match,
    signature_parts=(unicode.SIGNATURE,),
    soft_pass=soft_phrase_pass,
    explain=_explain_phrase,
    alignment=NORMALISED,
    review=True,
    cascade=True,
)

TOKEN_F1 = Scorer(
    default=False,  # near 0% on sentence-long responses: run when named
    name="token_f1",
    description="SQuAD's token F1 (multiset overlap) under the unicode profile, best over the golden "
    "answers; reported as a mean, and a row passes when its F1 is 1",
    view=unicode.normalise,
    score_rows=_token_f1,
    signature_parts=(unicode.SIGNATURE,),
    graded=True,
    explain=_explain_token_f1,
    alignment=NORMALISED,
)

TOKEN_EM = Scorer(
    default=False,  # near 0% on sentence-long responses: run when named
    name="token_em",
    description="the response's tokens equal a golden answer's, under the unicode profile",
    view=unicode.normalise,
    score_rows=_token_em,
    signature_parts=(unicode.SIGNATURE,),
    explain=_explain_token_em,
    alignment=NORMALISED,
)
