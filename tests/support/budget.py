"""How a test bounds what an input costs without asserting a time (issue 24: "No test asserts a timing;
benches do"). Issue 22's defects were hangs and quadratic work (7 s to minutes for one input); a test
guards against them with a measure that a loaded machine cannot fail:

- **growth**: ``assert_linear(work_at, n)`` times the work at n and at GROWTH times n (CPU time, the best
  of three) and requires the ratio to stay under MOST_RATIO (linear: about 4; quadratic: 16). It measures
  complexity, not speed: other work on the machine stretches both sizes alike.
- **reference units**: ``assert_within(work, units)`` requires the work to cost at most ``units`` times
  REFERENCE, a fixed piece of pure-Python text work (lowercase, split into words, count them, join them)
  timed in the same process: once at first use, and again when a work runs over, so that the budget is
  the machine as it is now. A loaded machine stretches both alike. One unit is about 0.05 s of CPU on an
  idle 2-core machine of 2026; SECOND, 20 units, is issue 22's "no case over a second per row" there.

Times are the process's CPU time (``time.process_time``) with the garbage collector paused: a collection
of the test process's own objects (a long suite holds a gigabyte of them) is the suite's cost, not the
input's. The budgets are for a defect to fail on, not for speed: speed lives in bench/.
"""

from __future__ import annotations

import contextlib
import gc
import re
import statistics
import time
from collections.abc import Callable, Iterator

GROWTH = 4  # the larger input is this many times the smaller
MOST_RATIO = 8  # linear work: about 4 times as long at 4 times the input, n log n a little more; quadratic 16
FLOOR_UNITS = 0.5  # a time at the larger input under this many units is noise, not growth
SMALL_UNITS = 100  # the smaller input already past this: far from linear, said at once (no 4x wait)
SECOND = 20  # units: about a second of CPU on an idle machine of 2026
# A budget for "about a second" is LOADED * SECOND units: work that reads megabytes shares the caches with the
# machine's other processes and stretches more than the small reference does (23 units measured for a
# second's work at a load of 7 on 2 cores). The defects it is there for cost 7 s and more.
LOADED = 2

# The reference: 48,000 words of mixed case and script, read the way assay reads a text.
_REFERENCE_TEXT = " ".join(f"Word{i % 997} दिल्ली {i} The Grace PERIOD" for i in range(8_000))
_WORDS = re.compile(r"\w+")
_references: list[float] = []


def cpu_seconds(work: Callable[[], object]) -> float:
    """The CPU seconds of one call of `work`, the garbage collector paused meanwhile."""
    with cpu_timer() as took:
        work()
    return took[0]


@contextlib.contextmanager
def cpu_timer() -> Iterator[list[float]]:
    """The block's CPU seconds, put in the yielded list when it ends; the garbage collector paused."""
    took: list[float] = []
    collecting = gc.isenabled()
    gc.disable()
    started = time.process_time()
    try:
        yield took
    finally:
        took.append(time.process_time() - started)
        if collecting:
            gc.enable()


def _reference_work() -> int:
    counts: dict[str, int] = {}
    for word in _WORDS.findall(_REFERENCE_TEXT.lower()):
        counts[word] = counts.get(word, 0) + 1
    return len(" ".join(sorted(counts)))


def reference_seconds(again: bool = False) -> float:
    """The CPU seconds of one REFERENCE unit: the median of three, measured at first use and, with
    `again`, now (the larger of the two is the unit: a budget is never tightened by an idle moment)."""
    if again or not _references:
        _references.append(statistics.median(cpu_seconds(_reference_work) for _ in range(3)))
    return max(_references[0], _references[-1])


def units_of(seconds: float) -> float:
    """`seconds` of CPU in REFERENCE units (measured again now: called when a work seems over)."""
    return seconds / reference_seconds(again=True)


def check_units(seconds: float, units: float, what: str) -> None:
    """`seconds` of CPU (already measured) within `units` REFERENCE units; the unit is measured again
    only when the work seems over, so an example under budget costs no reference run."""
    if seconds <= units * reference_seconds():
        return
    spent = units_of(seconds)
    assert spent <= units, (
        f"{what}: {seconds:.2f} s of CPU, {spent:.0f} reference units (the budget: {units})"
    )


def assert_within(work: Callable[[], object], units: float, what: str = "the work") -> None:
    """`work`, run once, costs at most `units` REFERENCE units. Not run again when over: a second run
    could be answered from a cache the first one filled, and hide the defect."""
    check_units(cpu_seconds(work), units, what)


def assert_linear(work_at: Callable[[int], Callable[[], object]], n: int) -> float:
    """The work grows linearly: `work_at(size)` makes the input of that size (untimed) and gives the work
    to time on it; the time at GROWTH * n is at most MOST_RATIO times the time at n (best of three, the
    larger size tried again only when over), or under FLOOR_UNITS. Returns the CPU seconds at GROWTH * n,
    for a test that also holds that size to a budget (``check_units``)."""
    small_work = work_at(n)
    first = cpu_seconds(small_work)
    check_units(first, SMALL_UNITS, f"size {n}, far slower than linear work")
    small = min(first, cpu_seconds(small_work), cpu_seconds(small_work))
    big_work = work_at(GROWTH * n)
    big = cpu_seconds(big_work)
    for _ in range(2):
        if big <= _growth_bound(small):
            break
        big = min(big, cpu_seconds(big_work))
    if big > _growth_bound(small):
        reference_seconds(again=True)  # the floor with the machine as it is now
    assert big <= _growth_bound(small), f"{small:.3f} s at size {n}, {big:.3f} s at {GROWTH * n}: not linear"
    return big


def _growth_bound(small: float) -> float:
    return MOST_RATIO * small + FLOOR_UNITS * reference_seconds()
