"""The gate's checks are data (gate.check_gates: which figure, what came of it); report.gate puts them
in words. Real files, real runs."""

from __future__ import annotations

from pathlib import Path

from cli_run import ROWS, write_csv

from assay import Gate, Summary, check_gates, load_records, score
from assay.gate import COMPARED, TOO_FEW_SCORED, TOO_MANY_UNSCORED
from assay.report.gate import gate_lines


def _summary(folder: Path, rows: list[dict[str, str]], metric: str = "exact_substring") -> Summary:
    return score(load_records(write_csv(folder / "answers.csv", rows)), [metric]).summary


def test_a_check_records_its_figure_and_outcome_and_the_report_says_it(tmp_path: Path) -> None:
    summary = _summary(tmp_path, ROWS)  # one row passes, one fails: 50%
    [check] = check_gates(summary, [Gate.parse("exact_substring>=0.4")], scope="overall")
    assert (check.scope, check.passed, check.outcome, check.value) == ("combined", True, COMPARED, 0.5)
    assert (check.tally.n, check.tally.unscored) == (2, 0)
    lines = gate_lines([check])
    assert lines[0].startswith("gate passed: exact_substring combined: accuracy 50.0% (95% CI ")
    assert lines[0].endswith(", n=2), unscored 0.0% (0 of 2): accuracy 50.0% meets >= 40.0%")
    assert lines[-1] == "gate: all 1 checks passed"


def test_a_rule_that_stops_a_check_is_its_outcome(tmp_path: Path) -> None:
    summary = _summary(tmp_path, ROWS)
    [few] = check_gates(summary, [Gate.parse("exact_substring>=0.4")], min_n=3, scope="overall")
    assert (few.passed, few.outcome) == (False, TOO_FEW_SCORED)
    unscorable = [*ROWS, {**ROWS[0], "id": "c", "answer": "..."}]  # phrase_match cannot score "..."
    [many] = check_gates(
        _summary(tmp_path, unscorable, "phrase_match"), [Gate.parse("phrase_match>=0.4")], scope="overall"
    )
    assert (many.passed, many.outcome, many.tally.unscored) == (False, TOO_MANY_UNSCORED, 1)
    assert gate_lines([many])[0].endswith(
        ", unscored 33.3% (1 of 3): more than --max-unscored 5.0% of its rows are unscored, so it cannot pass"
    )
    lines = gate_lines([few])
    assert lines[0].endswith(": fewer than --min-n 3 scored rows, so it cannot pass")
    assert lines[-1] == "gate: 1 of 1 checks failed"
