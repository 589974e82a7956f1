"""What a reply's contexts are evidence of: what the system retrieved, never what the documents say.

A context is the system's own account of a passage it retrieved: a document's name, perhaps a page and
offsets, perhaps its text. The system wrote every part of it, so its text proves nothing about the
documents: a context may hold a number no document states, a sentence copied with one figure changed, or
a page the document does not have. ``grounded`` therefore reads a context only as a pointer into the
documents as assay extracted them (issue 22):

- a context naming a page of a document the item's scope allows reads **that page of the document**, as
  assay extracted it; its own text is compared with the page (the quote cascade, without its fuzzy
  level: a context copies its document, it is no curator's transcription), and one that is not there is
  noted ("context 2's text is not in acme__basic-plan p.3 as assay extracted it");
- a context naming no page, a page the document does not have, or a page that does not hold its text
  (a system numbering pages from 0, say) also reads the span of the document where the cascade finds its
  text: the document's characters there, not the context's; a text found nowhere reads nothing;
- a context of another document or of no known document reads nothing.

A text read here is always the document's: a figure of the reply is grounded by it only when the
document states it. The contexts whose text is not in their document are kept (``Retrieved.unmatched``)
so that a figure only such a context states can say so in its problem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .citations import Item, Library, resolve
from .text import find_in_pages, quote_on_page

if TYPE_CHECKING:
    from ...documents import Document
    from ...parts import Context

# Contexts read per row: each is resolved and its text looked for in its document (linear in the
# document's size), so a reply of 50,000 contexts would cost minutes. Retrieval hands a reply a few dozen
# at most; the rest are not read, and the row's trace says so.
MAX_CONTEXTS = 100


@dataclass
class Retrieved:
    """What a row's contexts point to: `texts` (where, the document's text) that may state the reply's
    figures, `checked` notes for the trace, and `unmatched` (context number, why its text is not
    evidence, its text) for each context whose text is not in its document."""

    texts: list[tuple[str, str]] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    unmatched: list[tuple[int, str, str]] = field(default_factory=list)


def read_contexts(
    contexts: Sequence[Context], library: Library, item: Item, in_scope: Callable[[str], bool]
) -> Retrieved:
    """The documents' text the row's `contexts` point to (see the module's note); `in_scope` says
    whether a document id is one the item allows."""
    found = Retrieved()
    for index, context in enumerate(contexts[:MAX_CONTEXTS], 1):
        name = resolve(context.document, library, item).document_id
        if name is None or not in_scope(name):
            found.checked.append(f"context {index} ({context.document!r}) is not of the scope: not read")
            continue
        document = library.document(name)
        if document is None:
            found.checked.append(f"context {index} names {name}, which is not among the sources: not read")
        elif context.page is not None and 1 <= context.page <= len(document.pages):
            _read_page(found, index, document, context.page, context.text)
        elif context.text:
            _read_span(found, index, document, context.text, context.page)
        elif context.page is not None:
            found.checked.append(f"context {index} {_beyond(document, context.page)}: not read")
    if len(contexts) > MAX_CONTEXTS:
        found.checked.append(
            f"the reply has {len(contexts):,} contexts; the first {MAX_CONTEXTS} were read, the rest not"
        )
    return found


def _read_page(found: Retrieved, index: int, document: Document, page: int, text: str | None) -> None:
    """The page a context names, as assay extracted it; its text compared with that page, and looked for
    in the rest of the document when the page does not hold it."""
    where = f"{document.id} p.{page}"
    found.texts.append((f"{where} (retrieved: context {index})", document.pages[page - 1]))
    if not text:
        return
    if quote_on_page(text, document.pages, page, fuzzy=False) is not None:
        found.checked.append(f"context {index}'s text is in {where}")
        return
    found.checked.append(f"context {index}'s text is not in {where} as assay extracted it")
    _read_span(found, index, document, text, page)


def _read_span(found: Retrieved, index: int, document: Document, text: str, page: int | None = None) -> None:
    """The document's span where a context's text is, else nothing: for a context naming no page, a page
    the document does not have, or a page that does not hold its text (numbered from 0, say)."""
    match = find_in_pages(text, document.pages, fuzzy=False)
    in_range = page is not None and 1 <= page <= len(document.pages)
    if match is None:
        if page is None:
            found.checked.append(
                f"context {index}'s text is not in {document.id} as assay extracted it: not read"
            )
            why = f"that text is not in {document.id}"
        elif in_range:
            why = f"that text is not in {document.id} p.{page}"  # the page itself is read
        else:
            found.checked.append(f"context {index} {_beyond(document, page)}: not read")
            why = f"{document.id} has no p.{page}"
        found.unmatched.append((index, why, text))
        return
    where = f"{document.id} p.{match.page}"
    named = "" if page is None else f", not on the p.{page} it names"
    found.checked.append(f"context {index}'s text is in {where} ({match.level}){named}")
    found.texts.append((f"{where} (retrieved: context {index})", match.text))


def _beyond(document: Document, page: int) -> str:
    return f"names p.{page}, beyond {document.id}'s {len(document.pages)} pages"


__all__ = ["MAX_CONTEXTS", "Retrieved", "read_contexts"]
