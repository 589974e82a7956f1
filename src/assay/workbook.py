"""Read the rows of an Excel workbook (.xlsx) through openpyxl, streaming, within Excel's own bounds.

openpyxl's read-only mode parses a sheet row by row, so memory holds one row, plus the workbook's shared
strings (every distinct text of the workbook, which openpyxl reads whole: bounded here before it is read).
A workbook past Excel's own limits (rows, columns, characters in a cell) cannot have come from Excel, and
is refused as CSV refuses a malformed file: what, where (the sheet's row), and the fix.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError
from .extras import missing_extra

BLOCK_ROWS = 4096  # rows per block, as readers.py gives them
Block = tuple[list[int], list[list[Any]]]  # the rows' sheet row numbers, and the rows

# Excel's own limits (Excel specifications and limits): a workbook past them was not written by Excel.
MAX_ROWS = 1_048_576
MAX_COLUMNS = 16_384
MAX_CELL_CHARS = 32_767
# The shared strings part is read whole by openpyxl: over this, uncompressed, it is refused unread.
MAX_SHARED_STRINGS_BYTES = 512 << 20


def read_workbook(
    path: Path, sheet: str | None, limit: int | None
) -> tuple[tuple[str, ...], Iterator[Block]]:
    """A sheet's (`sheet`, or the first) column names and its rows in blocks, each with its row
    number in the sheet: the first non-empty row is the header (``readers.read_table`` makes them a
    Table)."""
    openpyxl = _openpyxl(path)
    _check_parts(path)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # a damaged or foreign zip fails in zipfile, lxml or openpyxl, any type
        raise InputError(
            f"not a readable Excel workbook ({type(exc).__name__}: {exc})",
            where=str(path),
            fix="open it in Excel or LibreOffice and save it again as .xlsx",
        ) from None
    if sheet is not None and sheet not in book.sheetnames:
        book.close()
        raise UsageError(
            f"no sheet '{sheet}' (sheets: {', '.join(book.sheetnames)})",
            where=str(path),
            fix="name one of them",
        )
    worksheet = book[sheet] if sheet is not None else book.worksheets[0]
    where = f"{path} sheet '{worksheet.title}'"
    rows = _numbered_rows(worksheet, where)
    header_row, header = next(((number, cells) for number, cells in rows if _filled(cells)), (0, ()))
    columns = _header(header, where, header_row)
    return columns, _blocks(book, rows, len(columns), limit, where)


def _openpyxl(path: Path) -> Any:
    try:
        import openpyxl
    except ImportError:
        raise missing_extra(
            "openpyxl", "to read Excel workbooks", where=str(path), alternative="save the sheet as .csv"
        ) from None
    return openpyxl


def _check_parts(path: Path) -> None:
    """Refuse a workbook whose shared strings would be read whole past the bound (a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = [
                item.file_size for item in archive.infolist() if item.filename.endswith("sharedStrings.xml")
            ]
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(
            f"not a readable Excel workbook ({exc})",
            where=str(path),
            fix="give an .xlsx file (an older .xls: save it as .xlsx or .csv)",
        ) from None
    if sum(sizes) > MAX_SHARED_STRINGS_BYTES:
        raise InputError(
            f"the workbook's shared strings are {sum(sizes):,} bytes uncompressed, more than the "
            f"{MAX_SHARED_STRINGS_BYTES:,} read",
            where=str(path),
            fix="save the sheet as .csv, which is read as it streams",
        )


def _numbered_rows(worksheet: Any, where: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """Each row's number in the sheet and its values; a row past Excel's last is refused."""
    for number, cells in enumerate(worksheet.iter_rows(values_only=True), start=1):
        if number > MAX_ROWS:
            raise InputError(
                f"more than {MAX_ROWS:,} rows, Excel's limit",
                where=f"{where} row {number}",
                fix="split the sheet",
            )
        yield number, cells


def _filled(cells: tuple[Any, ...]) -> bool:
    return any(cell is not None and cell != "" for cell in cells)


def _header(cells: tuple[Any, ...], where: str, number: int) -> tuple[str, ...]:
    """The column names: the header row's cells to its last filled one, each named and distinct."""
    last = max((index for index, cell in enumerate(cells) if cell not in (None, "")), default=-1)
    if last < 0:
        raise InputError(
            "the sheet has no header row", where=where, fix="put the column names in its first row"
        )
    if last + 1 > MAX_COLUMNS:
        raise InputError(
            f"{last + 1:,} columns, more than Excel's {MAX_COLUMNS:,}",
            where=f"{where} row {number}",
            fix="drop columns",
        )
    names = [("" if cell is None else str(cell)).strip() for cell in cells[: last + 1]]
    unnamed = [index + 1 for index, name in enumerate(names) if not name]
    if unnamed:
        raise InputError(
            f"column {unnamed[0]} of the header has no name",
            where=f"{where} row {number}",
            fix="name every column of the header row, or delete the empty column",
        )
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(
            f"column names appear more than once: {', '.join(map(repr, repeated))}",
            where=f"{where} row {number}",
            fix="give every column a distinct name",
        )
    return tuple(names)


def _blocks(
    book: Any, rows: Iterator[tuple[int, tuple[Any, ...]]], width: int, limit: int | None, where: str
) -> Iterator[Block]:
    """The rows after the header, each cut or padded to the header's width (a filled cell beyond it
    is refused, as a CSV row of another width is); empty rows are skipped, as blank lines are."""
    left = -1 if limit is None else limit
    numbers: list[int] = []
    block: list[list[Any]] = []
    try:
        for number, cells in rows:
            if left == 0:
                break
            if not _filled(cells):
                continue
            block.append(_row(cells, width, f"{where} row {number}"))
            numbers.append(number)
            left -= 1
            if len(block) == BLOCK_ROWS:
                yield numbers, block
                numbers, block = [], []
        if block:
            yield numbers, block
    finally:
        book.close()


def _row(cells: tuple[Any, ...], width: int, where: str) -> list[Any]:
    beyond = [index for index in range(width, len(cells)) if cells[index] not in (None, "")]
    if beyond:
        raise InputError(
            f"a value in column {beyond[0] + 1}, beyond the header's {width} columns",
            where=where,
            fix="name that column in the header row, or clear the cell",
        )
    row = list(cells[:width]) + [None] * (width - len(cells))
    for index, cell in enumerate(row):
        if isinstance(cell, str) and len(cell) > MAX_CELL_CHARS:
            raise InputError(
                f"a cell of {len(cell):,} characters, more than Excel's {MAX_CELL_CHARS:,}",
                where=f"{where} column {index + 1}",
                fix="save the sheet as .csv, which holds longer cells",
            )
    return row
