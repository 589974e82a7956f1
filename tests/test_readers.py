"""readers.read_table from bytes a caller read already (`content`, what a harness run hashes): a JSONL or
JSON file gives the same table as read from the file, and the same errors, each naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.errors import InputError
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
