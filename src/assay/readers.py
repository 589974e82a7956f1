"""Read a table of rows from CSV, JSONL, a JSON array, Parquet or a pandas DataFrame.

Each reader yields ``(location, row)`` pairs: ``location`` is the 1-based line (CSV, JSONL) or
element/row number (JSON array, Parquet, DataFrame) used in error messages, and ``row`` maps a column
name to its raw cell. Cells are returned as they are; turning them into a ``Record`` is
``records.py``'s job. Text must be UTF-8 (a BOM is allowed): anything else is an error that names the
file and the byte offset, never a silent replacement character.
"""

from __future__ import annotations

import codecs
import csv
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError

Row = Mapping[str, Any]

FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet"}

# Python's csv module refuses fields over 128 KiB by default; a model response can be longer than that.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


@dataclass(frozen=True)
class Table:
    """A source's column names (in order of first appearance) and its rows."""

    source: str
    columns: tuple[str, ...]
    rows: Iterator[tuple[int, Row]]
    location_kind: str  # "line" or "row": what the location number counts


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


def read_table(path: str | Path) -> Table:
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", where=str(path), fix="check the path passed to --responses")
    fmt = format_of(path)
    if fmt == "parquet":
        return _read_parquet(path)
    if _is_blank_file(path):
        raise InputError("the file is empty", where=str(path), fix="point --responses at a file with rows")
    reader = {"csv": _read_csv, "jsonl": _read_jsonl, "json": _read_json_array}[fmt]
    try:
        table = reader(path)
    except UnicodeDecodeError:
        _check_utf8(path)  # raises with the byte offset
        raise
    return Table(table.source, table.columns, _decoded(table.rows, path), table.location_kind)


def read_dataframe(frame: Any) -> Table:
    """Rows of a pandas DataFrame, without importing pandas (it is an optional dependency)."""
    columns = tuple(str(c) for c in frame.columns)
    if len(set(columns)) != len(columns):
        raise InputError("the DataFrame has duplicate column names", where="<DataFrame>", fix="rename them")

    def rows() -> Iterator[tuple[int, Row]]:
        for number, values in enumerate(frame.itertuples(index=False, name=None), start=1):
            yield number, dict(zip(columns, values))

    return Table("<DataFrame>", columns, rows(), "row")


def _is_blank_file(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096)
    return len(head) < 4096 and not head.removeprefix(codecs.BOM_UTF8).strip()


# --- encoding ------------------------------------------------------------------------------------------


def _decoded(rows: Iterator[tuple[int, Row]], path: Path) -> Iterator[tuple[int, Row]]:
    """Pass rows through; on a decoding error, find its byte offset (a second pass, only on failure)."""
    try:
        yield from rows
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


def _read_csv(path: Path) -> Table:
    handle = path.open(newline="", encoding="utf-8-sig")
    reader = csv.reader(handle)
    header = next(reader, None)
    if not header:
        handle.close()
        raise InputError("the CSV file has no header row", where=str(path), fix="add a header line")
    _check_unique_columns(header, path)
    return Table(str(path), tuple(header), _csv_rows(handle, reader, header, path), "line")


def _csv_rows(handle: Any, reader: Any, header: list[str], path: Path) -> Iterator[tuple[int, Row]]:
    width = len(header)
    previous_end = reader.line_num
    with handle:
        for values in reader:
            line = previous_end + 1  # a quoted cell may span lines: report where the row starts
            previous_end = reader.line_num
            if not values:
                continue  # a blank line is not a row
            if len(values) != width:
                raise InputError(
                    f"row has {len(values)} fields but the header has {width}",
                    where=f"{path} line {line}",
                    fix="quote cells that contain commas or line breaks, or fix the row",
                )
            yield line, dict(zip(header, values))


def _read_jsonl(path: Path) -> Table:
    lines = _jsonl_objects(path)
    first = next(lines, None)
    if first is None:
        raise InputError("the file has no JSON objects", where=str(path), fix="add one object per line")
    columns = tuple(first[1])

    def rows() -> Iterator[tuple[int, Row]]:
        yield first
        yield from lines

    return Table(str(path), columns, rows(), "line")


def _jsonl_objects(path: Path) -> Iterator[tuple[int, Row]]:
    with path.open(encoding="utf-8-sig") as handle:
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
    return Table(str(path), _union_of_keys(value), iter(enumerate(value, start=1)), "row")


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

    def rows() -> Iterator[tuple[int, Row]]:
        number = 0
        for batch in parquet.iter_batches(batch_size=65536):
            for row in batch.to_pylist():
                number += 1
                yield number, row

    return Table(str(path), columns, rows(), "row")


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
