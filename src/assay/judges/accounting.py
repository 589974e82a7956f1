"""The judge's accounting: what each judge of the chain cost (calls, cache hits, tokens, USD), what the
judge metric did with the rows (sent to the chain, decided by the cascade and why, blank, truncated,
over budget), each judge's verdicts and most repeated rationale, and the warnings every report prints
from them (a judge left out, a judge of the system's family, a judge that may not be judging).

Plain data, importing nothing of the HTTP clients nor of ``assay.summary`` (which re-exports
``JudgeSummary`` and ``JudgeUsage`` for older imports).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ..metric import Outcome
from ._base import Completion, JudgeUnavailable
from .section import JudgeSection

CORRECT, INCORRECT = "CORRECT", "INCORRECT"  # the verdicts counted per judge (as judges.prompt names them)


@dataclass
class JudgeUsage:
    """One judge's calls and tokens over a run."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    failures: int = 0  # unavailable, or twice without a verdict
    models: set[str] = field(default_factory=set)  # the served model ids (@fingerprint when given)

    def add(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        """Count one completion."""
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost += cost


class UncountedUsage(JudgeUnavailable):
    """A reply whose cost cannot be counted: usage that is not a count of tokens (negative, fractional,
    text, absurd), or none at all from a judge with a price. Under --max-cost such a judge leaves the
    chain for the rest of the run (its spending could never reach the ceiling, issue 22); without it,
    a reply without usage is used as it is (`completion`), and one with a broken count is not (None)."""

    def __init__(self, reason: str, completion: Completion | None = None) -> None:
        super().__init__(reason)
        self.completion = completion


# A judge that does not judge (issue 9, item 11): one verdict on nearly every row it decided, or one
# rationale on most of them, among at least NOT_JUDGING_ROWS rows (fewer say too little).
NOT_JUDGING_ROWS = 20
ONE_VERDICT_SHARE = 0.95
ONE_RATIONALE_SHARE = 0.5
_CHECK_IT = "measure it against human labels with `assay agree --metric judge --human COLUMN`"


@dataclass(frozen=True)
class JudgeSummary:
    """What the judge metric did: which rows cost a model call, what they cost, how far it agreed, and
    whether a judge seems not to judge at all (read by every report through ``warnings``)."""

    sent_to_judges: int  # rows the chain saw (the others: blank, or decided by the cascade)
    decided_by_cascade: int
    blank: int
    truncated: int  # responses cut to the length limit, with a marker
    over_budget: int  # rows left unscored because --max-cost was reached
    seconds: float
    usage: Mapping[str, JudgeUsage]  # by judge label
    agreement: Mapping[str, tuple[int, int]]  # matcher -> (rows both scored, rows they agree on)
    notes: tuple[str, ...] = ()  # the run's own warnings: judges left out, unreadable cache rows, family
    verdicts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # label -> verdict -> rows
    top_rationale: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # label -> (text, rows)
    # With the cascade: rows it decided, or sent to the judges, by reason (judges.metric.CASCADE_REASONS).
    cascade: Mapping[str, int] = field(default_factory=dict)
    # With a jury (--jury): its rule, each judge's votes, its agreement and split rows (jury.jury_summary).
    jury: Mapping[str, Any] | None = None

    @property
    def not_judging(self) -> tuple[str, ...]:
        """A warning for each judge that gave one verdict, or one rationale, on (nearly) every row."""
        found = []
        for label, counts in self.verdicts.items():
            rows = sum(counts.values())
            if rows < NOT_JUDGING_ROWS:
                continue
            verdict, most = max(counts.items(), key=lambda item: item[1])
            if most >= ONE_VERDICT_SHARE * rows:
                found.append(
                    f"the judge {label} gave {verdict} on {most} of the {rows} rows it decided: it may not "
                    f"be judging; {_CHECK_IT}"
                )
            rationale, repeated = self.top_rationale.get(label, ("", 0))
            if repeated > ONE_RATIONALE_SHARE * rows:
                found.append(
                    f"the judge {label} gave one rationale ({rationale[:60]!r}) on {repeated} of the {rows} "
                    f"rows it decided: it may not be judging; {_CHECK_IT}"
                )
        return tuple(found)

    @property
    def warnings(self) -> tuple[str, ...]:
        return (*self.notes, *self.not_judging)

    def as_dict(self) -> dict[str, Any]:
        """The accounting as the JSON summary holds it (its ``"judge"`` key)."""
        found = asdict(self)
        found["usage"] = {
            label: asdict(usage) | {"models": sorted(usage.models)} for label, usage in self.usage.items()
        }
        found["agreement"] = {
            name: {"both_scored": both, "agree": agree} for name, (both, agree) in self.agreement.items()
        }
        del found["notes"]  # in the warnings, with the flags read off the verdicts
        found["top_rationale"] = {
            label: {"rationale": text, "rows": rows} for label, (text, rows) in self.top_rationale.items()
        }
        found["warnings"] = list(self.warnings)
        if self.jury is None:  # a chain's accounting is as it was before juries
            del found["jury"]
        return found

    def report_section(self) -> JudgeSection:
        """The accounting as a section of the run's report (``report.model.build_report`` asks for it)."""
        return JudgeSection(self.as_dict())


class Decided(Protocol):
    """What the accounting reads of one row's judgement (``judges.run.Judgement``)."""

    @property
    def outcome(self) -> Outcome: ...

    @property
    def judge(self) -> str | None: ...

    @property
    def rationale(self) -> str | None: ...


def verdicts_by_judge(judgements: Iterable[Decided]) -> dict[str, dict[str, int]]:
    """How many rows each judge of the chain decided CORRECT and INCORRECT."""
    counts: dict[str, dict[str, int]] = {}
    for j in judgements:
        if j.judge is not None and j.outcome != Outcome.UNSCORED:
            verdict = CORRECT if j.outcome == Outcome.PASS else INCORRECT
            by_verdict = counts.setdefault(j.judge, {CORRECT: 0, INCORRECT: 0})
            by_verdict[verdict] += 1
    return counts


def top_rationales(judgements: Iterable[Decided]) -> dict[str, tuple[str, int]]:
    """Each judge's most repeated rationale (compared with case and spacing folded) and on how many rows."""
    counts: dict[str, Counter[str]] = {}
    for j in judgements:
        if j.judge is not None and j.outcome != Outcome.UNSCORED and j.rationale:
            counts.setdefault(j.judge, Counter())[" ".join(j.rationale.split()).casefold()] += 1
    return {label: found.most_common(1)[0] for label, found in counts.items()}


JUDGE = "judge"  # the LLM judge's metric


def judge_summary(summary: object) -> JudgeSummary | None:
    """The judge's accounting in a run's summary (``Summary.details``, keyed by metric), None when no
    judge ran."""
    found = getattr(summary, "details", {}).get(JUDGE)
    return found if isinstance(found, JudgeSummary) else None
