"""A harness run's results.html in the real Chromium (Debian's, driven by Playwright, as
test_html_browser.py does): it loads without an error, holds the run's sections with results.json's
numbers, its table of questions has every item with the factual outcome as a trace, and hostile text
from the system's reply stays text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from test_html import SCRIPT_PAYLOAD
from test_outcomes import CITED, DECLINE, OTHER_SCOPE, Case, item, scored_run
from test_results import info

from assay.harness.outcomes import with_outcomes
from assay.harness.results import write_results
from assay.scorers import Outcome

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def test_results_html_in_chromium(browser: Browser, tmp_path: Path) -> None:
    found = [
        Case(item("right-1"), "The free-look period is 15 days.", {**CITED, "route": "bm25"}),
        Case(item("wrong-1", scope=OTHER_SCOPE), "It is 45 days.", {"route": "llm"}),
        Case(item("hostile-1"), f"{SCRIPT_PAYLOAD} 45 days", CITED),
        Case(item("ref-1", refusal=True), DECLINE, {}, refusal=(Outcome.PASS, 1)),
    ]
    out = tmp_path / "out"
    write_results(with_outcomes(scored_run(tmp_path, found, ["refusal"])), out, info())
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((out / "results.html").as_uri(), wait_until="load")
    for anchor in ("run", "breakdown", "rollup-scope", "rollup-category", "rollup-route", "signatures"):
        assert page.locator(f"section#{anchor}").count() == 1
        assert page.locator(f'nav a[href="#{anchor}"]').count() == 1
    factual = page.get_attribute('tr[data-key="factual"] td[data-field="factual"]', "data-value")
    assert json.loads(factual or "null") == results["headline"]["factual"]
    for name, count in results["outcomes"].items():
        shown = page.get_attribute(f'tr[data-section="breakdown"][data-key="{name}"] td', "data-value")
        assert json.loads(shown or "null") == count
    wrong_scope = f'tr[data-section="rollup-scope"][data-key="{OTHER_SCOPE}"] td[data-field="correct"]'
    assert page.inner_text(wrong_scope) == "0"
    assert "graded deterministically only (no --judge)" in page.inner_text("section#run")
    assert page.inner_text("#row-count") == "4 of 4 rows"
    page.locator('tbody[data-id="wrong-1"] button.expand').click()
    trace = page.locator('tbody[data-id="wrong-1"] .trace[data-metric="factual"]')
    assert "wrong_uncited" in trace.inner_text()
    assert page.locator('tbody[data-id="hostile-1"] td.response').inner_text() == f"{SCRIPT_PAYLOAD} 45 days"
    assert page.evaluate("() => window.__pwned") is None
    assert errors == []
    page.screenshot(path=str(tmp_path / "results.png"), full_page=True)
    page.close()
