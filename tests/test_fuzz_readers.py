"""Fuzzing the readers and the command line: no input makes assay crash, and no row is lost.

Each reader (CSV, JSON Lines, a JSON array, Parquet) is fed tables built from random cells (commas,
quotes, line breaks, BOMs and other invisible characters, lone surrogates, huge numbers, deep nesting,
bytes) and random damage to such files. Whatever happens, the only exception is an ``AssayError``; when a
file loads, every row written is a record (counted from what was generated, not from what was read).
The command line gets random argument lists built from its real flags and junk values, and must exit
0, 1 or 2 without a traceback (3 means an unexpected exception: a bug).

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 300 locally, for each reader's tables;
a quarter of that for damaged bytes and a tenth for whole commands. The seed is printed at the start;
``ASSAY_FUZZ_SEED=N`` replays a run, and a failure also prints Hypothesis's reproduce_failure blob.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run
from fuzzing import SEED, Huge, examples, fuzz_settings
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from assay import AssayError, load_records
from assay.cli import build_parser

EXAMPLES = examples(300)
FUZZ = fuzz_settings(EXAMPLES)
DAMAGED = settings(FUZZ, max_examples=max(EXAMPLES // 4, 50))  # damaged bytes, on top of the tables
COMMAND = settings(FUZZ, max_examples=max(EXAMPLES // 10, 50))  # the whole command: costlier per example


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# --- cells ---------------------------------------------------------------------------------------------

# Characters that have broken readers somewhere: CSV's own, line ends, BOM and other format characters
# (ZWSP, ZWJ, LRM, WORD JOINER, soft hyphen), lone surrogates, NUL, Devanagari with its signs, an emoji.
AWKWARD = [
    *',"\'\n\r\t ;|\\',
    "\ufeff", "\u200b", "\u200d", "\u200c", "\u200e", "\u2060", "\xad", "\ud800", "\udfff", "\x00",
    "\x85", "\u2028", "न", "ि", "्", "।", "😀", "é",
]  # fmt: skip
NAMES = ["id", "question", "answer", "answers", "response", "Domain", "lang", "expected_regex", "trace",
         "exact_substring", "\ufeffid", "id\u200b", "", "x", "Response"]  # fmt: skip
# Small inputs, cheap to draw: ten thousand examples per reader must run in a minute or so.
characters = st.sampled_from(AWKWARD + list("abcAB 19")) | st.characters()
text = st.text(characters, max_size=6)
safe_text = st.text(st.sampled_from([c for c in AWKWARD if not 0xD800 <= ord(c) <= 0xDFFF] + list("ab1")),
                    max_size=6)  # fmt: skip
names = st.sampled_from(NAMES) | st.text(characters, min_size=1, max_size=4)
columns = st.lists(names, min_size=1, max_size=5, unique=True).map(
    lambda found: found if {"question", "answer", "response"} <= set(found) else ["question", "answer",
                                                                               "response", *found]
).map(lambda found: list(dict.fromkeys(found)))  # fmt: skip


scalars = (
    text
    | st.none()
    | st.booleans()
    | st.integers()
    | st.builds(Huge)
    | st.floats(allow_nan=True, allow_infinity=True)
)
# Nested a level (deeper nesting comes from `nesting`, written as text: cheaper to draw).
json_values = scalars | st.lists(scalars, max_size=2) | st.dictionaries(text, scalars, max_size=2)


def surrogate_pass(data: str) -> bytes:
    """Text as UTF-8 bytes, a lone surrogate written as its (invalid) three bytes, as some tools do."""
    return data.encode("utf-8", "surrogatepass")


def json_text(value: Any, ensure_ascii: bool, depth: int) -> str:
    """JSON for a value (numbers past int()'s digit limit too), inside `depth` more arrays."""
    written = json.dumps(value, ensure_ascii=ensure_ascii, default=lambda _: Huge.MARK)
    written = written.replace(f'"{Huge.MARK}"', Huge.DIGITS)
    return "[" * depth + written + "]" * depth


def loads_or_refuses(path: Path) -> int | None:
    """The number of records of a file that loads, or None when it is refused with an AssayError."""
    try:
        return len(load_records(path, allow_duplicate_ids=True).records)
    except AssayError:
        return None


def damaged(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """The bytes with each edit (a place, how many bytes to remove there, what to put in) applied."""
    buffer = bytearray(data)
    for place, remove, insert in edits:
        at = place % (len(buffer) + 1)
        buffer[at : at + remove] = insert
    return bytes(buffer)


edits = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 4), st.binary(max_size=4)), max_size=4)


# --- CSV -----------------------------------------------------------------------------------------------


@st.composite
def csv_tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    header = draw(columns)
    rows = draw(st.lists(st.lists(safe_text, min_size=len(header), max_size=len(header)), max_size=4))
    return header, rows


def csv_bytes(header: list[str], rows: list[list[str]], line_end: str, bom: bool) -> bytes:
    """CSV as Python writes it. With "\\n" line ends every cell is quoted: the writer would leave a lone
    carriage return bare, and a bare one ends a line, so the file would mean other rows than written."""
    buffer = io.StringIO()
    quoting = csv.QUOTE_ALL if line_end == "\n" else csv.QUOTE_MINIMAL
    writer = csv.writer(buffer, lineterminator=line_end, quoting=quoting)
    writer.writerow(header)
    writer.writerows(rows)
    return (b"\xef\xbb\xbf" if bom else b"") + surrogate_pass(buffer.getvalue())


@seed(SEED)
@FUZZ
@given(table=csv_tables(), line_end=st.sampled_from(["\n", "\r\n"]), bom=st.booleans())
def test_csv_loads_every_row_or_refuses(
    folder: Path, table: tuple[list[str], list[list[str]]], line_end: str, bom: bool
) -> None:
    header, rows = table
    path = folder / "fuzz.csv"
    path.write_bytes(csv_bytes(header, rows, line_end, bom))
    try:
        dataset = load_records(path, allow_duplicate_ids=True)
    except AssayError:
        return
    assert len(dataset.records) == len(rows)
    if header.count("question") == 1 and header[0] != "question":  # (a first name loses a BOM)
        at = header.index("question")
        assert [record.question for record in dataset.records] == [row[at] for row in rows]


@seed(SEED)
@DAMAGED
@given(table=csv_tables(), damage=edits)
def test_damaged_csv_loads_or_refuses(
    folder: Path, table: tuple[list[str], list[list[str]]], damage: Any
) -> None:
    path = folder / "damaged.csv"
    path.write_bytes(damaged(csv_bytes(*table, "\n", False), damage))
    loads_or_refuses(path)


# --- JSON Lines and JSON arrays -------------------------------------------------------------------------


@st.composite
def json_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    keys = draw(columns)
    return draw(st.lists(st.dictionaries(st.sampled_from(keys), json_values, max_size=len(keys)), max_size=4))


def row_text(row: dict[str, Any], ensure_ascii: bool, depth: int) -> str:
    """A JSON object, its first value inside `depth` more arrays."""
    members = [
        f"{json_text(key, ensure_ascii, 0)}: {json_text(value, ensure_ascii, depth if i == 0 else 0)}"
        for i, (key, value) in enumerate(row.items())
    ]
    return "{" + ", ".join(members) + "}"


# Past the parser's recursion limit now and then (the 200,000 deep: test_refusals.py).
nesting = st.sampled_from([0] * 12 + [1, 40, 1500, 3000])


@seed(SEED)
@FUZZ
@given(rows=json_rows(), ensure_ascii=st.booleans(), depth=nesting)
def test_jsonl_loads_every_row_or_refuses(
    folder: Path, rows: list[dict[str, Any]], ensure_ascii: bool, depth: int
) -> None:
    path = folder / "fuzz.jsonl"
    lines = [row_text(row, ensure_ascii, depth if i == 0 else 0) + "\n" for i, row in enumerate(rows)]
    path.write_bytes(surrogate_pass("".join(lines)))
    assert loads_or_refuses(path) in (None, len(rows))


@seed(SEED)
@FUZZ
@given(rows=json_rows(), ensure_ascii=st.booleans(), depth=nesting)
def test_json_array_loads_every_row_or_refuses(
    folder: Path, rows: list[dict[str, Any]], ensure_ascii: bool, depth: int
) -> None:
    path = folder / "fuzz.json"
    elements = [row_text(row, ensure_ascii, depth if i == 0 else 0) for i, row in enumerate(rows)]
    path.write_bytes(surrogate_pass("[" + ",\n".join(elements) + "]"))
    assert loads_or_refuses(path) in (None, len(rows))


@seed(SEED)
@DAMAGED
@given(rows=json_rows(), damage=edits, array=st.booleans())
def test_damaged_json_loads_or_refuses(
    folder: Path, rows: list[dict[str, Any]], damage: Any, array: bool
) -> None:
    lines = [row_text(row, True, 0) for row in rows]
    path = folder / ("damaged.json" if array else "damaged.jsonl")
    data = "[" + ",".join(lines) + "]" if array else "".join(line + "\n" for line in lines)
    path.write_bytes(damaged(data.encode("utf-8"), damage))
    loads_or_refuses(path)


# --- Parquet -------------------------------------------------------------------------------------------

_ARROW_KINDS: dict[str, tuple[pa.DataType, st.SearchStrategy[Any]]] = {
    "string": (pa.string(), safe_text),
    "binary": (pa.binary(), st.binary(max_size=8) | safe_text.map(str.encode)),
    "int": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "float": (pa.float64(), st.floats(allow_nan=True, allow_infinity=True)),
    "bool": (pa.bool_(), st.booleans()),
    "strings": (pa.list_(pa.string()), st.lists(safe_text, max_size=3)),
    "binaries": (pa.list_(pa.binary()), st.lists(st.binary(max_size=6), max_size=3)),
    "struct": (pa.struct([("a", pa.string())]), st.fixed_dictionaries({"a": safe_text})),
}


@st.composite
def arrow_tables(draw: st.DrawFn) -> pa.Table:
    header = [name for name in draw(columns) if not any(0xD800 <= ord(c) <= 0xDFFF for c in name)]
    count = draw(st.integers(0, 4))
    data = {}
    for name in header:
        kind, values = _ARROW_KINDS[draw(st.sampled_from(sorted(_ARROW_KINDS)))]
        cells = draw(st.lists(st.none() | values, min_size=count, max_size=count))
        data[name] = pa.array(cells, type=kind)
    return pa.table(data)


def parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


@seed(SEED)
@FUZZ
@given(table=arrow_tables())
def test_parquet_loads_every_row_or_refuses(folder: Path, table: pa.Table) -> None:
    path = folder / "fuzz.parquet"
    try:
        path.write_bytes(parquet_bytes(table))
    except (pa.ArrowException, UnicodeEncodeError):  # a column name pyarrow cannot write (a surrogate)
        return
    assert loads_or_refuses(path) in (None, table.num_rows)


@seed(SEED)
@DAMAGED
@given(table=arrow_tables(), damage=edits)
def test_damaged_parquet_loads_or_refuses(folder: Path, table: pa.Table, damage: Any) -> None:
    try:
        data = parquet_bytes(table)
    except (pa.ArrowException, UnicodeEncodeError):
        return
    path = folder / "damaged.parquet"
    path.write_bytes(damaged(data, damage))
    loads_or_refuses(path)


@seed(SEED)
@DAMAGED
@given(data=st.binary(max_size=200), suffix=st.sampled_from([".csv", ".jsonl", ".json", ".parquet"]))
def test_random_bytes_load_or_refuse(folder: Path, data: bytes, suffix: str) -> None:
    path = folder / f"random{suffix}"
    path.write_bytes(data)
    loads_or_refuses(path)


# --- the command line ----------------------------------------------------------------------------------

FILE = [
    {"id": "a-1", "question": "Capital of India?", "answer": "New Delhi", "Domain": "Geo", "lang": "ta",
     "response": "It is New Delhi.", "expected_regex": "delhi"},
    {"id": "a-2", "question": "भारत की राजधानी?", "answer": "नई दिल्ली", "Domain": "Geo", "lang": "hi",
     "response": "नई दिल्ली है।", "expected_regex": "(a|aa)+$"},
    {"id": "a-3", "question": "Who?", "answer": "Picasso", "Domain": "Art", "lang": "en",
     "response": "", "expected_regex": "["},
]  # fmt: skip


def real_flags() -> list[str]:
    """Every option string of every subcommand (but --debug, which shows a traceback on purpose)."""
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(sub)

    for parser in walk(build_parser()):
        for action in parser._actions:
            found.update(action.option_strings)
    return sorted(found - {"--debug"})


COMMANDS = ["score", "explain", "lint", "compare", "agree", "plot", "llm-judge", "exact-substring",
            "word-overlap"]  # fmt: skip
JUNK = ["0", "-1", "1", "3", "2.5", "1e999", "nan", "", " ", "abc", "a-1", "a-2", "data.csv", "data.jsonl",
        "out.csv", "out.jsonl", "out.parquet", "out.html", "out.md", "out.json", "out.svg", "out.xlsx",
        "missing.csv", ".", "rename", "replace", "wilson", "bootstrap", "exact_substring", "phrase_match",
        "mlqa_em", "hard_fact", "judge", "token_f1", "phrase_match>=0.9", "judge>=90%", "x>=", "lower",
        "correct", "question", "lang", "answers", "\u202e", "a\nb", "-", "--", "openai:m@http://127.0.0.1:9/v1",
        "openai:", "llama:missing.gguf"]  # fmt: skip
tokens = st.sampled_from(real_flags()) | st.sampled_from(JUNK)
argvs = st.tuples(st.sampled_from(COMMANDS), st.lists(tokens, max_size=8)).map(lambda t: [t[0], *t[1]])


@pytest.fixture()
def in_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NO_COLOR", "1")
    (folder / "data.csv").write_bytes(
        csv_bytes(list(FILE[0]), [list(row.values()) for row in FILE], "\n", False)
    )
    (folder / "data.jsonl").write_text("".join(json.dumps(row) + "\n" for row in FILE), encoding="utf-8")
    return folder


def exits_cleanly(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    """Run the command; its exit code, which must be 0, 1 or 2, with no traceback."""
    code, _, err = run(argv, capsys)
    assert code in (0, 1, 2), f"exit {code} for {argv}: {err}"
    assert "Traceback" not in err, f"a traceback for {argv}: {err}"
    return code


@seed(SEED)
@COMMAND
@given(argv=argvs, responses=st.sampled_from(["data.csv", "data.jsonl"]))
def test_random_arguments_exit_0_1_or_2(
    in_folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str], responses: str
) -> None:
    command, rest = argv[0], argv[1:]
    given_file = ["--responses", responses] if command not in ("lint", "compare", "plot") else [responses]
    exits_cleanly([command, *given_file, *rest], capsys)


@seed(SEED)
@COMMAND
@given(table=csv_tables(), rows=json_rows(), jsonl=st.booleans())
def test_score_command_on_random_files_writes_every_row_or_exits_2(
    in_folder: Path,
    capsys: pytest.CaptureFixture[str],
    table: tuple[list[str], list[list[str]]],
    rows: list[dict[str, Any]],
    jsonl: bool,
) -> None:
    path = in_folder / ("random.jsonl" if jsonl else "random.csv")
    if jsonl:
        path.write_bytes(surrogate_pass("".join(row_text(row, True, 0) + "\n" for row in rows)))
    else:
        path.write_bytes(csv_bytes(*table, "\n", False))
    out, traces = in_folder / "scored.jsonl", in_folder / "traces.jsonl"
    out.unlink(missing_ok=True)
    argv = ["score", "--responses", str(path), "--out", str(out), "--trace", str(traces)]
    code = exits_cleanly(argv, capsys)
    assert code in (0, 2)
    if code == 0:
        written = len(rows) if jsonl else len(table[1])
        assert len(out.read_bytes().splitlines()) == written
        assert len(traces.read_bytes().splitlines()) == written
