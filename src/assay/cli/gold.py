"""assay gold build: a gold set from curated facts and their source documents, with the report of it.

The flags for the facts, the sources and the verification are shared with ``assay sources map``
(``add_inputs`` and ``verify``), so both commands verify claims the same way."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError, UsageError
from ..harness.checks import DEFAULT_MIN_CONFIDENCE
from ..harness.facts import ADAPTERS
from ..outputs import check_outputs, json_document, write_text
from ..terminal import one_line
from . import flags, gold_coverage
from .written import write_outputs

if TYPE_CHECKING:  # the PDF libraries load when a command runs, not for every command's --help
    from ..harness.claims import Verification
    from ..harness.templates import Templates


def add_parsers(commands: flags.Commands) -> None:
    gold = commands.add_parser("gold", help="build gold sets from curated facts and their source documents")
    actions = gold.add_subparsers(title="actions", metavar="ACTION", required=True, parser_class=type(gold))
    builder = actions.add_parser(
        "build",
        help="verify every claim's quote in its document and write the gold items",
        description="Verify every claim's quote in its source document, and write one gold item per found "
        "claim and question variant. Without --templates each field gets one question from its name and "
        "an answer type inferred from its value, in the facts' own group of the field; `assay gold "
        "templates` writes those questions as a templates file to edit.",
    )
    add_inputs(builder)
    builder.add_argument("--refusals", action="store_true", help="add the template file's refusal items")
    builder.add_argument(
        "--out", metavar="FILE", required=True, help="the gold items (JSON Lines, sorted by id)"
    )
    builder.add_argument("--report", metavar="FILE", help="write the report (every claim's verdict) as JSON")
    builder.add_argument("--markdown", metavar="FILE", help="write the report as Markdown")
    builder.set_defaults(run=run_build)
    writer = actions.add_parser(
        "templates",
        help="write a starting templates file from the facts, one entry per field, for the team to edit",
        description="Write a templates file (TOML, or YAML for a .yaml/.yml --out) with one entry per field "
        "of the facts: the question and answer type gold build infers without templates, and the category "
        "from the facts' own grouping. Unedited, it builds the same gold set; edit it from there.",
    )
    flags.add_debug(writer)
    writer.add_argument(
        "--facts", metavar="DIR", required=True, type=Path, help="the folder of facts files (*.json)"
    )
    writer.add_argument(
        "--adapter", choices=sorted(ADAPTERS), help="the facts files' layout (default: detected per file)"
    )
    writer.add_argument(
        "--out", metavar="FILE", help="the templates file (.toml, .yaml or .yml; default: standard output)"
    )
    writer.add_argument("--force", action="store_true", help="replace --out if it exists")
    writer.set_defaults(run=run_templates)
    gold_coverage.add_parser(actions)


def add_inputs(parser: argparse.ArgumentParser) -> None:
    """The facts, sources, templates and verification flags (gold build and sources map)."""
    flags.add_debug(parser)
    parser.add_argument(
        "--facts", metavar="DIR", required=True, type=Path, help="the folder of facts files (*.json)"
    )
    parser.add_argument(
        "--sources", metavar="DIR", required=True, type=Path, help="the folder of PDFs and text files"
    )
    parser.add_argument("--templates", metavar="FILE", type=Path, help="question templates (TOML or YAML)")
    parser.add_argument(
        "--adapter", choices=sorted(ADAPTERS), help="the facts files' layout (default: detected per file)"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="no fuzzy quote matching, and warnings (and flagged facts files) are errors: exit 1",
    )
    parser.add_argument(
        "--min-confidence",
        metavar="LEVEL",
        default=DEFAULT_MIN_CONFIDENCE,
        help="warn about claims whose confidence is below this: low, medium, high or a number (%(default)s)",
    )
    flags.add_page_cache(parser)


def verify(args: argparse.Namespace) -> tuple[Verification, Templates | None]:
    """Read the facts, sources and templates the flags name, and verify every claim."""
    from ..documents import load_sources
    from ..harness.claims import VerifyOptions, verify_claims
    from ..harness.facts import load_facts
    from ..harness.templates import load_templates

    templates = load_templates(args.templates) if args.templates else None
    facts = load_facts(args.facts, adapter=args.adapter)
    sources = load_sources(args.sources, cache_dir=flags.page_cache(args))
    if not sources and not sources.problems:  # a mistyped folder, not a corpus with nothing in it
        raise InputError(
            "the sources folder holds no PDF or text file",
            where=str(args.sources),
            fix="give --sources the folder of the documents the facts quote",
        )
    options = VerifyOptions(fuzzy=not args.strict, min_confidence=_confidence(args.min_confidence))
    return verify_claims(facts, sources, templates=templates, options=options), templates


def _confidence(text: str) -> str | float:
    if text.casefold() in ("low", "medium", "high"):
        return text.casefold()
    try:
        return float(text)
    except ValueError:
        raise UsageError(
            f"--min-confidence {text!r} is not a confidence",
            fix="give low, medium, high or a number in [0, 1]",
        ) from None


def check_outside_inputs(outputs: dict[str, str | Path | None], args: argparse.Namespace) -> None:
    """Refuse an output that would be read back as an input: a .json file in the facts folder (a
    facts file, or a report read as one on the next run), a PDF or text file under the sources folder
    (a document). Other outputs there (gold.jsonl next to the facts) are harmless."""
    from ..documents.sources import PDF_SUFFIXES, TEXT_SUFFIXES

    facts, sources = Path(os.path.realpath(args.facts)), Path(os.path.realpath(args.sources))
    for flag, path in outputs.items():
        if not path:
            continue
        written = Path(os.path.realpath(path))
        suffix = written.suffix.casefold()
        if written.parent == facts and suffix == ".json":
            folder_flag, folder, kind = "--facts", args.facts, "a facts file"
        elif written.is_relative_to(sources) and suffix in PDF_SUFFIXES | TEXT_SUFFIXES:
            folder_flag, folder, kind = "--sources", args.sources, "a source document"
        else:
            continue
        raise UsageError(
            f"{flag} would write into the {folder_flag} folder, where the file is read as {kind}",
            where=f"{flag} {path}",
            fix=f"write {flag} outside {folder}",
        )


def run_build(args: argparse.Namespace) -> int:
    from ..harness.claims import has_errors
    from ..harness.gold import build_gold, gold_jsonl, gold_report, report_markdown

    outputs = {"--out": args.out, "--report": args.report, "--markdown": args.markdown}
    check_outputs(outputs, {"--templates": args.templates})
    check_outside_inputs(outputs, args)
    if args.refusals and not args.templates:
        raise UsageError(
            "--refusals needs refusal templates", fix="give --templates a file with [[refusals]]"
        )
    verification, templates = verify(args)
    build = build_gold(verification, templates, refusals=args.refusals)
    report = gold_report(build)
    print_counts("assay gold build", report)
    print(f"gold items: {report['items']['total']} ({report['items']['refusals']} refusals)")
    write_outputs(
        [
            (args.out, lambda: gold_jsonl(build)),
            (args.report, lambda: json_document(report)),
            (args.markdown, lambda: report_markdown(report) + "\n"),
        ]
    )
    return EXIT_FINDINGS if has_errors(verification, strict=args.strict) else EXIT_OK


TEMPLATE_SUFFIXES = (".toml", ".yaml", ".yml")


def run_templates(args: argparse.Namespace) -> int:
    from ..harness.facts import load_facts
    from ..harness.template_writing import templates_text

    out = Path(args.out) if args.out is not None else None
    if out is not None:
        _check_templates_out(out, force=args.force)
        check_outputs({"--out": out}, {})
    facts = load_facts(args.facts, adapter=args.adapter)
    text = templates_text(facts, yaml=out is not None and out.suffix.casefold() != ".toml")
    if out is None:
        sys.stdout.write(text)
        return EXIT_OK
    write_text(out, text)
    print(f"wrote {one_line(str(out))}: templates for the fields of {len(facts)} facts files")
    return EXIT_OK


def _check_templates_out(out: Path, *, force: bool) -> None:
    """The file is a templates file by its suffix, and an existing one (a team's edits) is kept unless
    --force says to replace it."""
    if out.suffix.casefold() not in TEMPLATE_SUFFIXES:
        raise UsageError(
            f"--out {one_line(str(out))} is not a templates file's name",
            where=f"--out {out}",
            fix="name it .toml, .yaml or .yml",
        )
    if out.exists() and not force:
        raise UsageError(
            "the templates file exists (the team's edits would be lost)",
            where=f"--out {out}",
            fix="give --force to replace it, or another --out",
        )


def print_counts(command: str, report: dict[str, Any]) -> None:
    """Claims per document and in total, by status and by match level; flags and warnings."""
    counts = report["counts"]
    total = counts["total"]
    print(
        f"{command}: {total['claims']} claims in {len(report['facts_files'])} facts files, "
        f"{len(report['documents'])} source documents"
    )
    header = [*total["by_status"], *total["by_level"]]
    width = max(len(name) for name in [*counts["by_document"], "total"])
    print(f"  {'document':<{width}}  " + " ".join(header))
    for name, tally in [*counts["by_document"].items(), ("total", total)]:
        cells = [
            f"{n:>{len(h)}}"
            for h, n in zip(header, [*tally["by_status"].values(), *tally["by_level"].values()])
        ]
        print(f"  {one_line(name):<{width}}  " + " ".join(cells))
    print_sources(report)
    print_flags(report)
    for claim in report["claims"]:
        for warning in claim["warnings"]:
            where = f"{claim['document']}: {claim['field']}"
            print(f"warning: {one_line(where)}: {warning['code']}: {one_line(warning['message'])}")
    warnings = ", ".join(f"{code} {n}" for code, n in total["warnings"].items())
    print(f"warnings: {warnings}")


def print_sources(report: dict[str, Any]) -> None:
    """The source files that gave no text: unreadable, pages without text (scans), other kinds of file
    (a folder of only unreadable files would otherwise show as "0 source documents", and no word why)."""
    for problem in report["source_problems"]:
        print(f"unreadable: {one_line(problem['path'])}: {one_line(problem['reason'])}")
    for document in report["documents"]:
        if document["empty_pages"]:
            pages = ", ".join(map(str, document["empty_pages"]))
            print(f"no text (a scan? OCR it): {one_line(document['path'])}: pages {pages}")
    if report["ignored_files"]:
        ignored = report["ignored_files"]
        shown = ", ".join(one_line(name) for name in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
        print(f"ignored (not a PDF or text file): {len(ignored)}: {shown}")


def print_flags(report: dict[str, Any]) -> None:
    """The flagged facts files."""
    for flag in report["file_flags"]:
        print(f"flagged: {one_line(flag['facts_file'])}: {flag['code']}: {one_line(flag['message'])}")
