"""What starting assay costs: ``assay --help`` and a one-row ``assay score``, each as the CPU time (user +
system) of its process over that of ``python -c pass``, medians of interleaved runs in one run (CPU time,
not the wall clock: a loaded machine delays a process more than it makes it work more).

Every command is a fresh interpreter on this checkout's src/, with bytecode written (a warm-up run
first), as an installed package runs: PYTHONDONTWRITEBYTECODE is dropped from the environment. The
unicode profile's fold tables are read precomputed when the checkout was built (``pip install -e .``
or ``python setup.py build_ext --inplace`` writes them); the bench says whether they were.

    python bench/bench_startup.py            # 21 rounds
    python bench/bench_startup.py --quick    # 7 rounds
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from targets import Target, print_targets

SRC = Path(__file__).resolve().parent.parent / "src"
ONE_ROW = "id,question,answer,response,domain\nq1,Who wrote Hamlet?,Shakespeare,William Shakespeare,Art\n"
BASELINE = "python -c pass"
LIMIT = 0.15  # seconds of CPU over the bare interpreter (issue 24)
# What each target measures, by the command's name below.
TARGETS = {
    "assay --help": "`assay --help` CPU over a bare interpreter",
    "assay score (1 row)": "1-row `assay score` CPU over a bare interpreter",
}
TABLES_STORED = (
    "from assay.text import unicode; "
    "print('precomputed' if unicode._stored_fold_tables(unicode.FOLD_TABLES_FILE) else 'built per process')"
)


def commands(workdir: Path) -> dict[str, list[str]]:
    """Each measured command, by the name printed; BASELINE first."""
    responses = workdir / "one_row.csv"
    responses.write_text(ONE_ROW, encoding="utf-8")
    return {
        BASELINE: [sys.executable, "-c", "pass"],
        "assay --help": [sys.executable, "-m", "assay", "--help"],
        "assay score (1 row)": [sys.executable, "-m", "assay", "score", "--responses", str(responses)],
    }


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def cpu_seconds(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """User + system CPU seconds of the command's process (and any it waited for), from wait4."""
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def measure(rounds: int) -> dict[str, list[float]]:
    """Each command's CPU seconds over `rounds` rounds, each round running every command once."""
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        measured = commands(workdir)
        for command in measured.values():  # warm-up: bytecode written, files in the page cache
            cpu_seconds(command, env, workdir)
        taken: dict[str, list[float]] = {name: [] for name in measured}
        for _ in range(rounds):
            for name, command in measured.items():
                taken[name].append(cpu_seconds(command, env, workdir))
    return taken


def fold_tables() -> str:
    """Whether the runs read the fold tables precomputed or built them."""
    found = subprocess.run(
        [sys.executable, "-c", TABLES_STORED], env=environment(), capture_output=True, text=True, check=True
    )
    return found.stdout.strip()


def targets(quick: bool) -> list[Target]:
    rounds = 7 if quick else 21
    taken = measure(rounds)
    baseline = statistics.median(taken[BASELINE])
    tables = fold_tables()
    found = []
    for name, what in TARGETS.items():
        median = statistics.median(taken[name])
        found.append(
            Target(
                area="startup",
                what=what,
                measured=median - baseline,
                limit=LIMIT,
                unit=" s",
                detail=f"{median:.3f} vs {baseline:.3f} s CPU, medians of {rounds} interleaved runs; "
                f"fold tables {tables}",
            )
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="7 rounds instead of 21")
    args = parser.parse_args()
    print(f"src: {SRC}; load average {os.getloadavg()[0]:.1f} at the start")
    sys.exit(0 if print_targets(targets(args.quick)) else 1)


if __name__ == "__main__":
    main()
