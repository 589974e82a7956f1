"""The report's table of questions: one ``<tbody>`` per row (its cells, then its traces, hidden until
asked for), so sorting moves a row and its traces together. The page's script sorts and filters it; the
table itself is complete HTML, readable with scripts off."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from .format import count
from .markup import attrs, element, json_text

# Where each part of a question is found when the caller does not say: the usual column names.
USUAL_COLUMNS = {
    "id": ("id",),
    "domain": ("domain", "Domain"),
    "question": ("question",),
    "golden": ("answers", "answer"),
    "response": ("response",),
}
OUTCOMES = {"pass": "pass", "soft_pass": "soft pass", "fail": "fail", "unscored": "unscored"}
SYMBOLS = {"pass": "\u2713", "soft_pass": "\u2248", "fail": "\u2717", "unscored": "\u2013"}
RANKS = {"unscored": -1.0, "fail": 0.0, "soft_pass": 0.5, "pass": 1.0}  # a verdict's place in a sort


PAGE_ROWS = 100  # rows on a page of the table; also the rows written as HTML for readers without scripts
OUTCOME_CODES = {outcome: code for code, outcome in enumerate(OUTCOMES)}


def questions_section(
    summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], fields: Mapping[str, str] | None
) -> str:
    """The table of questions. Every row is in one block of JSON (``rows_data``) that the page's script
    renders a page at a time, so a report of 100,000 rows stays light to open; the first page is also
    written as HTML, for readers without scripts."""
    metrics = list(summary["metrics"])
    columns = part_columns(rows, fields)
    agreement = any("agreement" in row for row in rows)
    header = _header(metrics, agreement)
    first = rows[:PAGE_ROWS]
    bodies = "".join(_question(index, row, columns, metrics, agreement) for index, row in enumerate(first))
    rest = (
        f'<p class="note">Without scripts, the first {len(first)} of {count(len(rows), "row")} are shown.</p>'
        if len(rows) > len(first)
        else ""
    )
    total = max(int((summary.get("rows") or {}).get("total") or 0), len(rows))
    data = json_text(rows_data(metrics, rows, columns, agreement) | {"total": total})
    pager = (
        '<div id="pager" class="pager" hidden><button type="button" class="previous">Previous</button>'
        '<span class="page-of"></span><button type="button" class="next">Next</button></div>'
    )
    return (
        '<section id="questions"><h2>Questions</h2>'
        + _filters(metrics, len(rows), total)
        + _selection_note(len(rows), total)
        + '<p class="note">Click a heading to sort, again to reverse; the arrow in a row shows how each '
        "metric decided it. \u2713 pass, \u2248 soft pass, \u2717 fail, \u2013 unscored; a graded metric "
        "shows its score.</p>"
        + f'<div class="scroll"><table id="questions-table" class="questions">{header}{bodies}</table></div>'
        + rest
        + pager
        + f'<template id="assay-rows">{data}</template>'
        + "</section>"
    )


def rows_data(
    metrics: Sequence[str],
    rows: Sequence[Mapping[str, Any]],
    columns: Mapping[str, str | None],
    agreement: bool,
) -> dict[str, Any]:
    """Every row for the page's script, compact (about 600 bytes a row on the example): a row is
    [id, domain, question, golden, response, agreement (or null), values, outcome codes, traces], a trace is
    [outcome code, rule (an index into `strings`), golden seen, response seen, span, score]; a text a
    metric saw the same as the metric before it is written 0, and the row's own text lowercased 1."""
    strings: dict[str, int] = {}
    found = []
    for index, row in enumerate(rows):
        traces = _traces(row.get("trace"))
        texts: list[str | None] = [_text(row.get(columns["id"] or "", index + 1))]
        texts += [
            _text(row.get(columns[part] or "")) for part in ("domain", "question", "golden", "response")
        ]
        texts.append((_text(row.get("agreement")) or None) if agreement else None)  # a slot always
        values = [_value(row.get(name)) for name in metrics]
        outcomes = [OUTCOME_CODES[outcome_of(row, name, traces.get(name))] for name in metrics]
        raw = {"golden": texts[3] or "", "response": texts[4] or ""}
        found.append([*texts, values, outcomes, _compact_traces(metrics, traces, strings, raw)])
    return {
        "metrics": list(metrics),
        "outcomes": list(OUTCOMES),
        "agreement": agreement,
        "page": PAGE_ROWS,
        "strings": list(strings),
        "rows": found,
    }


def _lowered(text: str | None, raw: str) -> str | int | None:
    """1 for a text that is the row's own, lowercased (the page's script makes it again); ASCII only,
    where Python and JavaScript lowercase alike."""
    if text is not None and text.isascii() and raw.isascii() and text == raw.lower():
        return 1
    return text


def _value(value: Any) -> bool | float | None:
    if value is None or isinstance(value, bool):
        return value
    return float(value) if isinstance(value, (int, float)) else None


def _compact_traces(
    metrics: Sequence[str], traces: Mapping[str, Any], strings: dict[str, int], raw: Mapping[str, str]
) -> list[Any]:
    compact: list[Any] = []
    before: dict[str, Any] = {"golden": None, "response": None}
    for name in metrics:
        trace = traces.get(name)
        if not trace:
            compact.append(0)
            continue
        rule = strings.setdefault(str(trace.get("rule", "")), len(strings))
        seen = []
        for key in ("golden", "response"):
            text = trace.get(key)
            seen.append(0 if text is not None and text == before[key] else _lowered(text, raw[key]))
            if text is not None:
                before[key] = text
        code = OUTCOME_CODES.get(str(trace.get("outcome")), OUTCOME_CODES["unscored"])
        compact.append([code, rule, *seen, trace.get("span") or 0, trace.get("score")])
    return compact


def part_columns(
    rows: Sequence[Mapping[str, Any]], fields: Mapping[str, str] | None
) -> dict[str, str | None]:
    """The column holding each part of a question (id, domain, question, golden, response), or None."""
    present = set(rows[0]) if rows else set()
    named = dict(fields or {})
    if "answers" in named:  # several golden answers: that column, not the single one
        named["golden"] = named["answers"]
    elif "answer" in named:
        named["golden"] = named["answer"]
    found: dict[str, str | None] = {}
    for part, usual in USUAL_COLUMNS.items():
        candidates = (named[part],) if part in named else usual
        found[part] = next((c for c in candidates if c in present), None)
    return found


def _selection_note(shown: int, total: int) -> str:
    """What the table holds when it is not every row (``report.shown``), and where the rest are."""
    if shown >= total:
        return ""
    return (
        f'<p class="note selection">This table shows {shown} of the run\'s {count(total, "row")}: the '
        "rows to review, then each metric's first rows of each verdict (pass, soft pass, fail, unscored) and "
        "of each agreement bucket, in input order, as many of each. Every row's verdicts are in "
        "<code>--out</code>, and <code>assay explain --id ID</code> gives any row's traces.</p>"
    )


def _filters(metrics: Sequence[str], shown: int, total: int) -> str:
    metric_options = '<option value="">any metric</option>' + "".join(
        element("option", name, value=name) for name in metrics
    )
    verdict_options = '<option value="">any verdict</option>' + "".join(
        element("option", label, value=outcome) for outcome, label in OUTCOMES.items()
    )
    return (
        '<div class="filters">'
        '<label>Search <input type="search" id="filter-text" '
        'placeholder="id, question, golden, response"></label>'
        f'<label>Metric <select id="filter-metric">{metric_options}</select></label>'
        f'<label>Verdict <select id="filter-verdict">{verdict_options}</select></label>'
        f'<span id="row-count" aria-live="polite">{row_count(shown, shown, total)}</span>'
        "</div>"
    )


def row_count(found: int, shown: int, total: int) -> str:
    """The table's count, as the page's script writes it: "12 of 56 rows", and, when the table holds
    some of the run's rows, "12 of 2000 rows shown, of 100000"."""
    text = f"{found} of {count(shown, 'row')}"
    return text if shown >= total else f"{text} shown, of {total}"


def _header(metrics: Sequence[str], agreement: bool) -> str:
    texts = ["id", "domain", "question", "golden", "response", *(["agreement"] if agreement else [])]
    cells = ['<th scope="col" class="expand-col"><span class="visually-hidden">traces</span></th>']
    cells += [_sortable(label, "text") for label in texts]
    cells += [_sortable(name, "number", metric=name) for name in metrics]
    return f"<thead><tr>{''.join(cells)}</tr></thead>"


def _sortable(label: str, kind: str, metric: str | None = None) -> str:
    button = f'<button type="button" class="sort">{escape(label)}</button>'
    found = attrs(data_column=label, data_type=kind, data_metric=metric, aria_sort="none")
    return f'<th scope="col"{found}>{button}</th>'


def _question(
    index: int,
    row: Mapping[str, Any],
    columns: Mapping[str, str | None],
    metrics: Sequence[str],
    agreement: bool,
) -> str:
    traces = _traces(row.get("trace"))
    response = _text(row.get(columns["response"] or ""))
    ident = _text(row.get(columns["id"] or "", index + 1))
    expand = (
        f'<td class="expand"><button type="button" class="expand" aria-expanded="false" '
        f'aria-label="traces of {escape(ident)}">\u25b8</button></td>'
    )
    parts = [_text_cell(ident, "id")]
    parts += [_text_cell(_text(row.get(columns[p] or "")), p) for p in ("domain", "question", "golden")]
    parts.append(_text_cell(response, "response"))
    if agreement:
        parts.append(_text_cell(_text(row.get("agreement")), "agreement"))
    parts += [_verdict_cell(row, name, traces.get(name)) for name in metrics]
    width = 1 + len(parts)
    trace_row = f'<tr class="traces" hidden><td colspan="{width}">{_trace_panel(traces, response)}</td></tr>'
    return (
        f'<tbody{attrs(data_id=ident)}><tr class="question">{expand}{"".join(parts)}</tr>{trace_row}</tbody>'
    )


def _text(value: Any, default: Any = "") -> str:
    """A cell's text: several golden answers joined with ' | ', as the traces join them."""
    if value is None or value == "":
        value = default
    if isinstance(value, (list, tuple)):
        return " | ".join(str(v) for v in value)
    return str(value)


def _text_cell(text: str, part: str) -> str:
    return element("td", text, class_=part)


def _traces(found: Mapping[str, Any] | None) -> dict[str, Any]:
    """A row's traces by metric, as dicts: a typed trace's (``trace.Trace.as_dict``, what
    ``verdict_rows`` gives), or a report row's dict as it is. (Read by its method, not its class: this
    leaf of the page imports nothing of the scoring.)"""
    return {
        metric: one.as_dict() if hasattr(one, "as_dict") else dict(one)
        for metric, one in (found or {}).items()
    }


def outcome_of(row: Mapping[str, Any], metric: str, trace: Mapping[str, Any] | None) -> str:
    """pass, soft_pass, fail or unscored: the trace says; without one, the verdict column does."""
    if trace and trace.get("outcome") in OUTCOMES:
        return str(trace["outcome"])
    value = row.get(metric)
    if row.get(f"{metric}_soft"):
        return "soft_pass"
    if value is None:
        return "unscored"
    return "pass" if value is True or (not isinstance(value, bool) and value == 1) else "fail"


def _verdict_cell(row: Mapping[str, Any], metric: str, trace: Mapping[str, Any] | None) -> str:
    value = row.get(metric)
    outcome = outcome_of(row, metric, trace)
    graded = isinstance(value, (int, float)) and not isinstance(value, bool)
    shown = f"{value:.3f}" if graded else SYMBOLS[outcome]
    sort = value if graded else RANKS[outcome]
    found = attrs(
        class_=f"verdict {outcome}",
        data_metric=metric,
        data_outcome=outcome,
        data_value=json.dumps(value),
        data_sort=json.dumps(sort),
        title=f"{metric}: {OUTCOMES[outcome]}",
    )
    return f"<td{found}>{escape(shown)}</td>"


def _trace_panel(traces: Mapping[str, Any], response: str) -> str:
    if not traces:
        return '<p class="note">No traces for this row.</p>'
    return '<div class="trace-list">' + "".join(_trace(m, t, response) for m, t in traces.items()) + "</div>"


def _trace(metric: str, trace: Mapping[str, Any], response: str) -> str:
    outcome = str(trace.get("outcome", ""))
    score = trace.get("score")
    title = f"{metric}: {OUTCOMES.get(outcome, outcome)}" + ("" if score is None else f" (score {score:.3f})")
    parts = [element("h4", title), element("p", str(trace.get("rule", "")), class_="rule")]
    marked = _marked(response, trace.get("span"))
    if marked is not None:
        parts.append(f'<p><span class="label">matched in the response</span> <q>{marked}</q></p>')
    for label, key in (
        ("golden, as the metric saw it", "golden"),
        ("response, as the metric saw it", "response"),
    ):
        if trace.get(key) is not None:
            parts.append(f'<p><span class="label">{label}</span> {element("q", str(trace[key]))}</p>')
    return f"<div{attrs(class_=f'trace {outcome}', data_metric=metric)}>{''.join(parts)}</div>"


def _marked(response: str, span: Any) -> str | None:
    """The response with the span [start, end) marked; each piece is escaped apart, so cutting the text
    can never make markup. None for no span, or one that does not fit the response."""
    if not (isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(i, int) for i in span)):
        return None
    start, end = span
    if not 0 <= start <= end <= len(response):
        return None
    return f"{escape(response[:start])}<mark>{escape(response[start:end])}</mark>{escape(response[end:])}"
