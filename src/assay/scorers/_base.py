"""What every scorer shares: the outcome codes, the scorer description, and per-metric result columns."""

from __future__ import annotations

import itertools
import operator
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from ..text.search import token_counts


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
    texts: dict[str, list[str | None]] = field(default_factory=dict)  # text columns (the judge's rationale)
    # Per-row evidence, only when scoring was asked for it (``score(..., evidence=True)``); else None.
    evidence: list[Evidence] | None = None

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


def overlap_f1(golden: Sequence[str], response: Sequence[str]) -> float:
    """SQuAD v1.1's token F1: the harmonic mean of precision and recall over the multiset overlap."""
    return f1_of_counts(sum((Counter(golden) & Counter(response)).values()), len(response), len(golden))


def f1_of_counts(common: int, response_tokens: int, golden_tokens: int) -> float:
    """Token F1 from the overlap's size and the two token counts (as SQuAD's script computes it)."""
    if common == 0:
        return 0.0
    precision, recall = common / response_tokens, common / golden_tokens
    return 2 * precision * recall / (precision + recall)


def explain_tokens(tokenise: Callable[[str], list[str]]) -> Explain:
    """The rule of a token-counting metric (an F1, or an exact match when the row has no score), whose
    texts are seen as their tokens joined by spaces."""

    def explain(seen: Seen) -> tuple[str, Span | None]:
        if seen.score is None:  # exact match
            if seen.outcome is Outcome.PASS:
                return "the response's tokens equal the golden answer's", None
            return "the response's tokens differ from every golden answer's", None
        golden = tokenise(seen.golden or "")
        response = token_counts(seen.response, tokenise)  # no list of a long text's tokens
        common, length = sum((Counter(golden) & response).values()), sum(response.values())
        counts = f"{common} tokens in common; precision {common}/{length}, recall {common}/{len(golden)}"
        return f"token F1 {seen.score:.3f} with the best golden answer: {counts}", None

    return explain


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
EMPTY_GOLDEN = "the golden answer is empty, which the seed protocols score correct (the seed's caveat 1)"


def as_written(text: str) -> str:
    """`text` quoted for a rule, as the user wrote it: repr's quotes and escapes of control characters,
    but a backslash shown once (a pattern's ``\\s`` is ``\\s``, not ``\\\\s``)."""
    return repr(text).replace("\\\\", "\\")


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


@dataclass(frozen=True)
class Scorer:
    """A named deterministic metric: a view applied to both sides, then verdicts for a batch of rows.

    Adding one is a module defining a Scorer and one registration (``scorers.SCORERS``, or a plugin's
    entry point in the group ``assay.scorers``). What it may declare:

    - `inputs`: more per-row values ``score_rows`` takes after responses and answers, one sequence per
      name, resolved by the core: a record field (``id``, ``lang``, ``question``, ``domain``,
      ``scope``), ``gold.<field>`` or ``reply.<field>`` (``assay.parts``), or ``column:<name>`` (an
      input column kept in ``Record.meta``). Which metrics a file can run follows from them; a name
      ending in ``?`` (``gold.value?``) is optional: a file without it still runs, its rows read None.
    - `explain`: the rule and span of one decided row, for traces and evidence; without it a trace
      says the outcome, the score and the deciding answer, under the scorer's description.
      `explain_rows`, its batch form (the same answers, for speed), is used in its place when given.
    - `decide_rows`: `score_rows` with the evidence of the same call (see ``DecideRows``), for a scorer
      whose `explain` would decide again; used when evidence is asked for (``score(..., evidence=True)``).
    - `alignment`: how `view`'s offsets map back to the original response (for spans).
    - `seen_by`: how a row's texts are shown when that is not `view` (the SQuAD scripts' tokens).
    - `default`: whether it runs when no metric is named (and the file has its inputs); a scorer that
      says little on sentence-long responses (an exact-match form) is one ``--metric`` away instead.
    - `decides_blank`: whether it decides blank responses itself. Every other scorer's blank rows are
      failed by the core, whatever it said (the seed's caveat 4); one for which a blank reply may be
      right (``refusal``: a reply its guard blocked declined) declares it and sees them as any row.
    """

    name: str
    description: str
    view: Callable[[str], str]
    score_rows: BatchScorer
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
