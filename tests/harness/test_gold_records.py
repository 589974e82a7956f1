"""A gold set (``assay gold build``'s items) loads with load_records as gold records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.parts import Gold
from assay.records import ColumnMap, load_records
from assay.scorers import Outcome

ITEM = {
    "id": "b2",
    "scope": "acme__policy",
    "field": "grace_period",
    "question": "What is the grace period of the Acme policy?",
    "expected_answer": "30 days",
    "expected_value": {"value": 30, "unit": "day"},
    "expected_regex": "(?:30|thirty)[- ]days?",
    "answer_type": "number_unit",
    "category": "periods",
    "expected_refusal": False,
    "source": {
        "document": "acme__policy",
        "path": "acme/policy.pdf",
        "sha256": "ab" * 32,
        "page": 3,
        "end_page": 4,
        "span": [10, 40],
        "quote": "Grace Period of 30 days",
        "match_level": "normalised",
    },
}
REFUSAL = {
    **ITEM,
    "id": "r1",
    "field": None,
    "question": "What is the CEO's salary?",
    "expected_answer": None,
    "expected_value": None,
    "expected_regex": None,
    "answer_type": None,
    "category": "refusal",
    "expected_refusal": True,
    "source": None,
}


def write(path: Path, *items: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_an_item_becomes_a_record_with_its_gold(tmp_path: Path) -> None:
    dataset = load_records(write(tmp_path / "gold.jsonl", ITEM), need_responses=False)
    (record,) = dataset.records
    assert (record.id, record.scope, record.answers) == ("b2", "acme__policy", ("30 days",))
    assert record.gold == Gold(
        value=30,
        value_type="number_unit",
        unit="day",
        expected_regex="(?:30|thirty)[- ]days?",
        source_document="acme__policy",
        source_path="acme/policy.pdf",
        source_sha256="ab" * 32,
        page=3,
        end_page=4,
        quote="Grace Period of 30 days",
        quote_span=(10, 40),
        match_level="normalised",
        expected_refusal=False,
        category="periods",
    )
    assert dict(record.meta) == {"field": "grace_period"}
    assert dataset.fields["gold"] == "gold"


def test_a_refusal_item_has_no_answer_and_no_source(tmp_path: Path) -> None:
    (record,) = load_records(write(tmp_path / "gold.jsonl", REFUSAL), need_responses=False).records
    assert record.answers == ("",)
    assert record.gold == Gold(expected_refusal=True, category="refusal")


def test_a_gold_set_with_responses_is_scored_by_its_own_patterns(tmp_path: Path) -> None:
    from assay import score

    answered = [
        {**ITEM, "id": "yes", "response": "You get thirty days of grace."},
        {**ITEM, "id": "no", "response": "The grace period is 300 days."},
    ]
    run = score(load_records(write(tmp_path / "run.jsonl", *answered)), metrics=["hard_fact"])
    assert list(run.metrics["hard_fact"].outcomes) == [Outcome.PASS, Outcome.FAIL]


def test_a_csv_gold_set_reads_its_objects_from_json_cells(tmp_path: Path) -> None:
    import csv

    path = tmp_path / "gold.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(ITEM))
        writer.writeheader()
        cells = {k: json.dumps(v) if isinstance(v, (dict, bool)) else v for k, v in ITEM.items()}
        writer.writerow(cells)
    (record,) = load_records(path, need_responses=False).records
    assert record.gold is not None
    assert (record.gold.value, record.gold.unit, record.gold.page) == (30, "day", 3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"expected_value": {"value": 30, "units": "day"}}, "has no key 'units'"),
        ({"expected_value": [30]}, "'expected_value' must be an object"),
        ({"source": {**ITEM["source"], "pages": [3]}}, "'source' has no key 'pages'"),  # type: ignore[dict-item]
        ({"source": {**ITEM["source"], "span": [10]}}, "quote_span"),  # type: ignore[dict-item]
        ({"expected_refusal": "no"}, "expected_refusal"),
    ],
)
def test_a_malformed_item_names_its_line_and_id(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = write(tmp_path / "gold.jsonl", REFUSAL, {**ITEM, **change})
    with pytest.raises(InputError) as caught:
        load_records(path, need_responses=False)
    assert message in caught.value.message
    assert "line 2 (id b2)" in caught.value.message


def test_a_file_with_an_answer_column_is_not_read_as_a_gold_set(tmp_path: Path) -> None:
    row = {"id": "1", "question": "q", "answer": "a", "expected_answer": "other", "response": "a"}
    (record,) = load_records(write(tmp_path / "plain.jsonl", row)).records
    assert record.answers == ("a",) and record.gold is None
    assert record.meta["expected_answer"] == "other"
    named = load_records(write(tmp_path / "named.jsonl", row), columns=ColumnMap(answer="expected_answer"))
    assert named.records[0].answers == ("other",)
