"""assay: score answers to questions against golden answers, and say how far each number can be trusted.

The public API is what this module exports; everything else is private.
"""

from ._version import __version__
from .agree import agree
from .compare import compare, compare_files, load_scored
from .errors import AssayError, InputError, OutputError, UsageError
from .gate import Gate, check_gates
from .parts import Citation, Context, Gold, Reply
from .records import ColumnMap, Dataset, Record, load_records
from .report.html import render_html, write_html
from .report.json import summary_dict, write_summary_json
from .report.markdown import render_markdown, write_markdown
from .report.model import Report, build_report
from .report.plot import accuracy_chart_svg, write_plot
from .report.rows import row_traces, verdict_rows, write_traces, write_verdicts
from .report.text import render_text
from .scorers import SCORERS, Evidence, MetricScores, Outcome, Scorer, Seen
from .scorers.row import RowVerdict, row_scorer
from .scoring import ScoreOptions, ScoreRun, available_metrics, score, signature
from .summary import Agreement, IntervalMethod, MetricSummary, Summary, Tally
from .trace import Trace, explain, traces

__all__ = [
    "SCORERS",
    "Agreement",
    "AssayError",
    "Citation",
    "ColumnMap",
    "Context",
    "Dataset",
    "Evidence",
    "Gate",
    "Gold",
    "InputError",
    "IntervalMethod",
    "MetricScores",
    "MetricSummary",
    "Outcome",
    "OutputError",
    "Record",
    "Reply",
    "Report",
    "RowVerdict",
    "ScoreOptions",
    "ScoreRun",
    "Scorer",
    "Seen",
    "Summary",
    "Tally",
    "Trace",
    "UsageError",
    "__version__",
    "accuracy_chart_svg",
    "agree",
    "available_metrics",
    "build_report",
    "check_gates",
    "compare",
    "compare_files",
    "explain",
    "load_records",
    "load_scored",
    "render_html",
    "render_markdown",
    "render_text",
    "row_scorer",
    "row_traces",
    "score",
    "signature",
    "summary_dict",
    "traces",
    "verdict_rows",
    "write_html",
    "write_markdown",
    "write_plot",
    "write_summary_json",
    "write_traces",
    "write_verdicts",
]
