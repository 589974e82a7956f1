"""Gold items from verified claims and question templates: the gold set, and the report of its making.

One item per (claim, question variant) for each claim whose quote was ``found`` in its own document and
whose value types under its template (``values.typed_value``). An item carries the typed value, the
answer written from it (``values.render_answer``), a hard-fact pattern (``values.expected_regex``) and
where the quote is: document, file, hash, pages, span in the extracted text, the passage as extracted,
and the cascade level that found it. A pattern is tried through the real ``hard_fact`` scorer (its
folding and whole-word boundaries): it must match the item's answer and every answer variant, and no
near miss; an item failing that is dropped with the reason, never written.

Refusal items (``refusals=True``): each refusal template asked of each facts file it applies to,
``expected_refusal: true``, with no source, value or pattern.

An item's ``id`` is a hash of its scope (the facts' document id), field and question template, so it
stays put when other items come and go. Items are sorted by id; nothing in them depends on the time.
Every claim that gives no item is in the report with the reason.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..documents import Document
from ..errors import AssayError
from ..report.markup import cell
from ..scorers.hard_fact import HARD_FACT, pattern_of, search
from ..text.pattern_size import shown
from ..values import Value, answer_variants, expected_regex, near_misses, render_answer
from .checks import claim_value
from .claims import Verdict, Verification, verification_report
from .coverage import gold_coverage
from .coverage_report import coverage_json, coverage_markdown
from .facts import FactsFile
from .facts import shown as shown_value
from .templates import FieldTemplate, Templates, ask, category_of, template_for

ID_LENGTH = 16  # hex digits of sha256: 64 bits, no collision in any gold set people build by hand


@dataclass(frozen=True)
class Skip:
    """A claim (or one of its question variants) that gives no gold item, and why."""

    document: str
    field: str
    reason: str
    question: str | None = None


@dataclass(frozen=True)
class GoldBuild:
    """The gold items (sorted by id), what gave none, and the verification they came from."""

    verification: Verification
    items: tuple[dict[str, Any], ...]
    skipped: tuple[Skip, ...]
    templates: str | None = None  # the template file, or None: templates inferred from the claims


def item_id(scope: str, field: str, template: str) -> str:
    """A stable id: the hash of the scope, the field and the question template (not the filled text)."""
    return hashlib.sha256(f"{scope}\x1f{field}\x1f{template}".encode()).hexdigest()[:ID_LENGTH]


def build_gold(
    verification: Verification, templates: Templates | None, *, refusals: bool = False
) -> GoldBuild:
    """The gold set from a verification: items for found claims, refusal items on request."""
    files = {file.path: file for file in verification.facts}
    items: dict[str, dict[str, Any]] = {}
    asked_by: dict[str, Verdict] = {}  # the claim each item was made from
    skipped: list[Skip] = []
    for verdict in verification.verdicts:
        template = template_for(verdict.claim, templates)
        made, missed = claim_items(verdict, template, files[verdict.claim.facts_file], verification.sources)
        skipped += missed
        for item in made:
            if item["id"] in items:
                reason = _asked_twice(items[item["id"]], asked_by[item["id"]], item)
                skipped.append(Skip(item["scope"], item["field"], reason, item["question"]))
            else:
                items[item["id"]] = item
                asked_by[item["id"]] = verdict
    if refusals and templates is not None:
        # A facts file with no document of its own has nothing to refuse from: its scope is not asked.
        flagged = {flag.facts_file for flag in verification.flags}
        answerable = [file for file in verification.facts if file.path not in flagged]
        for item in refusal_items(answerable, templates):
            items.setdefault(item["id"], item)
        skipped += unasked_refusals(verification.facts, templates)
    ordered = tuple(items[key] for key in sorted(items))
    return GoldBuild(verification, ordered, tuple(skipped), templates.path if templates else None)


def _asked_twice(kept: dict[str, Any], first: Verdict, item: dict[str, Any]) -> str:
    """Why a second claim's item is dropped: which claim asked it first, and whether the two agree (a
    field written twice for one document, in one facts file or two, is either a copy or a contradiction)."""
    place = f"{first.claim.facts_file}: {first.claim.where}"
    if (
        kept["expected_value"] == item["expected_value"]
        and kept["expected_answer"] == item["expected_answer"]
    ):
        return f"the same question twice (first from {place}, with the same answer)"
    return (
        f"the same question twice, with another answer: {shown_value(item['expected_answer'])} here, "
        f"{shown_value(kept['expected_answer'])} from {place}; the facts contradict each other"
    )


def claim_items(
    verdict: Verdict, template: FieldTemplate | None, facts: FactsFile, sources: Mapping[str, Document]
) -> tuple[list[dict[str, Any]], list[Skip]]:
    """The items one claim gives (one per question variant), or the reason it gives none."""
    claim = verdict.claim
    reason = _no_item_reason(verdict, template)
    if reason is not None or template is None:
        return [], [Skip(claim.document, claim.field, reason or "no template for the field")]
    try:
        value = claim_value(claim, template)
    except ValueError as exc:
        reason = f"the value {shown_value(claim.value)} does not type: {shown_value(str(exc))[1:-1]}"
        return [], [Skip(claim.document, claim.field, reason)]
    answer = render_answer(value, yes=template.yes, no=template.no, labels=template.labels)
    pattern = expected_regex(value)
    try:
        problem = pattern_problem(pattern, value, answer) if pattern is not None else None
    except AssayError as exc:  # a pattern too large to compile (a value or unit of thousands of characters)
        problem = f"{claim.facts_file}: {claim.where}: no safe expected_regex: {exc.what}"
    if problem is not None:
        return [], [Skip(claim.document, claim.field, problem)]
    document = sources[verdict.document or ""]
    made = [
        _item(verdict, template, variant, value, answer, pattern, facts, document)
        for variant in template.questions
    ]
    return made, []


def _no_item_reason(verdict: Verdict, template: FieldTemplate | None) -> str | None:
    if verdict.status != "found":
        why = f": {verdict.reason}" if verdict.reason else ""
        return f"status {verdict.status}{why}"
    if template is None:
        return "no template for the field"
    return None


def hard_fact_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a text matches `pattern` as the hard_fact scorer matches it: its folding of the text, its
    whole-word and whole-number boundaries, its size limit (compiled and checked once)."""
    compiled = pattern_of(pattern, "a generated expected_regex")
    return lambda text: search(compiled, HARD_FACT.view(text)) is not None


def pattern_problem(pattern: str, value: Value, answer: str) -> str | None:
    """Why a generated pattern is unsafe: it misses its own answer (or a variant), or hits a near miss."""
    matches = hard_fact_matcher(pattern)
    for wanted in dict.fromkeys([answer, *answer_variants(value)]):
        if not matches(wanted):
            return f"the expected_regex {shown(pattern)} does not match its own answer {wanted!r}"
    for miss in near_misses(value):
        if matches(miss):
            return f"the expected_regex {shown(pattern)} matches the near miss {miss!r}"
    return None


def _item(
    verdict: Verdict,
    template: FieldTemplate,
    variant: str,
    value: Value,
    answer: str,
    pattern: str | None,
    facts: FactsFile,
    document: Document,
) -> dict[str, Any]:
    claim, match = verdict.claim, verdict.match
    assert match is not None  # a found claim has its match
    return {
        "id": item_id(claim.document, claim.field, variant),
        "scope": claim.document,
        "field": claim.field,
        "question": ask(variant, title=facts.title, document=facts.document),
        "expected_answer": answer,
        "expected_value": value.as_json(),
        "expected_regex": pattern,
        "answer_type": template.answer_type,
        "category": category_of(template, claim),
        "expected_refusal": False,
        "source": {
            "document": document.id,
            "title": facts.title,  # how a reply may name the document in a citation
            "path": document.path,
            "sha256": document.sha256,
            "page": match.page,
            "end_page": match.end_page,
            "span": list(match.span),
            # The quote as verified (its note stripped): searched again, it is found where `span` says,
            # at `match_level` (assay lint --sources does that); the span shows the extracted text.
            "quote": verdict.quote,
            "match_level": match.level,
        },
    }


def refusal_items(facts: Sequence[FactsFile], templates: Templates) -> list[dict[str, Any]]:
    """Each refusal template asked of each facts file it applies to."""
    return [
        {
            "id": item_id(file.document, "", refusal.question),
            "scope": file.document,
            "field": None,
            "question": ask(refusal.question, title=file.title, document=file.document),
            "expected_answer": refusal.answer,
            "expected_value": None,
            "expected_regex": None,
            "answer_type": None,
            "category": refusal.category,
            "expected_refusal": True,
            "source": None,
        }
        for file in facts
        for refusal in templates.refusals
        if refusal.applies_to(file.document)
    ]


def unasked_refusals(facts: Sequence[FactsFile], templates: Templates) -> list[Skip]:
    """The refusal templates that apply to no facts document: a mistyped id or pattern would otherwise
    make no item without a word."""
    documents = sorted({file.document for file in facts})
    return [
        Skip(
            "",
            refusal.name,
            f"the refusal's documents {list(refusal.documents)} match no facts document "
            f"(the facts are about: {', '.join(documents)})",
            refusal.question,
        )
        for refusal in templates.refusals
        if not any(refusal.applies_to(document) for document in documents)
    ]


def gold_jsonl(build: GoldBuild) -> str:
    """The gold file's text: one item per line, sorted by id, keys in a fixed order."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in build.items)


def item_counts(build: GoldBuild) -> dict[str, Any]:
    """Items overall and per scope, and how many are refusals."""
    scopes = Counter(item["scope"] for item in build.items)
    refusal = sum(bool(item["expected_refusal"]) for item in build.items)
    return {"total": len(build.items), "refusals": refusal, "by_document": dict(sorted(scopes.items()))}


def gold_report(build: GoldBuild, *, coverage: bool = True) -> dict[str, Any]:
    """The verification report, with the items made, every claim or question that gave none, and (unless
    `coverage` is False) what the items do not test of the documents (``coverage.gold_coverage``)."""
    report = verification_report(build.verification)
    report["templates"] = build.templates
    report["items"] = item_counts(build)
    report["skipped"] = [
        {"document": skip.document, "field": skip.field, "reason": skip.reason, "question": skip.question}
        for skip in build.skipped
    ]
    if coverage:
        report["coverage"] = build_coverage(build)
    return report


def build_coverage(build: GoldBuild) -> dict[str, Any]:
    """The coverage of the build's sources by its items, with the facts' fields that made no item."""
    verification = build.verification
    found = gold_coverage(build.items, verification.sources, facts=verification.facts, own=verification.own)
    return coverage_json(found)


# --- Markdown ----------------------------------------------------------------------------------------


class Strong(str):
    """A cell the report itself writes in bold (the total row): its text escaped, then made bold; the
    asterisks escaped with it would show literally."""


def _cell(value: Any) -> str:
    """A table cell: one line, long text cut, and text from the facts made inert (Markdown escaped)."""
    text = "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    escaped = cell(text if len(text) <= 80 else text[:79] + "…")
    return f"**{escaped}**" if isinstance(value, Strong) else escaped


def flag_lines(flags: Sequence[dict[str, Any]]) -> list[str]:
    """The flagged facts files as a Markdown list, their names and messages escaped like cells."""
    return [f"- **{flag['code']}** {cell(flag['facts_file'])}: {cell(flag['message'])}" for flag in flags]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return [*lines, ""]


def _counts_table(counts: dict[str, Any]) -> list[str]:
    first = counts["total"]
    statuses, levels = list(first["by_status"]), list(first["by_level"])
    rows = [
        [name, tally["claims"], *tally["by_status"].values(), *tally["by_level"].values()]
        for name, tally in [*counts["by_document"].items(), (Strong("total"), first)]
    ]
    return markdown_table(["document", "claims", *statuses, *levels], rows)


def _section(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return [f"## {title}", "", *(markdown_table(header, rows) if rows else ["None.", ""])]


def _picked(entries: Sequence[dict[str, Any]], keys: Sequence[str]) -> list[list[Any]]:
    return [[entry[key] for key in keys] for entry in entries]


def report_markdown(report: dict[str, Any]) -> str:
    """The gold report (``gold_report``) or the verification report as Markdown."""
    lines = ["# Gold build report", "", "## Claims by status and by match level", ""]
    lines += _counts_table(report["counts"])
    if "items" in report:
        items = report["items"]
        lines += [f"Gold items: {items['total']} ({items['refusals']} refusals).", ""]
        lines += markdown_table(["document", "items"], list(items["by_document"].items()))
    flags = flag_lines(report["file_flags"])
    lines += ["## Facts files flagged", "", *(flags or ["None."]), ""]
    problems = _picked(report["source_problems"], ["path", "reason"])
    lines += _section("Source files that could not be read", ["file", "why"], problems)
    documents = [
        [d["id"], d["pages"], sum(d["characters_per_page"]), d["encryption"] or "none",
         d["empty_pages"] or "none", d["extractor"]]
        for d in report["documents"]
    ]  # fmt: skip
    header = ["document", "pages", "characters", "encryption", "pages with no text (need OCR)", "extractor"]
    lines += _section("Source documents", header, documents)
    warned = [
        [c["document"], c["field"], w["code"], w["message"]] for c in report["claims"] for w in c["warnings"]
    ]
    lines += _section("Warnings", ["document", "field", "warning", "what"], warned)
    keys = ["document", "field", "value", "status", "match_level", "page", "note", "reason"]
    lines += _section("Every claim", keys, _picked(report["claims"], keys))
    if "skipped" in report:
        keys = ["document", "field", "reason"]
        lines += _section("Not in the gold set", keys, _picked(report["skipped"], keys))
    if "coverage" in report:
        lines += coverage_markdown(report["coverage"])
    return "\n".join(lines)
