"""Loading responses files: every format gives the same records, and bad input is an error that says where.

The issue's input rules: CSV / JSONL / JSON array / Parquet / DataFrame; `Domain` or `domain`; optional `id`
(else the 1-based row number), `lang`, `answers`; other columns carried through untouched; UTF-8 with or
without BOM, anything else an error naming the file and byte offset; bad input never loses a row.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay import ColumnMap, InputError, Record, load_records

HEADER = b"question,answer,Domain,response\n"  # 32 bytes: byte offsets below count from here

# Three rows exercising the awkward cells: a comma, a quote, a line break, Devanagari, an extra column.
ROWS: list[dict[str, Any]] = [
    {
        "id": "geo-1",
        "question": "What is the capital of India?",
        "answer": "New Delhi",
        "Domain": "Geography",
        "lang": "en",
        "response": "The capital is New Delhi, on the Yamuna.",
        "notes": "has a comma, inside",
    },
    {
        "id": "geo-hi-1",
        "question": "भारत की राजधानी क्या है?",
        "answer": "नई दिल्ली",
        "Domain": "Geography",
        "lang": "hi",
        "response": "भारत की राजधानी नई दिल्ली है।",
        "notes": 'a "quoted" word',
    },
    {
        "id": "art-1",
        "question": "Who painted Guernica?",
        "answer": "Pablo Picasso",
        "Domain": "Art",
        "lang": "en",
        "response": "It was painted\nby Picasso.",
        "notes": "",
    },
]


# --- helpers: write the same rows in each format -------------------------------------------------------


def csv_text(rows: list[dict[str, Any]], newline: str = "\n") -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator=newline)
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_rows(tmp_path: Path, fmt: str, rows: list[dict[str, Any]]) -> Any:
    """The rows as a file of format `fmt` (or a DataFrame), ready for load_records."""
    if fmt == "dataframe":
        return pd.DataFrame(rows)
    path = tmp_path / f"data.{fmt.removesuffix('_bom')}"
    if fmt == "csv":
        path.write_text(csv_text(rows), encoding="utf-8", newline="")
    elif fmt == "csv_bom":
        path.write_bytes(codecs.BOM_UTF8 + csv_text(rows).encode("utf-8"))
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "json":
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    elif fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        raise AssertionError(fmt)
    return path


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def load_error(source: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        load_records(source, **kwargs)
    return caught.value.message


ALL_FORMATS = ["csv", "csv_bom", "jsonl", "json", "parquet", "dataframe"]
# Where each row of ROWS starts: CSV counts physical lines (art-1's response spans two); the rest count rows.
ROW_LOCATIONS = {
    "csv": (2, 3, 4),
    "csv_bom": (2, 3, 4),
    "jsonl": (1, 2, 3),
    "json": (1, 2, 3),
    "parquet": (1, 2, 3),
    "dataframe": (1, 2, 3),
}


# --- formats -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_every_format_loads_the_same_records(tmp_path: Path, fmt: str) -> None:
    dataset = load_records(write_rows(tmp_path, fmt, ROWS))
    expected = [
        Record(
            r["id"],
            r["question"],
            (r["answer"],),
            r["response"],
            r["Domain"],
            r["lang"],
            at,
            {"notes": r["notes"]},
        )
        for r, at in zip(ROWS, ROW_LOCATIONS[fmt], strict=True)
    ]
    assert dataset.records == expected
    assert dataset.columns == tuple(ROWS[0])
    assert dataset.null_cells == {}


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [("csv", "line"), ("jsonl", "line"), ("json", "row"), ("parquet", "row"), ("dataframe", "row")],
    ids=["csv", "jsonl", "json", "parquet", "dataframe"],
)
def test_location_kind_says_what_row_numbers_count(tmp_path: Path, fmt: str, kind: str) -> None:
    assert load_records(write_rows(tmp_path, fmt, ROWS)).location_kind == kind


@pytest.mark.parametrize("fmt", ["jsonl", "json", "parquet", "dataframe"])
def test_null_cells_become_empty_text_and_are_counted(tmp_path: Path, fmt: str) -> None:
    rows = [dict(r) for r in ROWS]
    rows[1]["response"] = None
    rows[2]["lang"] = math.nan if fmt == "dataframe" else None
    dataset = load_records(write_rows(tmp_path, fmt, rows))
    assert [r.response for r in dataset.records] == [ROWS[0]["response"], "", ROWS[2]["response"]]
    assert [r.lang for r in dataset.records] == ["en", "hi", ""]
    assert dataset.null_cells == {"response": ("geo-hi-1",), "lang": ("art-1",)}
    assert len(dataset) == 3  # the rows are kept, not dropped


def test_dataframe_nan_in_an_int_like_answer_column_keeps_the_numbers_as_integers() -> None:
    # pandas turns an int column holding NaN into floats; 1947.0 must still read as "1947".
    frame = pd.DataFrame({"question": ["q1", "q2"], "answer": [1947, math.nan], "response": ["in 1947", "r"]})
    dataset = load_records(frame)
    assert [r.answers for r in dataset.records] == [("1947",), ("",)]
    assert dataset.null_cells == {"answer": ("2",)}


@pytest.mark.parametrize("name", ["Domain", "domain"])
def test_domain_column_is_found_in_either_case(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, "d.csv", f"question,answer,{name},response\nq,a,History,r\n".encode())
    assert load_records(path).records[0].domain == "History"


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "parquet", "dataframe"])
def test_without_an_id_column_rows_are_numbered_from_one(tmp_path: Path, fmt: str) -> None:
    rows = [{k: v for k, v in r.items() if k != "id"} for r in ROWS]
    dataset = load_records(write_rows(tmp_path, fmt, rows))
    assert [r.id for r in dataset.records] == ["1", "2", "3"]
    assert "id" not in dataset.fields


# --- several golden answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "parquet", "dataframe"])
def test_answers_column_gives_several_golden_answers(tmp_path: Path, fmt: str) -> None:
    golds = [["New Delhi", "Delhi"], ["नई दिल्ली"], ["Picasso", "Pablo Picasso", 'Pablo "P" Picasso, painter']]
    cells: list[Any] = [json.dumps(g, ensure_ascii=False) for g in golds] if fmt == "csv" else golds
    rows = [
        {"question": r["question"], "answers": c, "response": r["response"]}
        for r, c in zip(ROWS, cells, strict=True)
    ]
    dataset = load_records(write_rows(tmp_path, fmt, rows))
    assert [r.answers for r in dataset.records] == [tuple(g) for g in golds]
    assert dataset.fields["answers"] == "answers"


def test_answers_items_that_are_not_text_become_text(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "a.jsonl",
        b'{"question": "q", "answers": [1947, "nineteen forty-seven"], "response": "r"}\n',
    )
    assert load_records(path).records[0].answers == ("1947", "nineteen forty-seven")


@pytest.mark.parametrize(
    ("second_row", "where"),
    [
        (b"q2,New Delhi,r2\n", "a.csv line 3"),
        (b'q2,"{""a"": 1}",r2\n', "a.csv line 3"),
        (b'q2,"[""New Delhi""",r2\n', "a.csv line 3"),
        (b'q2,"[""a""]","two\nlines"\nq3,oops,r3\n', "a.csv line 5"),
    ],
    ids=["not-json", "json-object", "unclosed-array", "after-multiline-cell"],
)
def test_malformed_answers_cell_in_csv_names_its_line(tmp_path: Path, second_row: bytes, where: str) -> None:
    path = write(tmp_path, "a.csv", b'question,answers,response\nq1,"[""a""]",r1\n' + second_row)
    message = load_error(path)
    assert message.startswith(str(tmp_path / where))
    assert "column 'answers' must hold a list of answers" in message
    assert "Fix: write a JSON array" in message


@pytest.mark.parametrize(
    ("fmt", "cell", "where"),
    [
        ("jsonl", 42, "line 2"),
        ("jsonl", {"a": 1}, "line 2"),
        ("jsonl", "New Delhi", "line 2"),
        ("json", 42, "row 2"),
    ],
    ids=["jsonl-number", "jsonl-object", "jsonl-plain-string", "json-number"],
)
def test_malformed_answers_cell_in_json_names_its_row(
    tmp_path: Path, fmt: str, cell: Any, where: str
) -> None:
    rows = [
        {"question": "q1", "answers": ["a"], "response": "r1"},
        {"question": "q2", "answers": cell, "response": "r"},
    ]
    message = load_error(write_rows(tmp_path, fmt, rows))
    assert f"data.{fmt} {where}" in message
    assert "column 'answers' must hold a list of answers" in message


# --- columns -------------------------------------------------------------------------------------------


def test_extra_csv_columns_are_kept_in_meta_in_input_order(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", b"model,question,answer,response,score,notes\nm1,q,a,r,0.5,\n")
    record = load_records(path).records[0]
    assert list(record.meta.items()) == [("model", "m1"), ("score", "0.5"), ("notes", "")]


def test_extra_json_values_are_kept_untouched(tmp_path: Path) -> None:
    extra = {"model": "m1", "score": 0.5, "tags": ["a", "b"], "trace": {"steps": [1, 2]}, "flag": True}
    path = write(
        tmp_path, "x.jsonl", json.dumps({"question": "q", "answer": "a", "response": "r", **extra}).encode()
    )
    assert dict(load_records(path).records[0].meta) == extra


WIDE_HEADER = b"key,prompt,gold,golds,reply,area,language,other\n"
WIDE_ROW = b'k1,Capital?,New Delhi,"[""Delhi"", ""New Delhi""]",It is Delhi,Geography,en,x\n'


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (
            ColumnMap(
                id="key", question="prompt", answer="gold", response="reply", domain="area", lang="language"
            ),
            Record(
                "k1",
                "Capital?",
                ("New Delhi",),
                "It is Delhi",
                "Geography",
                "en",
                2,
                {"golds": '["Delhi", "New Delhi"]', "other": "x"},
            ),
        ),
        (
            ColumnMap(question="prompt", answers="golds", response="reply"),
            Record(
                "1",
                "Capital?",
                ("Delhi", "New Delhi"),
                "It is Delhi",
                "",
                "",
                2,
                {"key": "k1", "gold": "New Delhi", "area": "Geography", "language": "en", "other": "x"},
            ),
        ),
        (
            ColumnMap(question="prompt", answer="gold", response="other", domain="language"),
            Record(
                "1",
                "Capital?",
                ("New Delhi",),
                "x",
                "en",
                "",
                2,
                {"key": "k1", "golds": '["Delhi", "New Delhi"]', "reply": "It is Delhi", "area": "Geography"},
            ),
        ),
    ],
    ids=["every-field-renamed", "answers-col", "any-column-may-feed-any-field"],
)
def test_column_map_picks_the_named_columns(tmp_path: Path, columns: ColumnMap, expected: Record) -> None:
    path = write(tmp_path, "wide.csv", WIDE_HEADER + WIDE_ROW)
    assert load_records(path, columns=columns).records == [expected]


@pytest.mark.parametrize(
    ("columns", "answers"),
    [
        (None, ("Delhi", "New Delhi")),
        (ColumnMap(answer="answer"), ("New Delhi",)),
        (ColumnMap(answers="answers"), ("Delhi", "New Delhi")),
    ],
    ids=["answers-wins-by-default", "naming-answer-picks-it", "naming-answers-picks-it"],
)
def test_answers_or_answer_when_both_exist(tmp_path: Path, columns: ColumnMap | None, answers: tuple) -> None:
    data = b'question,answer,answers,response\nq,New Delhi,"[""Delhi"", ""New Delhi""]",r\n'
    assert load_records(write(tmp_path, "b.csv", data), columns=columns).records[0].answers == answers


@pytest.mark.parametrize(
    ("header", "columns", "missing", "suggestion", "flag"),
    [
        (b"question,answer,Domain,Response", None, "response", "Response", "--response-col Response"),
        (b"question,answer,Domain,respnse", None, "response", "respnse", "--response-col respnse"),
        (b"questoin,answer,Domain,response", None, "question", "questoin", "--question-col questoin"),
        (b"QUESTION,answer,Domain,response", None, "question", "QUESTION", "--question-col QUESTION"),
        (b"question,golden,Domain,response", None, "answer", "golden", "--answer-col golden"),
        (
            b"question,answer,Domain,response",
            ColumnMap(response="reply"),
            "reply",
            "response",
            "--response-col",
        ),
        (b"question,answer,Domain,response", ColumnMap(id="key"), "key", None, "--id-col"),
    ],
    ids=[
        "capitalised",
        "misspelt",
        "transposed",
        "upper-case",
        "golden-by-name",
        "named-absent",
        "named-id-absent",
    ],
)
def test_missing_column_lists_the_columns_found_and_the_closest(
    tmp_path: Path, header: bytes, columns: ColumnMap | None, missing: str, suggestion: str | None, flag: str
) -> None:
    path = write(tmp_path, "cols.csv", header + b"\nq,a,D,r\n")
    message = load_error(path, columns=columns)
    found = header.decode().replace(",", ", ")
    assert message.startswith(f"{path}: missing column: ")
    assert f"no column '{missing}'" in message and f"(columns found: {found})" in message
    if suggestion:
        assert f"nearest: '{suggestion}'" in message
    else:
        assert "nearest" not in message
    assert flag in message


# --- encoding ------------------------------------------------------------------------------------------

BIG = 5 << 20  # past the 4 MiB chunk that the UTF-8 check reads at a time


def _big_prefix() -> bytes:
    """Over 4 MiB of valid rows, with a 3-byte character straddling the 4 MiB mark."""
    straddler = "q,a,D,नई दिल्ली\n".encode()  # "न" starts one byte before the mark
    room = (4 << 20) - 1 - len(b"q,a,D,") - len(HEADER)
    rows, pad = divmod(room, 8)
    body = HEADER + b"q,a,D,r\n" * (rows - 1) + b"q,a,D,r" + b"r" * pad + b"\n" + straddler
    body += "q,a,D,उत्तर\n".encode() * ((BIG - len(body)) // 20)
    assert 0x80 <= body[4 << 20] < 0xC0  # a continuation byte: the character straddles the mark
    return body


@pytest.mark.parametrize(
    ("data", "offset", "line"),
    [
        (HEADER + b"q1,caf\xe9,D,r1\n", 38, 2),
        (b"question,answer,Dom\xe4in,response\nq,a,D,r\n", 19, 1),
        (codecs.BOM_UTF8 + HEADER + b"q1,caf\xe9,D,r1\n", 41, 2),
        (HEADER + "नई,".encode() + b"caf\xe9,D,r1\n", 42, 2),
        (HEADER + b"q1,a1,D,r1\nq2,a2,D,r2\nq3,a3,D,\x93smart\x94\n", 62, 4),
        (HEADER + b'q1,a1,D,"line one\nline two"\nq2,caf\xe9,D,r2\n', 66, 4),
        (HEADER + b"q1,a1,D,r1 \xe0\xa4", 43, 2),
    ],
    ids=[
        "first-row",
        "in-header",
        "after-bom",
        "after-multibyte-chars",
        "third-row",
        "after-multiline-cell",
        "truncated-at-end",
    ],
)
def test_non_utf8_csv_names_the_byte_offset_and_line(
    tmp_path: Path, data: bytes, offset: int, line: int
) -> None:
    path = write(tmp_path, "latin.csv", data)
    message = load_error(path)
    assert message.startswith(f"{path}: not valid UTF-8 at byte offset {offset} (line {line},")
    assert "Fix: re-save it as UTF-8" in message


@pytest.mark.parametrize("where", ["start", "end"], ids=["bad-byte-in-first-rows", "bad-byte-past-4MiB"])
def test_non_utf8_byte_offset_is_exact_in_a_large_file(tmp_path: Path, where: str) -> None:
    body = _big_prefix()
    bad = b"q,caf\xe9,D,r\n"
    data = HEADER + bad + body[len(HEADER) :] if where == "start" else body + bad
    offset = data.index(b"\xe9")
    line = data[:offset].count(b"\n") + 1
    message = load_error(write(tmp_path, "big.csv", data))
    assert f"not valid UTF-8 at byte offset {offset} (line {line}," in message


@pytest.mark.parametrize(
    ("name", "data", "offset", "line"),
    [
        (
            "jsonl",
            b'{"question": "q", "answer": "a", "response": "r"}\n'
            b'{"question": "caf\xe9", "answer": "a", "response": "r"}\n',
            67,
            2,
        ),
        (
            "json",
            b'[{"question": "q", "answer": "a", "response": "r"},\n'
            b' {"question": "caf\xe9", "answer": "a", "response": "r"}]',
            70,
            2,
        ),
    ],
    ids=["jsonl", "json"],
)
def test_non_utf8_json_names_the_byte_offset_and_line(
    tmp_path: Path, name: str, data: bytes, offset: int, line: int
) -> None:
    path = write(tmp_path, f"latin.{name}", data)
    assert f"{path}: not valid UTF-8 at byte offset {offset} (line {line}," in load_error(path)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"], ids=["utf-16-le-bom", "utf-16-be-bom"])
@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_utf16_file_is_an_error_that_says_utf16(tmp_path: Path, codec: str, suffix: str) -> None:
    text = csv_text(ROWS) if suffix == "csv" else json.dumps(ROWS[0]) + "\n"
    data = text.encode(codec) if codec == "utf-16" else codecs.BOM_UTF16_BE + text.encode(codec)
    message = load_error(write(tmp_path, f"wide.{suffix}", data))
    assert "not valid UTF-8 at byte offset" in message
    assert "UTF-16" in message


def test_utf16_file_without_bom_is_an_error_that_says_utf16(tmp_path: Path) -> None:
    message = load_error(write(tmp_path, "nobom.csv", csv_text(ROWS).encode("utf-16-le")))
    assert "UTF-16" in message
    assert "byte offset" in message


# --- shape: empty files, header only, ragged rows, blank lines, line ends --------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("empty.csv", b""),
        ("blank-lines.csv", b"\n\n  \n"),
        ("bom-only.csv", codecs.BOM_UTF8),
        ("empty.jsonl", b""),
        ("blank-lines.jsonl", b"\n\n"),
        ("empty.json", b""),
    ],
)
def test_empty_file_is_an_error(tmp_path: Path, name: str, data: bytes) -> None:
    path = write(tmp_path, name, data)
    assert load_error(path) == f"{path}: the file is empty. Fix: point --responses at a file with rows"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("header.csv", HEADER),
        ("header-no-newline.csv", HEADER.rstrip()),
        ("header-crlf.csv", HEADER.replace(b"\n", b"\r\n")),
        ("header-with-bom.csv", codecs.BOM_UTF8 + HEADER),
    ],
)
def test_header_only_file_is_an_error(tmp_path: Path, name: str, data: bytes) -> None:
    path = write(tmp_path, name, data)
    assert load_error(path) == f"{path}: the input has a header but no rows. Fix: add rows to score"


def test_header_then_only_blank_lines_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "blanks.csv", HEADER + b"\n\n\n")
    assert load_error(path) == f"{path}: the input has a header but no rows. Fix: add rows to score"


@pytest.mark.parametrize("source", ["parquet", "dataframe"])
def test_table_with_columns_but_no_rows_is_an_error(tmp_path: Path, source: str) -> None:
    empty = pa.table(
        {
            "question": pa.array([], pa.string()),
            "answer": pa.array([], pa.string()),
            "response": pa.array([], pa.string()),
        }
    )
    if source == "parquet":
        pq.write_table(empty, tmp_path / "none.parquet")
        data: Any = tmp_path / "none.parquet"
    else:
        data = empty.to_pandas()
    assert "the input has a header but no rows" in load_error(data)


@pytest.mark.parametrize(
    ("body", "line", "fields"),
    [
        (b"q1,a1,D,r1\nq2,a2,D,r2,extra\n", 3, 5),
        (b"q1,a1,D,r1\nq2,a2,D\n", 3, 3),
        (b"q1,a1,D,r1,x\n", 2, 5),
        (b'q1,a1,D,"one\ntwo"\nq2,a2,D,r2,extra\n', 4, 5),
        (b'q1,"a\n1",D,"one\ntwo\nthree"\nq2,a2,D\n', 6, 3),
        (b"q1,a1,D,r1\n\n\nq2,a2,D,r2,x\n", 5, 5),
        (b'q1,a1,D,"quoted, comma"\nq2,a2,D,unquoted, comma\n', 3, 5),
        (b'q1,a1,D,r1\r\nq2,a2,D,"one\r\ntwo"\r\nq3,a3,D\r\n', 5, 3),
    ],
    ids=[
        "too-many",
        "too-few",
        "first-row",
        "after-two-line-quoted-cell",
        "after-two-multiline-cells",
        "after-blank-lines",
        "unquoted-comma",
        "crlf-after-multiline-cell",
    ],
)
def test_ragged_row_names_its_physical_line(tmp_path: Path, body: bytes, line: int, fields: int) -> None:
    path = write(tmp_path, "ragged.csv", HEADER + body)
    message = load_error(path)
    assert message == (
        f"{path} line {line}: row has {fields} fields but the header has 4. "
        "Fix: quote cells that contain commas or line breaks, or fix the row"
    )


def test_ragged_row_past_the_first_block_names_its_line(tmp_path: Path) -> None:
    # Over 4 MiB of rows, some with quoted line breaks, so the reader works block by block.
    rows = [b'q%d,a,D,"line\nbreak"\n' % i if i % 7 == 0 else b"q%d,a,D,r\n" % i for i in range(300_000)]
    data = HEADER + b"".join(rows) + b"q,a,D\n"
    line = data.count(b"\n")  # the last line: the ragged row
    assert len(data) > 4 << 20
    assert f"ragged.csv line {line}: row has 3 fields" in load_error(write(tmp_path, "ragged.csv", data))


@pytest.mark.parametrize(
    ("body", "locations"),
    [
        (b"q1,a1,D,r1\n\nq2,a2,D,r2\n", [2, 4]),
        (b"\n\nq1,a1,D,r1\nq2,a2,D,r2\n\n\n", [4, 5]),
        (b'q1,a1,D,"quoted"\n\nq2,a2,D,"two\nlines"\n\nq3,a3,D,r3\n', [2, 4, 7]),
        (b"q1,a1,D,r1\r\n\r\nq2,a2,D,r2\r\n", [2, 4]),
    ],
    ids=["between-rows", "leading-and-trailing", "with-quoted-cells", "crlf"],
)
def test_blank_lines_are_skipped_and_later_lines_keep_their_numbers(
    tmp_path: Path, body: bytes, locations: list[int]
) -> None:
    dataset = load_records(write(tmp_path, "blank.csv", HEADER + body))
    assert [r.row for r in dataset.records] == locations
    assert [r.id for r in dataset.records] == [str(n) for n in range(1, len(locations) + 1)]
    assert all(r.question and r.response for r in dataset.records)


@pytest.mark.parametrize(
    "body",
    [
        b"q1,a1,D,r1\nq2,a2,D,r2\n",
        b'q1,a1,D,"r1, quoted"\nq2,a2,D,r2\n',
        b'q1,a1,D,"r1 ""said"""\nq2,a2,D,r2\n',
    ],
    ids=["plain", "quoted-comma", "escaped-quotes"],
)
def test_crlf_line_ends_load_like_lf(tmp_path: Path, body: bytes) -> None:
    lf = load_records(write(tmp_path, "lf.csv", HEADER + body)).records
    crlf = load_records(write(tmp_path, "crlf.csv", (HEADER + body).replace(b"\n", b"\r\n"))).records
    assert crlf == lf
    assert not any("\r" in r.response or "\r" in r.domain for r in crlf)


@pytest.mark.parametrize(
    ("fmt", "cell"),
    [
        ("csv", "x" * 1_000_000 + " New Delhi"),
        ("csv", ('word, "quoted"\n' * 70_000) + "New Delhi"),
        ("jsonl", "नई दिल्ली " * 100_000),
        ("parquet", "y" * 1_000_000),
    ],
    ids=["csv-plain", "csv-commas-quotes-newlines", "jsonl-devanagari", "parquet"],
)
def test_one_megabyte_cell_loads_whole(tmp_path: Path, fmt: str, cell: str) -> None:
    rows = [
        {"question": "q1", "answer": "New Delhi", "response": cell},
        {"question": "q2", "answer": "Agra", "response": "Agra"},
    ]
    dataset = load_records(write_rows(tmp_path, fmt, rows))
    assert len(cell.encode()) >= 1_000_000
    assert [r.response for r in dataset.records] == [cell, "Agra"]
    expected_second = {"csv": 3 + cell.count("\n"), "jsonl": 2, "parquet": 2}[fmt]
    assert dataset.records[1].row == expected_second


def test_quote_inside_an_unquoted_cell_is_literal(tmp_path: Path) -> None:
    data = HEADER + b'q1,a1,D,he is 5" tall\nq2,a2,D,"two\nlines"\nq3,a3,D,r3\n'
    dataset = load_records(write(tmp_path, "stray.csv", data))
    assert [r.response for r in dataset.records] == ['he is 5" tall', "two\nlines", "r3"]


def test_jsonl_key_first_seen_after_the_first_object_is_still_mapped(tmp_path: Path) -> None:
    rows = [
        {"question": "q1", "answer": "a1", "response": "a1"},
        {"question": "q2", "answer": "a2", "response": "x", "Domain": "Art", "lang": "en"},
    ]
    as_array = load_records(write_rows(tmp_path, "json", rows)).records
    assert [(r.domain, r.lang) for r in as_array] == [("", ""), ("Art", "en")]  # the JSON array gets it right
    as_lines = load_records(write_rows(tmp_path, "jsonl", rows)).records
    assert [(r.domain, r.lang) for r in as_lines] == [("", ""), ("Art", "en")]


# --- ids -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "first", "second"),
    [
        ("csv", "line 2", "line 4"),
        ("jsonl", "line 1", "line 3"),
        ("json", "row 1", "row 3"),
        ("parquet", "row 1", "row 3"),
        ("dataframe", "row 1", "row 3"),
    ],
    ids=["csv", "jsonl", "json", "parquet", "dataframe"],
)
def test_duplicate_id_is_an_error_naming_both_rows(tmp_path: Path, fmt: str, first: str, second: str) -> None:
    rows = [dict(r, id=i) for r, i in zip(ROWS, ["dup", "other", "dup"], strict=True)]
    message = load_error(write_rows(tmp_path, fmt, rows))
    assert f"{second}: duplicate id 'dup' (first at {first})" in message
    assert "--allow-duplicate-ids" in message


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "parquet", "dataframe"])
def test_duplicate_ids_are_kept_when_allowed(tmp_path: Path, fmt: str) -> None:
    rows = [dict(r, id=i) for r, i in zip(ROWS, ["dup", "other", "dup"], strict=True)]
    dataset = load_records(write_rows(tmp_path, fmt, rows), allow_duplicate_ids=True)
    assert [r.id for r in dataset.records] == ["dup", "other", "dup"]
    assert [r.question for r in dataset.records] == [r["question"] for r in ROWS]


@pytest.mark.parametrize(
    ("fmt", "value", "where"),
    [
        ("csv", "", "data.csv line 3"),
        ("csv", "   ", "data.csv line 3"),
        ("jsonl", None, "data.jsonl line 2"),
        ("jsonl", "", "data.jsonl line 2"),
        ("json", None, "data.json row 2"),
        ("parquet", None, "data.parquet row 2"),
        ("dataframe", None, "<DataFrame> row 2"),
    ],
    ids=[
        "csv-empty",
        "csv-spaces",
        "jsonl-null",
        "jsonl-empty",
        "json-null",
        "parquet-null",
        "dataframe-none",
    ],
)
def test_empty_id_is_an_error(tmp_path: Path, fmt: str, value: Any, where: str) -> None:
    rows = [dict(r) for r in ROWS]
    rows[1]["id"] = value
    message = load_error(write_rows(tmp_path, fmt, rows))
    assert f"{where}: empty id in column 'id'" in message
    assert "Fix: give every row an id" in message


def test_integer_ids_become_text(tmp_path: Path) -> None:
    rows = [dict(r, id=n) for r, n in zip(ROWS, [10, 20, 30], strict=True)]
    assert [r.id for r in load_records(write_rows(tmp_path, "parquet", rows)).records] == ["10", "20", "30"]


# --- limit ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "ids"),
    [
        (1, ["geo-1"]),
        (2, ["geo-1", "geo-hi-1"]),
        (3, ["geo-1", "geo-hi-1", "art-1"]),
        (99, ["geo-1", "geo-hi-1", "art-1"]),
    ],
    ids=["one", "two", "all", "more-than-there-are"],
)
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_limit_reads_only_the_first_rows(tmp_path: Path, fmt: str, limit: int, ids: list[str]) -> None:
    dataset = load_records(write_rows(tmp_path, fmt, ROWS), limit=limit)
    assert [r.id for r in dataset.records] == ids
    assert dataset.limit == limit


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("l.csv", HEADER + b"q1,a1,D,r1\nq2,a2,D,r2\nq3,a3,D\n"),
        ("l.jsonl", b'{"question": "q", "answer": "a", "response": "r"}\n' * 2 + b"not json\n"),
    ],
    ids=["csv-ragged", "jsonl-invalid"],
)
def test_limit_stops_before_a_later_bad_row(tmp_path: Path, name: str, data: bytes) -> None:
    assert [r.id for r in load_records(write(tmp_path, name, data), limit=2).records] == ["1", "2"]


@pytest.mark.parametrize("limit", [0, -1])
def test_limit_below_one_is_an_error(tmp_path: Path, limit: int) -> None:
    message = load_error(write_rows(tmp_path, "csv", ROWS), limit=limit)
    assert f"--limit must be at least 1, got {limit}" in message


def test_a_carriage_return_between_json_tokens_is_whitespace(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "cr.jsonl",
        b'{"question": "q",\r "answer": "a", "response": "a r"}\n{"question": "q2", '
        b'"answer": "b", "response": "c"}\n',
    )
    dataset = load_records(path)
    assert [r.row for r in dataset.records] == [1, 2]
    assert dataset.records[0].answers == ("a",)


def test_blank_lines_before_the_header_are_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "blank-first.csv", b"\n\nquestion,answer,response\nq,a,r\n")
    (record,) = load_records(path).records
    assert (record.question, record.row) == ("q", 4)


# --- columns with other names (issue 23): the nearest column, by name and by values --------------------


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("Question", "question"),
        ("user_query", "question"),
        ("Golden Answer", "answer"),
        ("reference_answers", "answer"),
        ("Model Output", "response"),
        ("modelAnswer", "response"),  # a model's answer is its response, not the golden one
        ("Question ID", "id"),
        ("Category", "domain"),
        ("LANGUAGE", "lang"),
        ("language_code", "lang"),
        # the head word decides: what the words before it say is which one, or whose
        ("Expected Output", "answer"),  # what the output should be
        ("Gold Response", "answer"),
        ("predicted_answer", "response"),
        ("Question Text", "question"),
        ("Response Time (ms)", None),  # a time
        ("Output Tokens", None),
        ("Question Type", None),
        ("Answer Length", None),
        ("Language Model", None),
    ],
)
def test_a_column_s_name_says_which_field_it_is(name: str, field: str | None) -> None:
    from assay.columns import name_fits

    fields = ["id", "question", "answer", "response", "domain", "lang", "scope"]
    assert [other for other in fields if name_fits(other, name)] == ([field] if field else [])


def test_values_that_differ_as_readings_do_are_no_ids_and_one_label_is_no_domain() -> None:
    from assay.columns import content_fits

    assert not content_fits("id", ["12.5", "8.25", "31.0"])  # latencies differ row to row: no ids
    assert content_fits("id", ["q-1", "q-2", "q-3"])
    assert not content_fits("domain", ["gpt-4o"] * 6)  # one model's name in every row splits nothing
    assert content_fits("domain", ["maths", "maths", "art", "art"])


def test_one_unused_column_per_optional_field_is_hinted_and_only_a_likely_one(tmp_path: Path) -> None:
    """'Doc ID' repeats, so it is no id; 'Language' holds two codes (all different), a language, not an
    id; 'Key' (a name of no field) is an id by its values; two topic-like columns are no good guess."""
    from assay.records import column_hints

    rows = [
        ["q1?", "a", "r", "d1", "k1", "en", "x", "x"],
        ["q2?", "b", "r", "d1", "k2", "hi", "y", "y"],
        ["q3?", "c", "r", "d2", "k3", "en", "x", "x"],
        ["q4?", "d", "r", "d2", "k4", "hi", "y", "y"],
    ]
    header = "question,answer,response,Doc ID,Key,Language,Topic,Subject"
    data = "\n".join([header, *(",".join(row) for row in rows)]) + "\n"
    hints = column_hints(load_records(write(tmp_path, "h.csv", data.encode())))
    assert hints == [
        "'Key' looks like an id (by its values), unused: --id-col Key",
        "'Language' looks like a language (by its name and values), unused: --lang-col Language",
    ]
