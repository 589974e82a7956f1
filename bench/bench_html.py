"""How heavy the HTML report is at scale: its size per row, and how long Chromium takes to open it
and show the first page of the table of questions (measured in the browser: ``performance.now()``
when the row count is shown, from the start of navigation).

The rows are the bundled example's, repeated with fresh ids, scored with the default metrics.

    python bench/bench_html.py --rows 100000
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "qa_responses.csv"
CHROMIUM = Path("/usr/bin/chromium")
TARGET_BYTES_PER_ROW = 1200
TARGET_SECONDS = 10.0


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
    import assay
    from assay.report.html import write_html
    from assay.report.model import build_report

    data = write_rows(folder / "rows.csv", rows)
    return write_html(folder / "report.html", build_report(assay.score(assay.load_records(data))))


def time_first_page(browser: Any, path: Path, rows: int) -> float:
    """Seconds from the start of navigation until the table shows its first page of all `rows`."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(path.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_function(
            f"document.getElementById('row-count').textContent === '{rows} of {rows} rows'",
            timeout=120_000,
        )
        return float(page.evaluate("performance.now()")) / 1000
    finally:
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, default=Path("bench-html"))
    args = parser.parse_args()
    args.folder.mkdir(exist_ok=True)
    started = time.perf_counter()
    path = write_report(args.folder, args.rows)
    written = time.perf_counter() - started
    size = path.stat().st_size
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"])
        seconds = time_first_page(browser, path, args.rows)
        browser.close()
    per_row = size / args.rows
    print(f"rows                       {args.rows:,}")
    print(f"written in (score+report)  {written:.1f} s")
    target = f"(target <= {TARGET_BYTES_PER_ROW})"
    print(f"size                       {size / 1e6:.1f} MB, {per_row:.0f} bytes a row {target}")
    print(f"first page in Chromium     {seconds:.2f} s (target < {TARGET_SECONDS:.0f} s)")


if __name__ == "__main__":
    main()
