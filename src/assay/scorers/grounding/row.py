"""What the checks of one row of ``grounding.check`` gather as they go: the cited documents and pages, the
documents' texts that may state the reply's figures, and the problems found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...text.clauses import FieldTerms, field_terms
from .citations import Item, Library

if TYPE_CHECKING:
    from ...documents import Document
    from ...parts import Citation


@dataclass
class Row:
    """What the checks of one row gather: cited documents and pages, and the texts that may state its
    figures."""

    library: Library
    item: Item
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    contradicts: list[str] = field(default_factory=list)
    quoted: tuple[str, ...] = ()  # the spans the reply quotes
    cited: dict[str, Document] = field(default_factory=dict)  # in scope and in the sources
    pages: list[tuple[Document, int, Citation]] = field(default_factory=list)  # the cited pages in range
    whole: list[Document] = field(default_factory=list)  # documents cited without a page
    texts: list[tuple[str, str]] = field(default_factory=list)  # (where, a document's text)
    # contexts whose own text is not in their document: (number, why, text)
    unmatched: list[tuple[int, str, str]] = field(default_factory=list)

    def in_scope(self, document_id: str) -> bool:
        allowed = self.item.allowed()
        return document_id in allowed if allowed else True

    def terms(self) -> FieldTerms:
        return field_terms(self.item.field, self.item.question, self.item.source_title)

    def cited_pages(self) -> list[tuple[str, str]]:
        """(where, text) of every cited page; a document cited without a page, each of its pages."""
        found = [(f"{d.id} p.{number}", d.pages[number - 1]) for d, number, _ in self.pages]
        found += [(f"{d.id} p.{number}", page) for d in self.whole for number, page in enumerate(d.pages, 1)]
        return found


__all__ = ["Row"]
