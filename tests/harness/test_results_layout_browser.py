"""The layout of a harness run's results.html as Chromium draws it (issue 23, friction 8): the run's
headline and outcome breakdown come before the overview of every metric's accuracy; scopes and categories
are charted with their intervals beside the run's own accuracy; a metric with one domain only has no chart
of two identical dots; guard-blocked refusal items (graded correct) are counted as blocked, not as blank
responses; and counts are plural only when they are not 1."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_outcomes import CITED, DECLINE, OTHER_SCOPE, Case, item, scored_run
from test_results import info

from assay.harness.outcomes import with_outcomes
from assay.harness.results import write_results
from assay.scorers import Outcome

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

RIGHT = "The free-look period is 15 days."


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Page:
    found = [
        Case(item("right-1", category="policy"), RIGHT, CITED),
        Case(item("right-2", category="pricing"), RIGHT, CITED),
        Case(item("wrong-1", scope=OTHER_SCOPE, category="pricing"), "It is 45 days.", {}),
        Case(item("ref-1", refusal=True), "", {"blocked": True}, refusal=(Outcome.FAIL, 0)),
        Case(item("ref-2", refusal=True), "", {"blocked": True}, refusal=(Outcome.FAIL, 0)),
        Case(item("ref-3", refusal=True), DECLINE, {}, refusal=(Outcome.PASS, 1)),
    ]
    out = tmp_path / "out"
    write_results(with_outcomes(scored_run(tmp_path, found, ["refusal"])), out, info())
    opened = browser.new_page(viewport={"width": 1280, "height": 900})
    opened.goto((out / "results.html").as_uri(), wait_until="load")
    return opened


def _top(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["y"]


def test_the_run_leads_with_its_headline_and_outcomes(page: Page) -> None:
    assert _top(page, "section#run") < _top(page, "section#breakdown") < _top(page, "section#overview")
    links = [page.locator("nav a").nth(i).get_attribute("href") for i in range(3)]
    assert links == ["#run", "#breakdown", "#rollup-scope"]


@pytest.mark.parametrize(("by", "values"), [("scope", 2), ("category", 3)])
def test_scopes_and_categories_are_charted_with_their_intervals(page: Page, by: str, values: int) -> None:
    chart = page.locator(f'section#rollup-{by} [data-chart="rollup-{by}"] svg.assay-chart')
    assert chart.is_visible()
    points = chart.locator("g.point")
    assert points.count() == values + 1  # each value, and the run's combined accuracy
    for index in range(points.count()):
        point = points.nth(index)
        low, high = (float(point.get_attribute(f"data-{end}") or "nan") for end in ("low", "high"))
        assert 0.0 <= low <= high <= 1.0
        whisker = point.locator("line").first.bounding_box()
        assert whisker is not None and whisker["width"] > 1  # the interval is drawn, not a bare dot


def test_a_metric_of_one_domain_has_no_chart_of_identical_dots(page: Page) -> None:
    assert page.locator("section#metric-factual").is_visible()
    assert page.locator("section.metric svg.assay-chart").count() == 0


def test_guard_blocked_refusal_items_are_counted_as_blocked_not_blank(page: Page) -> None:
    facts = page.inner_text("header p.facts")
    assert "0 blank responses" in facts
    assert "2 replies blocked by the system's guard" in facts
    correct = page.get_attribute('tr[data-section="breakdown"][data-key="correct"] td', "data-value")
    assert correct == "5"  # the two blocked refusal items are graded correct, as is the declined one


def test_counts_are_plural_only_when_not_one(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "one"
    write_results(with_outcomes(scored_run(tmp_path, [Case(item("only"), RIGHT, CITED)])), out, info())
    page = browser.new_page()
    page.goto((out / "results.html").as_uri(), wait_until="load")
    facts = page.inner_text("header p.facts")
    assert facts.startswith("1 row ·") and "0 blank responses" in facts
    assert "1 rows" not in page.inner_text("body")
    page.close()
