"""A person's marks on a run's verdicts, kept as human labels that ``assay agree`` reads.

The file is ``human_labels.jsonl`` beside the run's run.jsonl (``human_labels.N.jsonl`` beside an
earlier run kept as run.N.jsonl, and renamed with it: ``harness.earlier``): each marked item's row of
the run as it was written (so every metric's inputs are there), with two columns more:

- ``human_mark``: ``right`` or ``wrong``, what the person said of the run's outcome;
- ``human_label``: ``correct`` or ``incorrect``, what the person says of the reply (a right mark on a
  passing outcome, or a wrong mark on a failing one, is ``correct``).

so that ``assay agree --responses DIR/human_labels.jsonl --human human_label`` measures each metric
against them. Marking an item again replaces its mark; the file is written whole (``outputs.write_text``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from ..harness.earlier import LABELS_NAME, beside
from ..harness.outcomes import OUTCOME_COLUMN, PASSING
from ..outputs import write_text

LABELS_FILE = LABELS_NAME  # beside run.jsonl (labels_file)
MARK_COLUMN, LABEL_COLUMN = "human_mark", "human_label"
MARKS = ("right", "wrong")
# Outcomes a mark cannot turn into a label: no verdict on the reply was given to be right or wrong.
NO_VERDICT = ("unscored", "system_error")

_lock = threading.Lock()  # one mark at a time: each rewrites the whole file


def labels_file(rows: Path) -> Path:
    """The labels file of the run whose rows are `rows`."""
    return beside(rows, LABELS_FILE)


def read_labels(rows_path: Path) -> dict[str, dict[str, Any]]:
    """The marked rows of a run's labels file by id ({} without one)."""
    try:
        lines = labels_file(rows_path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    try:
        rows = [json.loads(line) for line in lines if line.strip()]
    except ValueError as exc:  # edited by hand: said, and never written over with the marks lost
        raise InputError(
            f"a line is not JSON ({exc})", where=str(labels_file(rows_path)), fix="mend or remove that line"
        ) from None
    return {str(row["id"]): row for row in rows if isinstance(row, dict) and "id" in row}


class Stale(Exception):
    """The run was written again since the page showed it: a mark would label a reply nobody saw."""


def mark(rows_path: Path, item_id: str, given: str, shown_started: str | None) -> dict[str, Any]:
    """Mark the run's verdict on `item_id` right or wrong, as the page showed the run that started at
    `shown_started` (its results.json's time); returns the labelled row. Stale when the folder has been
    run again since (the same id now names other replies)."""
    if given not in MARKS:
        raise UsageError(f"a mark is one of {', '.join(MARKS)}, not {given!r}")
    with _lock:
        if _started(rows_path) != shown_started:
            raise Stale("the run was written again since this page showed it: reload the page, then mark")
        rows = _run_rows(rows_path)
        row = next((row for row in rows if str(row.get("id")) == item_id), None)
        if row is None:
            raise UsageError(f"no item {item_id!r} in this run", fix="mark an item the run's list shows")
        outcome = row.get(OUTCOME_COLUMN)
        if outcome in NO_VERDICT:
            raise UsageError(f"item {item_id!r} is {outcome}: there is no verdict to mark")
        correct = (outcome in PASSING) == (given == "right")
        labelled = {**row, MARK_COLUMN: given, LABEL_COLUMN: "correct" if correct else "incorrect"}
        labels = {**read_labels(rows_path), item_id: labelled}
        order = {str(row.get("id")): index for index, row in enumerate(rows)}
        in_order = sorted(labels.values(), key=lambda row: order.get(str(row["id"]), len(order)))
        write_text(labels_file(rows_path), "".join(_line(row) for row in in_order))
    return labelled


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


def _line(row: Mapping[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False) + "\n"
