"""The C reader of plain CSV rows (``_csvwrite.split_rows``) gives the csv module's rows and
``minimal_rows``' flags for every piece it accepts, and refuses (None) every piece the csv module
would read otherwise: the reader then takes the text path, so a file reads the same either way."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_csvwrite = pytest.importorskip("assay._csvwrite")

# Characters that make CSV hard: separators, quotes, both line ends, spaces, NUL, non-ASCII of 2, 3
# and 4 bytes in UTF-8.
ALPHABET = st.sampled_from(["a", "b", ",", '"', "\n", "\r", " ", "\0", "ß", "न", "😀"])


def csv_module(data: bytes) -> tuple[list[list[str]], bytes] | None:
    """What the reader's text path makes of a piece whose lines are each one row, or None."""
    text = data.decode("utf-8")
    lines = io.StringIO(text, newline="").readlines()
    stripped = [line.removesuffix("\n").removesuffix("\r") for line in lines]
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error:
        return None
    if len(rows) != len(lines) or not all(rows):
        return None
    return rows, _csvwrite.minimal_rows(stripped, rows)


@settings(max_examples=3000, deadline=None)
@given(text=st.lists(ALPHABET, max_size=40).map("".join))
def test_every_accepted_piece_is_read_as_the_csv_module_reads_it(text: str) -> None:
    data = text.encode("utf-8")
    found = _csvwrite.split_rows(data)
    if found is not None:
        assert found == csv_module(data)


@settings(max_examples=1000, deadline=None)
@given(
    rows=st.lists(st.lists(st.text(st.sampled_from('ab ,"ßन😀'), max_size=6), min_size=2, max_size=4),
                  min_size=1, max_size=8),
    line_end=st.sampled_from(["\n", "\r\n"]),
)  # fmt: skip
def test_rows_as_csv_writer_writes_them_are_accepted_and_read_back(
    rows: list[list[str]], line_end: str
) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=line_end).writerows(rows)
    data = buffer.getvalue().encode("utf-8")
    found = _csvwrite.split_rows(data)
    assert found is not None
    assert found == (rows, bytes([1]) * len(rows))  # each line is csv.writer's own: copied by --out


@pytest.mark.parametrize(
    "data",
    [
        b"a,b\n\nc,d\n",  # a blank line is no row
        b'a,"b\nc"\n',  # a cell across lines
        b'a,b"c\n',  # a quote inside an unquoted cell
        b'a,"b"c\n',  # a quoted cell followed by more than a comma
        b"a,b\r\nc,d\n",  # mixed line ends
        b"a,b\rc\n",  # a lone carriage return
        b"a,\xff\n",  # not UTF-8
        b"a,\0\n",  # a NUL byte
    ],
)
def test_anything_else_is_refused(data: bytes) -> None:
    assert _csvwrite.split_rows(data) is None
