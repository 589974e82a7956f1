"""Run scorers over a dataset: one pass over the rows, every metric's verdicts stored as columns."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._gc import collection_paused
from ._version import __version__
from .errors import InputError, UsageError
from .records import ColumnMap, Dataset, Record, load_records
from .scorers import JUDGE, SCORERS, MetricScores, Scorer, get_scorer
from .scorers._base import AnswerSets
from .summary import IntervalMethod, Summary, summarize
from .text import inflection

if TYPE_CHECKING:
    from .judges.metric import JudgeSetup

ProgressCallback = Callable[[int, int], None]  # (rows done, rows in all)
BATCH_ROWS = 50_000  # rows scored per batch: amortises per-call overhead, bounds the memory of the views


@dataclass(frozen=True)
class ScoreOptions:
    nfc: bool = False  # normalise response and golden answers to NFC before scoring (the seed's caveat 3)
    regex_column: str = "expected_regex"  # where hard_fact finds each row's pattern
    inflection: bool = False  # soft passes for inflected forms, where a scorer has them (phrase_match)
    intervals: IntervalMethod = field(default_factory=IntervalMethod)  # each accuracy's 95% interval

    def signature_parts(self) -> str:
        return f"nfc:{'on' if self.nfc else 'off'}|{self.intervals.signature()}"


@dataclass(frozen=True)
class ScoreRun:
    """The result of ``score``: the dataset, each metric's per-row verdicts, and the summary."""

    dataset: Dataset
    options: ScoreOptions
    metrics: Mapping[str, MetricScores]
    blank: bytearray  # 1 where the response was empty or whitespace only (scored incorrect)
    summary: Summary

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


def signature(metric: str, options: ScoreOptions) -> str:
    """Two runs whose signatures are equal give equal numbers on the same input."""
    scorer = get_scorer(metric)
    parts = [f"{metric}@{scorer.version}", *scorer.signature_parts]
    if scorer.soft_pass is not None:
        parts.append(inflection.SIGNATURE_ON if options.inflection else inflection.SIGNATURE_OFF)
    parts += [
        options.signature_parts(),
        f"assay:{__version__}",
    ]
    return "|".join(parts)


def score(
    data: Dataset | str | Path | Any,
    metrics: Sequence[str] | None = None,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    progress: ProgressCallback | None = None,
    judge: JudgeSetup | None = None,
) -> ScoreRun:
    """Score every row of ``data`` (a Dataset, a file path, or a pandas DataFrame) under each metric;
    by default every deterministic metric whose inputs the data has (``available_metrics``). The
    metric ``judge`` asks the chain of LLM judges in ``judge`` (see ``assay.judges``)."""
    options = options or ScoreOptions()
    dataset = data if isinstance(data, Dataset) else load_records(data, columns=columns)
    if metrics is None or JUDGE not in metrics:
        results, blank = verdicts(dataset, metrics, options, progress)
        return finish(dataset, results, blank, options)
    matchers = [m for m in metrics if m != JUDGE]
    if judge is None:
        raise UsageError(
            "the judge metric needs a chain of judges",
            fix="give --judge SPEC (repeatable), or --config FILE (or ./assay.toml) with [[judge.chain]]",
        )
    from .judges.metric import CASCADE_MATCHERS, judge_metric  # HTTP clients load only for the judge

    if judge.cascade:
        matchers += [m for m in CASCADE_MATCHERS if m not in matchers]
    results, blank = verdicts(dataset, matchers, options, progress)
    results[JUDGE], judged = judge_metric(dataset, results, blank, judge, progress)
    run = finish(dataset, results, blank, options, {JUDGE: judge.signature(options.signature_parts())})
    return dataclasses.replace(run, summary=dataclasses.replace(run.summary, judge=judged))


def available_metrics(dataset: Dataset, options: ScoreOptions) -> tuple[str, ...]:
    """Every registered metric whose inputs the dataset has: all of them need question, golden answer
    and response; the MLQA scores need a language column, hard_fact a pattern column."""
    present = {"id": True, "lang": "lang" in dataset.fields, "regex": options.regex_column in dataset.columns}
    return tuple(name for name, s in SCORERS.items() if all(present[need] for need in s.row_inputs))


def verdicts(
    dataset: Dataset,
    metrics: Sequence[str] | None,
    options: ScoreOptions,
    progress: ProgressCallback | None = None,
) -> tuple[dict[str, MetricScores], bytearray]:
    """Every metric's per-row verdicts, and which rows are blank: the costly part of ``score``."""
    if metrics is None:
        metrics = available_metrics(dataset, options)
    scorers = [get_scorer(name) for name in dict.fromkeys(metrics)]
    for scorer in scorers:
        if "regex" in scorer.row_inputs and options.regex_column not in dataset.columns:
            raise InputError(
                f"{scorer.name} needs each row's pattern, and there is no column '{options.regex_column}' "
                f"(columns found: {', '.join(dataset.columns)})",
                where=dataset.source,
                fix="add the column, or name it with --regex-col NAME",
            )
    results = {s.name: MetricScores.all_failing(s.name, 0, s.extra_columns, graded=s.graded) for s in scorers}
    records = dataset.records
    with collection_paused():
        for start in range(0, len(records), BATCH_ROWS):
            _score_batch(records[start : start + BATCH_ROWS], scorers, results, options)
            if progress is not None:
                progress(min(start + BATCH_ROWS, len(records)), len(records))
    blank = bytearray(map(operator.not_, map(str.strip, map(operator.attrgetter("response"), records))))
    for index in itertools.compress(range(len(blank)), blank):
        for scores in results.values():  # the seed's caveat 4: blank is incorrect, whatever the golden
            scores.force_fail(index)
    return results, blank


def finish(
    dataset: Dataset,
    results: dict[str, MetricScores],
    blank: bytearray,
    options: ScoreOptions,
    signatures: Mapping[str, str] | None = None,
) -> ScoreRun:
    """The ScoreRun of computed verdicts, with its summary (which reads the records' ids). Metrics
    that are not registered scorers (the judge) bring their own `signatures`."""
    known = signatures or {}
    signatures = {name: known.get(name) or signature(name, options) for name in results}
    summary = summarize(dataset, results, blank, signatures, options.signature_parts(), options.intervals)
    return ScoreRun(dataset, options, results, blank, summary)


def _score_batch(
    batch: Sequence[Record],
    scorers: Sequence[Scorer],
    results: Mapping[str, MetricScores],
    options: ScoreOptions,
) -> None:
    responses = list(map(operator.attrgetter("response"), batch))
    answer_sets = AnswerSets.of(list(map(operator.attrgetter("answers"), batch)))
    if options.nfc:
        responses = [unicodedata.normalize("NFC", text) for text in responses]
        answer_sets = answer_sets.mapped(functools.partial(unicodedata.normalize, "NFC"))
    views: dict[Callable[[str], str], tuple[list[str], AnswerSets]] = {}
    last_use = {scorer.view: position for position, scorer in enumerate(scorers)}
    for position, scorer in enumerate(scorers):
        if scorer.view not in views:  # scorers sharing a view (both seed protocols lowercase) share its cost
            views[scorer.view] = (list(map(scorer.view, responses)), answer_sets.mapped(scorer.view))
        inputs = [_row_input(batch, name, options) for name in scorer.row_inputs]
        scores = scorer.score_rows(*views[scorer.view], *inputs)
        if options.inflection and scorer.soft_pass is not None:
            scorer.soft_pass(scores, *views[scorer.view])
        results[scorer.name].extend(scores)
        if last_use[scorer.view] == position:  # a view of a long text costs as much as the text
            del views[scorer.view]


def _row_input(batch: Sequence[Record], name: str, options: ScoreOptions) -> list[Any]:
    if name == "regex":
        return [record.meta.get(options.regex_column) for record in batch]
    return list(map(operator.attrgetter(name), batch))  # a Record field: lang, id
