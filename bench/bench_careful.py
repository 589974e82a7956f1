"""The cost of careful matching: `assay score` with the unicode-profile scorers against the seed's cheapest
protocol, on the same file in one run.

Times ``--metric exact_substring`` and ``--metric phrase_match --metric token_f1`` as subprocesses, each
``--repeat`` times in alternating order (so a drift in the machine's load falls on both), and prints the
median wall times and their ratio, for the "quoted" and the "plain" synthetic file of bench_score.py
(written first if missing). The target is a ratio of at most 4 at a million rows.

    python bench/bench_careful.py --rows 1000000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench_score import HERE, run_measured, synthetic_files

TARGET_RATIO = 4.0
BASELINE = ("exact_substring",)
CAREFUL = ("phrase_match", "token_f1")


def command(data: Path, metrics: tuple[str, ...]) -> list[str]:
    flags = [part for metric in metrics for part in ("--metric", metric)]
    return [sys.executable, "-m", "assay", "score", "--responses", str(data), *flags]


def compare(data: Path, repeat: int) -> float:
    """The median seconds of each command over `repeat` alternating runs, printed; their ratio."""
    seconds: dict[tuple[str, ...], list[float]] = {BASELINE: [], CAREFUL: []}
    for run in range(repeat):
        for metrics in (BASELINE, CAREFUL) if run % 2 == 0 else (CAREFUL, BASELINE):
            seconds[metrics].append(run_measured(command(data, metrics))[0])
    baseline, careful = (statistics.median(seconds[metrics]) for metrics in (BASELINE, CAREFUL))
    for metrics in (BASELINE, CAREFUL):
        runs = " ".join(f"{value:.1f}" for value in seconds[metrics])
        print(f"  {' + '.join(metrics):<28}{statistics.median(seconds[metrics]):>8.1f} s   (runs: {runs})")
    ratio = careful / baseline
    print(f"  ratio: {ratio:.2f}x   (target <= {TARGET_RATIO:g}x)", flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (default: 3)")
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    parser.add_argument("--only", choices=("quoted", "plain"), help="run one kind of file (default: both)")
    args = parser.parse_args()
    for data in synthetic_files(args.workdir, args.rows, args.only):
        compare(data, args.repeat)


if __name__ == "__main__":
    main()
