"""assay: score answers to questions against golden answers, and say how far each number can be trusted.

The public API is what this module exports; everything else is private. Each name loads its module on
first use, so ``import assay`` (and ``assay --help``) cost no scoring stack: ``from assay import score``
loads what scoring needs, when it is asked for.
"""

from __future__ import annotations

from ._lazy import lazy_names
from ._version import __version__ as __version__

# Each module -> the public names it defines.
_NAMES = {
    ".agreement": ("agree",),
    ".comparison": ("compare", "compare_files", "load_scored"),
    ".errors": ("AssayError", "InputError", "OutputError", "UsageError"),
    ".extras": ("MissingExtra",),
    ".gate": ("Gate", "GateSettings", "check_gates"),
    ".harness.systems.scripted": ("ScriptedSystem",),
    ".judges.metric": ("JudgeSetup",),
    ".judges.rubric": ("Rubric", "register_rubric"),
    ".judges.scripted": ("ScriptedJudge",),
    ".metric": ("RunView",),
    ".parallel": ("ScoredFile", "score_file"),
    ".parts": ("Citation", "Context", "Gold", "Reply"),
    ".records": ("ColumnMap", "Dataset", "Record", "load_records"),
    ".scale.columnar": ("BatchScorer", "score_batch", "summary_of"),
    ".scale.on_ray": ("score_on_ray",),
    ".report.html": ("render_html", "write_html"),
    ".report.json": ("summary_dict", "write_summary_json"),
    ".report.markdown": ("render_markdown", "write_markdown"),
    ".report.model": ("Report", "build_report"),
    ".report.plot": ("accuracy_chart_svg", "write_plot"),
    ".report.rows": ("row_traces", "verdict_rows", "write_traces", "write_verdicts"),
    ".report.text": ("render_text",),
    ".scorers": ("SCORERS", "Evidence", "MetricScores", "Outcome", "Scorer", "Seen"),
    ".scorers.row": ("RowVerdict", "row_scorer"),
    ".scoring": ("ScoreOptions", "ScoreRun", "available_metrics", "score", "signature"),
    ".summary": ("Agreement", "IntervalMethod", "MetricSummary", "Summary", "Tally", "merge_summaries"),
    ".trace": ("Trace", "explain", "traces"),
}
_MODULES = {name: module for module, names in _NAMES.items() for name in names}
__getattr__, _lazy_dir = lazy_names(__name__, _MODULES)


def __dir__() -> list[str]:
    return sorted([*_lazy_dir(), "__version__"])


__all__ = sorted([*_MODULES, "__version__"])
