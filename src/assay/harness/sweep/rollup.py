"""One cell's per-question scores rolled up: the mean of every metric overall, per corpus and per
category, each with its 95% interval and its number of questions.

hit@k is a proportion of questions (each hit or not), so its interval is Wilson's (``stats.wilson``).
The other metrics are means of fractions in [0, 1] (recall, precision, IoU, reciprocal rank), for which
no binomial interval holds: theirs is the percentile bootstrap of the mean, resampling questions
(``stats.bootstrap_mean_intervals``). The resamples are drawn once per group from a fixed seed and
shared by its metrics, so equal scores give equal intervals, and two cells of a sweep are resampled
alike (their intervals differ by their scores).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...stats import DEFAULT_SEED, Interval, bootstrap_mean_intervals, wilson
from .cell import QuestionScore

METRICS = ("recall_at_k", "recall_at_budget", "precision_at_k", "iou", "hit_at_k", "mrr")
RESAMPLES = 2_000  # per group; the interval's ends move by well under a point from 2,000 to 10,000
_VALUES: Mapping[str, Callable[[QuestionScore], float]] = {
    "recall_at_k": lambda score: score.recall_at_k,
    "recall_at_budget": lambda score: score.recall_at_budget,
    "precision_at_k": lambda score: score.precision_at_k,
    "iou": lambda score: score.iou,
    "hit_at_k": lambda score: float(score.hit_at_k),
    "mrr": lambda score: score.reciprocal_rank,
}


@dataclass(frozen=True)
class Rollup:
    """The means of one group of questions, with their intervals."""

    n: int
    means: Mapping[str, float]  # metric -> mean over the group's questions
    intervals: Mapping[str, Interval | None]  # metric -> 95% interval

    def to_json(self) -> dict[str, Any]:
        """Each metric's mean, ``n``, and ``intervals`` (metric -> {low, high})."""
        found: dict[str, Any] = {metric: self.means[metric] for metric in METRICS}
        found["n"] = self.n
        found["intervals"] = {
            metric: None if self.intervals[metric] is None else self.intervals[metric].as_dict()  # type: ignore[union-attr]
            for metric in METRICS
        }
        return found


@dataclass(frozen=True)
class CellRollup:
    overall: Rollup
    corpora: Mapping[str, Rollup]  # by corpus, sorted
    categories: Mapping[str, Rollup]  # by category, sorted; questions without one are in no category

    def to_json(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_json(),
            "corpora": {name: group.to_json() for name, group in self.corpora.items()},
            "categories": {name: group.to_json() for name, group in self.categories.items()},
        }


def roll_up(
    scores: Sequence[QuestionScore], *, seed: int = DEFAULT_SEED, resamples: int = RESAMPLES
) -> CellRollup:
    """Overall, per corpus and per category means of `scores`, with intervals (seeded)."""
    corpora = _groups(scores, lambda score: score.corpus)
    categories = _groups(scores, lambda score: score.category)
    return CellRollup(
        group_rollup(scores, seed=seed, resamples=resamples),
        {name: group_rollup(group, seed=seed, resamples=resamples) for name, group in corpora.items()},
        {name: group_rollup(group, seed=seed, resamples=resamples) for name, group in categories.items()},
    )


def _groups(
    scores: Sequence[QuestionScore], key: Callable[[QuestionScore], str | None]
) -> dict[str, list[QuestionScore]]:
    found: dict[str, list[QuestionScore]] = {}
    for score in scores:
        name = key(score)
        if name is not None:
            found.setdefault(name, []).append(score)
    return dict(sorted(found.items()))


def group_rollup(
    scores: Sequence[QuestionScore], *, seed: int = DEFAULT_SEED, resamples: int = RESAMPLES
) -> Rollup:
    """The means and intervals of one group of questions."""
    import numpy as np  # here: `import assay` must not load numpy

    n = len(scores)
    if n == 0:
        nothing: dict[str, Any] = {metric: None for metric in METRICS}
        return Rollup(0, nothing, nothing)
    values = np.array([[_VALUES[metric](score) for metric in METRICS] for score in scores], dtype=np.float64)
    means = {metric: float(mean) for metric, mean in zip(METRICS, values.mean(axis=0))}
    bootstrapped = bootstrap_mean_intervals(values, seed=seed, resamples=resamples)
    intervals: dict[str, Interval | None] = {}
    for column, metric in enumerate(METRICS):
        if metric == "hit_at_k":
            intervals[metric] = wilson(round(values[:, column].sum()), n)
        else:
            intervals[metric] = bootstrapped[column]
    return Rollup(n, means, intervals)
