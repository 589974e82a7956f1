"""assay score and assay agree with human labels: each metric's accuracy calibrated on them (a column,
or a file joined by id), in print and JSON, the gate on it, and the mistakes said before the work."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_run import run

from assay import Outcome, load_records, score
from assay.calibration import MIN_LABELS, calibrated
from assay.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

ROWS = 300


def labelled_file(folder: Path, labelled: int = 90, seed: int = 5) -> Path:
    """Rows in two domains where the response is right for 60% of them; exact_substring passes the
    right ones written out in full and misses the rest (a strict matcher); `labelled` random rows carry
    people's label, and the rest none."""
    rng = random.Random(seed)
    chosen = set(rng.sample(range(ROWS), labelled))
    lines = []
    for i in range(ROWS):
        right = rng.random() < 0.6
        response = rng.choice(["Paris", "it is Paris, France", "the city of light"]) if right else "Lyon"
        label = ("correct" if right else "incorrect") if i in chosen else None
        row = {"id": f"q{i}", "question": "capital of France?", "answers": ["Paris"], "response": response}
        row |= {"domain": "geo" if i % 2 else "art", "human_label": label}
        lines.append(json.dumps(row))
    path = folder / "labelled.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def rows_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def labels_file(labels: Path, rows: list[dict[str, object]]) -> Path:
    """The labelled rows' labels alone, joined by id: a file of labels as --labels reads it."""
    lines = [json.dumps({"id": r["id"], "human_label": r["human_label"]}) for r in rows if r["human_label"]]
    labels.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return labels


def one_id_twice(path: Path) -> Path:
    """Two rows that share the id q1."""
    row = json.dumps({"id": "q1", "question": "q", "answers": ["a"], "response": "a"})
    path.write_text(f"{row}\n{row}\n", encoding="utf-8")
    return path


def expected(path: Path) -> tuple[float, float, float]:
    """exact_substring's calibrated share, worked out from the library's parts."""
    run_ = score(load_records(path), ["exact_substring"])
    passes = [float(Outcome(c) is Outcome.PASS) for c in run_.metrics["exact_substring"].outcomes]
    truth = [
        None if r.meta["human_label"] is None else r.meta["human_label"] == "correct" for r in run_.records
    ]
    found = calibrated(passes, truth)
    assert found.estimate is not None and found.interval is not None
    return found.estimate, found.interval.low, found.interval.high


def test_score_with_a_column_of_labels_reports_the_calibrated_accuracy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    summary = tmp_path / "summary.json"
    argv = ["score", "--responses", str(path), "--metric", "exact_substring", "--human", "human_label"]
    code, printed, _ = run([*argv, "--json", str(summary)], capsys)
    assert code == EXIT_OK
    found = json.loads(summary.read_text(encoding="utf-8"))["calibrated"]["exact_substring"]
    estimate, low, high = expected(path)
    assert found["overall"]["estimate"] == pytest.approx(estimate)
    assert (found["overall"]["interval"]["low"], found["overall"]["interval"]["high"]) == pytest.approx(
        (low, high)
    )
    assert (found["overall"]["labelled"], found["overall"]["unlabelled"]) == (90, ROWS - 90)
    assert set(found["domains"]) == {"art", "geo"}
    assert "accuracy calibrated on the human labels in 'human_label'" in printed
    assert f"{estimate:.1%}" in printed and "90 of 300" in printed
    # the strict matcher's own accuracy is far below what people call correct; the calibrated one is not
    accuracy = json.loads(summary.read_text(encoding="utf-8"))["metrics"]["exact_substring"]["combined"]
    assert accuracy["accuracy"] < 0.45 < low


def test_a_labels_file_joined_by_id_gives_what_the_column_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    rows = rows_of(path)
    labels = labels_file(tmp_path / "human_labels.jsonl", rows)
    bare = tmp_path / "bare.jsonl"
    bare.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "human_label"}) + "\n" for r in rows)
    )
    out = tmp_path / "agree.json"
    argv = ["agree", "--responses", str(bare), "--metric", "exact_substring", "--labels", str(labels)]
    code, printed, _ = run([*argv, "--json", str(out)], capsys)
    assert code == EXIT_OK
    found = json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_substring"]
    assert found["calibrated"]["overall"]["estimate"] == pytest.approx(expected(path)[0])
    assert found["overall"]["n"] == 90  # the agreement is over the same 90 labelled rows
    assert "accuracy calibrated on the human labels in 'human_label' of" in printed


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": "q1", "human_label": "correct"}', '{"id": "q1", "human_label": "incorrect"}'],
         "line 2: the id 'q1' is labelled twice (first at line 1)"),
        (['{"id": "nope", "human_label": "correct"}'],
         "1 labelled id(s) name no row of the responses: 'nope'"),
        (['{"id": "q1", "label": "correct"}'], "the labels file has no 'human_label' column"),
    ],
)  # fmt: skip
def test_a_labels_file_that_cannot_be_joined_is_refused_with_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], message: str
) -> None:
    path = labelled_file(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(["score", "--responses", str(path), "--labels", str(labels)], capsys)
    assert code != EXIT_OK
    assert message in err and str(labels) in err


def test_labels_on_rows_that_share_an_id_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = one_id_twice(tmp_path / "twice.jsonl")
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"id": "q1", "human_label": "correct"}\n', encoding="utf-8")
    argv = ["score", "--responses", str(path), "--allow-duplicate-ids", "--labels", str(labels)]
    code, _, err = run(argv, capsys)
    assert code != EXIT_OK and "the labelled id 'q1' names 2 rows of the responses" in err


def test_the_gate_on_the_calibrated_accuracy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = labelled_file(tmp_path)
    estimate, low, _ = expected(path)
    base = ["score", "--responses", str(path), "--metric", "exact_substring", "--human", "human_label"]
    base += ["--gate-scope", "overall"]
    code, _, err = run(
        [*base, "--gate", f"exact_substring>={estimate - 0.01:.3f}", "--gate-on", "calibrated"], capsys
    )
    assert code == EXIT_OK, err
    assert "calibrated accuracy" in err
    code, _, err = run(
        [*base, "--gate", f"exact_substring>={low + 0.01:.3f}", "--gate-on", "calibrated-lower"], capsys
    )
    assert code == EXIT_FINDINGS
    assert "the calibrated interval's lower end" in err


def test_a_scope_with_too_few_labels_cannot_pass_a_calibrated_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path, labelled=MIN_LABELS + 10)  # about 20 per domain
    argv = ["score", "--responses", str(path), "--metric", "exact_substring", "--human", "human_label"]
    code, printed, err = run([*argv, "--gate", "exact_substring>=0.1", "--gate-on", "calibrated"], capsys)
    assert code == EXIT_FINDINGS
    assert "gate passed: exact_substring combined" in err
    assert "exact_substring art" in err and "not enough labels" in err and "so it cannot pass" in err
    assert "not enough labels (" in printed.split("domain art", 1)[1].splitlines()[0]


def test_gating_on_labels_without_labels_fails_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    argv = ["score", "--responses", str(path), "--gate", "exact_substring>=0.5", "--gate-on", "calibrated"]
    code, printed, err = run(argv, capsys)
    assert code == EXIT_USAGE
    assert "gates the accuracy calibrated on human labels, and none are named" in err
    assert printed == ""  # nothing scored


def test_assay_run_refuses_a_calibrated_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--gold", str(tmp_path / "gold.jsonl"), "--system", "echo", "--gate", "factual>=0.9"]
    argv += ["--out", str(tmp_path / "run")]
    code, _, err = run([*argv, "--gate-on", "calibrated"], capsys)
    assert code == EXIT_USAGE
    assert "gates on human labels, which assay run does not read" in err


def test_suggested_rows_labelled_and_read_back_are_weighted_by_their_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """agree --suggest writes the drawn rows with their chance of being drawn; labels given to some of
    them (as assay view saves them) calibrate by that chance, and the rows left unlabelled are said."""
    path = labelled_file(tmp_path, labelled=0)
    drawn = tmp_path / "to_label.jsonl"
    argv = ["agree", "--responses", str(path), "--suggest", "80", "--suggest-out", str(drawn)]
    code, _, err = run(argv, capsys)
    assert code == EXIT_OK, err
    rows = [json.loads(line) for line in drawn.read_text(encoding="utf-8").splitlines()]
    assert 50 <= len(rows) <= 110 and {r["label_drawn"] for r in rows} == {len(rows)}
    assert all(0 < r["label_probability"] <= 1 for r in rows)
    assert {r["domain"] for r in rows} == {"art", "geo"}
    assert f"drew {len(rows)} rows to label" in err
    # a person labels all but 5 of them: right when the response names Paris
    marked = [
        r
        | {"human_label": "correct" if "Paris" in r["response"] or "light" in r["response"] else "incorrect"}
        for r in rows[5:]
    ]
    labels = tmp_path / "to_label.human_labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in marked), encoding="utf-8")
    out = tmp_path / "agree.json"
    argv = ["agree", "--responses", str(path), "--metric", "exact_substring", "--labels", str(labels)]
    code, printed, _ = run([*argv, "--json", str(out)], capsys)
    assert code == EXIT_OK
    found = json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_substring"]["calibrated"]["overall"]
    assert found["method"] == "drawn" and found["labelled"] == len(rows) - 5
    assert f"{len(rows) - 5} of the {len(rows)} rows drawn for labelling have a label" in printed
    assert "each weighted by its chance of being drawn" in printed
    truth = [json.loads(line)["response"] != "Lyon" for line in path.read_text(encoding="utf-8").splitlines()]
    assert found["interval"]["low"] <= sum(truth) / len(truth) <= found["interval"]["high"]


def test_suggest_needs_a_file_to_write_to(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = labelled_file(tmp_path)
    code, printed, err = run(["agree", "--responses", str(path), "--suggest", "10"], capsys)
    assert code == EXIT_USAGE and "add --suggest-out FILE" in err and printed == ""


def test_a_label_probability_that_is_not_one_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"id": "q1", "human_label": "correct", "label_probability": 0.2}\n'
        '{"id": "q2", "human_label": "correct", "label_probability": 1.5}\n',
        encoding="utf-8",
    )
    code, _, err = run(["score", "--responses", str(path), "--labels", str(labels)], capsys)
    assert code != EXIT_OK
    assert f"{labels}, line 2" in err and "label_probability is '1.5', not a probability in (0, 1]" in err


def test_the_markdown_and_html_reports_carry_the_calibrated_accuracy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    markdown, html = tmp_path / "report.md", tmp_path / "report.html"
    argv = ["score", "--responses", str(path), "--metric", "exact_substring", "--human", "human_label"]
    code, _, err = run([*argv, "--markdown", str(markdown), "--html", str(html)], capsys)
    assert code == EXIT_OK, err
    estimate = f"{expected(path)[0]:.1%}"
    written = markdown.read_text(encoding="utf-8")
    assert "## Accuracy calibrated on human labels" in written
    row = next(line for line in written.splitlines() if line.startswith("| exact\\_substring | all |"))
    assert estimate in row and "90 of 300" in row
    page = html.read_text(encoding="utf-8")
    assert 'id="calibrated"' in page and "Accuracy calibrated on human labels" in page
    assert f"<td>{estimate}</td>" in page


def test_with_limit_labels_of_rows_left_out_are_noted_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    rows = rows_of(path)
    labels = labels_file(tmp_path / "labels.jsonl", rows)
    beyond = sum(1 for r in rows[100:] if r["human_label"])
    argv = ["score", "--responses", str(path), "--metric", "exact_substring", "--labels", str(labels)]
    code, printed, err = run([*argv, "--limit", "100"], capsys)
    assert code == EXIT_OK, err
    assert f"{beyond} label(s) in {labels} name no row scored here" in printed


def test_rows_that_share_an_id_cannot_be_drawn_for_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = one_id_twice(tmp_path / "twice.jsonl")
    drawn = tmp_path / "to_label.jsonl"
    argv = [
        "agree",
        "--responses",
        str(path),
        "--allow-duplicate-ids",
        "--suggest",
        "1",
        "--suggest-out",
        str(drawn),
    ]
    code, _, err = run(argv, capsys)
    assert code != EXIT_OK and "1 id(s) name several rows (first: 'q1')" in err
    assert not drawn.exists()


def test_a_missing_labels_file_is_said_before_the_work_with_its_own_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = labelled_file(tmp_path)
    missing = tmp_path / "nope.jsonl"
    code, printed, err = run(["score", "--responses", str(path), "--labels", str(missing)], capsys)
    assert code != EXIT_OK and printed == ""  # nothing scored
    assert f"{missing}: no such file" in err and "give --labels the file of human labels" in err
