"""Whether a reply is grounded in its sources: what the ``grounded`` metric checks, as pure functions of
one row's reply (text, citations, retrieved contexts), its gold item and the source documents.

A row is grounded when it cites something and every check below finds no problem:

- **resolution**: each citation's ``document`` names exactly one document, by equality of names, never
  by substring or prefix: its id, its path (with or without the suffix), its file name, its title (the
  gold item's ``source.title``), or its insurer and title ("HDFC ERGO My Optima Secure" for
  ``hdfc-ergo__my-optima-secure__wordings`` titled "My Optima Secure"). Names are compared normalised
  (``name_key``: NFKC, casefolded, every run of characters other than letters, marks and digits one
  space). A name held by two documents is ambiguous; "HDFC ERGO" alone names no policy of that insurer.
  A name written as a path or URL of the system's own ("/srv/rag/acme/basic-plan.pdf",
  "C:\\corpus\\acme\\basic-plan.pdf", "https://host/docs/acme/basic-plan.pdf") names the document
  its trailing parts name (whole parts, the longest first; its query and fragment left out).
- **scope**: the document is one the item's scope allows: the document whose id is the scope, and the
  item's gold source document (without either, any document of the sources).
- **pages**: a cited page exists (1 to the document's page count) and holds the *supporting text*, one
  of: the gold quote (when the document is the item's source), the citation's own quote, a span the
  reply quotes, or one of the numbers with units the reply states. A quote holds a page when the quote cascade
  (``quotes.find_quote``, any level) finds it on that page alone, or across its break with the page
  before or after. A page is only checked for range when there is none of these to look for.
- **quotes**: every quoted span of the reply (straight or curly double quotes around at least
  ``QUOTED_MIN_CHARS`` characters) is found by the cascade in one of the cited documents, and every
  citation's quote in its document; the level is recorded.
- **numbers**: every number with a unit the reply states (``value_reading``: ``30 days``, ``thirty
  days``, ``₹5 lakh``, ``20%``, ``36 months``; citation markers in brackets are not read) is stated in
  the cited text (a cited page, or every page of a document cited without one) or the retrieved
  contexts' text of the allowed documents, as a value read by the same reader: so "24 months" is never
  found in "124 months" nor "2024", the unit must be there, and equal forms count (``5,00,000`` = ``5
  lakh``; ``2 years`` = ``24 months``; a bare amount in the text counts for an amount).

What a reply's text is read for, and how a number is found in a text, is ``scorers.grounding.text``.
The verdict reads only the row and the sources, so a row's verdict never depends on which rows are
scored with it. Titles other rows carry (``other_titles``) only name, in a problem, the document a
citation outside the scope means ("cites hdfc-ergo__optima-secure, outside the item's scope").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...parts import Citation, Context
from .citations import Item, Library, resolve
from .text import (
    MARKER,
    Stated,
    find_in_pages,
    quote_on_page,
    quoted_spans,
    shown,
    stated_numbers,
    states,
)

if TYPE_CHECKING:
    from ...documents import Document

# --- one row ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grounding:
    """One row's result: `unscored` says why there was nothing to ground; else it passed when there
    are no `problems`. `checked` says what was looked at (for the trace)."""

    problems: tuple[str, ...] = ()
    checked: tuple[str, ...] = ()
    unscored: str | None = None

    @property
    def passed(self) -> bool:
        return self.unscored is None and not self.problems

    def rule(self) -> str:
        """The verdict in words, for a trace."""
        if self.unscored is not None:
            return self.unscored
        checked = f"checked: {'; '.join(self.checked)}" if self.checked else "nothing checked"
        if not self.problems:
            return f"grounded; {checked}"
        return f"{len(self.problems)} problem(s): {'; '.join(self.problems)}; {checked}"


@dataclass
class _Row:
    """What the checks of one row gather: cited documents and the texts that may state its numbers."""

    library: Library
    item: Item
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    quoted: tuple[str, ...] = ()  # the spans the reply quotes
    cited: dict[str, Document] = field(default_factory=dict)  # in scope and in the sources
    texts: list[tuple[str, str]] = field(default_factory=list)  # (where, text)

    def in_scope(self, document_id: str) -> bool:
        allowed = self.item.allowed()
        return document_id in allowed if allowed else True


def ground(
    text: str,
    citations: Sequence[Citation],
    contexts: Sequence[Context],
    item: Item,
    library: Library,
    other_titles: Mapping[str, str] = {},
) -> Grounding:
    """Whether the reply `text` with its `citations` and `contexts` is grounded (see the module's note)."""
    if item.expected_refusal:
        return Grounding(unscored="a refusal item: nothing to ground")
    if not text.strip():
        return Grounding(unscored="a blank reply: nothing to ground")
    missing = _missing_sources(item, library)
    if missing:
        return Grounding(unscored=missing)
    if not citations:
        return Grounding(problems=("cites nothing",))
    row = _Row(library, item, quoted=tuple(quoted_spans(MARKER.sub(" ", text))))
    numbers = stated_numbers(text)
    for citation in dict.fromkeys(citations):
        _check_citation(row, citation, numbers, other_titles)
    _gather_contexts(row, contexts)
    if row.texts:
        _check_quoted(row, row.quoted)
        _check_numbers(row, numbers)
    else:  # the citations' problems say why: no text of the scope to look in
        row.checked.append("quotes and numbers not looked for: no cited or retrieved text of the scope")
    return Grounding(tuple(dict.fromkeys(row.problems)), tuple(dict.fromkeys(row.checked)))


def _missing_sources(item: Item, library: Library) -> str | None:
    """Why nothing can be checked: none of the documents the item allows is in the sources."""
    allowed = sorted(item.allowed())
    if not allowed or any(library.document(name) is not None for name in allowed):
        return None
    return f"nothing to check against: {', '.join(allowed)} is not among the sources"


def _check_citation(
    row: _Row, citation: Citation, numbers: Sequence[Stated], others: Mapping[str, str]
) -> None:
    resolved = resolve(citation.document, row.library, row.item, others)
    if resolved.document_id is None:
        row.problems.append(resolved.problem)
        return
    name = resolved.document_id
    if not row.in_scope(name):
        scope = row.item.scope or row.item.source_document
        row.problems.append(f"cites {name}, outside the item's scope ({scope})")
        return
    document = row.library.document(name)
    if document is None:
        row.problems.append(f"cites {name}, which is not among the sources: its text cannot be checked")
        return
    row.cited[name] = document
    row.checked.append(f"{citation.document!r} is {name} (by {resolved.how})")
    if citation.quote:
        _check_citation_quote(row, document, citation.quote)
    if citation.page is None:
        row.texts += [(f"{name} p.{number}", page) for number, page in enumerate(document.pages, 1)]
        return
    if not 1 <= citation.page <= len(document.pages):
        row.problems.append(f"p.{citation.page} is beyond {name}'s {len(document.pages)} pages")
        return
    row.texts.append((f"{name} p.{citation.page}", document.pages[citation.page - 1]))
    _check_page(row, document, citation, numbers)


def _check_citation_quote(row: _Row, document: Document, quote: str) -> None:
    found = find_in_pages(quote, document.pages)
    if found is None:
        row.problems.append(f"the citation's quote {shown(quote)} is not in {document.id}")
    else:
        row.checked.append(f"the citation's quote is in {document.id} p.{found.page} ({found.level})")


def _check_page(row: _Row, document: Document, citation: Citation, numbers: Sequence[Stated]) -> None:
    """The cited page holds the supporting text (see the module's note)."""
    page, where = citation.page or 0, f"{document.id} p.{citation.page}"
    quotes = [(q, who) for q, who in ((_gold_quote(row.item, document), "the gold quote"),
                                      (citation.quote, "the citation's quote")) if q]  # fmt: skip
    quotes += [(span, "the reply's quote") for span in row.quoted]
    for quote, who in quotes:
        found = quote_on_page(quote, document.pages, page)
        if found is not None:
            row.checked.append(f"{where} holds {who} ({found.level})")
            return
    held = [number for number in numbers if states(document.pages[page - 1], number)]
    if held:
        row.checked.append(f"{where} states {', '.join(n.shown() for n in held)}")
        return
    if not quotes and not numbers:
        row.checked.append(f"{where} exists (the reply states no number and no quote to look for there)")
        return
    sought = list(dict.fromkeys(who for _, who in quotes))
    sought += ["any of the reply's numbers"] if numbers else []
    gold_page = row.item.page if _gold_quote(row.item, document) else None
    hint = f" (the gold quote is on p.{gold_page})" if gold_page else ""
    row.problems.append(f"{where} holds neither {' nor '.join(sought)}{hint}")


def _gold_quote(item: Item, document: Document) -> str | None:
    return item.quote if item.quote and document.id == item.source_document else None


def _gather_contexts(row: _Row, contexts: Iterable[Context]) -> None:
    """The retrieved passages of allowed documents join the texts that may state the reply's numbers."""
    for index, context in enumerate(contexts, 1):
        resolved = resolve(context.document, row.library, row.item)
        name = resolved.document_id
        if name is None or not row.in_scope(name):
            row.checked.append(f"context {index} ({context.document!r}) is not of the scope: not read")
            continue
        text, document, page = context.text, row.library.document(name), context.page or 0
        if text is None and document is not None and 1 <= page <= len(document.pages):
            text = document.pages[page - 1]
        if text:
            row.texts.append((f"context {index}", text))


def _check_quoted(row: _Row, spans: Sequence[str]) -> None:
    for span in spans:
        found = next(
            ((d.id, m) for d in row.cited.values() if (m := find_in_pages(span, d.pages)) is not None), None
        )
        if found is None:
            row.problems.append(f"the quoted {shown(span)} is in none of the cited documents")
        else:
            name, match = found
            row.checked.append(f"the quoted {shown(span)} is in {name} p.{match.page} ({match.level})")


def _check_numbers(row: _Row, numbers: Sequence[Stated]) -> None:
    for number in numbers:
        where = next((where for where, text in row.texts if states(text, number)), None)
        if where is None:
            row.problems.append(f"{number.shown()!r} is not in the cited or retrieved text")
        else:
            row.checked.append(f"{number.shown()!r} is in {where}")
