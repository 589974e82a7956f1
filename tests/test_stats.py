"""Intervals and tests against values computed once with statsmodels 0.15 and SciPy 1.17 (pinned here,
so the suite needs neither): proportion_confint(method="wilson"), mcnemar(exact=True), cohens_kappa."""

from __future__ import annotations

import pytest

from assay import stats

TOLERANCE = 1e-12


@pytest.mark.parametrize(
    ("passed", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.27753279986288926),
        (10, 10, 0.7224672001371106, 1.0),
        (81, 96, 0.7580851332547137, 0.9029629000931342),  # seed 002's gate: 84% of 96 questions
        (17, 56, 0.19900325085369447, 0.43335865285724834),
        (1, 1, 0.2065493143772374, 1.0),
        (5000, 10000, 0.49020206181540477, 0.5097979381845952),
    ],
)
def test_wilson_equals_statsmodels(passed: int, n: int, low: float, high: float) -> None:
    interval = stats.wilson(passed, n)
    assert interval is not None
    assert interval.low == pytest.approx(low, abs=TOLERANCE) and interval.high == pytest.approx(
        high, abs=TOLERANCE
    )


def test_no_rows_no_interval() -> None:
    assert stats.wilson(0, 0) is None and stats.bootstrap_proportion(0, 0) is None
    assert stats.cohen_kappa(0, 0, 0, 0) is None


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [(0, 0, 1.0), (1, 5, 0.21875), (3, 3, 1.0), (10, 25, 0.016673847800120715), (0, 7, 0.015625)],
)
def test_mcnemar_exact_equals_statsmodels(b: int, c: int, p: float) -> None:
    assert stats.mcnemar_exact(b, c) == pytest.approx(p, abs=TOLERANCE)
    assert stats.mcnemar_exact(c, b) == pytest.approx(p, abs=TOLERANCE)


@pytest.mark.parametrize(
    ("table", "kappa", "low", "high"),
    [
        ((75, 13, 313, 1682), 0.2644678408180064, 0.21337720255309062, 0.31555847908292217),
        ((20, 5, 10, 15), 0.4, 0.151092290476661, 0.6489077095233389),
        ((5, 0, 0, 5), 1.0, 1.0, 1.0),
        ((3, 7, 6, 4), -0.3, -0.7159789809331321, 0.11597898093313191),
    ],
)
def test_cohen_kappa_equals_statsmodels(
    table: tuple[int, int, int, int], kappa: float, low: float, high: float
) -> None:
    found = stats.cohen_kappa(*table)
    assert found is not None and found.kappa is not None and found.interval is not None
    assert found.kappa == pytest.approx(kappa, abs=TOLERANCE)
    assert (found.interval.low, found.interval.high) == pytest.approx((low, high), abs=TOLERANCE)


def test_kappa_of_one_class_only_is_undefined() -> None:
    found = stats.cohen_kappa(10, 0, 0, 0)
    assert found is not None and found.kappa is None and found.observed == 1.0


def test_the_bootstrap_repeats_exactly_for_a_seed() -> None:
    first, again = stats.bootstrap_proportion(81, 96, seed=7), stats.bootstrap_proportion(81, 96, seed=7)
    other = stats.bootstrap_proportion(81, 96, seed=8)
    assert first == again and first != other
    paired = [stats.paired_bootstrap(40, 6, 14, 36, seed=3) for _ in range(2)]
    assert paired[0] == paired[1]


def test_the_bootstrap_agrees_with_wilson_on_a_large_sample() -> None:
    boot, score = stats.bootstrap_proportion(5000, 10000), stats.wilson(5000, 10000)
    assert boot is not None and score is not None
    assert abs(boot.low - score.low) < 0.002 and abs(boot.high - score.high) < 0.002


def test_paired_difference() -> None:
    found = stats.paired_bootstrap(both=40, a_only=6, b_only=14, neither=36)
    assert (found.n, found.difference) == (96, pytest.approx(8 / 96))
    assert found.interval is not None and found.difference in found.interval
    assert found.p_value == pytest.approx(stats.mcnemar_exact(6, 14))
    assert stats.paired_bootstrap(0, 0, 0, 0).difference is None


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (20000, 22000, 1.739732640214188e-22),
        (5000, 5400, 9.116949314541157e-05),
        (300, 400, 1.784763144856244e-04),
    ],
)
def test_mcnemar_exact_is_quick_and_exact_on_large_runs(b: int, c: int, p: float) -> None:
    # scipy.stats.binomtest(b, b + c, 0.5).pvalue, computed once
    assert stats.mcnemar_exact(b, c) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(("passed", "n"), [(0, 12), (12, 12)])
def test_the_bootstrap_falls_back_to_wilson_where_every_resample_is_the_same(passed: int, n: int) -> None:
    assert stats.bootstrap_proportion(passed, n) == stats.wilson(passed, n)


@pytest.mark.parametrize("table", [(2, 0, 0, 1), (1, 1, 0, 1), (3, 0, 1, 1), (1, 0, 0, 1)])
def test_kappa_intervals_stay_within_kappas_range(table: tuple[int, int, int, int]) -> None:
    found = stats.cohen_kappa(*table)
    assert found is not None and found.interval is not None
    assert -1.0 <= found.interval.low <= found.interval.high <= 1.0


@pytest.mark.parametrize("table", [(3, 1, 0, 0), (0, 0, 2, 5), (3, 0, 1, 0), (0, 2, 0, 4)])
def test_kappa_where_one_rater_uses_one_class_is_undefined(table: tuple[int, int, int, int]) -> None:
    """Chance agreement then equals the observed agreement whatever the other rater does: the formula's
    0 with a zero-width interval would measure nothing, so kappa is None and the raw agreement is kept."""
    found = stats.cohen_kappa(*table)
    assert found is not None and found.kappa is None and found.interval is None
    assert found.observed == (table[0] + table[3]) / sum(table)


def test_the_mean_interval_is_the_normal_one_from_the_rows_spread() -> None:
    import statistics

    rows = [0.0, 0.25, 0.4, 0.5, 1.0, 0.0, 0.8]
    found = stats.mean_interval(sum(rows), sum(v * v for v in rows), len(rows))
    half = stats.Z95 * statistics.stdev(rows) / len(rows) ** 0.5
    assert found is not None
    assert (found.low, found.high) == pytest.approx(
        (statistics.mean(rows) - half, statistics.mean(rows) + half)
    )
    assert stats.mean_interval(0.3, 0.09, 1) is None  # one row: no spread to estimate
    near_one = stats.mean_interval(2.9, 2.81, 3)  # 1, 1, 0.9: the normal interval would pass 1
    assert near_one is not None and near_one.high == 1.0


@pytest.mark.parametrize("score", [0.0, 0.5, 1.0])
def test_rows_that_all_score_the_same_get_an_interval_of_some_width(score: float) -> None:
    """Four rows of one score show no spread; an interval of no width would claim certainty: it is
    Wilson's at the mean, as a proportion's is at 0 or n of n."""
    found = stats.mean_interval(4 * score, 4 * score * score, 4)
    assert found is not None and found.high - found.low > 0.3
    assert found.low <= score <= found.high
    assert found == stats.wilson(4 * score, 4)


# Wikipedia's worked example of Fleiss' kappa ("Fleiss' kappa", Worked example): 10 items, 14 raters,
# 5 categories; P-bar = 0.378, P-bar_e = 0.213, kappa = 0.210.
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_of_the_worked_example() -> None:
    kappa = stats.fleiss_kappa(FLEISS_WIKIPEDIA)
    assert kappa is not None and round(kappa, 3) == 0.210
    # by hand: the squared counts sum to 828, so P-bar = (828 - 140) / (10 * 14 * 13) = 688/1820; the
    # category totals are 20, 28, 39, 21, 32 of 140 ratings, so P-bar_e = 4030 / 140^2
    observed, chance = 688 / 1820, (20**2 + 28**2 + 39**2 + 21**2 + 32**2) / 140**2
    assert kappa == pytest.approx((observed - chance) / (1 - chance), abs=1e-12)


@pytest.mark.parametrize(
    ("counts", "kappa"),
    [
        ([[2, 0], [0, 2], [2, 0]], 1.0),  # two raters, always agreeing, both classes used
        ([[1, 1], [1, 1]], -1.0),  # two raters, never agreeing, classes balanced: P-bar 0, P-bar_e 1/2
        ([[3, 0], [2, 1]], -0.2),  # by hand: P-bar (1 + 1/3) / 2 = 2/3, p = (5/6, 1/6), P_e = 26/36
        ([[2, 0], [2, 0]], None),  # one class only: agreement by chance is certain
        ([], None),
    ],
)
def test_fleiss_kappa_by_hand(counts: list[list[int]], kappa: float | None) -> None:
    found = stats.fleiss_kappa(counts)
    assert found == (None if kappa is None else pytest.approx(kappa, abs=1e-12))


def test_fleiss_kappa_needs_equal_numbers_of_ratings() -> None:
    with pytest.raises(ValueError, match="same number of ratings"):
        stats.fleiss_kappa([[2, 0], [1, 0]])


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units,
# values 1-5, missing values (None); nominal alpha = 0.743. Rows are the units.
KRIPPENDORFF_CANONICAL = [
    [1, 1, None, 1],
    [2, 2, 3, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [2, 2, 2, 2],
    [1, 2, 3, 4],
    [4, 4, 4, 4],
    [1, 1, 2, 1],
    [2, 2, 2, 2],
    [None, 5, 5, 5],
    [None, None, 1, 1],
    [None, 3, None, None],  # one value: not pairable, counts for nothing
]


def test_krippendorff_alpha_of_the_canonical_example() -> None:
    alpha = stats.krippendorff_alpha_nominal(KRIPPENDORFF_CANONICAL)
    assert alpha is not None and round(alpha, 3) == 0.743
    # by hand, as the paper does: n = 40 pairable values, n_c = 9, 13, 10, 5, 3; the coincidences off the
    # diagonal sum to 8; alpha = 1 - (n - 1) * 8 / (n^2 - sum n_c^2) = 1 - 39 * 8 / (1600 - 384) = 113/152
    assert alpha == pytest.approx(113 / 152, abs=1e-12)


@pytest.mark.parametrize(
    ("units", "alpha"),
    [
        ([["a", "a"], ["b", "b"]], 1.0),  # perfect agreement, two values in use
        ([["a", "b"], ["b", "a"]], -0.5),  # by hand: n = 4, o_ab = o_ba = 2, 1 - 3 * 4 / (2*2 + 2*2)
        ([["a", "a", None], ["b", None, "b"], ["a", None, None]], 1.0),  # the lone value pairs with none
        ([["a", "a"], ["a", "a"]], None),  # one value only: no disagreement expected by chance
        ([["a", None], [None, "b"]], None),  # nothing pairable
        ([], None),
    ],
)
def test_krippendorff_alpha_by_hand(units: list[list[str | None]], alpha: float | None) -> None:
    found = stats.krippendorff_alpha_nominal(units)
    assert found == (None if alpha is None else pytest.approx(alpha, abs=1e-12))
