"""How every report writes a number for people: one place, so that text, Markdown, HTML and the gate's
messages print an accuracy, an interval or a difference the same way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..terminal import one_line

DASH = "\u2013"  # an en dash between an interval's ends
NA = "n/a"
# A column of the terminal's tables is padded to its longest cell, up to this many characters; a longer cell
# is shown whole and pushes only its own line. Unbounded, one 40,000-character domain padded each of 1,000
# others to its width: a 160 MB text report from a 100 KB file (issue 22).
ALIGNED_WIDTH = 60


def percent(fraction: float | None) -> str:
    return NA if fraction is None else f"{fraction:.1%}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, plural unless n is 1: "1 row", "2 rows", "0 rows"; `plural` for a noun whose
    plural is not noun + "s" ("1 reply", "2 replies"). Only the noun's last word is made plural, so
    "scored row" gives "scored rows"."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def blank_text(blank: int, blocked: int = 0) -> str:
    """How many responses were blank (scored incorrect), and apart from them how many replies a system's
    guard blocked (a harness run grades those by its outcome rule: a refusal item blocked is correct)."""
    text = count(blank, "blank response") + " (scored incorrect)"
    if blocked:
        text += f", {count(blocked, 'reply', 'replies')} blocked by the system's guard (counted as blocked)"
    return text


def mean_text(mean: float | None) -> str:
    """A graded metric's mean score (0 to 1, three places), never a percentage."""
    return NA if mean is None else f"{mean:.3f}"


def mean_interval_text(interval: Mapping[str, float] | None) -> str:
    """A mean score's interval ({"low", "high"}) on the mean's own 0-1 scale: 0.212-0.287 with an en dash."""
    return NA if interval is None else f"{interval['low']:.3f}{DASH}{interval['high']:.3f}"


def interval_text(interval: Mapping[str, float] | None) -> str:
    """An interval ({"low", "high"}, as summary_dict writes it) in percent: 75.8-90.3% with an en dash."""
    return NA if interval is None else f"{interval['low'] * 100:.1f}{DASH}{interval['high']:.1%}"


def difference_cells(found: Mapping[str, Any]) -> list[str]:
    """A comparison's row (``assay compare``'s dict): n, A, B, B - A, its interval, p, A only, B only."""
    difference, low_high, p = found["difference"], found["interval"], found["p_value"]
    shown = NA if difference is None else f"{difference * 100:+.1f} pts"
    ci = NA if low_high is None else f"{low_high['low'] * 100:+.1f}{DASH}{low_high['high'] * 100:+.1f} pts"
    counts = [str(found["n"]), percent(found["a_accuracy"]), percent(found["b_accuracy"])]
    return [*counts, shown, ci, NA if p is None else f"{p:.4g}", str(found["a_only"]), str(found["b_only"])]


def text_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A table for the terminal: the first column left-aligned, the others right-aligned, each cell one
    inert line (a domain from the data cannot break the table or drive the terminal)."""
    cells = [[one_line(str(cell)) for cell in row] for row in rows]
    widths = [aligned_width(r[i] for r in [header, *cells]) for i in range(len(header))]

    def line(found: Sequence[str]) -> str:
        first = found[0].ljust(widths[0])
        return "  " + "  ".join([first, *(c.rjust(w) for c, w in zip(found[1:], widths[1:]))])

    return [line(header), *map(line, cells)]


def aligned_width(cells: Iterable[str]) -> int:
    """The width a column of these cells is padded to: the longest, but at most ALIGNED_WIDTH."""
    return min(max(map(len, cells), default=0), ALIGNED_WIDTH)
