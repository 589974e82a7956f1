"""What the gold build's document half costs: page text of the shared insurance PDFs cold (an empty
page cache) and cached (the whole `load_sources` with a warm cache), and of a corpus of 100 PDFs, then
extraction and verification over the shared facts (facts read, documents loaded, every claim's quote
verified), cold and with the pages cached; and the whole build (the items too) beside them.

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
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.documents import load_sources

HERE = Path(__file__).resolve().parent
INSURANCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "insurance"  # as the tests find it
TARGETS = {  # seconds (issue 11, "Speed")
    "shared PDFs, cold, new process": 2.0,
    "shared PDFs, cold": 2.0,
    "shared PDFs, cached": 0.3,
    "100 PDFs, cold": 60.0,
    "extraction + verification, cold": 2.0,  # facts read, documents loaded, every quote verified
    "extraction + verification, cached": 0.3,
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
from assay.documents import load_sources
load_sources(Path(sys.argv[1]), cache_dir=Path(sys.argv[2]))
"""


def cold_process(root: Path, cache: Path, runs: int) -> float:
    def run() -> None:
        subprocess.run([sys.executable, "-c", NEW_PROCESS, str(root), str(cache)], check=True)

    return best_of(runs, run, lambda: shutil.rmtree(cache, ignore_errors=True))


def build_corpus(sources: Path, folder: Path, size: int) -> int:
    """`size` PDFs in `folder`: distinct copies of the sources' PDFs plus a few synthetic ones."""
    sys.path.insert(0, str(HERE.parent / "tests" / "support"))
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


def forget_caches() -> None:
    """Empty the in-process caches a new process starts without (folded text, compiled patterns): the
    "cached" figures then count the folding of every page, as a second run of the command would."""
    from assay.harness import folding, quotes, value_reading
    from assay.scorers import hard_fact

    for module in (folding, quotes, value_reading, hard_fact):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def verify(sources_root: Path, facts: Path, templates: Path | None, cache: Path) -> Any:
    """What the issue's target times: facts read, documents loaded, every claim's quote verified."""
    from assay.harness import load_facts, load_templates, verify_claims

    template_file = load_templates(templates) if templates else None
    documents = load_sources(sources_root, cache_dir=cache)
    return verify_claims(load_facts(facts), documents, templates=template_file)


def build(sources_root: Path, facts: Path, templates: Path | None, cache: Path) -> tuple[Any, Any]:
    """All that `assay gold build` does before writing: the verification, then the items (each
    pattern compiled and checked against its answer and near misses through hard_fact)."""
    from assay.harness import build_gold, load_templates

    verification = verify(sources_root, facts, templates, cache)
    template_file = load_templates(templates) if templates else None
    return verification, build_gold(verification, template_file, refusals=template_file is not None)


def time_builds(args: argparse.Namespace, cache: Path) -> dict[str, float]:
    """Extraction and verification, best of a few: with an empty page cache, and with a warm one; the
    whole build with a warm page cache, shown beside them (the issue sets no target for it)."""

    def cold_start() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        forget_caches()

    checked = lambda: verify(args.sources, args.facts, args.templates, cache)  # noqa: E731
    cold = best_of(args.runs, checked, cold_start)
    cached = best_of(args.runs * 3, checked, forget_caches)
    whole = best_of(
        args.runs * 3, lambda: build(args.sources, args.facts, args.templates, cache), forget_caches
    )
    verification, gold = build(args.sources, args.facts, args.templates, cache)
    by_status = Counter(verdict.status for verdict in verification.verdicts)
    print(f"gold build: {len(verification.verdicts)} claims {dict(by_status)}, {len(gold.items)} items")
    print(f"the whole build, pages cached (items and their patterns too): {whole:.3f} s")
    return {"extraction + verification, cold": cold, "extraction + verification, cached": cached}


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
    parser.add_argument(
        "--templates", type=Path, default=HERE.parent / "examples" / "insurance_templates.toml"
    )
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
        if args.facts.is_dir():
            seconds |= time_builds(args, work / "build-cache")
        made = build_corpus(args.sources, work / "corpus", args.corpus)
        corpus_cold, corpus_cached = cold_and_cached(work / "corpus", work / "corpus-cache", 1)
        print(f"corpus: {made} PDFs, cached load {corpus_cached:.3f} s")
        seconds["100 PDFs, cold"] = corpus_cold
    return 0 if report(seconds) else 1


if __name__ == "__main__":
    sys.exit(main())
