"""What a section of a report is: the protocol every renderer reads (``report/sections.py`` re-exports it).

A report is its scored file's own parts (the headline, each metric, the agreement, the rows to review, the
table of questions) and an ordered tuple of sections (``Report.sections``), each built by whoever has its
data and rendering itself: the text, JSON, Markdown and HTML renderers put each section at its ``place``
and never name what a section is about. A leaf module (it imports nothing of the report package), so the
model can hold sections that render with the model's own helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

LEAD = "lead"  # after the overview, before the metrics (a harness run's numbers, a comparison of two runs)
BODY = "body"  # after the metrics, before the agreement (an accounting of how the metrics were scored)


@dataclass(frozen=True)
class HtmlPart:
    """One ``<section>`` of the HTML report: its anchor, its link's label in the navigation (None: no
    link) and its HTML, every text from the data already escaped."""

    anchor: str
    label: str | None
    html: str


class Section(Protocol):
    """A part of a report that renders itself in each format (an empty rendering: not in that format)."""

    @property
    def place(self) -> str:
        """Where the renderers put it: ``LEAD`` or ``BODY``."""
        ...

    @property
    def key(self) -> str | None:
        """Its key in the JSON summary (``Report.as_dict``), or None when the summary leaves it out."""
        ...

    def as_dict(self) -> Any:
        """Its value under ``key`` in the JSON summary."""
        ...

    def warnings(self) -> Sequence[str]:
        """What it warns about: printed on stderr and at the top of the Markdown report."""
        ...

    def text_lines(self, detail: bool) -> list[str]:
        """Its lines of the printed report (`detail`: ``--detail``'s report)."""
        ...

    def markdown_lines(self) -> list[str]:
        """Its lines of the Markdown report, every text from the data made inert (``markup.cell``)."""
        ...

    def html_parts(self) -> list[HtmlPart]:
        """Its sections of the HTML report, in order."""
        ...

    def html_data(self) -> str:
        """More data for the page's script (``markup.json_script``), after the summary's; "" for none."""
        ...


@runtime_checkable
class GivesSection(Protocol):
    """What a run scorer's ``details`` (``Summary.details``) has when it is a section of the report: the
    LLM judge's accounting, for one (``build_report`` asks each)."""

    def report_section(self) -> Section: ...
