"""The sections a report holds besides a scored file's own (its metrics, the judge, the agreement, the
rows to review and the table of questions): each a typed part of the one ``Report`` (``Report.sections``,
in order), built by whoever has its data and laid out by the renderers where it belongs.

- ``RunResults``: a harness run's own numbers, built by the harness (``harness.results.run_report``), so
  nothing under ``report/`` reads the harness: results.md (``render_run_markdown``) and the run's
  sections of results.html (``render_html``) are renderings of it.
- ``Comparison``: two scored files compared (``assay compare``), a section of the HTML report with a
  chart of the differences.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RunResults:
    """A harness run's numbers as results.json holds them (``harness.results.results_dict``): the
    headline, the gate, the outcome classes, the rollups per category, scope and route, the signatures
    and every item."""

    results: Mapping[str, Any]


@dataclass(frozen=True)
class Comparison:
    """Two scored files compared (``assay.compare(a, b).as_dict()``): per metric, per domain and
    combined, B - A with its interval and p-value."""

    comparison: Mapping[str, Any]


Section = RunResults | Comparison
