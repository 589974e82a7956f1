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
