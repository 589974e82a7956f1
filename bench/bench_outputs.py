"""What scoring costs against its floor: `assay score` with both seed protocols, with and without --out,
--trace and every default metric, against a polars one-liner (read, lowercase, contains, write) and the
seed's pandas reference (with its own to_csv), all in one run on one synthetic file.

Each command runs as a subprocess on the same file. The figure compared is CPU time (user + system of
the command and every process it waited for: assay's workers, polars' threads), which a loaded
machine moves far less than wall time; wall time is printed beside it. The fast commands run
`--repeat` times in alternating order and each figure is the median; the reference, which takes
minutes at a million rows, runs once. A second, small file (10,000 rows) measures what start-up
costs against the reference there.

    python bench/bench_outputs.py               # 1,000,000 rows (and 10,000)
    python bench/bench_outputs.py --quick       # 50,000 rows (and 10,000): a smoke run

polars is optional (pip install 'assay[bench]'); without it that target fails, saying so.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from bench_score import REFERENCE, _tree_rss_kib, synthetic_files
from targets import Target, print_targets

HERE = Path(__file__).resolve().parent
AREA = "score"
FULL_ROWS, QUICK_ROWS, SMALL_ROWS = 1_000_000, 50_000, 10_000
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


@dataclasses.dataclass(frozen=True)
class Cost:
    wall: float  # seconds
    cpu: float  # seconds of user + system time, the command's waited-for processes included
    peak: float  # MiB, the summed resident memory of the command's processes, sampled


def run(command: Sequence[str]) -> Cost:
    """One command's cost; it must succeed. Its own and its children's CPU time come from wait4."""
    env = dict(os.environ)
    # An installed package has its bytecode compiled once; with this set, every run would compile
    # assay's modules afresh (the reference's libraries are compiled already).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    ended: list[tuple[float, int, resource.struct_rusage]] = []
    done = threading.Event()

    def wait() -> None:  # the moment it ends, so the wall time is exact
        _, status, usage = os.wait4(process.pid, 0)
        ended.append((time.perf_counter() - start, status, usage))
        done.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    peak = 0
    while not done.wait(0.05):
        peak = max(peak, _tree_rss_kib(process.pid))
    waiter.join()
    wall, status, usage = ended[0]
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"failed ({process.returncode}): {' '.join(command)}")
    return Cost(wall, usage.ru_utime + usage.ru_stime, peak / 1024)


def polars_usable() -> bool:
    found = subprocess.run([sys.executable, "-c", "import polars; polars.DataFrame()"], capture_output=True)
    return found.returncode == 0


def commands(data: Path, workdir: Path) -> dict[str, list[str]]:
    assay = [sys.executable, "-m", "assay", "score", "--responses", str(data)]
    found = {
        "pair": [*assay, *SEED_PAIR],
        "pair --out": [*assay, *SEED_PAIR, "--out", str(workdir / "x.csv")],
        "pair --trace": [*assay, *SEED_PAIR, "--trace", str(workdir / "t.jsonl")],
        "every default": [*assay, *EVERY_DEFAULT],
    }
    if polars_usable():
        found["polars"] = [sys.executable, "-c", POLARS, str(data), str(workdir / "polars.csv")]
    return found


def reference(data: Path, workdir: Path) -> list[str]:
    return [sys.executable, str(REFERENCE), "--responses", str(data), "--out", str(workdir / "reference.csv")]


def measure(data: Path, workdir: Path, repeat: int) -> dict[str, Cost]:
    """Each command's median cost: the fast ones `repeat` times in alternating order, the reference once."""
    runs: dict[str, list[Cost]] = {}
    listed = commands(data, workdir)
    for turn in range(repeat):
        order = list(listed.items()) if turn % 2 == 0 else list(reversed(listed.items()))
        for name, command in order:
            runs.setdefault(name, []).append(run(command))
    runs["reference"] = [run(reference(data, workdir))]
    for output in ("reference.csv", "x.csv", "t.jsonl", "polars.csv"):
        (workdir / output).unlink(missing_ok=True)
    costs = {name: median(found) for name, found in runs.items()}
    for name, cost in costs.items():
        figures = f"{cost.cpu:>8.2f} s CPU{cost.wall:>8.2f} s wall{cost.peak:>8.0f} MiB peak"
        print(f"    {name:<16}{figures}", flush=True)
    return costs


def median(costs: list[Cost]) -> Cost:
    fields = ("wall", "cpu", "peak")
    return Cost(*(statistics.median(getattr(cost, name) for cost in costs) for name in fields))


def _per_row(cost: Cost, rows: int) -> str:
    return f"{cost.cpu / rows * 1e6:.1f} µs"


def ratio_targets(costs: dict[str, Cost], rows: int) -> list[Target]:
    pair, out = costs["pair"], costs["pair --out"]
    at = f"{rows:,} rows"
    found = []
    polars = costs.get("polars")
    found.append(
        Target(AREA, f"--out / polars one-liner, CPU ({at})",
               out.cpu / polars.cpu if polars else float("inf"), 2.0,
               detail=(f"{_per_row(out, rows)} vs {_per_row(polars, rows)} CPU a row; wall "
                       f"{out.wall:.1f} vs {polars.wall:.1f} s") if polars
               else "polars is not installed (pip install 'assay[bench]')")
    )  # fmt: skip
    ref = costs["reference"]
    found.append(
        Target(AREA, f"--out vs pandas reference + to_csv, CPU ({at})", ref.cpu / out.cpu, 20.0,
               at_most=False, detail=(f"CPU {ref.cpu:.1f} vs {out.cpu:.1f} s; wall {ref.wall:.1f} vs "
                                      f"{out.wall:.1f} s ({ref.wall / out.wall:.1f}x)"))
    )  # fmt: skip
    for name, limit, what in (
        ("every default", 1.3, "every default metric / seed pair"),
        ("pair --trace", 1.5, "--trace / none"),
        ("pair --out", 1.15, "--out / none"),
    ):
        cost = costs[name]
        found.append(
            Target(AREA, f"{what}, CPU ({at})", cost.cpu / pair.cpu, limit,
                   detail=f"{_per_row(cost, rows)} vs {_per_row(pair, rows)} CPU a row")
        )  # fmt: skip
    return found


def small_target(workdir: Path, repeat: int) -> Target:
    """At 10,000 rows start-up counts: the speed-up of `assay score --out` over the reference there."""
    (data,) = synthetic_files(workdir, SMALL_ROWS, "quoted")
    out = [sys.executable, "-m", "assay", "score", "--responses", str(data), *SEED_PAIR,
           "--out", str(workdir / "x.csv")]  # fmt: skip
    assay, ref = [], []
    for _ in range(repeat):
        assay.append(run(out))
        ref.append(run(reference(data, workdir)))
    a, r = median(assay), median(ref)
    return Target(
        AREA,
        f"--out vs pandas reference + to_csv, wall ({SMALL_ROWS:,} rows)",
        r.wall / a.wall,
        5.0,
        at_most=False,
        detail=f"{r.wall:.2f} vs {a.wall:.2f} s wall; CPU {r.cpu:.2f} vs {a.cpu:.2f} s",
    )


def targets(quick: bool, *, rows: int | None = None, repeat: int | None = None,
            workdir: Path = HERE / "out") -> list[Target]:  # fmt: skip
    """The score area's targets (``bench_all.py``): ``quick`` uses 50,000 rows, else 1,000,000. "--out"
    is `assay score` with both seed protocols and --out; each ratio is of the named commands' figures."""
    rows = rows or (QUICK_ROWS if quick else FULL_ROWS)
    repeat = repeat or (1 if quick else 3)
    (data,) = synthetic_files(workdir, rows, "quoted")
    print(f"  {rows:,} rows, medians of {repeat} (load average {os.getloadavg()[0]:.1f}):", flush=True)
    found = ratio_targets(measure(data, workdir, repeat), rows)
    found.append(small_target(workdir, max(repeat, 3)))
    print(f"  (load average {os.getloadavg()[0]:.1f} at the end)", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS:,} rows, one run of each")
    parser.add_argument("--rows", type=int, help=f"rows of the main file (default {FULL_ROWS:,})")
    parser.add_argument("--repeat", type=int, help="runs of each fast command (default 3; 1 with --quick)")
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    args = parser.parse_args()
    found = targets(args.quick, rows=args.rows, repeat=args.repeat, workdir=args.workdir)
    sys.exit(0 if print_targets(found) else 1)


if __name__ == "__main__":
    main()
