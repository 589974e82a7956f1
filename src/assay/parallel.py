"""Score a responses file end to end, in several processes when it is a large CSV file.

The file is cut into spans of whole rows (``csvfile.split_spans``); each worker loads and scores its
span, and the parent merges the summaries and joins the per-question outputs in input order. It is
the same loading and scoring as in one process, so the numbers are the same: only the work is shared.
Three things need the whole file, and the parent settles them between the workers' two phases: line
numbers, row numbers (the ids of a file without an id column) and duplicate ids across spans.

    worker: load + score its span ──► (rows, lines, ids) ──► parent: check ids, hand out offsets
    worker: renumber, summarise, write its part of --out ──► summary ──► parent: merge, join parts

Any input error in a span, and any problem only the whole file shows (ids repeated across spans, no
rows at all), sends the whole file through one process instead, which reports it with its true line
number; so does a span that ends inside a quoted cell (see ``csvfile.SpanMisaligned``).

Nothing outlives the run. Workers write their parts into a hidden folder beside each output
(``.<name>.assay-parts-<pid>-<random>``), removed on any exit of the parent: an error, Ctrl-C, SIGTERM
(turned into an exit while the workers run). Workers die with the parent, even by ``kill -9`` (on Linux
the kernel kills them: PR_SET_PDEATHSIG; elsewhere each watches its parent). Only ``kill -9`` of the
parent can leave a parts folder behind; its name carries the dead parent's pid, and the next run
writing that output removes it (``outputs.remove_stale``).
"""

from __future__ import annotations

import collections
import gc
import itertools
import operator
import os
import signal
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .csvfile import LineTally, Span, read_header, split_spans
from .errors import AssayError, InputError
from .metric import Scorer
from .outputs import check_writable, remove_stale, replacing, write_failed
from .readers import SPLITTABLE, format_of, read_table
from .records import ColumnMap, Record, load_records, load_table
from .report.rows import write_traces, write_verdicts
from .scorer_registry import SCORERS
from .scoring import ProgressCallback, ScoreOptions, ScoreRun, column_conflicts, finish, score, verdicts
from .summary import Summary, merge_summaries

if TYPE_CHECKING:
    import multiprocessing.process
    from multiprocessing.connection import Connection

# Below this much input per process, starting a process costs more than it saves.
MIN_BYTES_PER_WORKER = 32 << 20


def default_workers() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


@dataclass(frozen=True)
class _Job:
    path: Path
    metrics: tuple[str | Scorer, ...] | None  # None: every metric whose inputs the file has
    options: ScoreOptions
    columns: ColumnMap | None
    allow_duplicate_ids: bool
    trace_col: bool = False  # the traces in a column of --out too


@dataclass(frozen=True)
class ScoredFile:
    """What ``score_file`` gives back: the summary, and the whole run (records, each metric's
    verdicts) when the file was scored in one process; scored in parts, the run stayed in the
    workers, which wrote their parts of --out and --trace themselves (``whole=True`` asks for it)."""

    summary: Summary
    run: ScoreRun | None


def score_file(
    path: str | Path,
    metrics: Sequence[str | Scorer] | None = None,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    limit: int | None = None,
    allow_duplicate_ids: bool = False,
    out: str | Path | None = None,
    trace: str | Path | None = None,
    trace_col: bool = False,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    whole: bool = False,
    sheet: str | None = None,
) -> ScoredFile:
    """Load and score a responses file, write per-question verdicts to ``out`` (with `trace_col`, each
    row's traces in a last column) and every verdict's trace (JSON lines) to ``trace`` if given.

    A CSV file large enough to be worth it is scored by ``workers`` processes (default: one per CPU),
    unless `whole` asks for the whole run back (reports of every row need it in one process), or a
    metric reads the whole run: any run scorer (an async one asks its servers from one event loop) and
    any Scorer given as an object (workers find metrics by name) runs in one process.
    ``progress`` hears of rows scored when the file is scored in one process; several processes report
    nothing until they are done.
    """
    path, options = Path(path), options or ScoreOptions()
    job = _Job(
        path, None if metrics is None else tuple(metrics), options, columns, allow_duplicate_ids, trace_col
    )
    # --trace and --trace-col write every row's trace: read from the calls that decide (assay.evidence).
    # A report shows some rows' traces only (report.shown), which explain their stored verdicts.
    evidence = trace is not None or trace_col
    whole = whole or (metrics is not None and any(map(_needs_one_process, metrics)))
    spans = [] if whole else _plan(path, default_workers() if workers is None else workers, limit)
    if len(spans) >= 2:
        try:
            return ScoredFile(_score_spans(job, spans, _path(out), _path(trace)), None)
        except (InputError, _ReadWhole):
            pass  # read the file in one process, which finds the same error and says where it is
    dataset = load_records(
        path,
        columns=columns,
        limit=limit,
        allow_duplicate_ids=allow_duplicate_ids,
        raw_lines=out is not None,
        sheet=sheet,
    )
    if out is not None:
        column_conflicts(dataset, job.metrics, options)  # before the work, not after it
    run = score(dataset, job.metrics, options=options, progress=progress, evidence=evidence)
    # The traces are kept for the outputs still to come: --trace, and the reports of a whole run
    if out is not None:
        write_verdicts(run, out, trace=trace_col, keep_traces=whole or trace is not None)
    if trace is not None:
        write_traces(run, trace, keep=whole)
    return ScoredFile(run.summary, run)


def _needs_one_process(metric: str | Scorer) -> bool:
    """Whether a metric makes the run one process: a run scorer (an async one asks servers concurrently,
    in one event loop; any reads the whole run), or a Scorer given in process (workers know only names)."""
    if isinstance(metric, Scorer):
        return True
    return metric in SCORERS and SCORERS[metric].by_run


def _path(path: str | Path | None) -> Path | None:
    return None if path is None else Path(path)


def _parts_folder(path: Path) -> Path:
    """A new hidden folder beside an output for the workers' parts of it, named for this process so
    that a later run can tell it is stale (see the module's notes)."""
    target = Path(os.path.realpath(check_writable(path)))
    remove_stale(target)
    folder = target.with_name(f".{target.name}.assay-parts-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        folder.mkdir()
    except OSError as exc:
        raise write_failed(folder, exc) from None
    return folder


def _part_paths(path: Path | None, folders: dict[Path, Path], count: int) -> list[Path]:
    """Where each worker writes its part of an output, in the output's parts folder, or none."""
    return [folders[path] / f"part{i}{path.suffix}" for i in range(count)] if path else []


class _ReadWhole(Exception):
    """A problem only the whole file shows (ids repeated across spans, no rows at all): the file is read
    again in one process, whose loader reports it with its true lines."""


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long, say: read whole, and the reader says what is wrong
        return False


def _plan(path: Path, workers: int, limit: int | None) -> list[Span]:
    if limit is not None or workers < 2 or not _is_file(path) or format_of(path) not in SPLITTABLE:
        return []
    parts = min(workers, path.stat().st_size // MIN_BYTES_PER_WORKER)
    return split_spans(path, parts) if parts >= 2 else []


def _score_spans(job: _Job, spans: list[Span], out: Path | None, trace: Path | None) -> Summary:
    folders: dict[Path, Path] = {}  # output -> the folder of its parts
    processes: list[multiprocessing.process.BaseProcess] = []

    def clean_up() -> None:
        import shutil  # here: loaded by a run that starts workers, not by every run

        for process in processes:
            if process.is_alive():  # still waiting for its offsets: an error cut the run short
                process.kill()
            process.join()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)

    try:
        with _terminate_as_exit(clean_up):
            for path in (out, trace):
                if path is not None:
                    folders[path] = _parts_folder(path)
            return _run_workers(job, spans, out, trace, folders, processes)
    finally:
        clean_up()


def _run_workers(
    job: _Job,
    spans: list[Span],
    out: Path | None,
    trace: Path | None,
    folders: dict[Path, Path],
    processes: list[multiprocessing.process.BaseProcess],
) -> Summary:
    """Start a worker per span (into `processes`, which the caller stops), settle what needs the
    whole file between their two phases, and join their parts into the outputs."""
    parts = _part_paths(out, folders, len(spans))
    trace_parts = _part_paths(trace, folders, len(spans))
    import multiprocessing  # here: a file scored in one process (a small one) never loads it

    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    pipes = []
    for index, span in enumerate(spans):
        parent_end, child_end = context.Pipe()
        part = parts[index] if parts else None
        trace_part = trace_parts[index] if trace_parts else None
        process = context.Process(
            target=_worker,
            args=(child_end, job, span, part, trace_part, index == 0, os.getpid()),
            daemon=True,
        )
        process.start()
        child_end.close()
        pipes.append(parent_end)
        processes.append(process)
    loaded = [_receive(pipe) for pipe in pipes]
    if sum(rows for rows, _, _ in loaded) == 0 or not _ids_unique(ids for _, _, ids in loaded):
        raise _ReadWhole
    line_offsets = itertools.accumulate(
        (lines for _, lines, _ in loaded), initial=read_header(job.path).lines
    )
    row_offsets = itertools.accumulate((rows for rows, _, _ in loaded), initial=0)
    for pipe, row_offset, line_offset in zip(pipes, row_offsets, line_offsets):
        pipe.send((row_offset, line_offset))
    summaries = [_receive(pipe) for pipe in pipes]
    if out is not None:
        _join_parts(parts, out)
    if trace is not None:
        _join_parts(trace_parts, trace)
    return merge_summaries([s for s, (rows, _, _) in zip(summaries, loaded) if rows])


@contextmanager
def _terminate_as_exit(clean_up: Callable[[], None]) -> Iterator[None]:
    """While workers run, SIGTERM exits through the `finally` blocks (which stop the workers and
    remove their parts) instead of ending the process where it stands. The handler cleans up first,
    as an exception raised from a signal handler is lost when it lands in a finaliser; then the
    parent finds its workers gone. Signals reach only the main thread; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        clean_up()
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _worker(
    pipe: Connection,
    job: _Job,
    span: Span,
    part: Path | None,
    trace_part: Path | None,
    first: bool,
    parent: int,
) -> None:
    _die_with_parent(parent)
    # A short-lived process building records that hold no cycles: the cyclic collector would only walk
    # them again and again (see _gc.collection_paused).
    gc.disable()
    try:
        tally = LineTally()
        table = read_table(job.path, span, tally=tally, raw_lines=part is not None)
        dataset = load_table(
            table, columns=job.columns, allow_duplicate_ids=job.allow_duplicate_ids, part=True
        )
        if part is not None:
            column_conflicts(dataset, job.metrics, job.options)
        traced = trace_part is not None or (part is not None and job.trace_col)
        results, blank = verdicts(dataset, job.metrics, job.options, evidence=traced)
        numbered = "id" not in dataset.fields
        ids = None if numbered or job.allow_duplicate_ids else [r.id for r in dataset.records]
        pipe.send(("ok", (len(dataset), tally.lines, ids)))
        row_offset, line_offset = pipe.recv()
        _renumber(dataset.records, row_offset if numbered else None, line_offset)
        run = finish(dataset, results, blank, job.options)
        if part is not None:
            keep = trace_part is not None
            write_verdicts(run, part, header=first, trace=job.trace_col, part=True, keep_traces=keep)
        if trace_part is not None:
            write_traces(run, trace_part, part=True, keep=False)
        pipe.send(("ok", run.summary))
    except AssayError as exc:
        pipe.send(("error", exc))
    except BaseException:  # a bug: hand the traceback to the parent rather than dying silently
        pipe.send(("crash", traceback.format_exc()))
    finally:
        pipe.close()


# From <linux/prctl.h>: ask the kernel to send a signal to this process when its parent dies.
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the run, however the parent ends (kill -9 included): on Linux the
    kernel kills it; elsewhere a thread watches for the parent's death. SIGTERM, which the parent
    turns into an exit while it waits (`_terminate_as_exit`), simply ends a worker."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not (sys.platform.startswith("linux") and _kernel_kills_orphan()):
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os._exit(1)


def _kernel_kills_orphan() -> bool:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _renumber(records: Sequence[Record], row_offset: int | None, line_offset: int) -> None:
    """Lines were counted, and rows numbered, from 1 within the span; now the lines and rows before it
    are known. (Built-in maps: a Python loop over every record costs a tenth of a second here.)"""
    lines = map(operator.add, map(operator.attrgetter("row"), records), itertools.repeat(line_offset))
    collections.deque(map(setattr, records, itertools.repeat("row"), lines), maxlen=0)
    if row_offset is not None:
        ids = map(str, range(row_offset + 1, row_offset + 1 + len(records)))
        collections.deque(map(setattr, records, itertools.repeat("id"), ids), maxlen=0)


def _receive(pipe: Connection) -> Any:
    try:
        status, value = pipe.recv()
    except EOFError:
        raise RuntimeError("a scoring process ended without reporting; see its output above") from None
    if status == "error":
        raise value
    if status == "crash":
        raise RuntimeError(f"a scoring process failed:\n{value}")
    return value


def _ids_unique(per_span: Iterable[list[str] | None]) -> bool:
    """No id in two spans (each span's loader has checked its own)."""
    seen: set[str] = set()
    for ids in per_span:
        if ids is None:
            continue
        if not seen.isdisjoint(ids):
            return False
        seen.update(ids)
    return True


def _join_parts(parts: Sequence[Path], out: Path) -> None:
    """Join the workers' outputs in span order (for Parquet, into one table)."""
    if out.suffix.lower() == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = [pq.read_table(part) for part in parts]
        # A column empty in one part has type null there: let the other parts' types win.
        schema = pa.unify_schemas([t.schema for t in tables], promote_options="permissive")
        with replacing(out) as temp, pq.ParquetWriter(temp, schema) as writer:
            for table in tables:
                writer.write_table(table.cast(schema))
        return
    # CSV parts after the first were written without a header. The first part becomes the file (its
    # folder is beside the output: one file system), and the rest are appended by the kernel.
    with replacing(out) as temp:
        mode = stat.S_IMODE(temp.stat().st_mode)  # as replacing made it: the old output's, or umask's
        os.replace(parts[0], temp)
        os.chmod(temp, mode)
        joined = os.open(temp, os.O_WRONLY)
        try:
            os.lseek(joined, 0, os.SEEK_END)
            for part in parts[1:]:
                _append(part, joined)
        finally:
            os.close(joined)


def _append(part: Path, joined: int) -> None:
    """Copy `part` to the end of the file open as `joined`, in the kernel where it can (copy_file_range,
    which moves both files' offsets by what it copied, so a fallback continues where it stopped)."""
    source = os.open(part, os.O_RDONLY)
    try:
        copy = getattr(os, "copy_file_range", None)
        if copy is not None:
            try:
                while copy(source, joined, 1 << 30):
                    pass
                return
            except OSError:  # a file system that cannot: the rest through Python
                pass
        while chunk := os.read(source, 1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(joined, view) :]
    finally:
        os.close(source)
