"""Aggregate per-row verdicts into per-domain and combined tallies, and the two protocols' agreement.

Combined accuracy is the micro-average over pooled rows (the seed's definition), which equals the
domain accuracies weighted by domain size. Blank responses count as incorrect and are also counted
apart; unscored rows are excluded from the accuracy's denominator and counted apart. Soft passes
(``--inflection``) are not passes: the accuracy is strict, and ``accuracy_with_soft`` adds them.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from . import stats
from .records import Dataset, Record
from .scorers import MetricScores, Outcome
from .scorers.hard_fact import TIMED_OUT
from .signature import Signature
from .text import inflection
from .text.seed import is_empty_golden

AGREEMENT_PAIR = ("exact_substring", "word_overlap")
# Row scores are summed as integers in units of 2**-60: exact and order-free, and closer than any
# reported digit (each row's score moves by at most 2**-61).
SCORE_UNITS_PER_ONE = 1 << 60
BUCKETS = ("both_pass", "both_fail", "exact_only", "overlap_only")
EXAMPLES_PER_BUCKET = 3


@dataclass(frozen=True)
class Tally:
    n: int
    passed: int
    blank: int = 0
    unscored: int = 0
    # A graded metric's summed row scores (unscored rows add nothing), in units of SCORE_UNIT: an
    # integer sum is exact in any order, so several processes' parts add up to one process's total.
    score_total: int | None = None
    soft: int = 0  # soft passes: failed strictly, passed with inflections tolerated

    @property
    def graded(self) -> bool:
        return self.score_total is not None

    @property
    def mean(self) -> float | None:
        """A graded metric's mean score over scored rows (blank responses count as 0)."""
        scored = self.n - self.unscored
        if self.score_total is None or not scored:
            return None
        return self.score_total / (scored * SCORE_UNITS_PER_ONE)  # int / int: correctly rounded

    @property
    def failed(self) -> int:
        return self.n - self.passed - self.soft - self.unscored

    @property
    def accuracy(self) -> float | None:
        scored = self.n - self.unscored
        return self.passed / scored if scored else None

    @property
    def accuracy_with_soft(self) -> float | None:
        scored = self.n - self.unscored
        return (self.passed + self.soft) / scored if scored else None

    def __add__(self, other: Tally) -> Tally:
        totals = (self.score_total, other.score_total)
        return Tally(
            self.n + other.n,
            self.passed + other.passed,
            self.blank + other.blank,
            self.unscored + other.unscored,
            None if totals == (None, None) else sum(t or 0 for t in totals),
            self.soft + other.soft,
        )


@dataclass(frozen=True)
class IntervalMethod:
    """How every accuracy's 95% interval is computed: Wilson's score interval, or a seeded bootstrap."""

    name: str = "wilson"  # or "bootstrap"
    seed: int = stats.DEFAULT_SEED

    def of(self, tally: Tally) -> stats.Interval | None:
        """The interval of a tally's (strict) accuracy, over its scored rows."""
        scored = tally.n - tally.unscored
        if self.name == "bootstrap":
            return stats.bootstrap_proportion(tally.passed, scored, self.seed)
        return stats.wilson(tally.passed, scored)

    def signature(self) -> str:
        if self.name == "bootstrap":
            return f"ci:bootstrap95@seed={self.seed},resamples={stats.RESAMPLES}"
        return "ci:wilson95"


@dataclass(frozen=True)
class MetricSummary:
    metric: str
    signature: str  # a Signature (assay.signature): its text, with its parts in .info
    combined: Tally
    domains: Mapping[str, Tally]
    timed_out_ids: tuple[str, ...] = ()  # rows left unscored because a pattern ran past its time budget

    @property
    def soft_credit(self) -> bool:
        """Whether the metric ran with inflections tolerated, so that soft passes are reported apart."""
        found = self.signature
        return isinstance(found, Signature) and found.part("inflection") == inflection.SIGNATURE_ON


@dataclass(frozen=True)
class Example:
    id: str
    domain: str
    answer: str
    response: str


@dataclass(frozen=True)
class Agreement:
    """How exact_substring and word_overlap split the rows into four buckets."""

    overall: Mapping[str, int]
    domains: Mapping[str, Mapping[str, int]]
    examples: Mapping[str, tuple[Example, ...]]
    review_ids: tuple[str, ...]  # overlap-only rows: golden words present but rearranged; need review


@dataclass
class JudgeUsage:
    """One judge's calls and tokens over a run."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    failures: int = 0  # unavailable, or twice without a verdict
    models: set[str] = field(default_factory=set)  # the served model ids (@fingerprint when given)

    def add(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        """Count one completion."""
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost += cost


# A judge that does not judge (issue 9, item 11): one verdict on nearly every row it decided, or one
# rationale on most of them, among at least NOT_JUDGING_ROWS rows (fewer say too little).
NOT_JUDGING_ROWS = 20
ONE_VERDICT_SHARE = 0.95
ONE_RATIONALE_SHARE = 0.5
_CHECK_IT = "measure it against human labels with `assay agree --metric judge --human COLUMN`"


@dataclass(frozen=True)
class JudgeSummary:
    """What the judge metric did: which rows cost a model call, what they cost, how far it agreed, and
    whether a judge seems not to judge at all (read by every report through ``warnings``)."""

    sent_to_judges: int  # rows the chain saw (the others: blank, or decided by the cascade)
    decided_by_cascade: int
    blank: int
    truncated: int  # responses cut to the length limit, with a marker
    over_budget: int  # rows left unscored because --max-cost was reached
    seconds: float
    usage: Mapping[str, JudgeUsage]  # by judge label
    agreement: Mapping[str, tuple[int, int]]  # matcher -> (rows both scored, rows they agree on)
    notes: tuple[str, ...] = ()  # the run's own warnings: judges left out, unreadable cache rows, family
    verdicts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # label -> verdict -> rows
    top_rationale: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # label -> (text, rows)
    # With the cascade: rows it decided, or sent to the judges, by reason (judges.metric.CASCADE_REASONS).
    cascade: Mapping[str, int] = field(default_factory=dict)

    @property
    def not_judging(self) -> tuple[str, ...]:
        """A warning for each judge that gave one verdict, or one rationale, on (nearly) every row."""
        found = []
        for label, counts in self.verdicts.items():
            rows = sum(counts.values())
            if rows < NOT_JUDGING_ROWS:
                continue
            verdict, most = max(counts.items(), key=lambda item: item[1])
            if most >= ONE_VERDICT_SHARE * rows:
                found.append(
                    f"the judge {label} gave {verdict} on {most} of the {rows} rows it decided: it may not "
                    f"be judging; {_CHECK_IT}"
                )
            rationale, repeated = self.top_rationale.get(label, ("", 0))
            if repeated > ONE_RATIONALE_SHARE * rows:
                found.append(
                    f"the judge {label} gave one rationale ({rationale[:60]!r}) on {repeated} of the {rows} "
                    f"rows it decided: it may not be judging; {_CHECK_IT}"
                )
        return tuple(found)

    @property
    def warnings(self) -> tuple[str, ...]:
        return (*self.notes, *self.not_judging)


@dataclass(frozen=True)
class Summary:
    source: str
    total: int
    blank: int
    empty_golden_ids: tuple[str, ...]
    null_cells: Mapping[str, tuple[str, ...]]
    limit: int | None
    options: str
    metrics: Mapping[str, MetricSummary]
    agreement: Agreement | None
    judge: JudgeSummary | None = None
    intervals: IntervalMethod = IntervalMethod()

    def interval(self, tally: Tally) -> stats.Interval | None:
        return self.intervals.of(tally)


def summarize(
    dataset: Dataset,
    results: Mapping[str, MetricScores],
    blank: bytearray,
    signatures: Mapping[str, str],
    options: str,
    intervals: IntervalMethod | None = None,
) -> Summary:
    names = list(results)
    # One count of rows per (domain, every metric's outcome, blank); each table below reads it.
    joint = _joint_counts(dataset.records, [results[name].outcomes for name in names] + [blank])
    metrics = {
        name: _with_timed_out(
            _with_score_sums(
                _metric_summary(name, signatures[name], joint, position),
                dataset.records,
                results[name].values,
            ),
            dataset.records,
            results[name],
        )
        for position, name in enumerate(names)
    }
    agreement = None
    if all(name in results for name in AGREEMENT_PAIR):
        exact, overlap = (results[name] for name in AGREEMENT_PAIR)
        positions = (names.index(AGREEMENT_PAIR[0]), names.index(AGREEMENT_PAIR[1]))
        agreement = _agreement(dataset.records, joint, positions, exact, overlap)
    return Summary(
        source=dataset.source,
        total=len(dataset.records),
        blank=sum(blank),
        empty_golden_ids=_empty_golden_ids(dataset.records),
        null_cells=dataset.null_cells,
        limit=dataset.limit,
        options=options,
        metrics=metrics,
        agreement=agreement,
        intervals=intervals or IntervalMethod(),
    )


def _empty_golden_ids(records: Sequence[Record]) -> tuple[str, ...]:
    """Ids of rows with an empty (or whitespace/punctuation-only) golden answer, in input order."""
    answer_sets = list(map(operator.attrgetter("answers"), records))
    if set(map(len, answer_sets)) == {1}:  # one answer per row: answer i belongs to row i
        answers, owner = list(map(operator.itemgetter(0), answer_sets)), None
    else:
        answers = list(itertools.chain.from_iterable(answer_sets))
        owner = list(
            itertools.chain.from_iterable(map(itertools.repeat, range(len(records)), map(len, answer_sets)))
        )
    # An answer starting with a letter or digit has a word; look closer only at the others (few).
    starts_with_word = map(str.isalnum, map(operator.itemgetter(slice(0, 1)), answers))
    suspects = itertools.compress(range(len(answers)), map(operator.not_, starts_with_word))
    empty = (at for at in suspects if is_empty_golden(answers[at]))
    rows = dict.fromkeys(empty if owner is None else map(owner.__getitem__, empty))
    return tuple(records[row].id for row in rows)


JointCounts = dict[tuple[str, tuple[int, ...]], int]
_RADIX = len(Outcome)  # outcomes are 0 .. len(Outcome) - 1; blank flags 0 and 1


def _joint_counts(records: Sequence[Record], columns: Sequence[Sequence[int]]) -> JointCounts:
    """How many rows have each (domain, (value in column 1, value in column 2, ...)), for columns of
    values below ``_RADIX`` (outcomes, blank flags).

    Each row's domain and values are packed into one int with built-in maps only, and counted once:
    a Python step per row, or a tuple per row, would cost more than all the rest of the summary.
    """
    per_row = list(map(operator.attrgetter("domain"), records))
    names = sorted(set(per_row))
    number = {name: index for index, name in enumerate(names)}
    keys: Iterable[int] = map(number.__getitem__, per_row)
    for column in columns:
        keys = map(operator.add, map(_RADIX.__mul__, keys), column)
    joint: JointCounts = {}
    for key, count in Counter(keys).items():
        values = []
        for _ in columns:
            key, value = divmod(key, _RADIX)
            values.append(value)
        joint[names[key], tuple(reversed(values))] = count
    return joint


def _metric_summary(name: str, signature: str, joint: JointCounts, position: int) -> MetricSummary:
    per_domain: dict[str, Tally] = {}
    for (domain, values), count in joint.items():
        outcome, is_blank = values[position], values[-1]
        rows = Tally(
            count,
            count * (outcome == Outcome.PASS),
            count * is_blank,
            count * (outcome == Outcome.UNSCORED),
            soft=count * (outcome == Outcome.SOFT_PASS),
        )
        per_domain[domain] = per_domain.get(domain, Tally(0, 0)) + rows
    combined = sum(per_domain.values(), Tally(0, 0))
    return MetricSummary(name, signature, combined, dict(sorted(per_domain.items())))


def _with_score_sums(
    summary: MetricSummary, records: Sequence[Record], values: Sequence[float] | None
) -> MetricSummary:
    """A graded metric's summary with each domain's summed row scores, for its mean."""
    if values is None:
        return summary
    totals: dict[str, int] = dict.fromkeys(summary.domains, 0)
    units = map(round, map(float(SCORE_UNITS_PER_ONE).__mul__, values))
    for record, value in zip(records, units):
        totals[record.domain] += value
    domains = {
        domain: dataclasses.replace(t, score_total=totals[domain]) for domain, t in summary.domains.items()
    }
    combined = dataclasses.replace(summary.combined, score_total=sum(totals.values()))
    return dataclasses.replace(summary, domains=domains, combined=combined)


def _with_timed_out(summary: MetricSummary, records: Sequence[Record], scores: MetricScores) -> MetricSummary:
    """A metric's summary with the ids of the rows a pattern's time budget left unscored (hard_fact)."""
    late = sorted(row for row, reason in scores.reasons.items() if reason.startswith(TIMED_OUT))
    return (
        dataclasses.replace(summary, timed_out_ids=tuple(records[row].id for row in late))
        if late
        else summary
    )


# The bucket of (exact outcome, overlap outcome), indexed by exact * 3 + overlap (outcomes are 0, 1, 2).
_BUCKET_OF_CODE = (
    *("both_fail", "overlap_only", "both_fail"),  # exact FAIL
    *("exact_only", "both_pass", "exact_only"),  # exact PASS
    *("both_fail", "overlap_only", "both_fail"),  # exact UNSCORED
)


_CODES_OF = {bucket: frozenset(c for c, b in enumerate(_BUCKET_OF_CODE) if b == bucket) for bucket in BUCKETS}


def bucket_of(exact: int, overlap: int) -> str:
    return _BUCKET_OF_CODE[exact * 3 + overlap]


def _agreement(
    records: Sequence[Record],
    joint: JointCounts,
    positions: tuple[int, int],
    exact: MetricScores,
    overlap: MetricScores,
) -> Agreement:
    by_domain: Counter[tuple[str, str]] = Counter()
    for (domain, values), count in joint.items():
        by_domain[domain, bucket_of(values[positions[0]], values[positions[1]])] += count
    domains = sorted({domain for domain, _ in by_domain})
    # Each row's bucket code, with built-in maps only (see _joint_counts).
    codes = bytes(map(operator.add, map((3).__mul__, exact.outcomes), overlap.outcomes))
    examples = {}
    for bucket in BUCKETS:
        first = _first_rows(codes, _CODES_OF[bucket], EXAMPLES_PER_BUCKET)
        examples[bucket] = tuple(_example(records[i], _deciding_answer(i, exact, overlap)) for i in first)
    in_review = map(_CODES_OF["overlap_only"].__contains__, codes)
    return Agreement(
        overall={b: sum(by_domain[d, b] for d in domains) for b in BUCKETS},
        domains={d: {b: by_domain[d, b] for b in BUCKETS} for d in domains},
        examples=examples,
        review_ids=tuple(map(operator.attrgetter("id"), itertools.compress(records, in_review))),
    )


def _first_rows(codes: bytes, wanted: frozenset[int], count: int) -> list[int]:
    """The first `count` row indices whose code is in `wanted` (bytes.find: no Python step per row)."""
    found: list[int] = []
    for code in wanted:
        at = -1
        for _ in range(count):
            at = codes.find(code, at + 1)
            if at == -1:
                break
            found.append(at)
    return sorted(found)[:count]


def _example(record: Record, answer_index: int) -> Example:
    return Example(record.id, record.domain, record.answers[answer_index], record.response)


def _deciding_answer(index: int, *metrics: MetricScores) -> int:
    """The golden answer to show for a row: the first metric's deciding answer, else the first answer."""
    return next((m.answer_index[index] for m in metrics if m.answer_index[index] >= 0), 0)


def merge_summaries(parts: Sequence[Summary]) -> Summary:
    """One summary of consecutive parts of one input (scored in separate processes), as if scored whole."""
    first = parts[0]
    agreements = [p.agreement for p in parts if p.agreement is not None]
    return Summary(
        source=first.source,
        total=sum(p.total for p in parts),
        blank=sum(p.blank for p in parts),
        empty_golden_ids=tuple(itertools.chain.from_iterable(p.empty_golden_ids for p in parts)),
        null_cells=_merge_id_lists([p.null_cells for p in parts]),
        limit=first.limit,
        options=first.options,
        metrics={name: _merge_metric([p.metrics[name] for p in parts]) for name in first.metrics},
        agreement=_merge_agreement(agreements) if agreements else None,
        intervals=first.intervals,
    )


def _merge_metric(parts: Sequence[MetricSummary]) -> MetricSummary:
    domains: dict[str, Tally] = {}
    for part in parts:
        for domain, tally in part.domains.items():
            domains[domain] = domains.get(domain, Tally(0, 0)) + tally
    combined = sum((p.combined for p in parts), Tally(0, 0))
    timed_out = tuple(itertools.chain.from_iterable(p.timed_out_ids for p in parts))
    return MetricSummary(
        parts[0].metric, parts[0].signature, combined, dict(sorted(domains.items())), timed_out
    )


def _merge_agreement(parts: Sequence[Agreement]) -> Agreement:
    domains: dict[str, Counter[str]] = {}
    for part in parts:
        for domain, counts in part.domains.items():
            domains.setdefault(domain, Counter()).update(counts)
    return Agreement(
        overall={b: sum(p.overall[b] for p in parts) for b in BUCKETS},
        domains={d: {b: c[b] for b in BUCKETS} for d, c in sorted(domains.items())},
        examples={
            b: tuple(
                itertools.islice(
                    itertools.chain.from_iterable(p.examples[b] for p in parts), EXAMPLES_PER_BUCKET
                )
            )
            for b in BUCKETS
        },
        review_ids=tuple(itertools.chain.from_iterable(p.review_ids for p in parts)),
    )


def _merge_id_lists(parts: Sequence[Mapping[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, tuple[str, ...]] = {}
    for part in parts:
        for key, ids in part.items():
            merged[key] = merged.get(key, ()) + ids
    return merged
