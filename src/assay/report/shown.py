"""The rows a report shows, and those rows as a run of their own.

A report of a large run does not show every row: no one pages through a thousand pages of a table,
and each row shown costs its traces (several times its scoring) and its place in the page. Up to
SHOWN_ROWS rows, a report shows them all. Past that it shows what a reader checks a metric by: the rows
to review (``Summary.review``), then, for every metric, its first rows of each verdict (pass, soft pass,
fail, unscored), and of each bucket of the agreement pair (both pass, ..., overlap only), in input
order, the same number of each, as many as SHOWN_ROWS allows (never fewer than FIRST_OF_EACH: the
Markdown report's top misses are the first metric's first misses). Every row's
verdicts are in ``--out``; ``assay explain`` gives any row's traces.

The shown rows' verdicts and traces are those of the run (``run_of_rows``: the run cut to those rows,
so the per-row functions of ``report.rows`` give each row what they give it in the whole run), computed
for those rows only, in one batch.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from array import array
from collections.abc import Sequence
from typing import Any

from ..metric import MetricScores, Outcome
from ..scoring import ScoreRun

SHOWN_ROWS = 1000  # rows a report shows of a larger run: ten pages of the HTML table (a page of 0.8 MB)
FIRST_OF_EACH = 10  # each metric's first rows of each verdict, shown whatever SHOWN_ROWS says
_VERDICTS = (Outcome.PASS, Outcome.SOFT_PASS, Outcome.FAIL, Outcome.UNSCORED)


def shown_rows(run: ScoreRun, limit: int = SHOWN_ROWS) -> list[int]:
    """The indexes of the rows a report of `run` shows, in input order: every row up to `limit`;
    else the rows to review, and each metric's first k rows of each verdict and of each agreement
    bucket, k as large as `limit` allows (at least FIRST_OF_EACH)."""
    total = len(run.records)
    if total <= limit:
        return list(range(total))
    chosen = set(_review_rows(run))
    groups = [
        _first_of(scores.outcomes, code, limit) for scores in run.metrics.values() for code in _VERDICTS
    ]
    groups += _agreement_groups(run, limit)
    if not groups:  # no metric: the first rows
        return list(range(limit))
    for k in range(max(map(len, groups))):  # round k adds each group's k-th row
        chosen.update(group[k] for group in groups if k < len(group))
        if len(chosen) >= limit and k + 1 >= FIRST_OF_EACH:
            break
    return sorted(chosen)


def _first_of(outcomes: bytearray, code: int, most: int) -> list[int]:
    """The first `most` rows whose outcome is `code`, in order: found by ``bytearray.find``, which skips
    the rows between in C (a rare verdict's few rows are found without a step per row)."""
    found: list[int] = []
    at = outcomes.find(code)
    while at != -1 and len(found) < most:
        found.append(at)
        at = outcomes.find(code, at + 1)
    return found


def _first_with(column: Sequence[Any], value: Any, most: int) -> list[int]:
    """The first `most` rows whose cell is `value`, in order (a scan that stops when it has them)."""
    return list(itertools.islice(itertools.compress(itertools.count(), map(value.__eq__, column)), most))


def _agreement_groups(run: ScoreRun, most: int) -> list[list[int]]:
    """The first `most` rows of each bucket of the run's agreement pair (both pass, ..., overlap only)."""
    agreement = run.summary.agreement
    if agreement is None:
        return []
    from .rows import agreement_column

    first, second = (run.metrics[name].outcomes for name in agreement.pair)
    buckets = agreement_column(agreement.pair, first, second)
    return [_first_with(buckets, bucket, most) for bucket in agreement.buckets]


def _review_rows(run: ScoreRun) -> list[int]:
    """The indexes of the rows to review (a dozen at most, listed by id)."""
    review = run.summary.review
    if review is None or not review.rows:
        return []
    wanted = {row.id for row in review.rows}
    ids = map(operator.attrgetter("id"), run.records)  # built-in maps: no step per row in Python
    return list(itertools.compress(itertools.count(), map(wanted.__contains__, ids)))


def run_of_rows(run: ScoreRun, rows: Sequence[int]) -> ScoreRun:
    """`run` cut to `rows` (indexes, in order): its records, blank marks and every metric's columns at
    those rows, with the whole run's summary, options and scorers."""
    dataset = dataclasses.replace(run.dataset, records=[run.records[i] for i in rows], raw=None)
    metrics = {name: scores_of_rows(scores, rows) for name, scores in run.metrics.items()}
    blank = bytearray(map(run.blank.__getitem__, rows))
    return dataclasses.replace(run, dataset=dataset, metrics=metrics, blank=blank)


def scores_of_rows(scores: MetricScores, rows: Sequence[int]) -> MetricScores:
    """A metric's per-row columns at `rows` (indexes, in order), renumbered from 0; its run-wide
    `details` as they are. Every field of ``MetricScores`` is named here (a test checks that none is
    missed: a new per-row column must be cut too)."""
    position = {row: at for at, row in enumerate(rows)}
    return MetricScores(
        metric=scores.metric,
        outcomes=bytearray(map(scores.outcomes.__getitem__, rows)),
        answer_index=array(scores.answer_index.typecode, map(scores.answer_index.__getitem__, rows)),
        extras={name: _taken(column, rows) for name, column in scores.extras.items()},
        reasons={position[row]: why for row, why in scores.reasons.items() if row in position},
        values=None if scores.values is None else _taken(scores.values, rows),
        texts={name: list(map(column.__getitem__, rows)) for name, column in scores.texts.items()},
        evidence=None if scores.evidence is None else list(map(scores.evidence.__getitem__, rows)),
        details=scores.details,
    )


def _taken(column: array, rows: Sequence[int]) -> array:  # type: ignore[type-arg]
    return array(column.typecode, map(column.__getitem__, rows))
