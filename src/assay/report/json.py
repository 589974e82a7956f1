"""The summary as JSON, carrying its signature (protocols, options, assay version): the report
model's ``as_dict()`` (``report/model.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..outputs import json_document, write_text
from ..summary import Summary
from .model import Report, build_report

if TYPE_CHECKING:
    from ..calibration import MetricCalibration


def summary_dict(summary: Summary | Report) -> dict[str, Any]:
    """The JSON summary as a dict: ``build_report(summary).as_dict()``, in one call (kept for the many
    callers that hold a Summary and want its numbers, not a rendering)."""
    report = summary if isinstance(summary, Report) else build_report(summary)
    return report.as_dict()


def write_summary_json(
    report: Report, path: str | Path, calibration: Mapping[str, MetricCalibration] | None = None
) -> Path:
    """The summary, with each metric's accuracy calibrated on human labels under "calibrated" when
    there is one."""
    document = report.as_dict()
    if calibration is not None:
        document["calibrated"] = {name: found.as_dict() for name, found in calibration.items()}
    return write_text(path, json_document(document))
