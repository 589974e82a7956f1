"""Evidence: why one row got its verdict under one metric, in the metric's own words.

Built from a decided verdict (outcome, deciding answer, score), so it can never disagree with it: the
texts as the metric saw them (``Scorer.view``, or ``Scorer.seen_by``), the rule in words
(``Scorer.explain``), and the matched span as offsets into the original response (mapped back through
``Scorer.alignment``). ``score(..., evidence=True)`` gives every row's evidence with its verdicts;
``assay.trace`` builds a stored run's traces with the same function. A scorer without ``explain`` still
gets evidence: its description, the outcome and the deciding answer.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from .records import Record
from .scorers._base import Alignment, Evidence, MetricScores, Outcome, Scorer, Seen, Span
from .scoring import ScoreOptions, row_inputs
from .text import align

BLANK = "the response is blank: incorrect, whatever the golden answer (the seed's caveat 4)"
TEXT_SHOWN = 2000  # characters of each text evidence keeps (and a written trace shows)
CUT_MARK = " [... {:,} characters in all]"


def shown(text: str | None) -> str | None:
    """`text`, cut to its first TEXT_SHOWN characters when longer (saying how long it was)."""
    if text is None or len(text) <= TEXT_SHOWN:
        return text
    return f"{text[:TEXT_SHOWN]}{CUT_MARK.format(len(text))}"


def evidence_of(
    scorer: Scorer, scores: MetricScores, record: Record, index: int, blank: int, options: ScoreOptions
) -> Evidence:
    """Row `index`'s evidence under `scorer`, from its decided verdict in `scores` (`record` is the row).
    Its texts are kept as shown (cut past TEXT_SHOWN): ten copies of a 50 MB response as ten metrics
    saw it would cost a gigabyte."""
    outcome, answer_index = _OUTCOMES[scores.outcomes[index]], scores.answer_index[index]
    value = scores.values[index] if scores.values is not None else None
    inputs = (
        {name: row_inputs([record], name, options)[0] for name in scorer.inputs} if scorer.inputs else _NONE
    )
    key, seen = _how_seen(scorer, inputs, options)
    response = _seen_response(key, seen, record.response)
    # Only the deciding golden answer (else the first) is shown: a row may have thousands.
    deciding = record.answers[max(answer_index, 0) : max(answer_index, 0) + 1]
    golden = seen(deciding[0]) if deciding else None
    span: Span | None = None
    if blank:
        rule = BLANK
    elif outcome is Outcome.UNSCORED:
        rule = scores.reasons.get(index, "unscored")
    elif scorer.explain is None:
        rule = f"{scorer.description} ({scorer.name} gives no evidence of its own)"
    else:
        locate = functools.partial(_locate, scorer.alignment, record.response, response, options.nfc)
        row = Seen(
            scorer.name, outcome, answer_index, value, response, golden, record.response, inputs, locate
        )
        rule, span = scorer.explain(row)
    return Evidence(rule, span, shown(golden), str(shown(response)))


_OUTCOMES = tuple(sorted(Outcome))  # by value: faster than Outcome(value) per row
_NONE: Mapping[str, Any] = {}


def _locate(
    alignment: Alignment | None, original: str, seen: str, nfc: bool, start: int, end: int
) -> Span | None:
    """The original response's offsets of the seen response's [start, end); None when the scorer has no
    alignment or the pieces do not join up (no span rather than a wrong one)."""
    if end <= start or alignment is None:
        return None
    piece = alignment.piece
    if nfc:  # NFC composes across code points: align by cluster
        return align.locate(original, lambda t: piece(_nfc(t)), seen, start, end, collapse=alignment.collapse)
    return align.locate(
        original, piece, seen, start, end, collapse=alignment.collapse, by_code_point=alignment.by_code_point
    )


def _how_seen(
    scorer: Scorer, inputs: Mapping[str, Any], options: ScoreOptions
) -> tuple[object, Callable[[str], str]]:
    """How `scorer` sees a row's texts, and a key equal for metrics that see alike."""
    if scorer.seen_by is not None:
        return (scorer.seen_by, *map(id, inputs.values())), scorer.seen_by(inputs)
    view = scorer.view
    return (view, options.nfc), (lambda text: view(_nfc(text))) if options.nfc else view


_LAST_SEEN: dict[tuple[object, int], tuple[str, str]] = {}  # (how, id(original)) -> (original, seen)


def _seen_response(how: object, seen: Callable[[str], str], response: str) -> str:
    """`seen(response)`, reusing the last one when metrics that see alike follow each other (a row's
    traces: both seed protocols, the three unicode metrics): a long response is viewed once, and
    only one view is kept."""
    last = _LAST_SEEN.get((how, id(response)))
    if last is not None and last[0] is response:
        return last[1]
    _LAST_SEEN.clear()
    _LAST_SEEN[how, id(response)] = (response, seen(response))
    return _LAST_SEEN[how, id(response)][1]


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)
