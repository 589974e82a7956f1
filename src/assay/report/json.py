"""The summary as JSON, carrying its signature (protocols, options, assay version)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .._version import __version__
from ..outputs import write_text
from ..signature import info_of
from ..summary import IntervalMethod, JudgeSummary, Summary, Tally


def _tally(tally: Tally, soft_credit: bool, intervals: IntervalMethod) -> dict[str, Any]:
    """A tally's counts and accuracy with its 95% interval; soft passes (0 without --inflection), and the
    accuracy counting them for a metric that has them."""
    soft = {"soft": tally.soft} | ({"accuracy_with_soft": tally.accuracy_with_soft} if soft_credit else {})
    interval = intervals.of(tally)
    return {
        "n": tally.n,
        "passed": tally.passed,
        "failed": tally.failed,
        "blank": tally.blank,
        "unscored": tally.unscored,
        "accuracy": tally.accuracy,
        "interval": None if interval is None else interval.as_dict(),
        **soft,
        **({} if not tally.graded else {"mean": tally.mean}),
    }


def _judge(judge: JudgeSummary) -> dict[str, Any]:
    found = asdict(judge)
    found["usage"] = {
        label: asdict(usage) | {"models": sorted(usage.models)} for label, usage in judge.usage.items()
    }
    found["agreement"] = {
        name: {"both_scored": both, "agree": agree} for name, (both, agree) in judge.agreement.items()
    }
    del found["notes"]  # in the warnings, with the flags read off the verdicts
    found["top_rationale"] = {
        label: {"rationale": text, "rows": rows} for label, (text, rows) in judge.top_rationale.items()
    }
    found["warnings"] = list(judge.warnings)
    return found


def summary_dict(summary: Summary) -> dict[str, Any]:
    agreement = summary.agreement
    return {
        "signature": {
            "protocols": {name: metric.signature for name, metric in summary.metrics.items()},
            "options": summary.options,
            "intervals": summary.intervals.signature(),
            "limit": summary.limit,
            "assay": __version__,
        },
        "source": summary.source,
        "rows": {
            "total": summary.total,
            "blank": summary.blank,
            "empty_golden_ids": list(summary.empty_golden_ids),
            "null_cells": {column: list(ids) for column, ids in summary.null_cells.items()},
        },
        "metrics": {
            name: {
                "signature": metric.signature,
                **({"signature_info": dict(info)} if (info := info_of(metric.signature)) else {}),
                "combined": _tally(metric.combined, metric.soft_credit, summary.intervals),
                "domains": {
                    domain: _tally(t, metric.soft_credit, summary.intervals)
                    for domain, t in metric.domains.items()
                },
            }
            for name, metric in summary.metrics.items()
        },
        "judge": None if summary.judge is None else _judge(summary.judge),
        "agreement": None
        if agreement is None
        else {
            "overall": dict(agreement.overall),
            "domains": {domain: dict(counts) for domain, counts in agreement.domains.items()},
            "examples": {b: [asdict(e) for e in found] for b, found in agreement.examples.items()},
            "review_ids": list(agreement.review_ids),
        },
    }


def write_summary_json(summary: Summary, path: str | Path) -> Path:
    return write_text(path, json.dumps(summary_dict(summary), ensure_ascii=False, indent=2) + "\n")
