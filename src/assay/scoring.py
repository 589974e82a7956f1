"""Run scorers over a dataset: one pass over the rows, every metric's verdicts stored as columns."""

from __future__ import annotations

import functools
import inspect
import operator
import unicodedata
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._gc import collection_paused
from ._version import __version__
from .errors import InputError, UsageError
from .evidence import decide_batch
from .metric import OPTIONAL, AnswerSets, MetricScores, RunView, Scorer, settle, system_failures
from .metric import SYSTEM_FAILED as SYSTEM_FAILED
from .metric import blank_rows as blank_rows
from .records import ROW_COLUMN, ColumnMap, Dataset, Record, load_records

# The inputs' resolver, re-exported: callers import it from here.
from .scorer_inputs import RECORD_INPUTS as RECORD_INPUTS
from .scorer_inputs import SOURCES as SOURCES
from .scorer_inputs import check_inputs as check_inputs
from .scorer_inputs import gold_column as gold_column
from .scorer_inputs import has_input as has_input
from .scorer_inputs import row_inputs as row_inputs
from .scorer_inputs import run_sources as run_sources
from .scorer_inputs import sources_signature as sources_signature
from .scorer_registry import SCORERS, check_plugins, declaration, default_pair, plan, scorer_of
from .signatures import Signature
from .summary import IntervalMethod, Summary, summarize
from .text import inflection

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
    # The folder of source documents (as `assay gold build --sources`) for the metrics that read them
    # (an input named SOURCES: grounded). In their signatures as its documents' hashes, not its path.
    sources: str | None = None

    def __post_init__(self) -> None:
        if self.on_conflict not in CONFLICT_POLICIES:
            raise UsageError(
                f"unknown on_conflict {self.on_conflict!r}", fix=f"use one of {', '.join(CONFLICT_POLICIES)}"
            )

    def signature_info(self) -> list[str]:
        """The options' signature parts, each ``name:value``."""
        return [f"nfc:{'on' if self.nfc else 'off'}", self.intervals.signature()]

    def signature_parts(self) -> str:
        return "|".join(self.signature_info())


@dataclass(frozen=True)
class ScoreRun:
    """The result of ``score``: the dataset, each metric's per-row verdicts, and the summary."""

    dataset: Dataset
    options: ScoreOptions
    metrics: Mapping[str, MetricScores]
    # 1 where the response was empty or whitespace only (scored incorrect, but by a scorer that decides
    # blank rows itself); 0 where the system failed (``Reply.error``: unscored, see ``system_failures``)
    blank: bytearray
    summary: Summary
    # The Scorers the run was given, not found by name (a configured one: the trace reads its `rule`)
    scorers: Mapping[str, Scorer] = field(default_factory=dict)

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


def signature(
    metric: str | Scorer, options: ScoreOptions, before: Mapping[str, object] | None = None
) -> Signature:
    """Two runs whose signatures are equal give equal numbers on the same input. `before`: the signatures
    of the metrics scored before it, by name, which a derived metric's is made of (``Scorer.signed``)."""
    scorer = scorer_of(metric)
    if scorer.signed is not None:
        return scorer.signed(before or {}, options)
    parts = [*scorer.signature_parts]
    if scorer.soft_pass is not None:
        parts.append(inflection.SIGNATURE_ON if options.inflection else inflection.SIGNATURE_OFF)
    if SOURCES in scorer.inputs and options.sources is not None:
        parts.append(sources_signature(options))
    elif SOURCES + OPTIONAL in scorer.inputs:  # read when given: the signature says which mode ran
        parts.append("sources:none" if options.sources is None else sources_signature(options))
    parts += [*options.signature_info(), f"assay:{__version__}"]
    return Signature.of(f"{scorer.name}@{scorer.version}", parts)


def score(
    data: Dataset | str | Path | Any,
    metrics: Sequence[str | Scorer] | None = None,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    progress: ProgressCallback | None = None,
    evidence: bool = False,
) -> ScoreRun:
    """Score every row of ``data`` (a Dataset, a file path, or a pandas DataFrame) under each metric,
    named or given as a Scorer (a configured one, such as an LLM grader's); by default every
    default metric whose inputs the data has (``available_metrics``). Metrics that others need are scored
    first, in the same run. With `evidence`, each row scorer's verdicts come with every row's Evidence
    (``MetricScores.evidence``)."""
    options = options or ScoreOptions()
    dataset = data if isinstance(data, Dataset) else load_records(data, columns=columns)
    scorers = planned(dataset, metrics, options)
    results, blank = verdicts(dataset, scorers, options, progress, evidence=evidence)
    return finish(dataset, results, blank, options, scorers=scorers)


def available_metrics(dataset: Dataset, options: ScoreOptions) -> tuple[str, ...]:
    """The default metrics (``Scorer.default``: built-ins in ``DEFAULT_METRICS``, plugins unless they
    say otherwise) whose declared inputs (``Scorer.inputs``) the dataset has: all of them need
    question, golden answer and response; hard_fact needs a pattern. The others (squad_em, squad_f1,
    mlqa_em, mlqa_f1, token_f1, token_em) run when named."""
    declared = [(name, declaration(name)) for name in SCORERS]  # a built-in's without loading it
    return tuple(
        name
        for name, d in declared
        if d.default and all(has_input(dataset, need, options) for need in d.inputs)
    )


def planned(dataset: Dataset, metrics: Sequence[str | Scorer] | None, options: ScoreOptions) -> list[Scorer]:
    """The scorers of a run in scoring order (``scorer_registry.plan``), each checked against the data
    before any work: its declared inputs, then its own `check`."""
    check_plugins()
    scorers = plan(available_metrics(dataset, options) if metrics is None else metrics)
    for scorer in scorers:
        check_inputs(dataset, scorer, options)
        if scorer.check is not None:
            scorer.check(dataset)
    return scorers


def verdicts(
    dataset: Dataset,
    metrics: Sequence[str | Scorer] | None,
    options: ScoreOptions,
    progress: ProgressCallback | None = None,
    *,
    evidence: bool = False,
) -> tuple[dict[str, MetricScores], bytearray]:
    """Every metric's per-row verdicts, and which rows are blank: the costly part of ``score``. Row
    scorers go through the rows in batches, then run scorers score the whole run, in the order of their
    needs. With `evidence`, each row scorer's MetricScores also holds every row's Evidence."""
    scorers = planned(dataset, metrics, options)
    by_rows = [scorer for scorer in scorers if not scorer.by_run]
    results = {s.name: MetricScores.all_failing(s.name, 0, s.extra_columns, graded=s.graded) for s in by_rows}
    records = dataset.records
    score_batch = _score_batch
    if evidence:  # each row's verdict and its evidence from one call of the scorer, never a second pass
        score_batch = decide_batch
        for scores in results.values():
            scores.evidence = []
    _begin_pass(progress, None)
    with collection_paused():
        for start in range(0, len(records), BATCH_ROWS):
            score_batch(records[start : start + BATCH_ROWS], by_rows, results, options)
            if progress is not None:
                progress(min(start + BATCH_ROWS, len(records)), len(records))
    failed = system_failures(records)
    blank = blank_rows(records, failed)
    for scorer in by_rows:
        settle(results[scorer.name], scorer, failed, blank)
    by_run = [scorer for scorer in scorers if scorer.by_run]
    if by_run:
        _score_runs(dataset, by_run, results, blank, failed, options, progress)
    return results, blank


def _score_runs(
    dataset: Dataset,
    scorers: Sequence[Scorer],
    results: dict[str, MetricScores],
    blank: bytearray,
    failed: Mapping[int, str],
    options: ScoreOptions,
    progress: ProgressCallback | None,
) -> None:
    """Each run scorer in turn, given the verdicts it needs; the async ones awaited in one event loop."""

    async def score_all() -> None:
        for scorer in scorers:
            scores = _run_scorer(scorer, dataset, results, blank, options, progress)
            _keep(scorer, await scores if inspect.isawaitable(scores) else scores, results, failed, blank)

    if any(_is_async(scorer) for scorer in scorers):
        import asyncio  # here: only a run with an async scorer pays for loading it

        asyncio.run(score_all())
        return
    for scorer in scorers:
        scores = _run_scorer(scorer, dataset, results, blank, options, progress)
        if inspect.isawaitable(scores):  # said it was not async, and is
            scores = _await(scores)
        _keep(scorer, scores, results, failed, blank)


def _run_scorer(
    scorer: Scorer,
    dataset: Dataset,
    results: Mapping[str, MetricScores],
    blank: bytearray,
    options: ScoreOptions,
    progress: ProgressCallback | None,
) -> MetricScores | Awaitable[MetricScores]:
    _begin_pass(progress, scorer.name)
    wanted = set(map(_need_name, scorer.needs))
    needed = {name: scores for name, scores in results.items() if name in wanted}  # in the run's order
    assert scorer.score_run is not None  # by_run
    return scorer.score_run(RunView(dataset, needed, blank, options, progress))


def _begin_pass(progress: ProgressCallback | None, metric: str | None) -> None:
    """A progress that tells passes apart (``cli.progress.CountProgress``: "judging 12/40 items" in a
    log) is told which begins: the row metrics' batches (None), or a run metric's, by name."""
    begin = getattr(progress, "begin_pass", None)
    if callable(begin):
        begin(metric)


def _keep(
    scorer: Scorer,
    scores: MetricScores,
    results: dict[str, MetricScores],
    failed: Mapping[int, str],
    blank: bytearray,
) -> None:
    if len(scores) != len(blank):
        raise UsageError(
            f"the metric {scorer.name!r} gave {len(scores)} verdicts for {len(blank)} rows",
            fix=f"fix the scorer {scorer.name!r}: its score_run returns one verdict per row",
        )
    settle(scores, scorer, failed, blank)
    results[scorer.name] = scores


def _need_name(need: str) -> str:
    return need.removesuffix(OPTIONAL)


def _is_async(scorer: Scorer) -> bool:
    run = scorer.score_run
    call = type(run).__call__ if run is not None else None  # an object whose __call__ is async
    return inspect.iscoroutinefunction(run) or inspect.iscoroutinefunction(call)


async def _awaited(pending: Awaitable[MetricScores]) -> MetricScores:
    return await pending


def _await(pending: Awaitable[MetricScores]) -> MetricScores:
    import asyncio

    return asyncio.run(_awaited(pending))


def output_columns(dataset: Dataset, metrics: Sequence[str | Scorer], options: ScoreOptions) -> list[str]:
    """The columns per-row outputs (--out) add after the input's for a run of `metrics`: `row` (the row
    numbers, ``records.ROW_COLUMN``) when the input has no id, each metric's verdict, `<metric>_answer`,
    its extra columns and soft passes, `agreement` and `trace`. (A scorer's text columns all start with
    its name and `_`.)"""
    added = [] if "id" in dataset.fields else [ROW_COLUMN]
    names = []
    for metric in metrics:
        scorer = _known(metric)
        name = metric if isinstance(metric, str) else metric.name
        names.append(name)
        added += [name, f"{name}_answer"]
        if scorer is not None:
            added += [*scorer.extra_columns, *([f"{name}_soft"] if soft_passes(scorer, options) else [])]
    pair = default_pair()
    if pair is not None and all(name in names for name in pair):
        added.append("agreement")
    return [*added, "trace"]


def _known(metric: str | Scorer) -> Scorer | None:
    """A metric's Scorer, given or registered; None for a name no registry knows (a scored file's)."""
    if isinstance(metric, Scorer):
        return metric
    return SCORERS.get(metric)


def soft_passes(metric: str | Scorer, options: ScoreOptions) -> bool:
    """Whether `metric` runs with soft passes (then a `<metric>_soft` column says which rows)."""
    scorer = _known(metric) if options.inflection else None
    return scorer is not None and scorer.soft_pass is not None


def column_conflicts(
    dataset: Dataset, metrics: Sequence[str | Scorer] | None, options: ScoreOptions
) -> list[str]:
    """The input columns named like a column that --out adds; with the policy "error", an InputError."""
    chosen = available_metrics(dataset, options) if metrics is None else metrics
    added = set(output_columns(dataset, chosen, options))
    prefixes = tuple(f"{scorer.name}_" for scorer in map(_known, chosen) if scorer and scorer.text_columns)
    found = [c for c in dataset.columns if c in added or (prefixes and c.startswith(prefixes))]
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
    *,
    scorers: Sequence[Scorer] = (),
) -> ScoreRun:
    """The ScoreRun of computed verdicts, with its summary (which reads the records' ids). `scorers`
    gives the Scorers not found by name (a configured one's); `signatures` may give stored ones."""
    known = signatures or {}
    given = {scorer.name: scorer for scorer in scorers}
    made: dict[str, str] = {}
    for name in results:  # in scoring order: a derived metric's signature is made of those before it
        made[name] = known.get(name) or signature(given.get(name) or name, options, made)
    summary = summarize(
        dataset,
        results,
        blank,
        made,
        options.signature_parts(),
        options.intervals,
        options.agree_pair,
        scorers=given,
    )
    return ScoreRun(dataset, options, results, blank, summary, given)


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
        inputs = [row_inputs(batch, name, options) for name in scorer.inputs]
        scores = scorer.score_rows(*views[scorer.view], *inputs)  # type: ignore[misc]  # a row scorer
        if options.inflection and scorer.soft_pass is not None:
            scorer.soft_pass(scores, *views[scorer.view])
        results[scorer.name].extend(scores)
        if last_use[scorer.view] == position:  # a view of a long text costs as much as the text
            del views[scorer.view]
