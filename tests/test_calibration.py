"""Calibrated accuracy (prediction-powered inference) against a direct implementation of the published
formulas, and its interval's coverage over simulated data whose truth is known."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from assay import Outcome, ScoreRun, load_records, score, stats
from assay.agreement import label_text
from assay.calibration import MIN_LABELS, calibrated
from assay.metric import MetricScores
from assay.records import Record
from assay.suggest import draw_rows
from conftest import skip_or_fail

SIMULATIONS = 2_000


def published_ppi(
    y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, lam: float
) -> tuple[float, float]:
    """The PPI++ mean estimate and its standard error as Angelopoulos, Duchi and Zrnic (2023) write
    them: theta = mean(Y) + lam (mean(f~) - mean(f)); var = var(Y - lam f) / n + lam^2 var(f~) / N
    (lam = 1 is the PPI of Angelopoulos et al. 2023)."""
    n, big_n = len(y), len(f_unlabelled)
    theta = y.mean() + lam * (f_unlabelled.mean() - f_labelled.mean())
    variance = np.var(y - lam * f_labelled, ddof=1) / n + lam**2 * np.var(f_unlabelled, ddof=1) / big_n
    return float(theta), float(math.sqrt(variance))


def published_lambda(y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray) -> float:
    """PPI++'s variance-minimising lambda for a mean: cov(Y, f) / ((1 + n / N) var(f))."""
    n, big_n = len(y), len(f_unlabelled)
    every_f = np.concatenate([f_labelled, f_unlabelled])
    return float(np.cov(y, f_labelled, ddof=1)[0, 1] / ((1 + n / big_n) * np.var(every_f, ddof=1)))


def simulated(
    rng: np.random.Generator, rows: int, share_correct: float, recall: float, false_pass: float
) -> tuple[np.ndarray, np.ndarray]:
    """People's verdicts (correct with probability share_correct) and a metric that passes a correct
    row with probability recall and an incorrect one with probability false_pass."""
    truth = rng.random(rows) < share_correct
    passes = np.where(truth, rng.random(rows) < recall, rng.random(rows) < false_pass)
    return truth.astype(float), passes.astype(float)


def assay_estimate(
    y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, weight: float | None
) -> stats.PredictionPowered:
    found = stats.prediction_powered_mean(
        stats.LabelledSums.of(y.tolist(), f_labelled.tolist()),
        stats.PredictedSums.of(f_unlabelled.tolist()),
        weight,
    )
    assert found is not None
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ppi_and_ppi_plus_plus_equal_the_published_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y, f = simulated(rng, 3_000, 0.4, 0.3, 0.05)
    y_lab, f_lab, f_unl = y[:300], f[:300], f[300:]
    for weight in (1.0, None):
        lam = 1.0 if weight is not None else min(1.0, max(0.0, published_lambda(y_lab, f_lab, f_unl)))
        theta, error = published_ppi(y_lab, f_lab, f_unl, lam)
        found = assay_estimate(y_lab, f_lab, f_unl, weight)
        assert found.weight == pytest.approx(lam, abs=1e-12)
        assert found.estimate == pytest.approx(theta, abs=1e-12)
        assert found.interval.low == pytest.approx(theta - stats.Z95 * error, abs=1e-12)
        assert found.interval.high == pytest.approx(theta + stats.Z95 * error, abs=1e-12)
    classical = stats.Z95 * float(np.std(y_lab, ddof=1)) / math.sqrt(len(y_lab))
    assert found.labels_only.low == pytest.approx(y_lab.mean() - classical, abs=1e-12)


@pytest.mark.parametrize(
    ("share_correct", "recall", "false_pass", "labelled"),
    [
        (0.3, 0.2, 0.03, 200),  # a precise matcher that misses most answers people accept (NQ-like)
        (0.7, 0.9, 0.2, 100),  # a lenient one
        (0.5, 0.5, 0.5, 150),  # a metric that knows nothing: PPI++ falls back on the labels
    ],
)
def test_the_interval_covers_the_truth_at_its_nominal_rate(
    share_correct: float, recall: float, false_pass: float, labelled: int
) -> None:
    """Over 2,000 simulated runs of 2,000 rows, a random `labelled` of them labelled, the reported
    interval (the tighter of PPI and PPI++) holds the share people call correct 95% of the time, +-2%."""
    rng = np.random.default_rng(20261203)
    covered = covered_ppi = 0
    narrowing = []
    for _ in range(SIMULATIONS):
        y, f = simulated(rng, 2_000, share_correct, recall, false_pass)
        truth: list[bool | None] = [bool(v) for v in y[:labelled]] + [None] * (len(y) - labelled)
        found = calibrated(f.tolist(), truth)
        assert found.interval is not None and found.estimate is not None
        covered += found.interval.low <= share_correct <= found.interval.high
        plain = assay_estimate(y[:labelled], f[:labelled], f[labelled:], 1.0)
        covered_ppi += share_correct in plain.interval
        narrowing.append(found.narrowing)
    assert abs(covered / SIMULATIONS - 0.95) <= 0.02, covered / SIMULATIONS
    assert abs(covered_ppi / SIMULATIONS - 0.95) <= 0.02, covered_ppi / SIMULATIONS
    assert min(narrowing) >= 0 or recall == false_pass  # never wider than the labels alone, but by luck


def test_a_good_metric_narrows_the_interval_and_a_useless_one_does_not() -> None:
    rng = np.random.default_rng(7)
    y, good = simulated(rng, 5_000, 0.5, 0.95, 0.05)
    useless = rng.random(5_000) < 0.5
    truth: list[bool | None] = [bool(v) for v in y[:200]] + [None] * 4_800
    with_good = calibrated(good.tolist(), truth)
    with_useless = calibrated(useless.astype(float).tolist(), truth)
    assert with_good.narrowing is not None and with_good.narrowing > 0.3
    assert with_useless.narrowing is not None and with_useless.narrowing < 0.1


def test_too_few_labels_give_no_number_and_say_why() -> None:
    truth: list[bool | None] = [True] * (MIN_LABELS - 1) + [None] * 100
    found = calibrated([1.0] * len(truth), truth)
    assert found.estimate is None and found.interval is None
    assert found.reason == f"not enough labels ({MIN_LABELS - 1} of the {MIN_LABELS} needed)"


def test_every_row_labelled_gives_the_peoples_own_share() -> None:
    truth: list[bool | None] = [True] * 30 + [False] * 70
    found = calibrated([1.0] * 100, truth)
    assert found.method == "labels" and found.estimate == pytest.approx(0.3)
    assert found.interval == stats.wilson(30, 100)


def test_labels_that_all_agree_with_the_metric_still_give_an_interval_with_width() -> None:
    """Every labelled row's label equals its verdict: the sample shows no error, which 50 rows cannot
    prove absent, so the interval keeps a width."""
    truth: list[bool | None] = [True] * 25 + [False] * 25 + [None] * 500
    predictions = [1.0] * 25 + [0.0] * 25 + [1.0] * 250 + [0.0] * 250
    found = calibrated(predictions, truth)
    assert found.interval is not None and found.interval.high - found.interval.low > 0.02


NQ_HUMAN = Path(__file__).resolve().parents[2] / "shared" / "data" / "nq_human" / "nq_human_even.jsonl"
SPLITS = 200


@pytest.fixture(scope="module")
def nq_run() -> ScoreRun:
    if not NQ_HUMAN.is_file():
        skip_or_fail(f"shared data file not found: {NQ_HUMAN} (the repository's ../shared/data folder)")
    return score(load_records(NQ_HUMAN, allow_duplicate_ids=True))


def test_calibrated_on_half_the_nq_labels_finds_the_other_halfs_share(nq_run: ScoreRun) -> None:
    """2,896 NQ answers, every one labelled by people (correct, or not: possibly_correct counts as not).
    Calibrating each metric on a random half of the labels, with the other half's labels hidden: the
    estimate lands near the share people call correct in the hidden half, where the metric's own
    accuracy is tens of points off, and over 200 random halves the interval holds the whole file's share
    at least at its nominal rate (a finite file: the rate is higher)."""
    truth = [label_text(r.meta["human_label"]) == "correct" for r in nq_run.records]
    rows = len(truth)
    whole_share = sum(truth) / rows
    rng = np.random.default_rng(20261203)
    for name, scores in nq_run.metrics.items():
        passes = [1.0 if Outcome(code) is Outcome.PASS else 0.0 for code in scores.outcomes]
        raw = nq_run.summary.metrics[name].combined.accuracy
        assert raw is not None
        covered, misses, raw_misses = 0, [], []
        for _ in range(SPLITS):
            shown = rng.permutation(rows) < rows // 2
            visible: list[bool | None] = [t if s else None for t, s in zip(truth, shown, strict=True)]
            found = calibrated(passes, visible)
            assert found.interval is not None and found.estimate is not None
            assert found.labelled == rows // 2 and found.method in ("PPI", "PPI++")
            covered += whole_share in found.interval
            hidden = [t for t, s in zip(truth, shown, strict=True) if not s]
            misses.append(abs(found.estimate - sum(hidden) / len(hidden)))
            raw_misses.append(abs(raw - sum(hidden) / len(hidden)))
        assert covered / SPLITS >= 0.93, (name, covered / SPLITS)
        assert float(np.median(misses)) < 0.015, name
        assert float(np.median(misses)) < float(np.median(raw_misses)), name


def drawn_design(
    rng: np.random.Generator, rows: int = 2_000
) -> tuple[list[MetricScores], list[Record], np.ndarray]:
    """Two domains; people's verdicts; three metrics of different leniency that often agree."""
    truth = rng.random(rows) < 0.45
    strictness = rng.random(rows)
    metrics = []
    for name, (recall, false_pass) in {
        "strict": (0.3, 0.02),
        "loose": (0.7, 0.1),
        "lenient": (0.9, 0.3),
    }.items():
        passes = np.where(truth, strictness < recall, strictness > 1 - false_pass)
        scores = MetricScores.all_failing(name, rows)
        scores.outcomes[:] = bytes(int(Outcome.PASS) if p else int(Outcome.FAIL) for p in passes)
        metrics.append(scores)
    records = [Record(f"q{i}", "q", ("a",), "r", domain="ab"[i % 3 == 0]) for i in range(rows)]
    return metrics, records, truth


def test_labels_drawn_by_suggest_give_a_valid_and_narrower_interval() -> None:
    """Rows drawn by ``draw_rows`` (more often where the metrics split) and labelled: the calibrated
    interval, weighting each label by its chance of being drawn, holds the truth at the nominal rate
    over 1,000 draws, and is narrower than a uniform random draw of the same size gives."""
    rng = np.random.default_rng(11)
    metrics, records, truth = drawn_design(rng)
    share = float(truth.mean())  # the rows are fixed; the draw is what is random
    passes = [1.0 if Outcome(c) is Outcome.PASS else 0.0 for c in metrics[0].outcomes]
    covered, widths, uniform_widths = 0, [], []
    for seed in range(1_000):
        draw = draw_rows(metrics, records, 200, seed=seed)
        chosen = set(draw.rows)
        labelled: list[bool | None] = [bool(truth[i]) if i in chosen else None for i in range(len(records))]
        drawn = [draw.probabilities[i] if i in chosen else None for i in range(len(records))]
        found = calibrated(passes, labelled, drawn)
        assert found.method == "drawn" and found.interval is not None
        covered += share in found.interval
        widths.append(found.interval.high - found.interval.low)
        uniform = np.random.default_rng(seed).permutation(len(records)) < len(draw.rows)
        plain = calibrated(passes, [bool(truth[i]) if uniform[i] else None for i in range(len(records))])
        assert plain.interval is not None
        uniform_widths.append(plain.interval.high - plain.interval.low)
    assert abs(covered / 1_000 - 0.95) <= 0.02, covered / 1_000
    assert float(np.mean(widths)) < float(np.mean(uniform_widths))


def test_every_domain_gets_enough_drawn_rows_to_be_calibrated() -> None:
    metrics, records, _ = drawn_design(np.random.default_rng(3))
    draw = draw_rows(metrics, records, 100, seed=1)
    small = [i for i, record in enumerate(records) if record.domain == "b"]  # a third of the rows
    expected_small = sum(draw.probabilities[i] for i in small)
    assert expected_small >= MIN_LABELS - 1e-9
    assert sum(draw.probabilities) == pytest.approx(100)
    assert all(0 < p <= 1 for p in draw.probabilities)  # no row left out: the estimate stays unbiased
