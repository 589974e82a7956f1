"""A harness run's own numbers as a section of its Report (``RunResults``): results.md is its Markdown
under the run's title (``render_run_markdown``), and results.html is assay's HTML report with its sections
after the overview (``results_html.run_sections``). Built by the harness (``results.run_report``), so
nothing under ``report/`` reads the harness or names what a run reports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..report.markup import cell
from ..report.model import Report
from ..report.sections import LEAD, HtmlPart
from .results_html import run_sections
from .results_markdown import run_markdown_lines


@dataclass(frozen=True)
class RunResults:
    """A harness run's numbers as results.json holds them (``harness.results.results_dict``): the
    headline, the gate, the outcome classes, the rollups per category, scope and route, the signatures
    and every item. Not in the JSON summary (results.json is its own file) nor the printed report
    (``assay run`` prints results.md's headline)."""

    results: Mapping[str, Any]
    place = LEAD
    key = None

    def as_dict(self) -> Any:
        return dict(self.results)

    def warnings(self) -> Sequence[str]:
        return ()  # the gate's lines are in its own part

    def text_lines(self, detail: bool) -> list[str]:
        return []

    def markdown_lines(self) -> list[str]:
        return run_markdown_lines(self.results)

    def html_parts(self) -> list[HtmlPart]:
        return [HtmlPart(*part) for part in run_sections(self.results)]

    def html_data(self) -> str:
        return ""


def render_run_markdown(report: Report) -> str:
    """results.md: the report's ``RunResults`` under the run's title."""
    results = run_results(report)
    lines = [f"# assay run: {cell(results['signatures']['system'])}", "", *run_markdown_lines(results)]
    return "\n".join(lines).rstrip() + "\n"


def run_results(report: Report) -> Mapping[str, Any]:
    """The numbers of the harness run a report is of (its ``RunResults`` section); a report without one
    is not a harness run's."""
    found = report.section(RunResults)
    if found is None:
        raise ValueError(
            f"the report of {report.source!r} has no RunResults section: it is not a harness run's "
            "(build it with harness.results.run_report)"
        )
    return found.results
