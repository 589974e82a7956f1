"""What starting assay costs: ``import assay``, ``assay --help`` and a one-row ``assay score``, each the
median of interleaved runs, against ``python -c pass`` measured in the same run (so the figures hold on a
loaded machine, as a ratio and a difference).

Every command is a fresh interpreter on this checkout's src/, with bytecode written (a warm-up run
first), as an installed package runs: PYTHONDONTWRITEBYTECODE is dropped from the environment.

    python bench/bench_startup.py --runs 21
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ONE_ROW = "id,question,answer,response,domain\nq1,Who wrote Hamlet?,Shakespeare,William Shakespeare,Art\n"


def commands(workdir: Path) -> dict[str, list[str]]:
    """Each measured command, by the name printed; "python -c pass" is the baseline."""
    responses = workdir / "one_row.csv"
    responses.write_text(ONE_ROW, encoding="utf-8")
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import assay": [sys.executable, "-c", "import assay"],
        "assay --help": [sys.executable, "-m", "assay", "--help"],
        "assay score (1 row)": [sys.executable, "-m", "assay", "score", "--responses", str(responses)],
    }


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def seconds(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, float]:
    """The median seconds of each command over `runs` rounds, each round running every command once."""
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        measured = commands(workdir)
        for command in measured.values():  # warm-up: bytecode written, files in the page cache
            seconds(command, env, workdir)
        times: dict[str, list[float]] = {name: [] for name in measured}
        for _ in range(runs):
            for name, command in measured.items():
                times[name].append(seconds(command, env, workdir))
    return {name: statistics.median(taken) for name, taken in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15, help="rounds of interleaved runs (default 15)")
    args = parser.parse_args()
    medians = measure(args.runs)
    baseline = medians["python -c pass"]
    print(f"{args.runs} interleaved runs, medians; src: {SRC}")
    print(f"{'command':<22}{'seconds':>9}{'minus pass':>12}{'x pass':>9}")
    for name, median in medians.items():
        print(f"{name:<22}{median:>9.3f}{median - baseline:>12.3f}{median / baseline:>9.1f}")


if __name__ == "__main__":
    main()
