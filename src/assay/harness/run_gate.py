"""The gate of a harness run (``assay run --gate 'factual>=0.90' --gate-on lower``): issue 5's gate with
issue 6's unscored rule, on the run's summary, and how many more correct items each failed check needs.

Its scope, by default, is the whole run only (``overall``): a gold set's items have no domain (their
``domain`` is empty), and a per-scope bar on ~20 items cannot be met on the interval's lower end at all
(20 of 20 correct has a Wilson lower end of 83.9%). ``scopes`` gates each scope (the item's ``scope``, the
policy) alone, and ``all`` the whole and every scope, as ``assay score --gate-scope all`` does domains.

"Needs k more": the smallest k such that k more of the scope's scored items correct, the count of scored
items fixed, meets the bar (on the point, or on the interval's conservative end with ``--gate-on lower``);
None when even every scored item correct would not (and when no run could: ``factual>1.0``, or a bar
of 1.0 on the lower end). A check failed by the unscored rule needs items scored, not answered better:
it has no k.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import UsageError
from ..gate import (
    CALIBRATED_ON,
    COMPARED,
    MAX_SYSTEM_ERRORS,
    RUN_SCOPES,
    TOO_FEW_SCORED,
    TOO_MANY_UNSCORED,
    Check,
    Gate,
    Rule,
    check_gates,
)
from ..gate import (
    GateSettings as _GateSettings,
)
from ..metric import system_failures
from ..report.format import percent
from ..report.gate import gate_lines
from ..scorers import MetricScores
from ..scoring import ScoreRun
from ..stats import Interval
from ..summary import Summary, Tally, summarize
from .outcomes import CITATION, NOT_APPLICABLE

_MEETS: dict[str, Callable[[float, float], bool]] = {">=": operator.ge, ">": operator.gt}


# MAX_SYSTEM_ERRORS, the largest share of a run's items that may be system errors (issue 23): past it
# the numbers are the system's failures more than its answers (a run of 20 with 5 timeouts grades 15),
# and the gate fails whatever the accuracy of the rest. A run whose every item failed is not gated at
# all: the command stops with exit 2 (cli/run.py), as a run that could not be made.


@dataclass(frozen=True)
class GateSettings(_GateSettings):
    """A run's gate settings: ``assay.gate.GateSettings`` (one set of defaults), over a run's scopes,
    and the share of items that may be system errors (checked with or without gates)."""

    scopes: tuple[str, ...] = RUN_SCOPES
    max_system_errors: float = MAX_SYSTEM_ERRORS

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.on in CALIBRATED_ON:  # a run's replies are new: no person has labelled them yet
            raise UsageError(
                f"--gate-on {self.on} gates on human labels, which assay run does not read",
                fix="gate the run on point or lower; to gate on labels marked in assay view, run assay score "
                "--responses DIR/run.jsonl --labels DIR/human_labels.jsonl --gate-on calibrated",
            )
        if not 0.0 <= self.max_system_errors <= 1.0:
            raise UsageError(
                f"--max-system-errors must be a share from 0 to 1, got {self.max_system_errors!r}",
                fix="give a fraction or a percentage, e.g. 0.2 or 20%",
            )


@dataclass(frozen=True)
class SystemErrors:
    """The gate's check of the share of items that are system errors (``--max-system-errors``)."""

    errors: int
    items: int
    limit: float

    @property
    def share(self) -> float:
        return self.errors / self.items if self.items else 0.0

    @property
    def passed(self) -> bool:
        return self.share <= self.limit

    def line(self) -> str:
        shown = f"system errors: {self.errors} of {self.items} items ({percent(self.share)})"
        if self.passed:
            return f"gate passed: {shown}, at most --max-system-errors {percent(self.limit)}"
        return (
            f"gate FAILED: {shown}, more than --max-system-errors {percent(self.limit)}: the system "
            "failed too often for the run to pass (the reasons are in results.md)"
        )


@dataclass(frozen=True)
class Needed:
    """What one failed check needs: `more` correct items of `scored`, or None when no number would do."""

    check: Check
    correct: int
    scored: int
    more: int | None

    def words(self) -> str:
        gate, scope = self.check.gate, self.check.scope
        head = f"{gate.metric} {scope}: {self.correct} of {self.scored} scored items correct"
        if self.more is None and not reachable(gate, self.check.rule.on):
            on = " on the interval's lower end" if self.check.rule.on == "lower" else ""
            return f"{head}; no run can meet {gate.text}{on}, whatever its items (lower the bar)"
        if self.more is None:
            return f"{head}; even all {self.scored} correct would not meet {gate.text} (more items needed)"
        return (
            f"{head}; {gate.text} needs {self.more} more correct "
            f"({self.correct + self.more} of {self.scored})"
        )


@dataclass(frozen=True)
class RunGate:
    checks: tuple[Check, ...]
    needed: tuple[Needed, ...]  # for each failed floor check compared against its bar
    system_errors: SystemErrors | None = None

    @property
    def passed(self) -> bool:
        errors_ok = self.system_errors is None or self.system_errors.passed
        return errors_ok and all(check.passed for check in self.checks)

    def lines(self) -> list[str]:
        """Each check in words (the share of system errors first), the verdict, then what each failed
        check needs."""
        unscored = [_unscored_words(check) for check in self.checks if check.outcome == TOO_MANY_UNSCORED]
        needs = [found.words() for found in self.needed]
        checks = gate_lines(self.checks)[:-1]  # the verdict is said over the system errors' check too
        passed = [check.passed for check in self.checks]
        if self.system_errors is not None:
            checks.insert(0, self.system_errors.line())
            passed.insert(0, self.system_errors.passed)
        failed = passed.count(False)
        verdict = f"{failed} of {len(passed)} checks failed" if failed else f"all {len(passed)} checks passed"
        return [*checks, f"gate: {verdict}", *(f"gate: {line}" for line in [*unscored, *needs])]

    def as_dict(self) -> dict[str, object]:
        errors = self.system_errors
        return {
            "passed": self.passed,
            "system_errors": None
            if errors is None
            else dataclasses.asdict(errors) | {"passed": errors.passed},
            "checks": [_check_dict(check) for check in self.checks],
            "needed": [
                {"gate": n.check.gate.text, "scope": n.check.scope, "correct": n.correct, "scored": n.scored}
                | {"more": n.more}
                for n in self.needed
            ],
            "lines": self.lines(),
        }


def check_run(run: ScoreRun, settings: GateSettings) -> RunGate:
    """Every gate against the run (``with_outcomes``'s, for ``factual``) in the settings' scope, each
    over the rows its metric applies to (``gated_rows``)."""
    checks: list[Check] = []
    rule = (settings.on, settings.min_n, settings.max_unscored)
    if settings.scope in ("overall", "all"):
        for gate in settings.gates:
            checks += check_gates(gated_rows(run, gate.metric).summary, [gate], *rule, scope="overall")
    if settings.scope in ("scopes", "all"):
        for gate in settings.gates:
            gated = gated_rows(run, gate.metric)
            checks += check_gates(scope_summary(gated, [gate.metric]), [gate], *rule, scope="domains")
            checks += _scopes_left_out(run, gated, gate, Rule(*rule))
    needed = [_needed(run.summary, check) for check in checks if not check.passed]
    errors = system_errors(run, settings.max_system_errors)
    return RunGate(tuple(checks), tuple(found for found in needed if found is not None), errors)


def system_errors(run: ScoreRun, limit: float) -> SystemErrors:
    """How many of the run's items are system errors (their outcome class), against `limit`."""
    return SystemErrors(len(system_failures(run.records)), len(run.records), limit)


def gated_rows(run: ScoreRun, metric: str) -> ScoreRun:
    """The rows a gate on `metric` is over. ``citation`` does not apply to a refusal item, nor to a reply
    that failed, was blocked or declined: such a row will never have a citation verdict, so counting it
    unscored would fail ``citation>=BAR`` by the unscored rule on any run with refusal items. Every other
    metric is gated over all the rows."""
    scores = run.metrics.get(CITATION)
    if metric != CITATION or scores is None:
        return run
    keep = [i for i in range(len(run.records)) if scores.reasons.get(i) != NOT_APPLICABLE]
    chosen = MetricScores.all_failing(CITATION, len(keep))
    for new, old in enumerate(keep):
        chosen.outcomes[new] = scores.outcomes[old]
        if old in scores.reasons:
            chosen.reasons[new] = scores.reasons[old]
    dataset = dataclasses.replace(run.dataset, records=[run.records[i] for i in keep])
    blank = bytearray(run.blank[i] for i in keep)
    signatures = {CITATION: run.summary.metrics[CITATION].signature}
    summary = summarize(
        dataset, {CITATION: chosen}, blank, signatures, run.summary.options, run.summary.intervals
    )
    return dataclasses.replace(run, dataset=dataset, metrics={CITATION: chosen}, blank=blank, summary=summary)


def _scopes_left_out(run: ScoreRun, gated: ScoreRun, gate: Gate, rule: Rule) -> list[Check]:
    """The scopes with answerable items that ``gated_rows`` left no row of (every answer blocked): each a
    check failed for want of scored rows, so a scope the system never answered cannot drop out of a
    per-scope gate. A scope of refusal items only has nothing to cite, and no check."""
    kept = {record.scope or record.domain for record in gated.records}
    answerable = [r for r in run.records if r.gold is None or r.gold.expected_refusal is not True]
    left = dict.fromkeys(r.scope or r.domain for r in answerable if (r.scope or r.domain) not in kept)

    def failed(name: str) -> Check:
        return Check(gate, name or "(no domain)", False, TOO_FEW_SCORED, Tally(0, 0), None, None, rule)

    return [failed(name) for name in left]


def scope_summary(run: ScoreRun, metrics: Sequence[str]) -> Summary:
    """The run's summary of `metrics` with each item's scope as its domain (a row without a scope keeps
    its domain): what per-scope gating checks."""
    missing = [name for name in metrics if name not in run.metrics]
    if missing:
        raise UsageError(
            f"the gate names {missing[0]!r}, which this run did not score",
            fix=f"gate on one of: {', '.join(run.metrics)}",
        )
    records = [dataclasses.replace(record, domain=record.scope or record.domain) for record in run.records]
    dataset = dataclasses.replace(run.dataset, records=records)
    chosen = {name: run.metrics[name] for name in dict.fromkeys(metrics)}
    signatures = {name: run.summary.metrics[name].signature for name in chosen}
    return summarize(dataset, chosen, run.blank, signatures, run.summary.options, run.summary.intervals)


def more_needed(
    tally: Tally, gate: Gate, on: str, interval_of: Callable[[Tally], Interval | None]
) -> int | None:
    """The fewest more correct items (scored items fixed) that meet a floor gate; None when none do."""
    meets = _MEETS.get(gate.op)
    if meets is None:
        return None
    scored = tally.n - tally.unscored
    for more in range(0, scored - tally.passed + 1):
        better = dataclasses.replace(tally, passed=tally.passed + more)
        interval = None if on == "point" else interval_of(better)
        value = better.accuracy if on == "point" else None if interval is None else interval.low
        if value is not None and meets(value, gate.bar):
            return more
    return None


def reachable(gate: Gate, on: str) -> bool:
    """Whether some run could meet a floor gate: no accuracy is above 100%, and the interval's lower end
    of all n correct is below 100% at any n (Wilson's; the bootstrap's too, which falls back to it)."""
    if gate.bar < 1.0:
        return True
    return gate.op == ">=" and on == "point"


def _needed(summary: Summary, check: Check) -> Needed | None:
    if check.outcome != COMPARED or check.gate.ceiling:
        return None
    tally = check.tally
    more = more_needed(tally, check.gate, check.rule.on, summary.interval)
    return Needed(check, tally.passed, tally.n - tally.unscored, more)


def _unscored_words(check: Check) -> str:
    tally, allowed = check.tally, math.floor(check.rule.max_unscored * check.tally.n)
    return (
        f"{check.gate.metric} {check.scope}: {tally.unscored} of {tally.n} items unscored, at most {allowed} "
        "may be: the unscored items need a verdict (see their reasons) before the bar can be checked"
    )


def _check_dict(check: Check) -> dict[str, object]:
    tally = check.tally
    return {
        "gate": check.gate.text,
        "scope": check.scope,
        "passed": check.passed,
        "outcome": check.outcome,
        "on": check.rule.on,
        "value": check.value,
        "n": tally.n,
        "correct": tally.passed,
        "unscored": tally.unscored,
        "accuracy": tally.accuracy,
        "interval": None if check.interval is None else check.interval.as_dict(),
    }
