"""A report section (report/_section.py) renders itself and every renderer puts it at its place: a new
section, here one written in the test, needs no change to the text, JSON, Markdown or HTML renderers; a run
scorer's details that can give a section become one; the judge's section is the judges package's."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.judges.accounting import JudgeSummary, JudgeUsage
from assay.report.html import render_html
from assay.report.markdown import render_markdown
from assay.report.model import Report, build_report
from assay.report.sections import BODY, LEAD, HtmlPart, Section
from assay.report.text import render_text, warnings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"


@dataclass(frozen=True)
class Note:
    """A section of the test's own: a word in each format, so the test finds where each renderer put it."""

    word: str
    place: str
    key: str | None = "note"

    def as_dict(self) -> Any:
        return {"word": self.word}

    def warnings(self) -> Sequence[str]:
        return (f"{self.word} warns",)

    def text_lines(self, detail: bool) -> list[str]:
        return [f"{self.word} in text" + (" (detail)" if detail else "")]

    def markdown_lines(self) -> list[str]:
        return [f"## {self.word} in Markdown", ""]

    def html_parts(self) -> list[HtmlPart]:
        anchor = f"note-{self.word}"
        return [HtmlPart(anchor, f"{self.word} link", f'<section id="{anchor}"></section>')]

    def html_data(self) -> str:
        return f'<script type="application/json" id="{self.word}-data">{{}}</script>'


@dataclass(frozen=True)
class Accounting:
    """A run scorer's details that can give a section."""

    word: str

    def report_section(self) -> Section:
        return Note(self.word, BODY)


@pytest.fixture(scope="module")
def report() -> Report:
    return build_report(assay.score(assay.load_records(EXAMPLE)).summary)


# Each place: what its section comes after, and before, in each format.
PLACES = {
    LEAD: {
        "text": ("blank responses", "metric "),
        "markdown": ("## Headline", "by domain"),
        "html": ("<main>", 'id="overview"'),  # the lead comes first: what the reader came for
        "nav": ("<nav>", 'href="#overview"'),
    },
    BODY: {
        "text": ("accuracy by", "agreement:"),
        "markdown": ("by domain", "## Agreement"),
        "html": ('id="metric-', 'id="agreement"'),
        "nav": ('href="#metric-', 'href="#agreement"'),
    },
}


def _between(text: str, marker: str, after: str, before: str) -> bool:
    """Whether `marker` is after the last `after` and before the first `before`."""
    return text.rindex(after) < text.index(marker) < text.index(before)


@pytest.mark.parametrize("place", [LEAD, BODY])
def test_a_section_is_put_at_its_place_in_every_format(report: Report, place: str) -> None:
    found = report.with_sections(Note("zebra", place))
    text, markdown, page = render_text(found), render_markdown(found), render_html(found)
    where = PLACES[place]
    assert _between(text, "zebra in text", *where["text"])
    assert "zebra in text (detail)" in render_text(found, detail=True)
    assert _between(markdown, "## zebra in Markdown", *where["markdown"])
    assert markdown.index("> **Warning:** zebra warns") < markdown.index("## Headline")
    assert _between(page, 'id="note-zebra"', *where["html"])
    nav = page[page.index("<nav>") : page.index("</nav>")]
    assert _between(nav, 'href="#note-zebra"', *where["nav"])
    assert page.index('id="assay-summary"') < page.index('id="zebra-data"')
    assert warnings(found)[-1] == "zebra warns"


def test_a_sections_key_sits_between_the_metrics_and_the_agreement(report: Report) -> None:
    keys = list(report.with_sections(Note("zebra", BODY)).as_dict())
    assert keys[keys.index("metrics") + 1 :][:3] == ["judge", "note", "agreement"]
    assert report.with_sections(Note("zebra", BODY)).as_dict()["note"] == {"word": "zebra"}
    assert report.with_sections(Note("zebra", BODY, key=None)).as_dict() == report.as_dict()


def test_a_run_scorers_details_that_give_a_section_become_one(report: Report) -> None:
    summary = assay.score(assay.load_records(EXAMPLE)).summary
    with_details = dataclasses.replace(summary, details={"m": Accounting("okapi"), "other": object()})
    assert build_report(with_details).sections == (Note("okapi", BODY),)
    assert build_report(with_details, sections=[Note("zebra", LEAD)]).sections == (
        Note("okapi", BODY),
        Note("zebra", LEAD),
    )


def test_the_judges_section_fills_the_summarys_judge_key(report: Report) -> None:
    assert report.as_dict()["judge"] is None  # every summary has the key, null with no judge
    judge = JudgeSummary(
        sent_to_judges=3,
        decided_by_cascade=1,
        blank=0,
        truncated=0,
        over_budget=0,
        seconds=0.5,
        usage={"scripted:a": JudgeUsage(calls=3)},
        agreement={"exact_substring": (2, 1)},
        notes=("a note",),
    )
    found = report.with_sections(judge.report_section())
    assert found.as_dict()["judge"] == judge.as_dict()
    assert "agreement with the matchers on the rows both scored: exact_substring 1/2 (50.0%)" in render_text(
        found
    )
    assert warnings(found)[-1] == "a note" and "> **Warning:** a note" in render_markdown(found)
