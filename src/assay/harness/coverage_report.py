"""The coverage of a gold set (``harness.coverage``) as JSON, text, Markdown and a self-contained HTML
page. The JSON form is made once (``coverage_json``); the others only read it, so all four say the same.

Pages and lines are given as ranges, compactly ("3-7, 12", with an en dash); a document that is not
paged (a text file of one page) says so, and gives its sections' lines instead of pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..report.markup import attrs, cell, element, markdown_table, number_cell, static_page, table
from ..terminal import one_line
from .coverage import Coverage, DocumentCoverage, Unplaced
from .sections import Position, Section

NOT_PAGED = "not paged"
RANGE_DASH = "\u2013"


def page_ranges(pages: Iterable[int]) -> list[list[int]]:
    """Sorted pages as [first, last] runs of consecutive pages."""
    runs: list[list[int]] = []
    for page in sorted(set(pages)):
        if runs and page == runs[-1][1] + 1:
            runs[-1][1] = page
        else:
            runs.append([page, page])
    return runs


def ranges_text(runs: Sequence[Sequence[int]]) -> str:
    """[[3, 7], [12, 12]] -> "3-7, 12", with an en dash (the typographers' sign for a range)."""
    return ", ".join(str(a) if a == b else f"{a}{RANGE_DASH}{b}" for a, b in runs) or "none"


# --- JSON -------------------------------------------------------------------------------------------------


def coverage_json(coverage: Coverage) -> dict[str, Any]:
    documents = [_document_json(entry, coverage.facts) for entry in coverage.documents]
    return {
        "total": _total(documents),
        "documents": documents,
        "items_not_located": [_unplaced(entry, "document") for entry in coverage.not_located],
        "errors": [_unplaced(entry, "reference") for entry in coverage.errors],
        "refusal_items": list(coverage.refusals),
        "facts_without_document": [
            {"facts_file": gap.facts_file, "document": gap.document, "fields_without_items": list(gap.fields)}
            for gap in coverage.facts_gaps
        ],
        "unreadable": [{"path": path, "reason": reason} for path, reason in coverage.unreadable],
    }


def _unplaced(entry: Unplaced, key: str) -> dict[str, Any]:
    return {"id": entry.item, key: entry.reference, "reason": entry.reason}


def _document_json(entry: DocumentCoverage, facts: bool) -> dict[str, Any]:
    document = entry.document
    untested = page_ranges(entry.untested_pages) if entry.paged else None
    return {
        "id": document.id,
        "path": document.path,
        "paged": entry.paged,
        "pages": len(document.pages),
        "pages_with_text": len(entry.pages_with_text) if entry.paged else None,
        "pages_tested": len(entry.pages_with_text) - len(entry.untested_pages) if entry.paged else None,
        "share_tested": entry.share_tested,
        "untested_pages": untested,
        "untested_pages_text": ranges_text(untested) if untested is not None else NOT_PAGED,
        "items": sorted({placed.item for placed in entry.placed}),
        "sections": {
            "origin": entry.sections.origin,
            "note": entry.sections.note,
            "total": len(entry.sections.sections),
            "tested": len(entry.tested_sections),
            "untested": [_section_json(entry, s, inside) for s, inside in entry.untested_sections()],
        },
        # None without facts: no field was looked at, which is not "every field has an item"
        "fields_without_items": list(entry.fields_without_items or ()) if facts else None,
    }


def _section_json(entry: DocumentCoverage, section: Section, inside: int) -> dict[str, Any]:
    where = "pages" if entry.paged else "lines"
    span = _pages_of(entry, section) if entry.paged else _lines_of(entry, section)
    return {"title": section.title, "level": section.level, where: span, "subsections": inside}


def _pages_of(entry: DocumentCoverage, section: Section) -> list[int]:
    """The pages a section is on: a section ending at the very start of a page is not on it."""
    last = section.end[0] if section.end[1] > 0 else section.end[0] - 1
    return [section.start[0], max(section.start[0], min(last, len(entry.document.pages)))]


def _lines_of(entry: DocumentCoverage, section: Section) -> list[int]:
    text = entry.document.pages[0]
    end: Position = section.end if section.end[0] == 1 else (1, len(text))
    first = text.count("\n", 0, section.start[1]) + 1
    return [first, max(first, text.count("\n", 0, max(end[1] - 1, 0)) + 1)]


def _total(documents: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    paged = [d for d in documents if d["paged"]]
    with_text = sum(d["pages_with_text"] for d in paged)
    tested = sum(d["pages_tested"] for d in paged)
    return {
        "documents": len(documents),
        "pages_with_text": with_text,
        "pages_tested": tested,
        "share_tested": tested / with_text if with_text else None,
        "sections": sum(d["sections"]["total"] for d in documents),
        "sections_tested": sum(d["sections"]["tested"] for d in documents),
    }


def share_text(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.0%}"


def has_errors(report: Mapping[str, Any]) -> bool:
    """Items citing a document that is not among the sources."""
    return bool(report["errors"])


# --- text -------------------------------------------------------------------------------------------------


def coverage_lines(report: Mapping[str, Any]) -> list[str]:
    """The text summary: per document its share and untested pages and sections, then what lies nowhere."""
    total = report["total"]
    lines = [
        f"coverage: {total['documents']} documents, {total['pages_tested']} of {total['pages_with_text']} "
        f"pages with text tested ({share_text(total['share_tested'])}), {total['sections_tested']} of "
        f"{total['sections']} sections"
    ]
    for document in report["documents"]:
        lines += _document_lines(document)
    for entry in report["items_not_located"]:
        lines.append(f"not located: {one_line(entry['id'])}: {one_line(entry['reason'])}")
    for entry in report["errors"]:
        lines.append(f"error: item {one_line(entry['id'])}: {one_line(entry['reason'])}")
    for gap in report["facts_without_document"]:
        fields = ", ".join(gap["fields_without_items"]) or "none"
        lines.append(
            f"facts with no document: {one_line(gap['facts_file'])}: fields without items: {one_line(fields)}"
        )
    if report["refusal_items"]:
        lines.append(f"refusal items (no document to lie in): {len(report['refusal_items'])}")
    return lines


def _document_lines(document: Mapping[str, Any]) -> list[str]:
    sections = document["sections"]
    head = f"  {one_line(document['id'])}: "
    if document["paged"]:
        head += f"{share_text(document['share_tested'])} of {document['pages_with_text']} pages tested; "
        head += f"untested pages {document['untested_pages_text']}"
    else:
        head += NOT_PAGED
    lines = [head + f"; {sections['tested']} of {sections['total']} sections ({sections['origin']}) tested"]
    untested = [_section_label(section) for section in sections["untested"]]
    if untested:
        shown = "; ".join(untested[:10]) + (f"; ... {len(untested) - 10} more" if len(untested) > 10 else "")
        lines.append(f"    untested sections: {one_line(shown)}")
    if document["fields_without_items"]:
        lines.append(f"    fields without items: {one_line(', '.join(document['fields_without_items']))}")
    return lines


def _section_label(section: Mapping[str, Any]) -> str:
    where = (
        f"p. {ranges_text([section['pages']])}"
        if "pages" in section
        else f"lines {ranges_text([section['lines']])}"
    )
    inside = f", {section['subsections']} subsections" if section["subsections"] else ""
    return f"{section['title']} ({where}{inside})"


# --- Markdown ---------------------------------------------------------------------------------------------


def coverage_markdown(report: Mapping[str, Any], *, level: int = 2) -> list[str]:
    """The coverage as Markdown lines: a "Coverage" heading at `level` (2 inside the gold build's report)."""
    total = report["total"]
    mark = "#" * level
    lines = [f"{mark} Coverage", "", _totals_sentence(total), ""]
    rows = [
        [
            d["id"],
            share_text(d["share_tested"]),
            d["untested_pages_text"],
            _sections_tested(d),
            len(d["items"]),
        ]
        for d in report["documents"]
    ]
    lines += markdown_table(
        ["document", "pages tested", "untested pages", "sections tested", "items"], _cells(rows)
    )
    for document in report["documents"]:
        lines += _document_markdown(document, mark + "#")
    lines += _listing(f"{mark}# Items not located", report["items_not_located"], "document")
    lines += _listing(
        f"{mark}# Errors: items citing a document not in the sources", report["errors"], "reference"
    )
    return lines


def _sections_tested(document: Mapping[str, Any]) -> str:
    sections = document["sections"]
    return f"{sections['tested']}/{sections['total']} ({sections['origin']})"


def _totals_sentence(total: Mapping[str, Any]) -> str:
    return (
        f"{total['pages_tested']} of {total['pages_with_text']} pages with text tested "
        f"({share_text(total['share_tested'])}); {total['sections_tested']} of {total['sections']} sections."
    )


def _cells(rows: Sequence[Sequence[Any]]) -> list[list[str]]:
    return [[cell("" if value is None else str(value)) for value in row] for row in rows]


def _document_markdown(document: Mapping[str, Any], mark: str) -> list[str]:
    untested = document["sections"]["untested"]
    lines = [f"{mark} {cell(document['id'])}", ""]
    if document["sections"]["note"]:
        lines += [cell(document["sections"]["note"]), ""]
    if untested:
        where = "pages" if document["paged"] else "lines"
        rows = [[s["title"], ranges_text([s[where]]), s["subsections"]] for s in untested]
        lines += markdown_table(["untested section", where, "subsections inside"], _cells(rows))
    else:
        lines += ["Every section is tested." if document["sections"]["total"] else "No sections found.", ""]
    if document["fields_without_items"]:
        lines += [f"Fields without items: {cell(', '.join(document['fields_without_items']))}.", ""]
    return lines


def _listing(title: str, entries: Sequence[Mapping[str, Any]], key: str) -> list[str]:
    if not entries:
        return []
    rows = [[entry["id"], entry[key] or "", entry["reason"]] for entry in entries]
    return [title, "", *markdown_table(["item", key, "why"], _cells(rows))]


def coverage_document(report: Mapping[str, Any]) -> str:
    """The standalone Markdown file of `assay gold coverage --markdown`."""
    return "\n".join(["# Gold set coverage", "", *coverage_markdown(report)[2:]]) + "\n"


# --- HTML -------------------------------------------------------------------------------------------------


def coverage_html(report: Mapping[str, Any]) -> str:
    """A self-contained page (the report's stylesheet inline, no script, nothing fetched): the totals,
    then a table per document of its untested sections, then what lies nowhere. Every text escaped."""
    parts = [
        element("h1", "Gold set coverage"),
        element("p", _totals_sentence(report["total"])),
        _summary_table(report["documents"]),
        *(_document_html(document) for document in report["documents"]),
        _unplaced_html("Items not located", report["items_not_located"], "document"),
        _unplaced_html("Errors: items citing a document not in the sources", report["errors"], "reference"),
    ]
    return static_page("Gold set coverage", "\n".join(part for part in parts if part), ("report.css",))


def _summary_table(documents: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        f"<tr{attrs(data_document=d['id'])}>{element('td', d['id'])}"
        f"{number_cell('share_tested', d['share_tested'], share_text(d['share_tested']))}"
        f"{element('td', d['untested_pages_text'])}{element('td', _sections_tested(d))}"
        f"{number_cell('items', len(d['items']), str(len(d['items'])))}</tr>"
        for d in documents
    ]
    return table(["document", "pages tested", "untested pages", "sections tested", "items"], rows)


def _document_html(document: Mapping[str, Any]) -> str:
    where = "pages" if document["paged"] else "lines"
    rows = [
        f"<tr>{element('td', s['title'])}{element('td', ranges_text([s[where]]))}"
        f"{number_cell('subsections', s['subsections'], str(s['subsections']))}</tr>"
        for s in document["sections"]["untested"]
    ]
    parts = [f"<section{attrs(data_document=document['id'])}>", element("h2", document["id"])]
    if document["sections"]["note"]:
        parts.append(element("p", document["sections"]["note"]))
    parts.append(
        table(["untested section", where, "subsections inside"], rows)
        if rows
        else element("p", "No untested section.")
    )
    if document["fields_without_items"]:
        parts.append(element("p", "Fields without items: " + ", ".join(document["fields_without_items"])))
    return "".join([*parts, "</section>"])


def _unplaced_html(title: str, entries: Sequence[Mapping[str, Any]], key: str) -> str:
    if not entries:
        return ""
    rows = [
        f"<tr>{element('td', e['id'])}{element('td', e[key] or '')}{element('td', e['reason'])}</tr>"
        for e in entries
    ]
    return element("h2", title) + table(["item", key, "why"], rows)


__all__ = [
    "coverage_document",
    "coverage_html",
    "coverage_json",
    "coverage_lines",
    "coverage_markdown",
    "has_errors",
    "page_ranges",
    "ranges_text",
]
