"""The HTML report: one self-contained file (inline CSS, JS and SVG; nothing fetched) with each metric's
accuracy per domain as a table and a chart, the protocols' agreement, a sortable, filterable table of
every question with its traces, and the report's sections (``report/sections.py``): a harness run's
numbers, the comparison of two runs.

Every string from the data is escaped where it is written (``html.escape`` for text and attributes,
JSON escapes inside the one data ``<script>``), and the page's Content-Security-Policy runs only its own
script and style, by hash: a response holding ``<script>`` shows as text, and would not run even if an
escape were missed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from .._gc import collection_paused
from .._version import __version__
from ..outputs import check_writable, write_text
from ..scorer_registry import default_pair
from ..summary import BUCKETS
from ._questions import questions_section
from .format import blank_text, count, interval_text, mean_interval_text, mean_text, percent
from .markup import csp_hash, element, json_script, number_cell, row_attrs, table, template
from .model import Report, Row
from .plot import NO_DOMAIN, accuracy_chart_svg
from .sections import BODY, LEAD, HtmlPart

BUCKET_NOTES = {
    "both_pass": "both protocols pass",
    "both_fail": "both fail",
    "exact_only": "the golden answer's characters occur, not all its words (inside a longer word, often)",
    "overlap_only": "every golden word occurs, not as the golden phrase: check by hand",
}


def render_html(report: Report) -> str:
    """The report as one HTML page: the overview, the report's lead sections (a harness run's numbers, a
    comparison of two runs), each metric, the body sections (a run scorer's accounting), the agreement,
    the rows to review and the table of questions (the report's rows: ``build_report(run)``)."""
    with collection_paused():  # many small containers, no cycle: beside a large run, see _gc
        return _render(report)


def _render(report: Report) -> str:
    summary = report.as_dict()
    lead, body = _parts(report, LEAD), _parts(report, BODY)
    # The report's lead (a harness run's headline and outcomes, a comparison) comes before the overview of
    # every metric's accuracy: it is what the reader came for.
    parts = [*(part.html for part in lead), _overview(summary)]
    parts += [_metric_section(report, name) for name in report.metrics]
    parts += [part.html for part in body]
    if summary.get("agreement"):
        parts.append(_agreement_section(summary["agreement"]))
    if (summary.get("review") or {}).get("rows"):
        parts.append(_review_section(summary["review"]))
    parts.append(questions_section(summary, [row_dict(row) for row in report.rows], None))
    data = json_script("assay-summary", _page_summary(summary))
    data += "".join(found.html_data() for found in report.sections)
    body_html = _header(summary, _links(lead), _links(body)) + "<main>" + "".join(parts) + "</main>" + data
    return _page(f"assay report: {summary.get('source', '')}", body_html)


LISTED_IDS = 100  # ids of rows to review the page lists; a larger run's others are counted


def _page_summary(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    """The summary as the page holds it for machines: as --json writes it, but for a long list of ids
    to review (a large run's overlap-only rows), its first LISTED_IDS and their count, ``review_ids_total``
    (the page stays bounded; --json and --out's agreement column have them all)."""
    agreement = summary.get("agreement")
    if not agreement or len(agreement.get("review_ids") or ()) <= LISTED_IDS:
        return summary
    ids = agreement["review_ids"]
    cut = {**agreement, "review_ids": ids[:LISTED_IDS], "review_ids_total": len(ids)}
    return {**summary, "agreement": cut}


def _parts(report: Report, place: str) -> list[HtmlPart]:
    return [part for found in report.placed(place) for part in found.html_parts()]


def _links(parts: Sequence[HtmlPart]) -> list[tuple[str, str]]:
    """The navigation's links to the parts that have a label, in order."""
    return [(part.anchor, part.label) for part in parts if part.label is not None]


def write_html(path: str | Path, report: Report) -> Path:
    return write_text(check_writable(path), render_html(report))


def row_dict(row: Row) -> dict[str, Any]:
    """A row of the report model under the usual column names, as the table of questions reads it."""
    soft = {f"{name}_soft": value for name, value in row.soft.items()}
    parts = {"id": row.id, "domain": row.domain, "question": row.question, "answers": list(row.golden)}
    agreement = {} if row.agreement is None else {"agreement": row.agreement}
    return {**parts, "response": row.response, **row.verdicts, **soft, **agreement, "trace": dict(row.traces)}


def _page(title: str, body: str) -> str:
    css, script = template("report.css"), template("report.js")
    # Nothing may be fetched (default-src 'none'), and only this script and this style may run.
    policy = f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(css)}"
    values = {
        "policy": escape(policy),
        "title": escape(title),
        "version": escape(__version__),
        "css": css,
        "body": body,
        "script": script,
    }
    # One pass, so text put in is never read again as a placeholder.
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], template("report.html"))


def _header(
    summary: Mapping[str, Any], lead: Sequence[tuple[str, str]] = (), body: Sequence[tuple[str, str]] = ()
) -> str:
    counts = summary.get("rows", {})
    limit = summary["signature"].get("limit")
    facts = [
        count(counts.get("total", 0), "row") + (f" (the first {limit} only)" if limit else ""),
        blank_text(counts.get("blank", 0), counts.get("blocked", 0)),
        f"intervals: {summary['signature'].get('intervals', '')}",
        f"assay {summary['signature'].get('assay', __version__)}",
    ]
    links = [*lead, ("overview", "Overview"), *((f"metric-{name}", name) for name in summary["metrics"])]
    links += body
    links += [("agreement", "Agreement")] if summary.get("agreement") else []
    links += [("review", "Rows to review")] if (summary.get("review") or {}).get("rows") else []
    links += [("questions", "Questions")]
    nav = "".join(f'<a href="#{escape(anchor)}">{escape(label)}</a>' for anchor, label in links)
    return (
        f'<header><h1>assay report <span class="source">{escape(str(summary.get("source", "")))}</span></h1>'
        f'<p class="facts">{" · ".join(map(escape, facts))}</p>{_warnings(counts)}<nav>{nav}</nav></header>'
    )


def _warnings(counts: Mapping[str, Any]) -> str:
    """What the text report warns about on stderr: facts about the input that change what numbers mean."""
    found = []
    empty = counts.get("empty_golden_ids") or []
    if empty:
        found.append(
            f"{count(len(empty), 'row')} with an empty golden answer, which the original evaluation scripts "
            "score correct: " + ", ".join(empty)
        )
    for column, ids in (counts.get("null_cells") or {}).items():
        found.append(f"column '{column}' is empty (NaN/None) in {count(len(ids), 'row')}: {', '.join(ids)}")
    items = "".join(element("li", text) for text in found)
    return f'<ul class="warnings">{items}</ul>' if found else ""


def _overview(summary: Mapping[str, Any]) -> str:
    columns = _columns([metric["combined"] for metric in summary["metrics"].values()])
    rows = []
    for name, metric in summary["metrics"].items():
        link = f'<th scope="row"><a href="#metric-{escape(name)}">{escape(name)}</a></th>'
        cells = _tally_cells(metric["combined"], columns)
        rows.append(f"<tr{row_attrs('overview', 'combined', name)}>{link}{cells}</tr>")
    header = ["metric", *(COLUMNS[c] for c in columns)]
    return (
        '<section id="overview"><h2>Accuracy, all rows</h2>'
        + table(header, rows, class_="numbers")
        + '<p class="note">Accuracy leaves unscored rows out; the interval is the 95% interval of the '
        "accuracy. A graded metric's mean score is in <em>mean</em>.</p></section>"
    )


COLUMNS = {  # a tally's field: its column's heading
    "n": "n",
    "passed": "passed",
    "accuracy": "accuracy",
    "interval": "95% interval",
    "mean": "mean",
    "mean_interval": "mean's 95% interval",
    "soft": "soft passes",
    "accuracy_with_soft": "with soft",
    "blank": "blank",
    "unscored": "unscored",
}
OPTIONAL = ("mean", "mean_interval", "soft", "accuracy_with_soft")  # only for metrics that have them


def _columns(tallies: Sequence[Mapping[str, Any]]) -> list[str]:
    return [c for c in COLUMNS if c not in OPTIONAL or any(c in tally for tally in tallies)]


def _tally_cells(tally: Mapping[str, Any], columns: Sequence[str]) -> str:
    """The tally's numbers in `columns`; a field it does not have (another metric's mean) is empty."""
    return "".join(_tally_cell(field, tally) if field in tally else "<td></td>" for field in columns)


def _tally_cell(field: str, tally: Mapping[str, Any]) -> str:
    value = tally[field]
    if field == "interval":
        return number_cell(field, value, interval_text(value))
    if field == "mean_interval":
        return number_cell(field, value, mean_interval_text(value))
    if field in ("accuracy", "accuracy_with_soft"):
        return number_cell(field, value, percent(value))
    if field == "mean":
        return number_cell(field, value, mean_text(value))
    return number_cell(field, value, str(value))


def _metric_section(report: Report, name: str) -> str:
    metric = report.metrics[name].as_dict()
    combined = metric["combined"]
    columns = _columns([combined, *metric["domains"].values()])
    headline = _headline(combined)
    rows = [
        f'<tr{row_attrs("metric", "domain", name, domain)}><th scope="row">{escape(domain or NO_DOMAIN)}</th>'
        f"{_tally_cells(tally, columns)}</tr>"
        for domain, tally in metric["domains"].items()
    ]
    rows.append(
        f'<tr{row_attrs("metric", "combined", name)} class="combined"><th scope="row">combined</th>'
        f"{_tally_cells(combined, columns)}</tr>"
    )
    header = ["domain", *(COLUMNS[c] for c in columns)]
    return (
        f'<section id="metric-{escape(name)}" class="metric"><h2>{escape(name)}</h2>'
        f'<p class="headline">{escape(headline)}</p>'
        f'<p class="signature"><code>{escape(str(metric.get("signature", "")))}</code></p>'
        f'<div class="split">{_metric_chart(report, name)}'
        f"{table(header, rows, class_='numbers')}</div></section>"
    )


def _metric_chart(report: Report, name: str) -> str:
    """The metric's chart per domain with the combined row; none when there is one domain only, whose dot
    would only repeat the combined one."""
    if len(report.metrics[name].domains) < 2:
        return ""
    return f'<div class="chart">{accuracy_chart_svg(report, [name])}</div>'


def _headline(combined: Mapping[str, Any]) -> str:
    """A metric's number over all rows: a graded metric's mean score (its accuracy counts only perfect
    scores, so it would read as 0% on sentence answers), else the accuracy; with its 95% interval."""
    scored = combined["n"] - combined["unscored"]
    if "mean" in combined:
        interval = mean_interval_text(combined.get("mean_interval"))
        return (
            f"mean {mean_text(combined['mean'])} (95% interval {interval}) over "
            f"{count(scored, 'scored row')}; {combined['passed']} scored in full"
        )
    return (
        f"accuracy {percent(combined['accuracy'])} (95% interval {interval_text(combined.get('interval'))}), "
        f"{combined['passed']} of {count(scored, 'scored row')} passed"
    )


def _agreement_section(agreement: Mapping[str, Any]) -> str:
    buckets = agreement.get("buckets") or BUCKETS
    declared = default_pair()
    first, second = agreement.get("pair") or declared or ("", "")
    seed_pair = (first, second) == declared
    bucket_notes = (
        BUCKET_NOTES
        if seed_pair
        else dict(
            zip(
                buckets,
                (
                    "both pass",
                    "both fail",
                    f"{first} passes, {second} fails",
                    f"{second} passes, {first} fails",
                ),
            )
        )
    )

    def cells(counts: Mapping[str, int]) -> str:
        return "".join(number_cell(b, counts.get(b, 0), str(counts.get(b, 0))) for b in buckets)

    rows = [
        f'<tr{row_attrs("agreement", "domain", None, domain)}><th scope="row">{escape(domain or NO_DOMAIN)}'
        f"</th>{cells(counts)}</tr>"
        for domain, counts in agreement["domains"].items()
    ]
    rows.append(
        f'<tr{row_attrs("agreement", "overall")} class="combined"><th scope="row">overall</th>'
        f"{cells(agreement['overall'])}</tr>"
    )
    notes = "".join(f"<dt>{escape(b)}</dt><dd>{escape(bucket_notes[b])}</dd>" for b in buckets)
    return (
        f'<section id="agreement"><h2>Agreement: {escape(first)} and {escape(second)}</h2>'
        + table(["domain", *buckets], rows, class_="numbers")
        + f'<dl class="buckets">{notes}</dl>'
        + _examples(agreement.get("examples") or {})
        + (_review(agreement.get("review_ids") or []) if seed_pair else "")
        + "</section>"
    )


def _examples(examples: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    rows = [
        f"<tr>{element('td', bucket)}{element('td', str(found.get('id', '')))}"
        f"{element('td', str(found.get('answer', '')))}{element('td', str(found.get('response', '')))}</tr>"
        for bucket, listed in examples.items()
        for found in listed
    ]
    if not rows:
        return ""
    return "<h3>Examples</h3>" + table(["bucket", "id", "golden", "response"], rows, class_="examples")


def _review(ids: Sequence[str]) -> str:
    if not ids:
        return ""
    listed = ", ".join(escape(str(i)) for i in ids[:LISTED_IDS])
    if len(ids) > LISTED_IDS:
        listed += f" and {len(ids) - LISTED_IDS} more (the <code>agreement</code> column of --out marks each)"
    return (
        f'<p class="review">To review by hand ({count(len(ids), "overlap-only row")}: every golden word is '
        f"there, not the golden phrase; a paraphrase or a different claim): {listed}</p>"
    )


def _review_section(review: Mapping[str, Any]) -> str:
    """The rows a person should look at, each with why (the report model's ``review``)."""
    listed = review["rows"]
    rows = [f"<tr>{element('td', str(row['id']))}{element('td', str(row['why']))}</tr>" for row in listed]
    return (
        f'<section id="review"><h2>Rows to review</h2><p>{len(listed)} of {review["total"]} rows: where '
        "the agreement pair splits, where a matcher passed a response with a negation, contrast or hedge "
        f"cue, and where a matcher and the judge disagree.</p>"
        + table(["id", "why"], rows, class_="examples")
        + "</section>"
    )
