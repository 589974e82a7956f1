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
- ``prediction_powered_mean``: the mean of a label (a person's verdict) over every row, estimated from
  the few rows that have one and an automatic prediction on all of them: prediction-powered inference
  (Angelopoulos et al., Science 2023) and its power-tuned form PPI++ (Angelopoulos, Duchi and Zrnic,
  2023), with the normal interval of each; ``actively_sampled_mean`` the same where each row was
  drawn for labelling with a known probability of its own (Zrnic and Candes, ICML 2024).
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

    @property
    def width(self) -> float:
        return self.high - self.low

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


@dataclass(frozen=True)
class LabelledSums:
    """The rows that have a label: their count and the sums of the label y, the prediction f, and
    their squares and product (enough for every mean, variance and covariance PPI needs)."""

    n: int
    y: float
    f: float
    yy: float
    ff: float
    yf: float

    @classmethod
    def of(cls, labels: Sequence[float], predictions: Sequence[float]) -> LabelledSums:
        pairs = list(zip(labels, predictions, strict=True))
        return cls(
            len(pairs),
            sum(y for y, _ in pairs),
            sum(f for _, f in pairs),
            sum(y * y for y, _ in pairs),
            sum(f * f for _, f in pairs),
            sum(y * f for y, f in pairs),
        )


@dataclass(frozen=True)
class PredictedSums:
    """The rows with a prediction and no label: their count and the sums of f and of its square."""

    n: int
    f: float
    ff: float

    @classmethod
    def of(cls, predictions: Sequence[float]) -> PredictedSums:
        return cls(len(predictions), float(sum(predictions)), float(sum(f * f for f in predictions)))


@dataclass(frozen=True)
class PredictionPowered:
    estimate: float  # kept within [0, 1], where the mean of a label in [0, 1] lies
    interval: Interval
    weight: float  # lambda: 1 is PPI, 0 the labels alone, between them PPI++ power-tuned
    labels_only: Interval  # the normal interval of the labelled rows' mean, for comparison


def prediction_powered_mean(
    labelled: LabelledSums, unlabelled: PredictedSums, weight: float | None = None, z: float = Z95
) -> PredictionPowered | None:
    """The mean of y over every row, with its 95% normal interval, from n labelled rows and N rows
    with a prediction only, the labelled ones a random sample of all.

    The estimate is mean_n(y) + w * (mean_N(f) - mean_n(f)): the labels' mean, corrected by how far the
    predictions on the unlabelled rows differ from those on the labelled. Its variance is
    var(y - w f) / n + w^2 var(f) / N. w = 1 is PPI (the predictions' mean, minus their mean error on
    the labelled rows); ``weight=None`` takes the w that minimises the variance, cov(y, f) /
    ((1 + n / N) var(f)) (PPI++), kept within [0, 1]: between the labels alone and PPI, where a poor
    estimate of w from few labels cannot stray far. Any prediction gives an unbiased estimate; a good
    one a narrow interval.

    None below 2 labelled rows or 2 unlabelled ones, where no spread can be estimated. Where the
    labelled rows show no spread at all (every label equals its prediction, say), the spread is
    taken as one disagreement in n + 1 rows would give: a zero-width interval from a sample would
    claim a certainty the sample cannot give.
    """
    n, big_n = labelled.n, unlabelled.n
    if n < 2 or big_n < 2:
        return None
    mean_y, mean_f_labelled = labelled.y / n, labelled.f / n
    mean_f_unlabelled = unlabelled.f / big_n
    var_y = _sample_variance(labelled.yy, mean_y, n)
    cov_yf = (labelled.yf - n * mean_y * mean_f_labelled) / (n - 1)
    all_rows = n + big_n
    mean_f_all = (labelled.f + unlabelled.f) / all_rows
    var_f_all = _sample_variance(labelled.ff + unlabelled.ff, mean_f_all, all_rows)
    var_f_unlabelled = _sample_variance(unlabelled.ff, mean_f_unlabelled, big_n)
    if weight is None:
        weight = cov_yf / ((1 + n / big_n) * var_f_all) if var_f_all > 0 else 0.0
        weight = min(1.0, max(0.0, weight))
    var_f_labelled = _sample_variance(labelled.ff, mean_f_labelled, n)
    floor = _no_spread_floor(n)
    residual = max(var_y - 2 * weight * cov_yf + weight * weight * var_f_labelled, floor)
    estimate = mean_y + weight * (mean_f_unlabelled - mean_f_labelled)
    half = z * math.sqrt(residual / n + weight * weight * var_f_unlabelled / big_n)
    alone = z * math.sqrt(max(var_y, floor) / n)
    return PredictionPowered(
        min(1.0, max(0.0, estimate)),
        _within_unit(estimate - half, estimate + half),
        weight,
        _within_unit(mean_y - alone, mean_y + alone),
    )


def actively_sampled_mean(
    predictions: Sequence[float],
    labels: Sequence[float | None],
    probabilities: Sequence[float | None],
    z: float = Z95,
) -> PredictionPowered | None:
    """The mean of y over every row, where row i was drawn for labelling with probability p_i (more
    often where the prediction is less sure), each row independently, and the drawn rows labelled.

    The estimate is mean_N(w f) + the labelled rows' mean of y - w f, each weighted by 1 / p_i (how
    rarely such a row is drawn; Hajek's ratio, not the plain sum over N, whose count of drawn rows
    varies with the draw). It is consistent for the mean of y whatever the predictions, the
    probabilities (every p_i > 0) and w (Zrnic and Candes 2024, "Active Statistical Inference"). Its
    normal interval comes from each row's linearised term, V_i + w U_i with V_i = c_y + d_i (y_i - c_y)
    and U_i = (f_i - c_f) (1 - d_i), d_i = drawn_i / p_i and c the weighted means: the terms are
    independent, so the variance is var(V + w U) / N, least at w = -cov(U, V) / var(U) (PPI++'s power
    tuning), kept within [0, 1]. w = 0 is the labels alone, the comparison. None below 2 rows or
    without a label; the errors' spread is floored as in ``prediction_powered_mean``."""
    rows = len(predictions)
    drawn = [
        (f, y, 1 / p)
        for f, y, p in zip(predictions, labels, probabilities, strict=True)
        if y is not None and p
    ]
    if rows < 2 or not drawn:
        return None
    total_weight = sum(d for _, _, d in drawn)
    mean_y = sum(y * d for _, y, d in drawn) / total_weight  # Hajek's weighted means of the drawn rows
    mean_f_drawn = sum(f * d for f, _, d in drawn) / total_weight
    labels_alone, with_prediction = [], []  # V and U of each row
    for f, y, p in zip(predictions, labels, probabilities, strict=True):
        weight = 1 / p if y is not None and p else 0.0
        labels_alone.append(mean_y + weight * ((y or 0.0) - mean_y))
        with_prediction.append((f - mean_f_drawn) * (1 - weight))
    tuned = _variance_least_weight(with_prediction, labels_alone)
    terms = [v + tuned * u for u, v in zip(with_prediction, labels_alone, strict=True)]
    # The floor of PPI's error variance over n labels, as a variance of the N terms (the error part of
    # a term's variance is about N / n times the error's own).
    floor = _no_spread_floor(len(drawn)) * rows / len(drawn)
    estimate, half = _mean_and_half_width(terms, floor, z)
    alone, alone_half = _mean_and_half_width(labels_alone, floor, z)
    return PredictionPowered(
        min(1.0, max(0.0, estimate)),
        _within_unit(estimate - half, estimate + half),
        tuned,
        _within_unit(alone - alone_half, alone + alone_half),
    )


def _variance_least_weight(first: Sequence[float], second: Sequence[float]) -> float:
    """The w in [0, 1] that makes var(w first + second) least: -cov / var(first)."""
    rows = len(first)
    mean_first, mean_second = sum(first) / rows, sum(second) / rows
    spread = sum((a - mean_first) ** 2 for a in first)
    if spread <= 0:
        return 0.0
    together = sum((a - mean_first) * (b - mean_second) for a, b in zip(first, second, strict=True))
    return min(1.0, max(0.0, -together / spread))


def _mean_and_half_width(terms: Sequence[float], floor: float, z: float) -> tuple[float, float]:
    rows = len(terms)
    mean = sum(terms) / rows
    variance = max(_sample_variance(sum(t * t for t in terms), mean, rows), floor)
    return mean, z * math.sqrt(variance / rows)


def _sample_variance(squares: float, mean: float, n: int) -> float:
    return max(0.0, (squares - n * mean * mean) / (n - 1))  # rounding can leave a hair below 0


def _no_spread_floor(n: int) -> float:
    """The variance of a 0/1 value that differs once in n + 1 rows: the least spread a sample of n
    rows that showed none can be said to rule out."""
    share = 1 / (n + 1)
    return share * (1 - share)


def _within_unit(low: float, high: float) -> Interval:
    """An interval of a mean of values in [0, 1], cut to [0, 1] (which only raises its coverage)."""
    return Interval(min(1.0, max(0.0, low)), min(1.0, max(0.0, high)))


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
