"""A gate for CI: fail the run when a metric's accuracy is below a bar.

``phrase_match>=0.90`` holds when the accuracy (the share of scored rows that pass; for a graded metric
such as token_f1, the share scoring 1) meets the bar overall *and in every domain* (``scope="all"``;
``"overall"`` gates the whole only, ``"domains"`` each domain only). With ``on="lower"`` the interval's
conservative end is gated instead: the lower end for ``>=``/``>``, the upper end for ``<=``/``<``. A
domain, or the whole, with fewer than ``min_n`` scored rows cannot pass at all (seed 002 gated on 96
questions: at 90% the 95% interval runs from about 82% to 95%). With ``on="calibrated"`` (or
``"calibrated-lower"``, its interval's conservative end) the figure gated is the accuracy calibrated on
human labels (``calibration``): a scope without enough labels cannot pass.

An accuracy is over the scored rows only, so a scope whose rows are largely unscored could pass on the
few that were (issue 9: 27 of 71 rows unscored by the judge passed ``judge>=0.90`` at 100% on the other
44). A scope fails when more than ``max_unscored`` of its rows are unscored, and every check shows the
share unscored beside the accuracy. Each check records why it passed or failed, and report/gate.py
puts that in words.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import regex

from .errors import UsageError
from .stats import Interval
from .summary import Summary, Tally

if TYPE_CHECKING:
    from .calibration import Calibrated, MetricCalibration

_EXPRESSION = regex.compile(
    r"\s*(?P<metric>[\w-]+)\s*(?P<op>>=|<=|>|<)\s*(?P<bar>[0-9]*\.?[0-9]+)(?P<percent>%?)\s*"
)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
ON = ("point", "lower", "calibrated", "calibrated-lower")
CALIBRATED_ON = ("calibrated", "calibrated-lower")  # gated on human labels: a scored file's gates only
SCOPES = ("all", "overall", "domains")  # what a gate checks: the whole and each domain, or one of them
# A harness run's gate (harness.run_gate): the whole run by default, each scope (the items' policy), or both.
RUN_SCOPES = ("overall", "scopes", "all")
MAX_UNSCORED = 0.05  # the default share of a scope's rows that may be unscored
# The default share of a harness run's items that may be system errors (harness.run_gate).
MAX_SYSTEM_ERRORS = 0.2


@dataclass(frozen=True)
class Gate:
    metric: str
    op: str
    bar: float  # a fraction: 0.9 for "0.90" or "90%"
    text: str

    @property
    def ceiling(self) -> bool:
        """A ceiling (<, <=) is met for sure only by the interval's upper end; a floor by its lower."""
        return self.op in ("<", "<=")

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


# Why a check passed or failed: its figure against the bar, or a rule that stops it before the figure.
COMPARED = "compared"  # the figure was set against the bar: `passed` says which way
TOO_MANY_UNSCORED = "too many unscored"  # more than max_unscored of the scope's rows are unscored
TOO_FEW_SCORED = "too few scored"  # fewer than min_n scored rows
NO_SCORED = "no scored rows"  # no figure to gate (no scored rows, or no interval to gate on)
NO_CALIBRATION = "no calibration"  # on="calibrated": the scope has too few human labels for a figure


@dataclass(frozen=True)
class Rule:
    """How every gate of a run is checked: on the point or the interval's conservative end, the fewest
    scored rows a scope needs, and the largest share of its rows that may be unscored."""

    on: str = ON[0]
    min_n: int = 1
    max_unscored: float = MAX_UNSCORED


@dataclass(frozen=True)
class GateSettings:
    """The gates of a run and how they are checked: the one set of defaults of ``assay score --gate`` and
    ``assay run --gate`` (their flags' defaults and help texts read them from here).

    `scopes` are what `scope` may be (``SCOPES`` for a scored file, ``RUN_SCOPES`` for a harness run);
    `scope` defaults to the first of them: the whole and every domain of a file, the whole of a run.
    """

    gates: tuple[Gate, ...] = ()
    on: str = ON[0]
    min_n: int = 1
    max_unscored: float = MAX_UNSCORED
    scope: str = ""  # "": the first of `scopes`
    scopes: tuple[str, ...] = SCOPES

    def __post_init__(self) -> None:
        if not self.scope:
            object.__setattr__(self, "scope", self.scopes[0])
        if self.on not in ON:
            raise UsageError(f"unknown --gate-on {self.on!r}", fix=f"use one of: {', '.join(ON)}")
        if self.scope not in self.scopes:
            raise UsageError(
                f"unknown gate scope {self.scope!r}", fix=f"use one of: {', '.join(self.scopes)}"
            )
        if self.min_n < 1:
            raise UsageError(f"--min-n must be at least 1, got {self.min_n}", fix="give a positive number")
        if not 0.0 <= self.max_unscored <= 1.0:
            raise UsageError(
                f"--max-unscored must be a share from 0 to 1, got {self.max_unscored!r}",
                fix="give a fraction or a percentage, e.g. 0.05 or 5%",
            )

    @classmethod
    def parse(cls, texts: Sequence[str], **settings: Any) -> Self:
        """The settings of gates given as text (``--gate EXPR``, repeatable); a UsageError for a typo.
        `settings` are the other fields (on, min_n, max_unscored, scope), each left out for its default."""
        return cls(tuple(Gate.parse(text) for text in texts), **settings)

    @property
    def rule(self) -> Rule:
        return Rule(self.on, self.min_n, self.max_unscored)

    def check(
        self, summary: Summary, calibration: Mapping[str, MetricCalibration] | None = None
    ) -> list[Check]:
        """Every gate against `summary` (a scored file's: ``SCOPES``), and, gated on calibrated
        figures, against `calibration` (each metric's)."""
        return check_gates(
            summary, self.gates, self.on, self.min_n, self.max_unscored, self.scope, calibration
        )


@dataclass(frozen=True)
class Check:
    """One gate in one scope: what was measured and what came of it (report.gate puts it in words)."""

    gate: Gate
    scope: str  # "combined", a domain, or "(no domain)"
    passed: bool
    outcome: str  # COMPARED, TOO_MANY_UNSCORED, TOO_FEW_SCORED or NO_SCORED
    tally: Tally
    interval: Interval | None
    value: float | None  # the figure gated: the accuracy, or the interval's conservative end
    rule: Rule
    calibrated: Calibrated | None = None  # on="calibrated": the scope's calibrated figure


def check_labels_named(on: str, named: bool) -> None:
    """A gate on the calibrated accuracy needs human labels (a UsageError, before any work, without)."""
    if on in CALIBRATED_ON and not named:
        raise UsageError(
            f"--gate-on {on} gates the accuracy calibrated on human labels, and none are named",
            fix="name them with --human COLUMN or --labels FILE, or gate on point or lower",
        )


def check_gates(
    summary: Summary,
    gates: Sequence[Gate],
    on: str = GateSettings.on,
    min_n: int = GateSettings.min_n,
    max_unscored: float = GateSettings.max_unscored,
    scope: str = SCOPES[0],
    calibration: Mapping[str, MetricCalibration] | None = None,
) -> list[Check]:
    """Every gate against the combined figure and each domain's (or, by `scope`, one of them)."""
    if scope not in SCOPES:
        raise UsageError(f"unknown gate scope {scope!r}", fix=f"use one of: {', '.join(SCOPES)}")
    check_labels_named(on, calibration is not None)
    rule = Rule(on, min_n, max_unscored)
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
        for name, tally in scopes:
            found = _calibrated_in(calibration, gate.metric, name, len(metric.domains))
            checks.append(_check(summary, gate, name or "(no domain)", tally, rule, found))
    return checks


def _calibrated_in(
    calibration: Mapping[str, MetricCalibration] | None, metric: str, scope: str, domains: int
) -> Calibrated | None:
    """A scope's calibrated figure: the whole's for "combined" (or for the one domain of a file that
    has one), a domain's own otherwise."""
    found = None if calibration is None else calibration.get(metric)
    if found is None:
        return None
    if scope == "combined" or domains <= 1:
        return found.overall
    return found.domains.get(scope)


def _check(
    summary: Summary, gate: Gate, scope: str, tally: Tally, rule: Rule, calibrated: Calibrated | None = None
) -> Check:
    scored = tally.n - tally.unscored
    on_labels = rule.on in CALIBRATED_ON
    interval = calibrated.interval if on_labels and calibrated else summary.interval(tally)
    conservative = (interval.high if gate.ceiling else interval.low) if interval else None
    point = calibrated.estimate if on_labels and calibrated else tally.accuracy
    value = point if rule.on in ("point", "calibrated") else conservative

    def check(passed: bool, outcome: str) -> Check:
        return Check(gate, scope, passed, outcome, tally, interval, value, rule, calibrated)

    if on_labels and (calibrated is None or calibrated.estimate is None):
        return check(False, NO_CALIBRATION)
    if tally.n and tally.unscored / tally.n > rule.max_unscored:
        return check(False, TOO_MANY_UNSCORED)
    if scored < rule.min_n:
        return check(False, TOO_FEW_SCORED)
    if value is None:
        return check(False, NO_SCORED)
    return check(_COMPARE[gate.op](value, gate.bar), COMPARED)
