"""The fold tables precomputed at build time (setup.py writes ``unicode.fold_tables_file()`` beside the
module) are the tables the process would build, and a file that is stale or damaged is never read: the
process builds the tables instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.text import unicode


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fold") / "unicode_fold.bin"
    path.write_bytes(unicode.fold_tables_file())
    return path


def test_the_stored_tables_are_the_built_ones(stored: Path) -> None:
    assert unicode._stored_fold_tables(str(stored)) == unicode.build_fold_tables()


def test_a_file_made_from_other_unicode_data_or_source_is_not_read(stored: Path, tmp_path: Path) -> None:
    header, _, tables = stored.read_bytes().partition(b"\n")
    for field in (b"regex ", b"unicodedata ", b"source crc32 "):
        start = header.index(field) + len(field)
        other = header[:start] + b"0" + header[start + 1 :]  # another release, another source
        stale = tmp_path / "stale.bin"
        stale.write_bytes(other + b"\n" + tables)
        assert unicode._stored_fold_tables(str(stale)) is None, field


def test_a_damaged_or_cut_file_is_not_read(stored: Path, tmp_path: Path) -> None:
    content = stored.read_bytes()
    flipped = bytearray(content)
    flipped[-1000] ^= 1  # one bit of the flags
    for damaged in (bytes(flipped), content[:-1], content + b"\0", b"", content.partition(b"\n")[0]):
        path = tmp_path / "damaged.bin"
        path.write_bytes(damaged)
        assert unicode._stored_fold_tables(str(path)) is None
    assert unicode._stored_fold_tables(str(tmp_path / "absent.bin")) is None


def test_a_process_without_the_file_builds_the_tables_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unicode, "FOLD_TABLES_FILE", "/nonexistent/unicode_fold.bin")
    unicode._fold_tables.cache_clear()
    try:
        assert unicode._fold_tables() == unicode.build_fold_tables()
        assert unicode._fold_tables() is unicode._fold_tables()  # built once per process
    finally:
        unicode._fold_tables.cache_clear()
