"""assay lint: check the golden answers of a file (or a gold set's items) for problems."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_FINDINGS, EXIT_OK
from ..lint import ERROR, lint
from ..records import load_records
from ..terminal import one_line
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    linter = commands.add_parser(
        "lint", help="check the golden answers of a file (or a gold set) for problems"
    )
    linter.add_argument(
        "file", metavar="FILE", help="CSV, JSONL, JSON array or Parquet (responses not needed)"
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


def run_lint(args: argparse.Namespace) -> int:
    """Print every finding; exit 1 when any is an error (so CI can gate on it), else 0."""
    dataset = load_records(
        args.file, columns=flags.column_map(args), allow_duplicate_ids=True, need_responses=False
    )
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
    for finding in findings:
        print(one_line(str(finding)))
    errors = sum(finding.severity == ERROR for finding in findings)
    warnings_found = len(findings) - errors
    counts = f"{errors} errors, {warnings_found} warnings in {len(dataset)} rows"
    print(f"assay lint: {counts} of {one_line(args.file)}")
    return EXIT_FINDINGS if errors else EXIT_OK
