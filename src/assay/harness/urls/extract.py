"""The URLs a project cites, found in its files: facts (JSON), gold sets (JSONL), Markdown and text
corpora, and plain lists of URLs; each normalised (``normalise_url``), found once, with every place
("file:line") it was written.

A file is read by its suffix: ``.json`` is one JSON document, ``.jsonl``/``.ndjson`` one per line, the
Markdown, text and table suffixes are scanned as text (a CSV line cell by cell), and a plain list
(``.txt``, ``.list``, ``.urls``, or any other file named on its own) is text whose lines starting with
``#`` are comments. A folder is searched (not its hidden entries) for files with the known suffixes.

In JSON a URL field (``url``, ``source_url``, ``href``, any key ending ``_url``) is read whole (or
URL by URL, when it holds several), and every other text is scanned for URLs. That one rule reads
both facts layouts (``source_url``, and ``source.url`` of assay's schema), gold items, and a layout
written next year; a URL field that is null or empty is counted as skipped, and one holding no
http(s) URL is counted as unusable, not lost.

A URL is expected to be a PDF when its path ends ``.pdf`` or where it was found says so: a key with
``pdf`` in its name (``pdf_url``), a type field beside it (``"type": "pdf"``), or a Markdown link whose
text says PDF (``[Policy wording (PDF)](https://...)``).

Memory stays bounded: text and JSONL are streamed a line at a time (a very long line in pieces of a
MiB), and a JSON document over ``MAX_JSON_BYTES`` is refused with the fix (write it as JSONL).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import html
import json
import os
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import regex

from ...documents.walk import FolderWarning, walk_folder
from ...errors import InputError
from .lines import MAX_RECORD_BYTES as MAX_RECORD_BYTES  # re-exported: their public home was here
from .lines import PIECE_BYTES as PIECE_BYTES
from .lines import lines_of, refuse_utf16_and_utf32, unreadable
from .normalise import normalise_url, url_problem, without_wrappers

JSON_SUFFIXES = frozenset({".json"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
CSV_SUFFIXES = frozenset({".csv"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".rst", ".tsv"}) | MARKDOWN_SUFFIXES | HTML_SUFFIXES | CSV_SUFFIXES
LIST_SUFFIXES = frozenset({".txt", ".list", ".urls"})
KNOWN_SUFFIXES = JSON_SUFFIXES | JSONL_SUFFIXES | TEXT_SUFFIXES | LIST_SUFFIXES

MAX_JSON_BYTES = 64 << 20  # one JSON document is parsed whole; a bigger one belongs in JSONL
MAX_SHOWN_CHARS = 300  # of a malformed URL's text, kept to report it (a 10,000-character one is cut)
SHOWN_WITHOUT = 5  # places of plain-list lines without a URL, kept to name them
_OPENERS = "<([{*\"'`"

# A URL in running text: the scheme, an IPv6 literal if any, then everything up to a space, a quote, an
# angle bracket or a square bracket (Markdown's "[text](url)" and "<url>" end there); trailing
# punctuation and an unbalanced ")" are normalise_url's to drop. CJK punctuation ends one too.
_URL = regex.compile(
    r"https?://(?:\[[0-9A-Fa-f:.]+\])?[^\s<>\"'`\[\]{}|\\^\u3001\u3002\uff0c\uff08\uff09\u300c-\u300f\u3010\u3011]*",
    regex.IGNORECASE,
)
# The word an http(s) scheme starts, up to a space, a quote or an angle bracket: what a URL the pattern
# above could not take whole was written as ("http://[fe80::1%25eth0]/", "http://[::1").
_ATTEMPT = regex.compile(r"https?://[^\s<>\"'`]*", regex.IGNORECASE)
# A Markdown link's destination in angle brackets, which CommonMark lets hold spaces:
# "[text](<https://x/a b>)" and "[label]: <https://x/a b>" cite https://x/a%20b, not https://x/a.
_ANGLED_DESTINATION = regex.compile(
    r"(?:\]\(\s*|^ {0,3}\[[^\]\n]+\]:\s*)<(https?://[^<>\n]*)>", regex.IGNORECASE
)
# A Markdown link's text and the start of its destination, to read "(PDF)" in the text.
# Found from its "](" and read back to its "[" (see _pdf_links): a pattern starting at every "[" would
# try 500 characters from each, and a line of a million "[" took 14 s.
_LINK_TAIL = regex.compile(r"\]\(\s*+<?(?=https?://)", regex.IGNORECASE)
LINK_TEXT_CHARS = 500  # a Markdown link's text read for "PDF"
_SAYS_PDF = regex.compile(r"\bpdf\b", regex.IGNORECASE)
# A key whose text is a URL as a whole (any case, "-" or "_" before the word).
_URL_KEY = regex.compile(r"(?:^|[_-])(?:url|uri|href|link)$", regex.IGNORECASE)
# Keys beside a URL that can say what it points at.
_TYPE_KEYS = frozenset(
    {"type", "kind", "format", "content_type", "mime_type", "media_type", "document_type", "source_type"}
)


@dataclass(frozen=True)
class FoundUrl:
    """One URL (normalised) and every place it was written."""

    url: str  # normalised; for a malformed URL, the text as written (cut at MAX_SHOWN_CHARS)
    expect_pdf: bool  # the path ends .pdf, or where it was found says it is a PDF
    places: tuple[str, ...]  # "file:line", first seen first, each once
    malformed: str = ""  # why the text written is no URL the checker may ask: it is broken, unasked


@dataclass(frozen=True)
class UrlScan:
    """What reading the files found: the URLs, each file read with how many URLs were written in it,
    and the URL fields that gave nothing (``skipped``: null or empty; ``unusable``: no http(s) URL)."""

    found: tuple[FoundUrl, ...]
    files: tuple[tuple[str, int], ...]
    skipped: tuple[str, ...] = ()
    unusable: tuple[tuple[str, str], ...] = ()  # (place, the text)
    dead_links: tuple[str, ...] = ()  # links in a folder searched that lead to no file: not read
    list_lines: ListLines | None = None  # how the lines of the plain lists read were counted

    @property
    def files_without_urls(self) -> tuple[str, ...]:
        return tuple(name for name, count in self.files if count == 0)


@dataclass(frozen=True)
class ListLines:
    """Every line of the plain lists read, counted once: it holds a URL (malformed ones too), it is blank
    or a comment, or it holds no http(s) URL (a note, an ``ftp://`` link), which is named, not lost."""

    read: int = 0
    with_urls: int = 0
    blank_or_comment: int = 0
    without_urls: int = 0
    first_without: tuple[str, ...] = ()  # the places of the first few lines without one


def urls_in(paths: Sequence[Path]) -> list[FoundUrl]:
    """The URLs in the files (and folders) `paths`, deduplicated after normalisation, first seen first."""
    return list(scan_urls(paths).found)


def scan_urls(paths: Sequence[Path]) -> UrlScan:
    """Read every file of `paths` (folders searched) for URLs; see the module's docstring."""
    collector = _Collector()
    read: set[str] = set()
    dead: list[str] = []
    for path in paths:
        files, dead_links = _files_to_read(path)
        dead += map(str, dead_links)
        for file in files:
            if (real := os.path.realpath(file)) not in read:  # a file given, and again in its folder
                read.add(real)
                collector.start(str(file))
                _read_file(file, str(file), collector)
    return dataclasses.replace(collector.scan(), dead_links=tuple(dict.fromkeys(dead)))


def _files_to_read(path: Path) -> tuple[list[Path], list[Path]]:
    """`path` itself when a file; a folder's files with known suffixes, in sorted order, not its hidden
    entries (a macOS copy leaves binary ``._name.json`` beside every file) nor links to folders; and
    the folder's links with those suffixes that lead to no file (a loop, a target gone), to be said."""
    if path.is_file():
        return [path], []
    if not path.is_dir():
        if path.is_symlink() and not path.exists():
            what = "a symbolic link that leads to no file (a loop of links, or its target is gone)"
        else:
            what = "not a regular file or folder" if path.exists() else "no such file or folder"
        raise InputError(what, where=str(path), fix="give files or folders of facts, gold sets or text")
    walk = walk_folder(path, inside=False)  # never opens a FIFO, never follows a link to a folder
    known = [(relative, reason) for relative, reason in walk.skipped if _known(relative)]
    dead = [path / relative for relative, reason in known if reason.startswith(_DEAD_LINK)]
    others = [(relative, reason) for relative, reason in known if not reason.startswith(_DEAD_LINK)]
    if others:  # a FIFO, a subfolder that cannot be listed, a name that is not UTF-8: said, not read
        shown = "; ".join(f"{relative} ({reason})" for relative, reason in others[:3])
        warnings.warn(FolderWarning(f"{path}: {len(others)} entries not read: {shown}"), stacklevel=3)
    return [found.path for found in walk.files if _known(found.relative)], dead


_DEAD_LINK = (
    "a symbolic link whose target is gone",
    "a loop of symbolic links",
    "a symbolic link that leads",
)


def _known(relative: str) -> bool:
    return PurePosixPath(relative).suffix.casefold() in KNOWN_SUFFIXES


# --- collecting ----------------------------------------------------------------------------------------


@dataclass
class _Entry:
    expect_pdf: bool
    places: dict[str, None] = field(default_factory=dict)  # ordered, each place once
    malformed: str = ""


class _Collector:
    """The URLs found so far, each once, with the count per file and the empty and unusable fields."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._files: dict[str, int] = {}
        self._current = ""
        self._skipped: list[str] = []
        self._unusable: list[tuple[str, str]] = []
        self.added = 0  # URLs added so far (malformed ones too): a line that added none holds none
        self._lines: Counter[str] = Counter()
        self._without: list[str] = []

    def start(self, shown: str) -> None:
        self._current = shown
        self._files.setdefault(shown, 0)

    def add(self, url: str, line: int | None, *, says_pdf: bool = False, malformed: str = "") -> None:
        entry = self._entries.get(url)
        if entry is None:
            entry = self._entries[url] = _Entry(expect_pdf=False, malformed=malformed)
        entry.expect_pdf |= says_pdf or url.split("?", 1)[0].casefold().endswith(".pdf")
        entry.places[self.place(line)] = None
        self._files[self._current] += 1
        self.added += 1

    def add_malformed(self, written: str, line: int | None) -> None:
        """A URL written with an http(s) scheme that is no URL: kept, to be reported broken with why."""
        shown, reason = _malformed(written)
        self.add(shown, line, malformed=reason)

    def count_line(self, line: int, kind: str) -> None:
        """One line of a plain list: "url" (it held one), "blank" (or a comment), or "none"."""
        self._lines[kind] += 1
        if kind == "none" and len(self._without) < SHOWN_WITHOUT:
            self._without.append(self.place(line))

    def skip(self, line: int | None) -> None:
        self._skipped.append(self.place(line))

    def unusable(self, text: str, line: int | None) -> None:
        self._unusable.append((self.place(line), text))

    def place(self, line: int | None) -> str:
        return f"{self._current}:{line}" if line is not None else self._current

    def scan(self) -> UrlScan:
        found = tuple(
            FoundUrl(url, e.expect_pdf, tuple(e.places), e.malformed) for url, e in self._entries.items()
        )
        lines = None
        if self._lines:
            counts = self._lines
            read = counts["url"] + counts["blank"] + counts["none"]
            lines = ListLines(read, counts["url"], counts["blank"], counts["none"], tuple(self._without))
        scan = UrlScan(found, tuple(self._files.items()), tuple(self._skipped), tuple(self._unusable))
        return dataclasses.replace(scan, list_lines=lines)


@functools.lru_cache(maxsize=4096)  # a corpus writes one malformed URL many times, as it does a good one
def _malformed(written: str) -> tuple[str, str]:
    """A malformed URL as shown (unwrapped, cut at MAX_SHOWN_CHARS) and why it is one."""
    written = without_wrappers(written) or written
    shown = written if len(written) <= MAX_SHOWN_CHARS else f"{written[:MAX_SHOWN_CHARS]}…"
    return shown, url_problem(written) or "not a URL"


def _read_file(path: Path, shown: str, collector: _Collector) -> None:
    suffix = path.suffix.casefold()
    if suffix in JSON_SUFFIXES:
        _read_json(path, shown, collector)
    elif suffix in JSONL_SUFFIXES:
        for number, line in lines_of(path, shown, whole_lines=True):
            if line.strip():
                _read_json_value(_parse_record(line, shown, number), _Locator(line, number), collector)
    elif suffix in TEXT_SUFFIXES:
        # href="...?a=1&amp;b=2" asks for ?a=1&b=2; so does Markdown's, which reads character
        # references in link destinations too (CommonMark 0.31, section 2.5)
        entities = suffix in HTML_SUFFIXES | MARKDOWN_SUFFIXES
        for number, line in lines_of(path, shown, whole_lines=False):
            for text in _csv_cells(line) if suffix in CSV_SUFFIXES else [line]:
                _scan_text(text, number, collector, entities=entities)
    else:
        _read_list(path, shown, collector)


def _read_list(path: Path, shown: str, collector: _Collector) -> None:
    """A plain list: each line counted once (a URL, blank or a "#" comment, or none), so the lines with
    no http(s) URL are said, not lost. A line longer than PIECE_BYTES comes in pieces of one number."""
    number, kind = 0, ""
    for at, line in lines_of(path, shown, whole_lines=False):
        if at != number:
            if number:
                collector.count_line(number, kind)
            number, kind = at, "blank"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        before = collector.added
        _scan_text(line, at, collector)
        kind = "url" if collector.added > before or kind == "url" else "none"
    if number:
        collector.count_line(number, kind)


def _csv_cells(line: str) -> list[str]:
    """A CSV line's cells: the comma between two cells ends a URL (``a,https://x/p,b``), though a comma
    inside a URL is no end (``"https://x/p,q"`` is one quoted cell). A line the csv module refuses (a
    field over its size limit) is scanned whole."""
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return [line]


# A corpus writes the same URL many times (a footer on every page, a licence): each spelling is
# normalised once; bounded, so a file of millions of distinct URLs costs no more memory.
_normalised = functools.lru_cache(maxsize=4096)(normalise_url)


def _scan_text(text: str, line: int | None, collector: _Collector, *, entities: bool = False) -> None:
    """Every URL written in `text` (one line of it), Markdown links whose text says PDF marked; HTML's
    character references undone first when `entities`. A URL that is malformed is kept as written."""
    pdf_links = _pdf_links(text) if "](" in text else set()
    angled = {found.start(1): found.group(1) for found in _ANGLED_DESTINATION.finditer(text)}
    covered = 0  # the end of the last malformed word: a URL pattern inside it is part of it
    for found in _URL.finditer(text):
        if found.start() < covered:
            continue
        if (destination := angled.get(found.start())) is not None:  # its spaces are its own
            written = html.unescape(destination) if entities else destination
        else:
            written = _unescaped(found.group()) if entities else found.group()
        covered = _add_written(text, found, written, line, collector, says_pdf=found.start() in pdf_links)


def _pdf_links(text: str) -> set[int]:
    """Where the URL of each Markdown link whose text says PDF starts: each "](" before an http(s) URL,
    read back to the nearest "[" (at most LINK_TEXT_CHARS before it, with no "]" or line break between);
    a string search from each "](", so the work is linear in the line whatever its brackets."""
    starts = set()
    for tail in _LINK_TAIL.finditer(text):
        close = tail.start()
        opened = text.rfind("[", max(0, close - LINK_TEXT_CHARS - 1), close)
        if opened < 0:
            continue
        label = text[opened + 1 : close]
        if "]" not in label and "\n" not in label and _SAYS_PDF.search(label):
            starts.add(tail.end())
    return starts


def _add_written(
    text: str, found: regex.Match[str], written: str, line: int | None, c: _Collector, *, says_pdf: bool
) -> int:
    """The URL `found` in `text` (as `written`); when it is no URL as the pattern cut it ("http://[::1"
    stops at its "["), the whole word its scheme starts, as written: a malformed URL is reported broken
    with why, never dropped unsaid. Returns where in `text` the malformed word ends (0 for a URL): the
    caller skips the matches inside it, so "http://[http://[..." is one word, read once (linear)."""
    url, end = _normalised(written), 0
    if url is None:
        attempt = _ATTEMPT.match(text, found.start())
        written, end = (attempt.group(), attempt.end()) if attempt else (written, found.end())
        url = _normalised(written)
    if url is None:
        c.add_malformed(written, line)
    else:
        c.add(url, line, says_pdf=says_pdf)
    return end


def _unescaped(written: str) -> str:
    """A URL found in HTML or Markdown with its character references undone, and cut where what they
    stood for ends a URL: ``https://x/a&nbsp;and`` is ``https://x/a``, ``https://x/b&lt;/a>`` is
    ``https://x/b`` (the references were read as part of the URL, being no space or bracket)."""
    text = html.unescape(written)
    found = _URL.match(text)
    return found.group() if found else text


# --- JSON and JSONL ----------------------------------------------------------------------------------


def _read_json(path: Path, shown: str, collector: _Collector) -> None:
    from ..facts import read_json  # the one JSON reader: a repeated key, deep nesting, a BOM handled

    try:
        size = path.stat().st_size
    except OSError as exc:
        raise unreadable(shown, exc) from None
    if size > MAX_JSON_BYTES:
        raise InputError(
            f"the JSON file is {size:,} bytes, more than the {MAX_JSON_BYTES:,} read as one document",
            where=shown,
            fix="write it as JSON Lines (.jsonl: one JSON value per line), which is read a line at a time",
        )
    try:
        with path.open("rb") as stream:
            refuse_utf16_and_utf32(stream.read(4), shown)
    except OSError as exc:
        raise unreadable(shown, exc) from None
    text, data = read_json(path, "JSON file")
    _read_json_value(data, _Locator(text, 1), collector)


def _parse_record(line: str, shown: str, number: int) -> Any:
    from ...cells import ValueProblem, parse_json

    try:
        return parse_json(line)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg}, column {exc.colno})",
            where=f"{shown}:{number}",
            fix="correct that line: JSON Lines holds one JSON value per line",
        ) from None
    except ValueProblem as exc:
        raise InputError(exc.what, where=f"{shown}:{number}", fix=exc.fix) from None


class _Locator:
    """The line of each string the walk meets, found in the JSON text in the order the walk meets them
    (the parsed value keeps the text's order), so a search never goes back over the text. A string is
    looked for whole, quotes and all: a URL that begins a later string (``https://x/d`` of
    ``https://x/doc``) is not it."""

    def __init__(self, text: str, first_line: int) -> None:
        self._text, self._at, self._line = text, 0, first_line

    def line_of(self, raw: str) -> int | None:
        """The line of the JSON string (key or value) whose parsed text is `raw`."""
        for spelled in dict.fromkeys([json.dumps(raw, ensure_ascii=False), json.dumps(raw)]):
            found = self._text.find(spelled, self._at)
            if found >= 0:
                self._line += self._text.count("\n", self._at, found)
                self._at = found + len(spelled)
                return self._line
        return None  # written with escapes the walk cannot spell (\/, \u0041): the file, not its line


def _read_json_value(value: Any, locator: _Locator, collector: _Collector) -> None:
    """Every URL in a parsed JSON value: URL fields whole, other text scanned."""
    if isinstance(value, dict):
        for key, item in value.items():
            if "://" in key:  # a mapping keyed by URL
                _read_json_value(key, locator, collector)
            if _URL_KEY.search(key) and not isinstance(item, dict | list):
                _url_field(key, item, value, locator, collector)
            else:
                _read_json_value(item, locator, collector)
    elif isinstance(value, list):
        for item in value:
            _read_json_value(item, locator, collector)
    elif isinstance(value, str) and _URL.search(value):
        _scan_string(value, locator.line_of(value), collector, says_pdf=False)


def _url_field(key: str, item: Any, siblings: Mapping[str, Any], locator: _Locator, c: _Collector) -> None:
    if item is None or (isinstance(item, str) and not item.strip()):
        c.skip(locator.line_of(key))
        return
    if not isinstance(item, str):
        c.unusable(json.dumps(item), locator.line_of(key))
        return
    line = locator.line_of(item)
    # Read whole (a space inside is the URL's own, %20), unless the field holds two URLs or more,
    # "https://a/x; https://b/y": two sources in one field, each cited, not one URL that joins them.
    several = list(_URL.finditer(item))
    if len(several) <= 1 and normalise_url(item) is None and not _URL.match(item.strip().lstrip(_OPENERS)):
        c.unusable(item, line)  # no http(s) URL at all (ftp://..., a note): nothing the check may ask
        return
    says_pdf = "pdf" in key.casefold() or any(
        name.casefold() in _TYPE_KEYS and isinstance(kind, str) and "pdf" in kind.casefold()
        for name, kind in siblings.items()
    )
    if len(several) > 1:
        _scan_string(item, line, c, says_pdf=says_pdf)
    elif (url := normalise_url(item)) is not None:
        c.add(url, line, says_pdf=says_pdf)
    else:
        c.add_malformed(item.strip(), line)


def _scan_string(value: str, line: int | None, c: _Collector, *, says_pdf: bool) -> None:
    """Every URL in a JSON string, as written (no Markdown or HTML read), malformed ones kept."""
    covered = 0
    for found in _URL.finditer(value):
        if found.start() >= covered:
            covered = _add_written(value, found, found.group(), line, c, says_pdf=says_pdf)
