"""The HTML report in a real browser: Debian's Chromium, driven by Playwright (which downloads no browser
of its own). It loads without a console error, its table sorts and filters, hostile text stays text,
and a screenshot is written. Skipped without Playwright or /usr/bin/chromium, except under CI=true."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cli_run import NEEDS_MORE_INPUTS
from test_html import ATTRIBUTE_PAYLOAD, COMPARISON, PWN_PAYLOAD, SCRIPT_PAYLOAD, hostile_csv

import assay
from assay.report.html import write_html
from assay.report.sections import Comparison

SHOWN = ("id", "Domain", "question", "answer", "response", "agreement")  # the example's

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("report")
    every = [name for name in assay.SCORERS if name not in NEEDS_MORE_INPUTS]  # the file's every metric
    run = assay.score(hostile_csv(folder), every)
    summary, rows = assay.summary_dict(run.summary), list(assay.verdict_rows(run))
    path = write_html(folder / "report.html", assay.build_report(run, sections=[Comparison(COMPARISON)]))
    return path, summary, rows


class Opened:
    """A page with the report loaded, and every console error and uncaught exception it has had."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("dialog", lambda dialog: self.errors.append(f"a dialog opened: {dialog.message}"))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def visible_ids(self) -> list[str]:
        found = self.page.eval_on_selector_all(
            "#questions-table tbody:not([hidden]) td.id", "cells => cells.map(c => c.textContent)"
        )
        return [str(text) for text in found]

    def visible_sort_values(self, metric: str) -> list[float]:
        script = "cells => cells.map(c => parseFloat(c.getAttribute('data-sort')))"
        found = self.page.eval_on_selector_all(
            f'#questions-table tbody:not([hidden]) td[data-metric="{metric}"]', script
        )
        return [float(value) for value in found]

    def sort_by(self, heading: str) -> None:
        self.page.click(f'#questions-table th[data-column="{heading}"] button.sort')


@pytest.fixture
def opened(browser: Browser, scored: tuple[Path, Any, Any]) -> Iterator[Opened]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    found = Opened(page)
    page.goto(scored[0].as_uri(), wait_until="load")
    yield found
    assert found.errors == []  # after whatever the test did, too
    page.close()


def test_the_page_loads_with_every_row(opened: Opened, scored: tuple[Path, Any, list[Any]]) -> None:
    rows = scored[2]
    assert opened.page.title().startswith("assay report")
    assert len(opened.visible_ids()) == len(rows)
    assert opened.page.inner_text("#row-count") == f"{len(rows)} of {len(rows)} rows"


def test_a_heading_sorts_the_rows_and_again_reverses_them(opened: Opened) -> None:
    before = opened.visible_ids()
    opened.sort_by("token_f1")
    rising = opened.visible_sort_values("token_f1")
    assert rising == sorted(rising) and opened.visible_ids() != before
    assert opened.page.get_attribute('th[data-metric="token_f1"]', "aria-sort") == "ascending"
    opened.sort_by("token_f1")
    assert opened.visible_sort_values("token_f1") == sorted(rising, reverse=True)
    opened.sort_by("id")
    ascending = opened.visible_ids()
    words = [i for i in ascending if i[0].isalnum()]  # a hostile id starts with a quote: collation's call
    assert words[0] == "art-01" and words[-1] == "sci-hi-05"
    opened.sort_by("id")
    assert opened.visible_ids() == list(reversed(ascending))


def test_the_text_box_filters(opened: Opened, scored: tuple[Path, Any, list[dict[str, Any]]]) -> None:
    rows = scored[2]
    expected = [row["id"] for row in rows if "painted" in " ".join(str(row[c]) for c in SHOWN).lower()]
    opened.page.fill("#filter-text", "Painted")
    assert opened.visible_ids() == expected and len(expected) >= 2
    assert opened.page.inner_text("#row-count") == f"{len(expected)} of {len(rows)} rows"
    opened.page.fill("#filter-text", "")
    assert len(opened.visible_ids()) == len(rows)


def test_a_metric_and_verdict_filter_leaves_the_passes(
    opened: Opened, scored: tuple[Path, dict[str, Any], list[dict[str, Any]]]
) -> None:
    summary = scored[1]
    opened.page.select_option("#filter-metric", "phrase_match")
    opened.page.select_option("#filter-verdict", "pass")
    assert len(opened.visible_ids()) == summary["metrics"]["phrase_match"]["combined"]["passed"]
    opened.page.select_option("#filter-verdict", "unscored")
    assert opened.visible_ids() == []


def test_hostile_text_shows_as_text_and_runs_nothing(opened: Opened) -> None:
    page = opened.page
    assert page.locator('tbody[data-id="hostile-1"] td.response').inner_text() == SCRIPT_PAYLOAD
    assert page.locator('tbody[data-id="hostile-3"] td.question').inner_text() == PWN_PAYLOAD
    assert page.locator('tbody[data-id="hostile-3"] td.response').inner_text() == PWN_PAYLOAD
    assert ATTRIBUTE_PAYLOAD in page.locator("#questions-table").inner_text()
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 3  # two of data, and the page's own
    assert page.evaluate("() => window.__pwned") is None


def test_a_row_opens_to_its_traces_with_the_span_marked(opened: Opened) -> None:
    page = opened.page
    traces = page.locator('tbody[data-id="art-01"] tr.traces')
    assert not traces.is_visible()
    page.locator('tbody[data-id="art-01"] button.expand').click()
    assert traces.is_visible()
    phrase = traces.locator('.trace[data-metric="phrase_match"]')
    assert phrase.locator("mark").inner_text() == "Vincent van Gogh"
    assert "contiguous run of whole words" in phrase.inner_text()
    page.locator('tbody[data-id="art-01"] button.expand').click()
    assert not traces.is_visible()


def test_a_screenshot_is_written(opened: Opened, tmp_path: Path) -> None:
    path = tmp_path / "report.png"
    opened.page.screenshot(path=str(path), full_page=True)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
