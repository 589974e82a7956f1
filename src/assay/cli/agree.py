"""assay agree: score a file, then measure each metric's agreement with human labels, and calibrate
its accuracy on them. The label flags and the calibrated report are shared with assay score."""

from __future__ import annotations

import argparse
import sys

from ..agreement import (
    DEFAULT_POSITIVE,
    MetricAgreement,
    agree,
    unmatched_labels,
)
from ..errors import EXIT_OK, UsageError
from ..outputs import json_document, write_text
from ..report.text import render_agreement, render_calibration
from ..scoring import ScoreRun
from ..terminal import one_line
from . import flags
from .labels import LABEL_COLUMN, add_labels, calibrate_on, check_labels, labels_of, set_apart, wants_labels
from .score import score_from_flags


def add_parsers(commands: flags.Commands) -> None:
    agreer = commands.add_parser("agree", help="measure each metric's agreement with human labels")
    flags.add_scoring_run(agreer)
    flags.add_metric(agreer)
    add_labels(agreer)
    agreer.set_defaults(run=run_agree)


def run_agree(args: argparse.Namespace) -> int:
    if not wants_labels(args):
        raise UsageError("no human labels named", fix="name them with --human COLUMN or --labels FILE")
    check_labels(args)  # a mistake fails before the work
    scored = score_from_flags(args, whole=True, report=False)  # --json here is the agreement, written below
    assert scored.run is not None  # whole=True: scored in one process
    report_agreement(scored.run, args)
    if args.json:
        print(f"assay: wrote the agreement to {one_line(args.json)}", file=sys.stderr)
    return EXIT_OK


def report_agreement(run: ScoreRun, args: argparse.Namespace) -> list[MetricAgreement]:
    positive, negative = args.positive or DEFAULT_POSITIVE, args.negative or ()
    labels, source = labels_of(run, args)
    unmatched = unmatched_labels(run, args.human or LABEL_COLUMN, positive, negative, labels=labels)
    if unmatched is not None:
        print(f"assay: warning: {one_line(unmatched)}", file=sys.stderr)
    found = agree(run, source, positive, negative, labels=labels)
    signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
    sys.stdout.write(render_agreement(found, source, signatures))
    calibration = calibrate_on(run, labels, args)
    sys.stdout.write("\n" + render_calibration(calibration, run.summary, source, set_apart(labels, args)))
    if args.json:
        metrics = {
            m.metric: {"signature": signatures[m.metric], **m.as_dict(), "calibrated": c.as_dict()}
            for m, c in zip(found, calibration, strict=True)
        }
        document = {"source": run.dataset.source, "human": source, "metrics": metrics}
        write_text(args.json, json_document(document))
    return found
