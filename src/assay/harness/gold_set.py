"""The gold items a harness run asks, read once: the gold file as a Dataset of the scopes asked for (the
first N), each record beside its item as the file writes it, and the file's sha256; and the run row,
the form an answered record takes in the journal and in ``run.jsonl``.

A run row is the gold item's keys as they are, then ``response`` (the reply's text) and ``reply`` (the
rest of the reply, ``parts.part_dict``). The Dataset a run scores is the gold records with their
responses and replies, described as ``run.jsonl`` describes them (its source, its line numbers, its
columns), so that ``assay score run.jsonl`` reads the records the run scored.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..parts import GOLD_ITEM_KEYS, Reply, parse_part, part_dict
from ..readers import Table
from ..records import DEFAULT_COLUMNS, ColumnMap, Dataset, Record, is_gold_set
from .gold_check import check_gold_file


@dataclass(frozen=True)
class GoldSet:
    """The items a run asks, in gold order: their records, each one's item as the gold file writes it
    (``items[i]`` is ``dataset.records[i]``'s), and the gold file's sha256 (the journal's header)."""

    dataset: Dataset
    items: tuple[Mapping[str, Any], ...]
    sha256: str

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


def load_gold_set(gold_path: str | Path, *, scopes: Sequence[str] = (), limit: int | None = None) -> GoldSet:
    """The gold set's items, those of `scopes` (all when empty), the first `limit`; the first problem
    ``check_gold_file`` finds (the one `assay lint` reports first, in the same words) is raised."""
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}", fix="give a positive number of items")
    content = _content(gold_path)
    checked = check_gold_file(gold_path, content, hashlib.sha256(content or b"").hexdigest())
    del content  # parsed: the bytes are not held through the run
    checked.first()
    assert checked.dataset is not None  # a check without problems has its records
    items = (item for _, item in checked.items)
    chosen = _of_scopes(list(zip(checked.dataset.records, items)), scopes, gold_path)[:limit]
    dataset = dataclasses.replace(checked.dataset, records=[record for record, _ in chosen])
    return GoldSet(dataset, tuple(item for _, item in chosen), checked.sha256)


def _of_scopes(
    chosen: list[tuple[Record, dict[str, Any]]], scopes: Sequence[str], gold_path: str | Path
) -> list[tuple[Record, dict[str, Any]]]:
    """The records (with their items) of `scopes`, all when none is named; an unknown scope is refused."""
    if not scopes:
        return chosen
    _check_scopes(scopes, [item for _, item in chosen], gold_path)
    wanted = set(scopes)
    return [(r, item) for r, item in chosen if item.get("scope") is not None and str(item["scope"]) in wanted]


def _content(path: str | Path) -> bytes | None:
    """The gold file's bytes, read once: hashed for the journal's header, and parsed. None when it
    cannot be read, which the reader then says in its own words (no such file, a folder, ...)."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _check_scopes(scopes: Sequence[str], items: Sequence[Mapping[str, Any]], gold_path: str | Path) -> None:
    known = list(dict.fromkeys(str(item["scope"]) for item in items if item.get("scope")))
    unknown = [scope for scope in scopes if scope not in known]
    if unknown:
        raise UsageError(
            f"no item of the gold set has the scope {unknown[0]!r} "
            f"(its scopes: {', '.join(known) or 'none, it has no scope column'})",
            where=str(gold_path),
            fix="give --scope one of its scopes",
        )


# --- run rows ------------------------------------------------------------------------------------------


def run_row(item: Mapping[str, Any], record: Record) -> dict[str, Any]:
    """An answered record as the journal and run.jsonl write it: its item, ``response`` and ``reply``."""
    return {**item, "response": record.response, "reply": part_dict(record.reply or Reply())}


def with_reply(record: Record, reply: Reply) -> Record:
    """The record answered by `reply`: its text the response, the rest the record's Reply."""
    return dataclasses.replace(record, response=reply.text or "", reply=dataclasses.replace(reply, text=None))


def answered_from_row(record: Record, row: Mapping[str, Any]) -> Record:
    """The record answered as a run row (a journal's line) says; PartError for a malformed reply."""
    return dataclasses.replace(record, response=row["response"], reply=parse_part(Reply, row["reply"]))


def run_dataset(
    gold: GoldSet, answered: Sequence[Record], rows: Sequence[Mapping[str, Any]], source: str
) -> Dataset:
    """The answered records as a Dataset read from `source` (the run.jsonl of `rows`) would hold them:
    numbered by its lines, with its columns (the items' keys, response, reply) and their meta."""
    columns = _run_columns(rows)
    fields = {**gold.dataset.fields, "response": "response", "reply": "reply"}
    fields = {name: fields[name] for name in DEFAULT_COLUMNS if name in fields}
    meta = [name for name in columns if name not in set(fields.values())]
    records = [
        dataclasses.replace(record, row=number, meta=_meta(record, meta))
        for number, record in enumerate(answered, start=1)
    ]
    kept = {record.id for record in records}
    null_cells = {
        column: found
        for column, ids in gold.dataset.null_cells.items()
        if (found := tuple(i for i in ids if i in kept))
    }
    return dataclasses.replace(
        gold.dataset,
        records=records,
        source=source,
        columns=columns,
        fields=fields,
        null_cells=null_cells,
        location_kind="line",
        limit=None,
        raw=None,
    )


def _run_columns(rows: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The columns a reader finds in the rows (every key, in order of first appearance), a gold set's
    flat gold keys made its `answer` and `gold` (``records.is_gold_set``)."""
    keys = tuple(dict.fromkeys(key for row in rows for key in row))
    if not is_gold_set(Table("", keys, iter(()), "line"), ColumnMap()):
        return keys
    return (*(key for key in keys if key not in GOLD_ITEM_KEYS), "answer", "gold")


def _meta(record: Record, names: Sequence[str]) -> Mapping[str, Any]:
    """The record's meta over the run's columns (an item key only items of other scopes had is gone)."""
    if list(record.meta) == list(names):
        return record.meta
    return {name: record.meta.get(name) for name in names}


__all__ = ["GoldSet", "answered_from_row", "load_gold_set", "run_dataset", "run_row", "with_reply"]
