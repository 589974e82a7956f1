"""Charts of a report (``report/model.py``): per-domain accuracy as a dot with its 95% interval as whiskers.

The SVG is written by hand, so it needs nothing installed and is byte-for-byte the same for the same
report; the HTML report embeds it; ``assay plot`` draws one from a summary file (``report_from_summary``).
PNG and PDF (for papers) are drawn by matplotlib from the same points.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..extras import missing_extra
from ..outputs import check_writable, replacing, write_text
from .model import Report

# Okabe & Ito's palette, told apart by people with any common colour-vision deficiency
# (Okabe and Ito, "Color Universal Design", 2008).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
PLOT_FORMATS = (".svg", ".png", ".pdf")
COMBINED = "combined"
NO_DOMAIN = "(no domain)"

WIDTH = 640
ROW = 18  # height of one metric's line within a group
GROUP_GAP = 10
TOP = 12
AXIS = 30  # room under the plot for the tick labels
VALUE_ROOM = 64  # room right of the plot for the value's text ("+10.0 pp", "100.0%")
CHAR = 7  # rough width of one character at 12px (a generous one), to size the label column
LABEL_CHARS = 36  # a longer domain name is cut, with an ellipsis, and shown whole as a tooltip
PLOT_WIDTH = 380  # the least room for the plot itself; the chart widens when its labels need it
LEGEND_ROW = 18


@dataclass(frozen=True)
class Point:
    metric: str
    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class Group:
    label: str
    domain: str | None  # None for the combined row
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Axis:
    low: float
    high: float
    ticks: tuple[float, ...]
    label: Callable[[float], str]  # a tick's label
    value: Callable[[float], str]  # a point's label, finer than a tick's
    reference: float | None = None  # a line drawn across the plot, e.g. at a difference of zero


PERCENT_AXIS = Axis(0.0, 1.0, (0.0, 0.25, 0.5, 0.75, 1.0), lambda v: f"{v:.0%}", lambda v: f"{v:.1%}")
# A graded metric's mean score (a mean F1): a number from 0 to 1, never written as a percentage of rows.
MEAN_AXIS = Axis(0.0, 1.0, (0.0, 0.25, 0.5, 0.75, 1.0), lambda v: f"{v:g}", lambda v: f"{v:.3f}")


def summary_problem(summary: Any) -> str | None:
    """What keeps a JSON value from being a summary ``assay score --json`` wrote (the first part out of
    place, named by its path), or None: a chart is drawn from these parts only."""
    metrics = summary.get("metrics") if isinstance(summary, dict) else None
    if not isinstance(metrics, dict) or not metrics:
        return "no 'metrics' object with at least one metric"
    for name, metric in metrics.items():
        domains = metric.get("domains") if isinstance(metric, dict) else None
        if not isinstance(domains, dict):
            return f"metrics.{name} has no 'domains' object"
        tallies = [("combined", metric.get("combined")), *((f"domains.{d}", t) for d, t in domains.items())]
        for where, tally in tallies:
            if not _is_tally(tally):
                return f"metrics.{name}.{where} is not a tally (n, accuracy from 0 to 1, interval)"
    return None


def _is_tally(tally: Any) -> bool:
    if not isinstance(tally, dict) or type(tally.get("n")) is not int:
        return False
    interval = tally.get("interval") or {}
    shares = (
        [tally.get("accuracy"), *(interval.get(end) for end in ("low", "high"))]
        if isinstance(interval, dict)
        else [True]
    )
    return all(share is None or (type(share) in (int, float) and 0 <= share <= 1) for share in shares)


def chosen_metrics(report: Report, metrics: Sequence[str] | None) -> list[str]:
    known = list(report.metrics)
    if metrics is None:
        return known
    unknown = [name for name in metrics if name not in report.metrics]
    if unknown or not metrics:
        raise UsageError(
            f"no metric {', '.join(map(repr, unknown))} in this summary" if unknown else "no metric chosen",
            fix=f"choose among {', '.join(known)}",
        )
    return list(metrics)


def accuracy_groups(report: Report, metrics: Sequence[str]) -> list[Group]:
    """One group per domain (in the report's order), then the combined one; in each, a point per metric."""
    domains: dict[str, None] = {}
    for name in metrics:
        domains |= dict.fromkeys(report.metrics[name].domains)
    groups = [
        Group(domain or NO_DOMAIN, domain, tuple(_point(report, name, domain) for name in metrics))
        for domain in domains
    ]
    return [*groups, Group(COMBINED, None, tuple(_point(report, name, None) for name in metrics))]


def _point(report: Report, metric: str, domain: str | None) -> Point:
    found = report.metrics[metric]
    cell = found.combined if domain is None else found.domains.get(domain)
    if cell is None:  # this metric saw no row of the domain
        return Point(metric, None, None, None, 0)
    value, interval = cell.charted()
    low, high = (None, None) if interval is None else (interval.low, interval.high)
    return Point(metric, value, low, high, cell.n)


def is_graded(report: Report, metric: str) -> bool:
    """Whether a metric scores each row from 0 to 1 (a mean F1), so it is charted by its mean."""
    return report.metrics[metric].combined.graded


def charted_quantity(report: Report, metrics: Sequence[str]) -> str:
    """What a chart of `metrics` shows: "mean score" when all are graded, "accuracy" when none is, and
    both, naming the graded ones, when they are mixed."""
    graded = [name for name in metrics if is_graded(report, name)]
    if not graded:
        return "accuracy"
    if len(graded) == len(metrics):
        return "mean score"
    return f"accuracy (mean score for {', '.join(graded)})"


def accuracy_chart_svg(report: Report, metrics: Sequence[str] | None = None) -> str:
    """Per-domain and combined accuracy of each metric (all by default), whiskers for the 95% interval; a
    graded metric's dot is its mean score (``Cell.charted``), on a 0-1 axis when every metric is graded."""
    names = chosen_metrics(report, metrics)
    quantity = charted_quantity(report, names)
    title = f"{quantity[0].upper()}{quantity[1:]} per domain, with 95% intervals" + (
        "" if len(names) > 1 else f": {names[0]}"
    )
    axis = MEAN_AXIS if quantity == "mean score" else PERCENT_AXIS
    return dot_whisker_svg(accuracy_groups(report, names), axis, names, title)


def dot_whisker_svg(groups: Sequence[Group], axis: Axis, series: Sequence[str], title: str) -> str:
    """Groups of horizontal lines, one per series: a dot at the value, whiskers from low to high.

    The chart is sized to its labels: the label column fits the longest (cut at LABEL_CHARS, with a
    tooltip), the plot keeps PLOT_WIDTH beside it, and the legend wraps onto as many rows above the
    plot as it needs, so no text overlaps the plot or runs off the chart."""
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(series)}
    left = max(90, CHAR * max(len(_cut(g.label)) for g in groups) + 16)
    width = max(WIDTH, left + PLOT_WIDTH + VALUE_ROOM)
    legend, legend_height = _legend(series, colour, width) if len(series) > 1 else ([], 0)
    plot = _Frame(left, width - left - VALUE_ROOM, axis)
    body, y = [], TOP + legend_height
    for index, group in enumerate(groups):
        height = len(group.points) * ROW
        if index == len(groups) - 1 and len(groups) > 1:  # the combined group, set off by a rule
            body.append(_line(8, y - GROUP_GAP / 2, width - 8, y - GROUP_GAP / 2, "#bbb", dash=True))
        body.append(_label(left - 8, y + height / 2 + 4, group.label, bold=group.domain is None))
        for row, point in enumerate(group.points):
            body.append(plot.point(point, y + row * ROW + ROW / 2, colour[point.metric], group.domain))
        y += height + GROUP_GAP
    height = y + AXIS
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="assay-chart" width="{width}" height="{height:g}" '
        f'viewBox="0 0 {width} {height:g}" role="img" aria-label="{escape(title)}" '
        'font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height:g}" fill="#fff"/>',
        *plot.grid(TOP + legend_height - 4, y - GROUP_GAP + 4),
        *body,
        *legend,
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "\u2026"


def _label(x: float, y: float, label: str, *, bold: bool) -> str:
    """A group's label, right-aligned to the plot; cut when long, with the whole name as its tooltip."""
    shown = _cut(label)
    text = _text(x, y, shown, anchor="end", bold=bold)
    return text if shown == label else f'<g class="label"><title>{escape(label)}</title>{text}</g>'


@dataclass(frozen=True)
class _Frame:
    """The plotting area: where a value falls across it."""

    left: float
    width: float
    axis: Axis

    def x(self, value: float) -> float:
        share = (value - self.axis.low) / (self.axis.high - self.axis.low)
        return round(self.left + max(0.0, min(1.0, share)) * self.width, 2)

    def grid(self, top: float, bottom: float) -> list[str]:
        found = []
        for tick in self.axis.ticks:
            x = self.x(tick)
            found.append(_line(x, top, x, bottom, "#e3e3e3"))
            found.append(_text(x, bottom + 16, self.axis.label(tick), anchor="middle", fill="#555"))
        if self.axis.reference is not None:
            x = self.x(self.axis.reference)
            found.append(_line(x, top, x, bottom, "#777"))
        return found

    def point(self, point: Point, y: float, colour: str, domain: str | None) -> str:
        where = escape(COMBINED if domain is None else domain)
        data = (
            f'class="point" data-metric="{escape(point.metric)}" data-domain="{where}" '
            f'data-value="{_num(point.value)}" data-low="{_num(point.low)}" data-high="{_num(point.high)}"'
        )
        if point.value is None:
            return f"<g {data}>{_text(self.left + 4, y + 4, 'n/a', fill='#777')}</g>"
        shown = self.axis.value(point.value)
        tip = f"{point.metric}: {shown} (n={point.n})"
        parts = [f"<title>{escape(tip)}</title>"]
        if point.low is not None and point.high is not None:
            x0, x1 = self.x(point.low), self.x(point.high)
            parts += [_line(x0, y, x1, y, colour, width=1.6)]
            parts += [_line(x, y - 4, x, y + 4, colour, width=1.6) for x in (x0, x1)]
        parts.append(f'<circle cx="{self.x(point.value)}" cy="{y:g}" r="4" fill="{colour}"/>')
        parts.append(_text(self.left + self.width + 8, y + 4, shown, fill="#333"))
        return f"<g {data}>{''.join(parts)}</g>"


def _legend(series: Sequence[str], colour: Mapping[str, str], width: float) -> tuple[list[str], int]:
    """The legend's items, in rows that fit the chart's width, and the height they take (the plot
    starts below it)."""
    found, x, row = [], 8.0, 0
    for name in series:
        shown = _cut(name)
        room = 12 + CHAR * len(shown) + 14
        if x > 8 and x + room > width - 8:  # no room left on this row: start the next
            x, row = 8.0, row + 1
        y = TOP + row * LEGEND_ROW
        found.append(f'<circle class="legend" cx="{x + 4:g}" cy="{y + 2}" r="4" fill="{colour[name]}"/>')
        found.append(_text(x + 12, y + 6, shown).replace("<text ", '<text class="legend" ', 1))
        x += room
    return found, (row + 1) * LEGEND_ROW + 2


def _line(
    x0: float, y0: float, x1: float, y1: float, colour: str, *, width: float = 1, dash: bool = False
) -> str:
    dashes = ' stroke-dasharray="3 3"' if dash else ""
    return (
        f'<line x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1:g}" stroke="{colour}" '
        f'stroke-width="{width:g}"{dashes}/>'
    )


def _text(
    x: float, y: float, text: str, *, anchor: str = "start", fill: str = "#222", bold: bool = False
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" fill="{fill}"{weight}>{escape(text)}</text>'


def _num(value: float | None) -> str:
    """A number as an attribute: exact (repr), or empty for none."""
    return "" if value is None else repr(float(value))


def write_plot(path: str | Path, report: Report, metrics: Sequence[str] | None = None) -> Path:
    """The accuracy chart as .svg (always), or .png / .pdf (with matplotlib: pip install 'assay[plot]')."""
    path = check_writable(path)
    suffix = path.suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise UsageError(
            f"cannot draw a chart as '{path.suffix or path.name}'",
            where=str(path),
            fix=f"give a name ending in {', '.join(PLOT_FORMATS)}",
        )
    names = chosen_metrics(report, metrics)
    if suffix == ".svg":
        write_text(path, accuracy_chart_svg(report, names))
    else:
        with replacing(path) as temp:  # the temporary name keeps the suffix matplotlib reads
            _write_matplotlib(temp, accuracy_groups(report, names), names, charted_quantity(report, names))
    return path


def _write_matplotlib(path: Path, groups: Sequence[Group], series: Sequence[str], quantity: str) -> None:
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import PercentFormatter
    except ImportError:
        raise missing_extra(
            "matplotlib",
            f"to draw a {path.suffix} chart",
            where=str(path),
            alternative="write .svg, which needs nothing",
        ) from None
    rows = sum(len(g.points) for g in groups)
    figure = Figure(figsize=(6.4, 0.9 + 0.22 * rows + 0.12 * len(groups)), layout="constrained")
    axes = figure.add_subplot()
    offsets = [(len(series) - 1) / 2 - i for i in range(len(series))]  # series top to bottom in a group
    spread = 0.7 / max(1, len(series))
    for i, name in enumerate(series):
        found = [(-index + offsets[i] * spread, g.points[i]) for index, g in enumerate(groups)]
        found = [(y, p) for y, p in found if p.value is not None]
        xs = [p.value or 0.0 for _, p in found]
        whiskers = [_whiskers(p) for _, p in found]
        xerr = [[below for below, _ in whiskers], [above for _, above in whiskers]]
        colour = PALETTE[i % len(PALETTE)]
        axes.errorbar(xs, [y for y, _ in found], xerr=xerr, fmt="o", capsize=3, color=colour, label=name)
    axes.set_yticks([-i for i in range(len(groups))], [g.label for g in groups])
    axes.set_xlim(0, 1)
    if quantity != "mean score":
        axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.grid(axis="x", color="#e3e3e3")
    axes.set_xlabel(f"{quantity} (95% interval)")
    if len(series) > 1:
        columns = min(4, len(series))
        figure.legend(loc="outside upper center", ncols=columns, fontsize="small", frameon=False)
    figure.savefig(path, dpi=150, metadata=_plain_metadata(path.suffix.lower()))


def _whiskers(point: Point) -> tuple[float, float]:
    """How far the interval reaches below and above the value (nothing, where it has no interval)."""
    value = point.value or 0.0
    low = value if point.low is None else point.low
    high = value if point.high is None else point.high
    return value - low, high - value


def _plain_metadata(suffix: str) -> dict[str, Any]:
    """No creation date in a PDF, so the same summary gives the same file."""
    return {"CreationDate": None} if suffix == ".pdf" else {}
