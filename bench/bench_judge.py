"""How close the LLM judge comes to the ideal, and what a cached re-run costs.

A local OpenAI-compatible server (delay_server.py, in its own process) answers every chat completion
after a fixed delay, as a remote model would, and counts the requests. ``assay llm-judge`` then judges
ROWS rows at CONCURRENCY, end to end (start, read, judge, report); the ideal is rows x delay /
concurrency. Then the same command again on the same cache, which must send no request at all: its
whole time (start-up, reading, the cache's look-ups, the report) is the second target.

    python bench/bench_judge.py            # 2,000 rows at 32, 100 ms; the median of 3 pairs of runs
    python bench/bench_judge.py --quick    # one pair
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

from bench_score import synthesise
from delay_server import delay_server, served
from targets import Target, print_targets

TARGET_RATIO = 1.15  # of the ideal, for the first run
TARGET_CACHED = 0.3  # seconds, for the cached re-run
ROWS, CONCURRENCY, DELAY = 2000, 32, 0.1


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the child's) of one command, which must succeed."""
    before, started = os.times(), time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall, after = time.perf_counter() - started, os.times()
    if result.returncode != 0:
        sys.exit(f"assay failed ({result.returncode}):\n{result.stderr}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def one_pair(data: Path, cache: Path, url: str, concurrency: int) -> tuple[float, float, float, int]:
    """A first run on an empty cache, then the same run again: their wall seconds, the first's CPU
    seconds, and how many completions the second asked for (none, when the cache works)."""
    cache.unlink(missing_ok=True)
    command = [sys.executable, "-m", "assay", "llm-judge", "--responses", str(data)]
    command += ["--judge", f"openai:bench@{url}/v1", "--concurrency", str(concurrency), "--cache", str(cache)]
    first, cpu = timed(command)
    asked = served(url)["chat"]
    cached, _ = timed(command)
    return first, cpu, cached, served(url)["chat"] - asked


def measure(rows: int, concurrency: int, delay: float, repeats: int) -> list[Target]:
    with tempfile.TemporaryDirectory() as folder, delay_server(delay) as url:
        data, cache = Path(folder) / "rows.csv", Path(folder) / "cache.sqlite"
        synthesise(data, rows, quoted=True)
        pairs = [one_pair(data, cache, url, concurrency) for _ in range(repeats)]
        asked = served(url)["chat"]
    if asked != repeats * rows or any(pair[3] for pair in pairs):
        sys.exit(f"the judge was asked {asked} times, not {repeats * rows}: once a row, and none cached")
    first = statistics.median(pair[0] for pair in pairs)
    cpu = statistics.median(pair[1] for pair in pairs)
    cached = statistics.median(pair[2] for pair in pairs)
    ideal = rows * delay / concurrency
    return [
        Target(
            "judge",
            f"llm-judge, {rows:,} rows at {concurrency}, {delay * 1000:.0f} ms / ideal",
            first / ideal,
            TARGET_RATIO,
            detail=f"{first:.2f} s vs {ideal:.2f} s ideal; {cpu:.2f} s CPU; median of {repeats}",
        ),
        Target(
            "judge",
            f"llm-judge, the same {rows:,} rows again from the cache",
            cached,
            TARGET_CACHED,
            unit=" s",
            detail=f"{cached / first:.1%} of the first run; no request sent; median of {repeats}",
        ),
    ]


def targets(quick: bool) -> list[Target]:
    return measure(ROWS, CONCURRENCY, DELAY, repeats=1 if quick else 3)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one pair of runs instead of three")
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--delay", type=float, default=DELAY, help="the server's answer time, in seconds")
    args = parser.parse_args()
    found = measure(args.rows, args.concurrency, args.delay, repeats=1 if args.quick else 3)
    sys.exit(0 if print_targets(found) else 1)


if __name__ == "__main__":
    main()
