"""Redraw docs/report.png, docs/reports.md's picture of the HTML report.

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
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import sync_playwright

import assay
from assay.comparison import compare
from assay.report.html import write_html
from assay.report.sections import Comparison

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
    """What `assay compare` gives, for the two protocols and phrase_match, with readable sources."""
    found = compare(a, b).as_dict()
    found["metrics"] = {name: found["metrics"][name] for name in COMPARED}
    found["a"], found["b"] = (
        {"source": "examples/qa_responses.csv"},
        {"source": "the same, blank responses answered"},
    )
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        a, b = assay.score(EXAMPLE), assay.score(answered_copy(Path(folder)))
        report = replace(assay.build_report(a), source="examples/qa_responses.csv")  # not a full path
        page = write_html(Path(folder) / "report.html", report.with_sections(Comparison(comparison(a, b))))
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
