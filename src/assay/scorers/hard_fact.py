"""``hard_fact``: each row's own regular expression, found in the response.

The pattern comes from the row (the ``expected_regex`` column, or ``--regex-col``), is compiled with
the ``regex`` module, and is matched case-insensitively on the response folded by the unicode profile
(NFC, legacy sequences, invisible characters, case, Indic digits to ASCII: so write digits in the
pattern as ASCII), with punctuation kept so that a pattern can name it (``50%``, ``10:30``). A match
must stand as a whole: no word character on either side, in any script, and a number never inside a
longer number (``24`` fails on ``2024`` and on ``2.24``). A row without a pattern is unscored; a
pattern that does not compile is an error naming the row.

Patterns come from data, so they are bounded: one that would compile huge (``a{1000000000}``, see
``text.pattern_size``) is refused before it is compiled, and every search has a time budget (the
``regex`` module's ``timeout``), so a catastrophic pattern (``(a|aa)+$`` on forty a's and a ``!``)
leaves its row unscored, with the reason, instead of hanging the run.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import regex

from ..errors import InputError
from ..metric import TIMED_OUT
from ..text import unicode
from ..text.pattern_size import oversize, shown
from ._base import (
    PASS,
    UNSCORED,
    Alignment,
    ExplainRows,
    MetricScores,
    Scorer,
    Seen,
    SeenRows,
    Span,
    as_written,
)

NO_PATTERN = "the row has no expected_regex"
# One search's time budget: this much for any text up to a megabyte, and this much per megabyte past
# it, so that a row stays within a second per megabyte with the other metrics' time (its trace reads
# the match that decided it; only a stored verdict's trace searches again).
PATTERN_SECONDS = 0.25
# Not inside a word, and not inside a number: no digit and separator just before or just after.
_BEFORE, _AFTER = r"(?<!\w)(?<!\d[.,])", r"(?!\w)(?![.,]\d)"


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> regex.Pattern[str]:
    regex.compile(pattern)  # alone first, so that an error's position is the user's
    return regex.compile(f"{_BEFORE}(?:{pattern}){_AFTER}", regex.IGNORECASE)


def budget(text: str) -> float:
    """The seconds one search of `text` may take."""
    return PATTERN_SECONDS * max(1.0, len(text) / 1_000_000)


def search(compiled: regex.Pattern[str], text: str) -> regex.Match[str] | None:
    """`compiled` searched in `text` within its budget (a TimeoutError past it)."""
    return compiled.search(text, timeout=budget(text))


def timed_out_reason(text: str) -> str:
    return f"{TIMED_OUT} of {budget(text):g} s on this response (simplify it: nested or overlapping repeats)"


def _hard_fact(
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    patterns: Sequence[Any],
    ids: Sequence[str],
) -> MetricScores:
    return _searched(responses, patterns, ids, None)


def _decide_rows(
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    patterns: Sequence[Any],
    ids: Sequence[str],
) -> tuple[MetricScores, ExplainRows]:
    """The verdicts, and the rules and spans of the matches that decided them: one search per row,
    whose match (or none) the evidence reads, so that a trace never searches again (and cannot time
    out where the verdict did not)."""
    matches: list[regex.Match[str] | None] = []
    scores = _searched(responses, patterns, ids, matches)

    def explain_rows(rows: SeenRows) -> tuple[list[str], list[Span | None]]:
        rows_seen = zip(rows.positions, rows.inputs, rows.goldens, rows.originals)
        said = [
            _rule(str(inputs.get(PATTERN)), golden, matches[at], text, functools.partial(rows.locate, row))
            for row, (at, inputs, golden, text) in enumerate(rows_seen)
        ]
        return [rule for rule, _ in said], [span for _, span in said]

    return scores, explain_rows


def _searched(
    responses: Sequence[str],
    patterns: Sequence[Any],
    ids: Sequence[str],
    matches: list[regex.Match[str] | None] | None,
) -> MetricScores:
    """Each row's pattern searched in its response; each row's match (None: none, or no search)
    appended to `matches` when given."""
    scores = MetricScores.all_failing("hard_fact", len(responses))
    for row, (response, pattern, record_id) in enumerate(zip(responses, patterns, ids)):
        found = None
        if not isinstance(pattern, str) or not pattern.strip():
            scores.outcomes[row] = UNSCORED
            scores.reasons[row] = NO_PATTERN
        else:
            try:
                found = search(pattern_of(pattern, f"row id {record_id}"), response)
            except TimeoutError:
                scores.outcomes[row] = UNSCORED
                scores.reasons[row] = timed_out_reason(response)
            if found:
                scores.outcomes[row] = PASS
        if matches is not None:
            matches.append(found)
    return scores


def pattern_of(pattern: str, where: str) -> regex.Pattern[str]:
    """A row's pattern, compiled to match whole, to search text folded by ``unicode.fold``."""
    too_large = oversize(pattern)
    if too_large:
        raise InputError(
            f"the expected_regex {shown(pattern)} would compile too large: {too_large}",
            where=where,
            fix="bound its repeats (a{1,50}, not a{1000000}) and keep it short and shallow",
        )
    try:
        # NFC only: case folding the pattern itself would turn \\D into \\d.
        return _compiled(unicodedata.normalize("NFC", pattern))
    except regex.error as exc:
        raise InputError(
            f"the expected_regex {shown(pattern)} does not compile ({exc})",
            where=where,
            fix="fix the pattern (it is a `regex` module pattern, matched on folded, lowercased text)",
        ) from None


PATTERN = "gold.expected_regex"  # the row's pattern: Gold.expected_regex, or the expected_regex column
TEXT_SHOWN = 2000  # characters of a match a rule shows
PATTERN_SHOWN = 60  # a longer pattern (a generated one runs to hundreds of characters) is shown cut


def shown_pattern(pattern: str) -> str:
    """The pattern as a rule names it: whole when short, else its start and its length (a trace says
    what was expected and what matched; the whole pattern is in the gold item)."""
    if len(pattern) <= PATTERN_SHOWN:
        return f"pattern {as_written(pattern)}"
    return f"pattern {as_written(pattern[:PATTERN_SHOWN])}... ({len(pattern):,} characters)"


def _matched_text(original: str, found: regex.Match[str], span: Span | None) -> str:
    """What matched, as the response wrote it where the span maps back (३० days), else as seen."""
    matched = original[span[0] : span[1]] if span is not None else found.group()
    if len(matched) > TEXT_SHOWN:
        matched = f"{matched[:TEXT_SHOWN]} [... {len(matched):,} characters in all]"
    return as_written(matched)


def _explain(seen: Seen) -> tuple[str, Span | None]:
    """A stored verdict's rule (a run not scored with its evidence): the row's pattern searched again."""
    pattern = str(seen.inputs.get(PATTERN))
    try:
        found = search(pattern_of(pattern, f"row id {seen.inputs.get('id')}"), seen.response)
    except TimeoutError:  # it passed in time when scored, but not now (a loaded machine): no span
        return f"the {shown_pattern(pattern)} matched when scored; {timed_out_reason(seen.response)}", None
    return _rule(pattern, seen.golden, found, seen.original, seen.locate)


def _rule(
    pattern: str,
    golden: str | None,
    found: regex.Match[str] | None,
    original: str,
    locate: Callable[[int, int], Span | None],
) -> tuple[str, Span | None]:
    """The rule and span of a row whose pattern found `found` (None: no match) in the seen response."""
    expected = f"{as_written(golden)} (golden answer)" if golden else None
    if found is None:
        if expected is None:
            return f"the {shown_pattern(pattern)} matches nowhere as a whole", None
        return f"no variant of {expected} found as a whole ({shown_pattern(pattern)})", None
    span = locate(*found.span())
    at = f" at {span[0]}-{span[1]}" if span is not None else ""
    matched = f"matched {_matched_text(original, found, span)}{at}"
    if expected is None:
        return f"the {shown_pattern(pattern)} {matched} as a whole", span
    return f"expected {expected}; {matched} ({shown_pattern(pattern)})", span


HARD_FACT = Scorer(
    name="hard_fact",
    description="the row's own regular expression (expected_regex) occurs in the response as a whole, "
    "never inside a longer word or number",
    view=unicode.fold,
    score_rows=_hard_fact,
    signature_parts=(unicode.FOLD_SIGNATURE, f"budget:{PATTERN_SECONDS:g}s"),
    inputs=(PATTERN, "id"),
    explain=_explain,
    decide_rows=_decide_rows,
    alignment=Alignment(functools.lru_cache(1 << 16)(unicode.fold_keeping_spaces), collapse=True),
)
