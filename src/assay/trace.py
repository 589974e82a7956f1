"""A trace for every verdict: what the metric saw, the rule that decided, and where it matched.

A trace is the scorer's evidence of a row's verdict (``assay.evidence``: the golden answer and the
response as the metric saw them, the rule in words, and the matched span as character offsets
[start, end) into the original response, for the metrics whose pass is a place in the response:
exact_substring, phrase_match, token_em, hard_fact), with the verdict's outcome and score. Metrics that
count tokens (word_overlap, the F1 scores) have no span; their rule says what they counted.

A run scored with ``evidence=True`` holds each verdict's evidence from the call that decided it: its
traces are read, never decided again. A run without it (a scored file read back, or one scored without
evidence) has its stored verdicts explained, so that a trace never disagrees with its verdict.
Traces stay typed (``Trace``) up to the renderers; JSON is made of them only to write a file
(``traces_as_json``, ``traces_json``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .evidence import BLANK, CUT_MARK, TEXT_SHOWN, EvidenceRows, SeenResponses, evidence_rows, shown
from .metric import EMPTY_GOLDEN, MetricScores, Outcome
from .records import Dataset, Record
from .scorer_registry import SCORERS
from .scoring import ScoreOptions, ScoreRun, score

__all__ = [
    "BLANK",
    "CUT_MARK",
    "EMPTY_GOLDEN",
    "TEXT_SHOWN",
    "Trace",
    "explain",
    "trace",
    "trace_dicts",
    "trace_rows",
    "traces",
    "traces_as_json",
]

OUTCOME_NAMES = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.UNSCORED: "unscored",
    Outcome.SOFT_PASS: "soft_pass",
}
_OUTCOME_NAME = tuple(OUTCOME_NAMES[code] for code in sorted(Outcome))  # by code: a tuple is faster


# Not frozen (a frozen dataclass is three times slower to build, which shows at a trace per row and
# metric): treat a Trace as immutable all the same, as ``Evidence``.
@dataclass(slots=True)
class Trace:
    """Why one row got its verdict under one metric: the outcome, the rule that decided, the texts as
    the metric saw them and where it matched, from the evidence of the call that decided it."""

    metric: str
    outcome: str  # pass, fail, unscored or soft_pass
    rule: str  # what decided, in words
    golden: str | None  # the deciding golden answer (else the first) as the metric saw it
    response: str  # the response as the metric saw it (its first TEXT_SHOWN characters, when longer)
    span: tuple[int, int] | None = None  # [start, end) of the match in the original response
    score: float | None = None  # a graded metric's row score

    def as_dict(self) -> dict[str, Any]:
        """The trace as written to files. Its texts are cut already (``evidence.shown``: a long text as
        the metric saw it keeps its first TEXT_SHOWN characters and says how long it was), so that a
        50 MB cell does not become ten copies of it, one per metric; cutting again would misstate the
        length."""
        found: dict[str, Any] = {"outcome": self.outcome, "rule": self.rule}
        found |= {"golden": self.golden, "response": self.response}
        found["span"] = list(self.span) if self.span else None
        return found | ({} if self.score is None else {"score": self.score})


_shown = shown


def traces(run: ScoreRun, index: int) -> dict[str, Trace]:
    """Every metric's trace of row `index` of a run."""
    return trace_rows(run, index, index + 1)[0]


def trace_rows(run: ScoreRun, start: int, stop: int) -> list[dict[str, Trace]]:
    """Every metric's trace of each of rows start..stop, keyed by metric: the evidence kept with the
    run's verdicts (``score(..., evidence=True)``), or its stored verdicts explained, a metric at a time."""
    seen: SeenResponses = {}  # metrics that see alike see the response once
    per_metric = []
    for metric, scores in run.metrics.items():
        if metric not in SCORERS:  # a configured scorer or a derived metric: its rules are its own words
            per_metric.append([_rule_trace(run, metric, scores, index) for index in range(start, stop)])
            continue
        found = _evidence(run, metric, start, stop, seen)
        outcomes = map(_OUTCOME_NAME.__getitem__, scores.outcomes[start:stop])
        values: Iterable[float | None] = itertools.repeat(None)
        if scores.values is not None:
            values = scores.values[start:stop]
        row_traces = map(
            Trace,
            itertools.repeat(metric),
            outcomes,
            found.rules,
            found.goldens,
            found.responses,
            found.spans,
            values,
        )
        per_metric.append(list(row_traces))
    if not per_metric:
        return [{} for _ in range(start, stop)]
    return [dict(zip(run.metrics, row)) for row in zip(*per_metric)]


def traces_as_json(found: Mapping[str, Trace]) -> str:
    """A row's traces as one JSON object keyed by metric, as ``json.dumps({metric: trace.as_dict()},
    ensure_ascii=False)`` writes it (what --trace and --trace-col write); a response two metrics saw
    alike (the same text) is encoded once."""
    pieces, last, last_json = [], None, ""
    for metric, one in found.items():
        response = one.response
        if response is not last:
            last, last_json = response, _string(response)
        golden, span, score = one.golden, one.span, one.score
        pieces.append(
            _KEYED_TRACE_JSON(
                _string(metric),
                _OUTCOME_JSON_BY_NAME[one.outcome],
                _string(one.rule),
                "null" if golden is None else _string(golden),
                last_json,
                "null" if span is None else f"[{span[0]}, {span[1]}]",
                "" if score is None else _score_json(score),
            )
        )
    return f"{{{', '.join(pieces)}}}"


def trace(run: ScoreRun, metric: str, index: int) -> Trace:
    scores: MetricScores = run.metrics[metric]
    if metric not in SCORERS:  # a configured scorer (its own words are the rule) or a derived metric
        return _rule_trace(run, metric, scores, index)
    found = _evidence(run, metric, index, index + 1, {}).evidence()[0]
    value = scores.values[index] if scores.values is not None else None
    outcome = _OUTCOME_NAME[scores.outcomes[index]]
    return Trace(metric, outcome, found.rule, found.golden, found.response, found.span, value)


def trace_dicts(found: Mapping[str, Trace | Mapping[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """A row's traces as the dicts a report reads, keyed by metric: a Trace's ``as_dict``, a dict (a
    report model's row holds them so) as it is."""
    return {
        metric: one.as_dict() if isinstance(one, Trace) else dict(one)
        for metric, one in (found or {}).items()
    }


def _evidence(run: ScoreRun, metric: str, start: int, stop: int, seen: SeenResponses) -> EvidenceRows:
    """A registered scorer's evidence of rows start..stop: stored with the run, or built from its
    verdicts (`seen` shared by the metrics of these rows)."""
    scores = run.metrics[metric]
    if scores.evidence is not None:
        return EvidenceRows.of(scores.evidence[start:stop])
    records, blank = run.records[start:stop], run.blank[start:stop]
    return evidence_rows(SCORERS[metric], scores, records, start, blank, run.options, seen)


def traces_json(run: ScoreRun, start: int, stop: int) -> list[str]:
    """Every metric's trace of each of rows start..stop, each row's as one JSON object keyed by metric,
    exactly as ``json.dumps({metric: trace.as_dict()}, ensure_ascii=False)`` writes it; built a
    metric at a time from the batch's evidence columns, without a Trace or a dict per row."""
    seen: SeenResponses = {}
    encoded: dict[int, list[str]] = {}  # id(a shown responses list) -> its JSON: shared by metrics
    per_metric, keys = [], []
    for metric, scores in run.metrics.items():
        keys.append(_string(metric).replace("{", "{{").replace("}", "}}"))  # as a format's text
        if metric in SCORERS:
            found = _evidence(run, metric, start, stop, seen)
            pieces = _trace_json(scores, start, stop, found, encoded)
        else:  # a configured scorer or a derived metric, whose rules are their own words
            traced = (_rule_trace(run, metric, scores, index).as_dict() for index in range(start, stop))
            pieces = [json.dumps(one, ensure_ascii=False) for one in traced]
        per_metric.append(pieces)
    if not per_metric:
        return ["{}"] * (stop - start)
    row = f"{{{{{', '.join(f'{key}: {{}}' for key in keys)}}}}}"  # {"metric": {}, ...}
    return list(map(row.format, *per_metric))


_string = json.encoder.encode_basestring  # json.dumps's own, with ensure_ascii=False (quotes included)
_OUTCOME_JSON = tuple(f'{{"outcome": "{OUTCOME_NAMES[code]}", "rule": ' for code in sorted(Outcome))
_OUTCOME_JSON_BY_NAME = {OUTCOME_NAMES[code]: _OUTCOME_JSON[code] for code in Outcome}
_TRACE_JSON = '{}{}, "golden": {}, "response": {}, "span": {}{}}}'.format
_KEYED_TRACE_JSON = '{}: {}{}, "golden": {}, "response": {}, "span": {}{}}}'.format  # "metric": {...}


def _trace_json(
    scores: MetricScores, start: int, stop: int, found: EvidenceRows, encoded: dict[int, list[str]]
) -> list[str]:
    """One metric's traces of rows start..stop as JSON (as ``Trace.as_dict`` gives them)."""
    outcomes = map(_OUTCOME_JSON.__getitem__, scores.outcomes[start:stop])
    rules = map(_string, found.rules)
    goldens = map(_text_json, found.goldens)
    responses = encoded.get(id(found.responses))
    if responses is None:
        responses = encoded[id(found.responses)] = list(map(_text_json, found.responses))
    spans = map(_span_json, found.spans)
    if scores.values is None:
        values: Iterable[str] = itertools.repeat("", stop - start)
    else:
        values = map(_score_json, scores.values[start:stop])
    return list(map(_TRACE_JSON, outcomes, rules, goldens, responses, spans, values))


def _text_json(text: str | None) -> str:
    """A text of evidence as a written trace shows it (``Trace.as_dict``: already cut by ``shown``)."""
    return "null" if text is None else _string(text)


def _span_json(span: tuple[int, int] | None) -> str:
    return "null" if span is None else f"[{span[0]}, {span[1]}]"


def _score_json(value: float) -> str:
    return f', "score": {repr(value) if math.isfinite(value) else json.dumps(value)}'


def _rule_trace(run: ScoreRun, metric: str, scores: MetricScores, index: int) -> Trace:
    """The trace of a metric that is no registered scorer: a configured scorer given to the run, in its
    own words (``Scorer.rule``), or a metric derived from others (the harness's ``factual``), whose rule
    is the row's outcome and its reason."""
    scorer = run.scorers.get(metric)
    outcome = scores.outcome(index)
    if scorer is not None and scorer.rule is not None:
        rule = scorer.rule(scores, index)
    elif _DERIVED_RULE in scores.texts:
        rule = f"{scores.texts[_DERIVED_CLASS][index]}: {scores.texts[_DERIVED_RULE][index]}"
    elif outcome is Outcome.UNSCORED:
        rule = scores.reasons.get(index, "unscored")
    else:
        rule = f"{OUTCOME_NAMES[outcome]}, under {metric}"
    record = run.records[index]
    return Trace(
        metric, OUTCOME_NAMES[outcome], rule, _shown(" | ".join(record.answers)), str(_shown(record.response))
    )


# A derived metric's text columns holding each row's class and why (``harness.outcomes``).
_DERIVED_CLASS, _DERIVED_RULE = "outcome", "outcome_reason"


def explain(
    data: Dataset,
    row_id: str,
    metrics: Sequence[str] | None = None,
    options: ScoreOptions | None = None,
) -> tuple[Record, dict[str, Trace]]:
    """One row of a dataset scored alone, with every metric's trace (what ``assay explain`` prints)."""
    record = next((r for r in data.records if r.id == row_id), None)
    if record is None:
        shown = ", ".join(r.id for r in data.records[:5])
        raise InputError(
            f"no row has the id '{row_id}' (the first ids are: {shown})",
            where=data.source,
            fix="give an id from the file's id column (or a 1-based row number when it has none)",
        )
    run = score(dataclasses.replace(data, records=[record]), metrics, options=options, evidence=True)
    return record, traces(run, 0)
