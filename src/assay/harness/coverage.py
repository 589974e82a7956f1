"""What a gold set tests of its documents, and what it does not (issue 25, part 4): per document, the
pages and sections no item lies in, the share of its pages tested, and the facts' fields with no item.

An item lies where its quote is: the quote is searched in the item's document with the cascade the gold
build verifies quotes with (``quotes.find_quote``, page by page and across page breaks), from the
page it starts on to the page it ends on, at the characters it spans there. An item without a quote
lies on the pages it records. An item whose quote is not found, or that names neither, lies nowhere
and is listed with the reason (an item is never dropped); an item citing a document that is not among
the sources is an error; a refusal item cites no document and is counted apart.

A page is tested when an item lies on it; the share tested is of the pages with text (a page with no
text, a scan, can hold no quote). A section (``harness.sections``) is tested when an item's quote shares
a character with it. A text document of one page (no form feeds) is not paged: it has sections, with
their lines, and no share of pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..documents import Document, Sources
from ..errors import InputError
from ..parts import PartError, gold_of_item
from ..scorers.grounding.quotes import find_quote, prepared_pages
from .facts import FactsFile
from .sections import Position, Section, Sections, document_sections


@dataclass(frozen=True)
class CitedItem:
    """What coverage reads of a gold item."""

    id: str
    scope: str | None
    field: str | None
    document: str | None  # the source's document id
    path: str | None  # the source's path under the sources folder
    quote: str | None
    page: int | None
    end_page: int | None
    refusal: bool

    @property
    def reference(self) -> str | None:
        return self.path or self.document


def cited_item(item: Mapping[str, Any]) -> CitedItem:
    """A gold item (a line of gold.jsonl, as ``gold_set.GoldSet.items`` or ``GoldBuild.items`` hold it)."""
    try:
        gold = gold_of_item(item)
    except PartError as exc:  # a loaded gold set was checked already: only a hand-made item gets here
        raise InputError(
            f"the item's gold fields are malformed: {exc}", where=f"id {item.get('id')!r}"
        ) from None
    return CitedItem(
        id=str(item.get("id")),
        scope=_text(item.get("scope")),
        field=_text(item.get("field")),
        document=gold.source_document,
        path=gold.source_path,
        quote=gold.quote,
        page=gold.page,
        end_page=gold.end_page,
        refusal=bool(gold.expected_refusal),
    )


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


@dataclass(frozen=True)
class Placed:
    """Where a located item lies in its document: [start, end) as (page, offset) positions."""

    item: str
    document: str
    start: Position
    end: Position

    @property
    def pages(self) -> range:
        return range(self.start[0], self.end[0] + 1)


@dataclass(frozen=True)
class Unplaced:
    """An item that lies nowhere (or cites a document not in the sources), and why."""

    item: str
    reference: str | None
    reason: str


@dataclass(frozen=True)
class DocumentCoverage:
    document: Document
    sections: Sections
    placed: tuple[Placed, ...]
    tested_pages: frozenset[int]
    tested_sections: frozenset[int]  # indexes into sections.sections
    fields_without_items: tuple[str, ...] | None  # None: no facts were given

    @property
    def paged(self) -> bool:
        """A text file of one page (no form feeds) has no pages to speak of."""
        return not (self.document.extractor == "text" and len(self.document.pages) == 1)

    @property
    def pages_with_text(self) -> tuple[int, ...]:
        empty = set(self.document.empty_pages)
        return tuple(page for page in range(1, len(self.document.pages) + 1) if page not in empty)

    @property
    def untested_pages(self) -> tuple[int, ...]:
        return tuple(page for page in self.pages_with_text if page not in self.tested_pages)

    @property
    def share_tested(self) -> float | None:
        """Pages with an item over pages with text; None when not paged or no page has text."""
        with_text = self.pages_with_text
        if not self.paged or not with_text:
            return None
        return (len(with_text) - len(self.untested_pages)) / len(with_text)

    def untested_sections(self) -> list[tuple[Section, int]]:
        """The untested sections that lie in no untested section (their subsections, all untested too,
        are counted, not listed), each with that count."""
        sections = self.sections.sections
        untested = [i for i in range(len(sections)) if i not in self.tested_sections]
        inside = dict.fromkeys(untested, 0)
        for index in untested:
            parent = sections[index].parent
            while parent is not None:
                if parent in inside:
                    inside[parent] += 1
                parent = sections[parent].parent
        return [
            (sections[i], inside[i])
            for i in untested
            if sections[i].parent is None or sections[i].parent in self.tested_sections
        ]


@dataclass(frozen=True)
class FactsGap:
    """A facts file with no document of its own among the sources, and its fields with no item."""

    facts_file: str
    document: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Coverage:
    """Every document's coverage (sorted by id), the items that lie nowhere, the errors, the refusal
    items, and the facts files whose fields have no document to be reported under."""

    documents: tuple[DocumentCoverage, ...]
    not_located: tuple[Unplaced, ...]
    errors: tuple[Unplaced, ...]
    refusals: tuple[str, ...]
    facts_gaps: tuple[FactsGap, ...] = ()
    facts: bool = False  # whether facts were given (fields_without_items is None otherwise)
    unreadable: tuple[tuple[str, str], ...] = field(default=())  # the sources' files that gave no text


def gold_coverage(
    items: Sequence[Mapping[str, Any]],
    sources: Sources,
    *,
    facts: Sequence[FactsFile] | None = None,
    own: Mapping[str, Sequence[str]] | None = None,
    fuzzy: bool = True,
) -> Coverage:
    """The coverage of `sources` by the gold `items`; with `facts` (and their own documents, `own`, as
    ``claims.own_documents`` finds them, worked out here when not given), the fields with no item."""
    cited = [cited_item(item) for item in items]
    placed, not_located, errors = locate_items([c for c in cited if not _is_refusal(c)], sources, fuzzy=fuzzy)
    gaps = _fields_without_items(cited, facts, own, sources) if facts is not None else None
    documents = tuple(
        _document_coverage(
            document,
            document_sections(document, sources.root),
            [p for p in placed if p.document == document.id],
            gaps.by_document.get(document.id, ()) if gaps is not None else None,
        )
        for document in sources.values()
    )
    return Coverage(
        documents,
        tuple(not_located),
        tuple(errors),
        tuple(c.id for c in cited if _is_refusal(c)),
        gaps.orphans if gaps is not None else (),
        facts is not None,
        sources.problems,
    )


def _is_refusal(item: CitedItem) -> bool:
    """A refusal item cites no document: there is nothing in one it could lie in."""
    return item.refusal and item.reference is None


# --- locating items -----------------------------------------------------------------------------------


def locate_items(
    items: Sequence[CitedItem], sources: Sources, *, fuzzy: bool = True
) -> tuple[list[Placed], list[Unplaced], list[Unplaced]]:
    """Each item placed in its document, or listed as lying nowhere, or as citing a missing document."""
    placed, not_located, errors = [], [], []
    for item in items:
        document, problem = _document_of(item, sources)
        if document is None:
            errors.append(Unplaced(item.id, item.reference, problem or "no document"))
            continue
        found = place(item, document, fuzzy=fuzzy)
        if isinstance(found, Placed):
            placed.append(found)
        else:
            not_located.append(Unplaced(item.id, document.id, found))
    return placed, not_located, errors


def _document_of(item: CitedItem, sources: Sources) -> tuple[Document | None, str | None]:
    """The item's document: its document id when the sources have it, else its path resolved as a
    facts file's path is; or why there is none."""
    if item.document and item.document in sources:
        return sources[item.document], None
    if item.reference is None:
        return None, "the item names no source document"
    try:
        document = sources.resolve(item.reference)
    except InputError as exc:
        return None, exc.what
    if document is None:
        return None, f"it cites {item.reference!r}, which is not among the documents of {sources.root}"
    return document, None


def place(item: CitedItem, document: Document, *, fuzzy: bool = True) -> Placed | str:
    """Where the item lies in `document`, or why it lies nowhere."""
    if item.quote and item.quote.strip():
        match = find_quote(item.quote, prepared_pages(document.pages), fuzzy=fuzzy)
        if match is None:
            return (
                f"its quote is not found in {document.path} at any level of the cascade "
                "(the document changed, or the quote was edited: `assay lint --sources` says which)"
            )
        return Placed(item.id, document.id, (match.page, match.span[0]), (match.end_page, match.span[1]))
    if item.page is None:
        return "it has no quote and no page"
    last = item.end_page if item.end_page is not None else item.page
    if not 1 <= item.page <= last <= len(document.pages):
        return f"its pages {item.page}-{last} are not in {document.path} ({len(document.pages)} pages)"
    return Placed(item.id, document.id, (item.page, 0), (last, len(document.pages[last - 1])))


# --- per document ---------------------------------------------------------------------------------------


def _document_coverage(
    document: Document, sections: Sections, placed: Sequence[Placed], fields: Sequence[str] | None
) -> DocumentCoverage:
    tested_pages = frozenset(page for p in placed for page in p.pages)
    tested_sections = frozenset(
        index
        for index, section in enumerate(sections.sections)
        if any(section.overlaps(p.start, p.end) for p in placed)
    )
    return DocumentCoverage(
        document,
        sections,
        tuple(placed),
        tested_pages,
        tested_sections,
        tuple(fields) if fields is not None else None,
    )


@dataclass(frozen=True)
class _Gaps:
    by_document: dict[str, tuple[str, ...]]
    orphans: tuple[FactsGap, ...]


def _fields_without_items(
    cited: Sequence[CitedItem],
    facts: Sequence[FactsFile],
    own: Mapping[str, Sequence[str]] | None,
    sources: Sources,
) -> _Gaps:
    """Each facts file's fields that no item asks (an item of its scope and field), under each of its
    own documents; a file with no document of its own is listed apart."""
    if own is None:
        from .claims import own_documents

        own = own_documents(facts, sources)
    asked = {(item.scope, item.field) for item in cited}
    by_document: dict[str, dict[str, None]] = {}
    orphans = []
    for file in facts:
        fields = [f for f in dict.fromkeys(c.field for c in file.claims) if (file.document, f) not in asked]
        documents = own.get(file.path, ())
        if not documents:
            orphans.append(FactsGap(file.path, file.document, tuple(fields)))
        for document in documents:
            by_document.setdefault(document, {}).update(dict.fromkeys(fields))
    return _Gaps({doc: tuple(fields) for doc, fields in by_document.items()}, tuple(orphans))


__all__ = [
    "CitedItem",
    "Coverage",
    "DocumentCoverage",
    "FactsGap",
    "Placed",
    "Unplaced",
    "cited_item",
    "gold_coverage",
    "locate_items",
    "place",
]
