"""A gate for CI: fail the run when a metric's accuracy is below a bar.

``phrase_match>=0.90`` holds when the accuracy (the share of scored rows that pass; for a graded metric
such as token_f1, the share scoring 1) meets the bar overall *and in every domain* (``scope="all"``;
``"overall"`` gates the whole only, ``"domains"`` each domain only). With ``on="lower"`` the interval's
conservative end is gated instead: the lower end for ``>=``/``>``, the upper end for ``<=``/``<``. A
domain, or the whole, with fewer than ``min_n`` scored rows cannot pass at all (seed 002 gated on 96
questions: at 90% the 95% interval runs from about 82% to 95%).

An accuracy is over the scored rows only, so a scope whose rows are largely unscored could pass on the
few that were (issue 9: 27 of 71 rows unscored by the judge passed ``judge>=0.90`` at 100% on the other
44). A scope fails when more than ``max_unscored`` of its rows are unscored, and every check shows the
share unscored beside the accuracy. Each check says why it passed or failed.
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
SCOPES = ("all", "overall", "domains")  # what a gate checks: the whole and each domain, or one of them
MAX_UNSCORED = 0.05  # the default share of a scope's rows that may be unscored


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


def parse_share(text: str) -> float:
    """A share from the command line, as a fraction (0.05) or a percentage (5%), within 0..1."""
    found = regex.fullmatch(r"\s*(?P<value>[0-9]*\.?[0-9]+)(?P<percent>%?)\s*", text)
    value = float(found["value"]) / (100 if found["percent"] else 1) if found else -1.0
    if not 0.0 <= value <= 1.0:
        raise UsageError(
            f"--max-unscored must be a share from 0 to 1, got {text!r}",
            fix="give a fraction or a percentage, e.g. 0.05 or 5%",
        )
    return value


@dataclass(frozen=True)
class Check:
    gate: Gate
    scope: str  # "combined" or a domain
    passed: bool
    why: str


def check_gates(
    summary: Summary,
    gates: Sequence[Gate],
    on: str = "point",
    min_n: int = 1,
    max_unscored: float = MAX_UNSCORED,
    scope: str = "all",
) -> list[Check]:
    """Every gate against the combined figure and each domain's (or, by `scope`, one of them)."""
    if scope not in SCOPES:
        raise UsageError(f"unknown gate scope {scope!r}", fix=f"use one of: {', '.join(SCOPES)}")
    rule = _Rule(on, min_n, max_unscored)
    checks = []
    for gate in gates:
        metric = summary.metrics.get(gate.metric)
        if metric is None:
            raise UsageError(
                f"the gate {gate.text!r} names a metric this run did not score",
                fix=f"score it too (--metric {gate.metric}), or gate on one of: {', '.join(summary.metrics)}",
            )
        scopes = [("combined", metric.combined)] if scope != "domains" else []
        scopes += list(metric.domains.items()) if scope != "overall" else []
        checks += [_check(summary, gate, name or "(no domain)", tally, rule) for name, tally in scopes]
    return checks


@dataclass(frozen=True)
class _Rule:
    on: str
    min_n: int
    max_unscored: float


def unscored_text(tally: Tally) -> str:
    """The share of a scope's rows that are unscored, with the count: 'unscored 38.0% (27 of 71)'."""
    share = tally.unscored / tally.n if tally.n else 0.0
    return f"unscored {percent(share)} ({tally.unscored} of {tally.n})"


def _check(summary: Summary, gate: Gate, scope: str, tally: Tally, rule: _Rule) -> Check:
    scored = tally.n - tally.unscored
    interval = summary.interval(tally)
    upper_bound = gate.op in ("<", "<=")  # a ceiling is met for sure only by the interval's upper end
    conservative = (interval.high if upper_bound else interval.low) if interval else None
    value = tally.accuracy if rule.on == "point" else conservative
    shown = f"{gate.metric} {scope}: accuracy {percent(tally.accuracy)}"
    shown += (
        f" (95% CI {percent(interval.low)}{DASH}{percent(interval.high)}, n={scored})"
        if interval
        else f" (n={scored})"
    )
    shown += f", {unscored_text(tally)}"
    if tally.n and tally.unscored / tally.n > rule.max_unscored:
        limit = f"more than --max-unscored {percent(rule.max_unscored)} of its rows are unscored"
        return Check(gate, scope, False, f"{shown}: {limit}, so it cannot pass")
    if scored < rule.min_n:
        return Check(
            gate, scope, False, f"{shown}: fewer than --min-n {rule.min_n} scored rows, so it cannot pass"
        )
    if value is None:
        return Check(gate, scope, False, f"{shown}: no scored rows")
    measured = (
        "accuracy" if rule.on == "point" else f"its interval's {'upper' if upper_bound else 'lower'} end"
    )
    passed = _COMPARE[gate.op](value, gate.bar)
    relation = "meets" if passed else "fails"
    return Check(
        gate,
        scope,
        passed,
        f"{shown}: {measured} {percent(value)} {relation} {gate.op} {percent(gate.bar)}",
    )
