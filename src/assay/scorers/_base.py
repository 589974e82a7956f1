"""What every scorer shares: the outcome of one row, the scorer description, and per-metric result columns."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum


class Outcome(IntEnum):
    """How one row fared under one metric. UNSCORED is its own outcome, never folded into pass or fail."""

    FAIL = 0
    PASS = 1
    UNSCORED = 2


@dataclass(frozen=True, slots=True)
class RowScore:
    outcome: Outcome
    answer_index: int = -1  # which golden answer decided the verdict; -1 when none did
    extras: tuple[int, ...] = ()  # values for the scorer's extra_columns, in order
    reason: str = ""  # why the row is unscored


# A row scorer sees the response and the golden answers after the scorer's `view` (e.g. lowercasing).
RowScorer = Callable[[str, tuple[str, ...]], RowScore]


@dataclass(frozen=True)
class Scorer:
    """A named deterministic metric: a view applied to both sides, then a per-row verdict."""

    name: str
    description: str
    view: Callable[[str], str]
    score_row: RowScorer
    extra_columns: tuple[str, ...] = ()
    version: int = 1


@dataclass
class MetricScores:
    """One metric's verdicts for every row of a run, stored as columns (compact at a million rows)."""

    metric: str
    outcomes: bytearray = field(default_factory=bytearray)
    answer_index: array[int] = field(default_factory=lambda: array("i"))
    extras: Mapping[str, array[int]] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)  # row index -> why it is unscored

    def append(self, score: RowScore) -> None:
        if score.outcome is Outcome.UNSCORED:
            self.reasons[len(self.outcomes)] = score.reason
        self.outcomes.append(score.outcome)
        self.answer_index.append(score.answer_index)
        for column, value in zip(self.extras.values(), score.extras):
            column.append(value)

    def outcome(self, index: int) -> Outcome:
        return Outcome(self.outcomes[index])
