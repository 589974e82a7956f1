"""``assay score --ray ADDRESS``: a responses file scored through Ray Data, with a local run's report.

    driver: assay's reader ──► Arrow batches (+ assay:row, assay:line) ──► the object store
    Ray Data: map_batches(BatchScorer) on the cluster's workers ──► verdicts + partial summaries
    driver: merge the summaries in input order; --out from the batches read again beside their verdicts

The file is read by assay's own reader on the driver, so every cell is what a local run reads (the same
text, the same line numbers in messages, the same row numbers for a file without ids), and it need not be
on the workers' disks: a ``ray://`` cluster scores a file only the driver sees. What needs the whole file
is settled on the driver: ids repeated across batches (the file is then loaded here, whose loader
reports the first repeat with its lines, as a local run does) and the joined --out, written whole or not
at all. Ray and pyarrow are imported only here, when --ray is given.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import shutil
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from ..extras import missing_extra
from ..metric import FAIL, PASS, SOFT_PASS, UNSCORED, MetricScores, Scorer
from ..parallel import _join_parts, _parts_folder
from ..readers import read_table
from ..records import ColumnMap, Record, load_records
from ..report.rows import write_verdicts
from ..scoring import BATCH_ROWS, ScoreOptions, ScoreRun, blank_rows, finish
from ..summary import Summary
from .columnar import LINE, ROW_NUMBER, BatchScorer, pyarrow, summary_of, without_summary

BATCH_ROWS_ON_RAY = BATCH_ROWS  # rows per batch: a task's work, about 20 MB of text at 400 bytes a row
LOCAL = "local"  # --ray local: start a Ray cluster on this machine for the run, and stop it after
# Ray's own log lines and progress bars on the terminal would bury the report.
QUIET = {"log_to_driver": False, "include_dashboard": False, "logging_level": "ERROR"}


def score_on_ray(
    path: str | Path,
    metrics: Sequence[str] | None = None,
    *,
    address: str = LOCAL,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    limit: int | None = None,
    allow_duplicate_ids: bool = False,
    out: str | Path | None = None,
    sheet: str | None = None,
    batch_rows: int | None = None,
) -> ScoredOnRay:
    """Score `path` on the Ray cluster at `address` ("local": one started for the run; "auto", an
    address or ``ray://host:port``: as ``ray.init`` takes it; a process already connected uses its
    cluster), write --out if given, and return the merged summary (a local run's, number for number)
    with the verdict columns of every row."""
    ray = _ray()
    scorer = BatchScorer(
        None if metrics is None else tuple(metrics),
        options or ScoreOptions(),
        columns,
        str(path),
        allow_duplicate_ids,
    )
    source = Source(Path(path), limit, sheet)
    batch_rows = batch_rows or BATCH_ROWS_ON_RAY
    started = _connect(ray, address)
    try:
        scored = _scored_batches(ray, scorer, source, batch_rows)
    finally:
        if started:
            ray.shutdown()
    if not allow_duplicate_ids:
        _check_ids_across(scored, source, columns)
    if not sum(batch.num_rows for batch in scored):
        load_records(source.path, columns=columns, limit=limit, sheet=sheet)  # says what a local run says
    summary = dataclasses.replace(summary_of(scored), limit=limit)  # the batches were read unlimited
    if out is not None:
        _write_out(scorer, summary, scored, source, batch_rows, Path(out))
    return ScoredOnRay(summary, pyarrow().concat_tables(map(without_summary, scored)))


@dataclass(frozen=True)
class ScoredOnRay:
    """What ``score_on_ray`` gives back: the summary, and every row's verdict columns in input order
    (a ``pyarrow.Table`` of the entry point's schema, without its summary column)."""

    summary: Summary
    verdicts: Any


def _ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise missing_extra("ray", "to score on a Ray cluster (--ray)") from None
    pyarrow()  # Ray Data brings it; said plainly if it is missing all the same
    return ray


def _connect(ray: Any, address: str) -> bool:
    """Join the cluster (or start one, for "local"); True when this call started the connection."""
    if ray.is_initialized():
        return False
    try:
        # "local" is Ray's own word for a new cluster on this machine (None would join a running one)
        ray.init(address=address, **QUIET)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise UsageError(
            f"cannot reach a Ray cluster at {address!r} ({exc})",
            where="--ray",
            fix="start one (ray start --head), or pass --ray local to start one for the run",
        ) from None
    return True


@dataclass(frozen=True)
class Source:
    """The file, as --responses, --limit and --sheet name it."""

    path: Path
    limit: int | None = None
    sheet: str | None = None


def input_batches(source: Source, batch_rows: int) -> Iterator[Any]:
    """The file as read by assay's reader, in Arrow tables of `batch_rows` rows (the last may be
    shorter), each row with its number in the file (``assay:row``) and its place (``assay:line``)."""
    pa = pyarrow()
    table = read_table(source.path, limit=source.limit, sheet=source.sheet)
    blocks = itertools.chain.from_iterable(zip(locations, rows) for locations, rows in table.blocks)
    placed = itertools.islice(blocks, source.limit)
    numbered = 0
    while True:
        chunk = list(itertools.islice(placed, batch_rows))
        if not chunk and numbered:
            return
        # (an empty file still gives one batch: its columns are checked there)
        places: Sequence[int] = [place for place, _ in chunk]
        rows: Sequence[Any] = [row for _, row in chunk]
        cells = [[row.get(name) for name in table.columns] if isinstance(row, dict) else row for row in rows]
        columns = list(zip(*cells)) if cells else [() for _ in table.columns]
        arrays = {name: _array(pa, column, name, source.path) for name, column in zip(table.columns, columns)}
        arrays[ROW_NUMBER] = pa.array(range(numbered + 1, numbered + 1 + len(rows)), pa.int64())
        arrays[LINE] = pa.array(places, pa.int64())
        yield pa.table(arrays)
        if not chunk:
            return
        numbered += len(rows)


def _array(pa: Any, cells: Sequence[Any], name: str, path: str | Path) -> Any:
    if not cells:
        return pa.array([], pa.string())
    try:
        return pa.array(cells)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        raise InputError(
            f"column {name!r} mixes kinds of value that one Arrow column cannot hold ({exc})",
            where=str(path),
            fix="score this file without --ray, or write the column as text",
        ) from None


def _scored_batches(ray: Any, scorer: BatchScorer, source: Source, rows: int) -> list[Any]:
    """Every batch's verdicts and partial summary, in input order."""
    logging.getLogger("ray.data").setLevel(logging.ERROR)  # its plan and timing lines would bury the report
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # the summary's lists of ids are in input order
    context.enable_progress_bars = False
    refs: list[Any] = []
    for batch in input_batches(source, rows):
        if not refs:  # columns and metrics checked here, before a worker starts: an empty batch's schema
            scorer.schema(batch.schema)
        refs.append(ray.put(batch))
    dataset = ray.data.from_arrow_refs(refs).map_batches(
        scorer, batch_format="pyarrow", batch_size=None, zero_copy_batch=True
    )
    try:
        return list(dataset.iter_batches(batch_format="pyarrow", batch_size=None))
    except Exception:
        _raise_local_error(scorer, source, rows)
        raise


def _raise_local_error(scorer: BatchScorer, source: Source, rows: int) -> None:
    """A worker failed. Ray hands back its error as text only, so the batches are scored here, in
    order, until one raises: an AssayError (a malformed cell, with its file and line) is then said as
    a local run says it. When none raises, the failure was Ray's, and its own error stands."""
    for batch in input_batches(source, rows):
        scorer(batch)


def _check_ids_across(scored: Sequence[Any], source: Source, columns: ColumnMap | None) -> None:
    """Each batch checked its own ids; an id in two batches makes the file load here, whose loader
    reports it with the lines of both rows, as a local run does."""
    if not scored or "id" not in scored[0].schema.names:
        return
    seen: set[str] = set()
    for batch in scored:
        ids = batch.column("id").to_pylist()
        if not seen.isdisjoint(ids):
            # raises the first repeat, with its lines
            load_records(source.path, columns=columns, limit=source.limit, sheet=source.sheet)
            raise InputError(
                "an id is repeated across the file", where=str(source.path), fix="make ids unique"
            )
        seen.update(ids)


def _write_out(
    scorer: BatchScorer,
    summary: Summary,
    scored: Sequence[Any],
    source: Source,
    rows: int,
    out: Path,
) -> None:
    """--out as a local run writes it: the file read again in the same batches, each beside its
    verdicts, written as a part, and the parts joined (``parallel``'s pieces)."""
    pa = pyarrow()
    verdicts = pa.concat_tables(scored)
    folder = _parts_folder(out)
    try:
        parts, start = [], 0
        for index, batch in enumerate(input_batches(source, rows)):
            run = _run_of(scorer, summary, batch, verdicts.slice(start, batch.num_rows))
            start += batch.num_rows
            parts.append(
                write_verdicts(run, folder / f"part{index}{out.suffix}", header=index == 0, part=True)
            )
        _join_parts(parts, out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_of(scorer: BatchScorer, summary: Summary, batch: Any, verdicts: Any) -> ScoreRun:
    """A batch's run rebuilt from its verdict columns, for writing --out (which reads the verdict, the
    deciding answer, the extra and text columns, and the pair's outcomes for the agreement column)."""
    dataset = scorer.dataset(batch)
    declared = [scorer.scorer_named(name) for name in summary.metrics]
    results = {metric.name: _scores_of(metric, verdicts, dataset.records) for metric in declared}
    signatures = {name: metric.signature for name, metric in summary.metrics.items()}
    options = scorer.options
    return finish(dataset, results, blank_rows(dataset.records), options, signatures, scorers=declared)


def _scores_of(declared: Scorer, verdicts: Any, records: Sequence[Record]) -> MetricScores:
    """A metric's MetricScores from its columns in the entry point's output."""
    name = declared.name
    values = verdicts.column(name).to_pylist()
    names = verdicts.schema.names
    soft = verdicts.column(f"{name}_soft").to_pylist() if f"{name}_soft" in names else [False] * len(values)
    graded = pyarrow().types.is_floating(verdicts.schema.field(name).type)
    scores = MetricScores(name, bytearray(map(_outcome, values, [graded] * len(values), soft)))
    answers = verdicts.column(f"{name}_answer").to_pylist()
    deciding = (
        -1 if answer is None else record.answers.index(answer) for answer, record in zip(answers, records)
    )
    scores.answer_index = array("i", deciding)
    scores.extras = {
        column: array("i", verdicts.column(column).to_pylist()) for column in declared.extra_columns
    }
    scores.texts = {column: verdicts.column(column).to_pylist() for column in declared.text_columns}
    if graded:
        scores.values = array("d", (0.0 if value is None else value for value in values))
    return scores


def _outcome(value: Any, graded: bool, soft: bool) -> int:
    """A row's outcome from its verdict cell (None: unscored) and its soft-pass cell."""
    if value is None:
        return UNSCORED
    if graded:  # --out writes a graded metric's score, not its outcome: pass is a full score
        return PASS if value == 1.0 else FAIL
    return PASS if value else SOFT_PASS if soft else FAIL
