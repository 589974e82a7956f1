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
from ._base import (
    FAIL,
    PASS,
    UNSCORED,
    Alignment,
    ExplainRows,
    MetricScores,
    Outcome,
    Scorer,
    Seen,
    SeenRows,
    Span,
)

Check = Callable[..., "RowVerdict | bool | None"]


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
    """The Scorer of one check: its batch function, and its evidence read from the deciding calls."""

    def __init__(
        self, check: Check, name: str | None, description: str | None, settings: dict[str, Any]
    ) -> None:
        self.check = check
        self.name: str = name or str(getattr(check, "__name__", ""))
        doc = inspect.getdoc(check) or ""
        self.description: str = description or (doc.splitlines()[0] if doc else self.name)
        self.inputs: tuple[str, ...] = tuple(settings.pop("inputs", ()))
        self.settings = settings
        if not self.name.isidentifier():
            raise UsageError(
                f"row_scorer's name {self.name!r} is not a metric name",
                fix="give name= of letters, digits and _",
            )

    def scorer(self) -> Scorer:
        if "view" not in self.settings:  # the check sees the response as it came: spans are the original's
            self.settings |= {"view": _as_is, "alignment": AS_IS}
        return Scorer(
            name=self.name,
            description=self.description,
            score_rows=self.score_rows,
            decide_rows=self.decide_rows,
            inputs=self.inputs,
            explain=self.explain,
            **self.settings,
        )

    def score_rows(
        self, responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *columns: Any
    ) -> MetricScores:
        return self._scores(self._verdicts(responses, answer_sets, columns))

    def decide_rows(
        self, responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *columns: Any
    ) -> tuple[MetricScores, ExplainRows]:
        """The verdicts, and their evidence read from the same calls of the check (``Scorer.decide_rows``)."""
        verdicts = self._verdicts(responses, answer_sets, columns)

        def explain_rows(seen: SeenRows) -> tuple[list[str], list[Span | None]]:
            rules, spans = [], []
            for at, position in enumerate(seen.positions):
                verdict = verdicts[position]
                rules.append(verdict.reason or self._rule(seen.outcomes[at]))
                spans.append(None if verdict.span is None else seen.locate(at, *verdict.span))
            return rules, spans

        return self._scores(verdicts), explain_rows

    def explain(self, seen: Seen) -> tuple[str, Span | None]:
        """The rule of a stored verdict, scored without its evidence: the check is not asked again."""
        return self._rule(seen.outcome), None

    def _rule(self, outcome: Outcome) -> str:
        return f"{self.description}: the row {'passes' if outcome == PASS else 'fails'} the check"

    def _verdicts(
        self, responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], columns: Sequence[Any]
    ) -> list[RowVerdict]:
        return [
            self._verdict(self.check(response, tuple(answer_sets[row]), *(column[row] for column in columns)))
            for row, response in enumerate(responses)
        ]

    def _scores(self, verdicts: Sequence[RowVerdict]) -> MetricScores:
        scores = MetricScores.all_failing(self.name, len(verdicts))
        for row, verdict in enumerate(verdicts):
            if verdict.passed is None:
                scores.outcomes[row] = UNSCORED
                scores.reasons[row] = verdict.reason or f"{self.name}'s check could not decide"
            else:
                scores.outcomes[row] = PASS if verdict.passed else FAIL
                scores.answer_index[row] = verdict.answer
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


def _as_is(text: str) -> str:
    return text


def _unchanged(original: str, seen: str) -> bool:
    return original == seen


AS_IS = Alignment(_as_is, same_offsets=_unchanged)


__all__ = ["RowVerdict", "row_scorer"]
