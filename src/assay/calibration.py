"""Accuracy calibrated on a few human labels: what people would call correct, estimated from the
labelled rows and every row's automatic verdict, with a valid interval.

A metric's accuracy is what the metric calls correct. Where people label some rows, the share people
would call correct over *every* row can be estimated from those labels alone, or, much tighter, from
the labels and the metric's verdict on every row: prediction-powered inference (``stats.
prediction_powered_mean``). The metric's pass is the prediction (an unscored row predicts 0), and the
estimate is unbiased for the people's standard whatever the metric's errors, so every metric
estimates the same number and a better one only narrows the interval.

Both PPI (the verdicts' mean corrected by their mean error on the labelled rows) and its
power-tuned form PPI++ are computed; the tighter is reported, with the number of labelled rows and
how much narrower it is than the labels alone would give. It holds when the labelled rows are a
random sample of the rows: labels chosen for a reason (the rows a metric failed, say) bias it, and
the report says so. A scope with fewer than ``MIN_LABELS`` labelled rows gets no number, and says so;
where every row is labelled, the people's own accuracy is given with its Wilson interval.
"""

from __future__ import annotations

import collections
import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import stats
from .agreement import label_text
from .errors import InputError, UsageError
from .metric import MetricScores, Outcome
from .readers import Row, read_table
from .records import Record

# Fewer labelled rows than this give no calibrated number: the normal interval rests on the central
# limit theorem, which a few dozen 0/1 values begin to satisfy (the usual rule of thumb is 30).
MIN_LABELS = 30
MAX_LABEL_ROWS = 10_000_000  # a labels file longer than this is refused, not read into memory
DRAWN_COLUMN = "label_probability"  # a row drawn for labelling (suggest): its probability of being drawn
DRAW_SIZE_COLUMN = "label_drawn"  # how many rows that draw chose (labels missing from it are counted)


@dataclass(frozen=True)
class Calibrated:
    """One scope's calibrated accuracy, or the reason it has none."""

    labelled: int  # rows with a label people gave (correct or incorrect)
    unlabelled: int
    estimate: float | None = None
    interval: stats.Interval | None = None
    # "PPI++", "PPI", "drawn" (labels of rows drawn with known probabilities: actively_sampled_mean)
    # or "labels" (every row labelled: the people's own share)
    method: str = ""
    labels_only: stats.Interval | None = None  # the interval the labels alone give
    weight: float | None = None  # PPI++'s lambda (1 for PPI)
    reason: str = ""  # why there is no estimate

    @property
    def narrowing(self) -> float | None:
        """How much narrower the interval is than the labels alone give (0.4: 40% narrower)."""
        if self.interval is None or self.labels_only is None or self.labels_only.width <= 0:
            return None
        return 1 - self.interval.width / self.labels_only.width

    def as_dict(self) -> dict[str, Any]:
        return {
            "labelled": self.labelled,
            "unlabelled": self.unlabelled,
            "estimate": self.estimate,
            "interval": None if self.interval is None else self.interval.as_dict(),
            "method": self.method or None,
            "labels_only_interval": None if self.labels_only is None else self.labels_only.as_dict(),
            "narrowing": self.narrowing,
            "weight": self.weight,
            **({"reason": self.reason} if self.reason else {}),
        }


@dataclass(frozen=True)
class MetricCalibration:
    metric: str
    overall: Calibrated
    domains: Mapping[str, Calibrated]

    def as_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_dict(),
            "domains": {domain: found.as_dict() for domain, found in self.domains.items()},
        }


def calibrate(
    metrics: Mapping[str, MetricScores],
    records: Sequence[Record],
    truth: Sequence[bool | None],
    drawn: Sequence[float | None] | None = None,
) -> list[MetricCalibration]:
    """Each metric's calibrated accuracy, overall and per domain; `truth[i]` is people's verdict on row
    i (None: no label, or one set apart), `drawn[i]` the probability with which row i was drawn for
    labelling, where a draw (``suggest``) chose the labelled rows."""
    rows_of: dict[str, list[int]] = collections.defaultdict(list)
    for index, record in enumerate(records):
        rows_of[record.domain].append(index)
    domains = sorted(rows_of) if len(rows_of) > 1 else []  # one domain: its figure is the whole's
    found = []
    for name, scores in metrics.items():
        passes = [1.0 if Outcome(code) is Outcome.PASS else 0.0 for code in scores.outcomes]
        by_domain = {}
        for domain in domains:
            rows = rows_of[domain]
            in_domain = None if drawn is None else [drawn[i] for i in rows]
            by_domain[domain] = calibrated([passes[i] for i in rows], [truth[i] for i in rows], in_domain)
        found.append(MetricCalibration(name, calibrated(passes, truth, drawn), by_domain))
    return found


def calibrated(
    predictions: Sequence[float], truth: Sequence[bool | None], drawn: Sequence[float | None] | None = None
) -> Calibrated:
    """The calibrated share correct of one scope's rows: their predictions (1 pass, 0 otherwise),
    people's verdicts (None where there is none), and, for labels a draw chose, each labelled row's
    probability of being drawn."""
    labels = [float(t) for t in truth if t is not None]
    labelled_predictions = [p for p, t in zip(predictions, truth, strict=True) if t is not None]
    unlabelled_predictions = [p for p, t in zip(predictions, truth, strict=True) if t is None]
    counts = Calibrated(len(labels), len(unlabelled_predictions))
    if len(labels) < MIN_LABELS:
        return replace(counts, reason=f"not enough labels ({len(labels)} of the {MIN_LABELS} needed)")
    with_probability = (
        0 if drawn is None else sum(1 for d, t in zip(drawn, truth, strict=True) if t is not None and d)
    )
    if with_probability and with_probability < len(labels):
        return replace(
            counts,
            reason=f"labels of two kinds: {with_probability} drawn by assay agree --suggest and "
            f"{len(labels) - with_probability} not; calibrate on one kind",
        )
    if with_probability:
        assert drawn is not None
        sampled = stats.actively_sampled_mean(
            predictions, [None if t is None else float(t) for t in truth], drawn
        )
        assert sampled is not None  # MIN_LABELS rows or more, each labelled one with its probability
        return _estimated(counts, sampled, "drawn")
    if len(unlabelled_predictions) < 2:  # every row labelled: people's share is known, not estimated
        interval = stats.wilson(sum(labels), len(labels))
        return replace(counts, estimate=sum(labels) / len(labels), interval=interval, method="labels",
                       labels_only=interval)  # fmt: skip
    labelled = stats.LabelledSums.of(labels, labelled_predictions)
    unlabelled = stats.PredictedSums.of(unlabelled_predictions)
    plain = stats.prediction_powered_mean(labelled, unlabelled, weight=1.0)
    tuned = stats.prediction_powered_mean(labelled, unlabelled)
    assert plain is not None and tuned is not None  # both have 2 rows or more
    if tuned.interval.width < plain.interval.width:
        return _estimated(counts, tuned, "PPI++")
    return _estimated(counts, plain, "PPI")


def _estimated(counts: Calibrated, found: stats.PredictionPowered, method: str) -> Calibrated:
    return replace(
        counts, estimate=found.estimate, interval=found.interval, method=method,
        labels_only=found.labels_only, weight=found.weight,
    )  # fmt: skip


@dataclass(frozen=True)
class FileLabels:
    """The labels of a file, one per record ("" for none), and, for rows a draw chose (``suggest``),
    each labelled row's probability of being drawn (None for the others)."""

    labels: list[str]
    drawn: list[float | None] | None
    note: str = ""  # what the report should say of the draw (labels missing from it)


@dataclass
class _LabelRow:
    label: str
    location: int
    probability: float | None
    drawn: int | None
    response: str | None  # the reply the person labelled, where the file keeps it


def labels_from_file(
    path: str | Path, column: str, records: Sequence[Record], *, some_rows: bool = False
) -> FileLabels:
    """The label of each record, joined by id from a file of labels (CSV, JSONL, ...: an ``id`` column
    and `column`; ``human_labels.jsonl`` as ``assay view`` saves it is one). A record the file does not
    name has no label (""). An id twice in the file is an error, and so is one that no record has (a
    label meant for one row would be lost or put on another), unless the records are `some_rows` of the
    labelled ones (``--limit``, a run of some scopes): then it is noted. Rows drawn by ``assay agree
    --suggest`` carry their probability of being drawn (``label_probability``), which the calibration
    needs."""
    table = read_table(path)
    source = str(path)
    for needed in ("id", column):
        if needed not in table.columns:
            close = difflib.get_close_matches(needed, table.columns, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise UsageError(
                f"the labels file has no '{needed}' column (columns found: {', '.join(table.columns)})",
                where=source,
                fix=f"{hint}give a file with an id column and the labels' column named by --human",
            )
    by_id = _labels_by_id(table.blocks, table.columns, column, source, table.location_kind)
    rows_of = collections.Counter(record.id for record in records)
    strangers = [label_id for label_id in by_id if label_id not in rows_of]
    shown = ", ".join(repr(s) for s in strangers[:5]) + (" ..." if len(strangers) > 5 else "")
    elsewhere = f"{len(strangers)} label(s) in {source} name no row scored here: {shown}" if strangers else ""
    if strangers and not some_rows:
        raise InputError(
            f"{len(strangers)} labelled id(s) name no row of the responses: {shown}",
            where=source,
            fix="label the rows of this responses file (ids are compared as text)",
        )
    shared = [label_id for label_id in by_id if rows_of[label_id] > 1]
    if shared:
        raise InputError(
            f"the labelled id {shared[0]!r} names {rows_of[shared[0]]} rows of the responses, so its label "
            "cannot be put on one",
            where=f"{source}, {table.location_kind} {by_id[shared[0]].location}",
            fix="give the responses unique ids, or put the labels in a column of the responses (--human)",
        )
    found = [by_id.get(record.id) for record in records]
    stale = [r.id for r, row in zip(records, found, strict=True) if row and not _same_reply(row, r.response)]
    found = [
        None if row and not _same_reply(row, record.response) else row
        for record, row in zip(records, found, strict=True)
    ]
    labels = [row.label if row else "" for row in found]
    drawn, note = _drawn_probabilities(found, source)
    note = "; ".join(filter(None, [elsewhere, note]))
    if stale:
        shown = ", ".join(repr(s) for s in stale[:3]) + (" ..." if len(stale) > 3 else "")
        note = (note + "; " if note else "") + (
            f"{len(stale)} label(s) in {source} were given to another reply than this one and are left "
            f"out: {shown}"
        )
    return FileLabels(labels, drawn, note)


def _same_reply(row: _LabelRow, response: str) -> bool:
    """Whether a label is of this reply: a labels file that keeps the reply it labelled (assay view's
    does) labels a changed reply no more."""
    return row.response is None or row.response == response


def _drawn_probabilities(
    found: Sequence[_LabelRow | None], source: str
) -> tuple[list[float | None] | None, str]:
    """Each labelled row's probability of being drawn and labelled: the draw's, times the share of the
    drawn rows that have a label (a person who labels 150 of 200 drawn rows is taken to have skipped
    rows at random). None when no row carries one."""
    labelled = [row for row in found if row is not None and row.label]
    with_probability = [row for row in labelled if row.probability is not None]
    if not with_probability:
        return None, ""
    sizes = {row.drawn for row in with_probability if row.drawn}
    drawn = max(sizes) if sizes else len(with_probability)
    kept = min(1.0, len(with_probability) / drawn) if drawn else 1.0
    note = (
        f"{len(with_probability)} of the {drawn} rows drawn for labelling have a label in {source}: "
        "the others are taken as skipped at random"
        if kept < 1.0
        else ""
    )
    return [
        row.probability * kept if row is not None and row.label and row.probability is not None else None
        for row in found
    ], note


def _labels_by_id(
    blocks: Iterable[tuple[Sequence[int], Sequence[Row]]],
    columns: Sequence[str],
    column: str,
    source: str,
    location_kind: str,
) -> dict[str, _LabelRow]:
    id_at, label_at = columns.index("id"), columns.index(column)
    probability_at = columns.index(DRAWN_COLUMN) if DRAWN_COLUMN in columns else None
    size_at = columns.index(DRAW_SIZE_COLUMN) if DRAW_SIZE_COLUMN in columns else None
    response_at = columns.index("response") if "response" in columns else None
    by_id: dict[str, _LabelRow] = {}
    for locations, rows in blocks:
        for location, row in zip(locations, rows, strict=True):
            label_id = _text(_cell(row, "id", id_at))
            where = f"{source}, {location_kind} {location}"
            if label_id in by_id:
                raise InputError(
                    f"the id {label_id!r} is labelled twice "
                    f"(first at {location_kind} {by_id[label_id].location})",
                    where=where,
                    fix="keep one label per id",
                )
            probability = None if probability_at is None else _probability(row, probability_at, where)
            size = None if size_at is None else _count(_cell(row, DRAW_SIZE_COLUMN, size_at), where)
            response = None if response_at is None else _cell(row, "response", response_at)
            by_id[label_id] = _LabelRow(
                label_text(_cell(row, column, label_at)), location, probability, size,
                None if response is None else str(response),
            )  # fmt: skip
            if len(by_id) > MAX_LABEL_ROWS:
                raise InputError(f"more than {MAX_LABEL_ROWS:,} labels", where=source, fix="label fewer rows")
    return by_id


def _probability(row: Row, position: int, where: str) -> float | None:
    value = _cell(row, DRAWN_COLUMN, position)
    if value is None or value == "":
        return None
    try:
        probability = float(str(value))
    except ValueError:
        probability = -1.0
    if not 0.0 < probability <= 1.0:
        raise InputError(
            f"{DRAWN_COLUMN} is {str(value)[:40]!r}, not a probability in (0, 1]",
            where=where,
            fix="keep the column as assay agree --suggest wrote it, or remove it from every row",
        )
    return probability


def _count(value: object, where: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return max(0, int(float(str(value))))
    except ValueError:
        raise InputError(f"label_drawn is {str(value)[:40]!r}, not a count", where=where,
                         fix="keep the column as assay agree --suggest wrote it") from None  # fmt: skip


def _cell(row: Row, name: str, position: int) -> object:
    if isinstance(row, Mapping):
        return row.get(name)
    return row[position] if position < len(row) else None


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()
