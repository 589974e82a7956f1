"""What --out costs: verdict columns only by default (traces on request, computed once per run), graded
scores at full precision, and a Parquet writer that is checked for before any work."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

import assay.report.rows as rows_module
from assay import score
from assay.summary import SCORE_UNITS_PER_ONE

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "qa_responses.csv"


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_out_has_no_trace_column_unless_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, traced = tmp_path / "plain.csv", tmp_path / "traced.csv"
    assert run(["score", "--responses", str(EXAMPLE), "--out", str(plain)], capsys)[0] == 0
    assert run(["score", "--responses", str(EXAMPLE), "--out", str(traced), "--trace-col"], capsys)[0] == 0
    without, with_traces = read_csv(plain), read_csv(traced)
    assert "trace" not in without[0]
    assert list(with_traces[0])[-1] == "trace"
    # the same rows but for the last column, whose traces agree with the verdicts
    assert [{k: v for k, v in row.items() if k != "trace"} for row in with_traces] == without
    for row in with_traces:
        found = json.loads(row["trace"])
        assert (
            found["exact_substring"]["outcome"] == {"True": "pass", "False": "fail"}[row["exact_substring"]]
        )


def test_trace_col_without_out_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", "--responses", str(EXAMPLE), "--trace-col"], capsys)
    assert code == 2
    assert "--trace-col" in err and "Fix: add --out FILE" in err


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_graded_scores_are_written_at_full_precision(tmp_path: Path, fmt: str) -> None:
    """Each row's SQuAD F1 in --out is the float itself, so the column's mean is the summary's, exactly
    (rounded to 6 decimals, it was off by some 1e-6 per dataset)."""
    run_ = score(EXAMPLE, ["squad_f1", "token_f1"])
    out = rows_module.write_verdicts(run_, tmp_path / f"scored.{fmt}")
    if fmt == "csv":
        cells = [row["squad_f1"] for row in read_csv(out)]
    elif fmt == "jsonl":
        cells = [repr(json.loads(line)["squad_f1"]) for line in out.read_text(encoding="utf-8").splitlines()]
    else:
        import pyarrow.parquet as pq

        cells = [repr(value) for value in pq.read_table(out).column("squad_f1").to_pylist()]
    values = run_.metrics["squad_f1"].values
    assert values is not None
    assert cells == [repr(value) for value in values]
    assert any(len(cell) > 8 for cell in cells)  # a score that 6 decimals would have cut
    units = sum(round(float(cell) * SCORE_UNITS_PER_ONE) for cell in cells)  # as the summary adds them
    assert units / (len(cells) * SCORE_UNITS_PER_ONE) == run_.summary.metrics["squad_f1"].combined.mean


def test_every_output_of_a_run_shares_one_computation_of_each_rows_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = rows_module.row_trace

    def counted(run_: Any, index: int) -> Any:
        calls.append(index)
        return real(run_, index)

    monkeypatch.setattr(rows_module, "row_trace", counted)
    argv = ["score", "--responses", str(EXAMPLE), "--out", str(tmp_path / "o.csv"), "--trace-col"]
    argv += ["--trace", str(tmp_path / "t.jsonl"), "--markdown", str(tmp_path / "r.md")]
    argv += ["--html", str(tmp_path / "r.html")]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert sorted(calls) == list(range(56))  # each of the 56 rows once, for four outputs


def test_row_traces_are_kept_with_their_run() -> None:
    run_ = score(EXAMPLE, ["exact_substring"])
    traced = rows_module.row_traces(run_)
    assert rows_module.row_traces(run_) is traced
    assert traced.traces(3) is traced.traces(3)
    assert traced.as_dicts(3)["exact_substring"]["outcome"] in ("pass", "fail")
    assert rows_module.row_traces(score(EXAMPLE, ["exact_substring"])) is not traced


# A Python without pyarrow: a fault a real install cannot produce on demand, so it is simulated by
# blocking the import (sys.modules[name] = None makes `import name` fail).
WITHOUT_PYARROW = """
import sys
sys.modules["pyarrow"] = None
sys.modules["pyarrow.parquet"] = None
from assay.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_parquet_without_pyarrow_is_refused_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "scored.parquet"
    # A responses file that is not there: the refusal comes before anything is read.
    missing = tmp_path / "not-read.csv"
    argv = ["score", "--responses", str(missing), "--out", str(out)]
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYARROW, *argv], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"assay: error: {out}: assay score needs pyarrow to write Parquet, and it is not installed. "
        "Fix: pip install 'assay[parquet]', or write .csv or .jsonl\n"
    )
    assert list(tmp_path.iterdir()) == []
