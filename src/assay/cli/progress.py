"""The progress line on the terminal while a file is scored."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


def progress_line(path: str, stream: TextIO) -> Callable[[int, int], None]:
    """A progress line on the terminal: rows done (in one process), the rate and the time left,
    rewritten in place. A new pass (the judge's, after the matchers') starts its clock afresh."""
    print(f"assay: scoring {path} ...", end="", file=stream, flush=True)
    started, last_done = time.monotonic(), 0

    def show(done: int, total: int) -> None:
        nonlocal started, last_done
        if done < last_done:
            started = time.monotonic()
        last_done = done
        elapsed = max(time.monotonic() - started, 1e-9)
        left = (total - done) * elapsed / done if done else 0.0
        bar = "#" * (20 * done // max(total, 1))
        print(
            f"\rassay: {path} [{bar:<20}] {done:,}/{total:,} rows, {done / elapsed:,.1f}/s, "
            f"{left:,.0f} s left   ",
            end="",
            file=stream,
            flush=True,
        )

    return show
