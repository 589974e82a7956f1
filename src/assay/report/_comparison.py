"""The report's comparison of two runs (what ``assay compare A B`` returns): per metric, overall and per
domain, A's and B's accuracy on the rows both have, the difference with its paired 95% interval and
p-value, and the rows only one run passed; then the ids only one run has."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from .format import NA, percent
from .markup import element, number_cell, row_attrs, table
from .plot import COMBINED, NO_DOMAIN, Axis, Group, Point, dot_whisker_svg

HEADER = [
    "domain",
    "n",
    "A",
    "B",
    "B \u2212 A",
    "95% interval",
    "p-value",
    "pass in A only",
    "pass in B only",
]


def comparison_section(comparison: Mapping[str, Any]) -> str:
    a, b = comparison.get("a") or {}, comparison.get("b") or {}
    facts = [
        f"A: {a.get('source', '?')}",
        f"B: {b.get('source', '?')}",
        f"{comparison.get('rows_in_both', '?')} rows in both",
        str(comparison.get("method", "")),
    ]
    metrics = comparison.get("metrics") or {}
    tables = "".join(_metric_table(name, found) for name, found in metrics.items())
    chart = difference_chart_svg(comparison) if metrics else ""
    return (
        '<section id="comparison"><h2>Comparison of two runs</h2>'
        + f'<p class="facts">{" · ".join(escape(f) for f in facts if f)}</p>'
        + "".join(element("p", f"Warning: {w}", class_="warning") for w in comparison.get("warnings") or ())
        + _only("only in A", comparison.get("only_in_a") or [])
        + _only("only in B", comparison.get("only_in_b") or [])
        + f'<div class="chart">{chart}</div>{tables}</section>'
    )


def _only(label: str, ids: Sequence[Any]) -> str:
    listed = ", ".join(str(i) for i in ids) if ids else "none"
    field = label.replace(" ", "_")
    return element(
        "p",
        f"{label} ({len(ids)}): {listed}",
        class_="only",
        data_field=field,
        data_value=json.dumps(list(ids)),
    )


def _metric_table(name: str, found: Mapping[str, Any]) -> str:
    rows = [
        f'<tr{row_attrs("comparison", "domain", name, domain)}><th scope="row">{escape(domain or NO_DOMAIN)}'
        f"</th>{_cells(counts)}</tr>"
        for domain, counts in (found.get("domains") or {}).items()
    ]
    combined = found.get("combined")
    if combined is not None:
        rows.append(
            f'<tr{row_attrs("comparison", "combined", name)} class="combined"><th scope="row">combined</th>'
            f"{_cells(combined)}</tr>"
        )
    return element("h3", name) + table(HEADER, rows, class_="numbers comparison")


def _cells(counts: Mapping[str, Any]) -> str:
    interval = counts.get("interval")
    return "".join(
        [
            number_cell("n", counts.get("n"), _count(counts.get("n"))),
            number_cell("a_accuracy", counts.get("a_accuracy"), percent(counts.get("a_accuracy"))),
            number_cell("b_accuracy", counts.get("b_accuracy"), percent(counts.get("b_accuracy"))),
            number_cell("difference", counts.get("difference"), points(counts.get("difference"))),
            number_cell("interval", interval, _interval_points(interval)),
            number_cell("p_value", counts.get("p_value"), p_value(counts.get("p_value"))),
            number_cell("a_only", counts.get("a_only"), _count(counts.get("a_only"))),
            number_cell("b_only", counts.get("b_only"), _count(counts.get("b_only"))),
        ]
    )


def _count(value: Any) -> str:
    return NA if value is None else str(value)


def points(difference: float | None) -> str:
    """A difference of accuracies in percentage points, signed: +5.0 pp."""
    return NA if difference is None else f"{difference * 100:+.1f} pp"


def _interval_points(interval: Mapping[str, float] | None) -> str:
    if interval is None:
        return NA
    return f"{interval['low'] * 100:+.1f} to {interval['high'] * 100:+.1f} pp"


def p_value(value: float | None) -> str:
    return NA if value is None else ("<0.001" if value < 0.001 else f"{value:.3f}")


def difference_chart_svg(comparison: Mapping[str, Any]) -> str:
    """B minus A per domain and overall, each metric a line, whiskers for the paired 95% interval."""
    metrics = list(comparison["metrics"])
    domains: dict[str, None] = {}
    for name in metrics:
        domains |= dict.fromkeys(comparison["metrics"][name].get("domains") or {})
    groups = [Group(d or NO_DOMAIN, d, tuple(_point(comparison, m, d) for m in metrics)) for d in domains]
    groups.append(Group(COMBINED, None, tuple(_point(comparison, m, None) for m in metrics)))
    reach = max([0.05, *(abs(v) for g in groups for p in g.points for v in (p.low, p.high, p.value) if v)])
    edge = 0.05 if reach <= 0.05 else math.ceil(reach * 10) / 10  # out to 5 points, or the next 10
    axis = Axis(-edge, edge, (-edge, -edge / 2, 0.0, edge / 2, edge), _tick, points, reference=0.0)
    return dot_whisker_svg(
        groups, axis, metrics, "Difference in accuracy, B \u2212 A, with paired 95% intervals"
    )


def _tick(value: float) -> str:
    return f"{value * 100:+g} pp" if value else "0"


def _point(comparison: Mapping[str, Any], metric: str, domain: str | None) -> Point:
    found = comparison["metrics"][metric]
    counts = found.get("combined") if domain is None else (found.get("domains") or {}).get(domain)
    if not counts:
        return Point(metric, None, None, None, 0)
    interval = counts.get("interval") or {}
    return Point(
        metric, counts.get("difference"), interval.get("low"), interval.get("high"), counts.get("n") or 0
    )
