"""Read a table of rows from CSV, JSONL, a JSON array, Parquet or a pandas DataFrame.

Each reader yields ``(location, row)`` pairs: ``location`` is the 1-based line (CSV, JSONL) or
element/row number (JSON array, Parquet, DataFrame) used in error messages, and ``row`` is either a
list of raw cells aligned with ``Table.columns`` (CSV, Parquet, DataFrame) or a dict (JSON, whose rows
may add keys as they go). Cells are returned as they are; turning them into a ``Record`` is
``records.py``'s job. A CSV file can be read in byte spans (see ``split_spans``), so that
several processes share one large file. Text must be UTF-8 (a BOM is allowed): anything else is an error that names the
file and the byte offset, never a silent replacement character.
"""

from __future__ import annotations

import codecs
import csv
import json
import mmap
import sys
import io
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError

Row = Sequence[Any] | dict[str, Any]
Block = tuple[Sequence[int], Sequence[Row]]  # the rows' locations, and the rows
BLOCK_ROWS = 4096  # rows per block for the formats read row by row

SPLITTABLE = ("csv",)  # JSON Lines rows may differ in keys, so their shards could differ in columns
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet"}

# Python's csv module refuses fields over 128 KiB by default; a model response can be longer than that.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


@dataclass(frozen=True)
class Table:
    """A source's column names (in order of first appearance) and its rows, in blocks."""

    source: str
    columns: tuple[str, ...]
    blocks: Iterator[Block]
    location_kind: str  # "line" or "row": what the location number counts
    cells_are_text: bool = False  # every cell is a str (CSV): no missing values, no lists


def format_of(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise UsageError(
            f"cannot tell the format of '{path.name}' from its extension",
            where=str(path),
            fix=f"use one of {known}",
        )
    return fmt


@dataclass(frozen=True)
class Span:
    """A run of whole rows of a CSV or JSONL file: bytes [start, end), the first of which is on `first_line`."""

    start: int
    end: int
    first_line: int


def read_table(path: str | Path, span: Span | None = None) -> Table:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", where=str(path), fix="check the path passed to --responses")
    fmt = format_of(path)
    if fmt == "parquet":
        return _read_parquet(path)
    if _is_blank_file(path):
        raise InputError("the file is empty", where=str(path), fix="point --responses at a file with rows")
    if span is not None and fmt not in SPLITTABLE:
        raise UsageError(f"a {fmt} file cannot be read in spans", where=str(path), fix="read it whole")
    try:
        table = _read_csv(path, span) if fmt == "csv" else _read_jsonl(path) if fmt == "jsonl" else _read_json_array(path)
    except UnicodeDecodeError:
        _check_utf8(path)  # raises with the byte offset
        raise
    return Table(table.source, table.columns, _decoded(table.blocks, path), table.location_kind, table.cells_are_text)


def read_dataframe(frame: Any) -> Table:
    """Rows of a pandas DataFrame, without importing pandas (it is an optional dependency)."""
    columns = tuple(str(c) for c in frame.columns)
    if len(set(columns)) != len(columns):
        raise InputError("the DataFrame has duplicate column names", where="<DataFrame>", fix="rename them")

    rows = enumerate(frame.itertuples(index=False, name=None), start=1)
    return Table("<DataFrame>", columns, _in_blocks(rows), "row")


def _is_blank_file(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096)
    return len(head) < 4096 and not head.removeprefix(codecs.BOM_UTF8).strip()


def split_spans(path: str | Path, parts: int) -> list[Span]:
    """Cut a CSV file into at most `parts` spans of whole rows, of about equal size, after the header.

    A cut goes at a line break outside quotes. A quote character toggles "inside a quoted cell" (an
    escaped quote is two of them, so it toggles twice): a line break is outside quotes exactly when the
    number of quote characters before it is even.
    """
    path = Path(path)
    fmt = format_of(path)
    if fmt not in SPLITTABLE:
        raise UsageError(f"a {fmt} file cannot be split", where=str(path), fix="read it whole")
    with path.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if path.stat().st_size else b""
    try:
        boundaries = _row_boundaries(data, parts)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return [Span(start, end, line) for (start, line), (end, _) in zip(boundaries, boundaries[1:]) if end > start]


def _row_boundaries(data: bytes | mmap.mmap, parts: int) -> list[tuple[int, int]]:
    """(byte offset, line number of the row starting there) of each cut, first and last included."""
    quotes = lines = position = 0

    def advance_to(target: int) -> None:  # count quotes and line breaks in [position, target)
        nonlocal quotes, lines, position
        for block in range(position, target, 1 << 24):
            chunk = data[block : min(target, block + (1 << 24))]
            quotes += chunk.count(b'"')
            lines += chunk.count(b"\n")
        position = max(position, target)

    def next_cut(start: int) -> int:
        cut = data.find(b"\n", start)
        while cut != -1:
            advance_to(cut + 1)
            if quotes % 2 == 0:
                return cut + 1
            cut = data.find(b"\n", cut + 1)
        return len(data)

    first = next_cut(0)  # the header
    cuts = [(first, lines + 1)]
    for part in range(1, parts):
        target = max(cuts[-1][0], first + (len(data) - first) * part // parts)
        cut = next_cut(target) if target > cuts[-1][0] else cuts[-1][0]
        cuts.append((cut, lines + 1))
    cuts.append((len(data), 0))  # the end: no row starts there, so its line number is not needed
    return cuts


# --- encoding ------------------------------------------------------------------------------------------


def _decoded(blocks: Iterator[Block], path: Path) -> Iterator[Block]:
    """Pass blocks through; on a decoding error, find its byte offset (a second pass, only on failure)."""
    try:
        yield from blocks
    except UnicodeDecodeError:
        _check_utf8(path)
        raise


def _check_utf8(path: Path, chunk_size: int = 1 << 22) -> None:
    """Raise InputError at the first byte that is not UTF-8, streaming so a large file costs little memory."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    consumed = 0
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                _raise_not_utf8(path, consumed - pending + exc.start)
            consumed += len(chunk)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        _raise_not_utf8(path, consumed - len(exc.object) + exc.start)


def _raise_not_utf8(path: Path, offset: int) -> None:
    with path.open("rb") as handle:
        head = handle.read(offset + 4)
    line = head[:offset].count(b"\n") + 1
    bad = head[offset : offset + 4].hex(" ")
    hint = "re-save it as UTF-8 (for example: iconv -f latin1 -t utf-8 in > out)"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        hint = "the file is UTF-16; re-save it as UTF-8 (for example: iconv -f utf-16 -t utf-8 in > out)"
    raise InputError(
        f"not valid UTF-8 at byte offset {offset} (line {line}, bytes {bad})",
        where=str(path),
        fix=hint,
    )


# --- formats -------------------------------------------------------------------------------------------


def _open_text(path: Path, span: Span | None) -> io.TextIOWrapper:
    """The file (or one span of it) as text; newline="" keeps line ends for the csv module."""
    raw: io.RawIOBase = _ByteSpan(path, span.start, span.end) if span else io.FileIO(path)
    encoding = "utf-8" if span else "utf-8-sig"  # a BOM can only stand at the start of the file
    return io.TextIOWrapper(io.BufferedReader(raw, 1 << 20), encoding=encoding, newline="")


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


def _read_csv(path: Path, span: Span | None) -> Table:
    with _open_text(path, None) as handle:
        header = next(csv.reader(handle), None)
    if not header:
        raise InputError("the CSV file has no header row", where=str(path), fix="add a header line")
    _check_unique_columns(header, path)
    if span is None:
        handle = _open_text(path, None)
        header_reader = csv.reader(iter(handle.readline, ""))
        next(header_reader)  # the header again, leaving the handle at the first row
        first_line = header_reader.line_num + 1
    else:
        handle, first_line = _open_text(path, span), span.first_line
    return Table(str(path), tuple(header), _csv_blocks(handle, first_line, len(header), path), "line", True)


def _csv_blocks(handle: io.TextIOWrapper, first_line: int, width: int, path: Path) -> Iterator[Block]:
    """Blocks of CSV rows, a few million characters at a time, each ending at a row boundary."""
    line = first_line
    with handle:
        for text, has_quotes in _row_aligned_text(handle):
            lines = None if has_quotes else _plain_lines(text)
            if lines is None:
                locations, rows, count = _parse_with_csv(text, line, path)
            else:
                locations, rows, count = _parse_by_split(lines, line)
            _check_widths(locations, rows, width, path)
            line += count
            yield locations, rows


def _plain_lines(text: str) -> list[str] | None:
    """The lines of text that ends every line with "\\n", or every line with "\\r\\n" (RFC 4180, Excel);
    None for text with any other carriage return, which goes to the csv module."""
    breaks = text.count("\n")
    returns = text.count("\r")
    if returns and returns != breaks:
        return None
    lines = text.split("\r\n" if returns else "\n")
    if len(lines) != breaks + 1:  # a lone "\\n" beside "\\r\\n" line ends
        return None
    if not lines[-1]:
        lines.pop()  # the text ends with a line break
    return lines


def _parse_by_split(lines: list[str], line: int) -> tuple[Sequence[int], list[list[str]], int]:
    """Lines with no quote: each line is a row, its cells the comma-separated parts.

    That is what the csv module would return, only several times faster, which counts at a million rows.
    """
    count = len(lines)
    if "" in lines:  # blank lines are not rows
        kept = [(line + i, text) for i, text in enumerate(lines) if text]
        return [at for at, _ in kept], [text.split(",") for _, text in kept], count
    return range(line, line + count), list(map(str.split, lines, itertools.repeat(","))), count


def _parse_with_csv(text: str, line: int, path: Path) -> tuple[Sequence[int], list[list[str]], int]:
    lines = text.count("\n") + (not text.endswith("\n"))
    if text.count("\r") == text.count("\r\n"):  # no lone carriage return: lines are countable
        try:
            rows = list(csv.reader(io.StringIO(text, newline="")))
        except csv.Error:
            rows = []  # the row-by-row pass below says which line
        else:
            if len(rows) == lines and all(rows):  # no blank line, no cell spanning lines: row i is on line i
                return range(line, line + lines), rows, lines
    return _parse_row_by_row(text, line, path)


def _parse_row_by_row(text: str, line: int, path: Path) -> tuple[list[int], list[list[str]], int]:
    """The csv module's rows with the line each starts on, for text with blank lines or multi-line cells."""
    reader = csv.reader(io.StringIO(text, newline=""))
    locations: list[int] = []
    rows: list[list[str]] = []
    lines_before = 0
    try:
        for values in reader:
            if values:  # a blank line is not a row
                locations.append(line + lines_before)  # where the row starts: a quoted cell may span lines
                rows.append(values)
            lines_before = reader.line_num
    except csv.Error as exc:
        raise InputError(
            f"unreadable CSV row ({exc})", where=f"{path} line {line + lines_before}", fix="check its quoting"
        ) from None
    return locations, rows, reader.line_num


def _check_widths(locations: Sequence[int], rows: list[list[str]], width: int, path: Path) -> None:
    if set(map(len, rows)) <= {width}:
        return
    at, values = next((at, values) for at, values in zip(locations, rows) if len(values) != width)
    raise InputError(
        f"row has {len(values)} fields but the header has {width}",
        where=f"{path} line {at}",
        fix="quote cells that contain commas or line breaks, or fix the row",
    )


def _row_aligned_text(handle: io.TextIOWrapper, block_chars: int = 1 << 22) -> Iterator[tuple[str, bool]]:
    """The text in pieces that each end at a line break outside quotes, so no row straddles two pieces,
    each with whether it holds a quote character at all."""
    carry = ""
    while chunk := handle.read(block_chars):
        text = carry + chunk
        has_quotes = '"' in text
        cut = _last_row_end(text) if has_quotes else text.rfind("\n") + 1
        carry = text[cut:]
        if cut:
            yield text[:cut], has_quotes
    if carry:
        yield carry, '"' in carry


def _last_row_end(text: str) -> int:
    """The index just past the last line break outside quotes (an even number of quotes before it), or 0.

    `text` starts at a row boundary. A quote character toggles "inside a quoted cell"; an escaped
    quote is two of them, so it toggles twice.
    """
    quotes_before = text.count('"')
    end = len(text)
    cut = text.rfind("\n")
    while cut != -1:
        quotes_before -= text.count('"', cut, end)
        if quotes_before % 2 == 0:
            return cut + 1
        end, cut = cut, text.rfind("\n", 0, cut)
    return 0


def _read_jsonl(path: Path) -> Table:
    lines = _jsonl_objects(path)
    first = next(lines, None)
    if first is None:
        raise InputError("the file has no JSON objects", where=str(path), fix="add one object per line")
    columns = tuple(first[1])

    return Table(str(path), columns, _in_blocks(itertools.chain([first], lines)), "line")


def _jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with _open_text(path, None) as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"invalid JSON ({exc.msg}, column {exc.colno})",
                    where=f"{path} line {number}",
                    fix="write one JSON object per line",
                ) from None
            if not isinstance(value, dict):
                raise InputError(
                    f"expected a JSON object, found {type(value).__name__}",
                    where=f"{path} line {number}",
                    fix='write one object per line, like {"question": ..., "answer": ..., "response": ...}',
                )
            yield number, value


def _read_json_array(path: Path) -> Table:
    with path.open(encoding="utf-8-sig") as handle:
        try:
            value = json.load(handle)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON ({exc.msg})",
                where=f"{path} line {exc.lineno} column {exc.colno}",
                fix="fix the JSON, or save one object per line as .jsonl",
            ) from None
    if not isinstance(value, list) or not value:
        raise InputError(
            "expected a non-empty JSON array of objects",
            where=str(path),
            fix='write [{"question": ..., "answer": ..., "response": ...}, ...]',
        )
    for number, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise InputError(
                f"element {number} is {type(item).__name__}, not an object",
                where=str(path),
                fix="make every element of the array a JSON object",
            )
    return Table(str(path), _union_of_keys(value), _in_blocks(enumerate(value, start=1)), "row")


def _read_parquet(path: Path) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(
            "reading Parquet needs pyarrow, which is not installed",
            where=str(path),
            fix="pip install 'assay[parquet]'",
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise InputError(f"not a readable Parquet file ({exc})", where=str(path), fix="re-write it") from None
    columns = tuple(parquet.schema_arrow.names)
    _check_unique_columns(list(columns), path)

    def blocks() -> Iterator[Block]:
        number = 1
        for batch in parquet.iter_batches(batch_size=BLOCK_ROWS):
            rows = list(zip(*(column.to_pylist() for column in batch.columns)))
            yield range(number, number + len(rows)), rows
            number += len(rows)

    return Table(str(path), columns, blocks(), "row")


def _in_blocks(rows: Iterator[tuple[int, Row]]) -> Iterator[Block]:
    while chunk := list(itertools.islice(rows, BLOCK_ROWS)):
        locations, values = zip(*chunk)
        yield locations, values


def _union_of_keys(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return tuple(seen)


def _check_unique_columns(header: list[str], path: Path) -> None:
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(
            f"column names appear more than once: {', '.join(repeated)}",
            where=f"{path} header",
            fix="give every column a distinct name",
        )
