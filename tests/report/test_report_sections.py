"""The one report model's sections (report/sections.py) and its boundaries: a report holds its more
sections in order, a summary file reads back into a Report for the chart, a renderer that needs a
section says so, and nothing under report/ reads the harness."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import assay
from assay.harness.results_report import RunResults, render_run_markdown
from assay.report.model import Report, build_report, report_from_summary
from assay.report.sections import Comparison

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
REPORT_PACKAGE = Path(assay.__file__).resolve().parent / "report"


@pytest.fixture(scope="module")
def report() -> Report:
    return build_report(assay.score(assay.load_records(EXAMPLE)).summary)


@pytest.mark.parametrize(
    ("sections", "first_comparison", "first_run"),
    [
        ((), None, None),
        ((Comparison({"n": 1}),), Comparison({"n": 1}), None),
        (
            (RunResults({"a": 1}), Comparison({"n": 2}), Comparison({"n": 3})),
            Comparison({"n": 2}),
            RunResults({"a": 1}),
        ),
    ],
)
def test_a_report_finds_its_first_section_of_a_kind(
    report: Report, sections: tuple, first_comparison: Comparison | None, first_run: RunResults | None
) -> None:
    found = report.with_sections(*sections)
    assert found.sections == sections
    assert (found.section(Comparison), found.section(RunResults)) == (first_comparison, first_run)


def test_sections_leave_the_json_summary_as_it_was(report: Report) -> None:
    assert report.with_sections(Comparison({"n": 1})).as_dict() == report.as_dict()


def test_a_summary_file_reads_back_into_the_same_metrics(report: Report) -> None:
    """What `assay plot` draws from: every metric's tallies, signature and languages, as written."""
    again = report_from_summary(report.as_dict())
    assert again.metrics == report.metrics
    written, read = report.as_dict(), again.as_dict()
    for key in ("signature", "source", "rows", "metrics"):
        assert read[key] == written[key]
    assert (again.sections, again.agreement, again.review, again.rows) == ((), None, None, ())


@pytest.mark.parametrize(
    ("tally", "accuracy", "interval"),
    [
        ({"n": 3, "accuracy": 0.5}, 0.5, None),  # a hand-written summary: counts it lacks read as 0
        ({"n": 3, "accuracy": None, "interval": None}, None, None),
        ({"n": 3, "accuracy": 1, "interval": {"low": 0.4, "high": 1}}, 1, (0.4, 1)),
    ],
)
def test_a_tally_reads_back_from_what_a_summary_holds(
    tally: dict, accuracy: float | None, interval: tuple[float, float] | None
) -> None:
    summary = {"metrics": {"m": {"combined": tally, "domains": {"d": tally}}}}
    cell = report_from_summary(summary).metrics["m"].domains["d"]
    assert (cell.n, cell.accuracy, cell.passed) == (3, accuracy, tally.get("passed", 0))
    assert (None if cell.interval is None else (cell.interval.low, cell.interval.high)) == interval


def test_the_run_markdown_needs_a_harness_runs_numbers(report: Report) -> None:
    with pytest.raises(ValueError, match=r"has no RunResults section.*harness\.results\.run_report"):
        render_run_markdown(report)


def _imported(path: Path) -> list[str]:
    """Every module a file imports, relative imports resolved against the report package."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ["assay", "report"][: 3 - node.level] if node.level else []  # report/ is two deep
            found.append(".".join([*base, node.module or ""]).strip("."))
    return found


@pytest.mark.parametrize("path", sorted(REPORT_PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_no_report_module_reads_the_harness(path: Path) -> None:
    """The run's data comes in as a section the harness built: the report never imports upward."""
    assert [name for name in _imported(path) if name.startswith("assay.harness")] == []
