"""The HTML report of 100,000 rows, in a real browser (Chromium through Playwright, as in
test_html_browser.py): the page holds the rows it shows (``report.shown``), not every row, so it stays
small; it says so, and its count, filter, pager and traces work on those rows. (How fast it opens is
the bench's to say: ``python bench/bench_html.py --browser``.)"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import assay
from assay.report.html import write_html
from assay.report.model import build_report
from assay.report.shown import SHOWN_ROWS, shown_rows
from conftest import skip_or_fail

BENCH = Path(__file__).resolve().parents[2] / "bench"
# The benchmark's own module, loaded by its path with bench/ on sys.path only meanwhile (for its
# bench_score and targets): left there, bench/verdict_suite.py would shadow the tests' package.
_SPEC = importlib.util.spec_from_file_location("bench_html", BENCH / "bench_html.py")
assert _SPEC is not None and _SPEC.loader is not None
bench_html = importlib.util.module_from_spec(_SPEC)
sys.path.insert(0, str(BENCH))
try:
    _SPEC.loader.exec_module(bench_html)
finally:
    sys.path.remove(str(BENCH))

ROWS = 100_000
BYTES_PER_SHOWN_ROW = 1200  # the example's rows take about 600 bytes each in the page


def test_a_report_of_100000_rows_shows_a_bounded_selection_that_works(tmp_path: Path) -> None:
    if importlib.util.find_spec("playwright") is None:
        skip_or_fail("playwright is not installed (pip install playwright; no 'playwright install' needed)")
    if not bench_html.CHROMIUM.is_file():
        skip_or_fail(f"{bench_html.CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    run = assay.score(assay.load_records(bench_html.write_rows(tmp_path / "rows.csv", ROWS)))
    shown = [run.records[index].id for index in shown_rows(run)]
    path = write_html(tmp_path / "report.html", build_report(run))
    assert SHOWN_ROWS <= len(shown) < SHOWN_ROWS + 100
    assert path.stat().st_size < len(shown) * BYTES_PER_SHOWN_ROW
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(bench_html.CHROMIUM), args=["--headless", "--no-sandbox"]
        )
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(path.as_uri(), wait_until="load", timeout=120_000)
            count = f"{len(shown)} of {len(shown)} rows shown, of {ROWS}"
            page.wait_for_function(f"document.getElementById('row-count').textContent === '{count}'")
            assert f"shows {len(shown)} of the run's {ROWS} rows" in page.inner_text(".note.selection")
            assert page.locator("#questions-table tbody").count() == 100  # one page
            page.fill("#filter-text", "art-01-")
            expected = sum(ident.startswith("art-01-") for ident in shown)  # the example's first row
            assert page.inner_text("#row-count") == f"{expected} of {len(shown)} rows shown, of {ROWS}"
            page.fill("#filter-text", "")
            page.click("#pager button.next")
            assert page.inner_text("#pager .page-of") == f"page 2 of {-(-len(shown) // 100)}"
            first = page.locator("#questions-table tbody").first
            first.locator("button.expand").click()
            assert first.locator(".trace").count() == len(run.metrics)  # every metric's trace
            assert errors == []
        finally:
            browser.close()


def test_a_report_of_one_metric_opens_its_rows_and_traces(tmp_path: Path) -> None:
    """Without the agreement pair (one metric), the rows' data has no agreement, and still renders."""
    if importlib.util.find_spec("playwright") is None or not bench_html.CHROMIUM.is_file():
        skip_or_fail("playwright and /usr/bin/chromium are needed")
    from playwright.sync_api import sync_playwright

    example = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
    run = assay.score(assay.load_records(example), ["exact_substring"])
    path = write_html(tmp_path / "one.html", build_report(run))
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(bench_html.CHROMIUM), args=["--headless", "--no-sandbox"]
        )
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(path.as_uri(), wait_until="load")
            assert page.inner_text("#row-count") == "56 of 56 rows"
            assert page.locator(".note.selection").count() == 0  # every row is shown
            page.locator('tbody[data-id="art-01"] button.expand').click()
            trace = page.locator('tbody[data-id="art-01"] .trace[data-metric="exact_substring"]')
            assert trace.locator("mark").inner_text() == "Vincent van Gogh"
            assert "vincent van gogh" in trace.inner_text()  # the golden as the metric saw it
            assert errors == []
        finally:
            browser.close()
