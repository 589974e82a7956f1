"""Columns said once (issue 23, friction 4): a file with its own headers (several languages, categories)
is mapped in one run, the optional columns it leaves unused are hinted at, the mapping is said once in
assay.toml (or --columns FILE) for every command, and --out's header carries it to compare."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from cli_run import run

HEADER = ["Item Key", "Query Text", "Reference Answer", "System Output", "Topic", "Lang Code"]
ROWS = [
    ["1", "What is the capital of India?", "New Delhi", "New Delhi is the capital.", "geography", "en"],
    ["2", "भारत की राजधानी क्या है?", "नई दिल्ली", "नई दिल्ली", "geography", "hi"],
    ["3", "Who wrote Gitanjali?", "Rabindranath Tagore", "It was Tagore.", "literature", "en"],
    ["4", "திருக்குறளை எழுதியவர் யார்?", "திருவள்ளுவர்", "திருவள்ளுவர்", "literature", "ta"],
    ["5", "¿Cuál es la capital de España?", "Madrid", "Madrid", "geography", "es"],
    ["6", "Who painted the Mona Lisa?", "Leonardo da Vinci", "Michelangelo", "art", "en"],
]
MAPPING = {
    "id": "Item Key",
    "question": "Query Text",
    "answer": "Reference Answer",
    "response": "System Output",
    "domain": "Topic",
    "lang": "Lang Code",
}


def sloppy(folder: Path, name: str = "sloppy.csv", rows: list[list[str]] | None = None) -> Path:
    path = folder / name
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([HEADER, *(rows or ROWS)])
    return path


def test_every_missing_column_is_named_in_one_error_with_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["score", "--responses", str(sloppy(tmp_path))], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    for field, column in (
        ("question", "Query Text"),
        ("answer", "Reference Answer"),
        ("response", "System Output"),
    ):
        assert f"{field} (no column '{field}'; nearest: '{column}', by its name" in err
    assert "--question-col 'Query Text' --answer-col 'Reference Answer' --response-col 'System Output'" in err


def test_the_nearest_column_by_values_when_the_name_says_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A question column named 'Text' is found by its values (questions end in a question mark)."""
    path = tmp_path / "plain.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(
            [["Text", "answer", "response"], *([row[1], row[2], row[3]] for row in ROWS)]
        )
    code, _, err = run(["score", "--responses", str(path)], capsys)
    assert code == 2 and "nearest: 'Text', by its values" in err and "--question-col Text" in err


def test_unused_columns_that_look_like_fields_are_hinted_with_their_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    required = ["--question-col", "Query Text", "--answer-col", "Reference Answer"]
    argv = ["score", "--responses", str(sloppy(tmp_path)), *required, "--response-col", "System Output"]
    code, _, err = run([*argv, "--metric", "exact_substring"], capsys)
    assert code == 0
    hints = [line for line in err.splitlines() if line.startswith("assay: hint: ")]
    assert hints == [
        "assay: hint: 'Item Key' looks like an id (by its values), unused: --id-col 'Item Key'",
        "assay: hint: 'Topic' looks like a domain (by its name and values), unused: --domain-col Topic",
        "assay: hint: 'Lang Code' looks like a language (by its name and values), unused: "
        "--lang-col 'Lang Code'",
    ]
    # Said, not taken: without the flags the report has no domains (a gate would not change silently).
    code, out, err = run([*argv, "--metric", "exact_substring", "--domain-col", "Topic"], capsys)
    assert code == 0 and "geography" in out and "hint: 'Topic'" not in err


def config(folder: Path, name: str = "assay.toml") -> Path:
    path = folder / name
    lines = ["[columns]", *(f"{field} = {json.dumps(column)}" for field, column in MAPPING.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_assay_toml_columns_apply_to_score_lint_explain_and_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config(tmp_path)
    a, b = (
        sloppy(tmp_path, "a.csv"),
        sloppy(tmp_path, "b.csv", [[*row[:3], row[2], *row[4:]] for row in ROWS]),
    )
    for source, out in ((a, "a_scored.csv"), (b, "b_scored.csv")):
        code, printed, err = run(["score", "--responses", str(source), "--metric", "exact_substring",
                                  "--out", out], capsys)  # fmt: skip
        assert code == 0 and "assay: columns from assay.toml [columns]" in err and "hint" not in err
        assert "literature" in printed  # the domain, from Topic
    with open("a_scored.csv", encoding="utf-8") as handle:
        assert next(csv.reader(handle))[:6] == ["id", "question", "answer", "response", "domain", "lang"]
    assert run(["lint", str(a)], capsys)[0] == 0
    code, printed, _ = run(
        ["explain", "--responses", str(a), "--id", "6", "--metric", "exact_substring"], capsys
    )
    assert code == 0 and "Mona Lisa" in printed
    code, printed, err = run(["compare", "a_scored.csv", "b_scored.csv"], capsys)
    assert code == 0 and "6 rows in both" in printed
    assert "row numbers" not in printed + err  # the ids came from a column the user named


def test_compare_reads_the_mapping_from_the_scored_files_header_with_no_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scored with --columns FILE, compared with nothing: --out wrote the fields under their own names."""
    columns = str(config(tmp_path, "cols.toml"))
    a, b = (
        sloppy(tmp_path, "a.csv"),
        sloppy(tmp_path, "b.csv", [[*row[:3], "no idea", *row[4:]] for row in ROWS]),
    )
    for source in (a, b):
        argv = ["score", "--responses", str(source), "--columns", columns, "--metric", "exact_substring"]
        assert run([*argv, "--out", str(source.with_suffix(".scored.csv"))], capsys)[0] == 0
    code, printed, err = run(
        ["compare", str(a.with_suffix(".scored.csv")), str(b.with_suffix(".scored.csv"))], capsys
    )
    assert code == 0 and "6 rows in both" in printed and err == ""
    assert "geography" in printed and "literature" in printed  # the domains, read back


def test_a_bad_columns_table_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "cols.toml"
    bad.write_text('[columns]\nquestoin = "Query Text"\n', encoding="utf-8")
    code, _, err = run(["score", "--responses", str(sloppy(tmp_path)), "--columns", str(bad)], capsys)
    assert code == 2 and "[columns] has an unknown field 'questoin'" in err


def test_a_columns_table_leaves_a_gold_set_to_be_linted_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team keeps [columns] in the assay.toml of its [system]: a gold set (assay's own fields) is
    still checked as `assay run` checks it, not read as a file of replies with those headers."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "gold"
    monkeypatch.chdir(tmp_path)
    config(tmp_path)
    built = ["gold", "build", "--facts", str(examples / "facts"), "--sources", str(examples / "sources")]
    assert run([*built, "--out", "gold.jsonl"], capsys)[0] == 0
    code, printed, err = run(["lint", "gold.jsonl"], capsys)
    assert code == 0, err
    assert "0 errors" in printed and "missing column" not in err


def test_a_flag_for_the_golden_answers_wins_over_the_table_s_other_spelling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table names `answers` (a column of lists), the flag `--answer-col`: the flag's column is read,
    not the table's (one source of golden answers, and a flag wins over the table)."""
    monkeypatch.chdir(tmp_path)
    table = {**MAPPING, "answers": "Topic"}  # not lists: read, it is an error
    del table["answer"]
    lines = ["[columns]", *(f"{field} = {json.dumps(column)}" for field, column in table.items())]
    (tmp_path / "assay.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["score", "--responses", str(sloppy(tmp_path)), "--metric", "exact_substring"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "column 'Topic' must hold a list of answers" in err
    code, printed, err = run([*argv, "--answer-col", "Reference Answer"], capsys)
    assert code == 0, err
    assert "6 rows" in printed
