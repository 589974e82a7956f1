"""The report's table of questions: one ``<tbody>`` per row (its cells, then its traces, hidden until
asked for), so sorting moves a row and its traces together. The page's script sorts and filters it; the
table itself is complete HTML, readable with scripts off."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ._markup import attrs, element

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


def questions_section(
    summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], fields: Mapping[str, str] | None
) -> str:
    metrics = list(summary["metrics"])
    columns = part_columns(rows, fields)
    agreement = any("agreement" in row for row in rows)
    header = _header(metrics, agreement)
    bodies = "".join(_question(index, row, columns, metrics, agreement) for index, row in enumerate(rows))
    return (
        '<section id="questions"><h2>Questions</h2>'
        + _filters(metrics, len(rows))
        + '<p class="note">Click a heading to sort, again to reverse; the arrow in a row shows how each '
        "metric decided it. \u2713 pass, \u2248 soft pass, \u2717 fail, \u2013 unscored; a graded metric "
        "shows its score.</p>"
        + f'<div class="scroll"><table id="questions-table" class="questions">{header}{bodies}</table></div>'
        + "</section>"
    )


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


def _filters(metrics: Sequence[str], total: int) -> str:
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
        f'<span id="row-count" aria-live="polite">{total} of {total} rows</span>'
        "</div>"
    )


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


def _traces(found: Any) -> dict[str, Any]:
    """A row's traces by metric, from the JSON text of the ``trace`` column (or a dict already)."""
    if isinstance(found, str) and found:
        found = json.loads(found)
    return dict(found) if isinstance(found, Mapping) else {}


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
