"""assay agree: score a file, then measure each metric's agreement with human labels, and calibrate
its accuracy on them. The label flags and the calibrated report are shared with assay score."""

from __future__ import annotations

import argparse
import collections
import json
import sys
from typing import TYPE_CHECKING

from .. import stats
from ..agreement import DEFAULT_POSITIVE, MetricAgreement, agree, truth_of, unmatched_labels
from ..errors import EXIT_OK, UsageError
from ..outputs import check_outputs, json_document, write_text
from ..report.text import render_agreement
from ..scoring import ScoreRun
from ..terminal import one_line
from . import flags
from .labels import (
    LABEL_COLUMN,
    add_labels,
    calibration_section,
    check_labels,
    labels_of,
    print_section,
    wants_labels,
)
from .score import score_from_flags

if TYPE_CHECKING:
    from ..calibration import FileLabels


def add_parsers(commands: flags.Commands) -> None:
    agreer = commands.add_parser(
        "agree",
        help="agreement with human labels, accuracy calibrated on them, rows to label next",
    )
    flags.add_scoring_run(agreer)
    flags.add_metric(agreer)
    add_labels(agreer)
    suggesting = agreer.add_argument_group("rows to label next")
    suggesting.add_argument(
        "--suggest",
        type=flags.whole_number(1, "suggest at least 1 row"),
        metavar="N",
        help="draw about N rows to label next, favouring those whose labels narrow the calibrated "
        "interval most (the metrics split on them), each domain covered; written to --suggest-out "
        "with each row's chance of being drawn, which the calibration on their labels uses",
    )
    suggesting.add_argument(
        "--suggest-out",
        metavar="FILE",
        help="the drawn rows (JSONL, in --out's form), a file assay view opens for marking",
    )
    suggesting.add_argument(
        "--suggest-seed",
        type=flags.seed,
        default=stats.DEFAULT_SEED,
        metavar="N",
        help="the draw's seed (default: %(default)s); equal seeds draw equal rows",
    )
    agreer.set_defaults(run=run_agree)


def run_agree(args: argparse.Namespace) -> int:
    _check_suggest(args)
    if not wants_labels(args) and not args.suggest:
        raise UsageError(
            "no human labels named", fix="name them with --human COLUMN or --labels FILE, or ask --suggest N"
        )
    if wants_labels(args):
        check_labels(args)  # a mistake fails before the work
    scored, _ = score_from_flags(args, whole=True, report=not wants_labels(args))
    assert scored.run is not None  # whole=True: scored in one process
    found = labels_of(scored.run, args) if wants_labels(args) else None
    if found is not None:
        report_agreement(scored.run, found, args)
        if args.json:
            print(f"assay: wrote the agreement to {one_line(args.json)}", file=sys.stderr)
    if args.suggest:
        write_suggestion(scored.run, found[0] if found else None, args)
    return EXIT_OK


def _check_suggest(args: argparse.Namespace) -> None:
    if args.suggest and not args.suggest_out:
        raise UsageError(
            "--suggest writes the drawn rows to a file, and none is named", fix="add --suggest-out FILE"
        )
    if args.suggest_out and not args.suggest:
        raise UsageError(
            "--suggest-out names the file of drawn rows, and nothing is drawn", fix="add --suggest N"
        )
    if args.suggest_out:
        check_outputs(
            {"--suggest-out": args.suggest_out, "--out": args.out, "--json": args.json},
            {"--responses": args.responses, "--labels": args.labels},
        )


def report_agreement(
    run: ScoreRun, labelled: tuple[FileLabels, str], args: argparse.Namespace
) -> list[MetricAgreement]:
    positive, negative = args.positive or DEFAULT_POSITIVE, args.negative or ()
    found_labels, source = labelled
    labels = found_labels.labels
    unmatched = unmatched_labels(run, args.human or LABEL_COLUMN, positive, negative, labels=labels)
    if unmatched is not None:
        print(f"assay: warning: {one_line(unmatched)}", file=sys.stderr)
    found = agree(run, source, positive, negative, labels=labels)
    signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
    sys.stdout.write(render_agreement(found, source, signatures))
    section = calibration_section(run, found_labels, source, args)
    print_section(section)
    if args.json:
        metrics = {
            m.metric: {"signature": signatures[m.metric], **m.as_dict(), "calibrated": c.as_dict()}
            for m, c in zip(found, section.calibration, strict=True)
        }
        document = {"source": run.dataset.source, "human": source, "metrics": metrics}
        write_text(args.json, json_document(document))
    return found


def write_suggestion(run: ScoreRun, labelled: FileLabels | None, args: argparse.Namespace) -> None:
    """Draw the rows to label next and write them, in --out's JSONL form, with their chance of being
    drawn and the draw's size."""
    from ..report.rows import verdict_rows
    from ..suggest import DRAW_SIZE_COLUMN, DRAWN_COLUMN, draw_rows

    shared = [row_id for row_id, rows in collections.Counter(r.id for r in run.records).items() if rows > 1]
    if shared:  # a label is joined to its row by id: one on a shared id could not be put back
        raise UsageError(
            f"labels are joined to the rows by id, and {len(shared)} id(s) name several rows "
            f"(first: {shared[0]!r}), so the drawn rows' labels could not be put back on them",
            where=run.dataset.source,
            fix="give the rows unique ids before drawing rows to label",
        )
    truth = None
    if labelled is not None:
        truth = truth_of(labelled.labels, args.positive or DEFAULT_POSITIVE, args.negative or ())
    draw = draw_rows(list(run.metrics.values()), run.records, args.suggest, truth, args.suggest_seed)
    chosen = set(draw.rows)
    lines = []
    for index, row in enumerate(verdict_rows(run, trace=False)):
        if index in chosen:
            row |= {DRAWN_COLUMN: draw.probabilities[index], DRAW_SIZE_COLUMN: len(draw.rows)}
            lines.append(json.dumps(row, ensure_ascii=False, default=str))
    write_text(args.suggest_out, "".join(line + "\n" for line in lines))
    domains = len({run.records[i].domain for i in draw.rows})
    print(
        f"assay: drew {len(draw.rows)} rows to label (about {args.suggest} asked; {domains} domain(s)) "
        f"into {one_line(args.suggest_out)}; mark them in assay view, then calibrate with "
        "assay agree --labels on the labels it saves beside them",
        file=sys.stderr,
    )
