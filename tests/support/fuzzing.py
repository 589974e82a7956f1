"""What every fuzzer of the suite shares: how many examples, the seed, and Hypothesis's settings.

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and a few hundred locally, per fuzzer.
The seed is printed at the start of each fuzzing module (``tests/conftest.py`` does it for every module
that has a ``FUZZ``), and ``ASSAY_FUZZ_SEED=N`` replays a run; a failure also prints Hypothesis's
reproduce_failure blob.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator

from budget import LOADED, SECOND, check_units, cpu_timer
from hypothesis import HealthCheck, settings

CI = os.environ.get("CI", "").lower() == "true"
SEED = int(os.environ.get("ASSAY_FUZZ_SEED", random.randrange(2**32)))
# What one example may cost, in budget.py's reference units (issue 22: no case over a second per row;
# SECOND units are about a second of CPU on an idle machine, and a budget is twice that: see LOADED).
# CPU, not the clock, and in units of a reference timed in the same process, not seconds: the machine
# that runs the suite is shared, and a loaded one stretches every time. The defects were 7-61 s.
PER_EXAMPLE_UNITS = LOADED * SECOND


class Huge:
    """A number of more than 4,300 digits, which int() refuses to read (sys.int_info.default_max_str_digits):
    a fuzzer writes it into its text as ``DIGITS`` (Python could not even repr it as an int), in place of
    ``MARK`` where the text is JSON."""

    DIGITS = "9" * 4400
    MARK = "7f3c-huge-number-5e1a"

    def __repr__(self) -> str:
        return "Huge()"


def examples(locally: int = 200) -> int:
    """How many examples a fuzzer draws."""
    return int(os.environ.get("ASSAY_FUZZ_EXAMPLES", 10_000 if CI else locally))


def fuzz_settings(max_examples: int) -> settings:
    """Settings for a fuzzer: no deadline (the cost of an example is checked by the test, in reference
    units: ``one_example``), no example database (a run is replayed by its seed), the failure's blob
    printed."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


@contextlib.contextmanager
def one_example(what: str = "one example") -> Iterator[None]:
    """The block held to PER_EXAMPLE_UNITS of CPU (budget.py), the garbage collector paused while it runs:
    a full collection of the test process's own objects (a long suite holds a gigabyte of them) lands on
    whichever example happens to trigger it, and is the suite's cost, not assay's."""
    with cpu_timer() as took:
        yield
    check_units(took[0], PER_EXAMPLE_UNITS, what)
