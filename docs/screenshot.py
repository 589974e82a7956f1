"""Redraw docs/report.png, the README's picture of the HTML report.

    python docs/screenshot.py

It scores examples/qa_responses.csv (A) and a copy whose two blank responses are answered (B), writes
the report of A with the comparison of the two, opens it in /usr/bin/chromium (Playwright, no browser
download), and shows in one picture the overview, the comparison, one metric, the agreement and a few
questions with one row's traces open: the other sections are hidden in the picture only, not in the file.
The picture is reduced to 256 colours to keep the repository small.
"""

from __future__ import annotations

import csv
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import sync_playwright

import assay
from assay.report.html import write_html
from assay.stats import paired_bootstrap

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "qa_responses.csv"
OUT = ROOT / "docs" / "report.png"
SHOWN_METRIC = "phrase_match"
COMPARED = ("exact_substring", "word_overlap", "phrase_match")
SEARCH = "painted"  # typed into the questions' search box
# The picture hides the other metrics' sections and the agreement's examples (they are in the file).
HIDE = f"""() => {{
  document.querySelectorAll('section.metric:not(#metric-{SHOWN_METRIC})').forEach(s => s.hidden = true);
  document.querySelectorAll('#agreement h3, #agreement table.examples, #agreement .review')
    .forEach(e => e.hidden = true);
}}"""


def answered_copy(folder: Path) -> Path:
    """B: the example, with its blank responses answered with the golden answer."""
    path = folder / "qa_responses_b.csv"
    with EXAMPLE.open(encoding="utf-8") as source, path.open("w", newline="", encoding="utf-8") as out:
        rows = list(csv.DictReader(source))
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            if not row["response"].strip():
                row["response"] = f"It is {row['answer']}."
            writer.writerow(row)
    return path


def comparison(a: assay.ScoreRun, b: assay.ScoreRun) -> dict[str, Any]:
    """The comparison in the shape `assay compare` gives, for the two protocols and phrase_match."""
    rows_a = {row["id"]: row for row in assay.verdict_rows(a)}
    rows_b = {row["id"]: row for row in assay.verdict_rows(b)}
    ids = [i for i in rows_a if i in rows_b]
    metrics = {}
    for name in COMPARED:
        metric = a.summary.metrics[name]
        domains = {d: [i for i in ids if rows_a[i]["Domain"] == d] for d in metric.domains}
        metrics[name] = {
            "combined": _difference(name, ids, rows_a, rows_b),
            "domains": {d: _difference(name, found, rows_a, rows_b) for d, found in domains.items()},
        }
    return {
        "a": {"source": "examples/qa_responses.csv"},
        "b": {"source": "the same, blank responses answered"},
        "method": "paired bootstrap 95% (seed=20261201, resamples=10000); McNemar exact",
        "only_in_a": [i for i in rows_a if i not in rows_b],
        "only_in_b": [i for i in rows_b if i not in rows_a],
        "rows_in_both": len(ids),
        "metrics": metrics,
    }


def _difference(name: str, ids: list[str], rows_a: dict[str, Any], rows_b: dict[str, Any]) -> dict[str, Any]:
    pairs = [(rows_a[i][name] is True, rows_b[i][name] is True) for i in ids]
    both, a_only = pairs.count((True, True)), pairs.count((True, False))
    b_only, neither = pairs.count((False, True)), pairs.count((False, False))
    found = paired_bootstrap(both, a_only, b_only, neither, seed=20261201)
    n = len(pairs)
    return {
        "n": n,
        "a_accuracy": (both + a_only) / n if n else None,
        "b_accuracy": (both + b_only) / n if n else None,
        "difference": found.difference,
        "interval": None
        if found.interval is None
        else {"low": found.interval.low, "high": found.interval.high},
        "p_value": found.p_value,
        "a_only": a_only,
        "b_only": b_only,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        a, b = assay.score(EXAMPLE), assay.score(answered_copy(Path(folder)))
        summary = assay.summary_dict(a.summary) | {"source": "examples/qa_responses.csv"}  # not a full path
        rows = list(assay.verdict_rows(a))
        page = write_html(
            Path(folder) / "report.html", summary, rows, comparison(a, b), fields=a.dataset.fields
        )
        picture = Path(folder) / "report.png"
        with sync_playwright() as driver:
            chromium = driver.chromium
            browser = chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
            )
            view = browser.new_page(viewport={"width": 1280, "height": 900})
            view.goto(page.as_uri())
            view.evaluate(HIDE)
            view.fill("#filter-text", SEARCH)
            view.click('tbody[data-id="art-01"] button.expand')
            view.screenshot(path=str(picture), full_page=True)
            browser.close()
        Image.open(picture).convert("RGB").quantize(256).save(OUT, optimize=True)
    print(f"{OUT.relative_to(ROOT)}: {OUT.stat().st_size // 1024} KB", file=sys.stderr)


if __name__ == "__main__":
    main()
