"""``squad_em``/``squad_f1`` and ``mlqa_em``/``mlqa_f1``: the official evaluation scripts' numbers.

Each row's score is the best over its golden answers, as in the scripts; the dataset's EM and F1 are
the means (the scripts print them x100). MLQA's rules depend on the row's ``lang`` (en, es, hi, vi,
de, ar, zh); a row in another language is unscored, with that reason, where the script would stop.
"""

from __future__ import annotations

import functools
import itertools
from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..text.search import joined_tokens, token_counts
from ..text.squad import MLQA_LANGUAGES, Rule, mlqa_rules, mlqa_tokens, squad_rule, squad_tokens
from ._base import PASS, MetricScores, Scorer, explain_tokens, f1_of_counts

try:
    from .. import _speedups
except ImportError:  # not built (no C compiler at install): the Python path gives the same numbers
    _speedups = None  # type: ignore[assignment]

Tokenise = Callable[[str], list[str]]
# Characters past which a row's texts take the Python path, which normalises a long text a chunk at a time
# (the accelerator holds a text's code points whole, four bytes each).
LONG_TEXT = 1 << 16
_NO_RULE = 255  # a row's rule in the accelerator's terms: none (a language MLQA has no rules for)


def _score(
    metric: str,
    graded: bool,
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    rules: Mapping[str, Rule],
    tokeniser: Callable[[str], Tokenise],
    languages: Sequence[str] | None = None,
    langs: Sequence[str] | None = None,
) -> MetricScores:
    """Each row's EM or F1 under its language's rule (`languages`: a key of `rules` per row, or None for
    the only rule), in C where the accelerator is built, else (and for rows with a long text) in Python
    with the rule's tokeniser (`tokeniser(key)`); a row whose language has no rule is unscored, saying
    why (`langs`: as the row gave it)."""
    names = list(rules)
    number = {name: index for index, name in enumerate(names)}
    row_rules = None if languages is None else bytes(number.get(lang, _NO_RULE) for lang in languages)
    squad_rows = getattr(_speedups, "squad_rows", None)  # None: not built, or built before it existed
    if squad_rows is None:
        scores = MetricScores.all_failing(metric, len(responses), graded=graded)
        python_rows: Sequence[int] = range(len(responses))
    else:
        outcomes, index, values, python_rows = squad_rows(
            list(responses),
            list(answer_sets),
            tuple(rule.as_tuple() for rule in rules.values()),
            row_rules,
            graded,
            LONG_TEXT,
        )
        scores = MetricScores(metric, bytearray(outcomes), _array("i", index))
        scores.values = _array("d", values) if values is not None else None
    for row in python_rows:
        name = (
            names[0] if row_rules is None else names[row_rules[row]] if row_rules[row] != _NO_RULE else None
        )
        if name is not None:
            _score_row(scores, row, graded, responses[row], answer_sets[row], tokeniser(name))
    if row_rules is not None:
        for row in itertools.compress(range(len(row_rules)), map(_NO_RULE.__eq__, row_rules)):
            lang = repr(langs[row]) if langs is not None else "this row's language"
            scores.mark_unscored(
                row, f"MLQA has no rules for the language {lang}; it has {', '.join(MLQA_LANGUAGES)}"
            )
    return scores


def _array(typecode: str, data: bytes) -> array[Any]:
    column = array(typecode)
    column.frombytes(data)
    return column


def _score_row(
    scores: MetricScores, row: int, graded: bool, response: str, answers: tuple[str, ...], tokenise: Tokenise
) -> None:
    """One row's EM or F1 in Python: the accelerator's reference, and its path for long texts."""
    # The response's tokens counted once per row, not once per golden answer, a chunk at a time.
    predicted_counts = token_counts(response, tokenise)
    predicted_length = sum(predicted_counts.values())
    goldens = [tokenise(answer) for answer in answers]
    if graded:
        best, negative_index = max(
            (
                (f1_of_counts(_common(golden, predicted_counts), predicted_length, len(golden)), -i)
                for i, golden in enumerate(goldens)
            ),
            default=(0.0, 1),  # no golden answer: 0.0, deciding none (index -1), as the accelerator says
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


def _common(golden: list[str], predicted: Counter[str]) -> int:
    """The size of the multiset overlap (SQuAD's num_same), reading only the golden tokens."""
    return sum((Counter(golden) & predicted).values())


def _mlqa_tokeniser(lang: str) -> Tokenise:
    return functools.partial(mlqa_tokens, lang=lang)


@functools.cache
def _squad_rules() -> dict[str, Rule]:
    return {"squad": squad_rule()}


def _squad(metric: str, graded: bool) -> Callable[[Sequence[str], Sequence[tuple[str, ...]]], MetricScores]:
    def score_rows(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
        return _score(metric, graded, responses, answer_sets, _squad_rules(), lambda _: squad_tokens)

    return score_rows


def _mlqa(
    metric: str, graded: bool
) -> Callable[[Sequence[str], Sequence[tuple[str, ...]], Sequence[str]], MetricScores]:
    def score_rows(
        responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], langs: Sequence[str]
    ) -> MetricScores:
        languages = [lang.strip().lower() for lang in langs]
        return _score(metric, graded, responses, answer_sets, mlqa_rules(), _mlqa_tokeniser, languages, langs)

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
