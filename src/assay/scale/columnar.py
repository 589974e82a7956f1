"""The columnar entry point: an Arrow batch of records in, its verdict columns and partial summary out.

An engine that shards data calls it on each batch: Ray Data's ``map_batches(BatchScorer(...),
batch_format="pyarrow")``, Dask's ``map_partitions``, Spark's ``mapInArrow``. A batch holds the
canonical columns (id, question, answer or answers, response, domain, lang, ...; other names through a
``ColumnMap``), read as a Parquet file's columns are (``readers._parquet_cells``), so a batch scores as
the same rows in a file would. Two optional columns place it in the whole input: ``assay:row`` (each
row's 1-based number: the ids of an input without an id column) and ``assay:line`` (where the row is in
its source, for messages).

What comes out has a stable schema, fixed by the metrics and the input's column names, never by the
values (an empty batch has it too): the key (``id``, or ``row`` for an input without ids), then what
--out adds per metric (the verdict: bool, or float64 for a graded metric; ``<metric>_answer``: string;
the scorer's extra columns: int64; its text columns: string; ``<metric>_soft``: bool with
--inflection), ``agreement`` (string) when the agreement pair runs, and last ``assay:summary``: the
batch's partial summary (pickled) in its first row, null in the others. The schema's metadata holds
every metric's signature (``assay.signatures``, as Parquet outputs do) and the options' part of it.

``summary_of`` merges the partial summaries of every batch, in input order: tallies add, and every
interval is computed from the merged tallies, so the report is the one a local run gives. A summary
cell is a pickle: read only those your own job wrote.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from ..extras import missing_extra
from ..metric import Scorer
from ..readers import Table, _parquet_cells
from ..records import ROW_COLUMN, ColumnMap, Dataset, load_table
from ..report.rows import verdict_table
from ..scorer_registry import scorer_of
from ..scoring import ScoreOptions, ScoreRun, finish, planned, soft_passes, verdicts
from ..signatures import PARQUET_KEY, signatures_json
from ..summary import Summary, merge_summaries

ROW_NUMBER = "assay:row"  # optional input: each row's 1-based number in the whole input
LINE = "assay:line"  # optional input: each row's place in its source (a CSV line), for messages
SUMMARY_COLUMN = "assay:summary"  # the output's last column: the batch's partial summary, in its first row
OPTIONS_KEY = b"assay.options"  # schema metadata: the options' part of every signature
PLACES = (ROW_NUMBER, LINE)


def pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise missing_extra("pyarrow", "to score Arrow record batches") from None
    return pa


@dataclass(frozen=True)
class BatchScorer:
    """Scores Arrow batches (a ``pyarrow.RecordBatch`` or ``Table``; the same kind comes back). Metrics
    by name (None: every default metric whose inputs the columns give, as ``score`` picks them); the
    source names the input in messages and in the summary. Picklable: engines ship it to their workers.
    Run scorers (a judge, a metric made of others' verdicts over the whole run) read the whole run in
    one process, so they are refused here: a judge scales by its server (docs/scale.md)."""

    metrics: tuple[str | Scorer, ...] | None = None
    options: ScoreOptions = field(default_factory=ScoreOptions)
    columns: ColumnMap | None = None
    source: str = "<batches>"
    allow_duplicate_ids: bool = False  # within a batch; across batches it is the caller's check
    summary: bool = True  # add the partial-summary column

    def __call__(self, batch: Any) -> Any:
        run = self.run(batch)
        out = self._verdicts(run)
        return out if _is_table(batch) else out.to_batches()[0] if out.num_rows else _empty_batch(out)

    def run(self, batch: Any) -> ScoreRun:
        """The batch scored: its records, every metric's verdicts, its partial summary."""
        dataset = self.dataset(batch)
        scorers = planned(dataset, self.metrics, self.options)
        by_run = [scorer.name for scorer in scorers if scorer.by_run]
        if by_run:
            raise UsageError(
                f"the metric {by_run[0]!r} reads the whole run at once, so it cannot score batch by batch",
                fix="score it in one process (assay score without --ray); a judge scales by its server",
            )
        results, blank = verdicts(dataset, scorers, self.options)
        return finish(dataset, results, blank, self.options, scorers=scorers)

    def scorer_named(self, name: str) -> Scorer:
        """The Scorer of metric `name`: one given as an object (a configured scorer the registry does not
        know), else the registry's."""
        given = {metric.name: metric for metric in self.metrics or () if not isinstance(metric, str)}
        return given[name] if name in given else scorer_of(name)

    def schema(self, input_schema: Any) -> Any:
        """The output's schema for inputs of `input_schema` (Spark's mapInArrow wants it up front)."""
        return self._schema(self.run(input_schema.empty_table()))

    def dataset(self, batch: Any) -> Dataset:
        """The batch's records, numbered and placed by its ``assay:row`` and ``assay:line`` columns."""
        names = list(batch.schema.names)
        kept = [index for index, name in enumerate(names) if name not in PLACES]
        count = batch.num_rows
        numbers = _ints(batch, ROW_NUMBER) or range(1, count + 1)
        lines = _ints(batch, LINE) or numbers
        source = Path(self.source)
        first = lines[0] if count else 1
        cells = [_parquet_cells(batch, index, source, first) for index in kept]
        text = all(_is_text(batch.column(index)) for index in kept)
        table = Table(
            self.source,
            tuple(names[index] for index in kept),
            iter([(lines, list(zip(*cells)) if cells else [()] * count)]),
            "line" if LINE in names else "row",
            cells_are_text=text,
        )
        dataset = load_table(
            table, columns=self.columns, allow_duplicate_ids=self.allow_duplicate_ids, part=True
        )
        if "id" not in dataset.fields and ROW_NUMBER in names:  # ids are the rows' numbers in the whole
            for record, number in zip(dataset.records, numbers):
                record.id = str(number)
        return dataset

    def _schema(self, run: ScoreRun) -> Any:
        pa = pyarrow()
        key = "id" if "id" in run.dataset.fields else ROW_COLUMN
        fields = [pa.field(key, pa.string(), nullable=False)]
        for name, scores in run.metrics.items():
            scorer = self.scorer_named(name)
            fields.append(pa.field(name, pa.float64() if scores.values is not None else pa.bool_()))
            fields.append(pa.field(f"{name}_answer", pa.string()))
            fields += [pa.field(column, pa.int64()) for column in scorer.extra_columns]
            fields += [pa.field(column, pa.string()) for column in scorer.text_columns]
            if soft_passes(name, self.options):
                fields.append(pa.field(f"{name}_soft", pa.bool_()))
        if run.summary.agreement is not None:
            fields.append(pa.field("agreement", pa.string()))
        if self.summary:
            fields.append(pa.field(SUMMARY_COLUMN, pa.large_binary()))
        signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
        metadata = {PARQUET_KEY: signatures_json(signatures), OPTIONS_KEY: run.summary.options.encode()}
        return pa.schema(fields, metadata=metadata)

    def _verdicts(self, run: ScoreRun) -> Any:
        pa = pyarrow()
        schema = self._schema(run)
        found = verdict_table(run, inputs=False)
        count = len(run.records)
        columns: dict[str, Sequence[Any]] = {}
        for name in schema.names:
            if name == "id":
                columns[name] = [record.id for record in run.records]
            elif name == SUMMARY_COLUMN:
                columns[name] = [pickle.dumps(run.summary), *[None] * (count - 1)] if count else []
            else:
                columns[name] = found.get(name, [None] * count)  # a text column no row filled
        return pa.Table.from_pydict(columns, schema=schema)


def score_batch(
    batch: Any,
    metrics: Sequence[str | Scorer] | None = None,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    source: str = "<batches>",
) -> Any:
    """One batch's verdict columns and partial summary (see the module's notes): ``BatchScorer``'s call."""
    scorer = BatchScorer(
        None if metrics is None else tuple(metrics), options or ScoreOptions(), columns, source
    )
    return scorer(batch)


def partial_summaries(batches: Iterable[Any]) -> list[Summary]:
    """The partial summaries held in scored batches' ``assay:summary`` column, in the order given."""
    parts = []
    for batch in batches:
        if SUMMARY_COLUMN not in batch.schema.names:
            raise UsageError(
                "a batch without an 'assay:summary' column was given",
                fix="pass the batches BatchScorer returned (with summary=True)",
            )
        for cell in batch.column(SUMMARY_COLUMN).to_pylist():
            if cell is not None:
                parts.append(pickle.loads(cell))  # what our own job wrote (see the module's notes)
    return parts


def summary_of(batches: Iterable[Any]) -> Summary:
    """The summary of every scored batch, given in input order: the partial summaries merged (tallies
    add; intervals are computed from the merged tallies), equal to a local run's."""
    parts = partial_summaries(batches)
    if not parts:
        raise InputError("the input has no rows", where="the scored batches", fix="add rows to score")
    return merge_summaries(parts)


def without_summary(batch: Any) -> Any:
    """A scored batch without its summary column: the verdicts alone, to write out."""
    names = batch.schema.names
    return batch.drop_columns([SUMMARY_COLUMN]) if SUMMARY_COLUMN in names else batch


def _is_table(batch: Any) -> bool:
    return hasattr(batch, "column_names") and hasattr(batch, "combine_chunks")


def _empty_batch(table: Any) -> Any:
    pa = pyarrow()
    return pa.RecordBatch.from_pylist([], schema=table.schema)


def _is_text(column: Any) -> bool:
    """A column of strings with no null: read as a CSV file's cells are (``Table.cells_are_text``)."""
    pa = pyarrow()
    kind = column.type
    text = pa.types.is_string(kind) or pa.types.is_large_string(kind) or _is_string_view(pa, kind)
    return bool(text) and column.null_count == 0


def _is_string_view(pa: Any, kind: Any) -> bool:
    check = getattr(pa.types, "is_string_view", None)  # pyarrow 16 on
    return check is not None and bool(check(kind))


def _ints(batch: Any, name: str) -> list[int] | None:
    if name not in batch.schema.names:
        return None
    values: list[int] = batch.column(name).to_pylist()
    if any(value is None for value in values):
        raise InputError(f"the column {name!r} has an empty cell", where="a batch", fix="number every row")
    return values
