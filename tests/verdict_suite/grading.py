"""Grading the suite exactly as ``assay run`` grades a run (src/assay/harness/run.py): the replies
written as run.jsonl rows (the gold item's keys, ``response``, ``reply``), loaded with
``assay.load_records``, scored in one call with ``run_metrics(sources=...)`` and the outcome metrics
(``harness.outcomes.outcome_metrics``: ``factual`` holds each row's outcome) and ``ScoreOptions(sources=
...)``; then the outcomes set against the careful reader's labels."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay import load_records
from assay.harness.outcomes import OUTCOME_COLUMN, REASON_COLUMN, outcome_metrics
from assay.harness.run import run_metrics
from assay.scoring import ScoreOptions, score

from .replies import CORRECT, LabelledReply


@dataclass(frozen=True)
class Graded:
    """A labelled reply with the outcome assay gave it and why."""

    reply: LabelledReply
    outcome: str
    reason: str

    @property
    def agrees(self) -> bool:
        return self.outcome == self.reply.label


def run_rows(replies: Sequence[LabelledReply]) -> list[dict[str, object]]:
    """Each reply as a run.jsonl row: its gold item's keys (the id made unique per reply), the reply's
    text as ``response``, and ``reply`` with its citations."""
    return [
        {
            **reply.item,
            "id": f"{reply.item['id']}-{index}",
            "response": reply.text,
            "reply": {"citations": list(reply.citations)},
        }
        for index, reply in enumerate(replies)
    ]


def grade(replies: Sequence[LabelledReply], sources: Path, folder: Path) -> list[Graded]:
    """The replies graded as ``assay run --sources`` grades them, the rows written to folder/run.jsonl."""
    path = folder / "run.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for row in run_rows(replies):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    options = ScoreOptions(sources=str(sources))
    metrics = outcome_metrics(run_metrics(sources=sources))
    scored = score(load_records(path), metrics, options=options)
    texts = scored.metrics["factual"].texts
    return [
        Graded(reply, outcome, reason)
        for reply, outcome, reason in zip(replies, texts[OUTCOME_COLUMN], texts[REASON_COLUMN])
    ]


@dataclass(frozen=True)
class Agreement:
    """How often assay's outcomes agree with the labels: the confusion table and the three shares."""

    graded: tuple[Graded, ...]

    @property
    def faults(self) -> list[Graded]:
        return [one for one in self.graded if one.reply.label != CORRECT]

    @property
    def correct(self) -> list[Graded]:
        return [one for one in self.graded if one.reply.label == CORRECT]

    @property
    def misses(self) -> list[Graded]:
        """Faults graded ``correct``."""
        return [one for one in self.faults if one.outcome == CORRECT]

    @property
    def false_alarms(self) -> list[Graded]:
        """Correct replies given another definite class (not correct, not unscored)."""
        return [one for one in self.correct if one.outcome not in (CORRECT, "unscored")]

    @property
    def unscored(self) -> list[Graded]:
        """Correct replies left unscored."""
        return [one for one in self.correct if one.outcome == "unscored"]

    @property
    def wrong_passed(self) -> list[Graded]:
        """Replies with a wrong answer (or none) given a passing class, ``correct`` or
        ``correct_ungrounded``: the factual metric counts them right."""
        wrong = ("wrong_uncited", "wrong_cited", "refused_answerable", "answered_refusal")
        passing = (CORRECT, "correct_ungrounded")
        return [one for one in self.graded if one.reply.label in wrong and one.outcome in passing]

    def share(self, part: Sequence[Graded], whole: Sequence[Graded]) -> float:
        return len(part) / len(whole) if whole else 0.0

    @property
    def miss_share(self) -> float:
        return self.share(self.misses, self.faults)

    @property
    def false_alarm_share(self) -> float:
        return self.share(self.false_alarms, self.correct)

    @property
    def unscored_share(self) -> float:
        return self.share(self.unscored, self.correct)

    @property
    def agreement(self) -> float:
        return self.share([one for one in self.graded if one.agrees], self.graded)

    def confusion(self) -> Counter[tuple[str, str]]:
        """(label, outcome) -> rows."""
        return Counter((one.reply.label, one.outcome) for one in self.graded)

    def disagreements(self) -> list[Graded]:
        """Rows whose outcome is not their label, misses and false alarms first."""
        wrong = [one for one in self.graded if not one.agrees]
        rank = {id(one): 0 for one in self.misses} | {id(one): 1 for one in self.false_alarms}
        return sorted(wrong, key=lambda one: rank.get(id(one), 2))
