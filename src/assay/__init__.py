"""assay: score answers to questions against golden answers, and say how far each number can be trusted.

The public API is what this module exports; everything else is private.
"""

from ._version import __version__
from .errors import AssayError, InputError, UsageError
from .records import ColumnMap, Dataset, Record, load_records
from .report.json import summary_dict, write_summary_json
from .report.rows import verdict_rows, write_traces, write_verdicts
from .report.text import render_text
from .scorers import SCORERS, MetricScores, Outcome, Scorer
from .scoring import ScoreOptions, ScoreRun, available_metrics, score, signature
from .summary import Agreement, MetricSummary, Summary, Tally
from .trace import Trace, explain, traces

__all__ = [
    "SCORERS",
    "Agreement",
    "AssayError",
    "ColumnMap",
    "Dataset",
    "InputError",
    "MetricScores",
    "MetricSummary",
    "Outcome",
    "Record",
    "ScoreOptions",
    "ScoreRun",
    "Scorer",
    "Summary",
    "Tally",
    "Trace",
    "UsageError",
    "__version__",
    "available_metrics",
    "explain",
    "load_records",
    "render_text",
    "score",
    "signature",
    "summary_dict",
    "traces",
    "verdict_rows",
    "write_summary_json",
    "write_traces",
    "write_verdicts",
]
