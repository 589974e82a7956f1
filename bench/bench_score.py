"""End-to-end speed and memory of `assay score` against the seed's reference implementation.

The reference is what the seed scripts do: pandas reads the CSV and ``DataFrame.apply(axis=1)`` runs each
protocol's one-line logic. Both run as subprocesses on the same synthetic file in one invocation, so
the ratio is measured on one machine under one load. Peak memory is the summed resident memory of a
command's processes (assay's workers included). Two kinds of file: "quoted", where most responses hold
a comma and so are quoted cells, as in a real file, and "plain", with no quote character at all.

    python bench/bench_score.py --rows 1000000
"""

from __future__ import annotations

import argparse
import csv
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "seed_reference.py"

DOMAINS = ("Art", "History", "Geography", "Science")
LATIN_SYLLABLES = "ka ra ma na ta sa la da pa va ri ni ti mi shi du ru gu lo no ho ven dor mar tel".split()  # noqa: SIM905
DEVANAGARI_SYLLABLES = "क र म न त स ल द प व रि नि ति मी शि दु रु गु लो नो हो वें दो मा".split()  # noqa: SIM905


def vocabulary(syllables: list[str], size: int, rng: random.Random) -> list[str]:
    """`size` distinct pseudo-words: a golden word turns up in an unrelated response only by chance."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choices(syllables, k=rng.randint(2, 4))))
    return sorted(words)


def response_text(vocabulary: list[str], answer: list[str], rng: random.Random, pause: str, stop: str) -> str:
    """About 300 characters in sentences, the golden words placed by chance: contiguous, reordered,
    inflected or absent (so every agreement bucket is populated). `pause` is the mark inside sentences,
    `stop` the one that ends them (the danda in Devanagari)."""
    words = [rng.choice(vocabulary) for _ in range(45)]
    placement, position = rng.random(), rng.randrange(40)
    if placement < 0.35:
        words[position : position + len(answer)] = answer
    elif placement < 0.5:
        words[position : position + len(answer)] = reversed(answer)
    elif placement < 0.6:
        words[position] = answer[0] + "s"
    text, characters = [], 0
    for index, word in enumerate(words):
        text.append(word)
        characters += len(word) + 1
        if characters > 300:
            break
        if index % 9 == 8:
            text[-1] += rng.choice([pause, pause, stop, ";"])
    return " ".join(text) + rng.choice([stop, stop, "!"])


def synthesise(path: Path, rows: int, *, quoted: bool, seed: int = 0) -> None:
    """Rows like a model's answers file: ~300-character responses, a quarter in Devanagari. With `quoted`,
    most responses hold a comma, so their cells are quoted, as in a real file; else they use a colon."""
    pause = "," if quoted else ":"
    rng = random.Random(seed)
    latin, devanagari = vocabulary(LATIN_SYLLABLES, 5000, rng), vocabulary(DEVANAGARI_SYLLABLES, 5000, rng)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", "Domain", "response"])
        for index in range(rows):
            words, stop = (devanagari, "।") if index % 4 == 0 else (latin, ".")
            answer = rng.sample(words, rng.randint(1, 3))
            question = f"Question {index}: which {' '.join(rng.sample(words, 3))}?"
            writer.writerow(
                [
                    question,
                    " ".join(answer).title(),
                    rng.choice(DOMAINS),
                    response_text(words, answer, rng, pause, stop),
                ]
            )


def run_measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds of one command, which must succeed, and the peak of the summed resident memory (MiB)
    of its process and its children (the worker processes), sampled every 50 ms."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    peak = 0
    while True:
        peak = max(peak, _tree_rss_kib(process.pid))
        try:
            process.wait(timeout=0.05)  # returns the moment the command ends, so the time is exact
            break
        except subprocess.TimeoutExpired:
            continue
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return elapsed, peak / 1024


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of a process and its children, from /proc (pages shared after fork count in each).

    Reads only those processes' files: a scan of all of /proc would take CPU from the run it measures."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0  # the process has ended
    total = 0
    for member in [str(pid), *children]:
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue  # it ended while we looked
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total


def synthetic_files(workdir: Path, rows: int, only: str | None) -> Iterator[Path]:
    """The quoted and the plain synthetic file of `rows` rows (or `only` one), written when missing."""
    workdir.mkdir(parents=True, exist_ok=True)
    for kind in (only,) if only else ("quoted", "plain"):
        data = workdir / f"synthetic_{kind}_{rows}.csv"
        if not data.exists():
            print(f"writing {rows:,} synthetic rows to {data} ...", flush=True)
            synthesise(data, rows, quoted=kind == "quoted")
        print(f"{kind}: {rows:,} rows, {data.stat().st_size / 2**20:.0f} MiB of CSV", flush=True)
        yield data


def compare(data: Path) -> float:
    metrics = ["--metric", "exact_substring", "--metric", "word_overlap"]  # the seed pair, as the reference
    assay_cmd = [sys.executable, "-m", "assay", "score", "--responses", str(data), *metrics]
    reference_cmd = [sys.executable, str(REFERENCE), "--responses", str(data)]
    assay_time, assay_rss = run_measured(assay_cmd)
    reference_time, reference_rss = run_measured(reference_cmd)
    print(f"  {'':<36}{'seconds':>9}{'peak MiB':>10}")
    print(f"  {'assay score (both protocols)':<36}{assay_time:>9.1f}{assay_rss:>10.0f}")
    print(f"  {'seed reference (pandas apply)':<36}{reference_time:>9.1f}{reference_rss:>10.0f}")
    print(f"  speed-up: {reference_time / assay_time:.1f}x   (target >= 10x; assay peak <= 2048 MiB)")
    return reference_time / assay_time


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    parser.add_argument(
        "--only",
        choices=("quoted", "plain"),
        help="run one kind of file (default: both, one after the other)",
    )
    args = parser.parse_args()
    for data in synthetic_files(args.workdir, args.rows, args.only):
        compare(data)


if __name__ == "__main__":
    main()
