"""Which rows to label next (``assay agree --suggest N``): a random draw that favours the rows whose
labels would narrow the calibrated accuracy most, with each row's probability of being drawn kept, so
that the calibration on its labels stays unbiased (``stats.actively_sampled_mean``).

Rows on which every metric gives the same verdicts are alike to the calibration: within such a group
each metric's error is the label's own spread there, var(y | group) = p (1 - p), p the share people
call correct in it. The interval is narrowest when a row is drawn with probability in proportion to
that spread's square root (Zrnic and Candes 2024): rows on which the metrics split are drawn more,
and a group that people's labels (where some exist) show the metrics to be right on is drawn less. p
starts from the share of metrics that pass the group's rows (two rows' weight, a guess only) and is
moved by the labels already given. Half of each row's probability is uniform, so that no row is left
out and a poor guess costs at most half the draw's worth. Each domain gets its share of the labels,
and at least ``calibration.MIN_LABELS`` where it has that many rows, so that each can be calibrated.

Each row is drawn on its own coin (Poisson sampling): the number drawn is N on average, not exactly.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .calibration import DRAW_SIZE_COLUMN, DRAWN_COLUMN, MIN_LABELS
from .metric import MetricScores, Outcome
from .records import Record

__all__ = ["DRAWN_COLUMN", "DRAW_SIZE_COLUMN", "Draw", "draw_rows"]
PRIOR_ROWS = 2.0  # how many labels' weight the metrics' own verdicts have on a group's share correct
UNIFORM_SHARE = 0.5  # the part of each row's probability spread evenly over its domain


@dataclass(frozen=True)
class Draw:
    rows: list[int]  # the drawn rows' indexes, in input order
    probabilities: list[float]  # every row's probability of being drawn
    budget: int


def draw_rows(
    metrics: Sequence[MetricScores],
    records: Sequence[Record],
    budget: int,
    truth: Sequence[bool | None] | None = None,
    seed: int = 0,
) -> Draw:
    """Draw about `budget` rows for labelling; `truth` (people's labels so far, None where none) sharpens
    which groups of rows are worth drawing."""
    groups = [_verdicts(metrics, i) for i in range(len(records))]
    spread = _group_spread(groups, metrics, truth)
    by_domain: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        by_domain[record.domain].append(index)
    probabilities = [0.0] * len(records)
    for domain, quota in _domain_quotas({d: len(rows) for d, rows in by_domain.items()}, budget).items():
        rows = by_domain[domain]
        for index, probability in zip(rows, _probabilities([spread[groups[i]] for i in rows], quota)):
            probabilities[index] = probability
    coins = random.Random(seed)
    drawn = [i for i, probability in enumerate(probabilities) if coins.random() < probability]
    return Draw(drawn, probabilities, budget)


def _verdicts(metrics: Sequence[MetricScores], index: int) -> tuple[int, ...]:
    return tuple(scores.outcomes[index] for scores in metrics)


def _group_spread(
    groups: Sequence[tuple[int, ...]], metrics: Sequence[MetricScores], truth: Sequence[bool | None] | None
) -> dict[tuple[int, ...], float]:
    """Each group's sqrt(p (1 - p)), p its share correct: the metrics' share of passes, as a prior of
    PRIOR_ROWS labels, moved by the labels given in the group."""
    labelled: dict[tuple[int, ...], list[int]] = defaultdict(lambda: [0, 0])  # [correct, labelled]
    for index, verdict in enumerate(truth or ()):
        if verdict is not None:
            labelled[groups[index]][0] += verdict
            labelled[groups[index]][1] += 1
    spread = {}
    for group in set(groups):
        passes = sum(Outcome(code) is Outcome.PASS for code in group)
        prior = (passes + 0.5) / (len(metrics) + 1)  # never 0 or 1: the metrics may all be wrong
        correct, count = labelled[group]
        share = (correct + PRIOR_ROWS * prior) / (count + PRIOR_ROWS)
        spread[group] = math.sqrt(share * (1 - share))
    return spread


def _domain_quotas(sizes: dict[str, int], budget: int) -> dict[str, float]:
    """How many labels each domain gets: its share of the budget, raised to MIN_LABELS (or all its rows)
    where the budget allows, the others' shares lowered to pay for it."""
    total = sum(sizes.values())
    floors = {d: min(size, MIN_LABELS) for d, size in sizes.items()}
    if sum(floors.values()) >= budget:  # not enough for every domain's floor: in proportion to it
        scale = budget / sum(floors.values())
        return {d: floor * scale for d, floor in floors.items()}
    quotas = {d: budget * size / total for d, size in sizes.items()}
    raised = {d for d in sizes if quotas[d] < floors[d]}
    left = budget - sum(floors[d] for d in raised)
    rest = sum(sizes[d] for d in sizes if d not in raised)
    return {d: floors[d] if d in raised else left * sizes[d] / rest for d in sizes}


def _probabilities(spreads: Sequence[float], quota: float) -> list[float]:
    """Each row's probability, summing to `quota` (or to every row, when the quota is that many): half
    even, half in proportion to the spread, capped at 1 with what the capped rows leave spread over
    the others."""
    rows = len(spreads)
    if quota >= rows:
        return [1.0] * rows
    total_spread = sum(spreads) or 1.0
    weights = [UNIFORM_SHARE / rows + (1 - UNIFORM_SHARE) * s / total_spread for s in spreads]
    capped: set[int] = set()
    while True:  # each pass caps at least one more row, or ends
        free = [i for i in range(rows) if i not in capped]
        share = (quota - len(capped)) / sum(weights[i] for i in free)
        over = {i for i in free if weights[i] * share >= 1.0}
        if not over:
            return [1.0 if i in capped else weights[i] * share for i in range(rows)]
        capped |= over
