"""The summary as JSON, carrying its signature (protocols, options, assay version): the report
model's ``as_dict()`` (``report/model.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..outputs import json_document, write_text
from ..summary import Summary
from .model import Report, build_report


def summary_dict(summary: Summary | Report) -> dict[str, Any]:
    """The JSON summary as a dict: ``build_report(summary).as_dict()``, in one call (kept for the many
    callers that hold a Summary and want its numbers, not a rendering)."""
    report = summary if isinstance(summary, Report) else build_report(summary)
    return report.as_dict()


def write_summary_json(report: Report, path: str | Path) -> Path:
    return write_text(path, json_document(report.as_dict()))
