"""The HTML report and the charts, read back without a browser (tests/report/test_html_browser.py opens it
in one).

`read_html_numbers` reads every machine-readable number back out of a report; the test that numbers
agree across JSON, Markdown and HTML can import it from here.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import hashlib
import html
import json
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cli_run import NEEDS_MORE_INPUTS

import assay
from assay.judges.accounting import JudgeSummary, JudgeUsage
from assay.report.html import render_html, write_html
from assay.report.model import Report
from assay.report.plot import accuracy_chart_svg, write_plot
from assay.report.sections import Comparison
from conftest import skip_or_fail

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "examples" / "qa_responses.csv"
SCRIPT_PAYLOAD = "<script>alert(1)</script>"
ATTRIBUTE_PAYLOAD = '"><img src=x onerror=alert(1)>'
HOSTILE_DOMAIN = '<b>Evil</b> & "Co"'
PWN_PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'

# The shape `assay compare A B` returns.
COMPARISON: dict[str, Any] = {
    "a": {"source": "runA.csv"},
    "b": {"source": "<i>runB</i>.csv"},
    "method": "paired bootstrap 95% (seed=20261201, resamples=10000); McNemar exact",
    "only_in_a": ["id7"],
    "only_in_b": [],
    "rows_in_both": 55,
    "metrics": {
        "phrase_match": {
            "combined": {
                "n": 55,
                "a_accuracy": 0.30,
                "b_accuracy": 0.35,
                "difference": 0.05,
                "interval": {"low": -0.02, "high": 0.12},
                "p_value": 0.22,
                "a_only": 2,
                "b_only": 5,
            },
            "domains": {
                "Art": {
                    "n": 14,
                    "a_accuracy": 0.25,
                    "b_accuracy": 0.5,
                    "difference": 0.25,
                    "interval": {"low": 0.0, "high": 0.5},
                    "p_value": 0.0004,
                    "a_only": 0,
                    "b_only": 3,
                },
                "Empty": {  # undefined where a domain has no rows in common
                    "n": 0,
                    "a_accuracy": None,
                    "b_accuracy": None,
                    "difference": None,
                    "interval": None,
                    "p_value": None,
                    "a_only": 0,
                    "b_only": 0,
                },
            },
        }
    },
}


class _NumberReader(HTMLParser):
    """Collects each element with data-field and data-value, inside a row with data-section."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[tuple[str, str | None, str, str | None], dict[str, Any]] = {}
        self.shown: dict[tuple[str, str | None, str, str | None], dict[str, str]] = {}
        self.row: tuple[str, str | None, str, str | None] | None = None
        self.field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "tr" and named.get("data-section"):
            self.row = (
                str(named["data-section"]),
                named.get("data-metric"),
                str(named["data-scope"]),
                named.get("data-domain"),
            )
            self.found[self.row], self.shown[self.row] = {}, {}
        elif self.row is not None and "data-field" in named and "data-value" in named:
            self.field = str(named["data-field"])
            self.found[self.row][self.field] = json.loads(str(named["data-value"]))
            self.shown[self.row][self.field] = ""

    def handle_data(self, data: str) -> None:
        if self.row is not None and self.field is not None:
            self.shown[self.row][self.field] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.field = None
        elif tag == "tr":
            self.row = None


def read_html_numbers(
    text: str,
) -> tuple[dict[tuple[str, str | None, str, str | None], dict[str, Any]], dict[Any, dict[str, str]]]:
    """Every number of a report, keyed (section, metric, scope, domain): exact values, and the text shown."""
    reader = _NumberReader()
    reader.feed(text)
    return reader.found, reader.shown


def hostile_csv(folder: Path) -> Path:
    """The example, and three rows that try to run script from every text a report shows."""
    path = folder / "hostile.csv"
    with EXAMPLE.open(encoding="utf-8") as source, path.open("w", newline="", encoding="utf-8") as out:
        rows = list(csv.reader(source))
        header = rows[0]
        writer = csv.writer(out)
        writer.writerows(rows)
        found = {"id": "hostile-1", "question": SCRIPT_PAYLOAD, "answer": "alert", "Domain": HOSTILE_DOMAIN}
        writer.writerow([{**found, "lang": "en", "response": SCRIPT_PAYLOAD}.get(c, "") for c in header])
        found = {"id": ATTRIBUTE_PAYLOAD, "question": "q", "answer": ATTRIBUTE_PAYLOAD, "Domain": "Art"}
        writer.writerow([{**found, "lang": "en", "response": ATTRIBUTE_PAYLOAD}.get(c, "") for c in header])
        found = {"id": "hostile-3", "question": PWN_PAYLOAD, "answer": "pwned", "Domain": "Art"}
        writer.writerow([{**found, "lang": "en", "response": PWN_PAYLOAD}.get(c, "") for c in header])
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> assay.ScoreRun:
    # Every metric whose inputs the file has (hostile_csv has a lang column; no pattern column, no
    # sources, no expected_refusal).
    every = [name for name in assay.SCORERS if name not in NEEDS_MORE_INPUTS]
    return assay.score(hostile_csv(tmp_path_factory.mktemp("hostile")), every)


@pytest.fixture(scope="module")
def summary(run: assay.ScoreRun) -> dict[str, Any]:
    return assay.summary_dict(run.summary)


@pytest.fixture(scope="module")
def report(run: assay.ScoreRun) -> Report:
    return assay.build_report(run)


@pytest.fixture(scope="module")
def page(report: Report) -> str:
    return render_html(report.with_sections(Comparison(COMPARISON)))


def test_hostile_text_appears_only_escaped(page: str) -> None:
    for payload in (SCRIPT_PAYLOAD, ATTRIBUTE_PAYLOAD, PWN_PAYLOAD, HOSTILE_DOMAIN, "<i>runB</i>"):
        assert payload not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;b&gt;Evil&lt;/b&gt; &amp; &quot;Co&quot;" in page
    assert "<img" not in page
    # The page's own three: the summary and the comparison as data, and its script.
    assert len(re.findall(r"<script\b", page)) == 3


def test_embedded_data_is_json_that_cannot_end_its_script(page: str, summary: dict[str, Any]) -> None:
    found = re.search(r'<script type="application/json" id="assay-summary">(.*?)</script>', page, re.S)
    assert found is not None
    assert "<" not in found[1] and ">" not in found[1] and "&" not in found[1]
    assert json.loads(found[1]) == summary


def test_the_page_fetches_nothing(page: str) -> None:
    assert not re.search(r"""\b(?:src|href|action)\s*=\s*["']?\s*(?:[a-z]+:|//)""", page, re.I)
    assert all(link.startswith("#") for link in re.findall(r'href="([^"]*)"', page))
    assert "@import" not in page and "url(" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None and "default-src 'none'" in html.unescape(policy[1])


def test_the_policy_allows_exactly_the_page_script(page: str) -> None:
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script[1].encode("utf-8")).digest()).decode("ascii")
    assert f"script-src 'sha256-{digest}'" in html.unescape(page)


def test_metric_numbers_are_the_summary_numbers(page: str, summary: dict[str, Any]) -> None:
    found, shown = read_html_numbers(page)
    for name, metric in summary["metrics"].items():
        tallies = {("combined", None): metric["combined"]}
        tallies |= {("domain", domain): t for domain, t in metric["domains"].items()}
        for (scope, domain), tally in tallies.items():
            expected = {field: value for field, value in tally.items() if field != "failed"}
            assert found[("metric", name, scope, domain)] == expected, (name, domain)
            accuracy = tally["accuracy"]  # None when every row is unscored (value_match on names)
            wanted = "n/a" if accuracy is None else f"{accuracy:.1%}"
            assert shown[("metric", name, scope, domain)]["accuracy"] == wanted
        assert found[("overview", name, "combined", None)] == found[("metric", name, "combined", None)]


def test_interval_is_shown_as_the_text_report_shows_it(page: str, summary: dict[str, Any]) -> None:
    _, shown = read_html_numbers(page)
    interval = summary["metrics"]["phrase_match"]["combined"]["interval"]
    text = f"{interval['low'] * 100:.1f}\u2013{interval['high']:.1%}"
    assert shown[("metric", "phrase_match", "combined", None)]["interval"] == text


def test_agreement_buckets_are_the_summary_counts(page: str, summary: dict[str, Any]) -> None:
    found, _ = read_html_numbers(page)
    agreement = summary["agreement"]
    assert found[("agreement", None, "overall", None)] == agreement["overall"]
    for domain, counts in agreement["domains"].items():
        assert found[("agreement", None, "domain", domain)] == counts
    assert HOSTILE_DOMAIN in agreement["domains"]


def test_comparison_section_shows_the_comparison(page: str) -> None:
    found, shown = read_html_numbers(page)
    metric = COMPARISON["metrics"]["phrase_match"]
    assert found[("comparison", "phrase_match", "combined", None)] == metric["combined"]
    for domain, counts in metric["domains"].items():
        assert found[("comparison", "phrase_match", "domain", domain)] == counts
    assert shown[("comparison", "phrase_match", "combined", None)]["difference"] == "+5.0 pp"
    assert shown[("comparison", "phrase_match", "domain", "Art")]["p_value"] == "<0.001"
    assert shown[("comparison", "phrase_match", "domain", "Empty")]["difference"] == "n/a"
    assert "only in A (1): id7" in page and "only in B (0): none" in page


def test_no_comparison_no_section(report: Report) -> None:
    page = render_html(report)
    assert 'id="comparison"' not in page and "assay-comparison" not in page


def test_judge_usage_and_input_warnings_are_shown(report: Report) -> None:
    usage = JudgeUsage(
        calls=40, cache_hits=16, failures=1, prompt_tokens=9000, completion_tokens=700, cost=0.0125
    )
    judge = JudgeSummary(
        sent_to_judges=40,
        decided_by_cascade=16,
        blank=0,
        truncated=2,
        over_budget=0,
        seconds=1.0,
        usage={"openai:<model>@127.0.0.1:8080": usage},
        agreement={},
        notes=("a judge is of the <family> of the system under test",),
    )
    inputs = {"empty_golden_ids": ("art-02",), "null_cells": {"response": ("x1", "x2")}}
    page = render_html(dataclasses.replace(report, **inputs).with_sections(judge.report_section()))
    assert "40 rows sent to the judges; 16 decided by the cascade; 2 responses truncated" in page
    assert "openai:&lt;model&gt;@127.0.0.1:8080" in page and "of the &lt;family&gt; of" in page
    assert '<td data-field="cache_hits" data-value="16">16</td>' in page
    assert (
        "1 row with an empty golden answer, which the original evaluation scripts score correct: art-02"
        in page
    )
    assert "column &#x27;response&#x27; is empty (NaN/None) in 2 rows: x1, x2" in page


def test_every_question_is_a_row_with_its_verdicts(page: str, run: assay.ScoreRun) -> None:
    rows = list(assay.verdict_rows(run))
    assert page.count('<tr class="question">') == len(rows)
    cell = re.search(r'<tbody data-id="art-01">.*?</tbody>', page, re.S)
    assert cell is not None
    assert 'data-metric="phrase_match" data-outcome="pass" data-value="true"' in cell[0]
    assert 'data-metric="token_f1" data-outcome="fail" data-value="0.25"' in cell[0]


def test_a_trace_marks_its_span_in_the_response(page: str) -> None:
    traces = re.search(r'<tbody data-id="art-01">.*?</tbody>', page, re.S)
    assert traces is not None
    assert "by <mark>Vincent van Gogh</mark> in 1889" in traces[0]
    assert "the golden words occur in the response as a contiguous run of whole words" in traces[0]


def test_columns_named_otherwise_are_found_through_fields(tmp_path: Path) -> None:
    path = tmp_path / "renamed.csv"
    path.write_text("qid,q,gold,topic,model_output\nx1,Capital of France?,Paris,Geo,It is Paris.\n")
    columns = assay.ColumnMap(id="qid", question="q", answer="gold", domain="topic", response="model_output")
    run = assay.score(assay.load_records(path, columns=columns))
    page = render_html(assay.build_report(run))
    question = re.search(r'<tr class="question">.*?</tr>', page, re.S)
    assert question is not None
    for text in ("x1", "Capital of France?", "Paris", "Geo", "It is <mark>Paris</mark>."):
        assert text in page
    assert '<td class="response">It is Paris.</td>' in question[0]


def test_write_html_writes_the_page(tmp_path: Path, report: Report) -> None:
    path = write_html(tmp_path / "report.html", report)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")


def test_charts_are_well_formed_svg(page: str, summary: dict[str, Any], report: Report) -> None:
    charts = re.findall(r"<svg\b.*?</svg>", page, re.S)
    assert len(charts) == len(summary["metrics"]) + 1  # one per metric, and the comparison's
    for chart in [*charts, accuracy_chart_svg(report)]:
        ET.fromstring(chart)


def test_chart_points_are_the_summary_accuracies(summary: dict[str, Any], report: Report) -> None:
    root = ET.fromstring(accuracy_chart_svg(report, ["exact_substring", "phrase_match"]))
    points = {
        (g.get("data-metric"), g.get("data-domain")): g for g in root.iter("{http://www.w3.org/2000/svg}g")
    }
    for name in ("exact_substring", "phrase_match"):
        metric = summary["metrics"][name]
        for domain, tally in [*metric["domains"].items(), ("combined", metric["combined"])]:
            point = points[(name, domain)]
            assert float(point.get("data-value", "nan")) == tally["accuracy"]
            assert float(point.get("data-low", "nan")) == tally["interval"]["low"]
    assert len(points) == 2 * (len(summary["metrics"]["phrase_match"]["domains"]) + 1)


def test_write_plot_svg(tmp_path: Path, report: Report) -> None:
    path = write_plot(tmp_path / "chart.svg", report, ["phrase_match"])
    assert ET.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_write_plot_with_matplotlib(tmp_path: Path, report: Report, suffix: str) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        skip_or_fail("matplotlib is not installed (pip install 'assay[plot]')")
    data = write_plot(tmp_path / f"chart{suffix}", report).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n" if suffix == ".png" else b"%PDF-")


def test_png_without_matplotlib_says_how_to_get_it(
    tmp_path: Path, report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # as if it were not installed
    with pytest.raises(assay.UsageError, match=r"pip install 'assay\[plot\]', or write \.svg"):
        write_plot(tmp_path / "chart.png", report)


@pytest.mark.parametrize(
    ("name", "metrics", "message"),
    [
        ("chart.gif", None, "cannot draw a chart as '.gif'"),
        ("chart.svg", ["nonesuch"], "no metric 'nonesuch' in this summary"),
    ],
)
def test_write_plot_refuses(
    tmp_path: Path, report: Report, name: str, metrics: list[str] | None, message: str
) -> None:
    with pytest.raises(assay.UsageError, match=re.escape(message)):
        write_plot(tmp_path / name, report, metrics)
