"""How close `assay urls check` comes to the ideal against a web server that answers after a fixed delay.

The server is real HTTP on 127.0.0.1 (delay_server.py, in its own process): every page is up, and each
answer comes DELAY seconds after the request. `assay urls check` reads a list of URLS pages and checks
them at CONCURRENCY (all on one host, so --per-host is the concurrency and --interval 0), end to end as
a user runs it. A page that is up takes one request (HEAD), so the ideal is urls x delay / concurrency.

    python bench/bench_urls.py             # 2,000 URLs at 32, 100 ms; the median of 3 runs
    python bench/bench_urls.py --quick     # one run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from delay_server import delay_server, served
from targets import Target, print_targets

TARGET_RATIO = 1.2  # of the ideal
URLS, CONCURRENCY, DELAY = 2000, 32, 0.1


def one_check(listing: Path, report: Path, concurrency: int) -> tuple[float, float]:
    """Wall and CPU seconds (the child's) of one `assay urls check` of the list; every URL must come
    out ok."""
    command = [sys.executable, "-m", "assay", "urls", "check", str(listing), "--out", str(report)]
    command += ["--concurrency", str(concurrency), "--per-host", str(concurrency), "--interval", "0"]
    command += ["--allow-private", "--dns-canary", ""]
    before, started = os.times(), time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall, after = time.perf_counter() - started, os.times()
    if result.returncode != 0:
        sys.exit(f"assay urls check failed ({result.returncode}):\n{result.stderr}")
    classes = {entry["class"] for entry in json.loads(report.read_text(encoding="utf-8"))}
    if classes != {"ok"}:
        sys.exit(f"not every URL came out ok: {sorted(classes)}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def measure(urls: int, concurrency: int, delay: float, repeats: int) -> Target:
    with tempfile.TemporaryDirectory() as folder, delay_server(delay) as url:
        listing = Path(folder) / "urls.txt"
        listing.write_text("".join(f"{url}/page/{n}\n" for n in range(urls)), encoding="utf-8")
        runs = [one_check(listing, Path(folder) / f"report{n}.json", concurrency) for n in range(repeats)]
        asked = served(url)["page"]
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    ideal = urls * delay / concurrency
    if asked != repeats * urls:
        sys.exit(f"the server was asked {asked} times, not {repeats * urls}: not one request a URL")
    return Target(
        "urls",
        f"urls check, {urls:,} URLs at {concurrency}, {delay * 1000:.0f} ms / ideal",
        wall / ideal,
        TARGET_RATIO,
        detail=f"{wall:.2f} s vs {ideal:.2f} s ideal; {cpu:.2f} s CPU; median of {repeats}",
    )


def targets(quick: bool) -> list[Target]:
    return [measure(URLS, CONCURRENCY, DELAY, repeats=1 if quick else 3)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one run instead of the median of three")
    parser.add_argument("--urls", type=int, default=URLS)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--delay", type=float, default=DELAY, help="the server's answer time, in seconds")
    args = parser.parse_args()
    target = measure(args.urls, args.concurrency, args.delay, repeats=1 if args.quick else 3)
    sys.exit(0 if print_targets([target]) else 1)


if __name__ == "__main__":
    main()
