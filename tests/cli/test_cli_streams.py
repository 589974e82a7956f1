"""The command line's streams: a reader that stops early is no error, and library warnings are one line."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path


def test_a_pipe_closed_by_its_reader_ends_the_command_quietly(tmp_path: Path) -> None:
    rows = tmp_path / "many.csv"
    with rows.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "question", "answer"])
        writer.writerows([i, f"q{i}", " padded "] for i in range(50_000))  # a warning per row
    command = [sys.executable, "-m", "assay", "lint", str(rows)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as assay:
        assert assay.stdout is not None and assay.stderr is not None
        assert b"leading or trailing whitespace" in assay.stdout.readline()
        assay.stdout.close()  # as `| head -1` does
        errors = assay.stderr.read().decode()
        code = assay.wait(timeout=120)
    assert errors == ""
    assert code == 0


def test_a_library_warning_is_one_line_of_the_command(tmp_path: Path) -> None:
    import json

    import pdfgen

    sources = tmp_path / "sources"
    sources.mkdir()
    built = pdfgen.plain(sources)
    facts = tmp_path / "facts"
    facts.mkdir()
    document = built.path.stem
    claim = {"field": "note", "value": "x", "source": {"path": built.path.name, "quote": "not stated"}}
    (facts / "f.json").write_text(json.dumps({"document": document, "claims": [claim]}), encoding="utf-8")
    cache = tmp_path / "cache"
    command = [
        sys.executable, "-m", "assay", "sources", "map", "--facts", str(facts), "--sources", str(sources),
        "--cache", str(cache),
    ]  # fmt: skip
    first = subprocess.run(command, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    (entry,) = cache.glob("*.json")
    entry.write_text("{not json", encoding="utf-8")  # a cache entry torn by a crash
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("assay: warning: ") and "cache" in line.casefold()
    assert ".py:" not in line  # no Python file and line number
