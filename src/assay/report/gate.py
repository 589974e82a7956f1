"""The gate's checks in words, one line each, and the verdict: what `assay score --gate` prints.
The checks themselves (which scope, which figure, what came of it) are gate.check_gates'."""

from __future__ import annotations

from collections.abc import Sequence

from ..gate import COMPARED, NO_CALIBRATION, NO_SCORED, TOO_FEW_SCORED, TOO_MANY_UNSCORED, Check
from ..summary import Tally
from .format import DASH, percent


def gate_lines(checks: Sequence[Check]) -> list[str]:
    """Every check ('gate passed: ...' or 'gate FAILED: ...'), then the verdict over all of them."""
    lines = [f"gate {'passed' if check.passed else 'FAILED'}: {why(check)}" for check in checks]
    failed = sum(not check.passed for check in checks)
    verdict = f"{failed} of {len(checks)} checks failed" if failed else f"all {len(checks)} checks passed"
    return [*lines, f"gate: {verdict}"]


def why(check: Check) -> str:
    """What was measured in the check's scope, and why that passes or fails."""
    tally, interval, rule = check.tally, check.interval, check.rule
    scored = tally.n - tally.unscored
    shown = f"{check.gate.metric} {check.scope}: accuracy {percent(tally.accuracy)}"
    shown += (
        f" (95% CI {percent(interval.low)}{DASH}{percent(interval.high)}, n={scored})"
        if interval
        else f" (n={scored})"
    )
    shown += f", {unscored_text(tally)}"
    calibrated = check.calibrated
    if check.outcome == NO_CALIBRATION:
        why_not = calibrated.reason if calibrated is not None else "no human labels in this scope"
        return f"{shown}: no calibrated accuracy ({why_not}), so it cannot pass"
    if calibrated is not None and calibrated.interval is not None:
        shown += (
            f"; calibrated on {calibrated.labelled} human labels {percent(calibrated.estimate)} "
            f"(95% CI {percent(calibrated.interval.low)}{DASH}{percent(calibrated.interval.high)})"
        )
    if check.outcome == TOO_MANY_UNSCORED:
        limit = f"more than --max-unscored {percent(rule.max_unscored)} of its rows are unscored"
        return f"{shown}: {limit}, so it cannot pass"
    if check.outcome == TOO_FEW_SCORED:
        return f"{shown}: fewer than --min-n {rule.min_n} scored rows, so it cannot pass"
    if check.outcome == NO_SCORED:
        return f"{shown}: no scored rows"
    assert check.outcome == COMPARED and check.value is not None
    end = "upper" if check.gate.ceiling else "lower"
    measured = {"point": "accuracy", "calibrated": "calibrated accuracy"}.get(rule.on)
    if measured is None:
        measured = f"{'the calibrated' if calibrated is not None else 'its'} interval's {end} end"
    relation = "meets" if check.passed else "fails"
    return f"{shown}: {measured} {percent(check.value)} {relation} {check.gate.op} {percent(check.gate.bar)}"


def unscored_text(tally: Tally) -> str:
    """The share of a scope's rows that are unscored, with the count: 'unscored 38.0% (27 of 71)'."""
    share = tally.unscored / tally.n if tally.n else 0.0
    return f"unscored {percent(share)} ({tally.unscored} of {tally.n})"
