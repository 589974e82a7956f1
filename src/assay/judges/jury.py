"""A jury (``--jury RULE``): every judge of the chain is asked every row that reaches the judges, and the
row's verdict is the rule applied to their votes, instead of the first judge's that answers.

A judge's vote is CORRECT, INCORRECT, or missing: the judge was down, failed past its retries, replied
twice without a verdict, left the chain, or the cost ceiling was reached. A missing vote is never made
up; each rule says what it decides without it:

- ``majority`` (the default): the verdict more than half of the *whole jury* gives (2 of 2, 2 of 3,
  3 of 4). A missing vote counts for neither side, so it can leave a row without a majority; a tie
  (1 to 1, 2 to 2) has none. A row without a majority is unscored ("the jury is split"), never a pass.
- ``unanimous``: CORRECT only when every judge of the jury says CORRECT; INCORRECT as soon as one says
  INCORRECT (a strict gate); unscored when every vote cast is CORRECT but one is missing.
- ``consensus``: the verdict every judge of the jury gives; any split, or any missing vote, is unscored
  (the rows to review by hand).

The report gives each judge's votes and cost, the rows on which the votes cast split, and how far the
jury agreed beyond chance: Fleiss' kappa over the rows every judge voted on, and Krippendorff's alpha
(nominal) over every row with two votes or more (``stats``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..metric import Outcome
from ..stats import fleiss_kappa, krippendorff_alpha_nominal
from .prompt import CORRECT, INCORRECT

DEFAULT_JURY = "majority"
VERDICTS = (CORRECT, INCORRECT)


@dataclass(frozen=True)
class Vote:
    """One judge's vote on one row: its verdict, or None with the reason it has none."""

    judge: str  # the judge's label
    verdict: str | None  # CORRECT, INCORRECT, or None: no vote
    rationale: str | None = None
    model: str | None = None  # the model id the server said it used
    reason: str | None = None  # why there is no vote
    raw: str | None = None  # the last reply that was not a verdict

    @property
    def outcome(self) -> Outcome:
        """As the accounting reads a judgement (``accounting.Decided``)."""
        if self.verdict is None:
            return Outcome.UNSCORED
        return Outcome.PASS if self.verdict == CORRECT else Outcome.FAIL

    def as_dict(self) -> dict[str, str | None]:
        return {"verdict": self.verdict, "rationale": self.rationale, "reason": self.reason}


# A rule: (CORRECT votes, INCORRECT votes, judges in the jury) -> the verdict, or None (no decision).
Decide = Callable[[int, int, int], str | None]


def _majority(correct: int, incorrect: int, size: int) -> str | None:
    if 2 * correct > size:
        return CORRECT
    return INCORRECT if 2 * incorrect > size else None


def _unanimous(correct: int, incorrect: int, size: int) -> str | None:
    if incorrect:
        return INCORRECT
    return CORRECT if correct == size else None


def _consensus(correct: int, incorrect: int, size: int) -> str | None:
    if correct == size:
        return CORRECT
    return INCORRECT if incorrect == size else None


@dataclass(frozen=True)
class JuryRule:
    name: str
    says: str  # what it decides, in one line: --help and docs/judge.md
    decide: Decide


JURY_RULES = {
    rule.name: rule
    for rule in (
        JuryRule(
            "majority", "the verdict of more than half the jury; a tie or too few votes: unscored", _majority
        ),
        JuryRule("unanimous", "CORRECT only if every judge says so; one INCORRECT: INCORRECT", _unanimous),
        JuryRule(
            "consensus", "the verdict every judge gives; a split or a missing vote: unscored", _consensus
        ),
    )
}


def rules_said() -> str:
    """Every rule with what it decides, in one line: --help's and an unknown rule's error's."""
    return "; ".join(f"{rule.name}: {rule.says}" for rule in JURY_RULES.values())


def jury_rule(name: str) -> JuryRule:
    """The rule by name (a UsageError naming the rules for any other)."""
    found = JURY_RULES.get(name.strip().lower())
    if found is None:
        raise UsageError(f"unknown jury rule {name!r}", where="--jury", fix=f"give one of: {rules_said()}")
    return found


def check_jury(labels: Sequence[str]) -> None:
    """A jury is two judges or more, each named once (a UsageError else)."""
    if len(labels) < 2:
        raise UsageError(
            f"a jury needs two judges or more, and the chain has {len(labels)}",
            where="--jury",
            fix="give --judge SPEC once per judge (two or more), or leave --jury out to use one judge",
        )
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise UsageError(
            f"the jury names the judge {', '.join(twice)} twice: its two votes would be one",
            where="--jury",
            fix="give each judge once (another model, or another server)",
        )


def decide(rule: JuryRule, votes: Sequence[Vote]) -> tuple[Outcome, str | None]:
    """The jury's outcome on one row by `rule`, and why it is unscored when it is."""
    correct, incorrect = _count(votes, CORRECT), _count(votes, INCORRECT)
    verdict = rule.decide(correct, incorrect, len(votes))
    if verdict is not None:
        return (Outcome.PASS if verdict == CORRECT else Outcome.FAIL), None
    missing = [f"{vote.judge}: {vote.reason}" for vote in votes if vote.verdict is None]
    counted = f"{correct} CORRECT, {incorrect} INCORRECT, {len(missing)} without a vote"
    return Outcome.UNSCORED, f"the jury ({rule.name}) did not decide: {counted}" + (
        f" ({'; '.join(missing)})" if missing else ""
    )


def votes_text(votes: Sequence[Vote]) -> str:
    """A row's votes as its ``judge_votes`` column holds them: JSON, judge label -> vote."""
    return json.dumps({vote.judge: vote.as_dict() for vote in votes}, ensure_ascii=False)


def votes_said(text: str) -> str:
    """A row's ``judge_votes`` in words, for its trace: "A: CORRECT (why); B: no vote (why)"."""
    said = []
    for label, vote in json.loads(text).items():
        if vote["verdict"] is None:
            said.append(f"{label}: no vote ({vote['reason']})")
        else:
            why = f" ({vote['rationale']})" if vote["rationale"] else ""
            said.append(f"{label}: {vote['verdict']}{why}")
    return "; ".join(said)


@dataclass(frozen=True)
class JuryRow:
    """What the jury's summary reads of one row it saw."""

    row: int
    id: str
    votes: Sequence[Vote]


def jury_summary(rule: JuryRule, labels: Sequence[str], rows: Sequence[JuryRow]) -> dict[str, Any]:
    """The jury's part of the judge's accounting: its rule and judges, each judge's votes, the rows its
    votes split on, and its agreement beyond chance."""
    complete = [row for row in rows if all(vote.verdict is not None for vote in row.votes)]
    kappa = fleiss_kappa([[_count(row.votes, verdict) for verdict in VERDICTS] for row in complete])
    alpha = krippendorff_alpha_nominal([[vote.verdict for vote in row.votes] for row in rows])
    return {
        "rule": rule.name,
        "rule_says": rule.says,
        "judges": list(labels),
        "rows": len(rows),
        "rows_every_judge_voted": len(complete),
        "votes": {label: _votes_of(label, rows) for label in labels},
        "fleiss_kappa": kappa,
        "krippendorff_alpha": alpha,
        "split": [_split(row) for row in rows if len({v.verdict for v in row.votes} - {None}) > 1],
    }


def _count(votes: Sequence[Vote], verdict: str) -> int:
    return sum(vote.verdict == verdict for vote in votes)


def _votes_of(label: str, rows: Sequence[JuryRow]) -> dict[str, int]:
    cast = [vote.verdict for row in rows for vote in row.votes if vote.judge == label]
    return {CORRECT: cast.count(CORRECT), INCORRECT: cast.count(INCORRECT), "missing": cast.count(None)}


def _split(row: JuryRow) -> dict[str, Any]:
    return {"row": row.row, "id": row.id, "votes": {vote.judge: vote.verdict for vote in row.votes}}


def jury_lines(jury: Mapping[str, Any]) -> list[str]:
    """The jury's part of the text report."""
    kappa, alpha = (_number(jury[key]) for key in ("fleiss_kappa", "krippendorff_alpha"))
    split = [str(row["id"]) for row in jury["split"]]
    shown = f": {', '.join(split[:20])}" + (", ..." if len(split) > 20 else "") if split else ""
    lines = [
        f"  jury ({jury['rule']}: {jury['rule_says']}) of {len(jury['judges'])} judges: {jury['rows']} rows, "
        f"{jury['rows_every_judge_voted']} with every vote; Fleiss' kappa {kappa}, "
        f"Krippendorff's alpha {alpha}",
        f"  the votes split on {len(split)} rows{shown}",
    ]
    return lines + [
        f"    {label}: {got[CORRECT]} CORRECT, {got[INCORRECT]} INCORRECT, {got['missing']} no vote"
        for label, got in jury["votes"].items()
    ]


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


@dataclass(frozen=True)
class Member:
    """A judge of the jury as the family check reads it: its label, its model's family, and whether that
    family is a known one or only its model name's leading letters (``spec.model_family``)."""

    label: str
    family: str
    known: bool


def family_warnings(members: Sequence[Member]) -> list[str]:
    """A warning for each model family two judges or more of the jury share (judges of one family share
    their biases: their agreement says less, and a majority of them outvotes the others), and one for each
    judge whose family is not known (the check compares its name's leading letters only)."""
    found = []
    families: dict[str, list[Member]] = {}
    for member in members:
        families.setdefault(member.family, []).append(member)
    for family, shared in families.items():
        if len(shared) > 1:
            known = "" if shared[0].known else " (an unknown family: the models' names begin alike)"
            found.append(
                f"the jury's judges {', '.join(m.label for m in shared)} are of one model family, "
                f"{family}{known}: they share their biases, and their agreement says less; give judges of "
                "different families"
            )
    found += [
        f"the model family of the jury's judge {m.label} is unknown (read as its name's leading letters, "
        f"{m.family!r}): a judge of the same family under another name would not be noticed"
        for m in members
        if not m.known
    ]
    return found
