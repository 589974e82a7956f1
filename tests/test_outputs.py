"""What `assay score` writes: per-question verdicts (--out: CSV, JSONL, Parquet) and the summary (--json).

Every input row appears in --out, in input order, with every input column plus the verdict columns; the
three formats carry the same verdicts; the JSON summary carries its signature and counts that add up.
"""

from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from cli_run import run

import assay

INPUT = """\
question,answer,Domain,lang,response,notes
Capital of India?,New Delhi,Geography,en,The capital is New Delhi.,
Who painted Guernica?,Pablo Picasso,Art,en,"Guernica was painted by Picasso, Pablo.",x
Who founded the Maurya Empire?,Chandragupta,History,en,Chandragupta's empire,
Largest planet?,Jupiter,Science,en,,
भारत की राजधानी?,नई दिल्ली,Geography,hi,राजधानी नई दिल्ली है।,"has ""quotes"", commas
and a line break"
Who wrote Hamlet?,Shakespeare,Art,en,Marlowe,
"""
INPUT_COLUMNS = ["question", "answer", "Domain", "lang", "response", "notes"]
# id -> exact_substring, exact_substring_answer, word_overlap, word_overlap_answer, matching, total, agreement
EXPECTED = {
    "1": ("True", "New Delhi", "True", "New Delhi", "2", "2", "both_pass"),
    "2": ("False", "", "True", "Pablo Picasso", "2", "2", "overlap_only"),  # words present, phrase not
    "3": ("True", "Chandragupta", "False", "Chandragupta", "0", "1", "exact_only"),  # inside "Chandragupta's"
    "4": ("False", "", "False", "", "0", "1", "both_fail"),  # blank response: incorrect, no deciding answer
    "5": ("True", "नई दिल्ली", "True", "नई दिल्ली", "2", "2", "both_pass"),
    "6": ("False", "", "False", "Shakespeare", "0", "1", "both_fail"),
}
ORDER = (
    "exact_substring",
    "exact_substring_answer",
    "word_overlap",
    "word_overlap_answer",
    "matching_words",
    "total_golden_words",
    "agreement",
)
VERDICT_COLUMNS = {*ORDER, "trace"}  # the trace's own tests are in test_trace.py
FORMATS = ["csv", "jsonl", "parquet"]


# --- helpers -------------------------------------------------------------------------------------------


def as_text(value: Any) -> str:
    """A cell as the CSV writer renders it, so the three formats compare directly."""
    if value is None:
        return ""
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def read_out(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The columns and the rows (every cell as text) of a --out file in any of the three formats."""
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            columns = next(reader)
            rows = [dict(zip(columns, values, strict=True)) for values in reader]
        return columns, rows
    if path.suffix == ".jsonl":
        objects = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        columns = list(objects[0])
        assert all(list(o) == columns for o in objects)
        return columns, [{k: as_text(v) for k, v in o.items()} for o in objects]
    table = pq.read_table(path)
    return table.column_names, [{k: as_text(v) for k, v in row.items()} for row in table.to_pylist()]


def verdicts(rows: list[dict[str, str]]) -> dict[str, tuple[str, ...]]:
    return {row.get("id", row.get("row")): tuple(row[c] for c in ORDER) for row in rows}


@pytest.fixture
def responses(tmp_path: Path) -> Path:
    path = tmp_path / "responses.csv"
    path.write_text(INPUT, encoding="utf-8", newline="")
    return path


# These tests read the seed pair's columns; with no --metric, assay runs every metric it can.
SEED_PAIR = ("--metric", "exact_substring", "--metric", "word_overlap")


def score_to(responses: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    argv = ["score", "--responses", str(responses), "--out", str(out), *SEED_PAIR, *extra]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    return out


# --- --out ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_out_has_every_input_row_in_input_order(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    _, rows = read_out(score_to(responses, tmp_path / f"scored.{fmt}", capsys))
    with responses.open(newline="", encoding="utf-8") as handle:
        expected = list(csv.DictReader(handle))
    assert [row["row"] for row in rows] == ["1", "2", "3", "4", "5", "6"]  # no id column: row numbers
    assert [{c: row[c] for c in INPUT_COLUMNS} for row in rows] == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_out_has_the_row_numbers_then_every_input_column_then_the_verdict_columns(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    columns, _ = read_out(score_to(responses, tmp_path / f"scored.{fmt}", capsys, "--trace-col"))
    assert columns[: len(INPUT_COLUMNS) + 1] == ["row", *INPUT_COLUMNS]  # never "id": they are not ids
    assert set(columns[len(INPUT_COLUMNS) + 1 :]) == VERDICT_COLUMNS
    assert len(columns) == len(set(columns))


@pytest.mark.parametrize("fmt", FORMATS)
def test_out_verdicts_are_the_protocols_verdicts(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    _, rows = read_out(score_to(responses, tmp_path / f"scored.{fmt}", capsys))
    assert verdicts(rows) == EXPECTED


def test_out_formats_carry_identical_rows(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    read = {fmt: read_out(score_to(responses, tmp_path / f"scored.{fmt}", capsys)) for fmt in FORMATS}
    assert read["jsonl"] == read["csv"]
    assert read["parquet"] == read["csv"]


def test_out_verdicts_are_typed_in_jsonl(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (score_to(responses, tmp_path / "scored.jsonl", capsys)).read_text(encoding="utf-8").splitlines()
    first, blank = json.loads(lines[0]), json.loads(lines[3])
    assert (first["exact_substring"], first["matching_words"], first["total_golden_words"]) == (True, 2, 2)
    assert (blank["exact_substring"], blank["exact_substring_answer"], blank["word_overlap_answer"]) == (
        False,
        None,
        None,
    )


def test_input_id_column_is_kept_where_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("question,key,answer,response\nq1,k-1,a,a\nq2,k-2,b,c\n", encoding="utf-8")
    out = tmp_path / "scored.csv"
    code, _, err = run(["score", "--responses", str(path), "--id-col", "key", "--out", str(out)], capsys)
    assert code == 0, err
    columns, rows = read_out(out)
    # in its place, under the field's own name: the scored file is read back with no --id-col (issue 23)
    assert columns[:4] == ["question", "id", "answer", "response"]
    assert "key" not in columns
    assert [row["id"] for row in rows] == ["k-1", "k-2"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_several_golden_answers_are_written_back_as_a_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    path = tmp_path / "multi.jsonl"
    rows = [
        {"id": "a", "question": "q", "answers": ["New Delhi", "Delhi"], "response": "It is Delhi."},
        {"id": "b", "question": "q", "answers": ["Agra"], "response": "Jaipur"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / f"scored.{fmt}"
    code, _, err = run(["score", "--responses", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    _, written = read_out(out)
    assert [row["answers"] for row in written] == ['["New Delhi", "Delhi"]', '["Agra"]']
    assert [(row["exact_substring_answer"], row["word_overlap_answer"]) for row in written] == [
        ("Delhi", "Delhi"),  # the deciding answer: the second one
        ("", "Agra"),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_rescoring_a_scored_file_replaces_the_verdict_columns(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    first = score_to(responses, tmp_path / f"once.{fmt}", capsys)
    second = score_to(first, tmp_path / f"twice.{fmt}", capsys, "--on-conflict", "replace")
    assert read_out(second) == read_out(first)


def test_one_megabyte_response_reaches_the_out_file_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = 'filler, "quoted"\nline ' * 50_000 + "New Delhi"
    path = tmp_path / "huge.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(
            [["question", "answer", "response"], ["q1", "New Delhi", huge], ["q2", "a", "b"]]
        )
    _, rows = read_out(score_to(path, tmp_path / "scored.csv", capsys))
    assert len(huge) >= 1_000_000
    assert [row["response"] for row in rows] == [huge, "b"]
    assert rows[0]["exact_substring"] == "True"


def test_null_cells_rows_are_written_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nulls.jsonl"
    rows = [
        {"question": "q1", "answer": "a", "response": "a"},
        {"question": "q2", "answer": "b", "response": None},
        {"question": "q3", "answer": None, "response": "c"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, summary = tmp_path / "scored.csv", tmp_path / "summary.json"
    code, _, err = run(["score", "--responses", str(path), "--out", str(out), "--json", str(summary)], capsys)
    assert code == 0, err
    assert [row["row"] for row in read_out(out)[1]] == ["1", "2", "3"]
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert document["rows"]["null_cells"] == {"response": ["2"], "answer": ["3"]}
    assert document["rows"]["total"] == 3


@pytest.mark.parametrize("limit", [1, 4, 6, 50])
@pytest.mark.parametrize("fmt", FORMATS)
def test_limit_scores_and_writes_only_the_first_rows(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], fmt: str, limit: int
) -> None:
    out, summary = tmp_path / f"scored.{fmt}", tmp_path / "summary.json"
    score_to(responses, out, capsys, "--limit", str(limit), "--json", str(summary))
    kept = min(limit, 6)
    assert [row["row"] for row in read_out(out)[1]] == [str(n) for n in range(1, kept + 1)]
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert (document["rows"]["total"], document["signature"]["limit"]) == (kept, limit)


@pytest.mark.parametrize(
    "name",
    ["scored.txt", "scored.xlsx", "scored.json", "scored", "scored.csv.gz"],
    ids=["txt", "xlsx", "json", "no-extension", "gz"],
)
def test_unsupported_out_extension_is_a_usage_error(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = tmp_path / name
    code, stdout, err = run(["score", "--responses", str(responses), "--out", str(out)], capsys)
    assert code == 2
    assert err.startswith("assay: error: ") and err.count("\n") == 1
    assert "give --out a name ending in .csv, .jsonl, .parquet" in err
    assert stdout == ""  # refused before scoring
    assert not out.exists()


def test_out_into_a_missing_folder_is_a_usage_error(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "no-such-folder" / "scored.csv"
    code, stdout, err = run(["score", "--responses", str(responses), "--out", str(out)], capsys)
    assert (code, stdout) == (2, "")
    expected = f"--out {out}: the folder to write into does not exist. Fix: create it first"
    assert err == f"assay: error: {expected}\n"


def test_write_verdicts_from_python_matches_the_cli(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from_cli = tmp_path / "cli.csv"  # every metric, by default, on both sides
    assert run(["score", "--responses", str(responses), "--out", str(from_cli)], capsys)[0] == 0
    from_api = assay.write_verdicts(assay.score(assay.load_records(responses)), tmp_path / "api.csv")
    assert from_api.read_bytes() == from_cli.read_bytes()


# --- --json --------------------------------------------------------------------------------------------


def summary_of(
    responses: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
    metrics: tuple[str, ...] = SEED_PAIR,
) -> dict[str, Any]:
    path = tmp_path / "summary.json"
    code, _, err = run(
        ["score", "--responses", str(responses), "--json", str(path), *metrics, *extra], capsys
    )
    assert code == 0, err
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("flags", "options"),
    [([], "nfc:off|ci:wilson95"), (["--nfc"], "nfc:on|ci:wilson95")],
    ids=["default", "nfc"],
)
def test_json_summary_carries_the_signature(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str], flags: list[str], options: str
) -> None:
    document = summary_of(responses, tmp_path, capsys, *flags)
    version = assay.__version__
    expected = {
        "exact_substring": f"exact_substring@1|{options}|assay:{version}",
        "word_overlap": f"word_overlap@1|{options}|assay:{version}",
    }
    assert document["signature"] == {
        "protocols": expected,
        "options": options,
        "intervals": "ci:wilson95",
        "limit": None,
        "assay": version,
    }
    assert {name: m["signature"] for name, m in document["metrics"].items()} == expected


def test_json_summary_signature_names_only_the_metrics_run(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = summary_of(responses, tmp_path, capsys, metrics=("--metric", "word_overlap"))
    assert list(document["signature"]["protocols"]) == ["word_overlap"]
    assert document["agreement"] is None


def test_json_summary_counts_add_up(
    tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = summary_of(responses, tmp_path, capsys)
    total = document["rows"]["total"]
    assert (total, document["rows"]["blank"]) == (6, 1)
    for metric in document["metrics"].values():
        combined = metric["combined"]
        assert combined["n"] == total
        assert combined["passed"] + combined["failed"] + combined["unscored"] == combined["n"]
        for field in ("n", "passed", "failed", "blank", "unscored"):
            assert sum(d[field] for d in metric["domains"].values()) == combined[field]
    agreement = document["agreement"]
    assert sum(agreement["overall"].values()) == total
    for domain, counts in agreement["domains"].items():
        assert sum(counts.values()) == document["metrics"]["exact_substring"]["domains"][domain]["n"]


def test_json_summary_numbers(tmp_path: Path, responses: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = summary_of(responses, tmp_path, capsys)
    exact, overlap = (document["metrics"][m]["combined"] for m in ("exact_substring", "word_overlap"))
    wilson = {"low": pytest.approx(0.18761630648265054), "high": pytest.approx(0.8123836935173494)}  # 3 of 6
    counts = {
        "n": 6,
        "passed": 3,
        "failed": 3,
        "blank": 1,
        "unscored": 0,
        "accuracy": 0.5,
        "interval": wilson,
        "soft": 0,
    }
    assert exact == counts
    assert overlap == counts
    assert document["agreement"]["overall"] == {
        "both_pass": 2,
        "both_fail": 2,
        "exact_only": 1,
        "overlap_only": 1,
    }
    assert document["agreement"]["review_ids"] == ["2"]


def test_nfc_changes_the_numbers_as_well_as_the_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The golden answer in NFC, the response in NFD: equal text, unequal code points.
    golden = "Café Procope"
    path = tmp_path / "nfd.csv"
    path.write_text(f"question,answer,response\nq,{golden},At the {unicodedata.normalize('NFD', golden)}.\n")
    off = summary_of(path, tmp_path, capsys)["metrics"]["exact_substring"]["combined"]["passed"]
    on = summary_of(path, tmp_path, capsys, "--nfc")["metrics"]["exact_substring"]["combined"]["passed"]
    assert (off, on) == (0, 1)


def test_csv_out_writes_any_list_cell_as_json(tmp_path: Path) -> None:
    import datetime

    import pandas as pd

    frame = pd.DataFrame(
        {"question": ["q"], "answer": ["a"], "response": ["a"], "dates": [[datetime.date(2024, 1, 2)]]}
    )
    path = tmp_path / "dates.csv"
    assay.write_verdicts(assay.score(frame), path)
    (row,) = csv.DictReader(path.open(encoding="utf-8"))
    assert json.loads(row["dates"]) == ["2024-01-02"]
