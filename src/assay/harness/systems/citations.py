"""The citations a reply writes in its text, read into Citations (for a system that gives none apart).

Three forms, read left to right, each citation once:

    [Source: <document>, p.N]   also (Source: ...), "pp. N-M", "page N", "pages 3, 5", "pg. N", no page at
                                all, "Sources:", "Ref:", "Citation:", and several sources in one bracket
                                separated by ';' ([Source: a, p.1; b, p.2]); a document name may hold
                                commas (the pages are read off its end: "doc, p.3, p.4"; then a place
                                in it after a comma, "doc, Section 4.2", is dropped); "[Source: 2]" is
                                the 2nd context
    [N], [1, 2], [1-3], [^1]    the Nth retrieved context (1-based): its document, page and offsets
    [doc:chunk]                 the document `doc`; the chunk gives the page when it is one (p3, page-3)

A page range is one citation per page, up to MAX_RANGE pages (a wider one keeps the document alone). A
number with no such context (the reply has 2 contexts and writes [3], or [0]) is kept as the citation of a
document named "[3]", which resolves to nothing: the grounding check fails it instead of never seeing it.
A number is not a citation when it is one of the text's own numbers: [2024] (more than 3 digits), [1.5],
[1,000] or [1,50,000] (thousands separators: no space after the comma, groups of 3 at the end).
Digits of every script count (``regex``'s \\d, and int() reads them).

Nor is prose between brackets a citation: a source longer than MAX_CITATION_CHARS, a document name
longer than MAX_DOCUMENT_CHARS, a page past MAX_PAGE (limits.py). Every pattern runs in time linear in
the text (a 200,000-character reply of "[a[a[a..." once took minutes), and ``most`` bounds the
citations one text may hold (limits.OverLimit past it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import regex

from ...parts import Citation, Context
from .limits import MAX_CITATION_CHARS, MAX_DOCUMENT_CHARS, MAX_PAGE, check_count

MAX_RANGE = 20  # pages in one cited range: "pp. 1-300" is not a page citation

_DASH = r"[-\u2013\u2014]"  # a hyphen, an en dash or an em dash
_LABEL = r"(?:sources?|refs?|references?|citations?|स्रोत)"
_AFTER_LABEL = r"(?:\s*[:\uff1a]\s*|\s+(?=\d+\s*[\])]))"  # "Source: x", or "Source 2" (a context by number)
_NUMBERS = rf"\d{{1,3}}(?:\s*(?:,|{_DASH})\s*\d{{1,3}})*"
_FORMS = regex.compile(
    rf"\[\s*{_LABEL}{_AFTER_LABEL}(?P<square>[^\[\]]+?)\s*\]"
    rf"|\(\s*{_LABEL}{_AFTER_LABEL}(?P<round>[^()]+?)\s*\)"
    rf"|\[\^?\s*(?P<numbers>{_NUMBERS})\s*\]"
    # The document holds a letter: looked for only among the document's own characters (a lookahead
    # over [^\]:\s]* ran past every "[" of "[a[a[a...": quadratic).
    r"|\[(?P<doc>(?=[\p{N}\p{M}_.\-/]*\p{L})[\p{L}\p{N}\p{M}_][\p{L}\p{N}\p{M}_.\-/]*):"
    r"(?P<chunk>[\p{L}\p{N}\p{M}_.\-#]+)\]",
    regex.IGNORECASE,
)
_THOUSANDS = regex.compile(r"\d{1,3}(?:,\d{2,3})*,\d{3}")  # 1,000 / 12,345 / 1,50,000 (no spaces)
_PAGE_LIST = rf"\d+(?:\s*(?:{_DASH}|to)\s*\d+)?(?:\s*(?:,|&|and)\s*\d+(?:\s*(?:{_DASH}|to)\s*\d+)?)*"
_PAGE_TAIL = regex.compile(
    rf"(?:^|[\s,(]+)(?:pp?\.|pp?\b|pgs?\.?|pages?|पृष्ठ)\s*:?\s*(?P<pages>{_PAGE_LIST})\s*\)?\s*$",
    regex.IGNORECASE,
)
_PAGE_PIECE = regex.compile(rf"(\d+)(?:\s*(?:{_DASH}|to)\s*(\d+))?", regex.IGNORECASE)
# A place inside the document written after its name and a comma: not part of the name.
_LOCATOR = regex.compile(
    r"\s*,\s*(?:section|sec\.|clause|para(?:graph)?|article|art\.|chapter|ch\.|table|annexure|annex|"
    r"schedule|appendix|part|§)\s*[\p{L}\p{N}.()\-]*\s*$",
    regex.IGNORECASE,
)
_COMMA = regex.compile(r"\s*,\s*")
_RANGE_DASH = regex.compile(rf"\s*{_DASH}\s*")
_CHUNK_PAGE = regex.compile(r"(?:p|pg|page)[.\-_]?(\d+)", regex.IGNORECASE)


def citations_in_text(
    text: str, contexts: Sequence[Context] = (), most: int | None = None
) -> tuple[Citation, ...]:
    """Every citation written in `text`, in order, each once; [N] is the Nth of `contexts`. More than
    `most` of them is limits.OverLimit, raised as soon as they are counted."""
    found: dict[Citation, None] = {}
    numbered, seen = _Numbered(contexts), set[str]()
    for match in _FORMS.finditer(text):
        if (written := match.group()) in seen:
            continue  # a citation written again cites nothing new
        seen.add(written)
        found.update(dict.fromkeys(_citations_of(match, numbered)))
        if most is not None:
            check_count(len(found), "citations in its text (at least)", most)
    return tuple(found)


def citation_of_text(text: str, contexts: Sequence[Context] = ()) -> tuple[Citation, ...]:
    """The citations of one citation string a system gave apart from its text: the forms above (with
    or without their brackets: "doc:p13"), or else the string as one source ("doc p.3", "doc, page 3",
    "3": a context)."""
    found = citations_in_text(text, contexts)
    if not found and "[" not in text and "]" not in text:  # "doc:p13" is [doc:p13] without its brackets
        found = citations_in_text(f"[{text.strip()}]", contexts)
    return found if found else tuple(dict.fromkeys(_entry(text, _Numbered(contexts))))


class _Numbered:
    """The contexts a text cites by number, each number's citation made once, when it is first cited
    (a number cited again adds nothing): a text of 28,000 "[1-20]" cites 560,000 times, and a
    Citation made, hashed and compared each time cost seconds."""

    def __init__(self, contexts: Sequence[Context]) -> None:
        self.contexts, self.cited = contexts, set[int]()

    def first_cited(self, numbers: Iterable[int]) -> Iterator[Citation]:
        for number in numbers:
            if number not in self.cited:
                self.cited.add(number)
                yield _context_citation(number, self.contexts)


def _citations_of(match: regex.Match[str], numbered: _Numbered) -> Iterator[Citation]:
    body = match.group("square") or match.group("round")
    if body is not None:
        for entry in body.split(";"):
            yield from _entry(entry, numbered)
    elif match.group("numbers") is not None:
        numbers = match.group("numbers")
        if _THOUSANDS.fullmatch(numbers):
            return  # a number of the text's own, written with thousands separators
        yield from numbered.first_cited(_expand(_COMMA.split(numbers)))
    elif len(match.group("doc")) <= MAX_DOCUMENT_CHARS:
        page = _CHUNK_PAGE.fullmatch(match.group("chunk"))
        yield Citation(match.group("doc"), _page_of(page.group(1)) if page else None)


def _entry(entry: str, numbered: _Numbered) -> Iterator[Citation]:
    """One source of a bracket: a context's number, or a document with the pages cited in it."""
    entry = entry.strip().strip(",").strip()
    if len(entry) > MAX_CITATION_CHARS:
        return  # prose between brackets, not a source
    if entry.isdecimal():
        yield from numbered.first_cited([int(entry)])
        return
    document, pages = entry, list[int]()
    while (tail := _PAGE_TAIL.search(document)) is not None:  # "doc, p.13, p.14": each page
        pages = _pages(tail.group("pages")) + pages
        document = document[: tail.start()].strip(" ,").strip()
    while (locator := _LOCATOR.search(document)) is not None:  # "doc, Section 4.2, p.13": the document
        document = document[: locator.start()].strip()
    if len(document) > MAX_DOCUMENT_CHARS:
        return
    if not pages:
        if document:
            yield Citation(document)
        return
    for page in dict.fromkeys(pages):
        yield Citation(document, page)


def _pages(text: str) -> list[int]:
    """The pages of "3", "3-5", "3, 5 and 7"; a range wider than MAX_RANGE is no page at all."""
    pages: list[int] = []
    for piece in _PAGE_PIECE.finditer(text):
        first = int(piece.group(1))
        last = int(piece.group(2)) if piece.group(2) else first
        first, last = min(first, last), max(first, last)
        if last - first + 1 > MAX_RANGE:
            return []
        pages.extend(page for page in range(first, last + 1) if 1 <= page <= MAX_PAGE)
    return list(dict.fromkeys(pages))


def _page_of(digits: str) -> int | None:
    """A chunk's page ("p13"), or None past MAX_PAGE (no document has it: not a page)."""
    if len(digits) > len(str(MAX_PAGE)):
        return None
    page = int(digits)
    return page if page <= MAX_PAGE else None


def _expand(pieces: Sequence[str]) -> list[int]:
    """The numbers of the pieces "1", "1-3" (a range), in order."""
    numbers: list[int] = []
    for piece in pieces:
        ends = _RANGE_DASH.split(piece)
        if len(ends) == 2 and ends[0] and ends[1]:
            first, last = int(ends[0]), int(ends[1])
            if first <= last and last - first < MAX_RANGE:
                numbers.extend(range(first, last + 1))
                continue
        numbers.extend(int(end) for end in ends if end)
    return numbers


def _context_citation(number: int, contexts: Sequence[Context]) -> Citation:
    """The Nth context (1-based) as a citation; a number with no context names no document."""
    if not 1 <= number <= len(contexts):
        return Citation(f"[{number}]")
    context = contexts[number - 1]
    return Citation(context.document, context.page, context.start, context.end)
