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
from .errors import UsageError
from .metric import TIMED_OUT, MetricScores, Outcome, Scorer
from .records import Dataset, Record
from .review import (
    BUCKET_INDEX_OF_CODE,
    CODES_OF_INDEX,
    RADIX_PAIR,
    merge_reviews,
    pair_codes,
    rows_to_review,
)
from .review import (
    Review as Review,  # named beside Summary for the reports that read both
)
from .scorer_registry import SCORERS, default_pair
from .signatures import Signature
from .text import inflection
from .text.seed import is_empty_golden

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
    score_square_total: int | None = (
        None  # the row scores' squares summed (same units), for the mean's interval
    )

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
    def mean_interval(self) -> stats.Interval | None:
        """The 95% interval of a graded metric's mean (``stats.mean_interval``), or None."""
        if self.score_total is None or self.score_square_total is None:
            return None
        return stats.mean_interval(
            self.score_total / SCORE_UNITS_PER_ONE,
            self.score_square_total / SCORE_UNITS_PER_ONE,
            self.n - self.unscored,
        )

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
        return Tally(
            self.n + other.n,
            self.passed + other.passed,
            self.blank + other.blank,
            self.unscored + other.unscored,
            _sum_of(self.score_total, other.score_total),
            self.soft + other.soft,
            _sum_of(self.score_square_total, other.score_square_total),
        )


def _sum_of(first: int | None, second: int | None) -> int | None:
    """Two parts' score sums added; None when neither part has one (the metric is not graded)."""
    return None if first is None and second is None else (first or 0) + (second or 0)


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
    signature: str  # a Signature (assay.signatures): its text, with its parts in .info
    combined: Tally
    domains: Mapping[str, Tally]
    timed_out_ids: tuple[str, ...] = ()  # rows left unscored because a pattern ran past its time budget
    langs: Mapping[str, Tally] = field(default_factory=dict)  # per language, when there is a lang column

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
    """How two metrics (A, B; by default exact_substring and word_overlap) split the rows into four
    buckets: both pass, both fail, A only, B only (``bucket_names``)."""

    overall: Mapping[str, int]
    domains: Mapping[str, Mapping[str, int]]
    examples: Mapping[str, tuple[Example, ...]]
    review_ids: tuple[str, ...]  # B-only rows (overlap-only for the default pair): need review
    pair: tuple[str, str] = ("", "")  # the two metrics (as chosen: ``agreement_pair``)

    @property
    def buckets(self) -> tuple[str, str, str, str]:
        return bucket_names(self.pair)


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
    # What run scorers said of the whole run beside their verdicts (``MetricScores.details``), by metric,
    # carried untouched for the reports that know how to read them.
    details: Mapping[str, object] = field(default_factory=dict)
    intervals: IntervalMethod = IntervalMethod()
    review: Review | None = None
    langs_column: bool = False  # whether the input has a language column (then MetricSummary.langs)
    # Rows whose reply a system's guard blocked (``Reply.blocked``): a harness run's outcome rule grades
    # them (a refusal item declined, an answerable item blocked), so they are counted here, not in `blank`.
    blocked: int = 0

    def interval(self, tally: Tally) -> stats.Interval | None:
        return self.intervals.of(tally)


def summarize(
    dataset: Dataset,
    results: Mapping[str, MetricScores],
    blank: bytearray,
    signatures: Mapping[str, str],
    options: str,
    intervals: IntervalMethod | None = None,
    pair: Sequence[str] | None = None,
    *,
    scorers: Mapping[str, Scorer] | None = None,
) -> Summary:
    """The summary of a run. `pair` names the two metrics whose agreement is reported (default: the
    pair the scorers declare, ``Scorer.agrees_with``: the original evaluation scripts' exact_substring
    and word_overlap, when both ran); a pair named but not scored is a UsageError. `scorers` gives the
    run's Scorers not found by name (a configured one's), whose declarations the review reads."""
    chosen = agreement_pair(pair, results)
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
    has_lang = "lang" in dataset.fields
    if has_lang:
        metrics = {
            name: _with_langs(metric, dataset.records, results[name], blank)
            for name, metric in metrics.items()
        }
    agreement = None
    if chosen is not None:
        first, second = (results[name] for name in chosen)
        positions = (names.index(chosen[0]), names.index(chosen[1]))
        agreement = _agreement(dataset.records, joint, positions, chosen, first, second)
    blocked = blocked_rows(dataset.records)
    return Summary(
        source=dataset.source,
        total=len(dataset.records),
        blank=sum(blank) - sum(blank[index] for index in blocked),
        blocked=len(blocked),
        empty_golden_ids=_empty_golden_ids(dataset.records),
        null_cells=dataset.null_cells,
        limit=dataset.limit,
        options=options,
        metrics=metrics,
        agreement=agreement,
        intervals=intervals or IntervalMethod(),
        review=rows_to_review(dataset.records, results, blank, chosen, _declared(results, scorers or {})),
        langs_column=has_lang,
        details={name: scores.details for name, scores in results.items() if scores.details is not None},
    )


def _declared(results: Mapping[str, MetricScores], given: Mapping[str, Scorer]) -> Mapping[str, Scorer]:
    """The Scorers of a run's metrics, given or registered (a stored metric no registry knows: none)."""
    found = {name: given.get(name) or SCORERS.get(name) for name in results}
    return {name: scorer for name, scorer in found.items() if scorer is not None}


def agreement_pair(pair: Sequence[str] | None, results: Mapping[str, object]) -> tuple[str, str] | None:
    """The pair whose agreement a run reports: the one named (both must have been scored), else the
    original evaluation scripts' pair when both ran, else none."""
    if pair is None:
        seed = default_pair()
        return seed if seed is not None and all(name in results for name in seed) else None
    named = tuple(pair)
    if len(named) != 2 or named[0] == named[1]:
        raise UsageError(
            f"an agreement pair is two different metrics, got {','.join(named)!r}",
            where="--agree-pair",
            fix="give two metrics, e.g. --agree-pair exact_substring,phrase_match",
        )
    missing = [name for name in named if name not in results]
    if missing:
        raise UsageError(
            f"the agreement pair names {', '.join(missing)}, which this run does not score "
            f"(scored: {', '.join(results)})",
            where="--agree-pair",
            fix=f"add --metric {missing[0]}, or name two of the metrics scored",
        )
    return (named[0], named[1])


def _with_langs(
    summary: MetricSummary, records: Sequence[Record], scores: MetricScores, blank: bytearray
) -> MetricSummary:
    """A metric's summary with a tally per language (the language by metric table)."""
    joint = _joint_counts_by(records, "lang", [scores.outcomes, blank])
    per_lang: dict[str, Tally] = {}
    for (lang, (outcome, is_blank)), count in joint.items():
        rows = Tally(
            count,
            count * (outcome == Outcome.PASS),
            count * is_blank,
            count * (outcome == Outcome.UNSCORED),
            soft=count * (outcome == Outcome.SOFT_PASS),
        )
        per_lang[lang] = per_lang.get(lang, Tally(0, 0)) + rows
    if scores.values is not None:  # a graded metric: each language's summed row scores, for its mean
        totals, squares = _score_sums(records, scores.values, "lang")
        per_lang = {
            lang: dataclasses.replace(
                t, score_total=totals.get(lang, 0), score_square_total=squares.get(lang, 0)
            )
            for lang, t in per_lang.items()
        }
    return dataclasses.replace(summary, langs=dict(sorted(per_lang.items())))


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
    return _joint_counts_by(records, "domain", columns)


def _joint_counts_by(records: Sequence[Record], by: str, columns: Sequence[Sequence[int]]) -> JointCounts:
    """How many rows have each (domain, (value in column 1, value in column 2, ...)), for columns of
    values below ``_RADIX`` (outcomes, blank flags).

    Each row's domain and values are packed into one int with built-in maps only, and counted once:
    a Python step per row, or a tuple per row, would cost more than all the rest of the summary.
    """
    per_row: list[str] = list(map(operator.attrgetter(by), records))
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


def _score_sums(
    records: Sequence[Record], values: Sequence[float], key: str
) -> tuple[dict[str, int], dict[str, int]]:
    """The row scores, and their squares, summed per value of `key` ("domain", "lang"), in SCORE_UNITs
    (integers: parts of a run add exactly)."""
    totals: dict[str, int] = {}
    squares: dict[str, int] = {}
    for record, value in zip(records, values):
        group = getattr(record, key)
        totals[group] = totals.get(group, 0) + round(value * SCORE_UNITS_PER_ONE)
        squares[group] = squares.get(group, 0) + round(value * value * SCORE_UNITS_PER_ONE)
    return totals, squares


def _with_score_sums(
    summary: MetricSummary, records: Sequence[Record], values: Sequence[float] | None
) -> MetricSummary:
    """A graded metric's summary with each domain's summed row scores, for its mean."""
    if values is None:
        return summary
    totals, squares = _score_sums(records, values, "domain")
    domains = {
        domain: dataclasses.replace(
            t, score_total=totals.get(domain, 0), score_square_total=squares.get(domain, 0)
        )
        for domain, t in summary.domains.items()
    }
    combined = dataclasses.replace(
        summary.combined, score_total=sum(totals.values()), score_square_total=sum(squares.values())
    )
    return dataclasses.replace(summary, domains=domains, combined=combined)


def _with_timed_out(summary: MetricSummary, records: Sequence[Record], scores: MetricScores) -> MetricSummary:
    """A metric's summary with the ids of the rows a pattern's time budget left unscored (hard_fact)."""
    late = sorted(row for row, reason in scores.reasons.items() if reason.startswith(TIMED_OUT))
    return (
        dataclasses.replace(summary, timed_out_ids=tuple(records[row].id for row in late))
        if late
        else summary
    )


def bucket_names(pair: Sequence[str]) -> tuple[str, str, str, str]:
    """The four buckets of a pair (A, B): both_pass, both_fail, "A only", "B only"; for the original
    evaluation scripts' pair, the names every earlier report used (exact_only, overlap_only)."""
    if tuple(pair) == default_pair():
        return BUCKETS
    first, second = pair
    return ("both_pass", "both_fail", f"{first} only", f"{second} only")


def bucket_of(exact: int, overlap: int) -> str:
    """The bucket of a row under the original scripts' pair, from its two outcomes."""
    return BUCKETS[BUCKET_INDEX_OF_CODE[exact * RADIX_PAIR + overlap]]


def pair_bucket(pair: Sequence[str], first: int, second: int) -> str:
    """The bucket of a row under any pair (``Agreement.pair``), from its two outcomes."""
    return bucket_names(pair)[BUCKET_INDEX_OF_CODE[first * RADIX_PAIR + second]]


def _agreement(
    records: Sequence[Record],
    joint: JointCounts,
    positions: tuple[int, int],
    pair: tuple[str, str],
    first: MetricScores,
    second: MetricScores,
) -> Agreement:
    names = bucket_names(pair)
    by_domain: Counter[tuple[str, str]] = Counter()
    for (domain, values), count in joint.items():
        index = BUCKET_INDEX_OF_CODE[values[positions[0]] * RADIX_PAIR + values[positions[1]]]
        by_domain[domain, names[index]] += count
    domains = sorted({domain for domain, _ in by_domain})
    codes = pair_codes(first, second)
    examples = {}
    for index, bucket in enumerate(names):
        found = _first_rows(codes, CODES_OF_INDEX[index], EXAMPLES_PER_BUCKET)
        examples[bucket] = tuple(_example(records[i], _deciding_answer(i, first, second)) for i in found)
    in_review = map(CODES_OF_INDEX[3].__contains__, codes)
    return Agreement(
        overall={b: sum(by_domain[d, b] for d in domains) for b in names},
        domains={d: {b: by_domain[d, b] for b in names} for d in domains},
        examples=examples,
        review_ids=tuple(map(operator.attrgetter("id"), itertools.compress(records, in_review))),
        pair=pair,
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


def blocked_rows(records: Sequence[Record]) -> list[int]:
    """The rows whose reply a system's guard blocked (its text is often empty: not a blank response)."""
    return [
        index for index, record in enumerate(records) if record.reply is not None and record.reply.blocked
    ]


def merge_summaries(parts: Sequence[Summary]) -> Summary:
    """One summary of consecutive parts of one input (scored in separate processes), as if scored whole."""
    first = parts[0]
    agreements = [p.agreement for p in parts if p.agreement is not None]
    return Summary(
        source=first.source,
        total=sum(p.total for p in parts),
        blank=sum(p.blank for p in parts),
        blocked=sum(p.blocked for p in parts),
        empty_golden_ids=tuple(itertools.chain.from_iterable(p.empty_golden_ids for p in parts)),
        null_cells=_merge_id_lists([p.null_cells for p in parts]),
        limit=first.limit,
        options=first.options,
        metrics={name: _merge_metric([p.metrics[name] for p in parts]) for name in first.metrics},
        agreement=_merge_agreement(agreements) if agreements else None,
        intervals=first.intervals,
        review=merge_reviews(reviews) if (reviews := [p.review for p in parts if p.review]) else None,
        langs_column=first.langs_column,
        details=first.details,  # run scorers run in one process: parts carry none
    )


def _merge_metric(parts: Sequence[MetricSummary]) -> MetricSummary:
    domains: dict[str, Tally] = {}
    for part in parts:
        for domain, tally in part.domains.items():
            domains[domain] = domains.get(domain, Tally(0, 0)) + tally
    combined = sum((p.combined for p in parts), Tally(0, 0))
    timed_out = tuple(itertools.chain.from_iterable(p.timed_out_ids for p in parts))
    langs: dict[str, Tally] = {}
    for part in parts:
        for lang, tally in part.langs.items():
            langs[lang] = langs.get(lang, Tally(0, 0)) + tally
    return MetricSummary(
        parts[0].metric,
        parts[0].signature,
        combined,
        dict(sorted(domains.items())),
        timed_out,
        dict(sorted(langs.items())),
    )


def _merge_agreement(parts: Sequence[Agreement]) -> Agreement:
    domains: dict[str, Counter[str]] = {}
    for part in parts:
        for domain, counts in part.domains.items():
            domains.setdefault(domain, Counter()).update(counts)
    names = parts[0].buckets
    return Agreement(
        overall={b: sum(p.overall[b] for p in parts) for b in names},
        domains={d: {b: c[b] for b in names} for d, c in sorted(domains.items())},
        examples={
            b: tuple(
                itertools.islice(
                    itertools.chain.from_iterable(p.examples[b] for p in parts), EXAMPLES_PER_BUCKET
                )
            )
            for b in names
        },
        review_ids=tuple(itertools.chain.from_iterable(p.review_ids for p in parts)),
        pair=parts[0].pair,
    )


def _merge_id_lists(parts: Sequence[Mapping[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, tuple[str, ...]] = {}
    for part in parts:
        for key, ids in part.items():
            merged[key] = merged.get(key, ()) + ids
    return merged
