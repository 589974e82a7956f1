"""How far each metric (a model grader's too) agrees with human labels: measured, not assumed.

A row whose label is one of the positive values counts as correct, one of the negative values (by
default: any other label) as incorrect; a metric's pass is its "correct". For each metric, overall,
per domain and per language: the confusion matrix, precision, recall, and Cohen's kappa with its 95%
interval. Rows with another label (``possibly_correct``, say, when the negatives are named) are
reported apart, with how often the metric passes them; rows the metric left unscored are counted.
"""

from __future__ import annotations

import collections
import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import stats
from .errors import UsageError
from .metric import MetricScores, Outcome
from .records import Record
from .scoring import ScoreRun

DEFAULT_POSITIVE = ("correct", "true", "1", "yes")
# Where a row goes in (tp, fp, fn, tn), by (the metric passes it, people call it correct).
_CELL = {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}


@dataclass(frozen=True)
class Confusion:
    tp: int  # metric passes, people say correct
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def kappa(self) -> stats.Kappa | None:
        return stats.cohen_kappa(self.tp, self.fp, self.fn, self.tn)

    @property
    def raw_agreement(self) -> float | None:
        """The share of rows on which the metric and the people agree (kappa before chance is removed)."""
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def kappa_undefined(self) -> str | None:
        """Why kappa says nothing here (``stats.cohen_kappa``: a rater with one class only), or None."""
        if self.n == 0:
            return "no labelled rows"
        if 0 in (self.tp + self.fn, self.fp + self.tn):
            return "every label is one class"
        if 0 in (self.tp + self.fp, self.fn + self.tn):
            return "the metric gives every row one verdict"
        return None

    def as_dict(self) -> dict[str, Any]:
        kappa = self.kappa
        low_high = kappa.interval if kappa is not None else None
        undefined = {"kappa_undefined": self.kappa_undefined} if self.kappa_undefined else {}
        return {
            "n": self.n, "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
            "precision": self.precision, "recall": self.recall, "raw_agreement": self.raw_agreement,
            "kappa": kappa.kappa if kappa is not None else None,
            "kappa_interval": None if low_high is None else {"low": low_high.low, "high": low_high.high},
            **undefined,
        }  # fmt: skip


@dataclass(frozen=True)
class MetricAgreement:
    metric: str
    overall: Confusion
    domains: Mapping[str, Confusion]
    langs: Mapping[str, Confusion]
    other_labels: Mapping[str, tuple[int, int]]  # label -> (rows, rows the metric passes)
    unscored: int  # labelled rows the metric left unscored (not in the matrices)

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "domains": {d: c.as_dict() for d, c in self.domains.items()},
            "langs": {lang: c.as_dict() for lang, c in self.langs.items()},
            "other_labels": {label: {"n": n, "passes": p} for label, (n, p) in self.other_labels.items()},
            "unscored": self.unscored,
        }


def human_labels(run: ScoreRun, column: str) -> list[str]:
    if column not in run.dataset.columns:
        close = difflib.get_close_matches(column, run.dataset.columns, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise UsageError(
            f"no column '{column}' of human labels (columns found: {', '.join(run.dataset.columns)})",
            where=run.dataset.source,
            fix=f"{hint}name the column of human labels with --human",
        )
    field = next((name for name, mapped in run.dataset.fields.items() if mapped == column), None)
    if field is not None:  # read as that field, so it is not among the rows' other cells: no label at all
        raise UsageError(
            f"'{column}' is the file's {field} column, not a column of human labels",
            where=run.dataset.source,
            fix="name the column of human labels with --human",
        )
    return [label_text(record.meta.get(column)) for record in run.records]


def label_text(value: object) -> str:
    """A label as text to compare: JSON's true/false and 1/0/1.0 as "true"/"false" and "1"/"0"; no value
    (None, or NaN as pandas writes an empty cell) as no label."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and float(value).is_integer():
        return str(int(value))
    return str(value).strip().lower()


def truth_of(labels: Sequence[str], positive: Iterable[str], negative: Iterable[str]) -> list[bool | None]:
    """Each row's verdict by people: True for a positive label, False for a negative one, None for no
    label or one set apart."""
    positives, negatives = label_sets(positive, negative)
    return [_truth(label, positives, negatives) for label in labels]


def agree(
    run: ScoreRun,
    column: str,
    positive: Iterable[str] = DEFAULT_POSITIVE,
    negative: Iterable[str] = (),
    *,
    labels: Sequence[str] | None = None,
) -> list[MetricAgreement]:
    """Each metric against the human labels in `column` (or `labels`, one per row, read elsewhere)."""
    if labels is None:
        labels = human_labels(run, column)
    truth = truth_of(labels, positive, negative)
    return [_metric(name, scores, run.records, labels, truth) for name, scores in run.metrics.items()]


def unmatched_labels(
    run: ScoreRun,
    column: str,
    positive: Iterable[str],
    negative: Iterable[str],
    *,
    labels: Sequence[str] | None = None,
) -> str | None:
    """What to warn of when no row's label is one the positives (or, named, the negatives) name: every
    row would count incorrect (or be set apart) because the file's labels are other words ('ok',
    'yes'), a mistake the numbers alone would not show. None when a label matched."""
    positives, negatives = label_sets(positive, negative)
    seen = collections.Counter(
        label for label in (human_labels(run, column) if labels is None else labels) if label
    )
    if not seen or any(label in positives | negatives for label in seen):
        return None
    shown = ", ".join(f"{label!r} ({n})" for label, n in seen.most_common(5))
    counted = "set apart" if negatives else "counted incorrect"
    return (
        f"no label in {column!r} is a positive one ({', '.join(map(repr, sorted(positives)))}), so every "
        f"row is {counted}; if some of its labels ({shown}) mean correct, name them with --positive VALUE"
    )


def label_sets(positive: Iterable[str], negative: Iterable[str]) -> tuple[set[str], set[str]]:
    """The positive and negative labels as compared (trimmed, lowercase); a label in both is refused,
    since a row with it would count as correct and incorrect at once."""
    positives = {value.strip().lower() for value in positive}
    negatives = {value.strip().lower() for value in negative}
    if "" in positives | negatives:  # a row with no label would count as correct (or incorrect)
        raise UsageError(
            "an empty label given with --positive or --negative (rows with no label are reported apart)",
            fix="name each label by its text",
        )
    both = sorted(positives & negatives)
    if both:
        raise UsageError(
            f"{', '.join(map(repr, both))} given as both a positive and a negative label",
            fix="name each label once, with --positive or with --negative",
        )
    if not positives:
        raise UsageError("no positive label given", fix="name at least one with --positive VALUE")
    return positives, negatives


def _truth(label: str, positives: set[str], negatives: set[str]) -> bool | None:
    """True for a positive label, False for a negative one (any other label when none are named), None
    for a label reported apart."""
    if label in positives:
        return True
    if (label in negatives) if negatives else bool(label):
        return False
    return None


def _metric(
    name: str,
    scores: MetricScores,
    records: Sequence[Record],
    labels: Sequence[str],
    truth: Sequence[bool | None],
) -> MetricAgreement:
    cells: dict[tuple[str, str], list[int]] = {}  # (kind, key) -> [tp, fp, fn, tn]
    others: dict[str, list[int]] = {}
    unscored = 0
    for index, record in enumerate(records):
        outcome = Outcome(scores.outcomes[index])
        if truth[index] is None:
            found = others.setdefault(labels[index] or "(no label)", [0, 0])
            found[0] += 1
            found[1] += outcome is Outcome.PASS
            continue
        if outcome is Outcome.UNSCORED:
            unscored += 1
            continue
        cell = _CELL[outcome is Outcome.PASS, bool(truth[index])]
        for key in (("all", ""), ("domain", record.domain), ("lang", record.lang or "(no lang)")):
            cells.setdefault(key, [0, 0, 0, 0])[cell] += 1
    return MetricAgreement(
        metric=name,
        overall=Confusion(*cells.get(("all", ""), [0, 0, 0, 0])),
        domains={k: Confusion(*v) for (kind, k), v in sorted(cells.items()) if kind == "domain"},
        langs={k: Confusion(*v) for (kind, k), v in sorted(cells.items()) if kind == "lang"},
        other_labels={label: (n, p) for label, (n, p) in sorted(others.items())},
        unscored=unscored,
    )
