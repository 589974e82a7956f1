"""assay compare: two scored runs (--out files) row by row."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..comparison import compare, load_scored
from ..errors import EXIT_OK, InputError, UsageError
from ..outputs import check_outputs, json_document, write_text
from ..report.html import write_html
from ..report.markdown import render_comparison_markdown
from ..report.model import build_report
from ..report.sections import Comparison
from ..report.text import render_comparison
from ..summary import IntervalMethod
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    comparer = commands.add_parser("compare", help="compare two scored runs (--out files) row by row")
    comparer.add_argument(
        "a", metavar="A", help="the first scored file (assay score --out), or harness run (assay run --out)"
    )
    comparer.add_argument("b", metavar="B", help="the second scored file, compared as B - A")
    comparer.add_argument("--json", metavar="FILE", help="write the comparison as JSON")
    comparer.add_argument("--markdown", metavar="FILE", help="write the comparison as Markdown")
    comparer.add_argument("--html", metavar="FILE", help="write B's HTML report with the comparison")
    flags.add_ci_seed(comparer)
    comparer.add_argument(
        "--allow-changed-questions",
        action="store_true",
        help="compare rows joined by id even when their question or golden answers differ between the "
        "files (refused otherwise), with a warning that counts them",
    )
    flags.add_columns(comparer)
    comparer.set_defaults(run=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    outputs = {"--json": args.json, "--markdown": args.markdown, "--html": args.html}
    check_outputs(outputs, {"A": args.a, "B": args.b})
    if harness_runs(args):
        return compare_harness_runs(args)
    intervals, columns = IntervalMethod(seed=args.ci_seed), flags.column_map(args)
    a, b = load_scored(args.a, intervals, columns), load_scored(args.b, intervals, columns)
    comparison = compare(a, b, args.ci_seed, allow_changed=args.allow_changed_questions).as_dict()
    _emit(comparison, args, render_comparison, render_comparison_markdown)
    if args.html:
        write_html(args.html, build_report(b, sections=[Comparison(comparison)]))
    return EXIT_OK


def harness_runs(args: argparse.Namespace) -> bool:
    """Whether A and B are two harness runs (assay run --out folders, or their run.jsonl); one of each is
    a mistake, said as such rather than as the other kind's complaint."""
    from ..harness.run_compare import run_file

    found = [run_file(path) is not None for path in (args.a, args.b)]
    for path, is_run in zip((args.a, args.b), found):
        kind = _kind_of(path)
        if kind == "missing":  # a typo is no "scored file": said as what it is
            raise InputError(
                "no such file",
                where=str(path),
                fix="give a folder written by assay run --out (or its run.jsonl), or a file written by "
                "assay score --out",
            )
        if kind == "folder" and not is_run:  # no scored file either: a run unfinished
            raise UsageError(
                "no finished harness run in the folder (its run.jsonl is missing, or has no 'outcome' "
                "column: the run stopped before its scoring finished)",
                where=str(path),
                fix="run its assay run command again with the same --out: the journal asks the system "
                "nothing again",
            )
    if any(found) and not all(found):
        run, other = ("A", "B") if found[0] else ("B", "A")
        raise UsageError(
            f"{run} is a harness run (assay run --out) and {other} is not",
            fix="compare two harness runs, or two files written by assay score --out",
        )
    return all(found)


def _kind_of(path: str) -> str:
    """ "missing", "folder" or "file"; a path the system cannot even look up (a name too long) is left
    to the file's reader, which says why it cannot read it."""
    try:
        return "folder" if Path(path).is_dir() else "file" if Path(path).exists() else "missing"
    except OSError:
        return "file"


def compare_harness_runs(args: argparse.Namespace) -> int:
    """Two harness runs: outcome classes, transitions, factual accuracy per scope, signatures."""
    from ..harness.run_compare import compare_runs
    from ..report.run_comparison import render_run_comparison, render_run_comparison_markdown

    if args.html:
        raise UsageError("--html compares scored files only", fix="use --json or --markdown for two runs")
    comparison = compare_runs(args.a, args.b, args.ci_seed, allow_changed=args.allow_changed_questions)
    _emit(comparison, args, render_run_comparison, render_run_comparison_markdown)
    return EXIT_OK


def _emit(
    comparison: Mapping[str, Any],
    args: argparse.Namespace,
    text: Callable[[Mapping[str, Any]], str],
    markdown: Callable[[Mapping[str, Any]], str],
) -> None:
    """A comparison's text on stdout, and its --json and --markdown files. Its warnings are in each
    (the text's lead with them): not said again on stderr, which a terminal shows beside stdout."""
    sys.stdout.write(text(comparison))
    if args.json:
        write_text(args.json, json_document(comparison))
    if args.markdown:
        write_text(args.markdown, markdown(comparison))
