"""The seed's punctuation (category P) read from the file written at build time is exactly what
``unicodedata`` says, and a file made from other Unicode data, damaged or absent is never read."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from assay.text import seed


def _written(tmp_path: Path, contents: str) -> str:
    path = tmp_path / "seed_punctuation.txt"
    path.write_bytes(contents.encode("utf-8"))
    return str(path)


def test_the_stored_punctuation_is_category_p(tmp_path: Path) -> None:
    stored = seed._stored_punctuation(_written(tmp_path, seed.punctuation_file()))
    assert stored == seed.find_punctuation()
    assert stored == "".join(
        ch for ch in map(chr, range(0x110000)) if unicodedata.category(ch).startswith("P")
    )
    assert seed.punctuation() == stored  # this checkout's own file, or built: the same characters


def test_a_file_from_other_unicode_data_is_not_read(tmp_path: Path) -> None:
    contents = seed.punctuation_file().replace(
        f"unicodedata {unicodedata.unidata_version};", "unicodedata 1.1.0;"
    )
    assert seed._stored_punctuation(_written(tmp_path, contents)) is None


def test_a_damaged_or_absent_file_is_not_read(tmp_path: Path) -> None:
    header, _, found = seed.punctuation_file().partition("\n")
    assert seed._stored_punctuation(_written(tmp_path, f"{header}\n{found[:-1]}")) is None  # cut short
    assert seed._stored_punctuation(_written(tmp_path, f"{header}\n{found.replace('!', '$')}")) is None
    assert seed._stored_punctuation(_written(tmp_path, "")) is None
    assert seed._stored_punctuation(str(tmp_path / "absent.txt")) is None
