"""A PDF's outline (its bookmarks): each entry's title, level and page, read by pdfium
(``PdfDocument.get_toc``), or by pypdf (``reader.outline``) when pdfium cannot read it.

An outline comes from the file, so it is bounded: titles are cut, entries and depth capped (a crafted
file can hold millions of entries, or a loop of them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .extractors import _quiet_pypdf

MAX_TITLE_CHARS = 200  # a title is shown in reports: longer ones are cut
MAX_OUTLINE_ENTRIES = 10_000
MAX_OUTLINE_DEPTH = 16


@dataclass(frozen=True)
class OutlineEntry:
    title: str
    level: int  # 0 is top-level
    page: int  # 1-based; 0 when the entry points nowhere in the document


def read_outline(path: Path) -> tuple[list[OutlineEntry], str | None]:
    """The PDF's outline entries, by pdfium, else by pypdf; and why neither could read it (or None).
    A PDF without an outline has no entries and no reason."""
    reasons = []
    for name, read in (("pypdfium2", _pdfium_outline), ("pypdf", _pypdf_outline)):
        try:
            return read(path), None
        except Exception as exc:  # a broken outline is no outline: the caller falls back on headings
            reasons.append(f"{name}: {type(exc).__name__}: {exc}")
    return [], "its outline could not be read (" + "; ".join(reasons) + ")"


def _pdfium_outline(path: Path) -> list[OutlineEntry]:
    import pypdfium2

    document = pypdfium2.PdfDocument(path)
    try:
        entries: list[OutlineEntry] = []
        for item in document.get_toc(max_depth=MAX_OUTLINE_DEPTH):
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                break
            entries.append(OutlineEntry(short_title(item.get_title()), int(item.level), _pdfium_page(item)))
        return entries
    finally:
        document.close()


def _pdfium_page(bookmark: Any) -> int:
    """The bookmark's 1-based destination page; 0 when it has none (an action other than go-to)."""
    destination = bookmark.get_dest()
    index = destination.get_index() if destination is not None else None
    return index + 1 if index is not None else 0


def _pypdf_outline(path: Path) -> list[OutlineEntry]:
    import pypdf

    with _quiet_pypdf(), path.open("rb") as handle:
        reader = pypdf.PdfReader(handle)
        if reader.is_encrypted:
            reader.decrypt("")
        entries = _pypdf_entries(reader, reader.outline, 0)
        return [entry for _, entry in zip(range(MAX_OUTLINE_ENTRIES), entries)]


def _pypdf_entries(reader: Any, outline: Sequence[Any], level: int) -> Iterator[OutlineEntry]:
    """pypdf's outline is a list of entries, each followed by the list of its children, if it has any."""
    if level >= MAX_OUTLINE_DEPTH:
        return
    for entry in outline:
        if isinstance(entry, list):
            yield from _pypdf_entries(reader, entry, level + 1)
            continue
        index = reader.get_destination_page_number(entry)
        yield OutlineEntry(short_title(str(entry.title)), level, index + 1 if index is not None else 0)


def short_title(text: object) -> str:
    """A title on one line, cut to MAX_TITLE_CHARS."""
    title = " ".join(str(text).split())
    return title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1] + "…"


__all__ = [
    "MAX_OUTLINE_DEPTH",
    "MAX_OUTLINE_ENTRIES",
    "MAX_TITLE_CHARS",
    "OutlineEntry",
    "read_outline",
    "short_title",
]
