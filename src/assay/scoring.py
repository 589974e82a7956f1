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
from .scorers import JUDGE, SCORERS, MetricScores, Scorer, check_plugins, get_scorer
from .scorers._base import AnswerSets
from .signature import Signature
from .summary import AGREEMENT_PAIR, IntervalMethod, Summary, summarize
from .text import inflection

if TYPE_CHECKING:
    from .documents import Sources
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

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


def signature(metric: str, options: ScoreOptions) -> Signature:
    """Two runs whose signatures are equal give equal numbers on the same input."""
    scorer = get_scorer(metric)
    parts = [*scorer.signature_parts]
    if scorer.soft_pass is not None:
        parts.append(inflection.SIGNATURE_ON if options.inflection else inflection.SIGNATURE_OFF)
    if SOURCES in scorer.inputs and options.sources is not None:
        parts.append(sources_signature(options))
    elif SOURCES + OPTIONAL in scorer.inputs:  # read when given: the signature says which mode ran
        parts.append("sources:none" if options.sources is None else sources_signature(options))
    parts += [*options.signature_info(), f"assay:{__version__}"]
    return Signature.of(f"{metric}@{scorer.version}", parts)


def score(
    data: Dataset | str | Path | Any,
    metrics: Sequence[str] | None = None,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    progress: ProgressCallback | None = None,
    judge: JudgeSetup | None = None,
    evidence: bool = False,
) -> ScoreRun:
    """Score every row of ``data`` (a Dataset, a file path, or a pandas DataFrame) under each metric;
    by default every deterministic metric whose inputs the data has (``available_metrics``). The
    metric ``judge`` asks the chain of LLM judges in ``judge`` (see ``assay.judges``). With `evidence`,
    each deterministic metric's verdicts come with every row's Evidence (``MetricScores.evidence``)."""
    options = options or ScoreOptions()
    dataset = data if isinstance(data, Dataset) else load_records(data, columns=columns)
    if metrics is None or JUDGE not in metrics:
        results, blank = verdicts(dataset, metrics, options, progress, evidence=evidence)
        return finish(dataset, results, blank, options)
    matchers = [m for m in metrics if m != JUDGE]
    if judge is None:
        raise UsageError(
            "the judge metric needs a chain of judges",
            fix="give --judge SPEC (repeatable), or --config FILE (or ./assay.toml) with [[judge.chain]]",
        )
    from .judges.metric import JudgeMetric  # HTTP clients load only for the judge

    metric = JudgeMetric(judge)
    metric.check_inputs(dataset)  # a field its rubric fills in is missing: before any work
    matchers += [m for m in metric.needs if m not in matchers]
    results, blank = verdicts(dataset, matchers, options, progress, evidence=evidence)
    results[JUDGE], judged = metric.score(dataset, results, blank, progress)
    judged_by = metric.signature(options.signature_info())
    run = finish(dataset, results, blank, options, {JUDGE: judged_by})
    return dataclasses.replace(run, summary=dataclasses.replace(run.summary, judge=judged))


def available_metrics(dataset: Dataset, options: ScoreOptions) -> tuple[str, ...]:
    """The default metrics (``Scorer.default``: built-ins in ``DEFAULT_METRICS``, plugins unless they
    say otherwise) whose declared inputs (``Scorer.inputs``) the dataset has: all of them need
    question, golden answer and response; the MLQA scores need a language column, hard_fact a pattern.
    The others (squad_em, squad_f1, token_f1, token_em) run when named."""
    return tuple(
        name
        for name, s in SCORERS.items()
        if s.default and all(has_input(dataset, need, options) for need in s.inputs)
    )


def verdicts(
    dataset: Dataset,
    metrics: Sequence[str] | None,
    options: ScoreOptions,
    progress: ProgressCallback | None = None,
    *,
    evidence: bool = False,
) -> tuple[dict[str, MetricScores], bytearray]:
    """Every metric's per-row verdicts, and which rows are blank: the costly part of ``score``. With
    `evidence`, each metric's MetricScores also holds every row's Evidence (``scorers.Evidence``)."""
    check_plugins()
    if metrics is None:
        metrics = available_metrics(dataset, options)
    scorers = [get_scorer(name) for name in dict.fromkeys(metrics)]
    for scorer in scorers:
        check_inputs(dataset, scorer, options)
    results = {s.name: MetricScores.all_failing(s.name, 0, s.extra_columns, graded=s.graded) for s in scorers}
    records = dataset.records
    score_batch = _score_batch
    if evidence:  # each row's verdict and its evidence from one call of the scorer, never a second pass
        from .evidence import decide_batch

        score_batch = decide_batch
        for scores in results.values():
            scores.evidence = []
    with collection_paused():
        for start in range(0, len(records), BATCH_ROWS):
            score_batch(records[start : start + BATCH_ROWS], scorers, results, options)
            if progress is not None:
                progress(min(start + BATCH_ROWS, len(records)), len(records))
    failed = system_failures(records)
    blank = blank_rows(records, failed)
    for index, reason in failed.items():
        for scores in results.values():
            scores.mark_unscored(index, reason)
    forced = [results[s.name] for s in scorers if not s.decides_blank]
    for index in itertools.compress(range(len(blank)), blank):
        for scores in forced:  # the seed's caveat 4: blank is incorrect, whatever the golden
            scores.force_fail(index)
    return results, blank


SYSTEM_FAILED = "the system failed: {}"  # every metric's reason for a row whose system failed


def system_failures(records: Sequence[Record]) -> dict[int, str]:
    """Row index -> why, for each row whose reply says the system failed to answer (``Reply.error``
    set: an exception, a timeout, a malformed reply). Such a row is unscored under every metric, the
    judge included: its empty text is no answer of the system's to grade, and failing it would count
    the failure twice, as a wrong answer too (the run's outcome says ``system_error``)."""
    replies = list(map(operator.attrgetter("reply"), records))
    if not any(replies):
        return {}
    return {
        index: SYSTEM_FAILED.format(reply.error)
        for index, reply in enumerate(replies)
        if reply is not None and reply.error is not None and str(reply.error).strip()
    }


def blank_rows(records: Sequence[Record], failed: Mapping[int, str] | None = None) -> bytearray:
    """1 for each row whose response is empty or whitespace only and whose system did not fail
    (`failed`: ``system_failures(records)``, found when not given), else 0."""
    blank = bytearray(map(operator.not_, map(str.strip, map(operator.attrgetter("response"), records))))
    for index in system_failures(records) if failed is None else failed:
        blank[index] = 0
    return blank


# --- inputs: what a scorer declares, resolved the same way for every scorer ---------------------------

RECORD_INPUTS = ("id", "lang", "question", "domain", "scope")  # Record fields a scorer may declare
# Optional record fields, with the words and the way to name them that a missing one's error gives.
_FIELD_HELP = {
    "lang": ("language", "--lang-col", "ColumnMap(lang=...)"),
    "domain": ("domain", "--domain-col", "ColumnMap(domain=...)"),
    "scope": ("scope", None, None),
}
_GOLD_WORDS = {"expected_regex": "pattern"}  # how a missing gold field is named in errors


def gold_column(field_name: str, options: ScoreOptions) -> str:
    """The flat input column a `gold.<field>` input falls back to when a row has no `gold` object (or
    its field is unset): `expected_regex` (or --regex-col) for the pattern, else the field's name."""
    return options.regex_column if field_name == "expected_regex" else field_name


OPTIONAL = "?"  # an input named with this suffix ("gold.value?") may be absent: its rows then read None
# An input every row reads alike: the documents of ScoreOptions.sources (``documents.Sources``),
# loaded on first use, once per state of the folder (so pypdf loads only for a metric that reads them).
SOURCES = "sources"


def has_input(dataset: Dataset, name: str, options: ScoreOptions) -> bool:
    """Whether the dataset can give every row a value for the input `name` (see ``Scorer.inputs``); an
    optional input (``gold.value?``) always can, as None where the dataset lacks it."""
    if name.endswith(OPTIONAL) or name in ("id", "question"):
        return True
    if name == SOURCES:
        return options.sources is not None
    if name in RECORD_INPUTS:
        return name in dataset.fields
    part, _, rest = name.partition(".")
    if part == "gold" and rest:
        return "gold" in dataset.fields or gold_column(rest, options) in dataset.columns
    if part == "reply" and rest:
        return "reply" in dataset.fields
    if name.startswith("column:"):
        return name.removeprefix("column:") in dataset.columns
    return False


def check_inputs(dataset: Dataset, scorer: Scorer, options: ScoreOptions) -> None:
    """A metric asked for whose input is missing stops the run, the same way for each: scoring nothing
    and exiting 0 would pass for a result. One error, naming the metric, the column and the fix."""
    for need in scorer.inputs:
        if has_input(dataset, need, options):
            continue
        if need == SOURCES:
            raise InputError(
                f"{scorer.name} needs the source documents the replies cite, and no sources folder "
                "is given",
                where=dataset.source,
                fix="give --sources DIR, the folder of the documents (as for assay gold build --sources); "
                "ScoreOptions(sources=...) in Python",
            )
        what, column, fix = _missing_input(need, options)
        raise InputError(
            f"{scorer.name} needs each row's {what}, and there is no column '{column}' "
            f"(columns found: {', '.join(dataset.columns)})",
            where=dataset.source,
            fix=fix,
        )


def _missing_input(name: str, options: ScoreOptions) -> tuple[str, str, str]:
    """(what the input is in words, the column looked for, the fix) for an input the dataset lacks."""
    if name in _FIELD_HELP:
        what, flag, python = _FIELD_HELP[name]
        named = f", or name it with {flag} NAME ({python} in Python)" if flag else f" named '{name}'"
        return what, name, f"add the column{named}"
    part, _, rest = name.partition(".")
    if part == "gold" and rest:
        column = gold_column(rest, options)
        if rest == "expected_regex":
            fix = (
                "add the column, or name it with --regex-col NAME (ScoreOptions(regex_column=...) in Python)"
            )
        else:
            fix = f"add the column, or a 'gold' column whose objects hold '{rest}'"
        return _GOLD_WORDS.get(rest, f"gold {rest}"), column, fix
    if part == "reply" and rest:
        return f"reply {rest}", "reply", f"add a 'reply' column whose objects hold '{rest}'"
    if name.startswith("column:"):
        column = name.removeprefix("column:")
        return f"'{column}'", column, "add the column"
    return (
        name,
        name,
        f"'{name}' is not an input assay knows: declare a record field, gold.X, reply.X or column:X",
    )


def row_inputs(batch: Sequence[Record], name: str, options: ScoreOptions) -> list[Any]:
    """Each row's value of the input `name` (None where a row has none): the one resolver of inputs."""
    name = name.removesuffix(OPTIONAL)
    if name == SOURCES:  # an optional sources input reads None without a folder
        return [None if options.sources is None else run_sources(options)] * len(batch)
    if name in RECORD_INPUTS:
        return list(map(operator.attrgetter(name), batch))
    part, _, rest = name.partition(".")
    if part == "gold":
        column = gold_column(rest, options)
        return [_gold_value(record, rest, column) for record in batch]
    if part == "reply":
        return [None if record.reply is None else getattr(record.reply, rest, None) for record in batch]
    column = name.removeprefix("column:")
    return [record.meta.get(column) for record in batch]


def run_sources(options: ScoreOptions) -> Sources:
    """The documents of ``options.sources``, loaded once per state of the folder."""
    if options.sources is None:
        raise UsageError("no sources folder is given", fix="give --sources DIR (ScoreOptions(sources=...))")
    from .scorers.grounding import load_run_sources  # the PDF libraries load only here

    return load_run_sources(options.sources)


def sources_signature(options: ScoreOptions) -> str:
    """The signature part of the sources folder: its documents' ids, hashes and extractors."""
    from .scorers.grounding import sources_signature as signature_of

    return signature_of(run_sources(options))


def _gold_value(record: Record, field_name: str, column: str) -> Any:
    value = None if record.gold is None else getattr(record.gold, field_name, None)
    return record.meta.get(column) if value is None else value


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
        inputs = [row_inputs(batch, name, options) for name in scorer.inputs]
        scores = scorer.score_rows(*views[scorer.view], *inputs)
        if options.inflection and scorer.soft_pass is not None:
            scorer.soft_pass(scores, *views[scorer.view])
        results[scorer.name].extend(scores)
        if last_use[scorer.view] == position:  # a view of a long text costs as much as the text
            del views[scorer.view]
