"""Reading CSV fast and exactly as Python's csv module does, whole or in spans for several processes.

The file is read a few million bytes at a time, in pieces that end at a line break. A piece whose
every line is one row, each cell unquoted or quoted whole, is cut into cells in C straight from its
bytes (``_csvwrite.split_rows``, held to the csv module by tests/test_split_rows.py): that is nearly
every piece of a real file, and it skips decoding the text whole and the csv module's cell buffers.
Any other piece is decoded and read as text: in a piece with
no quote character, every line is one row whose cells are its comma-separated parts, which is what the
csv module would return, and splitting is several times faster (it counts at a million rows). A piece
with quotes goes to the csv module whole, and is taken as it comes when each of its lines turned out to
be one row. From the first piece where that fails (a quoted cell holding a line break, or a lone
carriage return), the csv module reads the rest of the file row by row, so quoted cells, line breaks
inside them and stray quotes mean exactly what they mean to Python and pandas.

A line longer than a piece (a 50 MB model response) is a piece of its own, and when it is a well-formed
row it is cut into cells with str.find, not by the csv module, whose cell buffer takes 4 bytes a
character grown by doubling: the row then costs about its own size twice, not seven times.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import mmap
import operator
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError

try:
    from . import _csvwrite
except ImportError:  # built without a C compiler: no row is known to be written as it was read
    _csvwrite = None  # type: ignore[assignment]

# Python's csv module refuses fields over 128 KiB by default; a model response can be longer than that.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

BLOCK_BYTES = 1 << 22  # bytes read at a time
BLOCK_ROWS = 8192  # rows per block on the csv-module path
LONG_LINE_CHARS = 1 << 20  # a one-line piece this long is read without the csv module (_long_line_block)

TextBlock = tuple[Sequence[int], list[list[str]]]  # the rows' line numbers, and the rows
# ... and, per row, 1 when the row is one line that csv.writer would write back as it stands (RawLines)
FlaggedBlock = tuple[Sequence[int], list[list[str]], bytes]


@dataclass(frozen=True)
class Span:
    """A run of whole rows of a CSV file: bytes [start, end). Its lines are numbered from 1; the caller
    knows how many lines come before it only once every span before it has been read (``LineTally``)."""

    start: int
    end: int


@dataclass
class LineTally:
    """How many lines a reader has consumed so far (the header's excluded)."""

    lines: int = 0


class SpanMisaligned(InputError):
    """A span ended inside a quoted cell: the cut between spans was not a row boundary after all.

    A stray quote inside an unquoted cell (which the csv module accepts) can fool the quote count
    that places the cuts; the file is then read in one process instead.
    """


@dataclass
class RawLines:
    """Which rows read from a CSV file are their own line exactly as csv.writer writes their cells, so
    that ``--out`` can copy the line's bytes instead of writing each cell again (``report.rows``).

    The rows come from the lines of bytes [start, end) of `path`, whose first line is numbered
    `first_line`. `verbatim` holds a 1 or 0 per row read, and `lines` the number of the line it starts
    on, as read (a span's lines from 1; ``Record.row`` is renumbered later): that number minus
    `first_line` is the line's index in the bytes. Up to the first piece the csv module reads (a quoted
    line break, a lone carriage return), every line ends in "\\n", so that index counts line ends;
    rows after it are never flagged."""

    path: Path
    start: int
    end: int
    first_line: int
    verbatim: bytearray
    lines: array[int] = field(default_factory=lambda: array("q"))  # the line each row read starts on
    stamp: tuple[int, int] = (0, 0)  # the file's size and time of change when it was read

    def unchanged(self) -> bool:
        """Whether the file is as it was when it was read (size and time of change)."""
        try:
            return _stamp(self.path) == self.stamp
        except OSError:
            return False


def _stamp(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_size, found.st_mtime_ns


@dataclass(frozen=True)
class Header:
    """The column names, and where the header ends as the csv module reads it: after blank lines before
    it, a quoted name holding a line break, a stray quote or a lone carriage return, all as it has them."""

    names: list[str]
    lines: int  # the lines it takes, blank lines before it included
    end: int  # the byte offset just past it, a BOM included


def read_header(path: Path) -> Header:
    with path.open("rb") as raw:
        bom = len(codecs.BOM_UTF8) if raw.read(3) == codecs.BOM_UTF8 else 0
    consumed: list[str] = []

    def lines(handle: io.TextIOWrapper) -> Iterator[str]:  # the lines the csv module asks for, kept
        for line in iter(handle.readline, ""):
            consumed.append(line)
            yield line

    with open_text(path, None) as handle:
        reader = csv.reader(lines(handle))
        names = next((row for row in reader if row), None)
    if not names:
        raise InputError("the CSV file has no header row", where=str(path), fix="add a header line")
    return Header(names, reader.line_num, bom + len("".join(consumed).encode("utf-8")))


def raw_lines(path: Path, header: Header, span: Span | None) -> RawLines | None:
    """What csv_blocks fills in, as it reads, about the rows it gives (None without the C writer)."""
    if _csvwrite is None:
        return None
    stamp = _stamp(path)
    if span is None:
        return RawLines(path, header.end, stamp[0], header.lines + 1, bytearray(), stamp=stamp)
    return RawLines(path, span.start, span.end, 1, bytearray(), stamp=stamp)


def csv_blocks(
    path: Path,
    header: Header,
    span: Span | None,
    limit: int | None = None,
    tally: LineTally | None = None,
    raw: RawLines | None = None,
) -> Iterator[TextBlock]:
    """The rows after the header, or of one span, in blocks; ragged rows raise, naming their line.
    With `raw` (from ``raw_lines`` of the same span), which rows are their line as csv.writer writes it.

    A span is read strictly: text that ends inside a quoted cell raises SpanMisaligned.
    """
    strict, first_line, width = span is not None, 1, len(header.names)
    if span is None:
        span, first_line = Span(header.end, path.stat().st_size), header.lines + 1
    tally = tally or LineTally()
    with _open_bytes(path, span) as handle:
        blocks = _blocks(_line_aligned(handle), first_line, path, tally, strict=strict, flag=raw is not None)
        left = sys.maxsize if limit is None else limit
        for locations, rows, verbatim in blocks:
            locations, rows = locations[:left], rows[:left]  # rows past --limit are neither used nor checked
            _check_widths(locations, rows, width, path)
            if raw is not None:
                raw.verbatim += verbatim[:left]
                raw.lines.extend(locations)
            yield locations, rows
            left -= len(rows)
            if left <= 0:
                return


def open_text(path: Path, span: Span | None) -> io.TextIOWrapper:
    """The file (or one span of it) as text; newline="" keeps line ends for the csv module."""
    raw: io.RawIOBase = _ByteSpan(path, span.start, span.end) if span else io.FileIO(path)
    encoding = "utf-8" if span else "utf-8-sig"  # a BOM can only stand at the start of the file
    # (a span never holds it: the first starts after the header)
    return io.TextIOWrapper(io.BufferedReader(raw, 1 << 20), encoding=encoding, newline="")


def _open_bytes(path: Path, span: Span) -> io.BufferedReader:
    return io.BufferedReader(_ByteSpan(path, span.start, span.end), 1 << 20)


def _blocks(
    pieces: Iterator[bytes], line: int, path: Path, tally: LineTally, *, strict: bool, flag: bool = False
) -> Iterator[FlaggedBlock]:
    """Blocks of rows, each with its rows' flags (``RawLines.verbatim``; all 0 unless `flag`).

    A piece of plain rows (each line one row, each cell unquoted or quoted whole) is cut into cells
    in C straight from its bytes (``_csvwrite.split_rows``); any other piece is decoded and read as
    text below."""
    for data in pieces:
        plain = _split_rows(data)
        if plain is not None:
            count = len(plain[0])
            tally.lines += count
            yield range(line, line + count), plain[0], plain[1] if flag else bytes(count)
            line += count
            continue
        text = data.decode("utf-8")
        del data
        block = _long_line_block(text, line) if len(text) >= LONG_LINE_CHARS else None
        verbatim = None  # a long line is written again cell by cell, in slices (report.rows)
        if block is None:
            lines = _plain_lines(text)
            if lines is not None:
                if '"' not in text:
                    block = _split_block(lines, line)
                    verbatim = bytes([1]) * len(block[1])  # no quote: csv.writer quotes no cell
                else:
                    found = _one_row_per_line(lines, line, flag=flag)
                    block, verbatim = (found[0], found[1]) if found is not None else (None, None)
            del lines
        if block is None:  # a quoted cell spans lines here, or a carriage return stands alone
            decoded = map(bytes.decode, pieces)  # UTF-8: each piece ends at a line break
            rest = _csv_module_blocks(itertools.chain([text], decoded), line, path, tally, strict=strict)
            yield from ((locations, rows, bytes(len(rows))) for locations, rows in rest)
            return
        del text  # a long row's cells are copies of it: it is not held while they are used
        locations, rows, count = block
        tally.lines += count
        line += count
        yield locations, rows, verbatim if flag and verbatim is not None else bytes(len(rows))


def _split_rows(data: bytes) -> tuple[list[list[str]], bytes] | None:
    """The plain rows of a piece, in C (``_csvwrite.split_rows``), or None: read it as text. A piece that
    is one long line is always read as text, which cuts it into slices (``_long_line_block``)."""
    if _csvwrite is None or (len(data) >= LONG_LINE_CHARS and data.find(b"\n") in (-1, len(data) - 1)):
        return None
    return _csvwrite.split_rows(data)


def _line_aligned(handle: io.BufferedReader) -> Iterator[bytes]:
    """The bytes in pieces that each end at a line break (the last piece may not), so each piece is
    whole UTF-8 characters. A line longer than a chunk is a piece of its own, joined once when its line
    break comes (adding chunk after chunk to it would copy it again and again); the pieces are yielded,
    not held, so only the reader keeps them."""
    parts: list[bytes] = []  # the start of a line that has not ended yet
    while chunk := handle.read(BLOCK_BYTES):
        if not parts:
            cut = chunk.rfind(b"\n") + 1
            if cut:
                yield chunk if cut == len(chunk) else chunk[:cut]
            parts = [chunk[cut:]] if cut < len(chunk) else []
            continue
        end = chunk.find(b"\n") + 1
        if not end:
            parts.append(chunk)
            continue
        parts.append(chunk[:end])
        yield _joined(parts)
        cut = chunk.rfind(b"\n") + 1
        if cut > end:
            yield chunk[end:cut]
        parts = [chunk[cut:]] if cut < len(chunk) else []
    if parts:
        yield _joined(parts)


def _joined(parts: list[bytes]) -> bytes:
    """The parts as one string of bytes, the list emptied as they are joined (its copy and theirs are
    not both held longer than the join)."""
    data = b"".join(parts)
    parts.clear()
    return data


def _long_line_block(text: str, line: int) -> tuple[Sequence[int], list[list[str]], int] | None:
    """The row of a piece that is one long line, read with str.find; None for any other piece, or a
    line the csv module should read (a stray quote, a carriage return, a quoted cell left open).

    The csv module builds each cell in a buffer of 4 bytes a character, grown by doubling, before it
    makes the string: on a 50 MB cell that is several times the cell. Here each cell is one slice of the
    line (a quoted one with its doubled quotes made single), which is what the csv module returns for
    a well-formed line (RFC 4180: a cell quoted whole or holding no quote; tests hold the two equal).
    """
    first_break = text.find("\n")
    if first_break not in (-1, len(text) - 1):
        return None
    end = first_break if first_break != -1 else len(text)
    if first_break != -1 and text.endswith("\r\n"):
        end -= 1
    if text.find("\r", 0, end) != -1:
        return None
    cells = _well_formed_cells(text, end)
    if cells is None or max(map(len, cells)) > csv.field_size_limit():
        return None
    return _numbered([cells], line)


def _well_formed_cells(text: str, end: int) -> list[str] | None:
    """The cells of text[:end], one line without its line end; None unless each cell is quoted whole
    (inner quotes doubled) or holds no quote at all."""
    cells: list[str] = []
    at = 0
    while True:
        if at < end and text[at] == '"':
            close = _closing_quote(text, at + 1, end)
            if close == -1:
                return None
            cells.append(text[at + 1 : close].replace('""', '"'))
            at = close + 1
            if at == end:
                return cells
            if text[at] != ",":
                return None
            at += 1
            continue
        comma = text.find(",", at, end)
        stop = end if comma == -1 else comma
        if text.find('"', at, stop) != -1:
            return None
        cells.append(text[at:stop])
        if comma == -1:
            return cells
        at = comma + 1


def _closing_quote(text: str, start: int, end: int) -> int:
    """Where the quoted cell opened just before `start` closes (its doubled quotes skipped), or -1."""
    at = start
    while (quote := text.find('"', at, end)) != -1:
        if quote + 1 < end and text[quote + 1] == '"':
            at = quote + 2
        else:
            return quote
    return -1


def _plain_lines(text: str) -> list[str] | None:
    """The lines of text whose every line ends in "\\n", or every line in "\\r\\n" (RFC 4180, Excel);
    None for text with any other carriage return."""
    breaks = text.count("\n")
    returns = text.count("\r")
    if returns and returns != breaks:
        return None
    lines = text.split("\r\n" if returns else "\n")
    if len(lines) != breaks + 1:  # "\r\n" line ends beside a lone "\n"
        return None
    if not lines[-1]:
        lines.pop()  # the text ends with a line break
    return lines


def _split_block(lines: list[str], line: int) -> tuple[Sequence[int], list[list[str]], int]:
    rows = list(map(str.split, lines, itertools.repeat(",")))
    if "" in lines:  # a blank line: no row, which the csv module gives as an empty list
        rows = [row if text else [] for text, row in zip(lines, rows)]
    return _numbered(rows, line)


def _numbered(rows: list[list[str]], line: int) -> tuple[Sequence[int], list[list[str]], int]:
    """Rows one per line from `line` on, with the line each starts on; blank lines (empty rows) left out."""
    if all(rows):
        return range(line, line + len(rows)), rows, len(rows)
    kept = [(line + i, row) for i, row in enumerate(rows) if row]
    return [at for at, _ in kept], [row for _, row in kept], len(rows)


def _one_row_per_line(
    lines: list[str], line: int, *, flag: bool = False
) -> tuple[tuple[Sequence[int], list[list[str]], int], bytes] | None:
    """The csv module's rows of lines in which every line is one row (or blank), with the flags of the
    rows that csv.writer writes as their line (with `flag`; else all 0); None for other lines.

    Parsed strictly, lines that end inside a quoted cell raise, and a line count equal to the row count
    means no cell spans lines: then row i starts on line i, with no bookkeeping per row. Such rows need
    no line ends, so the lines (from _plain_lines) come without them.
    """
    try:
        rows = list(csv.reader(lines, strict=True))
    except csv.Error:
        return None
    if len(rows) != len(lines):
        return None
    flags = _csvwrite.minimal_rows(lines, rows) if flag and _csvwrite is not None else bytes(len(rows))
    if not all(rows):  # blank lines are no rows: nor flags
        flags = bytes(flags[i] for i, row in enumerate(rows) if row)
    return _numbered(rows, line), flags


def _csv_module_blocks(
    pieces: Iterable[str], line: int, path: Path, tally: LineTally, *, strict: bool
) -> Iterator[TextBlock]:
    """The csv module's rows with the line each starts on. In a span (`strict`), text that ends inside
    a quoted cell raises SpanMisaligned."""
    reader = csv.reader(itertools.chain.from_iterable(map(_lines_with_ends, pieces)), strict=strict)
    locations: list[int] = []
    rows: list[list[str]] = []
    lines_before = 0
    try:
        for values in reader:
            if values:  # a blank line is not a row
                locations.append(line + lines_before)  # where the row starts: a quoted cell may span lines
                rows.append(values)
                if len(rows) == BLOCK_ROWS:
                    yield locations, rows
                    locations, rows = [], []
            lines_before = reader.line_num
    except csv.Error as exc:
        where = f"{path} line {line + lines_before}"
        if strict:
            raise SpanMisaligned(f"unreadable CSV row in a span ({exc})", where=where) from None
        raise InputError(
            f"unreadable CSV row ({exc})", where=where, fix="check the quoting of this row"
        ) from None
    tally.lines += reader.line_num
    if rows:
        yield locations, rows


def _lines_with_ends(piece: str) -> Iterable[str]:
    """The lines of a piece, each with its line end, as a file opened with newline="" gives them."""
    if piece.count("\r") != piece.count("\r\n"):  # a lone carriage return ends a line too
        return io.StringIO(piece, newline="")
    lines = piece.split("\n")  # faster than reading the piece through a StringIO
    last = lines.pop()  # "" when the piece ends with a line break
    return itertools.chain(map(operator.add, lines, itertools.repeat("\n")), [last] if last else [])


def _check_widths(locations: Sequence[int], rows: list[list[str]], width: int, path: Path) -> None:
    if set(map(len, rows)) <= {width}:
        return
    at, values = next((at, values) for at, values in zip(locations, rows) if len(values) != width)
    raise InputError(
        f"row has {len(values)} fields but the header has {width}",
        where=f"{path} line {at}",
        fix="quote cells that contain commas or line breaks, or fix the row",
    )


class _ByteSpan(io.RawIOBase):
    """Bytes [start, end) of a file, as a readable raw stream."""

    def __init__(self, path: Path, start: int, end: int) -> None:
        self._file = path.open("rb")
        self._file.seek(start)
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self._file.readinto(memoryview(buffer)[: self._left]) if self._left else 0
        self._left -= count
        return count

    def close(self) -> None:
        self._file.close()
        super().close()


# --- spans ---------------------------------------------------------------------------------------------


def split_spans(path: str | Path, parts: int) -> list[Span]:
    """Cut a CSV file into at most `parts` spans of whole rows, of about equal size, after the header.

    A cut goes at a line break outside quotes. A quote character toggles "inside a quoted cell" (an
    escaped quote is two of them, so it toggles twice): in well-formed CSV a line break is outside
    quotes exactly when the number of quote characters before it is even. A stray quote in an unquoted
    cell breaks that rule; a span read in `strict` mode then raises SpanMisaligned.
    """
    path = Path(path)
    if path.suffix.lower() != ".csv":
        raise UsageError(
            f"a {path.suffix or 'suffix-less'} file cannot be split", where=str(path), fix="read it whole"
        )
    header_end = read_header(path).end
    with path.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if path.stat().st_size else b""
    try:
        cuts = _row_boundaries(data, header_end, parts)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return [Span(start, end) for start, end in itertools.pairwise(cuts) if end > start]


def _row_boundaries(data: bytes | mmap.mmap, first: int, parts: int) -> list[int]:
    """The byte offset of each cut, the first (`first`, after the header) and the end of the data included."""
    quotes, position = 0, first

    def advance_to(target: int) -> None:  # count the quotes in [position, target)
        nonlocal quotes, position
        if position < target and data.find(b'"', position, target) != -1:  # find() copies nothing
            for block in range(position, target, 1 << 24):
                quotes += data[block : min(target, block + (1 << 24))].count(b'"')
        position = max(position, target)

    def next_cut(start: int) -> int:
        cut = data.find(b"\n", start)
        while cut != -1:
            advance_to(cut + 1)
            if quotes % 2 == 0:
                return cut + 1
            cut = data.find(b"\n", cut + 1)
        return len(data)

    cuts = [first]
    for part in range(1, parts):
        target = max(cuts[-1], first + (len(data) - first) * part // parts)
        cuts.append(next_cut(target) if target > cuts[-1] else cuts[-1])
    cuts.append(len(data))
    return cuts
