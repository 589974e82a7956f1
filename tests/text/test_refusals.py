"""What a reader cannot represent is refused with one line naming the file, the row and the fix; a language
a metric has no rules for is unscored in every output; inputs are never silently rewritten.

Issue 9's items 3 and 4: lone surrogates, absurd nesting and integer sizes, Infinity, Parquet binary
columns, unsupported MLQA languages, a metric's missing column, invisible characters in headers and ids,
and input columns named like the columns --out adds.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run

from assay import ColumnMap, InputError, ScoreOptions, load_records, score
from assay.judges.metric import JudgeSetup, with_judge
from assay.judges.scripted import ScriptedJudge
from assay.scoring import column_conflicts

BASE = {"id": "r1", "question": "Capital of India?", "answer": "New Delhi", "response": "It is New Delhi."}


def load_error(source: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        load_records(source, **kwargs)
    return caught.value.message


def write_json(tmp_path: Path, fmt: str, members: str, rows_before: int = 1) -> Path:
    """A JSONL or JSON array file: `rows_before` good rows, then one whose last members are `members`."""
    good = json.dumps(BASE | {"id": "ok"})
    bad = json.dumps(BASE)[:-1] + ", " + members + "}"
    rows = [good.replace('"ok"', f'"ok{i}"') for i in range(rows_before)] + [bad]
    path = tmp_path / f"data.{fmt}"
    path.write_text(
        "\n".join(rows) + "\n" if fmt == "jsonl" else "[" + ",\n".join(rows) + "]", encoding="utf-8"
    )
    return path


# --- values JSON can write but assay could not hold -----------------------------------------------------

DEEP = "[" * 200_000 + "]" * 200_000
HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("members", "said", "fix"),
    [
        ('"notes": "\\ud800"', "a lone surrogate \\ud800", "surrogate pair"),
        ('"notes": "ok \\udfff end"', "a lone surrogate \\udfff", "surrogate pair"),
        ('"\\ud83dnotes": 1', "(the key)", "surrogate pair"),
        ('"notes": ["a", {"deep": "\\udc00"}]', "notes[1].deep", "surrogate pair"),
        (f'"notes": {DEEP}', "levels deep, more than", "flatten"),
        ('"notes": ' + '{"a": ' * 5000 + "1" + "}" * 5000, "levels deep, more than", "flatten"),
        (f'"notes": {HUGE}', "more than 4300 digits", "as a string"),
        (f'"notes": -{HUGE}', "more than 4300 digits", "as a string"),
        ('"notes": Infinity', "Infinity is not a number", "null"),
        ('"notes": -Infinity', "-Infinity is not a number", "null"),
    ],
    ids=[
        "surrogate",
        "low-surrogate",
        "surrogate-key",
        "nested-surrogate",
        "deep-arrays",
        "deep-objects",
        "huge-int",
        "huge-negative-int",
        "infinity",
        "minus-infinity",
    ],
)
@pytest.mark.parametrize(("fmt", "where"), [("jsonl", "line 3"), ("json", "row 3")])
def test_json_values_assay_cannot_hold_are_refused_naming_the_row(
    tmp_path: Path, fmt: str, where: str, members: str, said: str, fix: str
) -> None:
    path = write_json(tmp_path, fmt, members, rows_before=2)
    message = load_error(path)
    assert said in message and fix in message.partition("Fix:")[2]
    if "surrogate" in said or "key" in said or "." in said:
        assert f"{path} {where}" in message  # found in the value: the row itself
    else:
        assert f"{path} line 3 column " in message  # found in the text: its line (the array's third too)
    assert "\n" not in message and "\ud800" not in message  # one line, and printable


@pytest.mark.parametrize(
    ("members", "column", "expected"),
    [
        ('"notes": "\\ud83d\\ude00"', "notes", "\U0001f600"),  # a surrogate pair is one character
        ('"notes": NaN', "notes", None),  # NaN is a missing value, as pandas writes it
        (f'"notes": {"9" * 4300}', "notes", int("9" * 4300)),  # at the limit, still a number
        ('"notes": ' + "[" * 50 + "]" * 50, "notes", None),
    ],
    ids=["surrogate-pair", "nan", "4300-digits", "nested-50"],
)
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_json_values_assay_can_hold_load(
    tmp_path: Path, fmt: str, members: str, column: str, expected: Any
) -> None:
    records = load_records(write_json(tmp_path, fmt, members)).records
    assert len(records) == 2
    value = records[1].meta[column]
    if expected is None and isinstance(value, float):
        assert value != value  # NaN
    elif expected is not None:
        assert value == expected


@pytest.mark.parametrize(
    ("members", "said"),
    [
        ('"notes": "\\ud800"', "surrogate"),
        (f'"notes": {HUGE}', "4300 digits"),
        (f'"notes": {DEEP}', "nesting"),
    ],
    ids=["surrogate", "huge-int", "deep"],
)
@pytest.mark.parametrize("out", ["scored.csv", "scored.jsonl", "scored.parquet"])
def test_the_command_refuses_them_with_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], members: str, said: str, out: str
) -> None:
    path = write_json(tmp_path, "jsonl", members)
    code, _, err = run(["score", "--responses", str(path), "--out", str(tmp_path / out)], capsys)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / out).exists()


@pytest.mark.parametrize(
    ("rows", "said", "where"),
    [
        ([BASE, BASE | {"id": "r2", "response": "x\ud800"}], "lone surrogate \\ud800", "row 2"),
        ([BASE | {"notes": ["a", "\udfff"]}], "notes' holds a lone surrogate", "row 1"),
        ([BASE | {"notes": 10**5000}], "more than 4300 digits", "row 1"),
        ([BASE | {"\ufeffnotes": 1}], "column name '\\ufeffnotes'", "header"),
    ],
    ids=["surrogate-cell", "surrogate-in-a-list", "huge-int", "bom-in-a-name"],
)
def test_a_dataframe_with_values_assay_cannot_hold_is_refused(
    rows: list[dict[str, Any]], said: str, where: str
) -> None:
    # object columns: pandas' own string dtype refuses a surrogate itself; an object column holds it
    message = load_error(pd.DataFrame(rows, dtype=object))
    assert said in message and where in message and "Fix:" in message


# --- Parquet binary columns ----------------------------------------------------------------------------


def write_parquet(tmp_path: Path, columns: dict[str, pa.Array]) -> Path:
    path = tmp_path / "data.parquet"
    pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize("kind", [pa.binary(), pa.large_binary()], ids=["binary", "large_binary"])
def test_parquet_binary_columns_of_utf8_are_text(tmp_path: Path, kind: pa.DataType) -> None:
    path = write_parquet(
        tmp_path,
        {
            "question": pa.array([b"Capital?", "राजधानी?".encode()], kind),
            "answer": pa.array([b"Delhi", "दिल्ली".encode()], kind),
            "response": pa.array([b"It is Delhi", None], kind),
            "notes": pa.array([b"kept", b"too"], kind),
        },
    )
    records = load_records(path).records
    assert [(r.question, r.answers, r.response) for r in records] == [
        ("Capital?", ("Delhi",), "It is Delhi"),
        ("राजधानी?", ("दिल्ली",), ""),
    ]
    assert [r.meta["notes"] for r in records] == ["kept", "too"]


def test_parquet_list_of_binary_answers_are_text(tmp_path: Path) -> None:
    answers = pa.array([[b"New Delhi", b"Delhi"], [b"Agra"]], pa.list_(pa.binary()))
    path = write_parquet(
        tmp_path, {"question": pa.array(["q1", "q2"]), "answers": answers, "response": pa.array(["a", "b"])}
    )
    assert [r.answers for r in load_records(path).records] == [("New Delhi", "Delhi"), ("Agra",)]


@pytest.mark.parametrize(
    ("column", "values", "row", "shown"),
    [
        ("answer", [b"Delhi", b"Delhi", b"D\xe9lhi"], 3, "e9 6c 68 69"),
        ("notes", [b"\xff", b"ok", b"ok"], 1, "ff"),
        ("response", [b"ok", b"\xc3", b"ok"], 2, "c3"),
    ],
    ids=["latin1-answer", "ff-meta", "cut-sequence"],
)
def test_parquet_binary_that_is_not_utf8_names_column_and_row(
    tmp_path: Path, column: str, values: list[bytes], row: int, shown: str
) -> None:
    cells = {"question": pa.array(["q"] * 3), "answer": pa.array(["a"] * 3), "response": pa.array(["r"] * 3)}
    cells[column] = pa.array(values, pa.binary())
    path = write_parquet(tmp_path, cells)
    message = load_error(path)
    assert f"binary column '{column}'" in message and f"{path} row {row}" in message and shown in message


@pytest.mark.parametrize("damage", [b"PAR1" + b"\x00" * 40 + b"PAR1", b"PAR1garbage", b"not parquet"])
def test_a_damaged_parquet_file_is_an_error(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "data.parquet"
    path.write_bytes(damage)
    assert "not a readable Parquet file" in load_error(path)


# --- languages a metric has no rules for ---------------------------------------------------------------

LANG_ROWS = [
    BASE | {"id": "en-1", "lang": "en"},
    BASE | {"id": "ta-1", "lang": "ta", "response": "புது தில்லி"},
    BASE | {"id": "bn-1", "lang": "bn", "response": "নতুন দিল্লি"},
    BASE | {"id": "xx-1", "lang": " TA "},
]


@pytest.fixture()
def languages(tmp_path: Path) -> Path:
    path = tmp_path / "langs.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(LANG_ROWS[0]))
        writer.writeheader()
        writer.writerows(LANG_ROWS)
    return path


@pytest.mark.parametrize(
    "flag",
    [
        "--out=scored.csv",
        "--out=scored.jsonl",
        "--out=scored.parquet",
        "--trace=traces.jsonl",
        "--html=r.html",
        "--markdown=r.md",
    ],
)
def test_an_unsupported_language_is_unscored_with_its_reason_in_every_output(
    languages: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    name, _, target = flag.partition("=")
    argv = ["score", "--responses", str(languages), "--metric", "mlqa_em", "--metric", "mlqa_f1"]
    traced = ["--trace-col"] if name == "--out" else []  # the reason is in the row's trace
    code, out, err = run([*argv, name, str(tmp_path / target), *traced], capsys)
    assert code == 0, err
    assert "unscored" in out
    text = (tmp_path / target).read_bytes()
    if target.endswith(".md"):
        assert "unscored" in text.decode("utf-8")
    elif target.endswith((".csv", ".jsonl", ".html")):
        decoded = text.decode("utf-8")
        for row in LANG_ROWS[1:]:
            assert row["id"] in decoded
        assert "MLQA has no rules for the language" in decoded
    if target == "scored.parquet":
        table = pq.read_table(tmp_path / target).to_pylist()
        assert [r["mlqa_em"] for r in table] == [False, None, None, None]
        assert "MLQA has no rules for the language 'bn'" in table[2]["trace"]


@pytest.mark.parametrize("row_id", ["ta-1", "bn-1", "xx-1"])
def test_explain_shows_an_unsupported_language_as_unscored(
    languages: Path, capsys: pytest.CaptureFixture[str], row_id: str
) -> None:
    code, out, err = run(
        ["explain", "--responses", str(languages), "--id", row_id, "--metric", "mlqa_f1"], capsys
    )
    assert code == 0, err
    assert "unscored" in out and "MLQA has no rules for the language" in out


# --- a metric whose column is missing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "extra", "said", "flag"),
    [
        ("mlqa_em", [], "no column 'lang'", "--lang-col"),
        ("mlqa_f1", [], "no column 'lang'", "--lang-col"),
        ("mlqa_em", ["--lang-col", "language"], "no column 'language'", "--lang-col"),
        ("hard_fact", [], "no column 'expected_regex'", "--regex-col"),
        ("hard_fact", ["--regex-col", "pattern"], "no column 'pattern'", "--regex-col"),
    ],
)
def test_a_metric_whose_column_is_missing_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metric: str, extra: list[str], said: str, flag: str
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(BASE) + "\n", encoding="utf-8")
    code, _, err = run(["score", "--responses", str(path), "--metric", metric, *extra], capsys)
    assert code == 2 and said in err and flag in err


def test_a_named_lang_column_feeds_the_mlqa_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(BASE | {"language": "en"}) + "\n", encoding="utf-8")
    code, out, _ = run(
        ["score", "--responses", str(path), "--metric", "mlqa_em", "--lang-col", "language"], capsys
    )
    assert code == 0 and "unscored" in out


# --- invisible characters in headers and ids -----------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "shown", "fix"),
    [
        (
            "\ufeffid,question,answer,response",
            "'\\ufeffid'",
            "'id'",
        ),  # a second BOM: the file's first is allowed
        ("id\u200b,question,answer,response", "'id\\u200b'", "'id'"),
        ("\u200did,question,answer,response", "'\\u200did'", "'id'"),
        ("id,question\u200e,answer,response", "'question\\u200e'", "'question'"),
        ("id,question,answer,\u2060response", "'\\u2060response'", "'response'"),
        ("id,question,answer,response,no\xadtes", "'no\\xadtes'", "'notes'"),
    ],
    ids=["second-bom", "zwsp", "zwj-at-start", "lrm", "word-joiner", "soft-hyphen"],
)
def test_an_invisible_character_in_a_csv_header_is_an_error_shown_escaped(
    tmp_path: Path, header: str, shown: str, fix: str
) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(b"\xef\xbb\xbf" + f"{header}\nr1,q,a,r{',n' if 'tes' in header else ''}\n".encode())
    message = load_error(path)
    assert f"column name {shown}" in message and f"{path} header" in message
    assert f"rename the column to {fix}" in message


@pytest.mark.parametrize("key", ["\ufeffid", "id\u200c", "\u202eid"], ids=["bom", "zwnj-at-end", "rlo"])
def test_an_invisible_character_in_a_json_key_is_an_error(tmp_path: Path, key: str) -> None:
    path = tmp_path / "data.jsonl"
    row = {key: "r1"} | {k: v for k, v in BASE.items() if k != "id"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert f"column name {key!r}" in load_error(path)


def test_a_zwj_inside_an_indic_column_name_or_id_is_kept(tmp_path: Path) -> None:
    name, row_id = "ഉത്തര\u200dം", "ക\u200dര-1"  # ZWJ inside Malayalam words: part of the spelling
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(BASE | {"id": row_id, name: "x"}, ensure_ascii=False) + "\n", encoding="utf-8")
    record = load_records(path).records[0]
    assert record.id == row_id and record.meta[name] == "x"


@pytest.mark.parametrize(
    ("row_id", "shown"),
    [
        ("r\ufeff2", "'r\\ufeff2'"),
        ("\u200br2", "'\\u200br2'"),
        ("r2\u200d", "'r2\\u200d'"),
        ("r\u200e2", "'r\\u200e2'"),
    ],
    ids=["bom", "zwsp", "zwj-at-end", "lrm"],
)
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "dataframe"])
def test_an_invisible_character_in_an_id_is_an_error_naming_its_row(
    tmp_path: Path, fmt: str, row_id: str, shown: str
) -> None:
    rows = [BASE, BASE | {"id": row_id}]
    if fmt == "dataframe":
        source: Any = pd.DataFrame(rows)
        where = "row 2"
    elif fmt == "csv":
        source = tmp_path / "data.csv"
        with source.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(BASE))
            writer.writeheader()
            writer.writerows(rows)
        where = "line 3"
    else:
        source = tmp_path / "data.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        where = "line 2"
    message = load_error(source)
    assert f"the id {shown}" in message and where in message


# --- input columns named like the columns --out adds ---------------------------------------------------


def scored_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, Path]:
    first, second = tmp_path / "once.csv", tmp_path / "twice.csv"
    seed_pair = ["--metric", "exact_substring", "--metric", "word_overlap", "--trace-col"]
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(BASE) + "\n" + json.dumps(BASE | {"id": "r2", "response": "Agra"}) + "\n")
    assert run(["score", "--responses", str(path), "--out", str(first), *seed_pair], capsys)[0] == 0
    code, _, err = run(["score", "--responses", str(first), "--out", str(second), *seed_pair, *flags], capsys)
    return code, err, second


def test_rescoring_without_a_policy_is_an_error_that_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err, second = scored_twice(tmp_path, capsys)
    assert code == 2 and not second.exists()
    assert "'exact_substring'" in err and "--on-conflict rename" in err and "--on-conflict replace" in err


@pytest.mark.parametrize(
    ("policy", "kept"),
    [
        (
            "rename",
            [
                "input:exact_substring",
                "input:exact_substring_answer",
                "input:word_overlap",
                "input:word_overlap_answer",
                "input:matching_words",
                "input:total_golden_words",
                "input:agreement",
                "input:trace",
            ],
        ),
        ("replace", []),
    ],
)
def test_rescoring_with_a_policy_keeps_or_replaces_the_old_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str, kept: list[str]
) -> None:
    code, err, second = scored_twice(tmp_path, capsys, "--on-conflict", policy)
    assert code == 0 and "--on-conflict" in err
    with second.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    columns = list(rows[0])
    assert [c for c in columns if c.startswith("input:")] == kept
    assert columns.count("exact_substring") == 1 and columns.count("trace") == 1
    assert [row["exact_substring"] for row in rows] == ["True", "False"]
    if kept:
        assert [row["input:exact_substring"] for row in rows] == ["True", "False"]


@pytest.mark.parametrize(
    ("columns", "metrics", "clash"),
    [
        (["exact_substring"], ["exact_substring"], ["exact_substring"]),
        (["phrase_match_answer", "notes"], ["phrase_match"], ["phrase_match_answer"]),
        (
            ["matching_words", "total_golden_words"],
            ["word_overlap"],
            ["matching_words", "total_golden_words"],
        ),
        (["agreement"], ["exact_substring", "word_overlap"], ["agreement"]),
        (["agreement"], ["exact_substring"], []),  # no agreement column without both protocols
        (["trace"], ["token_f1"], ["trace"]),
        (["judge_raw", "judge"], ["judge"], ["judge_raw", "judge"]),
        (["judge_raw"], ["phrase_match"], []),  # the judge's columns only when the judge runs
        (["token_f1"], ["exact_substring"], []),  # another metric's old verdict is just a column
        (["phrase_match_soft"], ["phrase_match"], []),  # soft passes only with --inflection
    ],
)
def test_which_input_columns_collide_with_the_output(
    tmp_path: Path, columns: list[str], metrics: list[str], clash: list[str]
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps(BASE | dict.fromkeys(columns, "x")) + "\n", encoding="utf-8")
    dataset = load_records(path)
    # The judge metric runs as the CLI runs it: a Scorer made from a chain (a scripted judge here).
    asked = with_judge(metrics, JudgeSetup((ScriptedJudge({}, default="CORRECT"),)))
    assert column_conflicts(dataset, asked, ScoreOptions(on_conflict="rename")) == clash
    if clash:
        with pytest.raises(InputError, match="--on-conflict"):
            column_conflicts(dataset, asked, ScoreOptions())


def test_a_mapped_column_named_like_an_output_column_is_renamed_too(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    row = {k: v for k, v in BASE.items() if k != "response"} | {"trace": "It is New Delhi."}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    run_ = score(
        path,
        ["exact_substring"],
        columns=ColumnMap(response="trace"),
        options=ScoreOptions(on_conflict="rename"),
    )
    from assay import verdict_rows

    written = next(iter(verdict_rows(run_)))
    # a column the user named is written under its field's name (issue 23): no clash left to rename
    assert written["response"] == "It is New Delhi." and written["exact_substring"] is True
    assert written["trace"]["exact_substring"].outcome == "pass"  # typed: a Trace by metric
