"""Each metric's accuracy calibrated on human labels (``calibration``) as a section of the report: the
printed report, the JSON summary (under "calibrated"), the Markdown and the HTML report say it alike,
beside each metric's own accuracy."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..calibration import Calibrated, MetricCalibration
from ..summary import Summary, Tally
from ..terminal import one_line
from ._section import BODY, HtmlPart
from .format import DASH, percent, text_table
from .markup import cell, element, markdown_table, table

KEY = "calibrated"
HEADER = ("scope", "accuracy", "calibrated", "95% CI", "labelled", "narrower", "method")


@dataclass(frozen=True)
class CalibratedSection:
    """The calibration of each metric (`calibration`), its own accuracy by scope (`accuracies`), where
    the labels were read (`source`), whether a draw chose the labelled rows, and what to note."""

    calibration: tuple[MetricCalibration, ...]
    accuracies: Mapping[str, Mapping[str, Tally]]  # metric -> scope ("all", a domain) -> its tally
    source: str
    drawn: bool = False
    notes: tuple[str, ...] = ()
    place = BODY
    key = KEY

    @classmethod
    def of(
        cls,
        calibration: Sequence[MetricCalibration],
        summary: Summary,
        source: str,
        *,
        drawn: bool = False,
        notes: Sequence[str] = (),
    ) -> CalibratedSection:
        accuracies = {
            name: {"all": metric.combined, **metric.domains} for name, metric in summary.metrics.items()
        }
        return cls(tuple(calibration), accuracies, source, drawn, tuple(notes))

    @property
    def by_metric(self) -> dict[str, MetricCalibration]:
        return {found.metric: found for found in self.calibration}

    def as_dict(self) -> Any:
        return {found.metric: found.as_dict() for found in self.calibration}

    def warnings(self) -> Sequence[str]:
        return ()  # its notes are said in the section itself

    def text_lines(self, detail: bool) -> list[str]:
        lines = [*self._lead(), ""]
        for found in self.calibration:
            lines += [found.metric, *text_table(list(HEADER), self._rows(found)), ""]
        return lines + [one_line(note) for note in self.notes]

    def markdown_lines(self) -> list[str]:
        lines = [
            "## Accuracy calibrated on human labels",
            "",
            " ".join(cell(line) for line in self._lead()),
            "",
        ]
        rows = [
            [cell(found.metric), *map(cell, row)] for found in self.calibration for row in self._rows(found)
        ]
        lines += markdown_table(["metric", *HEADER], rows)
        return lines + [""] + [cell(note) for note in self.notes]

    def html_parts(self) -> list[HtmlPart]:
        rows = [
            "<tr>" + "".join(element("td", text) for text in (found.metric, *row)) + "</tr>"
            for found in self.calibration
            for row in self._rows(found)
        ]
        lead = "".join(element("p", line) for line in (*self._lead(), *self.notes))
        body = element("h2", "Accuracy calibrated on human labels") + lead + table(["metric", *HEADER], rows)
        return [HtmlPart("calibrated", "Calibrated", f'<section id="calibrated">{body}</section>')]

    def html_data(self) -> str:
        return ""  # its numbers are in the summary's data

    def _lead(self) -> list[str]:
        design = (
            "labels of rows drawn by assay agree --suggest, each weighted by its chance of being drawn"
            if self.drawn
            else "prediction-powered: the labelled rows must be a random sample of the rows"
        )
        return [
            f"accuracy calibrated on the human labels in {self.source}: the share people would call correct",
            f"({design})",
        ]

    def _rows(self, found: MetricCalibration) -> list[list[str]]:
        own = self.accuracies.get(found.metric, {})
        scopes = [("all", found.overall), *found.domains.items()]
        return [
            [scope if scope == "all" else f"domain {scope or '(none)'}", percent(_accuracy(own.get(scope))),
             *_calibrated_cells(calibrated)]
            for scope, calibrated in scopes
        ]  # fmt: skip


def _accuracy(tally: Tally | None) -> float | None:
    return None if tally is None else tally.accuracy


def _calibrated_cells(found: Calibrated) -> list[str]:
    labelled = f"{found.labelled} of {found.labelled + found.unlabelled}"
    if found.interval is None:
        return [DASH, found.reason or DASH, labelled, DASH, DASH]
    narrower = DASH if found.narrowing is None else percent(found.narrowing)
    interval = f"{percent(found.interval.low)}{DASH}{percent(found.interval.high)}"
    return [percent(found.estimate), interval, labelled, narrower, found.method]
