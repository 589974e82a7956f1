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
from .scorers import DEFAULT_METRICS, JUDGE, SCORERS, MetricScores, Scorer, get_scorer
from .scorers._base import AnswerSets
from .summary import AGREEMENT_PAIR, IntervalMethod, Summary, summarize
from .text import inflection

if TYPE_CHECKING:
    from .judges.metric import JudgeSetup

ProgressCallback = Callable[[int, int], None]  # (rows done, rows in all)
CONFLICT_POLICIES = ("error", "rename", "replace")
BATCH_ROWS = 50_000  # rows scored per batch: amortises per-call overhead, bounds the memory of the views


@dataclass(frozen=True)
class ScoreOptions:
    nfc: bool = False  # normalise response and golden answers to NFC before scoring (the seed's caveat 3)
    regex_column: str = "expected_regex"  # where hard_fact finds each row's pattern
    inflection: bool = False  # soft passes for inflected forms, where a scorer has them (phrase_match)
    intervals: IntervalMethod = field(default_factory=IntervalMethod)  # each accuracy's 95% interval
    # An input column named like a column --out adds: "error" stops; "rename" writes it as
    # "input:NAME"; "replace" drops it for the fresh one (re-scoring a scored file). Not in the signature.
    on_conflict: str = "error"
    # The two metrics whose agreement the summary reports (--agree-pair); None: exact_substring and
    # word_overlap when both ran. Not in the signature: it changes no number, only what is reported.
    agree_pair: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.on_conflict not in CONFLICT_POLICIES:
            raise UsageError(
                f"unknown on_conflict {self.on_conflict!r}", fix=f"use one of {', '.join(CONFLICT_POLICIES)}"
            )

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
    """The default metrics (``DEFAULT_METRICS``) whose inputs the dataset has: all of them need
    question, golden answer and response; the MLQA scores need a language column, hard_fact a pattern
    column. The others (squad_em, squad_f1, token_f1, token_em) run when named."""
    present = {"id": True, "lang": "lang" in dataset.fields, "regex": options.regex_column in dataset.columns}
    return tuple(
        name
        for name, s in SCORERS.items()
        if name in DEFAULT_METRICS and all(present[need] for need in s.row_inputs)
    )


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
        _check_row_inputs(dataset, scorer, options)
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


def _check_row_inputs(dataset: Dataset, scorer: Scorer, options: ScoreOptions) -> None:
    """A metric asked for whose column is missing stops the run, the same way for each: scoring nothing
    and exiting 0 would pass for a result."""
    needs = {
        "regex": ("pattern", options.regex_column, options.regex_column in dataset.columns, "--regex-col",
                  "ScoreOptions(regex_column=...)"),
        "lang": ("language", "lang", "lang" in dataset.fields, "--lang-col", "ColumnMap(lang=...)"),
    }  # fmt: skip
    for need in scorer.row_inputs:
        if need not in needs or needs[need][2]:
            continue
        what, column, _, flag, python = needs[need]
        raise InputError(
            f"{scorer.name} needs each row's {what}, and there is no column '{column}' "
            f"(columns found: {', '.join(dataset.columns)})",
            where=dataset.source,
            fix=f"add the column, or name it with {flag} NAME ({python} in Python)",
        )


def output_columns(dataset: Dataset, metrics: Sequence[str], options: ScoreOptions) -> list[str]:
    """The columns per-row outputs (--out) add after the input's for a run of `metrics`: an `id` when
    the input has none, each metric's verdict, `<metric>_answer`, its extra columns and soft passes,
    `agreement` and `trace`. (The judge's own text columns all start with `judge_`.)"""
    added = [] if "id" in dataset.fields else ["id"]
    for name in metrics:
        added += [name, f"{name}_answer"]
        if name in SCORERS:
            scorer = get_scorer(name)
            added += [*scorer.extra_columns, *([f"{name}_soft"] if soft_passes(name, options) else [])]
    if all(name in metrics for name in AGREEMENT_PAIR):
        added.append("agreement")
    return [*added, "trace"]


def soft_passes(metric: str, options: ScoreOptions) -> bool:
    """Whether `metric` runs with soft passes (then a `<metric>_soft` column says which rows)."""
    return options.inflection and metric in SCORERS and get_scorer(metric).soft_pass is not None


def column_conflicts(dataset: Dataset, metrics: Sequence[str] | None, options: ScoreOptions) -> list[str]:
    """The input columns named like a column that --out adds; with the policy "error", an InputError."""
    names = available_metrics(dataset, options) if metrics is None else tuple(dict.fromkeys(metrics))
    added = set(output_columns(dataset, names, options))
    judged = JUDGE in names
    found = [c for c in dataset.columns if c in added or (judged and c.startswith(f"{JUDGE}_"))]
    if found and options.on_conflict == "error":
        raise conflict_error(dataset, found)
    return found


def conflict_error(dataset: Dataset, found: Sequence[str]) -> InputError:
    shown = ", ".join(map(repr, found[:6])) + (f" and {len(found) - 6} more" if len(found) > 6 else "")
    return InputError(
        f"input columns {shown} have the names of columns the per-row output adds, which would "
        "overwrite them",
        where=dataset.source,
        fix=f"rename them; or pass --on-conflict rename to keep them as 'input:{found[0]}'; or, to "
        "re-score a scored file, --on-conflict replace to write fresh verdicts in their place "
        "(ScoreOptions(on_conflict=...) in Python)",
    )


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
    summary = summarize(
        dataset, results, blank, signatures, options.signature_parts(), options.intervals, options.agree_pair
    )
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
