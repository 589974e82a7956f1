"""The progress line on the terminal while a file is scored, drawn by tqdm: rows done, the rate and the
time left, rewritten in place. tqdm pads each rewrite to the length of the last one (a shorter line
leaves nothing of a longer one behind) and trims the line to the terminal's width (so it never wraps,
which a carriage return could not undo)."""

from __future__ import annotations

import functools
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

from ..errors import UsageError

# Rows with thousands separators; tqdm's own rate ("12.3k/s", "?/s" before the first figure).
_ROWS = "assay: {desc} [{bar:20}] {n:,}/{total:,} rows, {rate_noinv_fmt}, {remaining_s:,.0f} s left"
_STARTING = "assay: scoring {desc} ..."


@functools.cache
def _bar_class() -> Any:
    """tqdm, drawing on a terminal that reports no width. Loaded here, on a terminal's first progress
    line: a run whose stderr is a log or a pipe never needs tqdm."""
    from tqdm import tqdm

    class _Bar(tqdm):  # type: ignore[misc]  # tqdm ships no type hints
        monitor_interval = 0  # no monitor thread: the line is redrawn on each report, in this thread

        @property
        def format_dict(self) -> dict[str, Any]:
            found: dict[str, Any] = super().format_dict
            if found["ncols"] is not None and found["ncols"] < 1:
                found["ncols"] = None  # a terminal that reports no width (0 columns): do not trim to nothing
            return found

    return _Bar


class ProgressLine:
    """The callback scoring reports to (rows done, of total). A new pass (the judge's, after the
    matchers') starts its bar and its clock afresh. `close()` ends the line."""

    def __init__(self, path: str, stream: TextIO) -> None:
        # ASCII bar ("#", " ") as before; unit_scale for the rate ("12.3k/s"), not the row counts.
        self._bar = _bar_class()(
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
# Another interval, in seconds (a test's, or a log that wants fewer lines): read when a command starts.
PROGRESS_EVERY_ENV = "ASSAY_PROGRESS_EVERY"


def progress_every() -> float:
    """The seconds between progress lines off a terminal: $ASSAY_PROGRESS_EVERY, else PROGRESS_EVERY."""
    text = os.environ.get(PROGRESS_EVERY_ENV, "").strip()
    if not text:
        return PROGRESS_EVERY
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise UsageError(
            f"{PROGRESS_EVERY_ENV}={text!r} is not a number of seconds above 0",
            fix=f"give it seconds (e.g. 30), or unset it for every {PROGRESS_EVERY:g} s",
        )
    return seconds


def duration(seconds: float) -> str:
    """Seconds as a log line says them: 42s, 2m10s, 1h05m."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole // 60 % 60:02d}m"


def beneath(stream: TextIO) -> TextIO:
    """The terminal beneath the escaping stream: a progress line rewrites itself with carriage returns,
    which the escaping would show as text."""
    from ..terminal import EscapingStream

    return stream.stream if isinstance(stream, EscapingStream) else stream


@dataclass
class _Phase:
    """One long phase (asking, judging, a scoring pass): its words, its count and its clock."""

    verb: str
    noun: str
    started: float
    always_ends: bool  # its last line is said even when it was quick (asking); else only after another
    first: int | None = None  # done at its first report (a journal's answers): not this phase's pace
    done: int = 0
    total: int | None = None
    said: bool = False  # a line of it was printed
    ended: bool = False

    def line(self, now: float, time_left: bool) -> str:
        if self.total is None:
            return f"assay: {self.verb}: starting, {duration(now - self.started)} elapsed"
        said = (
            f"assay: {self.verb} {self.done}/{self.total} {self.noun}, {duration(now - self.started)} elapsed"
        )
        return f"{said}, {self.left(now)}" if time_left and not self.ended else said

    def left(self, now: float) -> str:
        own = self.done - (self.first or 0)
        if not own or self.total is None:
            return "time left not known yet"
        return f"about {duration((now - self.started) / own * (self.total - self.done))} left"


class CountProgress:
    """Things done of all, for a command's long phases (items asked, judged, URLs checked): a tqdm line
    on a terminal; elsewhere (a CI log, a pipe) a line every `every` seconds (``progress_every``) while
    a phase is under way, whether or not anything finished meanwhile, and one as it ends:

        assay: asking 120/400 items, 2m10s elapsed, about 5m left

    The first report may count things done before (a journal's answers): with `time_left`, the time left
    is at the pace of this run's own, and `_start` may say what was done before. Scoring tells a new pass
    by ``begin_pass`` (``scoring.verdicts``): its own words, count and clock."""

    def __init__(
        self, stream: TextIO, *, verb: str, noun: str, time_left: bool, every: float | None = None
    ) -> None:
        self._stream, self._noun, self._time_left = stream, noun, time_left
        self._every = progress_every() if every is None else every
        self._bar: Any = None
        self._lock = threading.Lock()  # the ticker's thread and the reports share the phase
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None
        self._phase = _Phase(verb, noun, time.monotonic(), always_ends=True)
        self._phases = 0  # phases reported so far: the first may say what was done before

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            phase = self._phase
            if phase.first is None:
                phase.first, phase.total = done, total
                self._phases += 1
                if self._phases == 1:
                    self._start(done, total)
                self._open_bar(phase, done, total)
            phase.done, phase.total = done, total
            if self._bar is not None:
                self._bar.update(done - self._bar.n)
                return
            self._start_ticker()
            if done >= total and not phase.ended:
                phase.ended = True
                if phase.always_ends or phase.said:
                    self._say(phase)

    def begin_pass(self, metric: str | None) -> None:
        """A scoring pass begins: the row metrics' (None), or a run metric's (the judge's: judging)."""
        verb = "scoring" if metric is None else "judging" if metric == "judge" else f"scoring {metric}"
        with self._lock:
            self._close_bar()
            self._phase = _Phase(verb, self._noun, time.monotonic(), always_ends=False)
            self._phases = max(self._phases, 1)  # what was done before is said of the first phase only
            self._start_ticker()

    def _start(self, done: int, total: int) -> None:
        """The first report of the first phase (a subclass says what was done before)."""

    def _open_bar(self, phase: _Phase, done: int, total: int) -> None:
        if total and self._stream.isatty():
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=done,
                file=self._stream,
                # {remaining}, not {remaining_s}: "?" until one is done, where the seconds read 0
                bar_format=f"assay: {phase.verb} [{{bar:20}}] {{n}}/{{total}} {phase.noun}, "
                "{remaining} left",
                ascii=" #",
                dynamic_ncols=True,
            )

    def _start_ticker(self) -> None:
        if self._ticker is None and not self._stream.isatty():
            self._ticker = threading.Thread(target=self._tick, name="assay-progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        """Off a terminal, every `every` seconds: the phase under way, said again with its figures."""
        while not self._stopped.wait(self._every):
            with self._lock:
                if not self._phase.ended:
                    self._say(self._phase)

    def _say(self, phase: _Phase) -> None:
        phase.said = True
        try:
            print(phase.line(time.monotonic(), self._time_left), file=self._stream, flush=True)
        except (OSError, ValueError):  # the log went away (a closed pipe): the run goes on without it
            self._stopped.set()

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        self._stopped.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join()
        with self._lock:
            self._close_bar()
