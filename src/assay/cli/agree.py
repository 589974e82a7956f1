"""assay agree: score a file, then measure each metric's agreement with a column of human labels."""

from __future__ import annotations

import argparse
import sys

from ..agreement import DEFAULT_POSITIVE, MetricAgreement, agree, label_sets, unmatched_labels
from ..errors import EXIT_OK
from ..outputs import json_document, write_text
from ..report.text import render_agreement
from ..scoring import ScoreRun
from ..terminal import one_line
from . import flags
from .score import score_from_flags


def add_parsers(commands: flags.Commands) -> None:
    agreer = commands.add_parser("agree", help="measure each metric's agreement with human labels")
    flags.add_scoring_run(agreer)
    flags.add_metric(agreer)
    _add_labels(agreer)
    agreer.set_defaults(run=run_agree)


def _add_labels(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--human", required=True, metavar="COLUMN", help="the column of human labels")
    parser.add_argument(
        "--positive",
        action="append",
        metavar="VALUE",
        help=f"a label meaning correct; repeatable (default: {', '.join(DEFAULT_POSITIVE)})",
    )
    parser.add_argument(
        "--negative",
        action="append",
        metavar="VALUE",
        help="a label meaning incorrect; repeatable (default: every other label; "
        "when given, other labels are reported apart)",
    )


def run_agree(args: argparse.Namespace) -> int:
    label_sets(args.positive or DEFAULT_POSITIVE, args.negative or ())  # a mistake fails before the work
    scored = score_from_flags(args, whole=True, report=False)  # --json here is the agreement, written below
    assert scored.run is not None  # whole=True: scored in one process
    report_agreement(scored.run, args)
    if args.json:
        print(f"assay: wrote the agreement to {one_line(args.json)}", file=sys.stderr)
    return EXIT_OK


def report_agreement(run: ScoreRun, args: argparse.Namespace) -> list[MetricAgreement]:
    positive, negative = args.positive or DEFAULT_POSITIVE, args.negative or ()
    unmatched = unmatched_labels(run, args.human, positive, negative)
    if unmatched is not None:
        print(f"assay: warning: {one_line(unmatched)}", file=sys.stderr)
    found = agree(run, args.human, positive, negative)
    signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
    sys.stdout.write(render_agreement(found, args.human, signatures))
    if args.json:
        metrics = {m.metric: {"signature": signatures[m.metric], **m.as_dict()} for m in found}
        document = {"source": run.dataset.source, "human": args.human, "metrics": metrics}
        write_text(args.json, json_document(document))
    return found
