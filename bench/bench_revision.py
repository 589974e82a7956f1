"""`assay score` of this checkout against an earlier revision of it, on one file, in one run: the check
that a change made nothing slower. Each revision scores the same synthetic file (bench_score.py's quoted
kind) with both seed protocols and --out, interleaved, and the CPU seconds of each run (user + system,
its workers included) are compared as medians: CPU time, unlike wall time, barely moves with the load
of a shared machine.

    python bench/bench_revision.py --base 31f2ef5 --rows 1000000

The earlier revision's source is taken with `git archive`; its C accelerators are this build's (their
source is checked to be unchanged, or the run stops).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_score import synthesise  # noqa: E402  (the benchmark beside this one)


def old_source(base: str, into: Path) -> Path:
    """The src/ tree of revision `base`, with this build's C accelerators beside it."""
    archive = into / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), base, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    for source in (ROOT / "src" / "assay").glob("*.c"):
        old = into / "src" / "assay" / source.name
        if not old.exists() or old.read_bytes() != source.read_bytes():
            raise SystemExit(f"{source.name} differs at {base}: its accelerator would need building")
    for built in (ROOT / "src" / "assay").glob("*.so"):
        shutil.copy(built, into / "src" / "assay" / built.name)
    return into / "src"


def cpu_seconds(src: Path, data: Path, out: Path) -> float:
    """CPU seconds of one `assay score` run of `data` with the source tree `src`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "assay", "score", "--responses", str(data), "--out", str(out)]
    command += ["--metric", "exact_substring", "--metric", "word_overlap"]
    environment = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run(command, check=True, env=environment, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="the earlier revision (a commit, tag or branch)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        data = folder / "responses.csv"
        synthesise(data, args.rows, quoted=True)
        trees = {"base": old_source(args.base, folder), "now": ROOT / "src"}
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, src in trees.items():
                times[name].append(cpu_seconds(src, data, folder / f"{name}.csv"))
        base, now = (statistics.median(times[name]) for name in ("base", "now"))
    print(f"{args.rows:,} rows, both seed protocols with --out, median CPU seconds of {args.runs} runs")
    print(f"  {args.base}: {base:.2f} s   this checkout: {now:.2f} s   ratio now/base: {now / base:.3f}")


if __name__ == "__main__":
    main()
