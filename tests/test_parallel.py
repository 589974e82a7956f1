"""Scoring a CSV file in several processes gives exactly what one process gives.

`score_file` shards only files bigger than `MIN_BYTES_PER_WORKER` bytes per worker; the `sharded` fixture
sets it to 1 so a file of a few hundred rows is cut into `workers` spans, and records the cuts so each test
can prove that it really ran in spans.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import assay.parallel as parallel
from assay import InputError, summary_dict
from assay.csvfile import Span, split_spans
from assay.parallel import score_file

ROWS = 300


def make_rows(count: int, *, with_id: bool) -> list[list[str]]:
    """A header and `count` rows hitting every awkward CSV cell, every verdict bucket and blank responses."""
    kinds = [
        ("Paris", "Paris, France, on the Seine"),  # a quoted comma
        ("New Delhi", 'He said "New Delhi", twice: ""New Delhi""'),  # escaped quotes
        ("Agra", "first line\nAgra, second line\r\nthird"),  # line breaks inside quotes
        ("नई दिल्ली", "भारत की राजधानी नई दिल्ली है।"),  # Devanagari, the danda
        ("Jupiter", ""),  # blank
        ("Saturn", "   "),  # whitespace only: blank too
        ("drip painting", "the drip and pour approach to painting"),  # overlap only
        ("Akbar", "Akbar's atelier"),  # exact only
        ("Mars", "Venus"),  # both fail
        ("", "anything"),  # an empty golden answer
    ]
    header = ["question", "answer", "Domain", "response", "notes"]
    rows = []
    for i in range(count):
        answer, response = kinds[i % len(kinds)] if i % 37 else ("", "")
        notes = f'note {i}, "quoted"\nsecond line' if i % 5 == 0 else f"n{i}"
        rows.append([f"Question {i}?", answer, ("Art", "History", "भूगोल")[i % 3], response, notes])
    if with_id:
        return [["id", *header], *[[f"q-{i:04d}", *row] for i, row in enumerate(rows)]]
    return [header, *rows]


def csv_bytes(rows: list[list[str]], newline: str = "\n", bom: bool = False) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerows(rows)
    return (codecs.BOM_UTF8 if bom else b"") + buffer.getvalue().encode("utf-8")


VARIANTS = {
    "lf-with-id": lambda: csv_bytes(make_rows(ROWS, with_id=True)),
    "lf-without-id": lambda: csv_bytes(make_rows(ROWS, with_id=False)),
    "crlf-with-id": lambda: csv_bytes(make_rows(ROWS, with_id=True), "\r\n"),
    "crlf-without-id": lambda: csv_bytes(make_rows(ROWS, with_id=False), "\r\n"),
    "bom-without-id": lambda: csv_bytes(make_rows(ROWS, with_id=False), bom=True),
}


@pytest.fixture
def sharded(monkeypatch: pytest.MonkeyPatch) -> list[list[Span]]:
    """Shard any file; record the spans each sharded run was cut into."""
    cuts: list[list[Span]] = []

    def spy(path: Any, parts: int) -> list[Span]:
        cuts.append(split_spans(path, parts))
        return cuts[-1]

    monkeypatch.setattr(parallel, "MIN_BYTES_PER_WORKER", 1)
    monkeypatch.setattr(parallel, "split_spans", spy)
    return cuts


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_parquet(path: Path) -> Any:
    return pq.read_table(path)


# --- same numbers, same files --------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sharded_summary_equals_one_process(
    tmp_path: Path, sharded: list[list[Span]], variant: str, workers: int
) -> None:
    path = write(tmp_path, "responses.csv", VARIANTS[variant]())
    alone = summary_dict(score_file(path, workers=1).summary)
    shared = summary_dict(score_file(path, workers=workers).summary)
    assert [len(spans) for spans in sharded] == [workers]
    assert shared == alone
    assert shared["rows"]["total"] == ROWS


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sharded_out_file_is_byte_identical(
    tmp_path: Path, sharded: list[list[Span]], variant: str, fmt: str, workers: int
) -> None:
    path = write(tmp_path, "responses.csv", VARIANTS[variant]())
    score_file(path, workers=1, out=tmp_path / f"alone.{fmt}")
    score_file(path, workers=workers, out=tmp_path / f"shared.{fmt}")
    assert [len(spans) for spans in sharded] == [workers]
    assert (tmp_path / f"shared.{fmt}").read_bytes() == (tmp_path / f"alone.{fmt}").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["responses.csv", f"alone.{fmt}", f"shared.{fmt}"]
    )


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("variant", ["lf-with-id", "crlf-without-id"])
def test_sharded_parquet_out_is_the_same_table(
    tmp_path: Path, sharded: list[list[Span]], variant: str, workers: int
) -> None:
    path = write(tmp_path, "responses.csv", VARIANTS[variant]())
    score_file(path, workers=1, out=tmp_path / "alone.parquet")
    score_file(path, workers=workers, out=tmp_path / "shared.parquet")
    assert [len(spans) for spans in sharded] == [workers]
    alone, shared = read_parquet(tmp_path / "alone.parquet"), read_parquet(tmp_path / "shared.parquet")
    assert shared.schema == alone.schema
    assert shared.to_pylist() == alone.to_pylist()


def test_sharded_parquet_out_when_the_first_span_has_no_passing_row(
    tmp_path: Path, sharded: list[list[Span]]
) -> None:
    rows = [["question", "answer", "response"]]
    rows += [[f"q{i}", "London", "no"] for i in range(40)] + [
        [f"q{i}", "Paris", "Paris it is"] for i in range(40, 80)
    ]
    path = write(tmp_path, "responses.csv", csv_bytes(rows))
    score_file(path, workers=1, out=tmp_path / "alone.parquet")
    score_file(path, workers=3, out=tmp_path / "shared.parquet")
    assert (
        read_parquet(tmp_path / "shared.parquet").to_pylist()
        == read_parquet(tmp_path / "alone.parquet").to_pylist()
    )


def test_trailing_blank_lines_in_their_own_span(tmp_path: Path, sharded: list[list[Span]]) -> None:
    path = write(tmp_path, "responses.csv", b"question,answer,response\n" + b"q,a,a\n" * 20 + b"\n" * 200)
    assert summary_dict(score_file(path, workers=2).summary) == summary_dict(
        score_file(path, workers=1).summary
    )


@pytest.mark.parametrize("workers", [2, 3])
def test_rows_without_ids_are_numbered_across_spans(
    tmp_path: Path, sharded: list[list[Span]], workers: int
) -> None:
    path = write(tmp_path, "responses.csv", VARIANTS["lf-without-id"]())
    out = tmp_path / "shared.jsonl"
    score_file(path, workers=workers, out=out)
    ids = [json.loads(line)["row"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert ids == [str(n) for n in range(1, ROWS + 1)]
    assert len(sharded[0]) == workers


def test_limit_scores_in_one_process_with_the_same_result(tmp_path: Path, sharded: list[list[Span]]) -> None:
    path = write(tmp_path, "responses.csv", VARIANTS["lf-without-id"]())
    limited = summary_dict(score_file(path, workers=3, limit=50).summary)
    assert sharded == []  # --limit reads the first rows only: nothing to share
    assert limited == summary_dict(score_file(path, workers=1, limit=50).summary)
    assert limited["rows"]["total"] == 50


# --- errors across spans -------------------------------------------------------------------------------


def error_of(path: Path, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        score_file(path, **kwargs)
    return caught.value.message


def test_duplicate_ids_in_different_spans_are_an_error(tmp_path: Path, sharded: list[list[Span]]) -> None:
    rows = make_rows(ROWS, with_id=True)
    rows[-1][0] = rows[1][0]  # the last row repeats the first row's id
    data = csv_bytes(rows)
    path = write(tmp_path, "dup.csv", data)
    line = data[: data.rindex(b"\nq-0000,") + 1].count(b"\n") + 1
    message = error_of(path, workers=2)
    assert len(sharded[0]) == 2
    assert message.startswith(f"{path} line {line}: duplicate id 'q-0000' (first at line 2)")
    assert message == error_of(path, workers=1)


@pytest.mark.parametrize("workers", [2, 3])
def test_duplicate_ids_in_different_spans_are_kept_when_allowed(
    tmp_path: Path, sharded: list[list[Span]], workers: int
) -> None:
    rows = make_rows(ROWS, with_id=True)
    rows[-1][0] = rows[1][0]
    path = write(tmp_path, "dup.csv", csv_bytes(rows))
    shared = summary_dict(score_file(path, workers=workers, allow_duplicate_ids=True).summary)
    assert shared == summary_dict(score_file(path, workers=1, allow_duplicate_ids=True).summary)
    assert shared["rows"]["total"] == ROWS


@pytest.mark.parametrize(
    ("name", "bad_row", "expected"),
    [
        ("ragged", b"q,a,D,r,n,extra\n", "row has 6 fields but the header has 5"),
        ("not-utf8", b"q,caf\xe9,D,r,n\n", "not valid UTF-8 at byte offset"),
    ],
    ids=["ragged-row", "not-utf8"],
)
def test_error_in_a_later_span_names_its_line(
    tmp_path: Path, sharded: list[list[Span]], name: str, bad_row: bytes, expected: str
) -> None:
    good = csv_bytes(make_rows(ROWS, with_id=False))  # quoted line breaks before the bad row
    data = good + bad_row + csv_bytes(make_rows(20, with_id=False)[1:])
    path = write(tmp_path, f"{name}.csv", data)
    line = good.count(b"\n") + 1
    message = error_of(path, workers=2)
    assert sharded[0][1].start <= len(good) < sharded[0][1].end  # the bad row is in the second span
    assert expected in message
    assert f"line {line}" in message
    assert message == error_of(path, workers=1)


def test_lone_carriage_return_in_a_cell_does_not_change_line_numbers(
    tmp_path: Path, sharded: list[list[Span]]
) -> None:
    data = b'question,answer,response\nq1,a1,"x\ry"\n' + b"q,a,r\n" * 30 + b"q,a,r,extra\n" + b"q,a,r\n" * 5
    path = write(tmp_path, "cr.csv", data)
    alone, shared = error_of(path, workers=1), error_of(path, workers=2)
    assert len(sharded[0]) == 2
    assert alone == shared


# --- split_spans ---------------------------------------------------------------------------------------


def rows_of(data: bytes) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")) if row]


TRICKY = {
    "variants": VARIANTS["crlf-without-id"](),
    # Most bytes sit inside long quoted cells, so most cut targets fall inside quotes.
    "long-quoted-cells": csv_bytes(
        [["question", "answer", "response"]]
        + [[f"q{i}", "a", ('line "x", y\n' * (40 if i % 3 else 1)) + "end"] for i in range(60)]
    ),
    "quotes-at-line-ends": csv_bytes(
        [["question", "answer", "response"]] + [[f"q{i}", '"', '""\n""\n"'] for i in range(50)]
    ),
    "no-trailing-newline": csv_bytes(make_rows(40, with_id=True)).rstrip(b"\n"),
}


@pytest.mark.parametrize("parts", [1, 2, 3, 4, 7, 16])
@pytest.mark.parametrize("name", list(TRICKY))
def test_split_spans_cover_the_rows_exactly_once(tmp_path: Path, name: str, parts: int) -> None:
    data = TRICKY[name]
    spans = split_spans(write(tmp_path, "f.csv", data), parts)
    header_end = data.index(b"\n") + 1
    assert 1 <= len(spans) <= parts
    assert spans[0].start == header_end and spans[-1].end == len(data)
    assert all(a.end == b.start for a, b in itertools.pairwise(spans))  # contiguous: no gap, no overlap
    assert all(span.start < span.end for span in spans)
    assert [row for span in spans for row in rows_of(data[span.start : span.end])] == rows_of(
        data[header_end:]
    )


@pytest.mark.parametrize("parts", [2, 3, 5, 8])
@pytest.mark.parametrize("name", list(TRICKY))
def test_split_spans_cut_only_between_rows(tmp_path: Path, name: str, parts: int) -> None:
    data = TRICKY[name]
    spans = split_spans(write(tmp_path, "f.csv", data), parts)
    for span in spans:
        before = data[: span.start]
        assert before.endswith(b"\n")
        assert before.count(b'"') % 2 == 0  # outside any quoted cell


@pytest.mark.parametrize("parts", [2, 3, 4, 7])
def test_split_spans_ask_for_even_sizes(tmp_path: Path, parts: int) -> None:
    data = csv_bytes([["question", "answer", "response"]] + [[f"q{i:05d}", "a", "r"] for i in range(2000)])
    sizes = [span.end - span.start for span in split_spans(write(tmp_path, "f.csv", data), parts)]
    assert len(sizes) == parts
    assert max(sizes) - min(sizes) <= 2 * len(b"q00000,a,r\n")


@pytest.mark.parametrize(
    ("data", "parts", "count"),
    [
        (b"question,answer,response\nq,a,r\n", 4, 1),
        (b"question,answer,response\nq1,a,r\nq2,a,r\n", 8, 2),
        (b"question,answer,response\n", 3, 0),
        (b'question,answer,response\nq,a,"one\ntwo\nthree\nfour"\n', 4, 1),
    ],
    ids=["one-row", "more-parts-than-rows", "header-only", "one-multiline-row"],
)
def test_split_spans_never_returns_empty_spans(tmp_path: Path, data: bytes, parts: int, count: int) -> None:
    spans = split_spans(write(tmp_path, "f.csv", data), parts)
    assert len(spans) == count
    assert all(span.start < span.end for span in spans)


@pytest.mark.parametrize("name", ["f.jsonl", "f.json", "f.parquet"])
def test_split_spans_refuse_other_formats(tmp_path: Path, name: str) -> None:
    from assay import UsageError

    with pytest.raises(UsageError, match="cannot be split"):
        split_spans(write(tmp_path, name, b"{}\n"), 2)


# --- headers the csv module reads differently from a plain first line ----------------------------------

ODD_HEADERS = {
    # A stray quote in a name: a quote count from the file's start would put the first cut rows too late.
    "stray-quote-in-header": b'question,answer,response,no"te\n',
    # A header ended by a lone carriage return, rows by line feeds.
    "lone-cr-after-header": b"question,answer,response,note\r",
    "blank-lines-before-header": b"\n\nquestion,answer,response,note\n",
    "line-break-in-a-name": b'question,answer,response,"note\nmore"\n',
}


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("name", list(ODD_HEADERS))
def test_odd_headers_lose_no_row_in_spans(
    tmp_path: Path, sharded: list[list[Span]], name: str, workers: int
) -> None:
    body = b"".join(b"q%d,a%d,the a%d here,n\n" % (i, i, i) for i in range(40))
    path = write(tmp_path, "odd.csv", ODD_HEADERS[name] + body)
    alone = tmp_path / "alone.csv"
    shared = tmp_path / "shared.csv"
    one = summary_dict(score_file(path, workers=1, out=alone).summary)
    several = summary_dict(score_file(path, workers=workers, out=shared).summary)
    assert len(sharded[-1]) >= 2
    assert several == one
    assert one["rows"]["total"] == 40
    assert shared.read_bytes() == alone.read_bytes()  # one header, whatever it holds


def test_a_span_of_blank_lines_keeps_every_parquet_column(tmp_path: Path, sharded: list[list[Span]]) -> None:
    rows = b"".join(b"q%d,a,a,n\n" % i for i in range(10))
    data = b"question,answer,response,note\n" + rows + b"\n" * 400 + rows
    path = write(tmp_path, "gap.csv", data)
    score_file(path, workers=4, out=tmp_path / "gap.parquet")
    assert any(not data[span.start : span.end].strip() for span in sharded[-1])  # a span of blank lines
    table = read_parquet(tmp_path / "gap.parquet")
    assert table.num_rows == 20
    assert {"matching_words", "total_golden_words"} <= set(table.column_names)
