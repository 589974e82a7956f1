"""Two harness runs compared (``harness.run_compare.compare_runs``' dict), as text for the terminal and as
Markdown: the outcome classes in A and B, the transition matrix A -> B (the classes either run has; the
JSON has all of them), factual accuracy per scope with the paired tests, and the signatures that differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..terminal import one_line
from .format import text_table
from .markdown import render_comparison_markdown
from .markup import cell, code, markdown_table
from .text import render_comparison


def render_run_comparison(comparison: Mapping[str, Any]) -> str:
    a, b = comparison["a"]["source"], comparison["b"]["source"]
    lines = [
        one_line(f"assay compare (harness runs) · A = {a} · B = {b}"),
        f"{comparison['items_in_both']} items in both",
        *(one_line(f"WARNING: {warning}") for warning in comparison["warnings"]),
        *(one_line(f"signature differs: {line}") for line in comparison["signature_differences"]),
        "",
        "outcomes",
        *text_table(["outcome", "A", "B", "B - A"], _count_rows(comparison)),
        "",
        "transitions A -> B (rows: A's outcome; columns: B's)",
        *text_table(*_transition_table(comparison)),
        "",
    ]
    factual = dict(comparison["factual"], warnings=[])  # its warnings are in this report's, above
    paired = render_comparison(factual).split("\n", 1)[1]  # its title line names the run files again
    return "\n".join(lines) + "factual accuracy, paired\n" + paired


def render_run_comparison_markdown(comparison: Mapping[str, Any]) -> str:
    a, b = comparison["a"]["source"], comparison["b"]["source"]
    lines = [f"# assay compare (harness runs): A = {cell(a)}, B = {cell(b)}", ""]
    lines += [f"{comparison['items_in_both']} items in both.", ""]
    lines += [f"> **Warning:** {cell(warning)}\n" for warning in comparison["warnings"]]
    if comparison["signature_differences"]:
        lines += ["## Signatures that differ", ""]
        lines += [f"- {cell(line)}" for line in comparison["signature_differences"]] + [""]
    rows = [[code(row[0]), *row[1:]] for row in _count_rows(comparison)]
    lines += ["## Outcomes", "", *markdown_table(["outcome", "A", "B", "B - A"], rows)]
    header, matrix = _transition_table(comparison)
    lines += ["## Transitions A -> B", "", "Rows: A's outcome; columns: B's.", ""]
    lines += markdown_table([cell(h) for h in header], [[code(r[0]), *r[1:]] for r in matrix])
    factual = render_comparison_markdown(dict(comparison["factual"], warnings=[]))
    body = factual.split("\n", 2)[2] if factual.startswith("# ") else factual  # its own title dropped
    return "\n".join(lines) + "\n## Factual accuracy, paired\n\n" + body


def _count_rows(comparison: Mapping[str, Any]) -> list[list[str]]:
    return [
        [name, str(found["a"]), str(found["b"]), f"{found['b'] - found['a']:+d}"]
        for name, found in comparison["outcomes"].items()
    ]


def _transition_table(comparison: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The matrix over the classes that occur in A or B, as (header, rows)."""
    present = [name for name, found in comparison["outcomes"].items() if found["a"] or found["b"]]
    transitions = comparison["transitions"]
    rows = [[x, *(str(transitions[x][y]) for y in present)] for x in present]
    return ["A \\ B", *present], rows
