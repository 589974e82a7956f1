"""A harness run's HTML report (results.html): assay's HTML report of the run (every metric, the derived
``factual`` and ``citation`` among them, and the table of questions with their traces) with the run's
own sections after the overview: the headline, the gate, the hallucination breakdown, the rollups per
scope, category and route, and the signatures. Numbers carry their exact values in ``data-value`` (as
``_markup`` writes them) and rows say what they are with ``data-section`` and ``data-key``, so tests
read them back; every text from the data is escaped where it is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..scoring import ScoreRun
from ._format import interval_text, percent
from ._markup import attrs, element, number_cell, table
from .html import render_html
from .model import build_report
from .run_markdown import MEANINGS, ROLLUP_TITLES, accuracy_text, options_text

_TRACE_OUTCOMES = {"correct": "pass", "correct_ungrounded": "pass", "unscored": "unscored"}


def render_run_html(run: ScoreRun, results: Mapping[str, Any]) -> str:
    """The page of a run that has its outcomes (``with_outcomes``) and of its ``results_dict``."""
    rows = question_rows(run)
    sections = [
        ("run", "Run", _headline(results)),
        ("breakdown", "Hallucination breakdown", _breakdown(results["outcomes"], results["headline"])),
        *(
            (f"rollup-{by}", title, _rollup(by, title, results["rollups"][by]))
            for by, title in ROLLUP_TITLES.items()
        ),
        ("signatures", "Signatures", _signatures(results["signatures"])),
    ]
    report = build_report(run, rows)
    return render_html(report, rows, fields=run.dataset.fields, sections=sections)


def question_rows(run: ScoreRun) -> list[dict[str, Any]]:
    """The table of questions' rows: every verdict, each scoring metric's trace (``results.original_
    metrics``), and for ``factual`` its outcome and reason as its trace."""
    from ..harness.outcomes import FACTUAL, OUTCOME_COLUMN, REASON_COLUMN
    from ..harness.results import original_metrics
    from .rows import row_traces, verdict_rows

    original = original_metrics(run)  # held: the traces hold their run only weakly
    traced = row_traces(original)
    factual = run.metrics[FACTUAL].texts
    rows = []
    for index, (record, row) in enumerate(zip(run.records, verdict_rows(run, trace=False))):
        traces = json.loads(traced.json(index))
        outcome = factual[OUTCOME_COLUMN][index] or ""
        traces[FACTUAL] = {
            "outcome": _TRACE_OUTCOMES.get(outcome, "fail"),
            "rule": f"{outcome}: {factual[REASON_COLUMN][index]}",
            "golden": " | ".join(record.answers),
            "response": record.response,
            "span": None,
        }
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
        f"<tr{attrs(data_section='run', data_key=key)}><th scope=\"row\">{escape(label)}</th>"
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
    return f"{percent(rate)} ({refusal['declined_refusal_items']} of {refusal[of]})"


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


def _rollup(by: str, title: str, tallies: Mapping[str, Mapping[str, Any]]) -> str:
    rows = [
        f"<tr{attrs(data_section=f'rollup-{by}', data_key=name)}>{element('th', name, scope='row')}"
        + "".join(_tally_cells(tally))
        + "</tr>"
        for name, tally in tallies.items()
    ]
    header = [by, "n", "correct", "scored", "accuracy", "95% interval", "unscored"]
    return (
        f'<section id="rollup-{escape(by)}"><h2>{escape(title)} (factual)</h2>'
        + table(header, rows, class_="numbers")
        + "</section>"
    )


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
