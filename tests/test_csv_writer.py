"""--out's CSV writer: the C writer (assay._csvwrite) writes exactly what csv.writer does."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_csvwrite = pytest.importorskip("assay._csvwrite")

# Text that CSV must quote (a comma, a quote, line ends) among ASCII, accents, Devanagari and emoji.
CELLS = st.text(alphabet=st.sampled_from(list(",\"\r\n ab;'\té中शि😀\u2028")), max_size=12)


def reference(columns: list[list[str]], start: int, stop: int) -> bytes:
    handle = io.StringIO(newline="")
    csv.writer(handle).writerows(zip(*(column[start:stop] for column in columns)))
    return handle.getvalue().encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(lambda width: st.lists(st.lists(CELLS, min_size=width, max_size=width))))
def test_the_c_writer_writes_what_csv_writer_writes(rows: list[list[str]]) -> None:
    width = len(rows[0]) if rows else 1
    columns = [[row[c] for row in rows] for c in range(width)]
    assert _csvwrite.csv_lines(columns, 0, len(rows)) == reference(columns, 0, len(rows))


def test_a_range_of_rows_is_those_rows_only() -> None:
    columns = [["a", "b,c", 'd"e'], ["1", "", "3"]]
    assert _csvwrite.csv_lines(columns, 1, 3) == reference(columns, 1, 3) == b'"b,c",\r\n"d""e",3\r\n'


def test_a_one_cell_row_that_is_empty_is_quoted_as_csv_writer_does() -> None:
    assert _csvwrite.csv_lines([["", "x"]], 0, 2) == reference([["", "x"]], 0, 2) == b'""\r\nx\r\n'


@pytest.mark.parametrize("cell", [1, None, "\ud800 a lone surrogate"])
def test_a_cell_it_cannot_write_is_left_to_csv_writer(cell: object) -> None:
    assert _csvwrite.csv_lines([["fine", cell]], 0, 2) is None
