"""Aggregate per-row verdicts into per-domain and combined tallies, and the two protocols' agreement.

Combined accuracy is the micro-average over pooled rows (the seed's definition), which equals the
domain accuracies weighted by domain size. Blank responses count as incorrect and are also counted
apart; unscored rows are excluded from the accuracy's denominator and counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .records import Dataset, Record
from .scorers import MetricScores, Outcome
from .text.seed import is_empty_golden

AGREEMENT_PAIR = ("exact_substring", "word_overlap")
BUCKETS = ("both_pass", "both_fail", "exact_only", "overlap_only")
EXAMPLES_PER_BUCKET = 3


@dataclass(frozen=True)
class Tally:
    n: int
    passed: int
    blank: int = 0
    unscored: int = 0

    @property
    def failed(self) -> int:
        return self.n - self.passed - self.unscored

    @property
    def accuracy(self) -> float | None:
        scored = self.n - self.unscored
        return self.passed / scored if scored else None

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.n + other.n, self.passed + other.passed, self.blank + other.blank, self.unscored + other.unscored
        )


@dataclass(frozen=True)
class MetricSummary:
    metric: str
    signature: str
    combined: Tally
    domains: Mapping[str, Tally]


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
    row_buckets: tuple[str, ...]  # the bucket of every row, in input order


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


def summarize(
    dataset: Dataset,
    results: Mapping[str, MetricScores],
    blank: bytearray,
    signatures: Mapping[str, str],
    options: str,
) -> Summary:
    domains = [record.domain for record in dataset.records]
    metrics = {
        name: _metric_summary(name, signatures[name], scores, domains, blank) for name, scores in results.items()
    }
    agreement = None
    if all(name in results for name in AGREEMENT_PAIR):
        agreement = _agreement(dataset.records, results[AGREEMENT_PAIR[0]], results[AGREEMENT_PAIR[1]])
    return Summary(
        source=dataset.source,
        total=len(dataset.records),
        blank=sum(blank),
        empty_golden_ids=tuple(r.id for r in dataset.records if any(map(is_empty_golden, r.answers))),
        null_cells=dataset.null_cells,
        limit=dataset.limit,
        options=options,
        metrics=metrics,
        agreement=agreement,
    )


def _metric_summary(
    name: str, signature: str, scores: MetricScores, domains: Sequence[str], blank: bytearray
) -> MetricSummary:
    per_domain: dict[str, Tally] = {}
    for (domain, outcome, is_blank), count in Counter(zip(domains, scores.outcomes, blank)).items():
        rows = Tally(count, count * (outcome == Outcome.PASS), count * is_blank, count * (outcome == Outcome.UNSCORED))
        per_domain[domain] = per_domain.get(domain, Tally(0, 0)) + rows
    combined = sum(per_domain.values(), Tally(0, 0))
    return MetricSummary(name, signature, combined, dict(sorted(per_domain.items())))


def bucket_of(exact: int, overlap: int) -> str:
    exact_pass, overlap_pass = exact == Outcome.PASS, overlap == Outcome.PASS
    if exact_pass == overlap_pass:
        return "both_pass" if exact_pass else "both_fail"
    return "exact_only" if exact_pass else "overlap_only"


def _agreement(records: Sequence[Record], exact: MetricScores, overlap: MetricScores) -> Agreement:
    row_buckets = tuple(map(bucket_of, exact.outcomes, overlap.outcomes))
    overall = Counter(row_buckets)
    by_domain: dict[str, Counter[str]] = {}
    for record, bucket in zip(records, row_buckets):
        by_domain.setdefault(record.domain, Counter())[bucket] += 1
    examples: dict[str, list[Example]] = {bucket: [] for bucket in BUCKETS}
    for index, (record, bucket) in enumerate(zip(records, row_buckets)):
        if len(examples[bucket]) < EXAMPLES_PER_BUCKET:
            answer = record.answers[_deciding_answer(index, exact, overlap)]
            examples[bucket].append(Example(record.id, record.domain, answer, record.response))
    return Agreement(
        overall={bucket: overall[bucket] for bucket in BUCKETS},
        domains={d: {b: c[b] for b in BUCKETS} for d, c in sorted(by_domain.items())},
        examples={bucket: tuple(found) for bucket, found in examples.items()},
        review_ids=tuple(r.id for r, b in zip(records, row_buckets) if b == "overlap_only"),
        row_buckets=row_buckets,
    )


def _deciding_answer(index: int, *metrics: MetricScores) -> int:
    """The golden answer to show for a row: the first metric's deciding answer, else the first answer."""
    return next((m.answer_index[index] for m in metrics if m.answer_index[index] >= 0), 0)
