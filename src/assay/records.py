"""The one record type that travels through assay, and loading records from files or DataFrames.

Loading validates at construction: a missing column, a malformed ``answers`` cell, an empty id or a
duplicate id is an ``InputError`` that names the file, the line and the fix. NaN/None cells become empty
text and are counted per column in ``Dataset.null_cells``, so nothing is lost silently.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._gc import collection_paused
from .cells import has_invisible, visible
from .columns import missing_report, samples_of, unmapped_hints
from .csvfile import RawLines
from .errors import InputError
from .parts import GOLD_ITEM_KEYS, Gold, PartError, Reply, gold_of_item, parse_part
from .readers import Block, Row, Table, read_dataframe, read_table

_NO_META: Mapping[str, Any] = MappingProxyType({})

# Record field -> the column names looked for when the user names none, in order of preference.
DEFAULT_COLUMNS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "id": ("id",),
        "question": ("question",),
        "answer": ("answer",),
        "answers": ("answers",),
        "response": ("response",),
        "domain": ("Domain", "domain"),
        "lang": ("lang",),
        "scope": ("scope",),
        "gold": ("gold",),
        "reply": ("reply",),
    }
)
PART_FIELDS: Mapping[str, type[Gold] | type[Reply]] = MappingProxyType({"gold": Gold, "reply": Reply})


# Not frozen: a frozen dataclass is five times slower to build, which shows at a million rows.
# Treat it as immutable all the same.
@dataclass(slots=True)
class Record:
    """One question with its golden answers and (once a system has answered) a response.

    The question side is id, question, answers, domain, lang and scope; `gold` holds what the gold file
    knows beyond the answers' text, and `reply` what the system replied beyond its text, which IS
    `response` (the text every metric scores). Both are None for a file without them (``assay.parts``).
    """

    id: str
    question: str
    answers: tuple[str, ...]
    response: str  # the reply's text: what is scored
    domain: str = ""
    lang: str = ""
    row: int = 0  # 1-based line (CSV, JSONL) or row number (JSON array, Parquet, DataFrame) in the source
    meta: Mapping[str, Any] = field(default_factory=lambda: _NO_META)  # extra input columns only, untouched
    scope: str = ""
    gold: Gold | None = None
    reply: Reply | None = None


@dataclass(frozen=True)
class ColumnMap:
    """Which input column feeds each record field; ``None`` means the usual names (``DEFAULT_COLUMNS``).

    A name given here must exist in the input. ``answers`` holds several acceptable golden answers
    (a list, or a JSON-array string in CSV); when present it is used instead of ``answer``.
    """

    id: str | None = None
    question: str | None = None
    answer: str | None = None
    answers: str | None = None
    response: str | None = None
    domain: str | None = None
    lang: str | None = None
    scope: str | None = None
    gold: str | None = None  # a column of Gold objects (JSON text in CSV, a struct or JSON in Parquet)
    reply: str | None = None  # a column of Reply objects, likewise


@dataclass(frozen=True)
class Dataset:
    """Records loaded from one source, with what a report needs to account for every row."""

    records: list[Record]
    source: str
    columns: tuple[str, ...]  # every input column, in input order
    fields: Mapping[str, str]  # record field -> input column it was read from
    null_cells: Mapping[str, tuple[str, ...]]  # input column -> ids of rows whose cell was NaN/None/absent
    location_kind: str = "line"  # what Record.row counts: "line" or "row"
    limit: int | None = None  # rows after the first `limit` were not read
    # CSV read cell for cell as it stands (every field its cell's text): which rows --out may copy
    raw: RawLines | None = None

    def __len__(self) -> int:
        return len(self.records)


def load_records(
    source: str | Path | Any,
    *,
    columns: ColumnMap | None = None,
    limit: int | None = None,
    allow_duplicate_ids: bool = False,
    need_responses: bool = True,
    raw_lines: bool = False,
    sheet: str | None = None,
) -> Dataset:
    """Load a responses file (CSV, TSV, JSONL, JSON array, Parquet, Excel) or a pandas DataFrame into
    a ``Dataset``.
    `raw_lines` (when --out will be written): note which CSV rows' lines it may copy (``Dataset.raw``).

    With ``need_responses=False`` a gold file without a response column loads too (responses empty).
    `sheet` names an Excel workbook's sheet (default: its first).
    """
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}", fix="pass a positive number of rows")
    if isinstance(source, (str, Path)):
        table = read_table(source, limit=limit, raw_lines=raw_lines, sheet=sheet)
    else:
        table = read_dataframe(source)
    return load_table(
        table,
        columns=columns,
        limit=limit,
        allow_duplicate_ids=allow_duplicate_ids,
        need_responses=need_responses,
    )


def load_table(
    table: Table,
    *,
    columns: ColumnMap | None = None,
    limit: int | None = None,
    allow_duplicate_ids: bool = False,
    part: bool = False,
    need_responses: bool = True,
) -> Dataset:
    """Records from a table already opened; a `part` of a file (one span of it) may hold no rows."""
    _check_visible_names(table)
    if is_gold_set(table, columns or ColumnMap()):
        table = _gold_set_view(table)
    resolved = _resolve_columns(table, columns or ColumnMap(), need_responses)
    named_parts = {name for name in PART_FIELDS if getattr(columns or ColumnMap(), name) is not None}
    builder = _RecordBuilder(table, resolved, named_parts)
    with collection_paused():
        records = builder.build(limit)
    for name in PART_FIELDS:  # a gold/reply column found by its name but not holding objects is meta
        if name in resolved and not builder.part_mode.get(name):
            del resolved[name]
    if not records and not part:
        raise InputError("the input has a header but no rows", where=table.source, fix="add rows to score")
    if not allow_duplicate_ids and "id" in resolved:  # numbered rows are unique by construction
        _check_unique_ids(records, table)
    return Dataset(
        records=records,
        source=table.source,
        columns=table.columns,
        fields=resolved,
        null_cells={name: tuple(ids) for name, ids in builder.null_cells.items()},
        location_kind=table.location_kind,
        limit=limit,
        raw=table.raw if builder.cells_as_read and table.raw is not None else None,
    )


# --- gold sets -----------------------------------------------------------------------------------------


def is_gold_set(table: Table, wanted: ColumnMap) -> bool:
    """A gold set (``assay gold build``'s items): `expected_answer` and no other source of golden
    answers or Gold, named or found."""
    named = {wanted.answer, wanted.answers, wanted.gold} - {None}
    others = {"answer", "answers", "gold"} & set(table.columns)
    return "expected_answer" in table.columns and not named and not others


def _gold_set_view(table: Table) -> Table:
    """The table with each item's flat gold keys made one `gold` object and its `answer`: the records
    it gives are gold records (``Record.gold``), and its other keys (`field`, ...) their meta."""
    kept = tuple(name for name in table.columns if name not in GOLD_ITEM_KEYS)

    def rows(block: Block) -> Block:
        locations, items = block
        return locations, [_gold_set_row(table, location, item) for location, item in zip(locations, items)]

    return Table(
        source=table.source,
        columns=(*kept, "answer", "gold"),
        blocks=map(rows, table.blocks),
        location_kind=table.location_kind,
    )


def _gold_set_row(table: Table, location: int, item: Row) -> dict[str, Any]:
    row = item if isinstance(item, dict) else dict(zip(table.columns, item))
    found = {key: value for key, value in row.items() if key not in GOLD_ITEM_KEYS}
    answer = row.get("expected_answer")
    found["answer"] = "" if _is_missing(answer) else answer
    try:
        found["gold"] = gold_of_item(row)
    except PartError as exc:
        raise InputError(
            f"the gold item {exc}",
            where=f"{table.source} {table.location_kind} {location} (id {row.get('id')})",
            fix="write the item as `assay gold build` does (docs/gold.md)",
        ) from None
    return found


# --- columns -------------------------------------------------------------------------------------------


def _check_visible_names(table: Table) -> None:
    """Refuse a header hiding a BOM or another invisible character: '\\ufeffid' is not 'id', and
    taking it for another column would lose the ids (rows renumbered) without a word."""
    for name in table.columns:
        if has_invisible(name):
            raise InputError(
                f"column name {name!r} holds an invisible character (a BOM, a zero-width or direction "
                "mark, a lone surrogate)",
                where=f"{table.source} header",
                fix=f"rename the column to {visible(name)!r}",
            )


def _resolve_columns(table: Table, wanted: ColumnMap, need_responses: bool = True) -> dict[str, str]:
    """Map record fields to input columns; every required one missing is said in one error, each with
    the nearest column (``assay.columns``)."""
    resolved: dict[str, str] = {}
    missing: list[tuple[str, str]] = []
    scored = _written_by_out(table.columns)
    for spec in fields(wanted):
        explicit = getattr(wanted, spec.name)
        if explicit is not None:
            if explicit in table.columns:
                resolved[spec.name] = explicit
            elif scored and _own_name(spec.name) in table.columns:
                # A file written by --out holds each field under the field's own name (its header is
                # the mapping): the name given for the input (assay.toml's [columns]) reads it there.
                resolved[spec.name] = _own_name(spec.name)
            else:
                missing.append((spec.name, explicit))
            continue
        found = next((name for name in DEFAULT_COLUMNS[spec.name] if name in table.columns), None)
        if found is not None:
            resolved[spec.name] = found
    taken = {getattr(wanted, spec.name) for spec in fields(wanted)} - {None}
    for name in ("scope", *PART_FIELDS):  # a column named for another field feeds that one only
        if getattr(wanted, name) is None and resolved.get(name) in taken:
            del resolved[name]
    if "answers" in resolved and "answer" in resolved:
        # One source of golden answers: `answers` unless the user named `answer` and not `answers`.
        drop = "answer" if wanted.answers is not None or wanted.answer is None else "answers"
        del resolved[drop]
    for required in ("question", "answer", "response") if need_responses else ("question", "answer"):
        absent = required not in resolved and (required != "answer" or "answers" not in resolved)
        if absent and all(field != required for field, _ in missing):
            missing.append((required, DEFAULT_COLUMNS[required][0]))
    if missing:
        _missing_columns(table, missing)
    return resolved


def _written_by_out(columns: Sequence[str]) -> bool:
    """Whether a table is assay's per-row output (--out): a metric's verdict column beside its
    `<metric>_answer` column."""
    present = set(columns)
    return any(f"{column}_answer" in present for column in columns)


def _own_name(field_name: str) -> str:
    """The column a field is written under by --out: the field's own name."""
    return field_name


def _missing_columns(table: Table, missing: list[tuple[str, str]]) -> None:
    """Raise the one error naming every missing column, with the nearest of the file's columns for
    each, by name and by the values of the first rows (read here: the table is not read further)."""
    first = next(table.blocks, None)
    samples = samples_of(table.columns, first[1] if first is not None else ())
    what, fix = missing_report(missing, table.columns, samples)
    raise InputError(what, where=table.source, fix=f"{fix} (ColumnMap(field=...) in Python)")


# The column --out adds for an input without ids: each row's number. Not `id`: read back, a file with an `id`
# column holds its own ids (whatever they are, 1..n included), and one without is numbered again, so
# compare can tell ids from row numbers by the header alone.
ROW_COLUMN = "row"
HINT_ROWS = 1000  # the rows whose values say what an unused column looks like


def column_hints(dataset: Dataset, in_use: Iterable[str] = ()) -> list[str]:
    """A line for each optional field (id, domain, lang, scope) that no column feeds while one unused
    column looks like it, by name or values: the flag that would map it (``assay.columns``). `in_use`:
    columns the command reads for itself (agree's --human, score's --regex-col), never hinted."""
    taken = {*dataset.fields.values(), *in_use}
    unused = [name for name in dataset.columns if name not in taken]
    rows = [record.meta for record in itertools.islice(dataset.records, HINT_ROWS)]
    return unmapped_hints(dataset.fields, unused, samples_of(unused, rows))


# --- cells ---------------------------------------------------------------------------------------------


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")  # pandas.NA and pandas.NaT, without pandas


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # pandas turns an int column holding NaN into floats: 1947.0 -> "1947"
    if isinstance(value, bytes):  # a binary cell inside a list (Parquet): text when it is UTF-8
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise TypeError("bytes value that is not UTF-8") from None
    if isinstance(value, (list, tuple, dict)) or hasattr(value, "__array__"):
        raise TypeError(type(value).__name__)
    return str(value)


def _parse_answers(value: Any) -> list[Any]:
    if isinstance(value, str):
        parsed = json.loads(value)  # a JSON array in CSV; a ValueError is reported by the caller
        if not isinstance(parsed, list):
            raise ValueError("not a JSON array")
        return parsed
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return list(value.tolist() if hasattr(value, "tolist") else value)
    raise ValueError(f"a {type(value).__name__}, not a list")


class _RecordBuilder:
    """Turns raw rows into Records, counting NaN/None cells and keeping unmapped columns as meta.

    Rows arrive as lists aligned with the table's columns (CSV, Parquet, DataFrame) or as dicts (JSON,
    whose table columns are every key of every row); a dict is first laid out as such a list.
    """

    def __init__(
        self, table: Table, resolved: Mapping[str, str], named_parts: set[str] | None = None
    ) -> None:
        self.table = table
        self.resolved = resolved
        position = {name: index for index, name in enumerate(table.columns)}
        self.index = {name: position[column] for name, column in resolved.items()}
        mapped = set(resolved.values())
        self.meta_columns = [(name, i) for name, i in position.items() if name not in mapped]
        # gold/reply columns: True holds parts, False is meta after all (found by name, holding no
        # objects), absent: not decided yet (no value seen). A column named in the ColumnMap holds parts.
        self.parts = [(name, self.index[name]) for name in PART_FIELDS if name in self.index]
        self.part_mode: dict[str, bool] = {name: True for name in named_parts or () if name in self.index}
        self.null_cells: dict[str, list[str]] = {}
        # Where each text field sits in a row (-1: absent), for the fast path _from_text.
        self.text_index = tuple(
            self.index.get(name, -1) for name in ("question", "response", "domain", "lang", "scope")
        )
        self.answer_index = -1 if "answers" in self.index else self.index["answer"]
        self.cells_as_read = False  # set by build: every field and meta value is its cell's own text

    def build(self, limit: int | None) -> list[Record]:
        records: list[Record] = []
        fast = self.table.cells_are_text and self.answer_index >= 0 and not self.parts
        self.cells_as_read = fast
        for locations, rows in self.table.blocks:
            if limit is not None and len(records) + len(rows) >= limit:
                locations, rows = locations[: limit - len(records)], rows[: limit - len(records)]
            number = len(records) + 1
            records += (
                self._from_text(number, locations, rows) if fast else self._from_rows(number, locations, rows)
            )
            if limit is not None and len(records) >= limit:
                break
        return records

    def _from_rows(self, number: int, locations: Sequence[int], rows: Sequence[Row]) -> list[Record]:
        columns = self.table.columns
        return [
            self._record(
                number + offset, location, [row.get(c) for c in columns] if isinstance(row, dict) else row
            )
            for offset, (location, row) in enumerate(zip(locations, rows))
        ]

    def _from_text(self, number: int, locations: Sequence[int], rows: Sequence[Row]) -> list[Record]:
        """The fast path for rows whose every cell is a string (CSV) with one golden answer per row.

        It works a column at a time with built-in iteration only: at a million rows, a Python step per
        row or per cell costs more than all the scoring.
        """
        if not rows:
            return []
        columns = list(zip(*rows))
        count = len(rows)

        def column(at: int) -> Iterable[str]:
            return columns[at] if at >= 0 else itertools.repeat("", count)

        question_at, response_at, domain_at, lang_at, scope_at = self.text_index
        id_at = self.index.get("id")
        ids: Iterable[str] = map(str, range(number, number + count))
        if id_at is not None:
            ids = columns[id_at]
            if not all(map(str.strip, ids)) or has_invisible("\n".join(ids)):
                # the first bad id, which _id reports (a joined ZWJ can be a false alarm: then none is)
                for at, value in enumerate(ids):
                    if not value.strip() or has_invisible(value):
                        row = rows[at]
                        assert not isinstance(row, dict)  # text tables hold rows as lists
                        self._id(row, number + at, f"{self.table.source} line {locations[at]}")  # raises
        metas: Iterable[Mapping[str, Any]] = itertools.repeat(_NO_META, count)
        if self.meta_columns:
            names = [name for name, _ in self.meta_columns]
            values = zip(*(columns[i] for _, i in self.meta_columns))
            metas = map(dict, map(zip, itertools.repeat(names), values))
        return list(
            map(
                Record,
                ids,
                columns[question_at],
                zip(columns[self.answer_index]),  # 1-tuples: the row's only golden answer
                column(response_at),
                column(domain_at),
                column(lang_at),
                locations,
                metas,
                column(scope_at),
            )
        )

    def _record(self, number: int, location: int, row: Sequence[Any]) -> Record:
        meta: Mapping[str, Any] = _NO_META
        if self.meta_columns:
            meta = {name: row[i] for name, i in self.meta_columns}
        where = f"{self.table.source} {self.table.location_kind} {location}"
        record_id = self._id(row, number, where)
        gold = reply = None
        if self.parts:
            found = {name: self._part(row, name, at, record_id, where) for name, at in self.parts}
            gold, reply = found.get("gold"), found.get("reply")
            for name, at in self.parts:
                if self.part_mode.get(name) is False:
                    meta = {**meta, self.resolved[name]: row[at]}
        return Record(
            record_id,
            self._text(row, "question", record_id, where),
            self._answers(row, record_id, where),
            self._text(row, "response", record_id, where),
            self._text(row, "domain", record_id, where),
            self._text(row, "lang", record_id, where),
            location,
            meta,
            self._text(row, "scope", record_id, where),
            gold,
            reply,
        )

    def _part(self, row: Sequence[Any], name: str, at: int, record_id: str, where: str) -> Any:
        """The row's Gold or Reply (None when its cell is empty); a malformed one is an InputError."""
        value = row[at]
        if _is_missing(value) or (isinstance(value, str) and not value.strip()):
            return None
        if isinstance(value, (Gold, Reply)):  # a gold set's item, made a Gold already (_gold_set_view)
            self.part_mode[name] = True
            return value
        mode = self.part_mode.get(name)
        if mode is None:  # the first value decides what a column found by its name holds
            mode = isinstance(value, Mapping) or (isinstance(value, str) and value.lstrip().startswith("{"))
            self.part_mode[name] = mode
        if not mode:
            return None
        try:
            return parse_part(Gold, value) if name == "gold" else parse_part(Reply, value)
        except PartError as exc:
            raise InputError(
                f"column '{self.resolved[name]}' {exc}",
                where=f"{where} (id {record_id})",
                fix=f"write the {name} as an object of its fields (assay.parts.{PART_FIELDS[name].__name__})",
            ) from None

    def _id(self, row: Sequence[Any], number: int, where: str) -> str:
        index = self.index.get("id")
        if index is None:
            return str(number)
        value = row[index]
        text = "" if _is_missing(value) else self._cell_text(value, "id", where)
        if not text.strip():
            raise InputError(
                f"empty id in column '{self.resolved['id']}'",
                where=where,
                fix="give every row an id, or drop the id column to number rows 1, 2, 3, ...",
            )
        if has_invisible(text):
            raise InputError(
                f"the id {text!r} holds an invisible character (a BOM, a zero-width or direction mark)",
                where=where,
                fix=f"write the id as {visible(text)!r}",
            )
        return text

    def _cell_text(self, value: Any, name: str, where: str) -> str:
        try:
            return _as_text(value)
        except TypeError as exc:
            raise InputError(
                f"column '{self.resolved[name]}' holds a {exc}, not text",
                where=where,
                fix="write text (or a number) in this column; for several golden answers use an "
                "'answers' column (or --answers-col) holding a list of texts",
            ) from None

    def _text(self, row: Sequence[Any], name: str, record_id: str, where: str) -> str:
        index = self.index.get(name)
        if index is None:
            return ""
        value = row[index]
        if type(value) is str:  # every CSV cell: the fast path
            return value
        if _is_missing(value):
            self.null_cells.setdefault(self.resolved[name], []).append(record_id)
            return ""
        return self._cell_text(value, name, f"{where} (id {record_id})")

    def _answers(self, row: Sequence[Any], record_id: str, where: str) -> tuple[str, ...]:
        if "answers" not in self.index:
            return (self._text(row, "answer", record_id, where),)
        column = self.resolved["answers"]
        value = row[self.index["answers"]]
        if _is_missing(value):
            self.null_cells.setdefault(column, []).append(record_id)
            return ("",)
        try:
            items = _parse_answers(value)
        except ValueError as exc:
            raise InputError(
                f"column '{column}' must hold a list of answers, found {str(value)[:80]!r} ({exc})",
                where=f"{where} (id {record_id})",
                fix='write a JSON array, e.g. ["New Delhi", "Delhi"]',
            ) from None
        where = f"{where} (id {record_id})"
        answers = tuple(
            "" if _is_missing(item) else self._cell_text(item, "answers", where) for item in items
        )
        return answers or ("",)


def _check_unique_ids(records: Iterable[Record], table: Table) -> None:
    first_seen: dict[str, int] = {}
    for record in records:
        earlier = first_seen.setdefault(record.id, record.row)
        if earlier != record.row:
            raise InputError(
                f"duplicate id '{record.id}' (first at {table.location_kind} {earlier})",
                where=f"{table.source} {table.location_kind} {record.row}",
                fix="make ids unique, or pass --allow-duplicate-ids to keep them as they are",
            )
