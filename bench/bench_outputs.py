"""What outputs cost: `assay score` with and without --out, --trace and more metrics, against the seed's
pandas reference (with its own to_csv) and a polars one-liner, all in one run on one synthetic file.

Each command runs as a subprocess on the same file, one after the other, so the ratios are measured
on one machine under one load (a shared machine is noisy: rerun before trusting a near miss). Prints
each figure, then each ratio against its target, PASS or FAIL; exits 1 when a target fails.

    python bench/bench_outputs.py               # 1,000,000 rows
    python bench/bench_outputs.py --rows 100000

polars is optional (pip install 'assay[bench]'); without it that comparison is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from bench_score import REFERENCE, run_measured, synthetic_files

HERE = Path(__file__).resolve().parent
SEED_PAIR = ["--metric", "exact_substring", "--metric", "word_overlap"]
# The default metrics of the seed's file, named so the figure does not move when the defaults do.
EVERY_DEFAULT = [*SEED_PAIR, "--metric", "phrase_match"]

# Read, lowercase, `contains` per row (each row's golden answer as a literal pattern), write.
POLARS = """
import sys, polars as pl
frame = pl.read_csv(sys.argv[1], infer_schema=False)
golden, response = (pl.col(name).str.to_lowercase() for name in ("answer", "response"))
frame.with_columns(exact=response.str.contains(golden, literal=True)).write_csv(sys.argv[2])
"""


def measure(data: Path, workdir: Path) -> dict[str, float]:
    """Wall seconds of each command, in one run."""
    assay = [sys.executable, "-m", "assay", "score", "--responses", str(data)]
    commands = {
        "seed reference (pandas apply + to_csv)": [
            sys.executable,
            str(REFERENCE),
            "--responses",
            str(data),
            "--out",
            str(workdir / "reference.csv"),
        ],
        "assay, both protocols": [*assay, *SEED_PAIR],
        "assay, both protocols, --out x.csv": [*assay, *SEED_PAIR, "--out", str(workdir / "x.csv")],
        "assay, both protocols, --trace": [*assay, *SEED_PAIR, "--trace", str(workdir / "t.jsonl")],
        "assay, every default metric": [*assay, *EVERY_DEFAULT],
    }
    if importlib.util.find_spec("polars") is not None:
        polars = [sys.executable, "-c", POLARS, str(data), str(workdir / "polars.csv")]
        commands["polars one-liner (read, contains, write)"] = polars
    else:
        print("polars is not installed (pip install 'assay[bench]'): its comparison is skipped")
    seconds = {}
    for name, command in commands.items():
        seconds[name], peak = run_measured(command)
        print(f"  {name:<44}{seconds[name]:>8.2f} s{peak:>8.0f} MiB peak", flush=True)
    for output in ("reference.csv", "x.csv", "t.jsonl", "polars.csv"):
        (workdir / output).unlink(missing_ok=True)
    return seconds


def verdicts(seconds: dict[str, float]) -> bool:
    """Print each ratio against its target; True when every target holds."""
    base = seconds["assay, both protocols"]
    out = seconds["assay, both protocols, --out x.csv"]
    checks = [
        ("--out x.csv vs the reference with to_csv", seconds["seed reference (pandas apply + to_csv)"] / out,
         ">=", 10.0, "x faster"),
        ("--out x.csv vs without --out", out / base, "<=", 1.3, "x the time"),
        ("every default metric vs the seed pair", seconds["assay, every default metric"] / base, "<=", 3.0,
         "x the time"),
        ("--trace vs without", seconds["assay, both protocols, --trace"] / base, "<=", 3.0, "x the time"),
    ]  # fmt: skip
    passed = True
    for what, ratio, sense, target, unit in checks:
        ok = ratio >= target if sense == ">=" else ratio <= target
        passed &= ok
        print(f"  {what:<44}{ratio:>6.2f}{unit:<11} target {sense} {target:<5} {'PASS' if ok else 'FAIL'}")
    polars = seconds.get("polars one-liner (read, contains, write)")
    if polars is not None:
        print(f"  {'--out x.csv vs the polars one-liner':<44}{out / polars:>6.2f}x the time (no target)")
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    args = parser.parse_args()
    (data,) = synthetic_files(args.workdir, args.rows, "quoted")
    seconds = measure(data, args.workdir)
    sys.exit(0 if verdicts(seconds) else 1)


if __name__ == "__main__":
    main()
