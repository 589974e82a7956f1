"""``row_scorer``: a plug-in scorer written as one check of one row, about ten lines.

    from assay import RowVerdict, row_scorer

    @row_scorer(inputs=("question",))
    def first_word(response, answers, question):
        "the response's first word is a golden answer's (lowercased)"
        first = response.lower().split()[:1]
        for index, answer in enumerate(answers):
            if first == answer.lower().split()[:1]:
                return RowVerdict(True, f"begins {first[0]!r}", answer=index, span=(0, len(first[0])))
        return False

    # and in the plug-in's package: [project.entry-points."assay.scorers"] first_word = "pkg:first_word"

The check is given the response, the row's golden answers (a tuple) and the value of each declared input,
in order (a record field, ``gold.X``, ``reply.X`` or ``column:X``: see ``Scorer.inputs``). It returns
True (pass), False (fail), None (unscored: "could not score" is not zero), or a ``RowVerdict`` that adds
why (its reason), which golden answer decided, and the span of the response that did. That reason and
span are the row's evidence in traces and reports: kept from the call that decided, never asked again.
Any other Scorer setting (``version``, ``view``, ``default``, or a declaration such as ``cascade``) is a
keyword of ``row_scorer``. The built-ins score columnar batches for speed; a row scorer is a loop over
rows, for a plug-in's clarity.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ._base import FAIL, PASS, UNSCORED, Alignment, MetricScores, Scorer, Seen, Span

Check = Callable[..., "RowVerdict | bool | None"]
ROW_ID = "id"  # the input a row scorer adds, to find the evidence of a row it decided
MEMO_ROWS = 200_000  # the rows whose evidence is kept per scorer (a long run's oldest are dropped)


@dataclass(frozen=True)
class RowVerdict:
    """One row's verdict: `passed` True, False or None (unscored), why, the deciding golden answer
    (its index, -1: none) and the span of the response that decided, as [start, end) offsets into the
    response the check was given."""

    passed: bool | None
    reason: str | None = None
    answer: int = -1
    span: Span | None = None


def row_scorer(
    check: Check | None = None, *, name: str | None = None, description: str | None = None, **settings: Any
) -> Any:
    """A Scorer from a per-row check (see the module's docstring); a decorator with or without its
    keywords. `name` defaults to the function's name, `description` to its docstring's first line."""
    if check is None:
        return lambda function: row_scorer(function, name=name, description=description, **settings)
    return _RowScorer(check, name, description, settings).scorer()


class _RowScorer:
    """The Scorer of one check: its batch function, and its evidence kept from the deciding call."""

    def __init__(
        self, check: Check, name: str | None, description: str | None, settings: dict[str, Any]
    ) -> None:
        self.check = check
        self.name: str = name or str(getattr(check, "__name__", ""))
        doc = inspect.getdoc(check) or ""
        self.description: str = description or (doc.splitlines()[0] if doc else self.name)
        self.inputs: tuple[str, ...] = tuple(settings.pop("inputs", ()))
        self.settings = settings
        self.evidence: dict[tuple[Any, str], tuple[str | None, Span | None]] = {}
        if not self.name.isidentifier():
            raise UsageError(
                f"row_scorer's name {self.name!r} is not a metric name",
                fix="give name= of letters, digits and _",
            )

    def scorer(self) -> Scorer:
        if (
            "view" not in self.settings
        ):  # the check sees the response as it came: its spans are the original's
            self.settings |= {"view": _as_is, "alignment": AS_IS}
        return Scorer(
            name=self.name,
            description=self.description,
            score_rows=self.score_rows,
            inputs=(*self.inputs, ROW_ID),
            explain=self.explain,
            **self.settings,
        )

    def score_rows(
        self, responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *columns: Any
    ) -> MetricScores:
        scores = MetricScores.all_failing(self.name, len(responses))
        *declared, ids = columns
        for row, response in enumerate(responses):
            verdict = self._verdict(
                self.check(response, tuple(answer_sets[row]), *(c[row] for c in declared))
            )
            if verdict.passed is None:
                scores.outcomes[row] = UNSCORED
                scores.reasons[row] = verdict.reason or f"{self.name}'s check could not decide"
                continue
            scores.outcomes[row] = PASS if verdict.passed else FAIL
            scores.answer_index[row] = verdict.answer
            if verdict.reason is not None or verdict.span is not None:
                self._keep((ids[row], response), (verdict.reason, verdict.span))
        return scores

    def _verdict(self, found: object) -> RowVerdict:
        if isinstance(found, RowVerdict):
            return found
        if found is None or isinstance(found, bool):
            return RowVerdict(found)
        raise UsageError(
            f"{self.name}'s check returned a {type(found).__name__}",
            fix="return True, False, None (unscored) or an assay.RowVerdict",
        )

    def _keep(self, key: tuple[Any, str], evidence: tuple[str | None, Span | None]) -> None:
        if len(self.evidence) >= MEMO_ROWS:
            self.evidence.pop(next(iter(self.evidence)))
        self.evidence[key] = evidence

    def explain(self, seen: Seen) -> tuple[str, Span | None]:
        reason, span = self.evidence.get((seen.inputs.get(ROW_ID), seen.response), (None, None))
        if reason is None:
            verdict = "passes" if seen.outcome == PASS else "fails"
            reason = f"{self.description}: the row {verdict} the check"
        return reason, None if span is None else seen.locate(*span)


def _as_is(text: str) -> str:
    return text


def _unchanged(original: str, seen: str) -> bool:
    return original == seen


AS_IS = Alignment(_as_is, same_offsets=_unchanged)


__all__ = ["RowVerdict", "row_scorer"]
