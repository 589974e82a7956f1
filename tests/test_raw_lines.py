"""--out copies a CSV input line as it stands where csv.writer would write its cells back byte for byte
(``csvfile.RawLines``, ``report.rows._write_spliced_csv``): the file must be the one written cell by cell,
whatever the input's quoting, line ends, BOM, last line, blank lines or characters."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assay import parallel
from assay.csvfile import split_spans
from assay.parallel import score_file
from assay.records import ColumnMap, load_records
from assay.report import rows
from assay.scoring import ScoreOptions, score

pytest.importorskip("assay._csvwrite")

SEED_PAIR = ("exact_substring", "word_overlap")


def cell_by_cell(run: Any, path: Path, *, trace: bool = False) -> bytes:
    """--out as written before input lines were copied: every cell through the usual CSV writer."""
    rows._write_csv(rows.verdict_table(run, trace=trace, check=True), path, header=True)
    return path.read_bytes()


def both_ways(tmp_path: Path, data: bytes, **load: Any) -> tuple[bytes, bytes, Any]:
    source = tmp_path / "in.csv"
    source.write_bytes(data)
    options = load.pop("options", ScoreOptions())
    run = score(load_records(source, raw_lines=True, **load), SEED_PAIR, options=options)
    rows.write_verdicts(run, tmp_path / "copied.csv")
    return (tmp_path / "copied.csv").read_bytes(), cell_by_cell(run, tmp_path / "usual.csv"), run


ODD_FILES = {
    "minimal quoting": b'question,answer,response\nq1,Delhi,"New Delhi, India"\nq2,x,"say ""x"""\n',
    "every cell quoted": b'"question","answer","response"\n"q1","Delhi","New Delhi"\n"q2","x","a, x"\n',
    "a quote inside an unquoted cell": b'question,answer,response\nq1,Delhi,5" of Delhi\nq2,x,x\n',
    "crlf": b'question,answer,response\r\nq1,Delhi,"Delhi, yes"\r\nq2,x,no\r\n',
    "bom": b'\xef\xbb\xbfquestion,answer,response\nq1,Delhi,Delhi\nq2,x,"x,y"\n',
    "no final newline": b'question,answer,response\nq1,Delhi,Delhi\nq2,x,"x, y"',
    "no final newline, crlf": b"question,answer,response\r\nq1,Delhi,Delhi\r\nq2,x,x",
    "a cell across lines": b'question,answer,response\nq1,Delhi,"Del\nhi"\nq2,x,"x, y"\nq3,z,z\n',
    "a crlf inside a cell": b'question,answer,response\r\nq1,Delhi,"Del\r\nhi"\r\nq2,x,x\r\n',
    "a lone carriage return": b'question,answer,response\nq1,Delhi,"Del\rhi"\nq2,x,x\n',
    "blank lines": b'question,answer,response\n\nq1,Delhi,"a, Delhi"\n\n\nq2,x,x\n\n',
    "empty cells": b'question,answer,response\nq1,,\nq2,"",""\n,x,x\n',
    "unicode": 'question,answer,response\nप्रश्न,दिल्ली,"नई दिल्ली, भारत"\nq😀,ß,"«ß», 😀"\n'.encode(),
    "extra columns": b'id,question,answer,response,note\na,q1,Delhi,Delhi,"n, 1"\nb,q2,x,y,\n',
    "a header across lines": b'question,answer,response,"no\nte"\nq1,Delhi,Delhi,1\nq2,x,"x,y",2\n',
}


@pytest.mark.parametrize("name", list(ODD_FILES))
def test_copied_lines_equal_the_cells_written_again(tmp_path: Path, name: str) -> None:
    copied, usual, _ = both_ways(tmp_path, ODD_FILES[name])
    assert copied == usual


def test_minimal_lines_are_copied(tmp_path: Path) -> None:
    copied, usual, run = both_ways(tmp_path, ODD_FILES["minimal quoting"])
    assert copied == usual
    assert rows._copies_input_lines(run)
    assert list(run.dataset.raw.verbatim) == [1, 1]


def test_lines_are_noted_only_when_asked(tmp_path: Path) -> None:
    """Loading for anything but --out pays nothing for it."""
    source = tmp_path / "in.csv"
    source.write_bytes(ODD_FILES["minimal quoting"])
    assert load_records(source).raw is None
    assert load_records(source, raw_lines=True).raw is not None


def test_lines_written_otherwise_are_not_copied(tmp_path: Path) -> None:
    _, _, run = both_ways(tmp_path, ODD_FILES["every cell quoted"])
    assert list(run.dataset.raw.verbatim) == [0, 0]  # csv.writer would not quote these cells
    _, _, run = both_ways(tmp_path, ODD_FILES["a quote inside an unquoted cell"])
    assert list(run.dataset.raw.verbatim) == [0, 1]


def test_mostly_copied_with_some_rows_written_again(tmp_path: Path) -> None:
    lines = [f'q{i},a{i},"a{i}, yes"' for i in range(40)]
    lines[7] = '"q7","a7","a7"'  # quoted needlessly: written again, unquoted
    data = ("question,answer,response\n" + "\n".join(lines) + "\n").encode()
    copied, usual, run = both_ways(tmp_path, data)
    assert copied == usual
    assert run.dataset.raw.verbatim.count(0) == 1


@pytest.mark.parametrize("policy", ["rename", "replace"])
def test_on_conflict_rename_and_replace(tmp_path: Path, policy: str) -> None:
    data = b'question,answer,response,exact_substring\nq1,Delhi,"Delhi, yes",old\nq2,x,y,old\n'
    options = ScoreOptions(on_conflict=policy)
    copied, usual, _ = both_ways(tmp_path, data, options=options)
    assert copied == usual


def test_limit(tmp_path: Path) -> None:
    data = b'question,answer,response\nq1,a,"a, b"\nq2,b,b\nq3,c,"c,"\n'
    copied, usual, _ = both_ways(tmp_path, data, limit=2)
    assert copied == usual
    assert copied.count(b"\r\n") == 3


def test_answers_column_is_written_again(tmp_path: Path) -> None:
    """A JSON list of answers is written as JSON again (its spacing may differ): never copied."""
    data = b'question,answers,response\nq1,"[""a"",""b""]",a\nq2,"[""x""]",y\n'
    copied, usual, run = both_ways(tmp_path, data, columns=ColumnMap(answers="answers"))
    assert copied == usual
    assert run.dataset.raw is None


def test_trace_column(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_bytes(ODD_FILES["unicode"])
    run = score(load_records(source, raw_lines=True), SEED_PAIR)
    rows.write_verdicts(run, tmp_path / "copied.csv", trace=True)
    assert (tmp_path / "copied.csv").read_bytes() == cell_by_cell(run, tmp_path / "usual.csv", trace=True)


def test_a_long_cell_is_written_as_before(tmp_path: Path) -> None:
    long = "x" * (rows.LONG_CELL_CHARS + 10)
    data = f'question,answer,response\nq1,{long},"{long}, yes"\nq2,x,x\n'.encode()
    copied, usual, _ = both_ways(tmp_path, data)
    assert copied == usual


CELL = st.text(alphabet=st.sampled_from(list('ab ,"\r\né😀ß')), max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cells=st.lists(st.tuples(CELL, CELL, CELL), min_size=1, max_size=8),
    quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]),
    ending=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    last_newline=st.booleans(),
)
def test_any_csv_file_is_written_as_before(
    tmp_path: Path,
    cells: list[tuple[str, str, str]],
    quoting: int,
    ending: str,
    bom: bool,
    last_newline: bool,
) -> None:
    text = io.StringIO()
    writer = csv.writer(text, quoting=quoting, lineterminator=ending)
    writer.writerow(["question", "answer", "response"])
    writer.writerows((f"q{i}{a}", b, c) for i, (a, b, c) in enumerate(cells))  # no row is blank
    data = text.getvalue() if last_newline else text.getvalue().removesuffix(ending)
    read = list(csv.reader(io.StringIO(data, newline="")))[1:]
    assume(read == [[f"q{i}{a}", b, c] for i, (a, b, c) in enumerate(cells)])  # a "\r" unquoted: no CSV
    copied, usual, _ = both_ways(tmp_path, (b"\xef\xbb\xbf" if bom else b"") + data.encode())
    assert copied == usual


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_spans_copy_their_own_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, ending: str
) -> None:
    monkeypatch.setattr(parallel, "MIN_BYTES_PER_WORKER", 1)
    cuts: list[int] = []

    def spy(path: Any, parts: int) -> Any:
        found = split_spans(path, parts)
        cuts.append(len(found))
        return found

    monkeypatch.setattr(parallel, "split_spans", spy)
    lines = ["question,answer,response"] + [
        f'q{i},a{i},"a{i}, {"yes" if i % 3 else "no"}"' if i % 5 else f'"q{i}",a{i},b' for i in range(300)
    ]
    lines.insert(50, "")  # a blank line in a span
    source = tmp_path / "in.csv"
    source.write_bytes(("\ufeff" + ending.join(lines) + ending).encode())
    with monkeypatch.context() as patched:  # lines are copied, in one process and in each worker
        patched.setattr(rows, "_write_csv", lambda *_, **__: pytest.fail("written cell by cell"))
        score_file(source, SEED_PAIR, workers=1, out=tmp_path / "alone.csv")
        score_file(source, SEED_PAIR, workers=workers, out=tmp_path / "shared.csv")
    assert cuts == [workers]
    run = score(load_records(source), SEED_PAIR)
    assert (tmp_path / "shared.csv").read_bytes() == (tmp_path / "alone.csv").read_bytes()
    assert (tmp_path / "alone.csv").read_bytes() == cell_by_cell(run, tmp_path / "usual.csv")


def test_an_input_changed_since_it_was_read_is_not_copied(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_bytes(ODD_FILES["minimal quoting"])
    run = score(load_records(source, raw_lines=True), SEED_PAIR)
    source.write_bytes(b"question,answer,response\nother,rows,entirely\n" * 3)
    rows.write_verdicts(run, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_bytes() == cell_by_cell(run, tmp_path / "usual.csv")
    assert b"Delhi" in (tmp_path / "out.csv").read_bytes()


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_rows_in_many_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Rows are written SPLICED_ROWS at a time, each piece going on from where the last one's lines
    stopped; blank lines and rows written again fall on either side of the cuts."""
    lines = [f'q{i},a{i},"a{i}, yes"' if i % 4 else f'"q{i}",a{i},b' for i in range(30)]
    lines[10:10] = ["", ""]
    data = ("question,answer,response\r\n" + "\r\n".join(lines)).encode()
    monkeypatch.setattr(rows, "SPLICED_ROWS", chunk)
    copied, usual, run = both_ways(tmp_path, data)
    assert copied == usual
    assert rows._copies_input_lines(run)
