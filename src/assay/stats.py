"""Intervals and tests for the numbers assay reports: seeded, reproducible, pinned in tests against
statsmodels and SciPy.

- ``wilson``: the Wilson score interval for a proportion (Wilson 1927; what statsmodels'
  ``proportion_confint(method="wilson")`` gives). It behaves at 0 and n, unlike the normal interval.
- ``bootstrap_proportion``: the percentile bootstrap of a proportion. Resampling n rows of 0/1 values
  and counting the ones is drawing from Binomial(n, k/n), so that is what is drawn: the same
  distribution at any n, in constant time. Seeded: equal seeds give equal intervals.
- ``bootstrap_mean_intervals``: the percentile bootstrap of each column's mean (recall, reciprocal rank:
  a mean of fractions, for which no binomial interval holds), rows resampled together.
- ``mean_interval``: the normal (central limit) interval of a mean of row scores in [0, 1] (a graded
  metric's mean F1), from the rows' sum and sum of squares, kept within [0, 1].
- ``paired_bootstrap``: the percentile bootstrap of the difference of two paired proportions (two runs
  or metrics on the same rows). Resampling rows resamples the four kinds of pair (both pass, only A,
  only B, neither), i.e. a Multinomial draw over their counts.
- ``mcnemar_exact``: McNemar's exact test on the discordant pairs, the two-sided binomial test of
  b against b + c at 1/2 (statsmodels' ``mcnemar(exact=True)``).
- ``cohen_kappa``: Cohen's kappa of a 2x2 table, with the large-sample interval of Fleiss, Cohen and
  Everitt (1969), as statsmodels' ``cohens_kappa`` computes it.
- ``fleiss_kappa``: Fleiss' kappa of many raters, each item rated by the same number of them (Fleiss
  1971, "Measuring nominal scale agreement among many raters", Psychological Bulletin 76(5), eq. 1-9).
- ``krippendorff_alpha_nominal``: Krippendorff's alpha for nominal values, by the coincidence matrix,
  with missing values (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal
RESAMPLES = 10_000
DEFAULT_SEED = 20261201
BATCH_DRAWS = 1 << 21  # row picks per batch of resamples in bootstrap_mean_intervals: 2 x 16 MB of int64


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high

    def as_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high}


def wilson(passed: float, n: int, z: float = Z95) -> Interval | None:
    """The Wilson score interval of passed/n (`passed` may be a sum of scores in [0, 1]); None when n
    is 0."""
    if n == 0:
        return None
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if passed == 0 else max(0.0, centre - half)  # exact at the ends, not 1 - 1e-16
    high = 1.0 if passed == n else min(1.0, centre + half)
    return Interval(low, high)


def mean_interval(total: float, squares: float, n: int, z: float = Z95) -> Interval | None:
    """The 95% normal interval of the mean of n row scores in [0, 1] whose sum is `total` and sum of
    squares `squares`: mean +- z * s / sqrt(n), s the rows' sample standard deviation, kept within [0, 1].
    None below 2 rows, where no spread can be estimated. Rows that all score the same show no spread,
    and an interval of no width would claim a certainty a few rows cannot give: there it is Wilson's at
    the mean, the interval of the widest spread scores in [0, 1] with that mean can have."""
    if n < 2:
        return None
    mean = total / n
    variance = max(0.0, (squares - n * mean * mean) / (n - 1))  # rounding can leave a hair below 0
    if variance <= 1e-12 * max(1.0, mean * mean):  # every row the same score, up to rounding
        return wilson(total, n, z)
    half = z * math.sqrt(variance / n)
    return Interval(max(0.0, mean - half), min(1.0, mean + half))


def bootstrap_proportion(
    passed: int, n: int, seed: int = DEFAULT_SEED, resamples: int = RESAMPLES
) -> Interval | None:
    """The 95% percentile bootstrap interval of passed/n; None when n is 0. At 0 of n or n of n every
    resample is the same, and the percentile interval would be a point: Wilson's interval is given there."""
    if n == 0:
        return None
    if passed in (0, n):
        return wilson(passed, n)
    import numpy as np  # here, not at the top: every command imports this module, few bootstrap

    draws = np.random.default_rng(seed).binomial(n, passed / n, size=resamples) / n
    return Interval(*_percentiles(draws))


def bootstrap_mean_intervals(
    values: Any, seed: int = DEFAULT_SEED, resamples: int = RESAMPLES
) -> list[Interval]:
    """The 95% percentile bootstrap interval of each column's mean of `values` (a numpy array, a row
    per item): rows drawn with replacement, as counts per row, so one matrix product gives every column's
    mean and the columns share their resamples. Drawn in batches of about BATCH_DRAWS picks, so memory
    stays bounded however many rows there are (all at once, 2,000 resamples of 50,000 rows took 2.4 GB).
    Seeded: equal values and seeds give equal intervals. No rows, no intervals."""
    import numpy as np

    n = values.shape[0]
    if n == 0:
        return []
    rng = np.random.default_rng(seed)
    batch = max(1, BATCH_DRAWS // n)
    means = []
    for first in range(0, resamples, batch):
        rows = min(batch, resamples - first)
        picks = rng.integers(0, n, size=(rows, n)) + np.arange(rows)[:, None] * n
        counts = np.bincount(picks.ravel(), minlength=rows * n).reshape(rows, n)
        means.append(counts @ values / n)
    # every column's percentiles in one call: per call, percentile costs more than the bootstrap
    lows, highs = np.percentile(np.concatenate(means), [2.5, 97.5], axis=0)
    return [Interval(float(low), float(high)) for low, high in zip(lows, highs)]


@dataclass(frozen=True)
class PairedDifference:
    """B's proportion minus A's over rows scored in both, with its interval and McNemar's p."""

    n: int
    a_only: int  # rows A passes and B does not
    b_only: int
    difference: float | None
    interval: Interval | None
    p_value: float | None


def paired_bootstrap(
    both: int, a_only: int, b_only: int, neither: int, seed: int = DEFAULT_SEED, resamples: int = RESAMPLES
) -> PairedDifference:
    """The paired difference (B - A) of pass rates, its percentile bootstrap interval, McNemar's p."""
    n = both + a_only + b_only + neither
    if n == 0:
        return PairedDifference(0, a_only, b_only, None, None, None)
    import numpy as np

    counts = np.random.default_rng(seed).multinomial(
        n, [both / n, a_only / n, b_only / n, neither / n], resamples
    )
    draws = (counts[:, 2] - counts[:, 1]) / n
    return PairedDifference(
        n,
        a_only,
        b_only,
        (b_only - a_only) / n,
        Interval(*_percentiles(draws)),
        mcnemar_exact(a_only, b_only),
    )


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar p-value of b and c discordant pairs (1.0 when there are none):
    twice the binomial tail P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2), capped at 1."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    # Summed from the largest term down, each term from the one before (C(n, i-1) = C(n, i) i / (n-i+1)),
    # starting in logs: exact enough (1e-15) at any n, where summing huge binomial coefficients is slow.
    term = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2))
    tail, i = 0.0, k
    while i >= 0 and term > tail * 1e-17:
        tail += term
        term *= i / (n - i + 1)
        i -= 1
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Kappa:
    kappa: float | None  # None when agreement by chance is certain (one class only)
    interval: Interval | None
    observed: float  # the share of rows on which the two agree


def cohen_kappa(tp: int, fp: int, fn: int, tn: int, z: float = Z95) -> Kappa | None:
    """Cohen's kappa of rater A (the metric: tp + fp positives) against rater B (people: tp + fn
    positives), with its large-sample interval; None for an empty table. Where either rater puts every
    row in one class, kappa (and its interval) is None: agreement by chance then equals the observed
    agreement whatever the other rater does, so the formula gives 0 with a zero-width interval, which
    measures nothing (statsmodels prints 0.0)."""
    n = tp + fp + fn + tn
    if n == 0:
        return None
    if 0 in (tp + fp, fn + tn, tp + fn, fp + tn):  # a rater with one class only
        return Kappa(None, None, (tp + tn) / n)
    table = [[tp / n, fp / n], [fn / n, tn / n]]  # rows: A's class; columns: B's
    rows = [sum(table[0]), sum(table[1])]
    cols = [table[0][0] + table[1][0], table[0][1] + table[1][1]]
    observed = table[0][0] + table[1][1]
    chance = rows[0] * cols[0] + rows[1] * cols[1]
    if chance >= 1.0:
        return Kappa(None, None, observed)
    kappa = (observed - chance) / (1 - chance)
    term_a = sum(table[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(2))
    term_b = (1 - kappa) ** 2 * sum(
        table[i][j] * (cols[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j
    )
    term_c = (kappa - chance * (1 - kappa)) ** 2
    variance = max(term_a + term_b - term_c, 0.0) / (1 - chance) ** 2 / n
    half = z * math.sqrt(variance)
    return Kappa(kappa, Interval(max(-1.0, kappa - half), min(1.0, kappa + half)), observed)  # kappa's range


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of a table whose row i counts, per category j, the raters who put item i in j.
    Every row must sum to the same number of raters (at least 2); None for no items, or where agreement
    by chance is certain (every rating in one category: the formula would divide by zero)."""
    if not counts:
        return None
    raters = sum(counts[0])
    if raters < 2 or any(sum(row) != raters for row in counts):
        raise ValueError(f"every item needs the same number of ratings, at least 2: got {counts!r}")
    items = len(counts)
    # P_i, the share of agreeing rater pairs on item i, and P-bar, their mean (Fleiss 1971, eq. 2-3)
    observed = sum((sum(n * n for n in row) - raters) / (raters * (raters - 1)) for row in counts) / items
    # p_j, each category's share of all ratings, and P-bar_e, the agreement expected by chance (eq. 4-5)
    shares = [sum(column) / (items * raters) for column in zip(*counts)]
    chance = sum(share * share for share in shares)
    if chance >= 1.0:
        return None
    return float((observed - chance) / (1 - chance))


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha of nominal values: `units` holds each unit's values, one per rater, None
    where a rater gave none. Units with fewer than two values are not pairable and count for nothing.
    None when no two values pair, or every paired value is the same (no disagreement is expected by
    chance: alpha is undefined)."""
    coincidences: defaultdict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for unit in units:
        values = [value for value in unit if value is not None]
        if len(values) < 2:
            continue
        for i, first in enumerate(values):  # every ordered pair of values, weighted 1 / (m_u - 1)
            for j, second in enumerate(values):
                if i != j:
                    coincidences[first, second] += 1 / (len(values) - 1)
    totals: defaultdict[Hashable, float] = defaultdict(float)
    for (first, _), weight in coincidences.items():
        totals[first] += weight
    pairable = sum(totals.values())
    disagreeing = sum(weight for (first, second), weight in coincidences.items() if first != second)
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k)
    if pairable == 0 or expected == 0:
        return None
    # alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c * n_k (nominal metric)
    return 1 - (pairable - 1) * disagreeing / expected


def _percentiles(draws: Any) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of a numpy array of bootstrap draws."""
    import numpy as np

    low, high = np.percentile(draws, [2.5, 97.5])
    return float(low), float(high)
