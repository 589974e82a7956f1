"""``assay compare`` on two harness runs (harness.run_compare): the outcome classes in A and B and the
transitions A -> B, factual accuracy per scope with the paired tests, the signatures compared, a gold file
of another hash warned about, a join of other questions refused, and a run beside a scored file refused.
Each run folder is what `assay run` leaves: run.jsonl (the gold items' keys, the reply, the outcome) and
results.json, made from real scored runs (see test_outcomes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import run as cli
from test_outcomes import CITED, OTHER_SCOPE, SCOPE, Case, item, run_rows, scored_run, write_rows
from test_results import RIGHT, WRONG, info

from assay import stats
from assay.harness.outcomes import OUTCOMES, outcomes, with_outcomes
from assay.harness.results import write_results
from assay.harness.run_compare import compare_runs

# Per item: A's reply, B's reply. B fixes 4 of A's wrong answers in SCOPE, breaks 1 in OTHER_SCOPE, and
# a system error of A's is answered by B.
A_B = {
    **{f"s{i}": (RIGHT, RIGHT) for i in range(6)},
    **{f"f{i}": (WRONG, RIGHT) for i in range(4)},
    "o1": (RIGHT, WRONG),
    "o2": (RIGHT, RIGHT),
    "e1": (None, RIGHT),
}


def write_run(folder: Path, side: int, gold_sha256: str = "ab" * 32, **change: Any) -> Path:
    cases = []
    for ident, replies in A_B.items():
        scope = OTHER_SCOPE if ident.startswith("o") else SCOPE
        gold = {**item(ident, scope=scope), **change.get(ident, {})}
        text = replies[side]
        reply = {"error": "timed out after 60s"} if text is None else ({**CITED} if text == RIGHT else {})
        cases.append(Case(gold, text or "", reply))
    folder.mkdir(parents=True)
    scored = scored_run(folder, cases)
    found = outcomes(scored)
    rows = [
        {**row, "outcome": outcome, "outcome_reason": reason}
        for row, (outcome, reason) in zip(run_rows(cases), found)
    ]
    write_rows(folder / "run.jsonl", rows)  # as the runner writes it (verdict columns aside)
    write_results(with_outcomes(scored), folder, info(system=f"bot-v{side + 1}"))
    results = folder / "results.json"
    written = json.loads(results.read_text(encoding="utf-8"))
    written["signatures"]["gold_sha256"] = gold_sha256
    results.write_text(json.dumps(written), encoding="utf-8")
    return folder


def test_two_runs_per_outcome_class_and_scope(tmp_path: Path) -> None:
    a, b = write_run(tmp_path / "a", 0), write_run(tmp_path / "b", 1)
    found = compare_runs(a, b)
    assert found["items_in_both"] == len(A_B)
    counts = {name: (c["a"], c["b"]) for name, c in found["outcomes"].items() if c["a"] or c["b"]}
    assert counts == {"correct": (8, 12), "wrong_uncited": (4, 1), "system_error": (1, 0)}
    assert list(found["outcomes"]) == list(OUTCOMES)
    moves = found["transitions"]
    assert moves["wrong_uncited"]["correct"] == 4 and moves["correct"]["wrong_uncited"] == 1
    assert moves["system_error"]["correct"] == 1 and moves["correct"]["correct"] == 7
    assert sum(sum(row.values()) for row in moves.values()) == len(A_B)
    factual = found["factual"]["metrics"]["factual"]
    combined = factual["combined"]
    assert (combined["n"], combined["a_only"], combined["b_only"]) == (13, 1, 5)
    assert combined["p_value"] == pytest.approx(stats.mcnemar_exact(5, 1))
    scope = factual["domains"][SCOPE]
    assert (scope["a_accuracy"], scope["b_accuracy"], scope["b_only"]) == (6 / 11, 1.0, 5)
    assert factual["domains"][OTHER_SCOPE]["a_only"] == 1
    assert "system: bot-v1 -> bot-v2" in found["signature_differences"]
    assert found["warnings"] == []


def test_the_command_writes_text_json_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = write_run(tmp_path / "a", 0), write_run(tmp_path / "b", 1)
    out_json, out_md = tmp_path / "cmp.json", tmp_path / "cmp.md"
    code, out, err = cli(["compare", str(a), str(b / "run.jsonl"), "--json", str(out_json),
                          "--markdown", str(out_md)], capsys)  # fmt: skip
    assert code == 0, err
    assert "transitions A -> B" in out and "factual" in out
    assert json.loads(out_json.read_text(encoding="utf-8"))["outcomes"]["correct"] == {"a": 8, "b": 12}
    markdown = out_md.read_text(encoding="utf-8")
    assert "## Outcomes" in markdown and "| `correct` | 8 | 12 | +4 |" in markdown
    assert "## Transitions A -> B" in markdown and "## Factual accuracy, paired" in markdown


def test_another_gold_file_is_warned_about_and_other_questions_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a", 0)
    b = write_run(tmp_path / "b", 1, gold_sha256="cd" * 32)
    found = compare_runs(a, b)
    assert any("different gold files" in warning for warning in found["warnings"])
    changed = write_run(tmp_path / "c", 1, gold_sha256="ef" * 32, f0={"question": "Another question?"})
    code, _, err = cli(["compare", str(a), str(changed)], capsys)
    assert code != 0 and "another question or golden answer in B" in err


def test_a_run_beside_a_scored_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_run(tmp_path / "a", 0)
    scored = tmp_path / "scored.jsonl"
    argv = ["score", "--responses", str(a / "run.jsonl"), "--metric", "hard_fact", "--out", str(scored)]
    code, _, err = cli(argv, capsys)
    assert code == 0, err
    without = [{k: v for k, v in json.loads(line).items() if not k.startswith("outcome")}
               for line in scored.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    write_rows(scored, without)  # an assay score --out file
    code, _, err = cli(["compare", str(a), str(scored)], capsys)
    assert code != 0 and "A is a harness run (assay run --out) and B is not" in err


@pytest.mark.parametrize("missing_side", [0, 1])
def test_a_missing_file_beside_a_run_is_said_to_be_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], missing_side: int
) -> None:
    paths = [str(write_run(tmp_path / "a", 0)), str(tmp_path / "typo.jsonl")]
    if missing_side == 0:
        paths.reverse()
    code, _, err = cli(["compare", *paths], capsys)
    assert code == 2 and f"{tmp_path / 'typo.jsonl'}: no such file" in err
    assert "is not" not in err and "--responses" not in err


def test_a_run_scored_again_is_warned_to_hold_the_runs_outcomes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """assay score --out keeps a run row's outcome as it was: a judge added afterwards changes no
    outcome, so a comparison that reads them must say so, not pass them off as the new verdicts'."""
    a, b = write_run(tmp_path / "a", 0), write_run(tmp_path / "b", 1)
    rescored = b / "rescored.jsonl"
    argv = ["score", "--responses", str(b / "run.jsonl"), "--metric", "exact_substring"]
    code, _, err = cli([*argv, "--out", str(rescored)], capsys)
    assert code == 0, err
    assert not any("scored again" in warning for warning in compare_runs(a, b)["warnings"])
    (warning,) = [w for w in compare_runs(a, rescored)["warnings"] if "scored again" in w]
    assert "exact_substring" in warning and str(rescored) in warning
    alone = tmp_path / "elsewhere" / "rescored.jsonl"
    alone.parent.mkdir()
    alone.write_bytes(rescored.read_bytes())
    assert any("may predate" in warning for warning in compare_runs(a, alone)["warnings"])


@pytest.mark.parametrize("holds", ["nothing", "answers only"])
def test_a_folder_without_a_finished_run_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], holds: str
) -> None:
    """A run whose scoring failed (a judge down) leaves its answers in run.jsonl, without outcomes: the
    folder is neither 'no such file' nor a scored file to fix --responses for."""
    a = write_run(tmp_path / "a", 0)
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    if holds == "answers only":
        write_rows(unfinished / "run.jsonl", run_rows([Case(item("s0"), RIGHT)]))
    for argv in (["compare", str(a), str(unfinished)], ["compare", str(unfinished), str(unfinished)]):
        code, _, err = cli(argv, capsys)
        assert code == 2 and f"{unfinished}: no finished harness run in the folder" in err, err
        assert "no such file" not in err and "--responses" not in err


def test_options_that_differ_read_as_the_reports_write_them(tmp_path: Path) -> None:
    a, b = write_run(tmp_path / "a", 0), write_run(tmp_path / "b", 1)
    results = b / "results.json"
    written = json.loads(results.read_text(encoding="utf-8"))
    written["signatures"]["options"] = {"concurrency": 4, "scopes": [SCOPE], "limit": None}
    results.write_text(json.dumps(written), encoding="utf-8")
    (line,) = [d for d in compare_runs(a, b)["signature_differences"] if d.startswith("options")]
    assert line == f"options: concurrency=4; timeout=60.0 -> concurrency=4; scopes={SCOPE}; limit=none"
