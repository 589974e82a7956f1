"""The runs of a folder as the viewer shows them: every ``assay run --out`` folder under it (its run, and
the earlier runs it keeps as run.N.jsonl when it was run again: ``harness.earlier``), read back
with the harness's own readers (``run_compare.load_run`` for the rows and outcomes, results.json for the
headline and rollups), in the order they ran; two runs compared by ``run_compare.compare_runs`` (the
paired tests of ``assay compare``); an item's citations located in the page text of its documents.

A run's id is its folder's path under the viewed folder, and ``@N`` after it for the earlier run kept as
run.N.jsonl. Requests name runs by id only, and an id is looked up among the runs found, never joined to
a path, so a request can reach no other file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..documents import Sources, load_sources
from ..errors import AssayError, UsageError
from ..harness.earlier import earlier_number, results_beside
from ..harness.outcomes import DECIDED_COLUMN, OUTCOME_COLUMN, PASSING, REASON_COLUMN
from ..harness.run_compare import RUN_FILE, HarnessRun, compare_runs, load_run, run_file
from ..records import Record

# Folders a walk does not enter, besides hidden ones (a page cache, .git, a virtual environment).
SKIPPED_FOLDERS = ("node_modules", "__pycache__")
MAX_DEPTH = 4  # runs are found this many folders deep under the viewed folder, no deeper


@dataclass(frozen=True)
class Run:
    id: str  # the folder's path under the viewed folder, "/"-separated; "@N" after it for run.N.jsonl
    rows: Path  # its run.jsonl, or run.N.jsonl
    results: Mapping[str, Any]  # the results.json written with it, {} without one

    @property
    def folder(self) -> Path:
        return self.rows.parent

    @property
    def signatures(self) -> Mapping[str, Any]:
        found = self.results.get("signatures")
        return found if isinstance(found, Mapping) else {}

    def order(self) -> tuple[str, int, str]:
        """When it ran: results.json's start time, then its run.jsonl's time of change (two runs started
        in one second), then its id."""
        return (
            str(self.signatures.get("started") or ""),
            self.rows.stat().st_mtime_ns,
            self.id,
        )

    def summary(self) -> dict[str, Any]:
        """What the list of runs and the trend charts show: the headline, outcome counts and rollups."""
        return {
            "id": self.id,
            "started": self.signatures.get("started"),
            "version": self.signatures.get("started"),  # what a mark names: the run written again is another
            # the spec with its options (secrets never written): what tells two versions of a bot apart
            "system": self.signatures.get("system_signature") or self.signatures.get("system"),
            "gold_sha256": self.signatures.get("gold_sha256"),
            "headline": self.results.get("headline"),
            "outcomes": self.results.get("outcomes"),
            "rollups": self.results.get("rollups"),
            "gate": self.results.get("gate"),
        }


def find_runs(folders: list[Path], root: Path) -> list[Run]:
    """The runs in `folders` (``folders(root)``), kept earlier ones too, in the order they ran."""
    found = [
        Run(_run_id(rows, root), rows, _results(rows))
        for folder in folders
        for rows in _run_files(folder)
        if run_file(rows)
    ]
    return sorted(found, key=Run.order)


def _run_files(folder: Path) -> list[Path]:
    """The folder's run.jsonl and the run.N.jsonl of the earlier runs it keeps."""
    try:
        kept = [path for path in folder.glob("run.*.jsonl") if earlier_number(path.name) is not None]
    except OSError:
        kept = []
    return [folder / RUN_FILE, *sorted(kept)]


def folders(folder: Path, depth: int = 0) -> Iterator[Path]:
    """`folder` and the folders under it, hidden ones and links skipped, MAX_DEPTH deep at most."""
    yield folder
    if depth >= MAX_DEPTH:
        return
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return
    for child in children:
        hidden = child.name.startswith(".") or child.name in SKIPPED_FOLDERS
        if child.is_dir() and not child.is_symlink() and not hidden:
            yield from folders(child, depth + 1)


def _run_id(rows: Path, root: Path) -> str:
    folder = rows.parent
    named = folder.relative_to(root).as_posix() if folder != root else "."
    number = earlier_number(rows.name)
    return named if number is None else f"{named}@{number}"


def _results(rows: Path) -> Mapping[str, Any]:
    try:
        found = json.loads(results_beside(rows).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


_read: dict[Path, tuple[tuple[int, int], HarnessRun]] = {}
_read_lock = threading.Lock()


def read_run(rows: Path) -> HarnessRun:
    """``load_run`` of a run's rows, kept while they are unchanged: the page asks for a run's items,
    then an item's evidence, then a comparison, each of which reads its rows."""
    stat = rows.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _read_lock:
        known = _read.get(rows)
    if known is not None and known[0] == stamp:
        return known[1]
    found = load_run(rows)
    with _read_lock:
        _read[rows] = (stamp, found)
    return found


def items(run: Run, labels: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each item of the run as the page lists it: the question, the reply, the outcome and its reason
    (a judge's rationale when one decided), every metric's verdict and words, and its human mark."""
    found = read_run(run.rows)
    metrics = list((run.signatures.get("metrics") or {}).keys())
    return [_item(record, metrics, labels.get(record.id)) for record in found.run.records]


def _item(record: Record, metrics: list[str], label: Mapping[str, Any] | None) -> dict[str, Any]:
    meta, gold, reply = record.meta, record.gold, record.reply
    return {
        "id": record.id,
        "scope": record.scope,
        "category": None if gold is None else gold.category,
        "question": record.question,
        "expected": " | ".join(record.answers),
        "response": record.response,
        "outcome": meta.get(OUTCOME_COLUMN),
        "reason": meta.get(REASON_COLUMN),
        "decided_by": meta.get(DECIDED_COLUMN),
        "error": None if reply is None else reply.error,
        "metrics": [_metric(meta, name) for name in metrics if name in meta],
        "citations": 0 if reply is None else len(reply.citations),
        "mark": None if label is None else label.get("human_mark"),
    }


def _metric(meta: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A metric's verdict and its text columns (``NAME_...``: a reason, problems, a rationale), as the
    run wrote them."""
    words = {
        key[len(name) + 1 :]: str(value)
        for key, value in meta.items()
        if key.startswith(f"{name}_") and value not in (None, "")
    }
    return {"name": name, "verdict": meta.get(name), "words": words}


def passing(outcome: object) -> bool:
    return outcome in PASSING


def compare(a: Run, b: Run) -> dict[str, Any]:
    """B against A: ``compare_runs``'s dict (outcome classes, transitions, the paired tests of factual
    accuracy per scope and combined), with each item that changed class, and the regressions flagged:
    an item that passed in A and does not in B, and a scope (or all) whose paired interval of B - A lies
    below zero."""
    found = compare_runs(a.rows, b.rows)
    a_run, b_run = read_run(a.rows), read_run(b.rows)
    b_outcomes = dict(zip((r.id for r in b_run.run.records), b_run.outcomes))
    moved = [
        {
            "id": record.id,
            "scope": record.scope,
            "question": record.question,
            "a": before,
            "b": b_outcomes[record.id],
            "regression": passing(before) and not passing(b_outcomes[record.id]),
        }
        for record, before in zip(a_run.run.records, a_run.outcomes)
        if record.id in b_outcomes and b_outcomes[record.id] != before
    ]
    factual = found["factual"]["metrics"].get("factual")
    found["moved"] = moved
    found["regressions"] = [] if factual is None else _regressions(factual)
    return found


def _regressions(factual: Mapping[str, Any]) -> list[str]:
    """The scopes (and "all") whose paired 95% interval of B - A is wholly below zero."""
    named = {"all": factual["combined"], **factual["domains"]}
    return [name for name, found in named.items() if _below_zero(found)]


def _below_zero(difference: Mapping[str, Any]) -> bool:
    interval = difference.get("interval")
    return isinstance(interval, Mapping) and interval.get("high") is not None and interval["high"] < 0


class Documents:
    """The page text of the runs' documents, read once per sources folder through ``load_sources`` (and
    its page cache): the folder given to the viewer (``--sources``), else each run's own (the folder its
    results.json names, when it is there)."""

    def __init__(self, sources: Path | None) -> None:
        self.given = sources
        self._loaded: dict[Path, Sources] = {}
        self._lock = threading.Lock()

    def missing(self, run: Run) -> str:
        """Why a run has no pages to show, and the fix."""
        named = self.given or run.signatures.get("sources")
        if not named:
            return "the run names no sources folder: give assay view --sources DIR to see the pages"
        read_as = "" if Path(named).is_absolute() else f" (read from {Path.cwd()}, where assay view runs)"
        return f"the sources folder {str(named)!r}{read_as} is not there: give assay view --sources DIR"

    def of(self, run: Run) -> Sources | None:
        named = self.given or run.signatures.get("sources")
        if not named or not Path(named).is_dir():
            return None
        folder = Path(named).resolve()
        with self._lock:
            if folder not in self._loaded:
                self._loaded[folder] = load_sources(folder)
            return self._loaded[folder]


def evidence(run: Run, item_id: str, documents: Documents) -> dict[str, Any]:
    """The pages an item's evidence is on, each with its text and the spans to highlight: each citation
    of the reply (its start and end on the page, else its quote found there) and the gold set's quote."""
    record = _record(run, item_id)
    sources = documents.of(run)
    if sources is None:
        return {"pages": [], "note": documents.missing(run)}
    pages = []
    for citation in () if record.reply is None else record.reply.citations:
        span = None if citation.start is None or citation.end is None else (citation.start, citation.end)
        pages.append(_page(sources, "citation", citation.document, citation.page, span, citation.quote))
    gold = record.gold
    if gold is not None and gold.source_document:
        pages.append(_page(sources, "gold", gold.source_document, gold.page, gold.quote_span, gold.quote))
    return {"pages": pages, "note": None}


def _record(run: Run, item_id: str) -> Record:
    for record in read_run(run.rows).run.records:
        if record.id == item_id:
            return record
    raise UsageError(f"no item {item_id!r} in run {run.id}", fix="pick an item the run's list shows")


def _page(
    sources: Sources,
    kind: str,
    reference: str,
    page: int | None,
    span: tuple[int, int] | None,
    quote: str | None,
) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": kind, "document": reference, "page": page, "text": None, "spans": []}
    try:
        document = sources.resolve(reference)
    except AssayError as exc:  # a name two documents share: said, not guessed
        return {**found, "note": exc.what}
    if document is None or page is None or not 1 <= page <= len(document.pages):
        return {**found, "note": "the sources hold no such document or page"}
    text = document.pages[page - 1]
    spans = _spans(text, span, quote)
    note = None if spans else "the cited span is not on this page"
    return {**found, "document": document.id, "text": text, "spans": [list(s) for s in spans], "note": note}


def _spans(text: str, span: tuple[int, int] | None, quote: str | None) -> list[tuple[int, int]]:
    """Where on the page the evidence is: its offsets when they hold, else its quote's first occurrence."""
    if span is not None and 0 <= span[0] < span[1] <= len(text):
        return [span]
    at = text.find(quote) if quote else -1
    return [(at, at + len(quote or ""))] if at >= 0 else []
