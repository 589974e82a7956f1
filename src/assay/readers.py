"""Read a table of rows from CSV, TSV, JSONL, a JSON array, Parquet, Excel (.xlsx) or a pandas DataFrame.

Each reader yields blocks of rows, ``(locations, rows)``: a location is the 1-based line (CSV, JSONL)
or element/row number (JSON array, Parquet, DataFrame) used in error messages, and a row is either a
list of raw cells aligned with ``Table.columns`` (CSV, Parquet, DataFrame) or a dict (JSON, whose rows
may add keys as they go). Cells are returned as they are; turning them into a ``Record`` is
``records.py``'s job; CSV itself is ``csvfile.py``'s. Text must be UTF-8 (a BOM is allowed):
anything else is an error that names the file and the byte offset, never a silent replacement character.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import itertools
import json
import math
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .cells import ValueProblem, parse_json, position, unrepresentable
from .csvfile import LineTally, RawLines, Span, csv_blocks, raw_lines, read_header
from .errors import AssayError, InputError, UsageError
from .extras import missing_extra

Row = Sequence[Any] | dict[str, Any]
Block = tuple[Sequence[int], Sequence[Row]]  # the rows' locations, and the rows
BLOCK_ROWS = 4096  # rows per block for the formats read row by row

SPLITTABLE = ("csv",)  # JSON Lines rows may differ in keys, so their shards could differ in columns
FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
           ".parquet": "parquet", ".xlsx": "xlsx"}  # fmt: skip
WHOLE_TEXT = ("jsonl", "json")  # read from bytes a caller holds (read_table's `content`)


@dataclass(frozen=True)
class Table:
    """A source's column names (in order of first appearance) and its rows, in blocks."""

    source: str
    columns: tuple[str, ...]
    blocks: Iterator[Block]
    location_kind: str  # "line" or "row": what the location number counts
    cells_are_text: bool = False  # every cell is a str (CSV): no missing values, no lists
    raw: RawLines | None = None  # CSV: which rows' lines --out may copy as they are (filled as read)


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


def read_table(
    path: str | Path,
    span: Span | None = None,
    limit: int | None = None,
    tally: LineTally | None = None,
    *,
    raw_lines: bool = False,
    content: bytes | None = None,
    sheet: str | None = None,
) -> Table:
    """The rows of a file (for CSV, maybe one span of it); with `limit`, only the first `limit` are read.
    With `raw_lines` (for --out), a CSV table notes which rows' lines can be copied (``Table.raw``).
    `content` is the file's bytes, read already (by a caller that hashes them): a JSONL or JSON file is
    read from them rather than opened again (a CSV or Parquet file is read from the file). `sheet` names
    an Excel workbook's sheet (default: its first)."""
    path = Path(path)
    if content is not None and FORMATS.get(path.suffix.lower()) in WHOLE_TEXT:
        return _read_content(path, content, limit)
    try:
        found = path.is_file()
    except OSError as exc:  # a name too long for the file system (ENAMETOOLONG), ...
        raise InputError(f"cannot read it ({exc.strerror})", where=str(path), fix="check the path") from None
    if not found:
        raise InputError("no such file", where=str(path), fix="check the path passed to --responses")
    fmt = format_of(path)
    if sheet is not None and fmt != "xlsx":
        raise UsageError(
            "--sheet names a sheet of an Excel workbook (.xlsx)", where=str(path), fix="drop --sheet"
        )
    if fmt == "parquet":
        return _read_parquet(path)
    if fmt == "xlsx":
        from .workbook import read_workbook  # (openpyxl is imported only for a workbook)

        columns, sheet_rows = read_workbook(path, sheet, limit)
        return Table(str(path), columns, sheet_rows, "row")
    _check_text_head(path)
    if span is not None and fmt not in SPLITTABLE:
        raise UsageError(f"a {fmt} file cannot be read in spans", where=str(path), fix="read it whole")
    try:
        if fmt == "csv":
            table = _read_csv(path, span, limit, tally, raw_lines)
        elif fmt == "tsv":
            table = _read_tsv(path, limit)
        else:
            table = _read_jsonl(path, limit) if fmt == "jsonl" else _read_json_array(path)
    except UnicodeDecodeError:
        _check_utf8(path)  # raises with the byte offset
        raise
    blocks = _decoded(table.blocks, path)
    return Table(table.source, table.columns, blocks, table.location_kind, table.cells_are_text, table.raw)


def read_dataframe(frame: Any) -> Table:
    """Rows of a pandas DataFrame, without importing pandas (it is an optional dependency)."""
    columns = tuple(str(c) for c in frame.columns)
    if len(set(columns)) != len(columns):
        raise InputError("the DataFrame has duplicate column names", where="<DataFrame>", fix="rename them")

    rows = enumerate(frame.itertuples(index=False, name=None), start=1)
    return Table("<DataFrame>", columns, _in_blocks(_holdable(rows, columns)), "row")


def _holdable(rows: Iterator[tuple[int, Row]], columns: tuple[str, ...]) -> Iterator[tuple[int, Row]]:
    """A DataFrame's rows, refusing what no writer could write out: a lone surrogate in a string, an
    integer past int()'s digit limit (files cannot bring them: their readers refuse them first)."""
    for number, row in rows:
        for name, cell in zip(columns, row):
            usual = (type(cell) is str and cell.isascii()) or isinstance(cell, bool) or cell is None
            if usual or (isinstance(cell, float) and not math.isinf(cell)):
                continue  # the usual cells, checked at no cost
            found = unrepresentable(cell)
            if found is not None:
                inside = f" (at {found[0]})" if found[0] else ""
                raise InputError(
                    f"column '{name}' holds {found[1]}{inside}, which assay cannot hold",
                    where=f"<DataFrame> row {number}",
                    fix="replace the value with text or a finite number (a lone surrogate is no character)",
                )
        yield number, row


def _read_content(path: Path, content: bytes, limit: int | None) -> Table:
    """A JSONL or JSON file's rows from its bytes (``read_table``'s `content`)."""
    _check_head(content[:4096], path)
    try:
        if FORMATS[path.suffix.lower()] == "jsonl":
            return _read_jsonl(path, limit, content)
        return _read_json_array(path, content)
    except UnicodeDecodeError:
        _check_utf8(path)  # raises with the byte offset
        raise


def _check_text_head(path: Path) -> None:
    with path.open("rb") as handle:
        _check_head(handle.read(4096), path)


def _check_head(head: bytes, path: Path) -> None:
    """Refuse an empty file, and UTF-16 without a BOM (its NUL bytes are valid UTF-8, but not text)."""
    if len(head) < 4096 and not head.removeprefix(codecs.BOM_UTF8).strip():
        raise InputError("the file is empty", where=str(path), fix="point --responses at a file with rows")
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        offset = head.index(b"\x00")
        line = head[:offset].count(b"\n") + 1
        raise InputError(
            f"a NUL byte at byte offset {offset} (line {line}): this looks like UTF-16, not UTF-8 text",
            where=str(path),
            fix="re-save it as UTF-8 (for example: iconv -f utf-16 -t utf-8 in > out)",
        )


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


def _read_csv(
    path: Path, span: Span | None, limit: int | None, tally: LineTally | None, keep_raw: bool = False
) -> Table:
    header = read_header(path)
    _check_unique_columns(header.names, path)
    raw = raw_lines(path, header, span) if keep_raw else None
    blocks = csv_blocks(path, header, span, limit, tally, raw)
    return Table(str(path), tuple(header.names), blocks, "line", cells_are_text=True, raw=raw)


def _read_tsv(path: Path, limit: int | None) -> Table:
    """Tab-separated values: the csv module with a tab for the comma, strict as CSV is (a stray quote,
    a row of another width, not UTF-8: refused, naming the line). Read in one process: a tab-separated
    file has no line-copying writer nor the CSV reader's spans."""
    handle = path.open(encoding="utf-8-sig", newline="")
    reader = csv.reader(handle, delimiter="\t", strict=True)
    try:
        header = next((row for row in reader if row), None)
    except csv.Error as exc:
        handle.close()
        raise InputError(
            f"malformed TSV ({exc})", where=f"{path} line {reader.line_num}", fix="fix the line"
        ) from None
    if not header:
        handle.close()
        raise InputError("the TSV file has no header row", where=str(path), fix="add a header line")
    _check_unique_columns(header, path)
    return Table(
        str(path),
        tuple(header),
        _tsv_blocks(handle, reader, len(header), limit, path),
        "line",
        cells_are_text=True,
    )


def _tsv_blocks(handle: TextIO, reader: Any, width: int, limit: int | None, path: Path) -> Iterator[Block]:
    """The rows after the header, in blocks, each with the line it starts on; ragged rows raise."""
    left = sys.maxsize if limit is None else limit
    with handle:
        rows: list[list[str]] = []
        lines: list[int] = []
        while left > 0:
            start = reader.line_num + 1
            try:
                row = next(reader, None)
            except csv.Error as exc:
                raise InputError(
                    f"malformed TSV ({exc})", where=f"{path} line {start}", fix="fix the line"
                ) from None
            if row is None:
                break
            if not row:
                continue  # a blank line, as the CSV reader skips it
            if len(row) != width:
                raise InputError(
                    f"expected {width} tab-separated cells, found {len(row)}",
                    where=f"{path} line {start}",
                    fix="give every row as many cells as the header (a tab inside a cell must be quoted)",
                )
            rows.append(row)
            lines.append(start)
            left -= 1
            if len(rows) == BLOCK_ROWS:
                yield lines, rows
                rows, lines = [], []
        if rows:
            yield lines, rows


def _read_jsonl(path: Path, limit: int | None, content: bytes | None = None) -> Table:
    # islice takes at most sys.maxsize; a larger --limit is more rows than any file holds anyway.
    most = None if limit is None else min(limit, sys.maxsize)
    rows = list(itertools.islice(_jsonl_objects(path, content), most))
    if not rows:
        raise InputError("the file has no JSON objects", where=str(path), fix="add one object per line")
    # Any object may add keys: the columns are all keys, in order of first appearance.
    return Table(str(path), _union_of_keys(row for _, row in rows), _in_blocks(iter(rows)), "line")


def _jsonl_objects(path: Path, content: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    # Only "\n" ends a line: a carriage return is JSON whitespace, not a line break.
    held = None if content is None else contextlib.nullcontext(_lines(content.decode("utf-8-sig")))
    with held or path.open(encoding="utf-8-sig", newline="\n") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                value = parse_json(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"invalid JSON ({exc.msg}, column {exc.colno})",
                    where=f"{path} line {number}",
                    fix="write one JSON object per line",
                ) from None
            except ValueProblem as exc:
                found = position(text, exc.offset)
                at = f" column {found[1]}" if found else ""
                raise _cannot_hold(exc, f"{path} line {number}{at}") from None
            if not isinstance(value, dict):
                raise InputError(
                    f"expected a JSON object, found {type(value).__name__}",
                    where=f"{path} line {number}",
                    fix='write one object per line, like {"question": ..., "answer": ..., "response": ...}',
                )
            yield number, value


def _lines(text: str) -> Iterator[str]:
    """The text's lines, each ended by "\n" (as a file opened with newline="\n" gives them): a StringIO
    would hold the text again as 4 bytes a character, 100 MB for a 27 MB gold set (issue 22)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start) + 1 or len(text)
        yield text[start:end]
        start = end


def _read_json_array(path: Path, content: bytes | None = None) -> Table:
    if content is not None:
        text = content.decode("utf-8-sig")
    else:
        with path.open(encoding="utf-8-sig") as handle:
            text = handle.read()
    try:
        value = parse_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON ({exc.msg})",
            where=f"{path} line {exc.lineno} column {exc.colno}",
            fix="fix the JSON, or save one object per line as .jsonl",
        ) from None
    except ValueProblem as exc:
        element, _, inside = exc.path.removeprefix("[").partition("]")
        if element.isdigit():  # a value inside the array's element `element`: name it as a row
            exc.path = inside.removeprefix(".")
            raise _cannot_hold(exc, f"{path} row {int(element) + 1}") from None
        found = position(text, exc.offset)
        raise _cannot_hold(exc, f"{path} line {found[0]} column {found[1]}" if found else str(path)) from None
    del text
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


def _cannot_hold(problem: ValueProblem, where: str) -> InputError:
    """The InputError for a value that assay could read but never write back out."""
    at = f" (at {problem.path})" if problem.path else ""
    return InputError(f"{problem.what}{at}, which assay cannot hold", where=where, fix=problem.fix)


def _read_parquet(path: Path) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise missing_extra("pyarrow", "to read Parquet", where=str(path)) from None
    try:
        parquet = pq.ParquetFile(path)
        columns = tuple(parquet.schema_arrow.names)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise InputError(f"not a readable Parquet file ({exc})", where=str(path), fix="re-write it") from None
    _check_unique_columns(list(columns), path)

    def blocks() -> Iterator[Block]:
        number = 1
        try:
            for batch in parquet.iter_batches(batch_size=BLOCK_ROWS):
                cells = [_parquet_cells(batch, i, path, number) for i in range(batch.num_columns)]
                rows = list(zip(*cells))
                yield range(number, number + len(rows)), rows
                number += len(rows)
        except AssayError:
            raise
        except Exception as exc:  # a damaged file can fail in any batch, with any of pyarrow's types
            raise InputError(
                f"not a readable Parquet file ({type(exc).__name__} near row {number})",
                where=str(path),
                fix="re-write it",
            ) from None

    return Table(str(path), columns, blocks(), "row")


def _parquet_cells(batch: Any, index: int, path: Path, first_row: int) -> list[Any]:
    """One column of a batch as Python values; a binary column is text when it is UTF-8, as it usually
    is (a writer that did not mark its strings as such), never the text "b'Delhi'"."""
    import pyarrow as pa

    column = batch.column(index)
    kind = column.type
    binary = [pa.types.is_binary, pa.types.is_large_binary, pa.types.is_fixed_size_binary]
    binary.append(getattr(pa.types, "is_binary_view", pa.types.is_binary))  # pyarrow 16 on
    if not any(is_kind(kind) for is_kind in binary):
        cells: list[Any] = column.to_pylist()
        if pa.types.is_floating(kind) or pa.types.is_nested(kind):
            _refuse_infinities(cells, batch.schema.names[index], f"{path} row", first_row)
        return cells
    values: list[Any] = column.to_pylist()
    for row, value in enumerate(values):
        if value is not None:
            try:
                values[row] = value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"binary column '{batch.schema.names[index]}' holds bytes that are not UTF-8 text "
                    f"(byte {exc.start}: {value[exc.start : exc.start + 4].hex(' ')})",
                    where=f"{path} row {first_row + row}",
                    fix="store the column as UTF-8 strings (pyarrow: pa.string())",
                ) from None
    return values


def _refuse_infinities(cells: list[Any], column: str, where: str, first_row: int) -> None:
    """A float column is the only way Parquet (or a DataFrame) brings an infinity, which a JSON writer
    could not put back out (JSON input refuses `Infinity` and `1e400` the same way)."""
    for row, cell in enumerate(cells):
        if cell is None or (type(cell) is float and not math.isinf(cell)):
            continue
        found = unrepresentable(cell)
        if found is not None:
            inside = f" (at {found[0]})" if found[0] else ""
            raise InputError(
                f"column '{column}' holds {found[1]}{inside}, which assay cannot hold",
                where=f"{where} {first_row + row}",
                fix="write null for a missing value, or the number as a string",
            )


def _in_blocks(rows: Iterator[tuple[int, Row]]) -> Iterator[Block]:
    while chunk := list(itertools.islice(rows, BLOCK_ROWS)):
        locations, values = zip(*chunk)
        yield locations, values


def _union_of_keys(rows: Iterable[dict[str, Any]]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return tuple(seen)


def _check_unique_columns(header: list[str], path: Path) -> None:
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(
            f"column names appear more than once: {', '.join(map(repr, repeated))}",  # '' shows as
            where=f"{path} header",
            fix="give every column a distinct name",
        )
