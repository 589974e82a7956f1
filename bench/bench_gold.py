"""What the gold build's document half costs: page text of the shared insurance PDFs cold (an empty
page cache) and cached (the whole `load_sources` with a warm cache), and of a corpus of 100 PDFs, then
the quote verification over the shared facts when `assay.harness.quotes` is present.

Everything runs in this process, after the imports, except the first figure: a new process each
time, imports included. Each figure is the best of a few runs (a shared machine is noisy: rerun
before trusting a near miss). Prints each figure and its ratio to its target, PASS or FAIL; exits 1
when a target fails. Run by hand, never by the tests.

    python bench/bench_gold.py
    python bench/bench_gold.py --sources DIR --facts DIR --corpus 100

The corpus is built in a temporary folder: copies of the sources' PDFs, each made distinct by bytes
appended after its end (equal bytes would share one sha256, so one cache entry), and some synthetic
PDFs from the tests' builder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from assay.harness.documents import Sources, load_sources

HERE = Path(__file__).resolve().parent
INSURANCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "insurance"  # as the tests find it
TARGETS = {  # seconds (issue 11, "Speed")
    "shared PDFs, cold, new process": 2.0,
    "shared PDFs, cold": 2.0,
    "shared PDFs, cached": 0.3,
    "100 PDFs, cold": 60.0,
    "shared PDFs cold + verification": 2.0,
    "shared PDFs cached + verification": 0.3,
}


def best_of(runs: int, work: Callable[[], Any], before: Callable[[], None] = lambda: None) -> float:
    """The fastest of `runs` wall times of `work`, each after an untimed `before`."""
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def cold_and_cached(root: Path, cache: Path, runs: int) -> tuple[float, float]:
    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    cold = best_of(runs, lambda: load_sources(root, cache_dir=cache), empty_cache)
    load_sources(root, cache_dir=cache)  # warm
    cached = best_of(runs * 3, lambda: load_sources(root, cache_dir=cache))
    return cold, cached


# A new interpreter importing assay and the PDF libraries, then loading with an empty cache.
NEW_PROCESS = """
import sys
from pathlib import Path
from assay.harness.documents import load_sources
load_sources(Path(sys.argv[1]), cache_dir=Path(sys.argv[2]))
"""


def cold_process(root: Path, cache: Path, runs: int) -> float:
    def run() -> None:
        subprocess.run([sys.executable, "-c", NEW_PROCESS, str(root), str(cache)], check=True)

    return best_of(runs, run, lambda: shutil.rmtree(cache, ignore_errors=True))


def build_corpus(sources: Path, folder: Path, size: int) -> int:
    """`size` PDFs in `folder`: distinct copies of the sources' PDFs plus a few synthetic ones."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    import pdfgen  # the tests' builder of real synthetic PDFs

    synthetic = folder / "synthetic"
    synthetic.mkdir(parents=True)
    made = len(pdfgen.build_all(synthetic))
    originals = sorted(sources.rglob("*.pdf"))
    for index in range(size - made):
        original = originals[index % len(originals)]
        copy = folder / f"copy-{index:03d}" / original.name
        copy.parent.mkdir()
        copy.write_bytes(original.read_bytes() + f"\n%distinct copy {index}\n".encode())
    return len(list(folder.rglob("*.pdf")))


def facts_quotes(facts: Path) -> Iterator[tuple[str, str]]:
    """(source path, quote) of every fact that has both, read from flat facts files: a stand-in for
    the gold build's facts adapter, enough to time the verification."""
    for path in sorted(facts.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        default = data.get("source_pdf_path")
        for fact in data.values():
            if isinstance(fact, dict) and isinstance(fact.get("source_quote"), str):
                source = fact.get("source_pdf_path", default)
                if isinstance(source, str):
                    yield source, fact["source_quote"]


def verify_quotes(sources: Sources, quotes: list[tuple[str, str]]) -> dict[str, int] | None:
    """The hook for the verification time: every quote searched in its own document by
    `assay.harness.quotes.find_quote`. None when that module is not there yet; else a tally."""
    try:
        from assay.harness.quotes import clean_quote, find_quote, sentinel_reason
    except ImportError:
        return None
    tally = {"found": 0, "not found": 0, "sentinel": 0, "document not in the folder": 0}
    for reference, raw in quotes:
        document = sources.resolve(reference)
        if sentinel_reason(raw) is not None:
            tally["sentinel"] += 1
        elif document is None:
            tally["document not in the folder"] += 1
        else:
            tally["found" if find_quote(clean_quote(raw).text, document.pages) else "not found"] += 1
    return tally


def report(seconds: dict[str, float]) -> bool:
    passed = True
    for name, value in seconds.items():
        target = TARGETS[name]
        verdict = "PASS" if value <= target else "FAIL"
        passed &= value <= target
        print(f"{name:38s} {value:8.3f} s   target {target:6.1f} s   {value / target:6.1%} of it   {verdict}")
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=INSURANCE / "pdfs")
    parser.add_argument("--facts", type=Path, default=INSURANCE / "facts")
    parser.add_argument("--corpus", type=int, default=100, help="PDFs in the corpus (default 100)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        seconds["shared PDFs, cold, new process"] = cold_process(args.sources, work / "cache", args.runs)
        cold, cached = cold_and_cached(args.sources, work / "cache", args.runs)
        seconds["shared PDFs, cold"], seconds["shared PDFs, cached"] = cold, cached
        sources = load_sources(args.sources, cache_dir=work / "cache")
        pages = sum(len(document.pages) for document in sources.values())
        print(f"{len(sources)} shared PDFs, {pages} pages, problems: {list(sources.problems) or 'none'}")
        quotes = list(facts_quotes(args.facts)) if args.facts.is_dir() else []
        start = time.perf_counter()
        tally = verify_quotes(sources, quotes)
        verification = time.perf_counter() - start
        if tally is None:
            print("verification: assay.harness.quotes is not in this tree yet; not timed")
        else:
            print(f"verification of {len(quotes)} facts' quotes in {verification:.3f} s: {tally}")
            seconds["shared PDFs cold + verification"] = cold + verification
            seconds["shared PDFs cached + verification"] = cached + verification
        made = build_corpus(args.sources, work / "corpus", args.corpus)
        corpus_cold, corpus_cached = cold_and_cached(work / "corpus", work / "corpus-cache", 1)
        print(f"corpus: {made} PDFs, cached load {corpus_cached:.3f} s")
        seconds["100 PDFs, cold"] = corpus_cold
    return 0 if report(seconds) else 1


if __name__ == "__main__":
    sys.exit(main())
