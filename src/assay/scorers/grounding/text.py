"""What ``grounding.check`` reads: a reply's numbers with units and quoted spans, whether a text states
a number, where a quote is on a page (the quote cascade, ``grounding.quotes``), and the documents of a
run (a sources folder loaded once, and its signature).

A number is compared as a value read by ``values.reading`` from both sides, never as digits in
a text: "24 months" is not in "124 months" nor in "2024"; "5,00,000" states "₹5 lakh", and "24 months"
states "2 years" (the exact equivalences of ``values.types``). A number followed by its own words
in brackets, as policy wordings write it ("30 (thirty) days"), is read by the reader as the number
with its unit.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from ...values.reading import Mention, is_reference, read_folded
from ...values.types import DATE, MONEY, NUMBER_UNIT, Value, render_answer, same_value

if TYPE_CHECKING:
    from ...documents import Sources
    from .quotes import QuoteMatch

QUOTED_MIN_CHARS = 20  # a shorter quoted span is a term ("Sum Insured"), not a quotation
SHOWN_CHARS = 60  # a quote shown in a problem is cut to this many characters
_QUOTED = regex.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')
_ARTICLE = regex.compile(r"an?\s")
MARKER = regex.compile(r"\[[^\[\]]*\]")  # [Source: doc, p.3], [2], [doc:chunk]: citations, not values


def find_in_pages(quote: str, pages: Sequence[str]) -> QuoteMatch | None:
    """The quote cascade's match of `quote` in a document's pages (prepared once per document)."""
    from .quotes import find_quote, prepared_pages

    return find_quote(quote, prepared_pages(tuple(pages)))


def quote_on_page(quote: str, pages: Sequence[str], page: int) -> QuoteMatch | None:
    """The match of `quote` that holds 1-based `page`: on the page alone, else across a break with the
    page before or after it."""
    from .quotes import find_quote, prepared_pages

    found = find_quote(quote, prepared_pages((pages[page - 1],)))
    if found is not None:
        return _shifted(found, page - 1)
    first = max(page - 2, 0)
    found = find_quote(quote, prepared_pages(tuple(pages[first : page + 1])))
    if found is not None and found.page + first <= page <= found.end_page + first:
        return _shifted(found, first)
    return None


def _shifted(found: QuoteMatch, offset: int) -> QuoteMatch:
    return dataclasses.replace(found, page=found.page + offset, end_page=found.end_page + offset)


@dataclass(frozen=True)
class Stated:
    """A number with a unit the reply states, as the reader read it."""

    value: Value
    written: str

    def shown(self) -> str:
        return render_answer(self.value)


def stated_numbers(text: str) -> list[Stated]:
    """Every number with a unit (a duration, a count of things, an amount, a percentage) the reply
    states, once per value; bracketed citation markers are not read, nor bare numbers or dates, nor an
    article before a unit ("once a year", "within an hour": the reader's 1 year, 1 hour)."""
    from ...text import unicode

    folded = unicode.fold(MARKER.sub(" ", text))
    found: dict[Value, Stated] = {}
    for mention in read_folded(folded):
        written = folded[mention.start : mention.end]
        if _has_unit(mention) and not _ARTICLE.match(written):
            found.setdefault(mention.value, Stated(mention.value, written))
    return list(found.values())


def _has_unit(mention: Mention) -> bool:
    value = mention.value
    return value.type != DATE and (value.type != NUMBER_UNIT or value.unit is not None)


@functools.lru_cache(maxsize=1024)  # keyed by a page's text: each page is read once per run
def text_values(text: str) -> tuple[Value, ...]:
    """The values `text` states, and each bare number that is not a page or clause number again as an
    amount of no currency (which equals an amount of any): policy wordings write "5,00,000" for the sum
    insured."""
    from ...text import unicode

    folded = unicode.fold(text)
    values: list[Value] = []
    for mention in read_folded(folded):
        values.append(mention.value)
        bare = mention.value.type == NUMBER_UNIT and mention.value.unit is None
        if bare and not is_reference(folded, mention.start):
            values.append(Value(MONEY, mention.value.value))
    return tuple(values)


def states(text: str, number: Stated) -> bool:
    """Whether `text` states the number as a value (number + unit, through the exact equivalences)."""
    return any(same_value(number.value, value) for value in text_values(text))


def quoted_spans(text: str) -> list[str]:
    """The spans the reply quotes: in straight or curly double quotes, of QUOTED_MIN_CHARS or more."""
    spans = (next(group for group in match.groups() if group is not None) for match in _QUOTED.finditer(text))
    return [span.strip() for span in spans if len(span.strip()) >= QUOTED_MIN_CHARS]


def shown(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…")


# --- the documents of a run -------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _loaded(root: str, state: tuple[tuple[str, int, int], ...]) -> Sources:
    from ...documents import load_sources

    # No page cache: scoring writes nothing but its outputs, and the pages of a folder of policies
    # extract in a second or two, once per run.
    return load_sources(Path(root), cache_dir=None)


def load_run_sources(folder: str | Path) -> Sources:
    """The documents of a sources folder, loaded once per state of its files (paths, sizes, times)."""
    from ...documents import load_sources

    root = Path(folder)
    if not root.is_dir():
        return load_sources(root, cache_dir=None)  # which says what is wrong with the folder
    return _loaded(str(root.resolve()), _folder_state(root))


def _folder_state(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Each file's path, size and modification time: a changed file is a new state. Hidden files and
    folders are left out, as ``load_sources`` leaves them out (a .git folder changes often)."""
    found = []
    for path in sorted(root.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
        if path.is_file() and not hidden:
            status = path.stat()
            found.append((path.relative_to(root).as_posix(), status.st_size, status.st_mtime_ns))
    return tuple(found)


def sources_signature(sources: Sources) -> str:
    """What the numbers depend on in a sources folder: every document's id, content hash and the
    extractor that read it (and the files no extractor could read), as a digest; not the folder's path."""
    lines = [f"{d.id}\t{d.sha256}\t{d.extractor}" for d in sources.values()]
    lines += [f"unreadable\t{path}" for path, _ in sources.problems]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    return f"sources:{len(sources)}docs-{digest}"


__all__ = [
    "MARKER",
    "QUOTED_MIN_CHARS",
    "Stated",
    "find_in_pages",
    "load_run_sources",
    "quote_on_page",
    "quoted_spans",
    "shown",
    "sources_signature",
    "stated_numbers",
    "states",
    "text_values",
]
