"""assay lint: check the golden answers of a file for problems."""

from __future__ import annotations

import argparse

from ..errors import EXIT_FINDINGS, EXIT_OK
from ..lint import ERROR, lint
from ..records import load_records
from ..terminal import one_line
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    linter = commands.add_parser("lint", help="check the golden answers of a file for problems")
    linter.add_argument(
        "file", metavar="FILE", help="CSV, JSONL, JSON array or Parquet (responses not needed)"
    )
    flags.add_columns(linter)
    linter.set_defaults(run=run_lint)


def run_lint(args: argparse.Namespace) -> int:
    """Print every finding; exit 1 when any is an error (so CI can gate on it), else 0."""
    dataset = load_records(
        args.file, columns=flags.column_map(args), allow_duplicate_ids=True, need_responses=False
    )
    findings = lint(dataset, args.regex_col)
    for finding in findings:
        print(one_line(str(finding)))
    errors = sum(finding.severity == ERROR for finding in findings)
    warnings_found = len(findings) - errors
    counts = f"{errors} errors, {warnings_found} warnings in {len(dataset)} rows"
    print(f"assay lint: {counts} of {one_line(args.file)}")
    return EXIT_FINDINGS if errors else EXIT_OK
