"""readers.read_table from bytes a caller read already (`content`, what a harness run hashes): a JSONL or
JSON file gives the same table as read from the file, and the same errors, each naming the file."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from assay import ColumnMap, load_records
from assay.errors import InputError, UsageError
from assay.readers import read_table


def table_of(path: Path, content: bytes | None) -> tuple[Any, ...]:
    table = read_table(path, content=content)
    return table.source, table.columns, [list(block) for block in table.blocks], table.location_kind


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "rows.jsonl",
            b'{"id": "a", "question": "q1", "answer": "x"}\n\n{"id": "b", "question": "q2", '
            b'"answer": "y", "extra": 1}\r\n',
        ),
        ("rows.jsonl", b'\xef\xbb\xbf{"id": "a", "question": "q1", "answer": "x"}\n'),  # a BOM
        (
            "rows.json",
            b'[{"id": "a", "question": "q1", "answer": "x"}, {"id": "b", "question": "q2", '
            b'"answer": "y", "extra": 1}]',
        ),
    ],
)
def test_bytes_read_already_give_the_table_the_file_gives(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert table_of(path, data) == table_of(path, None)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("rows.jsonl", b"", "the file is empty"),
        ("rows.jsonl", b'{"id": "a"}\nnot json\n', "invalid JSON"),
        ("rows.jsonl", b'{"id": "caf\xe9"}\n', "not valid UTF-8 at byte offset 11"),
        ("rows.json", b'{"id": "a"}', "expected a non-empty JSON array of objects"),
    ],
)
def test_bytes_read_already_fail_as_the_file_does(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    for content in (data, None):
        with pytest.raises(InputError, match=message) as raised:
            table_of(path, content)
        assert str(path) in str(raised.value)


# --- TSV and Excel (issue 23, friction 10) --------------------------------------------------------------

SHEET = [
    ["Question ID", "Question", "Golden Answer", "Model Output", "Category", "Language"],
    ["q1", "What is the capital of India?", "New Delhi", "New Delhi, of course.", "geography", "en"],
    ["q2", "भारत की राजधानी क्या है?", "नई दिल्ली", "मुंबई", "geography", "hi"],
    ["q3", "Who wrote Thirukkural?", "Thiruvalluvar", "Thiruvalluvar", "literature", "en"],
]
MAPPED = ColumnMap(
    id="Question ID", question="Question", answer="Golden Answer", response="Model Output", domain="Category",
    lang="Language",
)  # fmt: skip


def rows_of(path: Path, **kwargs: Any) -> list[tuple[str, str, tuple[str, ...], str, str, str]]:
    dataset = load_records(path, columns=MAPPED, **kwargs)
    return [(r.id, r.question, r.answers, r.response, r.domain, r.lang) for r in dataset.records]


EXPECTED = [(row[0], row[1], (row[2],), row[3], row[4], row[5]) for row in SHEET[1:]]


def test_a_tsv_file_is_read_with_tabs_as_separators(tmp_path: Path) -> None:
    path = tmp_path / "sloppy.tsv"
    path.write_text("\n".join("\t".join(row) for row in SHEET) + "\n", encoding="utf-8")
    assert rows_of(path) == EXPECTED  # the commas inside cells stay in them


def test_a_ragged_tsv_row_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ragged.tsv"
    path.write_text("question\tanswer\tresponse\nq\ta\tr\nq2\ta2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"ragged.tsv line 3: expected 3 tab-separated cells, found 2"):
        load_records(path)


def workbook(path: Path, sheets: dict[str, list[list[Any]]]) -> Path:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def test_an_excel_workbook_is_read_from_its_first_sheet_or_the_one_named(tmp_path: Path) -> None:
    other = [SHEET[0], ["q9", "Where is Agra?", "Uttar Pradesh", "Uttar Pradesh", "geography", "en"]]
    path = workbook(tmp_path / "sloppy.xlsx", {"Run 1": SHEET, "Run 2": other})
    assert rows_of(path) == EXPECTED
    assert [row[0] for row in rows_of(path, sheet="Run 2")] == ["q9"]
    with pytest.raises(UsageError, match=r"no sheet 'Run 3' \(sheets: Run 1, Run 2\)"):
        load_records(path, columns=MAPPED, sheet="Run 3")


def test_excel_numbers_blank_rows_and_a_blank_header_cell(tmp_path: Path) -> None:
    """Numeric ids read as the text they show; an empty row is skipped; an unnamed column is refused."""
    rows = [
        ["id", "question", "answer", "response"],
        [1, "Year of independence?", 1947, 1947],
        [],
        [2, "q", "a", "b"],
    ]
    dataset = load_records(workbook(tmp_path / "n.xlsx", {"S": rows}))
    assert [(r.id, r.answers, r.response, r.row) for r in dataset.records] == [
        ("1", ("1947",), "1947", 2),
        ("2", ("a",), "b", 4),
    ]
    bad = workbook(tmp_path / "gap.xlsx", {"S": [["question", None, "answer"], ["q", "x", "a"]]})
    with pytest.raises(InputError, match=r"column 2 of the header has no name"):
        load_records(bad)


def test_an_excel_cell_past_excel_s_own_limit_is_refused(tmp_path: Path) -> None:
    """openpyxl writes at most Excel's 32,767 characters in a cell, so the workbook is made longer by
    hand, as another writer could: its shared string one character longer."""
    from assay.workbook import MAX_CELL_CHARS

    rows = [["question", "answer", "response"], ["q", "a", "x" * MAX_CELL_CHARS]]
    made = workbook(tmp_path / "made.xlsx", {"S": rows})
    path = tmp_path / "long.xlsx"
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith(".xml"):  # the cell's text, inline in the sheet or shared
                data = data.replace(b"x" * MAX_CELL_CHARS, b"x" * (MAX_CELL_CHARS + 1))
            target.writestr(item, data)
    with pytest.raises(
        InputError, match=r"row 2 column 3: a cell of 32,768 characters, more than Excel's 32,767"
    ):
        load_records(path)


def test_excel_without_openpyxl_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = workbook(tmp_path / "s.xlsx", {"S": SHEET})
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # as if it were not installed
    with pytest.raises(UsageError, match=r"needs openpyxl.*pip install 'assay\[excel\]'"):
        load_records(path, columns=MAPPED)
