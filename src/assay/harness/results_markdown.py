"""A harness run's numbers in Markdown (results.md's body: ``results_report.RunResults.markdown_lines``):
the seed's headline, the gate and what it needs, the hallucination breakdown, the rollups per scope,
category and route, the misses with their traces, and the signatures. Pure functions of the numbers
(``results.results_dict``).

Every text from the data (ids, questions, replies, reasons, traces, scopes, specs) goes through
``markup.cell`` or ``markup.code``, so a reply holding a link, HTML or a pipe renders as the text it
is (issue 9); the report's own markup uses no brackets, so nothing in it can be read as a link.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..report.format import DASH, interval_text, percent
from ..report.markup import cell, code, markdown_table

MISSES_SHOWN = 50  # misses written with their traces; the rest are counted
SNIPPET = 240
MEANINGS = {
    "correct": "right, and grounded when grounded ran (refusal items: declined)",
    "wrong_uncited": "wrong, with no citation",
    "wrong_cited": "wrong, citing a source: a hallucination with a citation",
    "correct_ungrounded": "right, but its citations or numbers are not grounded in the cited text",
    "refused_answerable": "declined an item the documents answer",
    "answered_refusal": "answered an item it should have declined",
    "blocked": "the system's guard blocked the reply to an answerable item",
    "unscored": "no trustworthy verdict (the reason is given per item)",
    "system_error": "the system failed: an exception, a timeout, a malformed reply",
}
ROLLUP_TITLES = {"scope": "Per scope", "category": "Per category", "route": "Per route"}


def run_markdown_lines(results: Mapping[str, Any]) -> list[str]:
    """results.md below its title: the run's numbers (``results.results_dict``) in Markdown."""
    signatures = results["signatures"]
    lines = _headline(results["headline"], signatures)
    if results.get("gate"):
        lines += _gate(results["gate"])
    lines += _breakdown(results["outcomes"], results["headline"]["questions"])
    for by, title in ROLLUP_TITLES.items():
        lines += _rollup(title, by, results["rollups"][by])
    lines += _misses([item for item in results["items"] if item["outcome"] != "correct"])
    return lines + _signatures(signatures)


def accuracy_text(tally: Mapping[str, Any] | None) -> str:
    """'87.9% (95% CI 80.4-92.8%), 94 of 107 scored correct, 0 unscored'; 'not measured' for None."""
    if tally is None:
        return "not measured"
    shown = f"{percent(tally['accuracy'])} (95% CI {interval_text(tally['interval'])})"
    return f"{shown}, {tally['correct']} of {tally['scored']} scored correct, {tally['unscored']} unscored"


def _headline(headline: Mapping[str, Any], signatures: Mapping[str, Any]) -> list[str]:
    judges = signatures.get("judges") or []
    graded = (
        f"judged by {', '.join(map(code, judges))}"
        + (f" with the rubric {code(signatures['rubric'])}" if signatures.get("rubric") else "")
        if headline["judged"]
        else "graded deterministically only (no --judge)"
    )
    elapsed = headline.get("elapsed")
    lines = [
        f"- questions run: {headline['questions']}",
        f"- factual accuracy: {accuracy_text(headline['factual'])}",
        f"- citation accuracy: {accuracy_text(headline['citation'])}"
        + (" (grounded, over the answerable items answered)" if headline["citation"] else " (no grounded)"),
        *_grounding(headline.get("grounding")),
        f"- {_refusal_text(headline['refusal'])}",
        f"- blocked: {headline['blocked']}",
        f"- system errors: {headline['system_errors']}",
        f"- elapsed: {'n/a' if elapsed is None else f'{elapsed:.1f} s'}",
        f"- {graded}",
        *([f"- {decided_text(headline)}"] if headline.get("decided_by") else []),
        "",
    ]
    return lines


def _grounding(grounding: Mapping[str, Any] | None) -> list[str]:
    """The line that says which grounding checks ran (none when grounded did not run)."""
    return [] if not grounding else [f"- grounding: {cell(grounding['checks'])}"]


ASKED = {"undecided": "only the items the matchers left unscored", "all": "every item, --judge-all"}


def decided_text(headline: Mapping[str, Any]) -> str:
    """'decided by: the matchers 18, the judge 3 (asked 3 items: only the items the matchers left
    unscored), the guard 1, the system 0'."""
    counts, asked = headline["decided_by"], headline.get("judge_asked")
    judge = f"the judge {counts.get('judge', 0)}" + (
        f" (asked {asked['items']} item{'' if asked['items'] == 1 else 's'}: {ASKED[asked['which']]})"
        if asked
        else ""
    )
    shown = [f"the matchers {counts.get('matchers', 0)}", judge]
    shown += [f"the {name} {counts.get(name, 0)}" for name in ("guard", "system")]
    return f"decided by: {', '.join(shown)}"


def _refusal_text(refusal: Mapping[str, Any] | None) -> str:
    if refusal is None:
        return "refusal precision and recall: not measured (no refusal metric)"
    hits = refusal["declined_refusal_items"]
    precision = f"{percent(refusal['precision'])} ({hits} of {refusal['declined']}"
    recall = f"{percent(refusal['recall'])} ({hits} of {refusal['refusal_items']} refusal items declined"
    errors = refusal.get("refusal_system_errors") or 0
    if errors:  # counted as not declined (results.refusal_rates says why), and said apart
        recall += f"; {errors} of them system errors, counted as not declined"
    return f"refusal precision: {precision} declined items were refusal items); refusal recall: {recall})"


def _gate(gate: Mapping[str, Any]) -> list[str]:
    verdict = "passed" if gate["passed"] else "FAILED"
    lines = [f"## Gate: {verdict}", ""]
    lines += [f"- {cell(line)}" for line in gate["lines"]]
    return [*lines, ""]


def _breakdown(outcomes: Mapping[str, int], total: int) -> list[str]:
    rows = [
        [code(name), str(count), percent(count / total if total else None), cell(MEANINGS.get(name, ""))]
        for name, count in outcomes.items()
    ]
    return ["## Hallucination breakdown", "", *markdown_table(["outcome", "items", "share", "meaning"], rows)]


def _rollup(title: str, by: str, tallies: Mapping[str, Mapping[str, Any]]) -> list[str]:
    header = [by, "n", "correct", "scored", "accuracy", "95% CI", "unscored"]
    rows = [_rollup_row(name, tally) for name, tally in tallies.items()]
    return [f"## {title} (factual)", "", *markdown_table(header, rows)]


def _rollup_row(name: str, tally: Mapping[str, Any]) -> list[str]:
    counts = [str(tally[key]) for key in ("n", "correct", "scored")]
    shown = [percent(tally["accuracy"]), interval_text(tally["interval"]), str(tally["unscored"])]
    return [cell(name), *counts, *shown]


def _misses(missed: Sequence[Mapping[str, Any]]) -> list[str]:
    shown = missed[:MISSES_SHOWN]
    lines = [f"## Misses ({len(shown)} of {len(missed)})", ""]
    for item in shown:
        lines += [
            f"### {cell(item['id'])}: {code(item['outcome'])}",
            "",
            f"- scope: {cell(item['scope'] or '(none)')}",
            f"- question: {cell(_snip(item['question']))}",
            f"- expected: {cell(_snip(item['expected_answer']))}",
            f"- response: {cell(_snip(item['response']))}",
            f"- why: {cell(item['reason'])}",
        ]
        if item.get("citations"):
            cited = ", ".join(_citation_text(c) for c in item["citations"])
            lines.append(f"- cites: {cell(cited)}")
        lines += [_trace_line(name, found) for name, found in (item.get("traces") or {}).items()]
        lines.append("")
    return lines


def _citation_text(citation: Mapping[str, Any]) -> str:
    page = citation.get("page")
    return str(citation["document"]) + ("" if page is None else f" p.{page}")


def _trace_line(metric: str, found: Mapping[str, Any]) -> str:
    line = f"- trace {code(metric)} **{cell(found['outcome'])}**: {cell(_snip(str(found['rule'])))}"
    span = found.get("span")
    if span:
        response = str(found.get("response") or "")
        line += f"; matched at {span[0]}{DASH}{span[1]}: “{cell(response[span[0] : span[1]])}”"
    return line


def _signatures(signatures: Mapping[str, Any]) -> list[str]:
    rows = [
        ["system", code(signatures["system"])],
        ["system signature", code(signatures["system_signature"])],
        ["gold set", f"{code(signatures['gold_path'])} sha256 {code(signatures['gold_sha256'])}"],
        ["judges", ", ".join(map(code, signatures.get("judges") or [])) or "none"],
        ["rubric", code(signatures["rubric"]) if signatures.get("rubric") else "none"],
        ["sources", code(signatures["sources"]) if signatures.get("sources") else "none"],
        ["options", cell(options_text(signatures.get("options") or {}))],
        ["started", cell(signatures.get("started") or "n/a")],
        ["assay", cell(signatures.get("assay") or "")],
    ]
    rows += [[f"metric {code(name)}", code(text)] for name, text in signatures["metrics"].items()]
    return ["## Signatures", "", *markdown_table(["what", "signature"], rows)]


_UNSET = {"scopes": "all", "limit": "none"}  # what a run option left unset means


def options_text(options: Mapping[str, Any]) -> str:
    """'concurrency=4; scopes=all; limit=none': a run's options in words, not Python's reprs."""
    return "; ".join(f"{key}={_option_value(key, value)}" for key, value in options.items()) or "none"


def _option_value(key: str, value: Any) -> str:
    if value is None or value == []:
        return _UNSET.get(key, "none")
    return ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def _snip(text: str) -> str:
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
