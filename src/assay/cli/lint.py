"""assay lint: check the golden answers of a file (or a gold set's items) for problems."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_FINDINGS, EXIT_OK
from ..harness.gold_check import GoldProblem, check_gold_file
from ..lint import ERROR, Finding, lint
from ..records import Dataset, load_records
from ..report.format import count
from ..terminal import one_line
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    linter = commands.add_parser(
        "lint", help="check the golden answers of a file (or a gold set) for problems"
    )
    linter.add_argument(
        "file",
        metavar="FILE",
        help="CSV, TSV, JSONL, JSON array, Parquet or Excel (.xlsx) (responses not needed)",
    )
    flags.add_columns(linter)
    quotes = linter.add_argument_group("gold sets (assay gold build's items)")
    quotes.add_argument(
        "--sources",
        metavar="DIR",
        help="the documents the gold set was built from: each item's quote is looked for again",
    )
    quotes.add_argument(
        "--strict", action="store_true", help="no fuzzy level: a quote must be found by the exact cascade"
    )
    quotes.add_argument(
        "--cache",
        metavar="DIR",
        type=Path,
        help="where extracted page text is cached (default .assay-cache/pages)",
    )
    quotes.add_argument("--no-cache", action="store_true", help="extract every document afresh")
    linter.set_defaults(run=run_lint)


def _column_flags(args: argparse.Namespace) -> bool:
    """Whether a --*-col flag was given (not a [columns] table)."""
    return any(getattr(args, f"{field}_col", None) is not None for field in flags.COLUMN_FLAGS)


def run_lint(args: argparse.Namespace) -> int:
    """Print every finding; exit 1 when any is an error (so CI can gate on it), else 0. A gold set is
    first checked as `assay run` checks it: every problem a run would refuse it for is an error here,
    in the run's words (``harness.gold_check``); a file that cannot be read at all is exit 2, as there."""
    columns = flags.column_map(args)
    # A gold set has assay's own fields whatever a [columns] table says (the table is for files of
    # replies, and sits in the assay.toml a team keeps its [system] in): a flag alone says otherwise.
    checked = check_gold_file(args.file, None) if not _column_flags(args) else None
    if checked is None or not checked.gold_shaped:
        dataset: Dataset | None = load_records(
            args.file, columns=columns, allow_duplicate_ids=True, need_responses=False, sheet=args.sheet
        )
        findings = []
    else:
        if checked.problems and checked.problems[0].check == "unreadable":
            raise checked.problems[0].error
        dataset, findings = checked.dataset, [_refusal(problem) for problem in checked.problems]
    if dataset is not None:
        findings += _findings(args, dataset)
        flags.print_column_hints(dataset, args)
    for finding in findings:
        print(one_line(str(finding)))
    errors = sum(finding.severity == ERROR for finding in findings)
    warnings_found = len(findings) - errors
    rows = len(dataset) if dataset is not None else len(checked.items) if checked is not None else 0
    counts = f"{count(errors, 'error')}, {count(warnings_found, 'warning')} in {count(rows, 'row')}"
    print(f"assay lint: {counts} of {one_line(args.file)}")
    return EXIT_FINDINGS if errors else EXIT_OK


def _refusal(problem: GoldProblem) -> Finding:
    """A problem `assay run` refuses the gold set for, as lint's error, in the run's words."""
    error = problem.error
    return Finding(ERROR, problem.check, error.where, f"{error.what}. Fix: {error.fix}")


def _findings(args: argparse.Namespace, dataset: Dataset) -> list[Finding]:
    """The linter's findings on the rows, and (with --sources) on a gold set's quotes."""
    findings = lint(dataset, args.regex_col)
    gold_set = any(record.gold is not None and record.gold.quote for record in dataset.records)
    if args.sources is not None:
        from ..documents import DEFAULT_PAGE_CACHE, load_sources
        from ..harness.gold_lint import lint_quotes

        cache = None if args.no_cache else (args.cache or DEFAULT_PAGE_CACHE)
        sources = load_sources(Path(args.sources), cache_dir=cache)
        findings += lint_quotes(dataset, sources, fuzzy=not args.strict)
    elif gold_set:
        note = "the items' quotes were not checked; pass --sources DIR to check them"
        print(f"assay lint: {note}", file=sys.stderr)
    return findings
