"""assay plot: per-domain accuracy with 95% intervals, drawn from a summary written by --json."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import EXIT_OK, UsageError
from ..outputs import check_outputs
from ..report.model import report_from_summary
from ..report.plot import summary_problem, write_plot
from ..terminal import one_line
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    plotter = commands.add_parser("plot", help="draw per-domain accuracy with 95%% intervals (SVG, PNG)")
    plotter.add_argument("--summary", required=True, metavar="FILE", help="a summary written by --json")
    plotter.add_argument(
        "--out", required=True, metavar="FILE", help="the chart: .svg, or .png/.pdf (assay[plot])"
    )
    plotter.add_argument("--metric", action="append", help="a metric to draw; repeatable (default: all)")
    flags.add_debug(plotter)
    plotter.set_defaults(run=run_plot)


def run_plot(args: argparse.Namespace) -> int:
    check_outputs({"--out": args.out}, {"--summary": args.summary})
    try:
        summary = json.loads(Path(args.summary).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot read the summary ({exc})",
            where=args.summary,
            fix="give a file written by assay score --json",
        ) from None
    problem = summary_problem(summary)
    if problem is not None:
        raise UsageError(
            f"not a summary of assay score: {problem}",
            where=args.summary,
            fix="give a file written by assay score --json",
        )
    written = write_plot(args.out, report_from_summary(summary), args.metric)
    print(f"assay: wrote {one_line(str(written))}", file=sys.stderr)
    return EXIT_OK
