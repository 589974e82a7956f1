"""Running the command line in-process, for the CLI and output tests, and the small CSV files they run on."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from assay.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in-process: exit code, stdout, stderr (argparse's own errors exit via SystemExit)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


# Registered metrics a plain responses file cannot run even when named: hard_fact needs each row's
# pattern, grounded the source documents (--sources), refusal each item's expected_refusal.
NEEDS_MORE_INPUTS = ("hard_fact", "grounded", "refusal")

# Two rows of a responses file: one that every matcher passes, one that every matcher fails.
ROWS = [
    {"id": "a", "question": "Capital of India?", "answer": "Delhi", "Domain": "Geo", "response": "Delhi"},
    {"id": "b", "question": "Holy river?", "answer": "Ganga", "Domain": "Geo", "response": "the Yamuna"},
]


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    """`rows` as a CSV file with a header of the first row's keys."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path
