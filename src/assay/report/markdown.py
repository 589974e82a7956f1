"""The Markdown report (results.md): a headline table, the per-domain tables, the agreement of a pair,
the rows to review and the top misses with their traces; and the comparison of two runs. Pure
functions of the report model (``build_report``) and of the comparison dict.

Every number is printed as the text report prints it (percentages to one decimal, intervals with an
en dash), and every string from the data is inert (issue 9): a `|` or a line break in a response cannot
break the table, and no link, image, raw HTML, emphasis or code span can be made from it. Markdown's
own characters are backslash-escaped (``<``, ``>`` and ``&`` written as entities, which every renderer
knows), and a word that a renderer would turn into a link by itself (GFM's autolinks: ``http://``,
``www.``, an e-mail address) is shown as inline code, which is never a link: ``markup.cell`` and
``markup.code``, re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._version import __version__
from ..outputs import check_writable, write_text
from ..scorer_registry import default_pair
from ..summary import Agreement, Review
from ..trace import trace_dicts
from .format import blank_text, count, difference_cells, interval_text, percent
from .markup import cell, code, markdown_table, plain
from .model import Cell, MetricReport, Report, Row, is_miss
from .sections import BODY, LEAD

TOP_MISSES = 10
SNIPPET = 160
__all__ = ["cell", "code", "plain", "render_comparison_markdown", "render_markdown", "write_markdown"]


def render_markdown(report: Report) -> str:
    """The Markdown report of the report model (``build_report(run)``), whose rows give the misses (a
    report of a summary alone has none)."""
    lines = [f"# assay results: {cell(report.source)}", ""]
    rows_line = f"{count(report.total, 'row')}, {blank_text(report.blank, report.blocked)}"
    lines += [f"{rows_line}; assay {__version__}; intervals: {report.intervals}", ""]
    lines += _warnings(report.section_warnings())
    lines += _headline(report.metrics)
    lines += _sections(report, LEAD)
    for name, metric in report.metrics.items():
        lines += _domains(name, metric)
    lines += _sections(report, BODY)
    if report.agreement is not None:
        lines += _agreement(report.agreement)
    if report.review is not None:
        lines += _review(report.review)
    if report.rows and report.metrics:
        first = next(iter(report.metrics))
        lines += _misses(first, [_row_of(row) for row in report.rows], report.missed.get(first))
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(path: str | Path, report: Report) -> Path:
    return write_text(check_writable(path), render_markdown(report))


def _row_of(row: Row) -> Mapping[str, Any]:
    """A row of the report model as the misses read it: golden and response by record field, whatever
    the input columns were called."""
    return {
        **row.verdicts,
        "id": row.id,
        "answers": " | ".join(row.golden),
        "response": row.response,
        "trace": dict(row.traces),
    }


def _tally_cells(tally: Cell) -> list[str]:
    mean = f"{tally.mean:.3f}" if tally.graded and tally.mean is not None else ""
    interval = None if tally.interval is None else tally.interval.as_dict()
    counts = [str(tally.n), str(tally.passed), percent(tally.accuracy), interval_text(interval)]
    return [*counts, mean, str(tally.soft), str(tally.blank), str(tally.unscored)]


TALLY_HEADER = ["n", "passed", "accuracy", "95% CI", "mean", "soft", "blank", "unscored"]


def _warnings(found: Sequence[str]) -> list[str]:
    """The sections' warnings (a model call left out, a metric that may not be measuring), each escaped."""
    return [*(f"> **Warning:** {cell(warning)}" for warning in found), ""] if found else []


def _sections(report: Report, place: str) -> list[str]:
    """The Markdown of the report's sections at `place`, in order."""
    return [line for section in report.placed(place) for line in section.markdown_lines()]


def _headline(metrics: Mapping[str, MetricReport]) -> list[str]:
    rows = [[f"`{name}`", *_tally_cells(m.combined), code(m.signature)] for name, m in metrics.items()]
    return ["## Headline", "", *markdown_table(["metric", *TALLY_HEADER, "signature"], rows)]


def _domains(name: str, metric: MetricReport) -> list[str]:
    rows = [[cell(domain or "(no domain)"), *_tally_cells(t)] for domain, t in metric.domains.items()]
    rows.append(["**combined**", *_tally_cells(metric.combined)])
    return [f"## `{name}` by domain", "", *markdown_table(["domain", *TALLY_HEADER], rows)]


def _agreement(agreement: Agreement) -> list[str]:
    buckets = agreement.buckets
    first, second = agreement.pair
    rows = [[cell(d or "(no domain)"), *(str(c[b]) for b in buckets)] for d, c in agreement.domains.items()]
    rows.append(["**overall**", *(str(agreement.overall[b]) for b in buckets)])
    header = ["domain", *map(cell, buckets)]
    title = (
        f"{first} and {second}" if (first, second) == default_pair() else f"{cell(first)} and {cell(second)}"
    )
    lines = [f"## Agreement of {title}", "", *markdown_table(header, rows)]
    if agreement.review_ids:
        only = "Overlap-only" if (first, second) == default_pair() else f"{cell(second)}-only"
        lines += [f"{only} rows to review: {cell(', '.join(agreement.review_ids))}", ""]
    return lines


def _review(review: Review) -> list[str]:
    """The rows a person should look at, each with why (the report model's ``review``)."""
    listed = review.rows
    if not listed:
        return []
    lines = [f"## Rows to review ({len(listed)} of {review.total})", ""]
    lines += markdown_table(["id", "why"], [[cell(row.id), cell(row.why)] for row in listed])
    return lines


def _misses(metric: str, rows: Sequence[Mapping[str, Any]], total: int | None = None) -> list[str]:
    """The first rows the report's first metric fails, each with every metric's trace; `total`: its
    misses over every row, when the report shows some rows only (``Report.missed``)."""
    missed = [row for row in rows if is_miss(row.get(metric))]
    total = len(missed) if total is None else total
    lines = [f"## Top misses of `{metric}` ({min(len(missed), TOP_MISSES)} of {total})", ""]
    for row in missed[:TOP_MISSES]:
        traces = trace_dicts(row.get("trace"))
        golden = row.get("answer") or row.get("answers") or ""
        lines += [f"### {cell(row.get('id'))}", "", f"- golden: {cell(golden)}",
                  f"- response: {cell(_snip(str(row.get('response', ''))))}"]  # fmt: skip
        lines += [_trace_line(name, found, str(row.get("response", ""))) for name, found in traces.items()]
        lines.append("")
    return lines


def _trace_line(metric: str, found: Mapping[str, Any], response: str) -> str:
    """A metric's trace in one list item: outcome, rule, the texts as it saw them, the matched span."""
    line = f"- `{metric}` **{found['outcome']}**: {cell(found['rule'])}"
    line += f" (saw golden “{cell(_snip(str(found.get('golden') or '')))}”"
    line += f", response “{cell(_snip(str(found.get('response') or '')))}”)"
    if found.get("span"):
        start, end = found["span"]
        line += f"; matched [{start}, {end}) “{cell(response[start:end])}”"
    return line


def _snip(text: str) -> str:
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"


def render_comparison_markdown(comparison: Mapping[str, Any]) -> str:
    """Two runs compared: per metric, overall and per domain, B - A with its interval and p-value."""
    a, b = comparison["a"]["source"], comparison["b"]["source"]
    counts = (
        f"{comparison['rows_in_both']} rows in both; {len(comparison['only_in_a'])} only in A, "
        f"{len(comparison['only_in_b'])} only in B"
    )
    lines = [
        f"# assay compare: A = {cell(a)}, B = {cell(b)}",
        "",
        f"{counts}. Method: {cell(comparison['method'])}.",
        "",
    ]
    lines += [f"> **Warning:** {cell(warning)}\n" for warning in comparison.get("warnings") or ()]
    header = ["scope", "n", "A", "B", "B - A", "95% CI", "p (McNemar)", "A only", "B only"]
    for name, metric in comparison["metrics"].items():
        rows = [[cell(d or "(no domain)"), *difference_cells(x)] for d, x in metric["domains"].items()]
        rows.append(["**combined**", *difference_cells(metric["combined"])])
        lines += [f"## `{name}`", "", *markdown_table(header, rows)]
    for side in ("only_in_a", "only_in_b"):
        if comparison[side]:
            lines += [f"Rows only in {side[-1].upper()}: {cell(', '.join(comparison[side]))}", ""]
        if comparison.get(f"metrics_{side}"):
            names = ", ".join(comparison[f"metrics_{side}"])
            lines += [f"Not compared, scored in {side[-1].upper()} only: {cell(names)}", ""]
    return "\n".join(lines).rstrip() + "\n"
