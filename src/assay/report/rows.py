"""Per-question verdicts: every input column, then each metric's verdict columns (and, when asked, the
row's traces as a JSON ``trace`` column), one row per input row; and every row's traces, once per run,
typed until a file is written."""

from __future__ import annotations

import csv
import functools
import itertools
import json
import mmap
import operator
import weakref
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .._gc import collection_paused
from ..errors import UsageError
from ..extras import missing_extra
from ..outputs import check_writable, replacing, write_failed
from ..parts import part_dict
from ..records import DEFAULT_COLUMNS, ROW_COLUMN
from ..scorers import MetricScores, Outcome
from ..scoring import conflict_error, soft_passes
from ..signatures import PARQUET_KEY, signatures_json
from ..summary import pair_bucket
from ..trace import Trace, trace_dicts, trace_rows, traces_as_json

try:
    from .. import _csvwrite
except ImportError:  # built without a C compiler: csv.writer writes every row
    _csvwrite = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from ..records import Dataset, Record
    from ..scoring import ScoreRun

OUT_FORMATS = (".csv", ".jsonl", ".parquet")
LONG_CELL_CHARS = 1 << 20  # a row holding a cell this long is written by write_long_csv_row
WRITE_SLICE_CHARS = 1 << 20


def verdict_columns(run: ScoreRun, *, trace: bool = False) -> list[str]:
    """The columns of --out: every input column (an input column named like an added one is an error,
    or renamed, or replaced, as ``ScoreOptions.on_conflict`` says), then what the run adds; with
    `trace`, last, each row's traces as one JSON cell (``--trace-col``)."""
    return _column_order(run, input_names(run, check=True), trace)


def _column_order(run: ScoreRun, names: dict[str, str | None], trace: bool) -> list[str]:
    return _numbered(run) + [name for name in names.values() if name is not None] + _added_columns(run, trace)


def _numbered(run: ScoreRun) -> list[str]:
    """The rows' numbers 1, 2, 3 first, for an input without ids, kept so runs can join (by position:
    under ``records.ROW_COLUMN``, so that no one reads them back as the file's own ids)."""
    return [] if "id" in run.dataset.fields else [ROW_COLUMN]


def _added_columns(run: ScoreRun, trace: bool) -> list[str]:
    added: list[str] = []
    for name, scores in run.metrics.items():
        added += [name, f"{name}_answer", *scores.extras, *scores.texts]
        added += [f"{name}_soft"] if _soft(run, name) else []
    if run.summary.agreement is not None:
        added.append("agreement")
    return added + (["trace"] if trace else [])


def input_names(run: ScoreRun, *, check: bool = False) -> dict[str, str | None]:
    """Each input column's name in the per-row output: its own; "input:NAME" when it is named like an
    added column and the policy is "rename"; None (left out) when the policy is "replace". With
    `check`, such a column under the policy "error" raises (the verdicts would overwrite it)."""
    # "trace" is reserved with or without --trace-col: a re-scored file's old traces would be stale
    added = [*_numbered(run), *_added_columns(run, trace=False), "trace"]
    clash = set(added).intersection(run.dataset.columns)
    policy = run.options.on_conflict
    if clash and check and policy == "error":
        raise conflict_error(run.dataset, [c for c in run.dataset.columns if c in clash])
    taken = set(added) | set(run.dataset.columns)
    own = _own_names(run.dataset, taken)
    names: dict[str, str | None] = {}
    for column in run.dataset.columns:
        if column in own:
            names[column] = own[column]
        elif column not in clash or policy == "error":
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


def _own_names(dataset: Dataset, taken: set[str]) -> dict[str, str]:
    """The input columns that feed a field under a name of the user's ('Golden Answer' -> answer), each
    to be written under the field's own name: the header of --out is then the mapping, and compare,
    explain and agree read the file with no flags. A column found by its usual name ('Domain') keeps
    it, as does one whose field's name another column already has."""
    own: dict[str, str] = {}
    for field, column in dataset.fields.items():
        if column not in DEFAULT_COLUMNS[field] and field not in taken:  # 'Domain' is found as it is
            own[column] = field
            taken.add(field)
    return own


# --- the verdicts as columns ------------------------------------------------------------------------
# Every output is built a column at a time from the run's own columns (outcome bytes, answer indexes):
# a dict per row and a lookup per cell cost more than scoring the seed pair does.

_STRICT = (False, True, None, False)  # by outcome code: a soft pass is False here, True in <metric>_soft
_SOFT = (False, False, False, True)
UNSCORED = int(Outcome.UNSCORED)


def verdict_table(
    run: ScoreRun,
    *,
    trace: bool = False,
    check: bool = False,
    keep_traces: bool = True,
    inputs: bool = True,
) -> dict[str, Sequence[Any]]:
    """Every column of the per-row output (``verdict_columns``), each a sequence in input order;
    unscored verdicts are None, never True or False; graded scores are the floats themselves. With
    `check`, an input column the verdicts would overwrite is an error (see ``input_names``);
    `keep_traces=False` when no later output of the run needs the traces (``RowTraces.json``);
    `inputs=False` leaves out the input columns (a CSV writer that copies them as they are)."""
    names = input_names(run, check=check)
    table: dict[str, Sequence[Any]] = {}
    if "id" not in run.dataset.fields:  # the ids are the row numbers: written as such (records.ROW_COLUMN)
        table[ROW_COLUMN] = [record.id for record in run.records]
    if inputs:
        table |= _input_columns(run.records, run.dataset, names)
    answers = list(map(operator.attrgetter("answers"), run.records))
    for name, scores in run.metrics.items():
        table[name] = _verdict_column(scores)
        table[f"{name}_answer"] = _answer_column(answers, scores.answer_index)
        for column, values in scores.extras.items():
            table[column] = values.tolist()
        table |= scores.texts
        if _soft(run, name):
            table[f"{name}_soft"] = list(map(_SOFT.__getitem__, scores.outcomes))
    if run.summary.agreement is not None:  # the run's pair (--agree-pair; the original scripts' by default)
        first, second = (run.metrics[name] for name in run.summary.agreement.pair)
        table["agreement"] = agreement_column(run.summary.agreement.pair, first.outcomes, second.outcomes)
    if trace:
        traced = row_traces(run)
        table["trace"] = [traced.json(index, keep=keep_traces) for index in range(len(run.records))]
    return {column: table[column] for column in _column_order(run, names, trace) if column in table}


_OUTCOMES = len(Outcome)


def agreement_column(pair: Sequence[str], first: Sequence[int], second: Sequence[int]) -> list[str]:
    """Each row's bucket under the pair, from its two outcomes (built-in maps: no call per row)."""
    bucket_of_code = tuple(pair_bucket(pair, a, b) for a in range(_OUTCOMES) for b in range(_OUTCOMES))
    codes = map(operator.add, map(_OUTCOMES.__mul__, first), second)
    return list(map(bucket_of_code.__getitem__, codes))


def _verdict_column(scores: MetricScores) -> list[Any]:
    if scores.values is None:
        return list(map(_STRICT.__getitem__, scores.outcomes))
    # a graded metric: its score (token_f1's F1) as computed, so a mean of the column is the summary's
    return [None if code == UNSCORED else value for code, value in zip(scores.outcomes, scores.values)]


def _answer_column(answers: list[tuple[str, ...]], answer_index: Sequence[int]) -> list[str | None]:
    """Each row's deciding golden answer, None where none decided (index -1); built-in maps only."""
    column: list[str | None] = list(map(operator.getitem, answers, answer_index))
    for row in itertools.compress(itertools.count(), map((-1).__eq__, answer_index)):
        column[row] = None  # getitem(-1) gave the last answer
    return column


def _input_columns(
    records: Sequence[Record], dataset: Dataset, names: dict[str, str | None]
) -> dict[str, list[Any]]:
    """The input columns of `records` as --out writes them, each under its name there."""
    field_of_column = {column: name for name, column in dataset.fields.items()}
    columns: dict[str, list[Any]] = {}
    for column, name in names.items():
        if name is None:
            continue
        field = field_of_column.get(column)
        if field is None:
            columns[name] = [record.meta.get(column) for record in records]
        elif field == "answers":
            columns[name] = [list(record.answers) for record in records]
        elif field == "answer":
            columns[name] = [record.answers[0] for record in records]
        elif field in ("gold", "reply"):  # a part as the object it came as (JSON in a CSV cell)
            parts = map(operator.attrgetter(field), records)
            columns[name] = [None if part is None else part_dict(part) for part in parts]
        else:
            columns[name] = list(map(operator.attrgetter(field), records))
    return columns


def verdict_rows(run: ScoreRun, *, trace: bool = True) -> Iterator[dict[str, Any]]:
    """One dict per input row, in input order, of ``verdict_table``'s columns and, unless
    `trace=False`, the row's traces in "trace", typed (``trace.Trace`` by metric: what the Markdown
    and HTML reports read)."""
    table = verdict_table(run)
    columns = list(table)
    traced = row_traces(run) if trace else None
    for index, cells in enumerate(zip(*table.values())):
        row = dict(zip(columns, cells))
        if traced is not None:
            row["trace"] = traced.traces(index)
        yield row


# --- traces, once per run -----------------------------------------------------------------------------


class RowTraces:
    """Every row's traces of one run, typed (``trace.Trace``, keyed by metric), each computed the first
    time it is asked for and kept: --trace, --trace-col, Markdown's misses and the HTML's question
    table share them. JSON is made of them only to write a file (``json``). ``row_traces(run)`` gives
    the one of a run."""

    def __init__(self, run: ScoreRun) -> None:
        self._run = weakref.ref(run)  # kept by row_traces while the run lives: it must not keep the run
        self._kept: dict[int, dict[str, Trace]] = {}
        self._ahead: dict[int, dict[str, Trace]] = {}  # rows computed with the last one asked for
        self._next = -1  # the row after the last one computed: asked for next, the reader reads in order

    def __len__(self) -> int:
        return len(self._owner().records)

    def _owner(self) -> ScoreRun:
        run = self._run()
        if run is None:  # pragma: no cover - row_traces forgets this object with its run
            raise RuntimeError("the run of these traces is gone")
        return run

    def traces(self, index: int, *, keep: bool = True) -> dict[str, Trace]:
        """Row `index`'s traces, keyed by metric (see ``assay.trace``). `keep=False` for the last
        output to use them: a million rows' traces are gigabytes held for nothing."""
        found = self._kept.get(index)
        if found is None:
            found = row_trace(self._owner(), index)
            if keep:
                self._kept[index] = found
        return found

    def json(self, index: int, *, keep: bool = True) -> str:
        """Row `index`'s traces as one JSON object keyed by metric, as a file holds them."""
        return traces_as_json(self.traces(index, keep=keep))

    def computed(self, index: int) -> dict[str, Trace]:
        """Row `index`'s traces, freshly computed (``trace.trace_rows``). A reader that asks for rows
        in order (--trace, --trace-col) has them computed AHEAD_ROWS at a time, which costs less per
        row; one asking here and there (Markdown's misses), a row at a time."""
        found = self._ahead.pop(index, None)
        if found is None:
            run = self._owner()
            stop = min(index + (AHEAD_ROWS if index == self._next else 1), len(run.records))
            first, *rest = trace_rows(run, index, stop)
            self._ahead = dict(zip(range(index + 1, stop), rest))
            found = first
        self._next = index + 1
        return found

    def as_dicts(self, index: int) -> dict[str, dict[str, Any]]:
        """Row `index`'s traces as dicts, keyed by metric (a fresh copy: the caller may change it)."""
        return trace_dicts(self.traces(index))


AHEAD_ROWS = 4096  # rows whose traces are computed together for a reader that reads in order
# Each live run's RowTraces, by the run's identity, forgotten with the run (weakref.finalize): the
# traces live as long as their run without being written into it.
_OF_RUN: dict[int, RowTraces] = {}


def row_traces(run: ScoreRun) -> RowTraces:
    """The traces of a run's rows, computed at most once per row however many outputs use them."""
    found = _OF_RUN.get(id(run))
    if found is None or found._run() is not run:
        found = _OF_RUN[id(run)] = RowTraces(run)
        weakref.finalize(run, _OF_RUN.pop, id(run), None)
    return found


def row_trace(run: ScoreRun, index: int) -> dict[str, Trace]:
    """Every metric's trace of a row, keyed by metric (see ``assay.trace``): computed, not kept."""
    return row_traces(run).computed(index)


def write_traces(run: ScoreRun, path: str | Path, *, part: bool = False, keep: bool = True) -> Path:
    """Every row's traces as JSON lines: {"id": ..., "traces": {metric: trace}}, in input order
    (`part`: as for ``write_verdicts``; `keep=False` when no later output needs the traces)."""
    path = check_writable(path)
    traced = row_traces(run)
    # Each row's traces are containers that form no cycle: the collector would walk every record
    # again and again for nothing (see _gc.collection_paused).
    with _written(path, part) as temp, temp.open("w", encoding="utf-8") as handle, collection_paused():
        for start in range(0, len(run.records), AHEAD_ROWS):
            # as json.dumps({"id": ..., "traces": ...}) writes it, from the row's traces as JSON
            stop = min(start + AHEAD_ROWS, len(run.records))
            rows = map(functools.partial(traced.json, keep=keep), range(start, stop))
            ids = map(_string, map(operator.attrgetter("id"), run.records[start:stop]))  # ids are text
            handle.write("".join(map(_TRACE_LINE, ids, rows)))
    return path


_TRACE_LINE = '{{"id": {}, "traces": {}}}\n'.format


_string = json.encoder.encode_basestring  # json.dumps's own, with ensure_ascii=False


@contextmanager
def _written(path: Path, part: bool) -> Iterator[Path]:
    """Where to write `path`: a temporary file renamed over it when whole (``outputs.replacing``); the
    path itself for a part, which its parent joins, flushes and renames (``parallel._join_parts``)."""
    if not part:
        with replacing(path) as temp:
            yield temp
        return
    try:
        yield path
    except OSError as exc:
        raise write_failed(path, exc) from None


def _soft(run: ScoreRun, metric: str) -> bool:
    """Whether `metric` ran with soft passes (then a `<metric>_soft` column says which rows)."""
    return soft_passes(metric, run.options)


def check_out_path(path: str | Path) -> Path:
    """A name for per-question verdicts: one of OUT_FORMATS, where a file can be written."""
    path = check_writable(path, "--out")
    if path.suffix.lower() not in OUT_FORMATS:
        raise UsageError(
            f"cannot write per-question verdicts as '{path.suffix or path.name}'",
            where=f"--out {path}",
            fix=f"give --out a name ending in {', '.join(OUT_FORMATS)}",
        )
    if path.suffix.lower() == ".parquet":
        check_parquet_writer(path)
    return path


def check_parquet_writer(path: str | Path) -> None:
    """Writing Parquet needs pyarrow: a missing one is said before any work, not after it."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise missing_extra(
            "pyarrow", "to write Parquet", where=str(path), alternative="write .csv or .jsonl"
        ) from None


def write_verdicts(
    run: ScoreRun,
    path: str | Path,
    *,
    header: bool = True,
    trace: bool = False,
    part: bool = False,
    keep_traces: bool = True,
) -> Path:
    """Write per-question verdicts as CSV, JSONL or Parquet (by extension); with `trace`, each row's
    traces too, in a last column "trace" (``--trace-col``). `header=False` leaves out a CSV file's
    header line, and `part=True` writes in place (no temporary file, no flush to the disk), for a
    part of a larger output, in a private folder, that the whole is joined from."""
    path = check_out_path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        input_names(run, check=True)  # a clash with an added column is said before anything is written
        with _written(path, part) as temp:
            _write_csv_verdicts(run, temp, header=header, trace=trace, keep_traces=keep_traces)
        return path
    columns = verdict_table(run, trace=trace, check=True, keep_traces=keep_traces)
    table = _parquet_table(columns, path, run) if suffix == ".parquet" else None
    with _written(path, part) as temp:
        if table is not None:
            _write_parquet(table, temp, path)
        else:
            _write_jsonl(columns, temp)
    return path


def _write_csv_verdicts(run: ScoreRun, path: Path, *, header: bool, trace: bool, keep_traces: bool) -> None:
    """The verdicts as CSV: the input's own lines copied where they can be, else cell by cell."""
    if _copies_input_lines(run):
        added = verdict_table(run, trace=trace, check=True, keep_traces=keep_traces, inputs=False)
        if _write_spliced_csv(run, added, verdict_columns(run, trace=trace), path, header=header):
            return
        # a long cell, or rows mostly not as csv.writer writes them: cell by cell after all
    _write_csv(verdict_table(run, trace=trace, check=True, keep_traces=keep_traces), path, header=header)


# --- CSV input lines copied as they are --------------------------------------------------------------
# A CSV input line that csv.writer would write back byte for byte (``csvfile.RawLines``) is copied from
# the input file into --out, with the added cells after it: the input cells are neither turned into
# text again nor scanned for quotes, nor made UTF-8 again, which is most of --out's work.


def _copies_input_lines(run: ScoreRun) -> bool:
    """Whether --out can copy the input's lines: a CSV file read cell for cell, every input column
    kept in its place (not left out by --on-conflict replace), and the C writer built."""
    raw = run.dataset.raw
    if raw is None or _csvwrite is None or not run.records:
        return False
    if min(len(raw.verbatim), len(raw.lines)) < len(run.records):  # (a row per record read)
        return False
    return None not in input_names(run).values()


def _write_spliced_csv(
    run: ScoreRun, added: dict[str, Sequence[Any]], header_names: list[str], path: Path, *, header: bool
) -> bool:
    """Write --out as csv.writer would, each row's input cells copied from its input line where that
    line is what csv.writer writes for them (``RawLines.verbatim``), written cell by cell elsewhere.
    False, with nothing of use written, when that would not pay or a cell is long (the caller then
    writes the file cell by cell, which writes a long cell in slices)."""
    raw = run.dataset.raw
    assert raw is not None and _csvwrite is not None  # _copies_input_lines
    records = run.records
    verbatim = raw.verbatim[: len(records)]
    if verbatim.count(1) * 2 < len(records):  # mostly written cell by cell: the usual path is as fast
        return False
    texts: dict[str, list[str]] = {}
    textual: list[list[str]] = []  # the columns that can hold a long cell
    for column, values in added.items():
        kinds = set(map(type, values))  # looked at once for both questions
        texts[column] = _text_column(values, kinds)
        if not (isinstance(values, list) and kinds <= _SHORT_KINDS):
            textual.append(texts[column])
    if _long_rows(textual):
        return False
    before = [texts[ROW_COLUMN]] if "id" not in run.dataset.fields else []  # the rows' numbers come first
    after = [values for column, values in texts.items() if not (before and column == ROW_COLUMN)]
    rewritten = (
        list(itertools.compress(itertools.count(), map(operator.not_, verbatim))) if 0 in verbatim else []
    )
    middles = _rewritten_inputs(run, rewritten)
    if middles is None:
        return False
    if not raw.unchanged():  # the input was changed since it was read: its cells as read, then
        return False
    spans = array("q", bytes(16 * len(records)))
    state = array("q", [raw.start, 0])  # where line 0 starts; line_spans moves it on
    with (
        raw.path.open("rb") as source_file,
        mmap.mmap(source_file.fileno(), 0, access=mmap.ACCESS_READ) as source,
        path.open("w", newline="", encoding="utf-8") as handle,
    ):
        if header:
            csv.writer(handle).writerow(header_names)
            handle.flush()
        done = 0  # the input's bytes before this are copied: its pages can leave this process
        for start in range(0, len(records), SPLICED_ROWS):
            stop = min(start + SPLICED_ROWS, len(records))
            try:
                _csvwrite.line_spans(
                    source, raw.end, raw.lines, verbatim, raw.first_line, spans, state, start, stop
                )
            except ValueError:  # the input is not as it was read after all
                return False
            piece = _csvwrite.spliced_lines(before, source, spans, middles, after, start, stop)
            if piece is None:
                return False
            handle.buffer.write(piece)
            done = _let_go(source, done, state[0])
    return True


SPLICED_ROWS = 1 << 12  # rows made into one piece of UTF-8 by spliced_lines: a few megabytes


def _let_go(source: mmap.mmap, done: int, upto: int) -> int:
    """Drop the pages of the input before `upto` from this process's memory (the kernel keeps them in
    its cache): otherwise a mapped input counts, whole, as resident memory. Returns where it stopped."""
    upto -= upto % mmap.PAGESIZE
    if upto > done and hasattr(source, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
        source.madvise(mmap.MADV_DONTNEED, done, upto - done)
        return upto
    return done


def _rewritten_inputs(run: ScoreRun, rows: list[int]) -> list[bytes | None] | None:
    """Per row, None where its input line is copied; else its input cells as csv.writer writes them
    (without the line end). None when one of those is long (or not text), for the usual path."""
    middles: list[bytes | None] = [None] * len(run.records)
    if not rows:
        return middles
    records = [run.records[row] for row in rows]
    columns = [
        _text_column(values) for values in _input_columns(records, run.dataset, input_names(run)).values()
    ]
    if _long_rows(columns):
        return None
    for at, row in enumerate(rows):
        line = _csvwrite.csv_lines(columns, at, at + 1)
        if line is None:
            return None
        middles[row] = line[:-2]  # without its \r\n
    return middles


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else value


_CSV_AS_IS = frozenset({str, int, float, bool})  # cells csv.writer writes as they are


def _csv_column(values: Sequence[Any]) -> Sequence[Any]:
    """A column as csv.writer is handed it: None as "", a list or an object as JSON."""
    kinds = set(map(type, values))
    if kinds <= _CSV_AS_IS:
        return values
    if kinds <= {bool, type(None)}:  # a verdict column with unscored rows
        return ["" if value is None else value for value in values]
    return list(map(_csv_cell, values))


def _long_rows(columns: Sequence[Sequence[Any]]) -> list[int]:
    """The rows holding a cell of LONG_CELL_CHARS or more (written by write_long_csv_row), in order."""
    found: set[int] = set()
    for values in columns:
        try:
            longest = max(map(len, values), default=0)  # a column of text: one pass in C
        except TypeError:  # numbers or truth values, perhaps with some text (JSON Lines input)
            longest = LONG_CELL_CHARS if str in set(map(type, values)) else 0
        if longest >= LONG_CELL_CHARS:
            found.update(i for i, cell in enumerate(values) if _long(cell))
    return sorted(found)


_SHORT_KINDS = frozenset({bool, int, float, type(None)})


def _short_kinds(values: Sequence[Any]) -> bool:
    """A column of truth values, whole numbers, floats or None (an array: whole numbers)."""
    if not isinstance(values, list):
        return False
    return set(map(type, values)) <= _SHORT_KINDS


def _long(cell: Any) -> bool:
    return type(cell) is str and len(cell) >= LONG_CELL_CHARS


def _write_csv(table: dict[str, Sequence[Any]], path: Path, *, header: bool) -> None:
    # With _csvwrite, every cell becomes the text csv.writer would write for it (then either writes it
    # alike); without it, csv.writer is handed the cells themselves.
    texts = [_text_column(values) for values in table.values()] if _csvwrite is not None else None
    columns = texts if texts is not None else [_csv_column(values) for values in table.values()]
    rows = len(columns[0]) if columns else 0
    # verdicts, counts and scores are short: only columns that held text can hold a long cell
    textual = [c for c, values in zip(columns, table.values()) if not _short_kinds(values)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if header:
            writer.writerow(table)
        start = 0
        for long in [*_long_rows(textual), rows]:
            for chunk in range(start, long, CHUNK_ROWS):
                _write_rows(handle, writer, columns, texts, chunk, min(chunk + CHUNK_ROWS, long))
            if long < rows:
                write_long_csv_row(handle, [values[long] for values in columns])
            start = long + 1


CHUNK_ROWS = 1 << 14  # rows made into one piece of UTF-8 by _csvwrite: some megabytes


def _write_rows(
    handle: TextIO,
    writer: Any,
    columns: Sequence[Sequence[Any]],
    texts: list[list[str]] | None,
    start: int,
    stop: int,
) -> None:
    """Rows start..stop: by _csvwrite (the cells as text, straight to UTF-8) when built, else, or
    for a cell it leaves to Python (a lone surrogate), by csv.writer, which is the reference."""
    lines = None if texts is None or _csvwrite is None else _csvwrite.csv_lines(texts, start, stop)
    if lines is None:
        writer.writerows(zip(*(values[start:stop] for values in columns)))
        return
    handle.flush()  # what the text layer holds goes first
    handle.buffer.write(lines)


_BOOL_TEXT = {True: "True", False: "False", None: ""}


def _text_column(values: Sequence[Any], kinds: set[type] | None = None) -> list[str]:
    """A column as the text csv.writer writes for its cells: "" for None, JSON for a list or an
    object, repr() for a float, str() for the rest (`kinds`: the types of its cells, when known)."""
    kinds = set(map(type, values)) if kinds is None else kinds
    if kinds == {str}:
        return values if isinstance(values, list) else list(values)
    if kinds <= {bool, type(None)}:
        return list(map(_BOOL_TEXT.__getitem__, values))
    if kinds == {int}:
        return _int_texts(values)
    if kinds <= {str, type(None)}:  # a deciding answer, None where there is none
        return ["" if value is None else value for value in values]
    return [_cell_text(_csv_cell(value)) for value in values]


_SMALL_INTS = 1 << 12  # counts of words, mostly: their texts are made once, not once per row


def _int_texts(values: Sequence[int]) -> list[str]:
    """Whole numbers as text; small ones share one string each (a million str objects are ~50 MB)."""
    if min(values, default=0) >= 0 and max(values, default=0) < _SMALL_INTS:
        texts = [str(number) for number in range(max(values, default=0) + 1)]
        return list(map(texts.__getitem__, values))
    return list(map(str, values))


def _cell_text(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is float:
        return repr(value)
    return "" if value is None else str(value)


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


def _write_jsonl(table: dict[str, Sequence[Any]], path: Path) -> None:
    names = list(table)
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    with path.open("w", encoding="utf-8") as handle:
        for cells in zip(*table.values()):
            handle.write(encode(dict(zip(names, cells))))
            handle.write("\n")


def _parquet_table(table: dict[str, Sequence[Any]], path: Path, run: ScoreRun) -> Any:
    """The verdicts as one pyarrow table (a bad one is refused before anything is written to `path`)."""
    import pyarrow as pa

    data = {column: list(values) for column, values in table.items()}
    signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
    try:
        arrow = pa.table(data)
        return arrow.replace_schema_metadata({PARQUET_KEY: signatures_json(signatures)})  # for compare
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
