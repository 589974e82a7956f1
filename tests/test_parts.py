"""Records carry a system's reply and the gold file's facts as typed parts (assay.parts), read from
nested objects, refused with the row and the field when malformed, and written back unchanged."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from assay import Citation, Context, Gold, InputError, Reply, load_records, score, write_verdicts

GOLD = {
    "value": 1947,
    "value_type": "number",
    "unit": "year",
    "expected_regex": r"19\d\d",
    "page": 4,
    "source_document": "history.pdf",
    "quote": "in 1947",
    "quote_span": [10, 17],
    "expected_refusal": False,
    "category": "date",
}
REPLY = {
    "citations": [{"document": "history.pdf", "page": 4, "start": 10, "end": 17, "quote": "in 1947"}],
    "contexts": [{"document": "history.pdf", "page": 4, "start": 0, "end": 40, "text": "India ... in 1947"}],
    "raw": '{"answer": "1947"}',
    "error": None,
    "latency": 0.25,
    "blocked": False,
    "route": "rag",
    "model": "m-1",
}
ROWS = [
    {
        "id": "a",
        "question": "Independence?",
        "answer": "1947",
        "response": "In 1947.",
        "gold": GOLD,
        "reply": REPLY,
        "note": "kept",
    },
    {
        "id": "b",
        "question": "River?",
        "answer": "Ganga",
        "response": "",
        "gold": None,
        "reply": None,
        "note": "x",
    },
]


def jsonl(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_parts_load_typed_and_meta_keeps_only_the_extra_columns(tmp_path: Path) -> None:
    record = load_records(jsonl(tmp_path / "r.jsonl", ROWS)).records[0]
    assert record.gold == Gold(**{**GOLD, "quote_span": (10, 17)})
    assert record.reply is not None and record.reply.citations == (
        Citation("history.pdf", 4, 10, 17, "in 1947"),
    )
    assert record.reply.contexts == (Context("history.pdf", 4, 0, 40, "India ... in 1947"),)
    assert (record.reply.latency, record.reply.blocked, record.reply.route) == (0.25, False, "rag")
    assert dict(record.meta) == {"note": "kept"}
    assert record.response == "In 1947."  # the reply's text is the response


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv"])
def test_parts_round_trip_through_out(tmp_path: Path, suffix: str) -> None:
    dataset = load_records(jsonl(tmp_path / "r.jsonl", ROWS))
    out = write_verdicts(score(dataset, ["exact_substring", "hard_fact"]), tmp_path / f"x{suffix}")
    back = load_records(out)
    assert [(r.gold, r.reply) for r in back.records] == [(r.gold, r.reply) for r in dataset.records]
    if suffix == ".jsonl":
        written = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
        assert written["gold"] == GOLD
        assert written["reply"] == {k: v for k, v in REPLY.items() if v is not None}
    if suffix == ".csv":
        with out.open(encoding="utf-8") as handle:
            cell = next(csv.DictReader(handle))["gold"]
        assert json.loads(cell) == GOLD  # a JSON cell


def test_a_csv_gold_column_of_json_objects(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", "response", "gold", "reply"])
        writer.writerow(["q", "1947", "in 1947", json.dumps({"expected_regex": "19\\d\\d"}), ""])
    record = load_records(path).records[0]
    assert (record.gold, record.reply) == (Gold(expected_regex="19\\d\\d"), None)
    assert list(score(path, ["hard_fact"]).metrics["hard_fact"].outcomes) == [1]


@pytest.mark.parametrize(
    ("part", "value", "message"),
    [
        ("gold", {"pages": 3}, "column 'gold' has no field 'pages'"),
        ("gold", {"page": "three"}, "field 'page' must be an integer"),
        ("gold", {"quote_span": [1]}, "field 'quote_span' must be [start, end]"),
        ("reply", {"citations": [{"page": 1}]}, "field 'citations' item 0 needs a 'document'"),
        ("reply", {"latency": "slow"}, "field 'latency' must be a number of seconds"),
        ("reply", {"blocked": "no"}, "field 'blocked' must be true or false"),
        ("reply", "[1, 2]", "column 'reply' must be an object"),
        ("reply", {"text": "30 days"}, "column 'reply' has no field 'text'"),  # the text is the response
    ],
)
def test_a_malformed_part_names_the_line_the_row_and_the_field(
    tmp_path: Path, part: str, value: object, message: str
) -> None:
    rows = [
        {"id": "ok", "question": "q", "answer": "a", "response": "r", part: {}},
        {"id": "bad", "question": "q", "answer": "a", "response": "r", part: value},
    ]
    with pytest.raises(InputError) as caught:
        load_records(jsonl(tmp_path / "r.jsonl", rows))
    assert message in caught.value.message
    assert "line 2 (id bad)" in caught.value.message


def test_a_column_named_gold_holding_text_stays_an_extra_column(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("question,answer,response,gold\nq,a,r,plain text\n", encoding="utf-8")
    record = load_records(path).records[0]
    assert (record.gold, dict(record.meta)) == (None, {"gold": "plain text"})


def test_a_reply_without_parts_is_none() -> None:
    assert Reply().citations == () and Gold().value is None
