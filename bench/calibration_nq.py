"""Accuracy calibrated on people's labels, checked on the NQ human-rated answers.

Reads ../shared/data/nq_human/nq_human_even.jsonl (2,896 answers, each labelled correct,
possibly_correct or incorrect by people; "correct" counts as correct, the rest as not), scores it with
every registered metric, keeps the labels of a random half of the rows (seeded) and hides the rest,
and prints a Markdown table per metric: its own accuracy, the accuracy calibrated on the visible half
(``assay.calibration``) with its 95% interval and how much narrower it is than the labels alone, and
the share people call correct in the hidden half, which the calibrated number should find. Then, over
``--splits`` random halves, how often the interval holds the whole file's share (nominal 95%).

    python bench/calibration_nq.py
    python bench/calibration_nq.py --splits 500 --share 0.1
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from assay import Outcome, load_records, score
from assay.calibration import calibrated
from assay.scoring import ScoreOptions, available_metrics

MORE = ["token_f1", "token_em", "squad_em", "squad_f1"]  # one flag away from the defaults
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "nq_human" / "nq_human_even.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--share", type=float, default=0.5, help="the share of rows whose labels are kept")
    parser.add_argument("--splits", type=int, default=200, help="random splits for the coverage line")
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"{DATA} is missing: this needs the shared data folder beside the repository")
    dataset = load_records(DATA, allow_duplicate_ids=True)
    truth = [record.meta["human_label"] == "correct" for record in dataset.records]
    metrics = [*available_metrics(dataset, ScoreOptions()), *MORE]
    run = score(dataset, metrics)
    rows = len(truth)
    rng = random.Random(args.seed)
    shown = set(rng.sample(range(rows), int(rows * args.share)))
    hidden = [truth[i] for i in range(rows) if i not in shown]
    visible = [truth[i] if i in shown else None for i in range(rows)]
    whole = sum(truth) / rows
    print(
        f"{rows} rows, {sum(truth)} correct by people ({whole:.1%}); labels kept on {len(shown)} random rows"
    )
    print(f"people's share correct in the {len(hidden)} hidden rows: {sum(hidden) / len(hidden):.1%}")
    print()
    print(
        "| metric | its accuracy | calibrated | 95% CI | narrower than labels alone | method "
        "| CI holds the whole file's share, over random halves |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, scores in run.metrics.items():
        passes = [1.0 if Outcome(code) is Outcome.PASS else 0.0 for code in scores.outcomes]
        own = run.summary.metrics[name].combined.accuracy
        found = calibrated(passes, visible)
        assert found.interval is not None and found.estimate is not None and found.narrowing is not None
        covered = sum(_covers(passes, truth, whole, args.share, rng) for _ in range(args.splits))
        interval = f"{found.interval.low:.1%} to {found.interval.high:.1%}"
        print(
            f"| {name} | {own:.1%} | {found.estimate:.1%} | {interval} | {found.narrowing:.1%} "
            f"| {found.method} | {covered / args.splits:.1%} of {args.splits} |"
        )


def _covers(passes: list[float], truth: list[bool], whole: float, share: float, rng: random.Random) -> bool:
    rows = len(truth)
    shown = set(rng.sample(range(rows), int(rows * share)))
    found = calibrated(passes, [truth[i] if i in shown else None for i in range(rows)])
    return found.interval is not None and whole in found.interval


if __name__ == "__main__":
    main()
