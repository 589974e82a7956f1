"""A harness run's own sections of its HTML report (results.html: ``render_html`` of the run's Report,
whose ``results_report.RunResults`` renders them here), put after the overview: the headline, the gate, the
hallucination breakdown, the rollups per scope, category and route, and the signatures. Every metric
(the derived ``factual`` and ``citation`` among them) and the table of questions with their traces
(``question_rows``) are the report's own. Numbers carry their exact values in ``data-value`` (as
``markup`` writes them) and rows say what they are with ``data-section`` and ``data-key``, so tests
read them back; every text from the data is escaped where it is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..report.format import interval_text, percent
from ..report.markup import attrs, element, number_cell, table
from ..report.plot import COMBINED, PERCENT_AXIS, Group, Point, dot_whisker_svg
from ..report.rows import row_traces, verdict_rows
from ..scoring import ScoreRun
from ..trace import trace_dicts
from .results_markdown import MEANINGS, ROLLUP_TITLES, accuracy_text, options_text


def run_sections(results: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The run's own sections of results.html, each (anchor, label in the navigation, its HTML), from
    its numbers (the report's ``RunResults``, as results.json holds them)."""
    return [
        ("run", "Run", _headline(results)),
        ("breakdown", "Hallucination breakdown", _breakdown(results["outcomes"], results["headline"])),
        *(
            (
                f"rollup-{by}",
                title,
                _rollup(by, title, results["rollups"][by], results["headline"]["factual"]),
            )
            for by, title in ROLLUP_TITLES.items()
        ),
        ("signatures", "Signatures", _signatures(results["signatures"])),
    ]


def question_rows(
    run: ScoreRun, traced_run: ScoreRun, more_traces: Sequence[Mapping[str, Mapping[str, Any]]]
) -> list[dict[str, Any]]:
    """The table of questions' rows of a run: every verdict, the traces of `traced_run`'s metrics (the
    run without the metrics that have no trace of their own) and each row's `more_traces` (a derived
    metric's, such as the harness's outcome as ``factual``'s trace)."""
    traced = row_traces(traced_run)
    rows = []
    for index, (row, more) in enumerate(zip(verdict_rows(run, trace=False), more_traces)):
        traces = trace_dicts(traced.traces(index))
        traces.update(trace_dicts(more))
        rows.append({**row, "trace": traces})
    return rows


def _headline(results: Mapping[str, Any]) -> str:
    headline, signatures = results["headline"], results["signatures"]
    refusal = headline["refusal"] or {}
    items = [
        ("questions", "questions run", headline["questions"], str(headline["questions"])),
        ("factual", "factual accuracy", headline["factual"], accuracy_text(headline["factual"])),
        ("citation", "citation accuracy", headline["citation"], accuracy_text(headline["citation"])),
        ("refusal_precision", "refusal precision", refusal.get("precision"), _rate(refusal, "declined")),
        ("refusal_recall", "refusal recall", refusal.get("recall"), _rate(refusal, "refusal_items")),
        ("blocked", "blocked", headline["blocked"], str(headline["blocked"])),
        ("system_errors", "system errors", headline["system_errors"], str(headline["system_errors"])),
        ("elapsed", "elapsed", headline["elapsed"], _seconds(headline["elapsed"])),
    ]
    rows = [
        f'<tr{attrs(data_section="run", data_key=key)}><th scope="row">{escape(label)}</th>'
        + number_cell(key, value, shown)
        + "</tr>"
        for key, label, value, shown in items
    ]
    rubric = f" with the rubric {signatures['rubric']}" if signatures.get("rubric") else ""
    graded = (
        "judged by " + ", ".join(signatures.get("judges") or []) + rubric
        if headline["judged"]
        else "graded deterministically only (no --judge)"
    )
    gate = results.get("gate")
    gate_html = ""
    if gate:
        lines = "".join(element("li", line) for line in gate["lines"])
        verdict = "passed" if gate["passed"] else "FAILED"
        gate_html = f'<h3{attrs(data_gate=verdict)}>Gate: {escape(verdict)}</h3><ul class="gate">{lines}</ul>'
    return (
        '<section id="run"><h2>Run</h2>'
        + table(["", "value"], rows, class_="numbers")
        + element("p", graded, class_="note", data_field="graded")
        + _grounding(headline.get("grounding"))
        + gate_html
        + "</section>"
    )


def _grounding(grounding: Mapping[str, Any] | None) -> str:
    """Which grounding checks ran, as a note under the headline ("" when grounded did not run)."""
    if not grounding:
        return ""
    return element("p", f"grounding: {grounding['checks']}", class_="note", data_field="grounding")


def _rate(refusal: Mapping[str, Any], of: str) -> str:
    if not refusal:
        return "not measured (no refusal metric)"
    rate = refusal["precision"] if of == "declined" else refusal["recall"]
    errors = (refusal.get("refusal_system_errors") or 0) if of == "refusal_items" else 0
    apart = f", {errors} system error{'s' if errors != 1 else ''}" if errors else ""
    return f"{percent(rate)} ({refusal['declined_refusal_items']} of {refusal[of]}{apart})"


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} s"


def _breakdown(outcomes: Mapping[str, int], headline: Mapping[str, Any]) -> str:
    total = headline["questions"]
    rows = [
        f"<tr{attrs(data_section='breakdown', data_key=name)}>{element('th', name, scope='row')}"
        + number_cell("items", count, str(count))
        + number_cell("share", count / total if total else None, percent(count / total if total else None))
        + element("td", MEANINGS.get(name, ""))
        + "</tr>"
        for name, count in outcomes.items()
    ]
    return (
        '<section id="breakdown"><h2>Hallucination breakdown</h2>'
        + table(["outcome", "items", "share", "meaning"], rows, class_="numbers")
        + "</section>"
    )


def _rollup(
    by: str, title: str, tallies: Mapping[str, Mapping[str, Any]], combined: Mapping[str, Any] | None
) -> str:
    rows = [
        f"<tr{attrs(data_section=f'rollup-{by}', data_key=name)}>{element('th', name, scope='row')}"
        + "".join(_tally_cells(tally))
        + "</tr>"
        for name, tally in tallies.items()
    ]
    header = [by, "n", "correct", "scored", "accuracy", "95% interval", "unscored"]
    return (
        f'<section id="rollup-{escape(by)}"><h2>{escape(title)} (factual)</h2>'
        + _rollup_chart(by, tallies, combined)
        + table(header, rows, class_="numbers")
        + "</section>"
    )


def _rollup_chart(
    by: str, tallies: Mapping[str, Mapping[str, Any]], combined: Mapping[str, Any] | None
) -> str:
    """Each value's factual accuracy with its 95% interval, and the run's own below them; none when there
    is only one value (its dot would repeat the run's)."""
    if len(tallies) < 2:
        return ""
    groups = [Group(name, name, (_point(tally),)) for name, tally in tallies.items()]
    if combined is not None:
        groups.append(Group(COMBINED, None, (_point(combined),)))
    title = f"Factual accuracy per {by}, with 95% intervals"
    chart = dot_whisker_svg(groups, PERCENT_AXIS, ["factual"], title)
    return f'<div class="chart" data-chart="rollup-{escape(by)}">{chart}</div>'


def _point(tally: Mapping[str, Any]) -> Point:
    interval = tally.get("interval") or {}
    return Point("factual", tally.get("accuracy"), interval.get("low"), interval.get("high"), tally["n"])


def _tally_cells(tally: Mapping[str, Any]) -> Sequence[str]:
    return [
        number_cell("n", tally["n"], str(tally["n"])),
        number_cell("correct", tally["correct"], str(tally["correct"])),
        number_cell("scored", tally["scored"], str(tally["scored"])),
        number_cell("accuracy", tally["accuracy"], percent(tally["accuracy"])),
        number_cell("interval", tally["interval"], interval_text(tally["interval"])),
        number_cell("unscored", tally["unscored"], str(tally["unscored"])),
    ]


def _signatures(signatures: Mapping[str, Any]) -> str:
    shown = {
        "system": signatures["system"],
        "system signature": signatures["system_signature"],
        "gold set": signatures["gold_path"],
        "gold sha256": signatures["gold_sha256"],
        "judges": ", ".join(signatures.get("judges") or []) or "none",
        "rubric": signatures.get("rubric") or "none",
        "sources": signatures.get("sources") or "none",
        "options": options_text(signatures.get("options") or {}),
        "started": signatures.get("started") or "n/a",
        "assay": signatures.get("assay") or "",
        **{f"metric {name}": text for name, text in signatures["metrics"].items()},
    }
    rows = [
        f"<tr{attrs(data_section='signatures', data_key=key)}>{element('th', key, scope='row')}"
        f"{element('td', str(value))}</tr>"
        for key, value in shown.items()
    ]
    return '<section id="signatures"><h2>Signatures</h2>' + table(["what", "signature"], rows) + "</section>"
