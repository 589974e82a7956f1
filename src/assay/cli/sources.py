"""assay sources map: every claim -> its source (document and page, or URL) -> its verdict, with counts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import EXIT_FINDINGS, EXIT_OK
from ..outputs import check_outputs, json_document
from ..terminal import one_line
from . import flags
from .gold import (
    add_inputs,
    check_outside_inputs,
    print_flags,
    print_sources,
    verify,
)
from .written import write_outputs


def add_parsers(commands: flags.Commands) -> None:
    sources = commands.add_parser("sources", help="map curated claims to their sources")
    actions = sources.add_subparsers(
        title="actions", metavar="ACTION", required=True, parser_class=type(sources)
    )
    mapper = actions.add_parser(
        "map",
        help="every claim -> its source -> verdict (quote verified, missing, source missing, URL ...)",
        description="Verify every claim's quote in its source document and write the claim-to-source map: "
        "claim -> source (document and page, or URL) -> verdict, with counts per document and overall.",
    )
    add_inputs(mapper)
    mapper.add_argument(
        "--urls",
        metavar="FILE",
        type=Path,
        help="a URL check's verdicts: the --out file of 'assay urls check', or any JSON list of "
        '{"url": ..., "class": ...}; URLs are joined normalised (else they are "not yet checked")',
    )
    mapper.add_argument("--out", metavar="FILE", help="write the map as JSON")
    mapper.add_argument("--markdown", metavar="FILE", help="write the map as Markdown")
    mapper.set_defaults(run=run_map)


def read_url_classes(path: Path) -> dict[str, str]:
    from ..harness.facts import read_json
    from ..harness.source_map import url_classes

    return url_classes(read_json(path, "URL file")[1], where=str(path))


def run_map(args: argparse.Namespace) -> int:
    from ..harness.claims import has_errors, verification_report
    from ..harness.source_map import map_markdown, source_map

    outputs: dict[str, str | Path | None] = {"--out": args.out, "--markdown": args.markdown}
    check_outputs(outputs, {"--urls": args.urls, "--templates": args.templates})
    check_outside_inputs(outputs, args)
    classes = read_url_classes(args.urls) if args.urls else {}
    verification, _ = verify(args)
    mapped = source_map(verification, classes)
    print_map_counts(mapped)
    print_sources(verification_report(verification))
    write_outputs(
        [(args.out, lambda: json_document(mapped)), (args.markdown, lambda: map_markdown(mapped) + "\n")]
    )
    return EXIT_FINDINGS if has_errors(verification, strict=args.strict) else EXIT_OK


def print_map_counts(mapped: dict[str, Any]) -> None:
    counts = mapped["counts"]
    header = list(counts["total"])
    width = max(len(name) for name in [*counts["by_document"], "total"])
    print(f"assay sources map: {len(mapped['claims'])} claims")
    print(f"  {'document':<{width}}  " + " ".join(header))
    for name, tally in [*counts["by_document"].items(), ("total", counts["total"])]:
        cells = [f"{tally.get(code, 0):>{len(code)}}" for code in header]
        print(f"  {one_line(name):<{width}}  " + " ".join(cells))
    uncited = mapped["uncited_urls"]
    if uncited:
        print(
            f"assay: warning: {len(uncited)} URL{'s' if len(uncited) != 1 else ''} of --urls cited by no "
            f"claim: not joined (a check of other files?), e.g. {one_line(uncited[0])}",
            file=sys.stderr,
        )
    print_flags(mapped)
