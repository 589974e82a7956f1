"""The two deterministic protocols of the seed evaluation scripts, reproduced exactly.

``exact_substring``: ``answer.lower() in response.lower()`` -- no trimming, no other normalisation.
``word_overlap``: both sides lowercased, split on whitespace, leading/trailing Unicode punctuation
stripped, and the golden word set must be a subset of the response's. With several golden answers a
row passes if any answer passes, and the verdict records which one.

Both take a batch of already-lowercased rows and write straight into result columns. When every row
has one golden answer (the seed's format) they avoid any Python step per row, since at a million rows
the interpreter's per-row overhead, not the string search, is the cost: exact_substring is a chain of
built-in ``map`` calls, and word_overlap runs in the C accelerator (``_speedups.c``), or where that is
not built, as map chains too. Rows with several answers take a plain loop. Tests hold every path to
the one-line definitions.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from collections.abc import Callable, Sequence
from functools import lru_cache

from ..text.search import first_occurring
from ..text.seed import (
    lowercase,
    occurs_as_word,
    punctuation_bitmap,
    punctuation_set,
    seed_words,
    strip_punctuation,
)
from ._base import (
    EMPTY_GOLDEN,
    PASS,
    Alignment,
    AnswerSets,
    MetricScores,
    Outcome,
    Scorer,
    Seen,
    SeenRows,
    Span,
)

try:
    from .. import _speedups
except ImportError:  # not built (no C compiler at install): the Python path gives the same verdicts
    _speedups = None  # type: ignore[assignment]

_OVERLAP_COLUMNS = ("matching_words", "total_golden_words")


def _exact_substring(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    answers = AnswerSets.of(answer_sets).single
    if answers is not None:
        passed = bytearray(map(operator.contains, responses, answers))
        deciding = array("i", map(operator.sub, passed, itertools.repeat(1)))  # 0 when passed, else -1
        return MetricScores("exact_substring", passed, deciding)
    scores = MetricScores.all_failing("exact_substring", len(responses))
    for row, (response, answers_of_row) in enumerate(zip(responses, answer_sets)):
        index = first_occurring(answers_of_row, response)  # one pass, however many answers
        if index >= 0:
            scores.outcomes[row], scores.answer_index[row] = PASS, index
    return scores


@lru_cache(maxsize=1 << 16)  # golden answers repeat across rows (one question, several responses)
def _golden_words(answer: str) -> tuple[str, ...]:
    return tuple(seed_words(answer))


def _word_overlap(responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]]) -> MetricScores:
    answers = AnswerSets.of(answer_sets).single
    if answers is not None:
        return _word_overlap_single(responses, answers)
    scores = MetricScores.all_failing("word_overlap", len(responses), _OVERLAP_COLUMNS)
    matching, total = (scores.extras[name] for name in _OVERLAP_COLUMNS)
    for row, (response, answers_of_row) in enumerate(zip(responses, answer_sets)):
        best = -1.0
        occurs = _occurs_in(response, answers_of_row)
        for index, answer in enumerate(answers_of_row):
            words = _golden_words(answer)
            found = sum(map(occurs, words))
            if found == len(words):  # an empty golden word set passes, as in the seed (caveat 1)
                scores.outcomes[row] = PASS
                scores.answer_index[row], matching[row], total[row] = index, found, found
                break
            if found / len(words) > best:  # keep the closest answer for partial credit
                best = found / len(words)
                scores.answer_index[row], matching[row], total[row] = index, found, len(words)
    return scores


def _occurs_in(response: str, answers: Sequence[str]) -> Callable[[str], bool]:
    """Whether a golden word is among the response's words: a search per word for a short row, and for
    a long one (thousands of answers, a long response) the response's words once, in a set."""
    words = sum(len(_golden_words(answer)) for answer in answers)
    if words * len(response) > 1 << 20:
        return seed_words(response).__contains__
    return lambda word: word in response and occurs_as_word(word, response)


def _word_overlap_single(responses: Sequence[str], answers: Sequence[str]) -> MetricScores:
    """word_overlap for one golden answer per row: in C when the accelerator is built, else in Python."""
    if _speedups is None:
        return _word_overlap_single_python(responses, answers)
    passed, matching_bytes, totals_bytes = _speedups.word_overlap(
        list(responses), list(answers), punctuation_bitmap()
    )
    matching, totals = array("i"), array("i")
    matching.frombytes(matching_bytes)
    totals.frombytes(totals_bytes)
    return MetricScores(
        "word_overlap",
        bytearray(passed),
        array("i", bytes(4 * len(answers))),  # the only answer decides, pass or fail
        dict(zip(_OVERLAP_COLUMNS, (matching, totals))),
    )


def _word_overlap_single_python(responses: Sequence[str], answers: Sequence[str]) -> MetricScores:
    """word_overlap for one golden answer per row, one flat pass over all golden words of the batch."""
    golden = _golden_word_lists(answers)
    totals = array("i", map(len, golden))
    row_of_word = list(itertools.chain.from_iterable(map(itertools.repeat, range(len(answers)), totals)))
    words = list(itertools.chain.from_iterable(golden))
    occurs = map(operator.contains, map(responses.__getitem__, row_of_word), words)
    found = bytearray(len(words))
    for at in itertools.compress(range(len(words)), occurs):
        found[at] = occurs_as_word(words[at], responses[row_of_word[at]])
    ends = list(itertools.accumulate(totals))
    found_before = [0, *itertools.accumulate(found)]
    matching = array(
        "i",
        map(
            operator.sub, map(found_before.__getitem__, ends), map(found_before.__getitem__, [0, *ends[:-1]])
        ),
    )
    passed = bytearray(map(operator.eq, matching, totals))  # an empty golden word set passes (caveat 1)
    deciding = array("i", bytes(4 * len(answers)))  # the only answer decides, pass or fail
    return MetricScores("word_overlap", passed, deciding, dict(zip(_OVERLAP_COLUMNS, (matching, totals))))


def _golden_word_lists(answers: Sequence[str]) -> list[set[str]]:
    """Each answer's seed word set (split, punctuation stripped, empties dropped), built with built-in
    maps but for the few words with punctuation at an end."""
    split = list(map(str.split, answers))
    words = list(itertools.chain.from_iterable(split))
    marks = punctuation_set()
    edged = map(
        operator.or_,
        map(marks.__contains__, map(operator.itemgetter(0), words)),
        map(marks.__contains__, map(operator.itemgetter(-1), words)),
    )
    for at in itertools.compress(range(len(words)), edged):
        words[at] = strip_punctuation(words[at])
    stripped = iter(words)
    regrouped = map(set, map(itertools.islice, itertools.repeat(stripped), map(len, split)))
    return list(map(operator.sub, regrouped, itertools.repeat({""})))


_EXACT_FAILED = "no golden answer, lowercased, occurs in the lowercased response"
_EXACT_PASSED = "the golden answer, lowercased, occurs in the lowercased response (inside a word counts too)"


def _explain_exact(seen: Seen) -> tuple[str, Span | None]:
    golden = seen.golden or ""
    if seen.outcome is not Outcome.PASS:
        return _EXACT_FAILED, None
    if not golden:
        return EMPTY_GOLDEN, None
    at = seen.response.find(golden)
    return _EXACT_PASSED, seen.locate(at, at + len(golden))


def _explain_exact_rows(rows: SeenRows) -> tuple[list[str], list[Span | None]]:
    """``_explain_exact`` of each row: a rule by outcome, and a search and a span for each pass."""
    rules = [
        _EXACT_FAILED if outcome is not PASS else _EXACT_PASSED if golden else EMPTY_GOLDEN
        for outcome, golden in zip(rows.outcomes, rows.goldens)
    ]
    spans: list[Span | None] = [None] * len(rules)
    for row in itertools.compress(range(len(rules)), map(_EXACT_PASSED.__eq__, rules)):
        golden = rows.goldens[row] or ""
        at = rows.responses[row].find(golden)
        spans[row] = rows.locate(row, at, at + len(golden))
    return rules, spans


def _explain_overlap(seen: Seen) -> tuple[str, Span | None]:
    return _overlap_rule(seen.outcome, seen.golden, seen.response), None


def _explain_overlap_rows(rows: SeenRows) -> tuple[list[str], list[Span | None]]:
    """``_explain_overlap`` of each row; a pass's from the golden words scoring counted."""
    totals = rows.extras.get("total_golden_words") or itertools.repeat(-1)  # (a run rebuilt: not kept)
    rules = list(map(_overlap_rule, rows.outcomes, rows.goldens, rows.responses, totals))
    return rules, [None] * len(rules)


_ALL_FOUND = "{0} of {0} golden words occur among the response's words (order and words in between are free)"


def _overlap_rule(outcome: Outcome, golden: str | None, response: str, counted: int = -1) -> str:
    """The rule of a row; `counted`, when known, is how many golden words scoring counted."""
    if outcome is PASS and counted >= 0:
        return _ALL_FOUND.format(counted) if counted else EMPTY_GOLDEN
    return _overlap_rule_of_words(outcome, golden, response)


def _overlap_rule_of_words(outcome: Outcome, golden: str | None, response: str) -> str:
    words = sorted(_golden_words(golden or ""))
    if not words:
        return EMPTY_GOLDEN
    if outcome is PASS:  # decided: every golden word is among the response's words
        missing = []
    elif len(words) * len(response) > 1 << 20:  # as _occurs_in tests a golden word
        present = seed_words(response)
        missing = [word for word in words if word not in present]
    else:
        missing = [word for word in words if word not in response or not occurs_as_word(word, response)]
    found = len(words) - len(missing)
    counted = f"{found} of {len(words)} golden words occur among the response's words"
    if not missing:
        return f"{counted} (order and words in between are free)"
    return f"{counted}; missing: {', '.join(missing)}"


def _lowercase_kept_offsets(original: str, lowered: str) -> bool:
    """Whether lowercasing kept every offset of `original`: str.lower maps each code point to one or
    more (never none), alone as in any context but for the capital sigma (final or not by its
    neighbours); so a lowercase as long as the original, without a capital sigma, mapped each code
    point to one, where aligning code point by code point finds the same offsets (İ, whose lowercase
    is two code points, and the sigma take the aligning)."""
    return len(lowered) == len(original) and "\u03a3" not in original


# str.lower maps code points one by one
LOWERCASE = Alignment(str.lower, collapse=False, by_code_point=True, same_offsets=_lowercase_kept_offsets)

EXACT_SUBSTRING = Scorer(
    name="exact_substring",
    description="the golden answer occurs in the response as one contiguous run of characters (lowercased)",
    view=lowercase,
    score_rows=_exact_substring,
    explain=_explain_exact,
    explain_rows=_explain_exact_rows,
    alignment=LOWERCASE,
    review=True,  # a cue, or a referee, can contradict it
    cascade=True,  # a cascade's matcher
    agrees_with="word_overlap",  # the original evaluation scripts' pair: its agreement is reported
)

WORD_OVERLAP = Scorer(
    name="word_overlap",
    description="every golden word occurs among the response's words, in any order (lowercased, "
    "split on whitespace, Unicode punctuation stripped from the ends of each word)",
    view=lowercase,
    score_rows=_word_overlap,
    extra_columns=_OVERLAP_COLUMNS,
    explain=_explain_overlap,
    explain_rows=_explain_overlap_rows,
    alignment=LOWERCASE,
    review=True,
    cascade=True,
)
