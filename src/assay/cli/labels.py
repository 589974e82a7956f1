"""The human-label flags of assay score and assay agree (where the labels are, and what they mean),
and the accuracy calibrated on them (``calibration``), as both commands report it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..agreement import DEFAULT_POSITIVE, human_labels, label_sets, truth_of
from ..errors import InputError, UsageError
from ..scoring import ScoreRun

if TYPE_CHECKING:
    from ..calibration import FileLabels
    from ..report.calibrated import CalibratedSection

LABEL_COLUMN = "human_label"  # the labels' column in a --labels file (what assay view saves) by default


def add_labels(parser: argparse.ArgumentParser) -> None:
    """--human and --labels (where the labels are), and --positive/--negative (what they mean)."""
    group = parser.add_argument_group("human labels (agreement, and accuracy calibrated on them)")
    group.add_argument(
        "--human",
        metavar="COLUMN",
        help="the column of human labels: in --responses, or in the --labels file "
        f"(default there: {LABEL_COLUMN})",
    )
    group.add_argument(
        "--labels",
        metavar="FILE",
        help="a file of human labels joined to the rows by id (CSV, JSONL, ...: an id column and the "
        "labels' column), such as the human_labels.jsonl assay view saves",
    )
    group.add_argument(
        "--positive",
        action="append",
        metavar="VALUE",
        help=f"a label meaning correct; repeatable (default: {', '.join(DEFAULT_POSITIVE)})",
    )
    group.add_argument(
        "--negative",
        action="append",
        metavar="VALUE",
        help="a label meaning incorrect; repeatable (default: every other label; "
        "when given, other labels are reported apart)",
    )


def wants_labels(args: argparse.Namespace) -> bool:
    """Whether the command line names human labels (and so a calibrated report)."""
    return bool(getattr(args, "human", None) or getattr(args, "labels", None))


def check_labels(args: argparse.Namespace) -> None:
    """The label flags' mistakes, before the work (before a system or a judge is asked)."""
    labels = getattr(args, "labels", None)
    if labels is None and (args.positive or args.negative) and not args.human:
        raise UsageError("--positive and --negative say what human labels mean, and none are named",
                         fix="name them with --human COLUMN or --labels FILE")  # fmt: skip
    if labels is not None and not Path(labels).is_file():  # the reader's own words name --responses
        raise InputError("no such file", where=labels, fix="give --labels the file of human labels")
    label_sets(args.positive or DEFAULT_POSITIVE, args.negative or ())


def labels_of(run: ScoreRun, args: argparse.Namespace) -> tuple[FileLabels, str]:
    """Each row's human label ("" for none), with the draw's probabilities where a draw chose the rows,
    and where they were read, for the report."""
    from ..calibration import FileLabels, labels_from_file

    if args.labels:
        column = args.human or LABEL_COLUMN
        # Rows left out by --limit, or a run's gold items left out (scopes, a changed gold set), may be
        # labelled: their labels are noted, not refused.
        some_rows = bool(getattr(args, "limit", None) or getattr(args, "some_rows_labelled", False))
        found = labels_from_file(args.labels, column, run.records, some_rows=some_rows)
        return found, f"'{column}' of {args.labels}"
    return FileLabels(human_labels(run, args.human), None), f"'{args.human}'"


def calibration_section(
    run: ScoreRun, found: FileLabels, source: str, args: argparse.Namespace
) -> CalibratedSection:
    """Each metric's accuracy calibrated on the labels, as the report's section."""
    from ..calibration import calibrate
    from ..report.calibrated import CalibratedSection

    truth = truth_of(found.labels, args.positive or DEFAULT_POSITIVE, args.negative or ())
    notes = [found.note] if found.note else []
    # Labels neither positive nor negative (with named negatives) give no verdict: counted unlabelled.
    apart = sum(1 for label, verdict in zip(found.labels, truth, strict=True) if label and verdict is None)
    if apart:
        notes.append(
            f"{apart} row(s) with a label set apart (neither positive nor negative) count as unlabelled"
        )
    calibration = calibrate(run.metrics, run.records, truth, found.drawn)
    return CalibratedSection.of(calibration, run.summary, source, drawn=found.drawn is not None, notes=notes)


def calibration_of(run: ScoreRun, args: argparse.Namespace) -> CalibratedSection:
    """The calibration section of the labels the command line names (assay score and assay run)."""
    found, source = labels_of(run, args)
    return calibration_section(run, found, source, args)


def print_section(section: CalibratedSection) -> None:
    """The calibration printed on its own, after a report that does not hold it (agree's, run's)."""
    sys.stdout.write("\n" + "\n".join(section.text_lines(detail=False)).rstrip() + "\n")
