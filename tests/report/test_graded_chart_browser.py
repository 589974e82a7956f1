"""A graded metric (a mean F1) in the HTML report, as Chromium draws it: its section is headlined and charted
by its mean score with the mean's interval, on a 0-1 axis, never as the near-0% accuracy of perfect scores
(issue 23: ``mlqa_f1`` was charted at 0% beside a mean of 0.249)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import assay
from assay.report.html import write_html

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Sentence answers: no response is exactly its golden answer, so the strict accuracy of token_f1 is 0%,
# while each shares some words with it (a mean F1 well above 0).
ROWS = [
    ("1", "geo", "New Delhi", "The capital of India is New Delhi."),
    ("2", "geo", "Paris", "It is Paris, in France."),
    ("3", "art", "Leonardo da Vinci", "Da Vinci painted it around 1503."),
    ("4", "art", "oil on poplar", "It is oil paint on a poplar panel."),
    ("5", "art", "the Louvre", "It hangs in the Louvre in Paris."),
]


@pytest.fixture(scope="module")
def report_and_mean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float, dict[str, float]]:
    folder = tmp_path_factory.mktemp("graded")
    source = folder / "sentences.csv"
    lines = ["id,Domain,question,answer,response", *(f'{i},{d},q{i},"{a}","{r}"' for i, d, a, r in ROWS)]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = assay.score(source, ["token_f1"])
    combined = assay.summary_dict(run.summary)["metrics"]["token_f1"]["combined"]
    assert combined["accuracy"] == 0.0 and combined["mean"] > 0.2  # the case the issue met
    path = write_html(folder / "report.html", assay.build_report(run))
    return path, combined["mean"], combined["mean_interval"]


def test_a_graded_metric_is_headlined_and_drawn_by_its_mean(
    browser: Browser, report_and_mean: tuple[Path, float, dict[str, float]]
) -> None:
    path, mean, interval = report_and_mean
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(path.as_uri(), wait_until="load")
        section = page.locator("#metric-token_f1")
        headline = section.locator("p.headline").inner_text()
        assert headline.startswith(f"mean {mean:.3f} (95% interval {interval['low']:.3f}")
        assert "accuracy" not in headline and "%" not in headline.replace("95% interval", "")
        chart = section.locator("svg.assay-chart")
        assert chart.get_attribute("aria-label", timeout=2000).startswith("Mean score per domain")
        ticks = {
            label: text.bounding_box()
            for text in chart.locator("text").all()
            if (label := (text.text_content() or "").strip()) in ("0", "1")
        }
        assert set(ticks) == {"0", "1"}, "the axis runs from 0 to 1, not 0% to 100%"
        zero = ticks["0"]["x"] + ticks["0"]["width"] / 2  # type: ignore[index]
        one = ticks["1"]["x"] + ticks["1"]["width"] / 2  # type: ignore[index]
        combined = chart.locator('g.point[data-domain="combined"]')
        dot = combined.locator("circle").bounding_box()
        assert dot is not None
        drawn = (dot["x"] + dot["width"] / 2 - zero) / (one - zero)
        assert drawn == pytest.approx(mean, abs=0.01), "the dot sits at the mean, not at 0% accuracy"
        assert f"{mean:.3f}" in (combined.text_content() or "")
        whiskers = [float(combined.get_attribute(f"data-{end}") or "nan") for end in ("low", "high")]
        assert whiskers == pytest.approx([interval["low"], interval["high"]])
        header = section.locator("thead").inner_text()
        assert "mean's 95% interval" in header
    finally:
        page.close()
