"""A cell longer than the reader's pieces (a megabyte and more) is read and written without the csv
module's per-character buffers, and exactly as the csv module reads and writes it (issue 9's memory
bound): each case here is compared with csv.reader or csv.writer themselves. A report's snippet of a
long response splits only its start into words."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from assay import InputError
from assay.csvfile import BLOCK_BYTES, LONG_LINE_CHARS, csv_blocks, read_header
from assay.report.rows import WRITE_SLICE_CHARS, write_long_csv_row
from assay.report.text import SNIPPET, _snip

PAD = "p" * (BLOCK_BYTES + BLOCK_BYTES // 2)  # past a whole piece: the line is joined from chunks
SHORT = "p" * (LONG_LINE_CHARS + 7)  # long, within one piece

LONG_ROWS = [
    pytest.param(f'"{PAD}",b,c\n', id="quoted"),
    pytest.param(f'"say ""hi"" {PAD} ""twice""",b,c\n', id="quotes doubled"),
    pytest.param(f'a,b,"{PAD} end"""\n', id="a doubled quote at the end"),
    pytest.param(f'a,b,"{PAD}"\r\n', id="CRLF"),
    pytest.param(f'a,"{PAD}\nsecond line",c\n', id="a line break in the cell"),
    pytest.param(f'a,"{PAD}\r\nsecond line",c\r\n', id="a CRLF in the cell"),
    pytest.param(f'a,{PAD} 5" tall,c\n', id="a stray quote"),
    pytest.param(f'a,"{PAD}"x,c\n', id="text after the closing quote"),
    pytest.param(f'"",{PAD},""\n', id="empty quoted cells"),
    pytest.param(f"a,,{PAD}\n", id="an empty unquoted cell"),
    pytest.param(f'{PAD},"b,c",""""\n', id="a quoted comma and a lone quote"),
    pytest.param(f'a,"\x00{PAD}",c\n', id="a NUL"),
    pytest.param(f'a,"{PAD}\rx",c\n', id="a lone carriage return in the cell"),
    pytest.param(f"a,b,{PAD}", id="no line end at the end of the file"),
    pytest.param(f'a,b,"{PAD}"', id="quoted, no line end at the end of the file"),
    pytest.param(f'a,b,"{PAD}', id="a quoted cell left open"),
    pytest.param(f'a,"{SHORT}",c\n', id="long, within one piece"),
    pytest.param(f'a,"{SHORT}""",c\r\n', id="long, within one piece, CRLF"),
    pytest.param(f'a,"{SHORT}",c,d\n', id="a cell too many"),
]


def csv_module_rows(path: Path) -> list[tuple[int, list[str]]]:
    """What csv.reader gives after the header: each row with the line it starts on."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        found, before = [], reader.line_num
        for row in reader:
            if row:
                found.append((before + 1, row))
            before = reader.line_num
    return found


@pytest.mark.parametrize("before", ["", "x,y,z\n" * 3], ids=["first row", "after short rows"])
@pytest.mark.parametrize("long_row", LONG_ROWS)
def test_a_long_row_reads_as_the_csv_module_reads_it(tmp_path: Path, long_row: str, before: str) -> None:
    after = "" if not long_row.endswith("\n") else 'u,"v\nw",x\nlast,row,here\n'
    path = tmp_path / "long.csv"
    path.write_text(f"a,b,c\n{before}{long_row}{after}", encoding="utf-8", newline="")
    try:
        expected = csv_module_rows(path)
    except csv.Error:
        expected = None
    widths_match = expected is not None and all(len(row) == 3 for _, row in expected)
    if not widths_match:
        with pytest.raises(InputError):
            list(csv_blocks(path, read_header(path), None))
        return
    got = [
        (at, row)
        for locations, rows in csv_blocks(path, read_header(path), None)
        for at, row in zip(locations, rows)
    ]
    assert [at for at, _ in got] == [at for at, _ in expected]
    assert [row for _, row in got] == [row for _, row in expected]


LONG = "q" * (WRITE_SLICE_CHARS + 3)
ROWS_TO_WRITE = [
    pytest.param(["plain", LONG, "x"], id="plain"),
    pytest.param(['say "hi"', LONG, 'end"'], id="quotes"),
    pytest.param(["comma,here", LONG + ",", "x"], id="commas"),
    pytest.param(["line\nbreak", LONG + "\r\n", "cr\rhere"], id="line ends"),
    pytest.param(["", LONG, ""], id="empty cells"),
    pytest.param([""], id="one empty cell"),
    pytest.param(['"'], id="one quote"),
    pytest.param([None, 3.5, True, 7, -0.0, LONG], id="values that are not text"),
    pytest.param(["x" * (WRITE_SLICE_CHARS - 1) + '"' + LONG + '"'], id="a quote at a slice edge"),
    pytest.param(["दिल्ली, 北京 " * 200_000, " spaced "], id="wide characters"),
]


@pytest.mark.parametrize("cells", ROWS_TO_WRITE)
def test_a_long_row_is_written_as_csv_writer_writes_it(cells: list[object]) -> None:
    expected, got = io.StringIO(newline=""), io.StringIO(newline="")
    csv.writer(expected).writerow(cells)
    write_long_csv_row(got, cells)
    assert got.getvalue() == expected.getvalue()


def snippet_of_the_whole_text(text: str) -> str:
    flat = " ".join(text.split())  # what the report showed before: every word of the text split out
    return repr(flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("in Delhi, 1947", id="short"),
        pytest.param("word " * 1_000_000, id="a long text"),
        pytest.param(" " * 500_000 + "late words " * 30, id="a long run of spaces first"),
        pytest.param("\u3000\x1c\n" * 300 + "x" * 700 + " y", id="other spaces, then a long word"),
        pytest.param("a" * 279 + "b" * 3 + " c" * 100, id="a word across the first cut"),
        pytest.param("ab " * 23 + "abc", id="just over the snippet"),
        pytest.param(" " * 2_000, id="only spaces"),
        pytest.param("", id="empty"),
    ],
)
def test_a_long_texts_snippet_is_the_start_of_its_words(text: str) -> None:
    assert _snip(text) == snippet_of_the_whole_text(text)
