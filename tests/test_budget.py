"""The measures that stand in for timed asserts (tests/support/budget.py) fail on the defects they are
there for: quadratic work, and work many times the reference's, however loaded the machine is."""

from __future__ import annotations

from collections.abc import Callable

import budget
import pytest
from budget import assert_linear, assert_within


def _quadratic(size: int) -> Callable[[], object]:
    text = "a" * size
    return lambda: sum(text[:i].count("a") for i in range(0, size, 16))  # each prefix read again


def _linear(size: int) -> Callable[[], object]:
    text = "ab " * (size // 3)
    return lambda: sum(len(word) for word in text.split())


def test_quadratic_work_is_not_linear() -> None:
    with pytest.raises(AssertionError, match="not linear"):
        assert_linear(_quadratic, 20_000)


def test_linear_work_is() -> None:
    assert_linear(_linear, 250_000)


def test_work_of_many_references_is_over_the_budget() -> None:
    def burn() -> None:  # four units of CPU, whatever the machine
        for _ in range(4):
            budget._reference_work()

    with pytest.raises(AssertionError, match="reference units"):
        assert_within(burn, 1, "four references")
    assert_within(lambda: None, 1)
