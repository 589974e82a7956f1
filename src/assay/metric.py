"""What every metric shares, in the core: the outcome codes, a metric's verdicts as columns (MetricScores),
the scorer description (Scorer), what a run scorer is given (RunView), and per-row evidence.

Scorers themselves live in ``assay.scorers``, in plugins, and in the packages above the core (the LLM
grader's); the core finds them by name through ``scorer_registry.SCORERS`` and never imports them.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .errors import UsageError
from .records import Dataset, Record
from .signatures import Signature


class Outcome(IntEnum):
    """How one row fared under one metric. UNSCORED is its own outcome, never folded into pass or fail;
    SOFT_PASS (a pass only once inflections are tolerated, ``--inflection``) is counted apart from PASS."""

    FAIL = 0
    PASS = 1
    UNSCORED = 2
    SOFT_PASS = 3


# Module constants: looking a member up on an Enum class is slow enough to show in per-row loops.
PASS, FAIL, UNSCORED, SOFT_PASS = Outcome.PASS, Outcome.FAIL, Outcome.UNSCORED, Outcome.SOFT_PASS


@dataclass
class MetricScores:
    """One metric's verdicts for a run of rows, stored as columns (compact and fast at a million rows)."""

    metric: str
    outcomes: bytearray = field(default_factory=bytearray)  # an Outcome per row
    answer_index: array[int] = field(default_factory=lambda: array("i"))  # deciding golden answer; -1: none
    extras: dict[str, array[int]] = field(default_factory=dict)  # the scorer's extra_columns
    reasons: dict[int, str] = field(default_factory=dict)  # row index -> why it is unscored
    values: array[float] | None = None  # a graded metric's score per row, in [0, 1] (token_f1's F1)
    texts: dict[str, list[str | None]] = field(default_factory=dict)  # text columns (Scorer.text_columns)
    # Per-row evidence, only when scoring was asked for it (``score(..., evidence=True)``); else None.
    evidence: list[Evidence] | None = None
    # What a run scorer says of the whole run beside its verdicts (its costs, its counts), kept by the
    # summary untouched (``Summary.details``) for the reports that know how to read it; None for most.
    details: Any = None

    @classmethod
    def all_failing(
        cls, metric: str, rows: int, extra_columns: Sequence[str] = (), *, graded: bool = False
    ) -> MetricScores:
        """Columns for `rows` rows, each a FAIL decided by no answer (scoring 0), ready to be filled in."""
        zeros = array("i", bytes(4 * rows))
        return cls(
            metric,
            bytearray(rows),
            array("i", [-1]) * rows,
            {name: array("i", zeros) for name in extra_columns},
            values=array("d", bytes(8 * rows)) if graded else None,
        )

    def __len__(self) -> int:
        return len(self.outcomes)

    def outcome(self, index: int) -> Outcome:
        return Outcome(self.outcomes[index])

    def extend(self, more: MetricScores) -> None:
        offset = len(self.outcomes)
        self.outcomes += more.outcomes
        self.answer_index += more.answer_index
        for name, column in more.extras.items():
            self.extras.setdefault(name, array("i")).extend(column)
        self.reasons.update((offset + index, reason) for index, reason in more.reasons.items())
        if more.values is not None:
            if self.values is None:
                self.values = array("d")
            self.values.extend(more.values)
        for name, texts in more.texts.items():
            self.texts.setdefault(name, []).extend(texts)
        if self.details is None:
            self.details = more.details
        if more.evidence is not None:
            if self.evidence is None:
                self.evidence = []
            self.evidence.extend(more.evidence)

    def mark_unscored(self, index: int, reason: str) -> None:
        """Mark a row unscored, with why, and no deciding answer (a row whose system failed)."""
        self.outcomes[index] = UNSCORED
        self.answer_index[index] = -1
        self.reasons[index] = reason
        if self.values is not None:
            self.values[index] = 0.0

    def force_fail(self, index: int) -> None:
        """Mark a row incorrect with no deciding answer, keeping its extras (a blank response)."""
        self.outcomes[index] = FAIL
        self.answer_index[index] = -1
        self.reasons.pop(index, None)
        if self.values is not None:
            self.values[index] = 0.0


class AnswerSets(list[tuple[str, ...]]):
    """The golden answers of a batch of rows, a tuple per row. When every row has exactly one answer
    (the seed's format) `single` holds them flat, for the scorers' faster path."""

    def __init__(self, rows: Iterable[tuple[str, ...]], single: list[str] | None = None) -> None:
        super().__init__(rows)
        self.single = single

    @classmethod
    def of(cls, answer_sets: Sequence[tuple[str, ...]]) -> AnswerSets:
        if isinstance(answer_sets, AnswerSets):
            return answer_sets
        single = None
        if set(map(len, answer_sets)) == {1}:
            single = list(map(operator.itemgetter(0), answer_sets))
        return cls(answer_sets, single)

    def mapped(self, function: Callable[[str], str]) -> AnswerSets:
        """Every answer passed through `function` (a scorer's view, NFC)."""
        if self.single is not None:
            single = list(map(function, self.single))
            return AnswerSets(zip(single), single)
        return AnswerSets(map(tuple, map(map, itertools.repeat(function), self)))


# A scorer sees a batch of responses and their golden answers, both after its `view` (e.g. lowercasing),
# and returns one MetricScores row per response. Batches keep per-row interpreter overhead low.
# A scorer also takes, after responses and answers, a sequence per name in its `inputs` (one value per row).
BatchScorer = Callable[..., MetricScores]
# Turns some of a batch's FAIL rows into SOFT_PASS rows, seeing the same views as the scorer.
SoftPass = Callable[[MetricScores, Sequence[str], Sequence[tuple[str, ...]]], None]

Span = tuple[int, int]


# Not frozen (a frozen dataclass is slower to build, which shows at a trace per row and metric): treat
# Evidence and Seen as immutable all the same.
@dataclass(slots=True)
class Evidence:
    """Why one row got its verdict: the rule in words, the matched span as [start, end) offsets into the
    ORIGINAL response (None when the pass is not a place in it), and the deciding golden answer and the
    response as the metric saw them (after its normalisation)."""

    rule: str
    span: Span | None
    golden: str | None
    response: str


@dataclass(slots=True)
class Seen:
    """One row's decided verdict as its metric saw it: what a scorer's `explain` reads to say why.

    `locate(start, end)` maps offsets in the seen `response` back to the original response's (through
    the scorer's `alignment`); `inputs` holds the row's value of each of the scorer's declared inputs.
    """

    metric: str
    outcome: Outcome
    answer_index: int  # the deciding golden answer; -1: none
    score: float | None  # a graded metric's row score
    response: str  # seen
    golden: str | None  # seen: the deciding golden answer (else the first)
    original: str  # the response as it came
    inputs: Mapping[str, Any]
    locate: Callable[[int, int], Span | None]


@dataclass(slots=True)
class SeenRows:
    """Decided rows as their metric saw them, a column per field of `Seen`: what a scorer's
    `explain_rows` reads. `locate(row, start, end)` maps offsets in row `row`'s seen response back to
    its original's; `extras` holds what scoring counted (``MetricScores.extras``), to reuse."""

    metric: str
    outcomes: list[Outcome]
    answer_index: list[int]
    scores: list[float | None]
    responses: list[str]
    goldens: list[str | None]
    originals: list[str]
    inputs: list[Mapping[str, Any]]
    locate: Callable[[int, int, int], Span | None]
    extras: Mapping[str, list[int]]  # the rows' values of the scorer's extra_columns, as it decided
    positions: Sequence[int] = ()  # each row's place in its batch (what a `decide_rows` call found, by row)


# What a scorer says about one decided row: the rule in words, and the span already mapped back to the
# original response's offsets (through `Seen.locate`), or None.
Explain = Callable[[Seen], tuple[str, Span | None]]
# The same for a batch of rows at once, a list of rules and a list of spans: what `explain` says of
# each row, for less than a call per row (a trace per row and metric, at a million rows).
ExplainRows = Callable[[SeenRows], tuple[list[str], list[Span | None]]]
# A batch's verdicts and their evidence from one call (``Scorer.decide_rows``): the arguments of
# `score_rows`, and back the verdicts and an ExplainRows that reads what deciding found (by
# ``SeenRows.positions``), so that evidence never decides again (hard_fact's search).
DecideRows = Callable[..., tuple[MetricScores, ExplainRows]]
# How a scorer sees a text for one row, given the row's inputs (the official scripts' tokens, per lang).
SeenBy = Callable[[Mapping[str, Any]], Callable[[str], str]]


@dataclass(frozen=True)
class Alignment:
    """How offsets in a view's output map back to the original text: the view of one piece, whether
    whitespace is then collapsed, and whether a piece is a code point (the view maps them one by one)
    rather than a grapheme cluster. `same_offsets(original, seen)`, when given, is a quick test that
    the view kept every offset of a text (the seen text's [start, end) is the original's): a span then
    needs no aligning. It must say True only where aligning would give the same offsets."""

    piece: Callable[[str], str]
    collapse: bool = False
    by_code_point: bool = False
    same_offsets: Callable[[str, str], bool] | None = None


EMPTY_GOLDEN = "the golden answer is empty, which the seed protocols score correct (the seed's caveat 1)"
# How the reason of a row begins whose search ran past its time budget (hard_fact's pattern): the summary
# lists those rows' ids apart.
TIMED_OUT = "the pattern ran past its time budget"
OPTIONAL = "?"  # an input or a need named with this suffix may be absent: read when there, else skipped


@dataclass(frozen=True)
class RunView:
    """What a run scorer (``Scorer.score_run``) is given: the whole run at once, after the metrics it
    `needs` are decided (blank rows failed and failed systems' rows unscored, as the core does).

    `metrics` holds the verdicts of the metrics it needs that ran (an optional need, ``name?``, that did
    not run is absent); `blank` is 1 for each row whose response is empty or whitespace only;
    `options` is the run's ``ScoreOptions``; `progress(done, total)` reports rows done, when given.
    """

    dataset: Dataset
    metrics: Mapping[str, MetricScores]
    blank: bytearray
    options: Any  # the run's ScoreOptions (assay.scoring), not imported here: scoring imports this module
    progress: Callable[[int, int], None] | None = None

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


# A run scorer: the whole run's verdicts from a RunView, or an awaitable of them (a scorer that asks servers
# concurrently; every async scorer of a run is awaited in one event loop, in one process).
RunScorer = Callable[[RunView], MetricScores | Awaitable[MetricScores]]


def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class Scorer:
    """A named metric: either a row scorer (a view applied to both sides, then ``score_rows``' verdicts for
    a batch of rows: fast, columnar) or a run scorer (``score_run``: the whole run at once, reading other
    metrics' verdicts, maybe asynchronously).

    Adding one is a module defining a Scorer and one registration (``scorer_registry.SCORERS``, or a
    plugin's entry point in the group ``assay.scorers``). What it may declare:

    - `inputs`: more per-row values ``score_rows`` takes after responses and answers, one sequence per
      name, resolved by the core: a record field (``id``, ``lang``, ``question``, ``domain``,
      ``scope``), ``gold.<field>`` or ``reply.<field>`` (``assay.parts``), or ``column:<name>`` (an
      input column kept in ``Record.meta``). Which metrics a file can run follows from them; a name
      ending in ``?`` (``gold.value?``) is optional: a file without it still runs, its rows read None.
    - `needs`: the metrics whose verdicts it reads (``RunView.metrics``), scored first in the same run;
      one ending in ``?`` is read when it runs and not added to the run otherwise. A cycle, or a need no
      registry knows, is a UsageError before any work.
    - `check`: a look at the data before any work (an InputError for a field it reads that is missing),
      for what `inputs` cannot say.
    - `explain`: the rule and span of one decided row, for traces and evidence; without it a trace
      says the outcome, the score and the deciding answer, under the scorer's description.
      `explain_rows`, its batch form (the same answers, for speed), is used in its place when given.
      `rule(scores, row)`: a run scorer's rule for a row, in its own words, read from its columns.
    - `decide_rows`: `score_rows` with the evidence of the same call (see ``DecideRows``), for a scorer
      whose `explain` would decide again; used when evidence is asked for (``score(..., evidence=True)``).
    - `alignment`: how `view`'s offsets map back to the original response (for spans).
    - `seen_by`: how a row's texts are shown when that is not `view` (the SQuAD scripts' tokens).
    - `default`: whether it runs when no metric is named (and the file has its inputs); a scorer that
      says little on sentence-long responses (an exact-match form) is one ``--metric`` away instead.
    - `decides_blank`: whether it decides blank responses itself. Every other scorer's blank rows are
      failed by the core, whatever it said (the seed's caveat 4); one for which a blank reply may be
      right (``refusal``: a reply its guard blocked declined) declares it and sees them as any row.
      `decides_failed`: the same for rows whose system failed, else unscored by the core (the outcome
      class ``system_error``, which ``factual`` fails).
    - `signed`: a derived metric's signature, from the signatures of the metrics scored before it (by
      name) and the run's ScoreOptions, in place of one made of its own parts (``factual``: the rule's
      version and the signature of every metric it combined).
    - `text_columns`: the text columns its MetricScores carries (``MetricScores.texts``), each named
      ``<name>_...``: per-row output writes them, and an input column named ``<name>_...`` clashes.
    - What reports and other metrics read it for: `review` (a matcher whose pass a cue in the response,
      or a `referee`'s other verdict, puts the row on the review list), `referee` (a second opinion on
      the `review` matchers: rows where they differ are listed), `cascade` (a matcher a cascade reads: a
      row is clear when all of them agree), `agrees_with` (the other metric of the agreement pair a
      summary reports by default, when both ran).
    """

    name: str
    description: str
    view: Callable[[str], str] = _as_is
    score_rows: BatchScorer | None = None
    extra_columns: tuple[str, ...] = ()
    version: int = 1
    signature_parts: tuple[str, ...] = ()  # what else decides its numbers: profile, options
    graded: bool = False  # scores each row in [0, 1] (MetricScores.values), reported as a mean
    inputs: tuple[str, ...] = ()  # more per-row inputs score_rows takes (see above)
    soft_pass: SoftPass | None = None  # what --inflection adds (see scorers.inflection)
    explain: Explain | None = None
    explain_rows: ExplainRows | None = None
    decide_rows: DecideRows | None = None
    alignment: Alignment | None = None
    seen_by: SeenBy | None = None
    default: bool = True
    decides_blank: bool = False  # blank rows are its to decide, not failed by the core (see above)
    decides_failed: bool = False  # rows whose system failed are its to decide, not unscored by the core
    signed: Callable[[Mapping[str, object], Any], Signature] | None = None  # a derived metric's (see above)
    needs: tuple[str, ...] = ()  # metrics whose verdicts it reads, scored first (see above)
    score_run: RunScorer | None = None  # instead of score_rows: the whole run at once (see above)
    check: Callable[[Dataset], None] | None = None  # before any work (see above)
    rule: Callable[[MetricScores, int], str] | None = None  # a run scorer's rule for a row
    text_columns: tuple[str, ...] = ()
    review: bool = False
    referee: bool = False
    cascade: bool = False
    agrees_with: str | None = None

    def __post_init__(self) -> None:
        if (self.score_rows is None) == (self.score_run is None):
            raise UsageError(
                f"the scorer {self.name!r} gives {'both' if self.score_run else 'neither'} of score_rows "
                "and score_run",
                fix="give score_rows (a batch of rows at a time) or score_run (the whole run), not both",
            )

    @property
    def by_run(self) -> bool:
        """Whether it scores the whole run at once (``score_run``) rather than batches of rows."""
        return self.score_run is not None


# --- what the core decides whatever a scorer says --------------------------------------------------

SYSTEM_FAILED = "the system failed: {}"  # every metric's reason for a row whose system failed


def system_failures(records: Sequence[Record]) -> dict[int, str]:
    """Row index -> why, for each row whose reply says the system failed to answer (``Reply.error``
    set: an exception, a timeout, a malformed reply). Such a row is unscored under every metric, a
    model grader's included: its empty text is no answer of the system's to grade, and failing it would count
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


def settle(scores: MetricScores, scorer: Scorer, failed: Mapping[int, str], blank: bytearray) -> None:
    """What the core decides whatever a scorer said: a row whose system failed is unscored; a blank
    response is incorrect (the seed's caveat 4); unless the scorer decides such rows itself."""
    for index, reason in {} if scorer.decides_failed else failed.items():
        scores.mark_unscored(index, reason)
    if not scorer.decides_blank:
        for index in itertools.compress(range(len(blank)), blank):
            scores.force_fail(index)
