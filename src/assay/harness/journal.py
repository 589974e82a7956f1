"""The run's journal, ``DIR/journal.jsonl``: what a harness run has asked the system so far, so that a run
stopped in any way (``kill -9`` too) and started again with the same command asks the system only for
the items it has not answered yet.

The first line is the header: the system's signature (its spec and options), the gold file's sha256 and
assay's version. Then one line per answered record, in the order they finished: its run row without
verdicts (the gold item's keys, ``response`` and ``reply``: ``gold_set.run_row``). Each line is written
whole to the file (one ``os.write``, no buffer of Python's) before its item is counted as done, so a
killed process (``kill -9`` too) loses at most the items in flight: what was written is the kernel's.
A line torn by the kill (the last one, unfinished) is dropped with a warning, and its item is asked
again.

Against a crash of the machine (power lost), the lines are committed in groups: ``commit`` fsyncs what
was written since the last one, and the runner commits every ``COMMIT_EVERY`` second while it asks and
once more when it stops, however it stops (the end, an error, Ctrl-C); ``close`` commits too. An fsync
per line cost more than the whole run's other work (about 1.4 s per 1,000 items, each one holding the
event loop), and a lost second of answers costs a second of asking again.

Which failures a resumed run asks again:

- an item whose transport failed on every retry (connection refused, a 503, ...): asked again. The
  network, not the system, decided that row, and a later run may well get through;
- a ``SystemFailure`` (the system's own error: an exception, an HTTP 500, a malformed reply) and a
  timeout: kept. They are the system's answer to that item, and resuming must not turn a system that
  fails on some items into one that passes them by asking until it does.

A journal of another system or another gold file is refused (``UsageError``): its answers are not
this run's. ``--fresh`` starts the journal over.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .._version import __version__
from ..errors import InputError, UsageError
from ..net import display_url
from ..outputs import write_failed
from ..parts import PartError
from ..records import Record
from .gold_set import answered_from_row, run_row

JOURNAL_NAME = "journal.jsonl"
FORMAT = 1  # the journal's own layout; a header of another format is another run's
RETRY_KEY = "retry_on_resume"  # on the line of an item a resumed run asks again; never in a run row
COMMIT_EVERY = 1.0  # seconds: the longest a written line waits for its commit (fsync) while a run asks
FRESH_FIX = "give --fresh to start over (the journal's answers are discarded), or another --out folder"


class JournalWarning(UserWarning):
    """Something in the journal was dropped or is worth knowing (a torn last line, another version)."""


@dataclass(frozen=True)
class JournalHeader:
    """What a journal's answers belong to: one system (with its options) on one gold file. The system is
    kept as ``net.display_url`` shows it: a URL's user and password are never written, and a run whose
    password changed (a key rotated) resumes, as it asks the same system; another host, port or path is
    another system."""

    system: str  # System.signature()
    gold_sha256: str
    assay: str = __version__

    def __post_init__(self) -> None:
        object.__setattr__(self, "system", display_url(self.system))

    def as_json(self) -> dict[str, Any]:
        return {
            "journal": FORMAT,
            "system": self.system,
            "gold_sha256": self.gold_sha256,
            "assay": self.assay,
        }


class Journal:
    """An open journal: the records answered before (``answered``; as rows, ``finished_row``) and the
    journaling of new ones (``record_answer``; as rows, ``record``). Open one with ``open_journal``;
    close it (or use it as a context manager)."""

    def __init__(
        self, path: Path, handle: IO[bytes], finished: dict[str, dict[str, Any]], retried: int
    ) -> None:
        self.path = path
        self._handle = handle
        self._finished = finished
        self.retried = retried  # items journaled with a failed transport: asked again
        self._uncommitted = False  # lines written since the last commit

    def finished_row(self, item_id: str) -> dict[str, Any] | None:
        """The item's row from an earlier run (one finished before the journal was opened: the rows
        recorded since are on the disk only), None when it is to be asked (never asked, or its
        transport failed)."""
        return self._finished.get(item_id)

    def answered(self, record: Record) -> Record | None:
        """The gold record with the response and Reply an earlier run journaled, None when it is to be
        asked (as ``finished_row``)."""
        row = self.finished_row(record.id)
        if row is None:
            return None
        try:
            return answered_from_row(record, row)
        except PartError as exc:
            raise InputError(
                f"the answer to item {record.id!r} has a reply that {exc}",
                where=str(self.path),
                fix=f"restore the file, or {FRESH_FIX}",
            ) from None

    def record_answer(self, item: Mapping[str, Any], record: Record, *, retry: bool = False) -> None:
        """Journal an answered record (as its run row: `item`, the gold item as its file writes it, with
        the response and reply), written before returning; `retry` as ``record``'s."""
        self.record(run_row(item, record), retry=retry)

    def __len__(self) -> int:
        return len(self._finished)

    def record(self, row: Mapping[str, Any], *, retry: bool = False) -> None:
        """Append a finished item's row, written to the file before returning (a killed process keeps
        it) and durable at the next ``commit``; `retry` marks a row a resumed run asks again (its
        transport failed)."""
        line = dict(row) | ({RETRY_KEY: True} if retry else {})
        self._append(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")

    def commit(self) -> None:
        """Make every line written so far durable (one fsync for all of them); nothing to do when none
        was written since the last commit."""
        if not self._uncommitted:
            return
        self._uncommitted = False  # before the fsync: a line written while it runs waits for the next
        try:
            os.fsync(self._handle.fileno())
        except OSError as exc:
            self._uncommitted = True
            raise write_failed(self.path, exc) from None

    def _append(self, data: bytes) -> None:
        """Write `data` to the end with the file's descriptor (no buffer: a write that fails leaves
        nothing for ``close`` to write again), or cut the file back to its last whole line."""
        fd = self._handle.fileno()
        try:
            end = os.fstat(fd).st_size
            view = memoryview(data)
            while view:  # a write may take only part of it (a disk that fills)
                view = view[os.write(fd, view) :]
        except OSError as exc:
            with contextlib.suppress(OSError):  # a part of the line would read as a torn one: none kept
                os.ftruncate(fd, end)
            raise write_failed(self.path, exc) from None
        self._uncommitted = True

    def close(self) -> None:
        """Commit what is written, and close (the file is closed even when the commit fails)."""
        try:
            self.commit()
        finally:
            self._handle.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file (the gold file's, for the header), read in blocks."""
    with Path(path).open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def open_journal(folder: str | Path, header: JournalHeader, *, fresh: bool = False) -> Journal:
    """The journal in `folder` for a run of `header`'s system on its gold file: a new one, or the one
    there with its finished rows (``fresh`` discards them). Another run's journal is a UsageError."""
    path = Path(folder) / JOURNAL_NAME
    try:
        handle = path.open("a+b")  # created when missing; every write goes to the end
    except OSError as exc:
        raise write_failed(path, exc) from None
    try:
        _lock(handle, path)
        finished, retried, good_end = ({}, 0, 0) if fresh else _read(handle, path, header)
        handle.truncate(good_end)  # a torn last line, or the whole file when fresh or headerless
        journal = Journal(path, handle, finished, retried)
        if good_end == 0:
            journal._append(json.dumps(header.as_json(), ensure_ascii=False).encode("utf-8") + b"\n")
    except BaseException:
        handle.close()
        raise
    return journal


def _lock(handle: IO[bytes], path: Path) -> None:
    """Two runs appending to one journal would interleave their answers: the second is refused."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as no lock is needed by one run at a time
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise UsageError(
            "another assay run is writing this journal now",
            where=str(path),
            fix="wait for it to finish, or give this run another --out folder",
        ) from None
    except OSError:  # a file system without locks: as above
        return


def _read(handle: IO[bytes], path: Path, header: JournalHeader) -> tuple[dict[str, dict[str, Any]], int, int]:
    """The finished rows by id, how many items are to be asked again, and where the good lines end
    (0: no header, so the journal starts anew)."""
    handle.seek(0)
    lines = iter(handle)  # line by line: a journal can hold long replies, and is never read whole
    first = next(lines, b"")
    if not first:
        return {}, 0, 0
    _check_header(_parse(first), path, header)
    finished: dict[str, dict[str, Any]] = {}
    retry: set[str] = set()
    offset = len(first)
    number = 1
    for line in lines:
        number += 1
        row = _parse(line)
        if not (line.endswith(b"\n") and _is_row(row)):
            if handle.read(1):  # not the last line: not torn by a kill, but written over by someone
                raise InputError(
                    f"line {number} is not a journal row (assay never writes one so)",
                    where=str(path),
                    fix=f"restore the file, or {FRESH_FIX}",
                )
            warnings.warn(
                JournalWarning(
                    f"{path}: dropped its last line, cut short (the run was stopped while writing it); "
                    "that item is asked again"
                ),
                stacklevel=3,
            )
            break
        assert row is not None
        item_id = str(row["id"])
        if row.pop(RETRY_KEY, False):
            retry.add(item_id)
            finished.pop(item_id, None)
        else:
            retry.discard(item_id)
            finished[item_id] = row
        offset += len(line)
    return finished, len(retry), offset


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _is_row(row: Any) -> bool:
    return (
        isinstance(row, dict)
        and isinstance(row.get("id"), (str, int))
        and not isinstance(row.get("id"), bool)
        and isinstance(row.get("response"), str)
        and isinstance(row.get("reply"), dict)
    )


def _check_header(found: Any, path: Path, header: JournalHeader) -> None:
    """The journal must be this run's: the same system (spec and options) on the same gold file."""
    if not isinstance(found, dict) or found.get("journal") != FORMAT:
        raise UsageError(
            "this file is not an assay run journal (or one of another format)", where=str(path), fix=FRESH_FIX
        )
    found_system = display_url(str(found.get("system")))  # an older journal may hold a password
    if found_system != header.system:
        raise UsageError(
            f"the journal holds the answers of another system: {found_system!r}, and this run "
            f"asks {header.system!r}",
            where=str(path),
            fix=FRESH_FIX,
        )
    if found.get("gold_sha256") != header.gold_sha256:
        raise UsageError(
            f"the journal holds answers to another gold file (sha256 {str(found.get('gold_sha256'))[:12]}"
            f"..., this one's is {header.gold_sha256[:12]}...): the gold file has changed since",
            where=str(path),
            fix=FRESH_FIX,
        )
    if found.get("assay") != header.assay:
        warnings.warn(
            JournalWarning(
                f"{path}: written by assay {found.get('assay')}, this is {header.assay}; its answers are kept"
            ),
            stacklevel=3,
        )


__all__ = [
    "COMMIT_EVERY",
    "JOURNAL_NAME",
    "Journal",
    "JournalHeader",
    "JournalWarning",
    "file_sha256",
    "open_journal",
]
