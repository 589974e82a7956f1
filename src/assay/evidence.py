"""Evidence: why one row got its verdict under one metric, in the metric's own words.

``score(..., evidence=True)`` decides each batch of rows and says why in one step (``decide_batch``):
the scorer's call that decides a row's verdict is the one whose result the evidence reads, so the two
can never disagree and nothing is decided twice (``Scorer.decide_rows`` hands over what deciding found:
hard_fact's match, not a second search). Evidence holds the texts as the metric saw them
(``Scorer.view``, or ``Scorer.seen_by``), the rule in words (``Scorer.explain``), and the matched span as
offsets into the original response (mapped back through ``Scorer.alignment``). A scorer without
``explain`` still gets evidence: its description, the outcome and the deciding answer.

A run whose verdicts were not decided here (read back from a scored file, or scored without evidence)
has its stored verdicts explained by the same functions (``evidence_rows``): there is no deciding call
to read, and the stored verdict is what the evidence must agree with.

Evidence is built for a batch of rows at a time, as columns: at a million rows the interpreter's cost
per row, not the texts, is what a trace costs, so each batch's texts are seen once per way of seeing
(both seed protocols lowercase; with the verdicts, the scoring views are the texts as seen) and no
object is built per row but the `Seen` a scorer's `explain` reads.
"""

from __future__ import annotations

import functools
import operator
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .metric import (
    Alignment,
    AnswerSets,
    Evidence,
    ExplainRows,
    MetricScores,
    Outcome,
    Scorer,
    Seen,
    SeenRows,
    Span,
    blank_rows,
    settle,
    system_failures,
)
from .records import Record
from .scorer_inputs import ScoreOptions, row_inputs
from .text import align

BLANK = "the response is blank: incorrect, whatever the golden answer (the seed's caveat 4)"
TEXT_SHOWN = 2000  # characters of each text evidence keeps (and a written trace shows)
CUT_MARK = " [... {:,} characters in all]"


def shown(text: str | None) -> str | None:
    """`text`, cut to its first TEXT_SHOWN characters when longer (saying how long it was)."""
    if text is None or len(text) <= TEXT_SHOWN:
        return text
    return f"{text[:TEXT_SHOWN]}{CUT_MARK.format(len(text))}"


@dataclass(slots=True)
class EvidenceRows:
    """The evidence of a run of rows under one metric, a column per field of ``Evidence``. Texts are
    as shown (cut past TEXT_SHOWN): ten copies of a 50 MB response as ten metrics saw it would cost a
    gigabyte. Metrics that see alike share one `responses` list (the same object)."""

    rules: list[str]
    spans: list[Span | None]
    goldens: list[str | None]
    responses: list[str]

    def __len__(self) -> int:
        return len(self.rules)

    def evidence(self) -> list[Evidence]:
        return list(map(Evidence, self.rules, self.spans, self.goldens, self.responses))

    @classmethod
    def of(cls, found: Sequence[Evidence]) -> EvidenceRows:
        """Stored Evidence (``MetricScores.evidence``) as columns."""
        fields = (operator.attrgetter(name) for name in ("rule", "span", "golden", "response"))
        return cls(*(list(map(field, found)) for field in fields))


# How a batch's responses are seen, by a key equal for metrics that see alike: the seen texts, and the
# same cut for showing. One dict per batch, shared by the batch's metrics.
SeenResponses = dict[object, tuple[list[str], list[str]]]


def decide_batch(
    batch: Sequence[Record],
    scorers: Sequence[Scorer],
    results: Mapping[str, MetricScores],
    options: ScoreOptions,
) -> None:
    """Score a batch of rows under each scorer, each row's verdict and its Evidence from one call: the
    scorer's ``decide_rows`` (verdicts and what it found), else its ``score_rows`` and the explanation
    of that same result. Each metric's verdicts, Evidence included (``MetricScores.evidence``), are
    appended to its `results`. Rows whose system failed and blank rows are settled here, before the
    evidence reads them, as ``scoring.verdicts`` settles every row (again, alike)."""
    failed = system_failures(batch)
    blank = blank_rows(batch, failed)
    responses = list(map(operator.attrgetter("response"), batch))
    answer_sets = AnswerSets.of(list(map(operator.attrgetter("answers"), batch)))
    if options.nfc:
        responses = list(map(_nfc, responses))
        answer_sets = answer_sets.mapped(_nfc)
    views: dict[Callable[[str], str], tuple[list[str], AnswerSets]] = {}
    seen: SeenResponses = {}  # the scoring views are the responses as seen: not seen a second time
    for scorer in scorers:
        if scorer.view not in views:  # scorers sharing a view (both seed protocols lowercase) share its cost
            view = views[scorer.view] = (list(map(scorer.view, responses)), answer_sets.mapped(scorer.view))
            seen[(scorer.view, options.nfc)] = view[0], list(map(shown, view[0]))  # type: ignore[arg-type]  # as _seen keys it
        inputs = [row_inputs(batch, name, options) for name in scorer.inputs]
        if scorer.decide_rows is not None:
            scores, explain_rows = scorer.decide_rows(*views[scorer.view], *inputs)
        else:
            scores = scorer.score_rows(*views[scorer.view], *inputs)  # type: ignore[misc]  # a row scorer
            explain_rows = None
        if options.inflection and scorer.soft_pass is not None:
            scorer.soft_pass(scores, *views[scorer.view])
        settle(scores, scorer, failed, blank)
        found = _explained(scorer, scores, batch, 0, blank, options, seen, explain_rows)
        scores.evidence = found.evidence()
        results[scorer.name].extend(scores)


def evidence_of(
    scorer: Scorer, scores: MetricScores, record: Record, index: int, blank: int, options: ScoreOptions
) -> Evidence:
    """Row `index`'s evidence under `scorer`, from its stored verdict in `scores` (`record` is the row)."""
    return evidence_rows(scorer, scores, [record], index, bytearray([blank]), options).evidence()[0]


def evidence_rows(
    scorer: Scorer,
    scores: MetricScores,
    records: Sequence[Record],
    start: int,
    blank: Sequence[int],
    options: ScoreOptions,
    seen_responses: SeenResponses | None = None,
) -> EvidenceRows:
    """The evidence under `scorer` of rows start, start + 1, ... of `scores`, stored verdicts that were
    not decided with their evidence (a run read back from a file, or scored without it), which are
    `records` (and `blank` says which are blank, from the first of them). `seen_responses`: a dict
    kept across the metrics of one batch of rows, so that metrics that see alike see each response once."""
    return _explained(scorer, scores, records, start, blank, options, seen_responses)


def _rules_without_the_scorer(
    scorer: Scorer,
    scores: MetricScores,
    start: int,
    outcomes: Sequence[int],
    blank: Sequence[int],
    explained: bool,
) -> tuple[list[str], list[int]]:
    """The rules of the rows the core decided (blank, unscored) or the scorer cannot explain, and the
    rows left for the scorer's own explanation."""
    rules: list[str] = [""] * len(outcomes)
    no_evidence = f"{scorer.description} ({scorer.name} gives no evidence of its own)"
    decided = []  # the rows the scorer explains
    forced = not scorer.decides_blank  # the core failed its blank rows, whatever it said
    for row, code in enumerate(outcomes):
        if forced and blank[row]:
            rules[row] = BLANK
        elif code == _UNSCORED:
            rules[row] = scores.reasons.get(start + row, "unscored")
        elif explained:
            decided.append(row)
        else:
            rules[row] = no_evidence
    return rules, decided


def _explained(
    scorer: Scorer,
    scores: MetricScores,
    records: Sequence[Record],
    start: int,
    blank: Sequence[int],
    options: ScoreOptions,
    seen_responses: SeenResponses | None = None,
    explain_rows: ExplainRows | None = None,
) -> EvidenceRows:
    """``evidence_rows``; `explain_rows`, when given, is what the call that decided `scores` found
    (``Scorer.decide_rows``), read in place of the scorer's own explanation."""
    explain_rows = explain_rows or scorer.explain_rows
    stop = start + len(records)
    outcomes, answer_index = scores.outcomes[start:stop], scores.answer_index[start:stop]
    values = scores.values[start:stop] if scores.values is not None else None
    inputs = _row_inputs(scorer, records, options)
    originals = list(map(operator.attrgetter("response"), records))
    # Only the deciding golden answer (else the first) is shown: a row may have thousands.
    deciding = list(map(_deciding, map(operator.attrgetter("answers"), records), answer_index))
    cache: SeenResponses = {} if seen_responses is None else seen_responses
    responses, goldens, responses_shown = _seen(scorer, inputs, originals, deciding, options, cache)
    explained = scorer.explain is not None or explain_rows is not None
    rules, decided = _rules_without_the_scorer(scorer, scores, start, outcomes, blank, explained)
    spans: list[Span | None] = [None] * len(records)
    if explain_rows is not None and decided:

        def cells(column: Sequence[Any]) -> list[Any]:  # the decided rows' cells of a column
            return list(map(column.__getitem__, decided))

        locate = functools.partial(_locate_row, scorer.alignment, originals, responses, options.nfc)
        seen_rows = SeenRows(
            scorer.name,
            list(map(_OUTCOMES.__getitem__, cells(outcomes))),
            cells(answer_index),
            [None] * len(decided) if values is None else cells(values),
            cells(responses),
            cells(goldens),
            cells(originals),
            cells(inputs),
            lambda at, begin, end: locate(decided[at], begin, end),
            {name: cells(column[start:stop]) for name, column in scores.extras.items()},
            decided,
        )
        for row, rule, span in zip(decided, *explain_rows(seen_rows), strict=True):
            rules[row], spans[row] = rule, span
    elif scorer.explain is not None:
        for row in decided:
            response, original = responses[row], originals[row]
            locate = functools.partial(_locate, scorer.alignment, original, response, options.nfc)
            value = values[row] if values is not None else None
            seen = Seen(
                scorer.name, _OUTCOMES[outcomes[row]], answer_index[row], value, response, goldens[row],
                original, inputs[row], locate,
            )  # fmt: skip
            rules[row], spans[row] = scorer.explain(seen)
    return EvidenceRows(rules, spans, list(map(shown, goldens)), responses_shown)


_OUTCOMES = tuple(sorted(Outcome))  # by value: faster than Outcome(value) per row
_UNSCORED = int(Outcome.UNSCORED)
_NONE: Mapping[str, Any] = {}


def _deciding(answers: tuple[str, ...], answer_index: int) -> str | None:
    return answers[max(answer_index, 0)] if answers else None


def _row_inputs(scorer: Scorer, records: Sequence[Record], options: ScoreOptions) -> list[Mapping[str, Any]]:
    """Each row's values of the scorer's declared inputs, by name."""
    if not scorer.inputs:
        return [_NONE] * len(records)
    columns = [row_inputs(records, name, options) for name in scorer.inputs]
    return [dict(zip(scorer.inputs, values)) for values in zip(*columns)]


def _seen(
    scorer: Scorer,
    inputs: list[Mapping[str, Any]],
    originals: list[str],
    deciding: list[str | None],
    options: ScoreOptions,
    cache: SeenResponses,
) -> tuple[list[str], list[str | None], list[str]]:
    """The rows' responses and deciding answers as `scorer` saw them, and the responses as shown; the
    responses taken from `cache` when a metric that sees alike has seen them."""
    if scorer.seen_by is None:
        view = scorer.view
        seen = (lambda text: view(_nfc(text))) if options.nfc else view
        key: object = (view, options.nfc)
        if key not in cache:
            responses = list(map(seen, originals))
            cache[key] = responses, list(map(shown, responses))  # type: ignore[arg-type]
        goldens = [None if golden is None else seen(golden) for golden in deciding]
        return cache[key][0], goldens, cache[key][1]
    # Seen by the row's inputs (the official scripts' tokens, per language): a function per row.
    ways = list(map(scorer.seen_by, inputs))
    key = (scorer.seen_by, scorer.inputs)
    if key not in cache:
        responses = list(map(_applied, ways, originals))
        cache[key] = responses, list(map(shown, responses))  # type: ignore[arg-type]
    goldens = [None if golden is None else way(golden) for way, golden in zip(ways, deciding)]
    return cache[key][0], goldens, cache[key][1]


def _applied(function: Callable[[str], str], text: str) -> str:
    return function(text)


def _locate_row(
    alignment: Alignment | None,
    originals: list[str],
    seens: list[str],
    nfc: bool,
    row: int,
    start: int,
    end: int,
) -> Span | None:
    return _locate(alignment, originals[row], seens[row], nfc, start, end)


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
    if alignment.same_offsets is not None and alignment.same_offsets(original, seen):
        return start, end  # the view kept every offset: what aligning would find, without the work
    return align.locate(
        original, piece, seen, start, end, collapse=alignment.collapse, by_code_point=alignment.by_code_point
    )


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)
