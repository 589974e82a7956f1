"""What the HTML report costs: `assay score --html` against the same run without it, in time and in
peak memory, and the page's size.

The rows are the bundled example's, repeated with fresh ids, scored with the default metrics. The two
commands run as subprocesses, in turn (plain, with --html, plain, ...), and the ratio is the median of
the pairs' ratios, so the machine's load moves both sides. Peak memory is the resident memory of the
command's process (``bench_score.run_measured``). ``--browser`` also opens the page in Chromium and says
how long its first page of the table takes to show.

    python bench/bench_html.py              # 100,000 rows
    python bench/bench_html.py --quick      # 10,000 rows
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_score import run_measured
from targets import Target, print_targets

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "qa_responses.csv"
CHROMIUM = Path("/usr/bin/chromium")
MOST_RATIO = 1.5  # --html's time over the run without it
MOST_MIB = 300  # --html's peak memory at 100,000 rows
PAIRS = 3  # runs of each command, in turn (2 for --quick)


def write_rows(path: Path, rows: int) -> Path:
    """`rows` rows of the example, in turn, each with an id of its own."""
    with EXAMPLE.open(encoding="utf-8") as source:
        found = list(csv.DictReader(source))
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(found[0]))
        writer.writeheader()
        for index in range(rows):
            row = dict(found[index % len(found)])
            row["id"] = f"{row['id']}-{index}"
            writer.writerow(row)
    return path


def write_report(folder: Path, rows: int) -> Path:
    """The HTML report of `rows` rows of the example, written in this process (for the browser)."""
    import assay
    from assay.report.html import write_html
    from assay.report.model import build_report

    data = write_rows(folder / "rows.csv", rows)
    return write_html(folder / "report.html", build_report(assay.score(assay.load_records(data))))


def targets(quick: bool) -> list[Target]:
    rows = 10_000 if quick else 100_000
    with tempfile.TemporaryDirectory(prefix="bench-html-") as folder:
        data = write_rows(Path(folder) / "rows.csv", rows)
        page = Path(folder) / "report.html"
        plain = [sys.executable, "-m", "assay", "score", "--responses", str(data)]
        ratios, plain_seconds, html_seconds, peaks, plain_peaks = [], [], [], [], []
        pairs = 2 if quick else PAIRS
        for _ in range(pairs):
            seconds, mib = run_measured(plain)
            with_html, html_mib = run_measured([*plain, "--html", str(page)])
            ratios.append(with_html / seconds)
            plain_seconds.append(seconds)
            html_seconds.append(with_html)
            plain_peaks.append(mib)
            peaks.append(html_mib)
        size = page.stat().st_size
    at = f"{rows:,} rows"
    return [
        Target(
            "html",
            f"--html at {at} / the same run without",
            statistics.median(ratios),
            MOST_RATIO,
            detail=(
                f"{statistics.median(html_seconds):.1f} vs {statistics.median(plain_seconds):.1f} s "
                f"(medians of {pairs} pairs); page {size / 1e6:.2f} MB"
            ),
        ),
        Target(
            "html",
            f"peak memory with --html at {at}",
            max(peaks),
            MOST_MIB,
            unit=" MiB",
            detail=f"without --html {max(plain_peaks):.0f} MiB (the most of {pairs} runs each)",
        ),
    ]


def time_first_page(browser: Any, path: Path, rows: int) -> float:
    """Seconds from the start of navigation until the table shows its first page of its `rows` rows."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(path.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_function(
            f"document.getElementById('row-count').textContent.startsWith('{rows} of {rows} rows')",
            timeout=120_000,
        )
        return float(page.evaluate("performance.now()")) / 1000
    finally:
        page.close()


def first_page_seconds(rows: int) -> tuple[float, int]:
    """Seconds until Chromium shows the first page of the report of `rows` rows, and the page's bytes."""
    from playwright.sync_api import sync_playwright

    from assay.report.shown import SHOWN_ROWS

    with tempfile.TemporaryDirectory(prefix="bench-html-") as folder:
        path = write_report(Path(folder), rows)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"]
            )
            try:
                return time_first_page(browser, path, min(rows, SHOWN_ROWS)), path.stat().st_size
            finally:
                browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="10,000 rows rather than 100,000")
    parser.add_argument("--browser", action="store_true", help="also time the first page in Chromium")
    args = parser.parse_args()
    met = print_targets(targets(args.quick))
    if args.browser:
        rows = 10_000 if args.quick else 100_000
        seconds, size = first_page_seconds(rows)
        print(f"  first page of {rows:,} rows' report in Chromium: {seconds:.2f} s ({size / 1e6:.2f} MB)")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
