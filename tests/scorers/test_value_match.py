"""value_match: the response states the expected value, compared as values; negated, hedged or one of
several candidates does not pass; a golden answer that is no value leaves its row unscored."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cli_run import run

from assay import ScoreOptions, score
from assay.scorers import DEFAULT_METRICS, SCORERS, Outcome
from assay.scoring import available_metrics, signature
from assay.trace import trace
from assay.values.types import VALUES_VERSION

PASS, FAIL, UNSCORED = Outcome.PASS, Outcome.FAIL, Outcome.UNSCORED


def outcomes(rows: list[dict[str, Any]]) -> list[Outcome]:
    scores = score(pd.DataFrame(rows), ["value_match"]).metrics["value_match"]
    return [scores.outcome(row) for row in range(len(rows))]


def one(answer: str, response: str) -> Outcome:
    return outcomes([{"question": "q", "answer": answer, "response": response}])[0]


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ("30 days", "The grace period is 30 days.", PASS),
        ("30 days", "The grace period is thirty days.", PASS),
        ("30 days", "You get a 30-day grace period.", PASS),
        ("30 days", "It is one month.", PASS),  # 1 month = 30 days, the one approximate equivalence
        ("30 days", "Thirty (30) days from the due date.", PASS),
        ("30 days", "३० दिन", PASS),  # Devanagari digits and a Hindi unit
        ("48 months", "It is covered after 4 consecutive years.", PASS),
        ("24 hours", "Cashless requests are answered within a day.", PASS),
        ("30 days", "The grace period is 300 days.", FAIL),
        ("30 days", "The grace period is 30 months.", FAIL),
        ("30 days", "It is two months.", FAIL),  # 2 months is not 60 days, let alone 30
        ("30 days", "The policy year 2030 days", FAIL),
        ("₹5 lakh", "The sum insured is Rs 5,00,000.", PASS),
        ("₹5 lakh", "The sum insured is INR 500000.", PASS),
        ("₹5 lakh", "Sum insured: 5 lakhs", PASS),
        ("₹5 lakh", "Sum insured: 5,00,000", PASS),  # bare digits are the amount
        ("₹5 lakh", "The sum insured is ₹50 lakh.", FAIL),
        ("₹5 lakh", "A ₹5L cover.", PASS),  # L for lakh, after a currency
        ("₹5 lakh", "Sum insured 5 l.", FAIL),  # without one, l may be litres
        ("₹1 crore", "Cover up to 100 lakh rupees.", PASS),
        ("20%", "A co-payment of 20 per cent applies.", PASS),
        ("20%", "A co-payment of 20 percent applies.", PASS),
        ("20%", "A co-payment of 2% applies.", FAIL),
        ("50%", "The bonus shall not exceed 50% of the sum insured.", PASS),  # a bound, not a denial
        ("50%", "No claim bonus: 50%", PASS),  # the benefit's name is no negation
        ("1947", "India became independent on 15 August 1947.", PASS),
        ("1947", "India became independent in १९४७.", PASS),
        ("1947", "India became independent in 1857.", FAIL),
        ("15 August 1947", "It was August 15, 1947.", PASS),
        ("15 August 1947", "It was 15/08/1947.", PASS),
        ("15 August 1947", "It was 16 August 1947.", FAIL),
        # a bare number is read in the expected unit only when no value has a unit of its kind
        ("30 days", "It is 30.", PASS),
        ("30 days", "Clause 4: it is 30 days.", PASS),  # 4 has no unit, and 30 days has
        ("₹5 lakh", "₹5 lakh, at any of 1000 network hospitals.", PASS),
        ("Two", "Two claims are allowed a year.", PASS),  # "a year" is no count
    ],
)
def test_values_are_compared_as_values(answer: str, response: str, expected: Outcome) -> None:
    assert one(answer, response) is expected


@pytest.mark.parametrize(
    ("answer", "response"),
    [
        ("30 days", "The grace period is not 30 days."),
        ("30 days", "Usually 30 days but some plans use 60."),  # a hedge, and a contrast with another number
        ("30 days", "Probably 30 days."),
        ("30 days", "It is 30 or 60 days."),  # several candidates
        ("30 days", "Between 30 and 60 days."),
        ("30 days", "३० दिन नहीं"),  # a Hindi negation comes after the value
        ("₹5 lakh", "Either ₹5 lakh or ₹10 lakh."),
        ("₹5 lakh", "From 5 to 10 lakh."),
        ("₹5 lakh", "It is ₹5 lakh, but some plans offer 10."),  # a contrast with a bare number
        ("20%", "20% inside the network, 10% outside."),
        ("20%", "There is no 20% co-payment."),
        ("Yes", "No, it is not covered."),
        ("Yes", "It isn't covered."),
        ("Yes", "Possibly covered."),
        ("Yes", "Covered for some members, excluded for others."),
        ("No", "Yes"),
        ("No", "It is covered."),
        ("No", "It is not excluded."),
    ],
)
def test_negated_hedged_or_several_candidates_do_not_pass(answer: str, response: str) -> None:
    assert one(answer, response) is FAIL


@pytest.mark.parametrize(
    ("answer", "response"),
    [
        ("30 days", "No, it is 30 days."),  # "No," answers the question; it does not negate the value
        ("30 days", "It is 30 days, not 60."),  # the other value is the one denied
        ("30 days", "Not later than 30 days from the due date."),
        ("30 days", "It is 30 days, but premiums paid after 15 August 2024 lapse."),  # a date is no rival
        ("Yes", "Yes, it is covered."),
        ("Yes", "AYUSH treatment is included."),
        ("No", "No."),
        ("No", "Maternity is not covered."),
        ("No", "Maternity is excluded."),
        ("No", "नहीं"),
        ("No", "The policy excludes maternity."),
        ("No", "It does not include maternity."),
        ("Yes", "The plan includes AYUSH treatment."),
        ("Yes", "हाँ"),
    ],
)
def test_a_value_said_plainly_passes(answer: str, response: str) -> None:
    assert one(answer, response) is PASS


def test_a_golden_answer_that_is_no_value_is_unscored_never_failed() -> None:
    rows = [
        {"question": "Who?", "answer": "Mahatma Gandhi", "response": "Gandhi"},
        {"question": "Which war?", "answer": "World War 2", "response": "the second world war"},
        {"question": "Grace?", "answer": "30 days", "response": "30 days"},
    ]
    run_ = score(pd.DataFrame(rows), ["value_match"])
    scores = run_.metrics["value_match"]
    assert [scores.outcome(row) for row in range(3)] == [UNSCORED, UNSCORED, PASS]
    assert "not a typed value" in scores.reasons[0]
    assert run_.summary.metrics["value_match"].combined.unscored == 2


def gold_row(key: str, answer: str, response: str, **gold: Any) -> dict[str, Any]:
    return {"id": key, "question": "q", "answer": answer, "response": response, "gold": gold}


GOLD_ROWS = [
    # a gold value decides, whatever the golden answer's words
    gold_row("a", "four years", "After 48 months.", value=48, unit="month"),
    gold_row("b", "Covered", "Maternity is excluded.", value=False),
    gold_row("c", "India", "Cover is pan-India.", value="pan_india", value_type="enum"),
    gold_row("d", "Rs 5 lakh", "₹5,00,000", value=500000, value_type="money"),
    gold_row("d2", "5", "Rs. 5,00,000", value=5, unit="lakh"),  # an amount in lakh: money
    # a gold value that cannot be typed falls back to the golden answer
    gold_row("e", "₹5 lakh", "₹5 lakh", value=[500000, 750000]),
    gold_row("f", "the options", "₹5 lakh", value=[500000, 750000]),
    # a short text is compared as its words; a long one is left to phrase_match or the judge
    gold_row("g", "UIN", "Its UIN is HDFHLIP25041V062425.", value="HDFHLIP25041V062425"),
    gold_row(
        "h", "cap", "No cap.", value="No cap; choose any room category up to the Sum Insured you choose"
    ),
]


def test_a_gold_value_is_the_expected_value(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in GOLD_ROWS), encoding="utf-8")
    run_ = score(path, ["value_match"])
    scores = run_.metrics["value_match"]
    found = [scores.outcome(row) for row in range(len(GOLD_ROWS))]
    assert found == [PASS, PASS, PASS, PASS, PASS, PASS, UNSCORED, PASS, UNSCORED]
    assert "cannot be typed" in scores.reasons[6]
    assert "too long" in scores.reasons[8]
    rule = trace(run_, "value_match", 0).rule
    assert (
        "expected '48 months'" in rule
        and "from the gold value 48" in rule
        and "read from the response: 48 months" in rule
    )


def test_flat_value_columns_serve_as_the_gold_value(tmp_path: Path) -> None:
    path = tmp_path / "flat.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", "response", "value", "unit", "value_type"])
        writer.writerow(["q", "four years", "After 48 months.", "48", "months", "number_unit"])
        writer.writerow(["q", "Yes", "It is covered.", "False", "", "bool"])
    scores = score(path, ["value_match"]).metrics["value_match"]
    assert [scores.outcome(0), scores.outcome(1)] == [PASS, FAIL]


def test_the_trace_shows_the_expected_value_and_every_value_read() -> None:
    response = "USUALLY Rs 5,00,000, but some plans offer ₹10 lakh."
    run_ = score(
        pd.DataFrame([{"question": "q", "answer": "₹5 lakh", "response": response}]), ["value_match"]
    )
    found = trace(run_, "value_match", 0)
    assert found.outcome == "fail"
    assert "expected '₹5 lakh' (money, from the golden answer" in found.rule
    assert "read from the response: ₹5 lakh, ₹10 lakh" in found.rule


def test_a_pass_points_at_the_value_in_the_original_response() -> None:
    response = "The  Grace\u00a0Period is THIRTY DAYS."
    run_ = score(
        pd.DataFrame([{"question": "q", "answer": "30 days", "response": response}]), ["value_match"]
    )
    span = trace(run_, "value_match", 0).span
    assert span is not None
    assert response[span[0] : span[1]] == "THIRTY DAYS"


def test_it_runs_when_named_and_not_by_default() -> None:
    frame = pd.DataFrame([{"question": "q", "answer": "30 days", "response": "30 days"}])
    run_ = score(frame)
    assert "value_match" not in run_.metrics
    assert "value_match" in SCORERS and "value_match" not in DEFAULT_METRICS
    assert "value_match" not in available_metrics(run_.dataset, ScoreOptions())


def test_its_signature_names_the_profile_the_cues_and_the_values_rules() -> None:
    text = str(signature("value_match", ScoreOptions()))
    assert "value_match@2" in text
    assert f"values:{VALUES_VERSION}" in text and "cues:" in text and "profile:unicode-fold" in text


@pytest.mark.parametrize("with_gold", [False, True])
def test_the_command_line_scores_a_file_with_or_without_a_gold_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], with_gold: bool
) -> None:
    rows: list[dict[str, Any]] = [
        {"id": "1", "question": "Grace period?", "answer": "30 days", "response": "It is thirty days."},
        {"id": "2", "question": "Who?", "answer": "Mahatma Gandhi", "response": "Gandhi"},
        {"id": "3", "question": "Maternity?", "answer": "No", "response": "Maternity is covered."},
    ]
    if with_gold:
        rows[0]["gold"] = {"value": 1, "unit": "month", "value_type": "number_unit"}
        rows[2]["gold"] = {"value": False, "value_type": "bool"}
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "out.csv"
    code, stdout, _ = run(
        ["score", "--responses", str(path), "--metric", "value_match", "--out", str(out)], capsys
    )
    assert code == 0
    assert "value_match" in stdout
    written = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [row["value_match"] for row in written] == ["True", "", "False"]  # "" is unscored


def test_the_trace_decides_as_the_score_on_a_row_of_several_golden_answers(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "question": "Where?", "answers": ["everywhere", "all of India"],
         "response": "All of India.", "gold": {"value": "pan_india", "value_type": "enum"}},
        {"id": "2", "question": "Who?", "answers": ["Gandhi", "30 days"], "response": "thirty days"},
    ]  # fmt: skip
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run_ = score(path, ["value_match"])
    for row in range(2):
        found = trace(run_, "value_match", row)
        assert found.outcome == "pass", found.rule
    assert "states 'all of india'" in trace(run_, "value_match", 0).rule
    assert "from the golden answer '30 days'" in trace(run_, "value_match", 1).rule


def test_an_optional_input_is_there_for_every_file_and_none_where_a_row_has_none() -> None:
    from assay.scoring import check_inputs, has_input, row_inputs

    frame = pd.DataFrame([{"question": "q", "answer": "30 days", "response": "30 days"}])
    dataset = score(frame, ["value_match"]).dataset
    options = ScoreOptions()
    assert has_input(dataset, "gold.value?", options)
    assert not has_input(dataset, "gold.value", options)  # the same input, required: missing
    check_inputs(dataset, SCORERS["value_match"], options)  # no error
    assert row_inputs(dataset.records, "gold.value?", options) == [None]
    with_column = pd.DataFrame([{"question": "q", "answer": "a", "response": "r", "value": "30 days"}])
    assert row_inputs(score(with_column, ["value_match"]).dataset.records, "gold.value?", options) == [
        "30 days"
    ]
