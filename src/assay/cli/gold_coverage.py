"""assay gold coverage: what a gold set does not test of its documents (untested pages and sections per
document, the share of pages tested, the facts' fields with no item), as text, JSON, Markdown and HTML."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError
from ..harness.facts import ADAPTERS
from ..outputs import check_outputs, json_document
from . import flags
from .written import write_outputs

if TYPE_CHECKING:  # the PDF libraries load when the command runs, not for every command's --help
    from ..documents import Sources


def add_parser(actions: Any) -> None:
    """`coverage` among `assay gold`'s actions."""
    parser = actions.add_parser(
        "coverage",
        help="the pages and sections of the documents no gold item tests, and the share tested",
        description="Locate every gold item's quote in its document (the gold build's quote cascade) and "
        "report, per document of --sources: the pages with text no item lies on, the sections (the PDF's "
        "outline, else its numbered or capitalised headings; Markdown headings) no item touches, the share "
        "of pages tested, and with --facts the fields with no item. Items whose quote is not found are "
        "listed apart; items citing a document not in --sources are errors (exit 1).",
    )
    flags.add_debug(parser)
    parser.add_argument("--gold", metavar="FILE", required=True, type=Path, help="the gold set (gold.jsonl)")
    parser.add_argument(
        "--sources", metavar="DIR", required=True, type=Path, help="the folder of PDFs and text files"
    )
    parser.add_argument(
        "--facts", metavar="DIR", type=Path, help="the facts folder: list each document's fields with no item"
    )
    parser.add_argument(
        "--adapter", choices=sorted(ADAPTERS), help="the facts files' layout (default: detected per file)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the coverage as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="write the coverage as Markdown")
    parser.add_argument("--html", metavar="FILE", help="write the coverage as a self-contained HTML page")
    flags.add_page_cache(parser)
    parser.set_defaults(run=run_coverage)


def run_coverage(args: argparse.Namespace) -> int:
    from ..harness.coverage import gold_coverage
    from ..harness.coverage_report import (
        coverage_document,
        coverage_html,
        coverage_json,
        coverage_lines,
        has_errors,
    )
    from ..harness.facts import load_facts
    from ..harness.gold_set import load_gold_set

    outputs = {"--json": args.json, "--markdown": args.markdown, "--html": args.html}
    check_outputs(outputs, {"--gold": args.gold})
    if not args.gold.is_file():  # the reader's own words name assay score's --responses
        raise InputError(
            "no such file", where=str(args.gold), fix="give --gold the gold set `assay gold build` wrote"
        )
    gold = load_gold_set(args.gold)
    facts = load_facts(args.facts, adapter=args.adapter) if args.facts else None
    report = coverage_json(gold_coverage(gold.items, _sources(args), facts=facts))
    print("\n".join(coverage_lines(report)))
    write_outputs(
        [
            (args.json, lambda: json_document(report)),
            (args.markdown, lambda: coverage_document(report)),
            (args.html, lambda: coverage_html(report)),
        ]
    )
    return EXIT_FINDINGS if has_errors(report) else EXIT_OK


def _sources(args: argparse.Namespace) -> Sources:
    """The documents of --sources; a file that cannot be read stops the command (its coverage cannot be
    told, and every document must be in the report), as does a folder with no document at all."""
    from ..documents import load_sources

    sources = load_sources(args.sources, cache_dir=flags.page_cache(args))
    if sources.problems:
        path, reason = sources.problems[0]
        raise InputError(
            f"a source document could not be read: {reason}",
            where=str(args.sources / path),
            fix="repair or replace the file, or move it out of the sources folder",
        )
    if not sources:
        raise InputError(
            "the sources folder holds no PDF or text file",
            where=str(args.sources),
            fix="give --sources the folder of the documents the gold set quotes",
        )
    return sources
