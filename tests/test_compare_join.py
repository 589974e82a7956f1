"""compare joins honestly (issue 9, item 5): rows joined by one id must be the same question with the
same golden answers in both files, and a join by row numbers is said out loud. Real scored files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run

ROWS = [
    ("Capital of India?", "Delhi", "New Delhi"),
    ("City of the Taj Mahal?", "Agra", "Jaipur"),
    ("Where is the Aga Khan Palace?", "Pune", "Pune"),
    ("Largest city of Maharashtra?", "Mumbai", "Mumbai, once Bombay"),
]


def scored(
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    rows: list[tuple[str, str, str]],
    ids: list[str] | None = None,
) -> str:
    """`rows` (question, golden, response) scored by assay score --out; with `ids`, an id column."""
    header = ("id," if ids else "") + "question,answer,response"
    lines = [header] + [
        (f"{ids[n]}," if ids else "") + ",".join(json.dumps(cell) for cell in row)
        for n, row in enumerate(rows)
    ]
    data = folder / f"{name}.csv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = folder / f"{name}.scored.csv"
    argv = ["score", "--responses", str(data), "--metric", "exact_substring", "--out", str(out)]
    assert run(argv, capsys)[0] == 0
    return str(out)


def edited(
    rows: list[tuple[str, str, str]], changes: dict[int, tuple[str, str, str]]
) -> list[tuple[str, str, str]]:
    return [changes.get(n, row) for n, row in enumerate(rows)]


IDS = ["q1", "q2", "q3", "q4"]
CHANGED = edited(
    ROWS, {1: ("City of the Taj?", "Agra", "Jaipur"), 3: ("Largest city of Maharashtra?", "Bombay", "x")}
)


@pytest.mark.parametrize(
    ("a_ids", "b_rows", "b_ids", "says"),
    [
        # No ids, and B in another order: row n of B is another question. The silent wrong join.
        (None, ROWS[::-1], None, ["4 of 4 rows joined by id have another question",
                                  "ids are only row numbers",
                                  "id 1: question 'Capital of India?' in A, 'Largest city of Maharashtra?'"]),
        # Ids, one question reworded and one golden answer changed.
        (IDS, CHANGED, IDS, ["2 of 4 rows joined by id have another question or golden answer in B",
                             "id q2: question 'City of the Taj Mahal?' in A, 'City of the Taj?' in B",
                             "id q4: golden answers 'Mumbai' in A, 'Bombay' in B",
                             "--allow-changed-questions"]),
        # Ids that share nothing with A's.
        (IDS, ROWS, ["x1", "x2", "x3", "x4"], ["the two files share no id, so no row can be compared"]),
        # A numbered by row, B with ids: nothing joins, and the hint says why.
        (None, ROWS, IDS, ["share no id", "their ids are only row numbers: give both inputs an id column"]),
    ],
)  # fmt: skip
def test_compare_refuses_a_join_of_different_questions(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    a_ids: list[str] | None,
    b_rows: list[tuple[str, str, str]],
    b_ids: list[str] | None,
    says: list[str],
) -> None:
    a = scored(tmp_path, capsys, "a", ROWS, a_ids)
    b = scored(tmp_path, capsys, "b", b_rows, b_ids)
    code, printed, err = run(["compare", a, b], capsys)
    assert code == 2 and printed == ""
    assert len(err.strip().splitlines()) == 1  # one line: what, where, fix
    for text in says:
        assert text in err


def test_allowed_changes_are_compared_and_counted_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = scored(tmp_path, capsys, "a", ROWS, IDS)
    b = scored(tmp_path, capsys, "b", edited(ROWS, {0: ("What is India's capital?", "Delhi", "Delhi")}), IDS)
    outputs = {kind: tmp_path / f"c.{kind}" for kind in ("json", "md", "html")}
    argv = ["compare", a, b, "--allow-changed-questions", "--json", str(outputs["json"])]
    code, printed, err = run(
        [*argv, "--markdown", str(outputs["md"]), "--html", str(outputs["html"])], capsys
    )
    warning = "1 of 4 rows joined by id have another question or golden answer in B, compared anyway"
    assert code == 0
    assert f"WARNING: {warning}" in printed and warning not in err  # said once (issue 23)
    found = json.loads(outputs["json"].read_text(encoding="utf-8"))
    assert found["changed_ids"] == ["q1"] and warning in found["warnings"][0]
    assert found["metrics"]["exact_substring"]["combined"]["n"] == 4  # compared, as asked
    assert f"> **Warning:** {warning}" in outputs["md"].read_text(encoding="utf-8")
    assert f'<p class="warning">Warning: {warning}' in outputs["html"].read_text(encoding="utf-8")


@pytest.mark.parametrize(("ids", "warned"), [(None, True), (["1", "2", "3", "4"], False), (IDS, False)])
def test_a_join_by_row_numbers_is_said_out_loud(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ids: list[str] | None, warned: bool
) -> None:
    """The same questions in the same order join; rows of inputs without ids (numbered by --out, under
    `row`) are a join by position: warned about, with the count of rows it joined. An id column is the
    file's own ids, real ids 1..n too (issue 23, friction 5): no warning."""
    a = scored(tmp_path, capsys, "a", ROWS, ids)
    b = scored(tmp_path, capsys, "b", edited(ROWS, {1: (*ROWS[1][:2], "Agra")}), ids)
    code, printed, err = run(["compare", a, b], capsys)
    assert code == 0 and "4 rows in both" in printed
    said = "the ids of A and B are only the row numbers 1..n (an input without ids): 4 rows were joined"
    assert (said in printed) is warned and said not in err  # one warning, not two (issue 23)


def test_an_id_column_the_user_named_is_never_row_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real ids 1..n from a column named 'Question ID' (issue 23, friction 5): joined by id, no warning
    that rows were joined by position, with the id column named when comparing."""
    files = []
    for name, rows in (("a", ROWS), ("b", edited(ROWS, {1: (*ROWS[1][:2], "Agra")}))):
        data = tmp_path / f"{name}.csv"
        lines = ["Question ID,question,answer,response"]
        lines += [f"{n},{','.join(json.dumps(cell) for cell in row)}" for n, row in enumerate(rows, start=1)]
        data.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out = tmp_path / f"{name}.scored.csv"
        argv = ["score", "--responses", str(data), "--id-col", "Question ID", "--metric", "exact_substring"]
        assert run([*argv, "--out", str(out)], capsys)[0] == 0
        files.append(str(out))
    code, printed, err = run(["compare", *files, "--id-col", "Question ID"], capsys)
    assert code == 0 and "4 rows in both" in printed
    assert "row numbers" not in printed + err and "WARNING" not in printed


def test_compare_help_names_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["compare", "--help"], capsys)
    folded = " ".join(out.split())
    assert code == 0 and "--allow-changed-questions" in out and "(refused otherwise)" in folded
