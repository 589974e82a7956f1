"""A gate for CI: fail the run when a metric's accuracy is below a bar.

``phrase_match>=0.90`` holds when the accuracy (the share of scored rows that pass; for a graded metric
such as token_f1, the share scoring 1) meets the bar overall *and in every domain*. With ``on="lower"``
the interval's conservative end is gated instead: the lower end for ``>=``/``>``, the upper end for
``<=``/``<``. A domain, or the whole, with fewer than ``min_n`` scored rows cannot pass at all (seed
002 gated on 96 questions: at 90% the 95% interval runs from about 82% to 95%). Each check says why it
passed or failed.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import regex

from .errors import UsageError
from .report._format import DASH, percent
from .summary import Summary, Tally

_EXPRESSION = regex.compile(
    r"\s*(?P<metric>[\w-]+)\s*(?P<op>>=|<=|>|<)\s*(?P<bar>[0-9]*\.?[0-9]+)(?P<percent>%?)\s*"
)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
ON = ("point", "lower")


@dataclass(frozen=True)
class Gate:
    metric: str
    op: str
    bar: float  # a fraction: 0.9 for "0.90" or "90%"
    text: str

    @classmethod
    def parse(cls, text: str) -> Gate:
        found = _EXPRESSION.fullmatch(text)
        if found is None:
            raise UsageError(
                f"cannot read the gate {text!r}",
                fix="write METRIC>=BAR, e.g. 'phrase_match>=0.90' or 'token_f1>=85%'",
            )
        bar = float(found["bar"]) / (100 if found["percent"] else 1)
        if not 0.0 <= bar <= 1.0:
            raise UsageError(
                f"the gate {text!r} has a bar outside 0..1", fix="give a fraction or a percentage"
            )
        return cls(found["metric"], found["op"], bar, text.strip())


@dataclass(frozen=True)
class Check:
    gate: Gate
    scope: str  # "combined" or a domain
    passed: bool
    why: str


def check_gates(summary: Summary, gates: Sequence[Gate], on: str = "point", min_n: int = 1) -> list[Check]:
    """Every gate against the combined figure and each domain's."""
    checks = []
    for gate in gates:
        metric = summary.metrics.get(gate.metric)
        if metric is None:
            raise UsageError(
                f"the gate {gate.text!r} names a metric this run did not score",
                fix=f"score it too (--metric {gate.metric}), or gate on one of: {', '.join(summary.metrics)}",
            )
        scopes = [("combined", metric.combined), *metric.domains.items()]
        checks += [_check(summary, gate, scope or "(no domain)", tally, on, min_n) for scope, tally in scopes]
    return checks


def _check(summary: Summary, gate: Gate, scope: str, tally: Tally, on: str, min_n: int) -> Check:
    scored = tally.n - tally.unscored
    interval = summary.interval(tally)
    upper_bound = gate.op in ("<", "<=")  # a ceiling is met for sure only by the interval's upper end
    conservative = (interval.high if upper_bound else interval.low) if interval else None
    value = tally.accuracy if on == "point" else conservative
    shown = f"{gate.metric} {scope}: accuracy {percent(tally.accuracy)}"
    shown += (
        f" (95% CI {percent(interval.low)}{DASH}{percent(interval.high)}, n={scored})"
        if interval
        else f" (n={scored})"
    )
    if scored < min_n:
        return Check(
            gate, scope, False, f"{shown}: fewer than --min-n {min_n} scored rows, so it cannot pass"
        )
    if value is None:
        return Check(gate, scope, False, f"{shown}: no scored rows")
    measured = "accuracy" if on == "point" else f"its interval's {'upper' if upper_bound else 'lower'} end"
    passed = _COMPARE[gate.op](value, gate.bar)
    relation = "meets" if passed else "fails"
    return Check(
        gate,
        scope,
        passed,
        f"{shown}: {measured} {percent(value)} {relation} {gate.op} {percent(gate.bar)}",
    )
