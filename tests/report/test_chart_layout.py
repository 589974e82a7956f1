"""The charts stay readable with many long domain names and with a comparison's legend: measured in
a real browser (Chromium through Playwright, as in test_html_browser.py), every text lies inside the
chart, no two labels overlap, a cut label keeps its whole name as a tooltip, and the legend sits above
the plot."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from assay.report._comparison import difference_chart_svg
from assay.report.model import report_from_summary
from assay.report.plot import accuracy_chart_svg

if TYPE_CHECKING:
    from playwright.sync_api import Browser

DOMAINS = [f"Domain {index:02d} of a rather long-winded name, {'x' * 6}"[:40] for index in range(50)]
METRICS = ["exact_substring", "word_overlap", "phrase_match", "a_plugin_metric_with_a_long_name", "squad_f1"]


def _tally(share: float) -> dict[str, Any]:
    return {"n": 40, "passed": round(40 * share), "accuracy": share, "interval": {"low": 0.0, "high": 1.0}}


def accuracy_summary() -> dict[str, Any]:
    metrics = {
        name: {"combined": _tally(0.5), "domains": {d: _tally((i % 10) / 10) for i, d in enumerate(DOMAINS)}}
        for name in METRICS[:3]
    }
    return {"metrics": metrics}


def comparison() -> dict[str, Any]:
    def row(value: float) -> dict[str, Any]:
        return {"difference": value, "interval": {"low": value - 0.1, "high": value + 0.1}, "n": 40}

    metrics = {name: {"combined": row(0.02), "domains": {d: row(0.01) for d in DOMAINS}} for name in METRICS}
    return {"metrics": metrics}


MEASURE = """() => {
  const svg = document.querySelector("svg");
  const box = (e) => { const b = e.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
  const grid = Array.from(svg.querySelectorAll("line")).filter((l) => l.getAttribute("stroke") === "#e3e3e3");
  return {
    width: svg.width.baseVal.value,
    height: svg.height.baseVal.value,
    texts: Array.from(svg.querySelectorAll("text")).map((t) => [t.textContent, ...box(t)]),
    labels: Array.from(svg.querySelectorAll("text[text-anchor=end]")).map(box),
    legend: Array.from(svg.querySelectorAll(".legend")).map(box),
    plotTop: Math.min(...grid.map((l) => l.y1.baseVal.value)),
    tooltips: Array.from(svg.querySelectorAll("g.label > title")).map((t) => t.textContent),
  };
}"""


def measure(browser: Browser, svg: str) -> dict[str, Any]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.set_content(f"<!doctype html><html><body style='margin:0'>{svg}</body></html>")
        found: dict[str, Any] = page.evaluate(MEASURE)
        return found
    finally:
        page.close()


def check_readable(found: dict[str, Any]) -> None:
    for text, x0, y0, x1, y1 in found["texts"]:
        assert x0 >= 0 and x1 <= found["width"] and y0 >= 0 and y1 <= found["height"], text
    labels = sorted(found["labels"], key=lambda b: b[1])
    for above, below in itertools.pairwise(labels):
        assert above[3] <= below[1] + 0.5  # no two labels overlap
    assert all(bottom <= found["plotTop"] for _, _, _, bottom in found["legend"])


def test_fifty_long_domain_names_fit_the_accuracy_chart(browser: Browser) -> None:
    found = measure(browser, accuracy_chart_svg(report_from_summary(accuracy_summary())))
    check_readable(found)
    assert len(found["labels"]) == 51  # 50 domains and the combined row


def test_a_comparisons_legend_wraps_above_the_plot(browser: Browser) -> None:
    found = measure(browser, difference_chart_svg(comparison()))
    check_readable(found)
    assert len(found["legend"]) == 2 * len(METRICS)


def test_a_cut_label_keeps_its_whole_name_as_a_tooltip(browser: Browser) -> None:
    long = "A domain whose name runs well past the label column's room"
    summary = {"metrics": {"m": {"combined": _tally(0.5), "domains": {long: _tally(0.5)}}}}
    found = measure(browser, accuracy_chart_svg(report_from_summary(summary)))
    check_readable(found)
    assert found["tooltips"] == [long]
