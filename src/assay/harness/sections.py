"""A document's sections: from a PDF's outline (its bookmarks) when it has one, else from the headings
its text shows; each placed at a character offset of a page, so that a gold quote's span can be said to
lie in it or not.

**The outline** (``documents.outline``): an entry's section starts where its title is found on its
destination page (by the quote cascade, without its fuzzy level), at the top of that page when the
title is not there; an entry pointing outside the document is left out.

**Headings, without an outline.** A line of the extracted text is a heading when it is short (at most
80 characters and 12 words, with a word of two letters at least), begins with a letter or digit, lies
outside the page's running header and footer (as the quote search finds them: a line at the edge of at
least half of the pages, or a bare page number), and reads as a whole line rather than the first line
of a wrapped sentence: it does not end as a sentence or clause does (``.``, ``,``, ``;``) nor in a
short lower-case word (``of``, ``the``, ``and``: at most three letters), leaves no bracket open, the
line after it does not begin in lower case, and it does not fill the page's text width (on a page of
``MIN_LINES_FOR_WIDTH`` lines or more, it is shorter than ``FULL_WIDTH`` of the length nine in ten of
the page's lines stay within: a line as long as a paragraph's lines is a paragraph's first line, such
as a numbered definition's). And it is one of:

- numbered: ``1.``, ``1)``, ``2.3`` or ``4.1.2.`` (at most four parts of at most three digits; a number
  of one part needs its ``.`` or ``)``, as a bare ``5`` begins table cells and amounts), then a title
  that begins with a capital letter; or a word naming a part of a document (Section, Part, Chapter,
  Article, Clause, Schedule, Annexure, Appendix) with a number, roman numeral or letter;
- in capitals: at least three letters, none of them lower case, and at least twice as many letters
  as digits (a code such as a product's UIN is no heading).

These are the ways typesetters and word processors mark headings in plain text. Extracted text keeps
no font sizes, so a heading set only in a larger font, in mixed case and unnumbered, is not found. A
numbered heading's level is its number of parts less one (``2`` contains ``2.1``); the others are
top-level.

In Markdown (``.md``) a heading is an ATX heading (``#`` to ``######``, outside fenced code); its
level is the number of ``#`` less one.

A section runs from its start to the start of the next section of the same or a higher level (a
smaller level number), or to the end of the document; it lies in the nearest section before it of a
higher level.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex

from ..documents import Document
from ..documents.outline import OutlineEntry, read_outline, short_title
from ..documents.sources import PDF_SUFFIXES
from ..scorers.grounding.folding import running_lines
from ..scorers.grounding.quotes import find_quote

MAX_HEADING_CHARS = 80
MAX_HEADING_WORDS = 12
MIN_LINES_FOR_WIDTH = 10  # fewer lines than this show no text width to measure a line against
FULL_WIDTH = 0.9  # a line this share of the page's long lines' length, or longer, fills the width

Position = tuple[int, int]  # (1-based page, character offset in that page's extracted text)


@dataclass(frozen=True)
class Section:
    title: str
    level: int  # 0 is top-level
    start: Position
    end: Position  # exclusive: the next section's start at this level or above, or past the end
    parent: int | None = None  # the index of the section it lies in, among the document's sections

    def overlaps(self, start: Position, end: Position) -> bool:
        """Whether the stretch [start, end) shares a character with this section."""
        return start < self.end and self.start < end


@dataclass(frozen=True)
class Sections:
    """A document's sections in reading order, and where they came from: "outline", "headings" (the
    rule above, on the extracted text) or "markdown"."""

    origin: str
    sections: tuple[Section, ...]
    note: str | None = None  # why a PDF's outline was not used: it could not be read


def document_sections(document: Document, root: Path) -> Sections:
    """The sections of `document`, a file under `root`: its outline's, else its headings'."""
    suffix = Path(document.path).suffix.lower()
    note = None
    if suffix in PDF_SUFFIXES:
        entries, note = read_outline(root / document.path)
        if entries:
            return Sections("outline", _outline_sections(entries, document.pages))
    if suffix == ".md":
        return Sections("markdown", nested(list(markdown_headings(document.pages)), len(document.pages)))
    return Sections("headings", nested(list(text_headings(document.pages)), len(document.pages)), note)


# --- the outline -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    title: str
    level: int
    start: Position


def _outline_sections(entries: Sequence[OutlineEntry], pages: Sequence[str]) -> tuple[Section, ...]:
    placed = [
        Heading(entry.title, entry.level, (entry.page, _title_offset(entry.title, pages[entry.page - 1])))
        for entry in entries
        if 1 <= entry.page <= len(pages)
    ]
    return nested(placed, len(pages))


def _title_offset(title: str, page: str) -> int:
    found = find_quote(title, [page], fuzzy=False) if title.strip() else None
    return found.span[0] if found is not None else 0


# --- headings in the text --------------------------------------------------------------------------


_NUMBERED = regex.compile(r"(\d{1,3}(?:\.\d{1,3}){1,3}\.?|\d{1,3}[.)])\s+\p{Lu}")
_DIGITS = regex.compile(r"\d+")
_SHORT_LOWER_END = regex.compile(r"(?:^|\s)\p{Ll}{1,3}$")
_NAMED_PART = regex.compile(
    r"(?:section|part|chapter|article|clause|schedule|annexure|appendix)\s+(?:\d{1,3}|[ivxlc]{1,6}|\p{L})\b",
    regex.IGNORECASE,
)
_WORD = regex.compile(r"[\p{L}\p{M}]{2,}")
_SENTENCE_END = (".", ",", ";")
_ATX = regex.compile(r"(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_FENCE = regex.compile(r"`{3,}|~{3,}")


def heading_level(line: str) -> int | None:
    """The level of a line (whitespace collapsed) that is a heading by the rule of the module
    docstring, else None. The line after it is not looked at here (``text_headings`` does)."""
    if not _short(line) or not _whole(line):
        return None
    numbered = _NUMBERED.match(line)
    if numbered:
        return len(_DIGITS.findall(numbered.group(1))) - 1
    if _NAMED_PART.match(line) or _in_capitals(line):
        return 0
    return None


def _short(line: str) -> bool:
    words = len(line.split())
    return len(line) <= MAX_HEADING_CHARS and words <= MAX_HEADING_WORDS and _WORD.search(line) is not None


def _whole(line: str) -> bool:
    """Whether a line ends as a title may, not as a wrapped sentence's first line does."""
    if not line[:1].isalnum() or line.endswith(_SENTENCE_END) or _SHORT_LOWER_END.search(line):
        return False
    return all(line.count(opening) <= line.count(closing) for opening, closing in ("()", "[]"))


def _in_capitals(line: str) -> bool:
    letters = [char for char in line if char.isalpha()]
    digits = sum(char.isdigit() for char in line)
    cased = [char for char in letters if char.isupper() or char.islower()]
    capitals = bool(cased) and all(char.isupper() for char in cased)
    return capitals and len(letters) >= 3 and len(letters) >= 2 * digits


def text_headings(pages: Sequence[str]) -> Iterator[Heading]:
    """The heading lines of extracted pages, in reading order (the rule of the module docstring)."""
    for number, (page, (body_start, body_end)) in enumerate(zip(pages, running_lines(pages)), 1):
        lines = [(offset, line) for offset, line in _lines(page) if body_start <= offset < body_end]
        widest = _text_width([line for _, line in lines])
        for index, (offset, line) in enumerate(lines):
            following = lines[index + 1][1] if index + 1 < len(lines) else ""
            level = heading_level(line)
            if level is not None and not following[:1].islower() and len(line) < FULL_WIDTH * widest:
                yield Heading(line, level, (number, offset))


def _text_width(lines: Sequence[str]) -> float:
    """The length nine in ten of a page's lines stay within (its text width, in characters), or
    infinity for a page of too few lines to tell."""
    if len(lines) < MIN_LINES_FOR_WIDTH:
        return float("inf")
    lengths = sorted(len(line) for line in lines)
    return float(lengths[int(len(lengths) * 0.9)])


def _lines(page: str) -> Iterator[tuple[int, str]]:
    """Each non-blank line's offset in the page (its first character) and its text, whitespace collapsed."""
    offset = 0
    for raw in page.split("\n"):
        line = " ".join(raw.split())
        if line:
            yield offset + len(raw) - len(raw.lstrip()), line
        offset += len(raw) + 1


def markdown_headings(pages: Sequence[str]) -> Iterator[Heading]:
    """The ATX headings of a Markdown text, outside fenced code blocks."""
    fence = ""
    for number, page in enumerate(pages, 1):
        offset = 0
        for raw in page.split("\n"):
            marker = _FENCE.match(raw.lstrip())
            if marker and (not fence or marker.group().startswith(fence)):
                fence = "" if fence else marker.group()
            heading = _ATX.match(raw) if not fence and not marker else None
            if heading:
                yield Heading(short_title(heading.group(2)), len(heading.group(1)) - 1, (number, offset))
            offset += len(raw) + 1


def nested(headings: Sequence[Heading], pages: int) -> tuple[Section, ...]:
    """Sections from headings: each ends where the next heading of its level or a higher one starts
    (past the last page for the last ones), and lies in the nearest earlier one of a higher level."""
    ordered = sorted(headings, key=lambda heading: heading.start)
    ends: list[Position] = [(pages + 1, 0)] * len(ordered)
    parents: list[int | None] = [None] * len(ordered)
    open_: list[int] = []  # the sections still open, each inside the one before it
    for index, heading in enumerate(ordered):
        while open_ and ordered[open_[-1]].level >= heading.level:
            ends[open_.pop()] = heading.start
        parents[index] = open_[-1] if open_ else None
        open_.append(index)
    return tuple(
        Section(heading.title, heading.level, heading.start, end, parent)
        for heading, end, parent in zip(ordered, ends, parents)
    )


__all__ = [
    "Section",
    "Sections",
    "document_sections",
    "heading_level",
    "markdown_headings",
    "nested",
    "text_headings",
]
