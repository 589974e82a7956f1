"""Per-question verdicts: every input column, then each metric's verdict columns and the row's traces
(a JSON ``trace`` column), one row per input row."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import UsageError
from ..outputs import check_writable, replacing
from ..parts import part_dict
from ..records import Record
from ..scorers import Outcome
from ..scoring import conflict_error, soft_passes
from ..signature import PARQUET_KEY, signatures_json
from ..summary import AGREEMENT_PAIR, bucket_of
from ..trace import traces

if TYPE_CHECKING:
    from ..scoring import ScoreRun

OUT_FORMATS = (".csv", ".jsonl", ".parquet")
LONG_CELL_CHARS = 1 << 20  # a row holding a cell this long is written by write_long_csv_row
WRITE_SLICE_CHARS = 1 << 20


def verdict_columns(run: ScoreRun) -> list[str]:
    """The columns of --out: every input column (an input column named like an added one is an error,
    or renamed, or replaced, as ``ScoreOptions.on_conflict`` says), then what the run adds."""
    names = input_names(run, check=True)
    numbered = [] if "id" in run.dataset.fields else ["id"]  # rows numbered 1, 2, 3: kept so runs can join
    return numbered + [name for name in names.values() if name is not None] + _added_columns(run)


def _added_columns(run: ScoreRun) -> list[str]:
    added: list[str] = []
    for name, scores in run.metrics.items():
        added += [name, f"{name}_answer", *scores.extras, *scores.texts]
        added += [f"{name}_soft"] if _soft(run, name) else []
    if run.summary.agreement is not None:
        added.append("agreement")
    added.append("trace")
    return added


def input_names(run: ScoreRun, *, check: bool = False) -> dict[str, str | None]:
    """Each input column's name in the per-row output: its own; "input:NAME" when it is named like an
    added column and the policy is "rename"; None (left out) when the policy is "replace". With
    `check`, such a column under the policy "error" raises (the verdicts would overwrite it)."""
    added = _added_columns(run)
    clash = set(added).intersection(run.dataset.columns)
    policy = run.options.on_conflict
    if clash and check and policy == "error":
        raise conflict_error(run.dataset, [c for c in run.dataset.columns if c in clash])
    taken = set(added) | set(run.dataset.columns)
    names: dict[str, str | None] = {}
    for column in run.dataset.columns:
        if column not in clash or policy == "error":
            names[column] = column  # (under "error" without `check`, the verdict wins, as it shows)
        elif policy == "replace":
            names[column] = None
        else:
            renamed = f"input:{column}"
            while renamed in taken:  # a file renamed before, and scored again
                renamed = f"input:{renamed}"
            taken.add(renamed)
            names[column] = renamed
    return names


def verdict_rows(run: ScoreRun) -> Iterator[dict[str, Any]]:
    """One dict per input row, in input order; unscored verdicts are None, never True or False."""
    field_of_column = {column: name for name, column in run.dataset.fields.items()}
    pair = [run.metrics[name] for name in AGREEMENT_PAIR if name in run.metrics]
    soft = {name: _soft(run, name) for name in run.metrics}
    names = input_names(run)
    for index, record in enumerate(run.records):
        row = _input_cells(record, names, field_of_column)
        row.setdefault("id", record.id)
        for name, scores in run.metrics.items():
            outcome = scores.outcome(index)
            answer_index = scores.answer_index[index]
            if outcome is Outcome.UNSCORED:
                row[name] = None
            elif scores.values is not None:  # a graded metric: its score (token_f1's F1)
                row[name] = round(scores.values[index], 6)
            else:
                row[name] = outcome is Outcome.PASS  # strict: a soft pass is False here, True below
            row[f"{name}_answer"] = record.answers[answer_index] if answer_index >= 0 else None
            for column, values in scores.extras.items():
                row[column] = values[index]
            for column, texts in scores.texts.items():
                row[column] = texts[index]
            if soft[name]:
                row[f"{name}_soft"] = outcome is Outcome.SOFT_PASS
        if len(pair) == len(AGREEMENT_PAIR):
            row["agreement"] = bucket_of(*(scores.outcomes[index] for scores in pair))
        row["trace"] = trace_json(run, index)
        yield row


def trace_json(run: ScoreRun, index: int) -> str:
    """Every metric's trace of a row, as one JSON object keyed by metric (see ``assay.trace``)."""
    found = {name: found.as_dict() for name, found in traces(run, index).items()}
    return json.dumps(found, ensure_ascii=False)


def write_traces(run: ScoreRun, path: str | Path) -> Path:
    """Every row's traces as JSON lines: {"id": ..., "traces": {metric: trace}}, in input order."""
    path = check_writable(path)
    with replacing(path) as temp, temp.open("w", encoding="utf-8") as handle:
        for index, record in enumerate(run.records):
            found = {name: found.as_dict() for name, found in traces(run, index).items()}
            handle.write(json.dumps({"id": record.id, "traces": found}, ensure_ascii=False) + "\n")
    return path


def _soft(run: ScoreRun, metric: str) -> bool:
    """Whether `metric` ran with soft passes (then a `<metric>_soft` column says which rows)."""
    return soft_passes(metric, run.options)


def _input_cells(
    record: Record, names: dict[str, str | None], field_of_column: dict[str, str]
) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for column, name in names.items():
        if name is None:
            continue
        field = field_of_column.get(column)
        if field is None:
            row[name] = record.meta.get(column)
        elif field == "answers":
            row[name] = list(record.answers)
        elif field == "answer":
            row[name] = record.answers[0]
        elif field in ("gold", "reply"):  # a part as the object it came as (JSON in a CSV cell)
            part = getattr(record, field)
            row[name] = None if part is None else part_dict(part)
        else:
            row[name] = getattr(record, field)
    return row


def check_out_path(path: str | Path) -> Path:
    """A name for per-question verdicts: one of OUT_FORMATS, where a file can be written."""
    path = check_writable(path, "--out")
    if path.suffix.lower() not in OUT_FORMATS:
        raise UsageError(
            f"cannot write per-question verdicts as '{path.suffix or path.name}'",
            where=f"--out {path}",
            fix=f"give --out a name ending in {', '.join(OUT_FORMATS)}",
        )
    return path


def write_verdicts(run: ScoreRun, path: str | Path, *, header: bool = True) -> Path:
    """Write per-question verdicts as CSV, JSONL or Parquet (by extension). `header=False` leaves out a
    CSV file's header line, for a part that continues another."""
    path = check_out_path(path)
    columns = verdict_columns(run)
    suffix = path.suffix.lower()
    table = _parquet_table(run, columns, path) if suffix == ".parquet" else None
    with replacing(path) as temp:
        if table is not None:
            _write_parquet(table, temp, path)
        elif suffix == ".csv":
            _write_csv(run, columns, temp, header=header)
        else:
            _write_jsonl(run, columns, temp)
    return path


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else value


def _write_csv(run: ScoreRun, columns: list[str], path: Path, *, header: bool) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if header:
            writer.writerow(columns)
        for row in verdict_rows(run):
            cells = [_csv_cell(row.get(c)) for c in columns]
            if any(type(cell) is str and len(cell) >= LONG_CELL_CHARS for cell in cells):
                write_long_csv_row(handle, cells)
            else:
                writer.writerow(cells)


def write_long_csv_row(handle: TextIO, cells: list[Any]) -> None:
    """Write one row as csv.writer's default (excel) dialect would, a piece at a time.

    csv.writer builds the whole line in a buffer of 4 bytes a character, then a string of it, then its
    UTF-8: for a 50 MB cell, several times the cell at once. Here a cell is quoted exactly when it holds
    a comma, a quote or a line end (QUOTE_MINIMAL), its quotes doubled, and written in slices.
    """
    for index, cell in enumerate(cells):
        text = "" if cell is None else cell if isinstance(cell, str) else str(cell)  # as csv.writer does
        quoted = any(mark in text for mark in ',"\r\n') or (text == "" and len(cells) == 1)
        handle.write("," if index else "")
        handle.write('"' if quoted else "")
        for start in range(0, len(text), WRITE_SLICE_CHARS):
            piece = text[start : start + WRITE_SLICE_CHARS]
            handle.write(piece.replace('"', '""') if quoted else piece)
        handle.write('"' if quoted else "")
    handle.write("\r\n")


def _write_jsonl(run: ScoreRun, columns: list[str], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in verdict_rows(run):
            handle.write(json.dumps({c: row.get(c) for c in columns}, ensure_ascii=False, default=str))
            handle.write("\n")


def _parquet_table(run: ScoreRun, columns: list[str], path: Path) -> Any:
    """The verdicts as one pyarrow table (a bad one is refused before anything is written to `path`)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError(
            "writing Parquet needs pyarrow, which is not installed",
            where=str(path),
            fix="pip install 'assay[parquet]', or write .csv or .jsonl",
        ) from None
    data: dict[str, list[Any]] = {c: [] for c in columns}
    for row in verdict_rows(run):
        for column in columns:
            data[column].append(row.get(column))
    try:
        table = pa.table(data)
        signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
        table = table.replace_schema_metadata({PARQUET_KEY: signatures_json(signatures)})  # for compare
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise UsageError(
            f"a column mixes kinds of value that Parquet cannot hold in one column ({exc})",
            where=str(path),
            fix="write .csv or .jsonl instead, or give the column one kind of value",
        ) from None
    except OverflowError:  # a JSON integer past 64 bits, which JSON Lines and CSV write as it is
        raise UsageError(
            f"column '{_overflowing(data)}' holds a whole number past the signed 64-bit integers "
            "that assay writes to Parquet",
            where=str(path),
            fix="write .csv or .jsonl instead, or store the number as a string",
        ) from None
    return table


def _overflowing(data: dict[str, list[Any]]) -> str:
    import pyarrow as pa

    for column, values in data.items():
        try:
            pa.array(values)
        except OverflowError:
            return column
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            continue
    return "?"


def _write_parquet(table: Any, temp: Path, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pq.write_table(table, temp)
    except pa.ArrowNotImplementedError as exc:  # a type Arrow holds but Parquet cannot: an empty object
        raise UsageError(
            f"Parquet cannot hold a column of this file ({exc})",
            where=str(path),
            fix="write .csv or .jsonl instead",
        ) from None
