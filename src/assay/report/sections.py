"""The sections a report holds besides a scored file's own (its metrics, the agreement, the rows to review
and the table of questions): each a typed part of the one ``Report`` (``Report.sections``, in order), built
by whoever has its data, rendering itself (the ``Section`` protocol, ``report/_section.py``), and laid out
by the renderers at its ``place``.

- ``Comparison`` (here): two scored files compared (``assay compare``), a section of the HTML report with
  a chart of the differences.
- A run scorer's accounting: the ``details`` a run scorer returns becomes a section when it can give one
  (``report_section()``; ``build_report`` asks), such as the LLM judge's (``judges/section.py``).
- A harness run's own numbers (``harness/results_report.RunResults``), built by the harness, so nothing
  under ``report/`` reads the harness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._comparison import comparison_section
from ._section import BODY, LEAD, GivesSection, HtmlPart, Section
from .markup import json_script

__all__ = ["BODY", "LEAD", "Comparison", "GivesSection", "HtmlPart", "Section"]


@dataclass(frozen=True)
class Comparison:
    """Two scored files compared (``assay.compare(a, b).as_dict()``): per metric, per domain and
    combined, B - A with its interval and p-value. In the HTML report only: the terminal and Markdown
    show a comparison as its own document (``render_comparison``, ``render_comparison_markdown``)."""

    comparison: Mapping[str, Any]
    place = LEAD
    key = None  # the summary of B stays as it was

    def as_dict(self) -> Any:
        return dict(self.comparison)

    def warnings(self) -> Sequence[str]:
        return ()  # shown in the comparison's own section

    def text_lines(self, detail: bool) -> list[str]:
        return []

    def markdown_lines(self) -> list[str]:
        return []

    def html_parts(self) -> list[HtmlPart]:
        return [HtmlPart("comparison", "Comparison", comparison_section(self.comparison))]

    def html_data(self) -> str:
        return json_script("assay-comparison", self.comparison)
