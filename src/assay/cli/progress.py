"""The progress line on the terminal while a file is scored, drawn by tqdm: rows done, the rate and the
time left, rewritten in place. tqdm pads each rewrite to the length of the last one (a shorter line
leaves nothing of a longer one behind) and trims the line to the terminal's width (so it never wraps,
which a carriage return could not undo)."""

from __future__ import annotations

import time
from typing import Any, TextIO

from tqdm import tqdm

# Rows with thousands separators; tqdm's own rate ("12.3k/s", "?/s" before the first figure).
_ROWS = "assay: {desc} [{bar:20}] {n:,}/{total:,} rows, {rate_noinv_fmt}, {remaining_s:,.0f} s left"
_STARTING = "assay: scoring {desc} ..."


class _Bar(tqdm):  # type: ignore[misc]  # tqdm ships no type hints
    monitor_interval = 0  # no monitor thread: the line is redrawn on each report, in this thread

    @property
    def format_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = super().format_dict
        if found["ncols"] is not None and found["ncols"] < 1:
            found["ncols"] = None  # a terminal that reports no width (0 columns): do not trim to nothing
        return found


class ProgressLine:
    """The callback scoring reports to (rows done, of total). A new pass (the judge's, after the
    matchers') starts its bar and its clock afresh. `close()` ends the line."""

    def __init__(self, path: str, stream: TextIO) -> None:
        # ASCII bar ("#", " ") as before; unit_scale for the rate ("12.3k/s"), not the row counts.
        self._bar = _Bar(
            desc=path,
            file=stream,
            bar_format=_STARTING,
            ascii=" #",
            unit="",
            unit_scale=True,
            dynamic_ncols=True,
        )
        self._started = False
        self._last_report = time.time()  # tqdm's clock: the first pass is timed from here

    def __call__(self, done: int, total: int) -> None:
        bar, previous = self._bar, self._last_report
        self._last_report = time.time()
        if not self._started or done < bar.n or total != bar.total:
            self._started = True
            bar.bar_format = _ROWS
            bar.reset(total=total)  # a new pass: its own total and clock, timed from the last report
            bar.start_t = bar.last_print_t = previous
            bar.update(done)
            bar.refresh()  # the first figure of a pass shows at once, whatever tqdm's redraw interval
        else:
            bar.update(done - bar.n)  # redrawn at most every 0.1 s (tqdm's mininterval)

    def close(self) -> None:
        """Draw the last figures and end the line."""
        self._bar.close()


def progress_line(path: str, stream: TextIO) -> ProgressLine:
    """A progress line for scoring `path` on `stream` (the terminal beneath the escaping stream: the
    line rewrites itself with carriage returns, which the escaping would show as text)."""
    return ProgressLine(path, stream)


PROGRESS_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal (a CI log)


def beneath(stream: TextIO) -> TextIO:
    """The terminal beneath the escaping stream: a progress line rewrites itself with carriage returns,
    which the escaping would show as text."""
    from ..terminal import EscapingStream

    return stream.stream if isinstance(stream, EscapingStream) else stream


class CountProgress:
    """Things done of all, for a command's long loop (items asked, URLs checked): a tqdm line on a
    terminal; elsewhere (a CI log) a line every PROGRESS_EVERY seconds and one at the end.

    The first report may count things done before (a journal's answers): with `time_left`, a CI line
    gives the time left at the rate of this run's own, and `_start` may say what was done before."""

    def __init__(self, stream: TextIO, *, verb: str, noun: str, logged: str, time_left: bool) -> None:
        self._stream, self._verb, self._noun = stream, verb, noun
        self._logged, self._time_left = logged, time_left  # logged: the CI line's words after done/total
        self._bar: Any = None
        self._first: int | None = None
        self._started = self._last_line = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if self._first is None:
            self._first = done
            self._start(done, total)
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if now - self._last_line >= PROGRESS_EVERY or done == total:
            self._last_line = now
            left = f", {self._left(done, total, now)}" if self._time_left else ""
            print(f"assay: {done}/{total} {self._logged}{left}", file=self._stream, flush=True)

    def _start(self, done: int, total: int) -> None:
        if total and self._stream.isatty():
            self._bar = tqdm(
                total=total,
                initial=done,
                file=self._stream,
                # {remaining}, not {remaining_s}: "?" until one is done, where the seconds read 0
                bar_format=f"assay: {self._verb} [{{bar:20}}] {{n}}/{{total}} {self._noun}, "
                "{remaining} left",
                ascii=" #",
                dynamic_ncols=True,
            )

    def _left(self, done: int, total: int, now: float) -> str:
        this_run = done - (self._first or 0)
        if not this_run:
            return "time left not known yet"
        seconds = (now - self._started) / this_run * (total - done)
        return f"{seconds:.0f} s left"

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
