"""assay explain: how each metric decided one row, with its traces."""

from __future__ import annotations

import argparse
import sys

from ..errors import EXIT_OK
from ..records import load_records
from ..report.text import render_explanation
from ..trace import explain
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    explainer = commands.add_parser("explain", help="show how each metric decided one row, with traces")
    explainer.add_argument(
        "--responses",
        required=True,
        metavar="FILE",
        help="CSV, TSV, JSONL, JSON array, Parquet or Excel (.xlsx)",
    )
    explainer.add_argument("--id", required=True, dest="row_id", metavar="ID", help="the row's id")
    flags.add_metric(explainer)
    flags.add_scoring_options(explainer)
    flags.add_columns(explainer)
    explainer.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    dataset = load_records(
        args.responses, columns=flags.column_map(args), allow_duplicate_ids=True, sheet=args.sheet
    )
    record, traces = explain(dataset, args.row_id, args.metric, flags.score_options(args))
    sys.stdout.write(render_explanation(record, traces))
    return EXIT_OK
