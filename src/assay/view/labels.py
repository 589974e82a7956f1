"""A person's marks in ``assay view``, kept as human labels that ``assay agree`` reads: of a run's
verdicts, and of a scored file's replies. One machinery serves both (``mark``): a mark names the
entry as the page showed it (a changed one is refused, ``Stale``), copies the item's row as the
entry wrote it (so every metric's inputs, and any column such as ``label_probability``, travel with
it), and rewrites the labels file whole (``outputs.write_text``), one mark at a time. Marking an item
again replaces its mark; a labels file edited by hand into bad JSON is said, never written over.

A run's labels are ``human_labels.jsonl`` beside its run.jsonl (``human_labels.N.jsonl`` beside an
earlier run kept as run.N.jsonl, and renamed with it: ``harness.earlier``), each line with two columns
more:

- ``human_mark``: ``right`` or ``wrong``, what the person said of the run's outcome;
- ``human_label``: ``correct`` or ``incorrect``, what the person says of the reply (a right mark on a
  passing outcome, or a wrong mark on a failing one, is ``correct``).

A scored file has no outcome per row, only each metric's verdict, so a person marks the reply itself:
``DIR/NAME.EXT``'s labels are ``DIR/NAME.human_labels.jsonl``, each line the row with ``human_label``
(``correct`` or ``incorrect``) set.

``assay agree --responses DIR/human_labels.jsonl --human human_label`` measures each metric against a
run's labels; ``assay agree --responses DIR/NAME.EXT --labels DIR/NAME.human_labels.jsonl`` against a
scored file's.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError, UsageError
from ..harness.earlier import LABELS_NAME, beside
from ..harness.outcomes import OUTCOME_COLUMN, PASSING
from ..outputs import write_text
from ..readers import read_table
from ..records import Record
from ..report.rows import OUT_FORMATS  # what assay score --out writes: a scored file

LABELS_FILE = LABELS_NAME  # beside run.jsonl (run_labels)
SCORED_LABELS_SUFFIX = ".human_labels.jsonl"  # NAME.EXT's labels: NAME.human_labels.jsonl (scored_labels)
MARK_COLUMN, LABEL_COLUMN = "human_mark", "human_label"
LABELS = ("correct", "incorrect")  # what a person says of a reply
# Outcomes a mark cannot turn into a label: no verdict on the reply was given to be right or wrong.
NO_VERDICT = ("unscored", "system_error")

_lock = threading.Lock()  # one mark at a time: each rewrites the whole file


class Stale(Exception):
    """The entry was written again since the page showed it: a mark would label a reply nobody saw."""


@dataclass(frozen=True)
class Found:
    """The marked item's row as its entry wrote it, and every item's place (the labels keep that order)."""

    row: dict[str, Any]
    order: Mapping[str, int]


class Marked(Protocol):
    """What a mark needs of an entry (a run, a scored file): where its labels go, what a mark may say,
    the item's row as the page showed it, and the labelled row a mark makes of it."""

    @property
    def labels(self) -> Path: ...

    @property
    def marks(self) -> tuple[str, ...]: ...

    @property
    def shown_column(self) -> str: ...  # the column that holds what the person said

    def find(self, item_id: str, shown: str | None) -> Found: ...

    def label(self, row: Mapping[str, Any], given: str) -> dict[str, Any]: ...


def mark(entry: Marked, item_id: str, given: str, shown: str | None) -> dict[str, Any]:
    """Mark `item_id` of `entry` as the page showed it (`shown`: the entry's version then); returns the
    labelled row. Stale when the entry has been written again since (the same id may name another
    reply)."""
    if given not in entry.marks:
        raise UsageError(f"a mark is one of {', '.join(entry.marks)}, not {given!r}")
    with _lock:
        found = entry.find(item_id, shown)
        labelled = entry.label(found.row, given)
        labels = {**read_labels(entry.labels), item_id: labelled}
        last = len(found.order)  # an id no longer among the rows (edited by hand) goes last
        in_order = sorted(labels.values(), key=lambda row: found.order.get(str(row["id"]), last))
        write_text(entry.labels, "".join(_line(row) for row in in_order))
    return labelled


def read_labels(labels: Path) -> dict[str, dict[str, Any]]:
    """The labelled rows of a labels file by id ({} without one)."""
    try:
        lines = labels.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    try:
        rows = [json.loads(line) for line in lines if line.strip()]
    except ValueError as exc:  # edited by hand: said, and never written over with the marks lost
        raise InputError(
            f"a line is not JSON ({exc})", where=str(labels), fix="mend or remove that line"
        ) from None
    return {str(row["id"]): row for row in rows if isinstance(row, dict) and "id" in row}


def _line(row: Mapping[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, default=str) + "\n"


# --- a run's verdicts -----------------------------------------------------------------------------------


def run_labels(rows: Path) -> Path:
    """The labels file of the run whose rows are `rows`."""
    return beside(rows, LABELS_FILE)


@dataclass(frozen=True)
class RunMarks:
    """Marks on a run's verdicts: right or wrong, as the page showed the run that started at a time
    (its results.json's): the folder run again is a new run, whose same ids name other replies."""

    rows: Path  # run.jsonl or run.N.jsonl
    marks: tuple[str, ...] = ("right", "wrong")
    shown_column: str = MARK_COLUMN

    @property
    def labels(self) -> Path:
        return run_labels(self.rows)

    def find(self, item_id: str, shown: str | None) -> Found:
        if _started(self.rows) != shown:
            raise Stale("the run was written again since this page showed it: reload the page, then mark")
        rows = _run_rows(self.rows)
        row = next((row for row in rows if str(row.get("id")) == item_id), None)
        if row is None:
            raise UsageError(f"no item {item_id!r} in this run", fix="mark an item the run's list shows")
        return Found(row, {str(row.get("id")): index for index, row in enumerate(rows)})

    def label(self, row: Mapping[str, Any], given: str) -> dict[str, Any]:
        outcome = row.get(OUTCOME_COLUMN)
        if outcome in NO_VERDICT:
            raise UsageError(f"item {row.get('id')!r} is {outcome}: there is no verdict to mark")
        correct = (outcome in PASSING) == (given == "right")
        return {**row, MARK_COLUMN: given, LABEL_COLUMN: LABELS[0] if correct else LABELS[1]}


def _started(rows_path: Path) -> str | None:
    """When the run whose rows are `rows_path` started, as its results.json says (None without one)."""
    try:
        found = json.loads(beside(rows_path, "results.json").read_text(encoding="utf-8"))
        return str(found["signatures"]["started"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _run_rows(rows_path: Path) -> list[dict[str, Any]]:
    """The run's rows as it wrote them: copied into the labels file whole, so that every metric's
    inputs are there for assay agree."""
    with rows_path.open(encoding="utf-8") as handle:
        return [row for row in map(json.loads, handle) if isinstance(row, dict)]


# --- a scored file's replies ----------------------------------------------------------------------------


def scored_labels(path: Path) -> Path:
    """The labels file of the scored file `path`: DIR/NAME.EXT -> DIR/NAME.human_labels.jsonl."""
    return path.with_name(path.stem + SCORED_LABELS_SUFFIX)


def file_version(path: Path) -> str:
    """What a scored file holds now, as a hash of its bytes: its time of change may not move when it is
    written twice within the file system's clock tick, and the same size says nothing."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass(frozen=True)
class ScoredMarks:
    """Marks on a scored file's replies, correct or incorrect, as the page showed the file (`version`,
    its ``file_version`` when its `records` were read)."""

    path: Path
    records: Sequence[Record]
    version: str
    marks: tuple[str, ...] = LABELS
    shown_column: str = LABEL_COLUMN

    @property
    def labels(self) -> Path:
        return scored_labels(self.path)

    def find(self, item_id: str, shown: str | None) -> Found:
        stale = Stale(
            "the scored file was written again since this page showed it: reload the page, then mark"
        )
        if shown != self.version:
            raise stale
        self._check_labels_are_its_own()
        record = self._record(item_id)
        row = _row_at(self.path, record.row)
        if file_version(self.path) != shown:  # after the read: the row read is of the file the page showed
            raise stale
        return Found({"id": record.id, **row}, {r.id: index for index, r in enumerate(self.records)})

    def label(self, row: Mapping[str, Any], given: str) -> dict[str, Any]:
        return {**row, LABEL_COLUMN: given}

    def _record(self, item_id: str) -> Record:
        found = [record for record in self.records if record.id == item_id]
        if not found:
            raise UsageError(f"no item {item_id!r} in this scored file", fix="mark an item its list shows")
        if len(found) > 1:  # assay agree joins labels by id: one id's label would go on several rows
            raise UsageError(f"{len(found)} rows have the id {item_id!r}: a label by id cannot name one",
                             fix="score inputs whose ids are unique")  # fmt: skip
        return found[0]

    def _check_labels_are_its_own(self) -> None:
        """NAME.csv and NAME.jsonl side by side would share NAME.human_labels.jsonl, their labels mixed."""
        twins = [
            twin.name
            for twin in (self.path.with_suffix(suffix) for suffix in OUT_FORMATS)
            if twin.suffix != self.path.suffix.lower() and twin.is_file()
        ]
        if twins:
            raise UsageError(
                f"{self.path.name} and {', '.join(twins)} would share the labels file {self.labels.name}",
                where=str(self.path.parent),
                fix="rename one of them, then mark",
            )


def _row_at(path: Path, location: int) -> dict[str, Any]:
    """The row of a scored file at `location` (a record's ``row``: its line, or its row number), every
    column as the file holds it (a CSV's cells as their text)."""
    table = read_table(path)
    for locations, rows in table.blocks:
        for at, row in zip(locations, rows, strict=True):
            if at == location:
                cells = row if isinstance(row, dict) else dict(zip(table.columns, row, strict=False))
                return {str(name): _json_cell(value) for name, value in cells.items()}
    raise Stale("the scored file no longer has that row: reload the page, then mark")


def _json_cell(value: Any) -> Any:
    """A cell JSON can hold: NaN (Parquet's missing float) is null, as JSON has no NaN."""
    return None if isinstance(value, float) and math.isnan(value) else value
