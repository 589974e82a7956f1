"""How close `assay run` comes to the ideal against a system that answers after a fixed delay.

The system is a real HTTP endpoint on 127.0.0.1 (delay_server.py, in its own process) that answers every
question after DELAY seconds. `assay run` asks it ITEMS gold items at CONCURRENCY, end to end, as a user
runs it: start, probe, ask, journal, grade, write the reports. The ideal is items x delay / concurrency:
what the waiting alone costs when CONCURRENCY questions are always in flight; all the rest (start-up,
the probe, the CPU per request, the journal, grading, reports) is the gap.

    python bench/bench_run.py                  # 1,000 items at 32, 200 ms; the median of 3 runs
    python bench/bench_run.py --quick          # one run
    python bench/bench_run.py --items 1000 --concurrency 16
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from delay_server import delay_server, served
from targets import Target, print_targets

HERE = Path(__file__).resolve().parent
TARGET_RATIO = 1.15  # of the ideal
ITEMS, CONCURRENCY, DELAY = 1000, 32, 0.2


def write_gold(path: Path, count: int) -> None:
    """A gold set as `assay gold build` writes it: a question whose answer is a number of days."""
    lines = []
    for number in range(count):
        days = 10 * (number + 1)
        item = {
            "id": f"item{number:05d}",
            "scope": "policy",
            "field": f"field_{number}",
            "question": f"How many days is waiting period {number}?",
            "expected_answer": f"{days} days",
            "expected_value": {"value": days, "unit": "day"},
            "expected_regex": rf"(?<!\d){days}\s*days?\b",
            "answer_type": "number_unit",
            "category": "waiting",
            "expected_refusal": False,
            "source": None,
        }
        lines.append(json.dumps(item))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


ASKED = re.compile(r"asked \d+ items in ([\d.]+) s")  # the run's own line for its asking phase


def one_run(gold: Path, out: Path, url: str, concurrency: int) -> tuple[float, float, float]:
    """Wall seconds and CPU seconds (the child's) of one `assay run`, from nothing in `out`, and the
    seconds its asking took (as the run reports them: the rest is start-up, grading and the report)."""
    command = [sys.executable, "-m", "assay", "run", "--gold", str(gold), "--system", f"http:{url}/ask"]
    command += ["--out", str(out), "--concurrency", str(concurrency), "--fresh"]
    before = os.times()
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = os.times()
    if result.returncode not in (0, 1):  # 1: a gate failed, which is no concern here
        sys.exit(f"assay run failed ({result.returncode}):\n{result.stderr}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    asking = ASKED.search(result.stderr)
    if asking is None:
        sys.exit(f"assay run did not say how long it asked:\n{result.stderr}")
    return wall, cpu, float(asking.group(1))


def measure(items: int, concurrency: int, delay: float, repeats: int) -> Target:
    with tempfile.TemporaryDirectory() as folder, delay_server(delay) as url:
        gold = Path(folder) / "gold.jsonl"
        write_gold(gold, items)
        runs = [one_run(gold, Path(folder) / f"run{n}", url, concurrency) for n in range(repeats)]
        asked = served(url)["system"]
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    asking = statistics.median(run[2] for run in runs)
    ideal = items * delay / concurrency
    expected = repeats * (items + 1)  # each run: every item, and the probe
    if asked != expected:
        sys.exit(f"the system was asked {asked} times, not {expected}")
    return Target(
        "run",
        f"assay run, {items:,} items at {concurrency}, {delay * 1000:.0f} ms / ideal",
        wall / ideal,
        TARGET_RATIO,
        detail=(
            f"{wall:.2f} s vs {ideal:.2f} s ideal; asking alone {asking:.2f} s ({asking / ideal:.2f}x), "
            f"the rest start-up, grading and the report; {cpu:.2f} s CPU; median of {repeats}"
        ),
    )


def targets(quick: bool) -> list[Target]:
    return [measure(ITEMS, CONCURRENCY, DELAY, repeats=1 if quick else 3)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one run instead of the median of three")
    parser.add_argument("--items", type=int, default=ITEMS)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--delay", type=float, default=DELAY, help="the system's answer time, in seconds")
    args = parser.parse_args()
    target = measure(args.items, args.concurrency, args.delay, repeats=1 if args.quick else 3)
    sys.exit(0 if print_targets([target]) else 1)


if __name__ == "__main__":
    main()
