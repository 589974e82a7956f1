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
- a context naming no page reads the span of the document where the cascade finds its text, the
  document's characters (not the context's); one found nowhere reads nothing;
- a context of another document, of no known document, or naming a page the document does not have
  reads nothing.

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
        elif context.page is not None:
            _read_page(found, index, document, context.page, context.text)
        elif context.text:
            _read_span(found, index, document, context.text)
    if len(contexts) > MAX_CONTEXTS:
        found.checked.append(
            f"the reply has {len(contexts):,} contexts; the first {MAX_CONTEXTS} were read, the rest not"
        )
    return found


def _read_page(found: Retrieved, index: int, document: Document, page: int, text: str | None) -> None:
    """The page a context names, as assay extracted it; its text compared with that page."""
    if not 1 <= page <= len(document.pages):
        found.checked.append(
            f"context {index} names p.{page}, beyond {document.id}'s {len(document.pages)} pages: not read"
        )
        if text:
            found.unmatched.append((index, f"{document.id} has no p.{page}", text))
        return
    where = f"{document.id} p.{page}"
    found.texts.append((f"{where} (retrieved: context {index})", document.pages[page - 1]))
    if not text:
        return
    if quote_on_page(text, document.pages, page, fuzzy=False) is None:
        found.checked.append(f"context {index}'s text is not in {where} as assay extracted it")
        found.unmatched.append((index, f"that text is not in {where}", text))
    else:
        found.checked.append(f"context {index}'s text is in {where}")


def _read_span(found: Retrieved, index: int, document: Document, text: str) -> None:
    """A context naming no page: the document's span where its text is, else nothing."""
    match = find_in_pages(text, document.pages, fuzzy=False)
    if match is None:
        found.checked.append(
            f"context {index}'s text is not in {document.id} as assay extracted it: not read"
        )
        found.unmatched.append((index, f"that text is not in {document.id}", text))
        return
    where = f"{document.id} p.{match.page}"
    found.checked.append(f"context {index}'s text is in {where} ({match.level})")
    found.texts.append((f"{where} (retrieved: context {index})", match.text))


__all__ = ["MAX_CONTEXTS", "Retrieved", "read_contexts"]
