"""End-to-end speed and memory of `assay score` against the seed's reference implementation.

The reference is what the seed scripts do: pandas reads the CSV and ``DataFrame.apply(axis=1)`` runs each
protocol's one-line logic. Both run as subprocesses on the same synthetic file in one invocation, so
the ratio is measured on one machine under one load. Peak memory is each process's own max RSS.

    python bench/bench_score.py --rows 1000000
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "seed_reference.py"

LATIN = (
    "the river valley temple painting dynasty empire capital mountain ancient was built by in of and a "
    "famous king queen century north south east west city fort scroll amalaka deula mithuna narmada chola"
).split()
DEVANAGARI = (
    "गंगा नदी भारत की राजधानी दिल्ली मंदिर राजा साम्राज्य पर्वत प्राचीन किला शहर उत्तर दक्षिण "
    "मुगल बौद्ध हिमालय आर्यभट वैज्ञानिक चित्रकला और का की के में है था"
).split()
DOMAINS = ("Art", "History", "Geography", "Science")


def synthesise(path: Path, rows: int, seed: int = 0) -> None:
    """Rows with ~300-character responses, a quarter in Devanagari, answers placed to hit every bucket."""
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", "Domain", "response"])
        for index in range(rows):
            vocabulary = DEVANAGARI if index % 4 == 0 else LATIN
            answer_words = rng.sample(vocabulary, rng.randint(1, 3))
            words: list[str] = []
            while sum(len(w) + 1 for w in words) < 300:
                words.append(rng.choice(vocabulary))
            placement = rng.random()
            position = rng.randrange(len(words))
            if placement < 0.35:
                words[position:position] = answer_words  # the golden phrase, contiguous
            elif placement < 0.5:
                words[position:position] = reversed(answer_words)  # every word, rearranged
            elif placement < 0.6:
                words[position:position] = [answer_words[0] + "s"]  # an inflection
            words[-1] += rng.choice([".", "।", "!", ""])
            question = f"Question {index} about {' '.join(rng.sample(vocabulary, 4))}?"
            writer.writerow([question, " ".join(answer_words).title(), rng.choice(DOMAINS), " ".join(words)])


def run_measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one command, which must succeed."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    data = args.workdir / f"synthetic_{args.rows}.csv"
    if not data.exists():
        print(f"writing {args.rows:,} synthetic rows to {data} ...", flush=True)
        synthesise(data, args.rows)
    print(f"{args.rows:,} rows, {data.stat().st_size / 2**20:.0f} MiB of CSV")

    assay_cmd = [sys.executable, "-m", "assay", "score", "--responses", str(data)]
    reference_cmd = [sys.executable, str(REFERENCE), "--responses", str(data)]
    assay_time, assay_rss = run_measured(assay_cmd)
    reference_time, reference_rss = run_measured(reference_cmd)
    print(f"{'':<34}{'seconds':>9}{'peak MiB':>10}")
    print(f"{'assay score (both protocols)':<34}{assay_time:>9.1f}{assay_rss:>10.0f}")
    print(f"{'seed reference (pandas apply)':<34}{reference_time:>9.1f}{reference_rss:>10.0f}")
    print(f"speed-up: {reference_time / assay_time:.1f}x   (target >= 10x; assay peak <= 2048 MiB)")


if __name__ == "__main__":
    main()
