"""Scored files (``assay score --out FILE``) as the viewer shows them, beside the runs: read back with
``comparison.load_scored`` (the reader ``assay compare`` uses), in the order they were written (their
time of change: a scored file records no start time); two of them compared by ``comparison.compare``
(per metric, per domain and overall, the paired bootstrap interval of B - A and McNemar's p-value).

A scored file has no outcome per row and no citations: its items show each metric's verdict, and the
mark a person gave the reply itself (correct or incorrect, ``labels.ScoredMarks``), kept in
NAME.human_labels.jsonl beside NAME.EXT, which is not a scored file itself.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..comparison import compare, load_scored
from ..errors import AssayError
from ..harness.earlier import earlier_number
from ..harness.results import tally_dict
from ..metric import Outcome
from ..report.rows import OUT_FORMATS
from ..scoring import ScoreRun
from ..summary import Tally
from .labels import LABEL_COLUMN, LABELS_FILE, SCORED_LABELS_SUFFIX, file_version

NOT_SCORED = ("run.jsonl", "journal.jsonl", LABELS_FILE)  # a run's own files (and its kept ones, numbered)


@dataclass(frozen=True)
class Scored:
    id: str  # the file's path under the viewed folder
    path: Path
    run: ScoreRun
    written: int  # time of change, ns
    version: str  # labels.file_version when it was read: a mark names it, so a file written since is refused

    def summary(self) -> dict[str, Any]:
        interval = self.run.summary.interval
        metrics = self.run.summary.metrics
        return {
            "id": self.id,
            "kind": "scored",
            "started": datetime.fromtimestamp(self.written / 1e9, UTC).isoformat(timespec="seconds"),
            "version": self.version,
            "questions": self.run.summary.total,
            "metrics": {name: _tally(m.combined, interval) for name, m in metrics.items()},
            "domains": {
                name: {domain: _tally(tally, interval) for domain, tally in m.domains.items()}
                for name, m in metrics.items()
            },
        }


def _tally(tally: Tally, interval: Any) -> dict[str, Any]:
    """``tally_dict``'s numbers, with a graded metric's mean (charted by it, not by its exact passes)."""
    return {**tally_dict(tally, interval), "mean": tally.mean}


class ScoredFiles:
    """The scored files read so far, by path, kept while the file is unchanged: a folder is scanned on
    every load of the page, and a file is read again only when it changed."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[tuple[int, int], Scored | None]] = {}
        self._lock = threading.Lock()

    def find(self, root: Path, folders: list[Path]) -> list[Scored]:
        found = [self._scored(path, root) for folder in folders for path in _candidates(folder)]
        return sorted((s for s in found if s is not None), key=lambda s: (s.written, s.id))

    def _scored(self, path: Path, root: Path) -> Scored | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            known = self._read.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            # hashed before it is read: a file written between the two reads as changed when marked
            version = file_version(path)
            found: Scored | None = Scored(
                path.relative_to(root).as_posix(), path, load_scored(path), stamp[0], version
            )
        except (AssayError, OSError, ValueError):  # not a scored file (no id, no verdict column, ...)
            found = None
        with self._lock:
            self._read[path] = (stamp, found)
        return found


def _candidates(folder: Path) -> list[Path]:
    try:
        return sorted(
            path
            for path in folder.iterdir()
            if path.suffix.lower() in OUT_FORMATS  # what assay score --out writes
            and path.name not in NOT_SCORED
            and not path.name.endswith(SCORED_LABELS_SUFFIX)  # a scored file's labels
            and earlier_number(path.name) is None  # run.1.jsonl: a kept run, listed as a run
            and not path.name.startswith(".")
            and path.is_file()
        )
    except OSError:
        return []


def items(scored: Scored, labels: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each row: its question, golden answers, reply, domain, every metric's verdict, and the label a
    person gave its reply (`labels`, by id)."""
    metrics = scored.run.metrics
    return [
        {
            "id": record.id,
            "scope": record.domain or None,
            "category": None,
            "question": record.question,
            "expected": " | ".join(record.answers),
            "response": record.response,
            "outcome": None,
            "metrics": [
                {"name": name, "verdict": _verdict(m.outcomes[i]), "words": {}} for name, m in metrics.items()
            ],
            "citations": 0,
            "mark": (labels.get(record.id) or {}).get(LABEL_COLUMN),
        }
        for i, record in enumerate(scored.run.records)
    ]


def _verdict(outcome: int) -> bool | None:
    return None if outcome == Outcome.UNSCORED else outcome == Outcome.PASS


def compared(a: Scored, b: Scored) -> dict[str, Any]:
    """B against A per metric, with the regressions flagged (a metric, overall or in a domain, whose
    paired 95% interval of B - A lies below zero) and each row a metric passed in A and fails in B."""
    found = compare(a.run, b.run).as_dict()
    regressions = [
        f"{metric} ({name})"
        for metric, paired in found["metrics"].items()
        for name, difference in {"all": paired["combined"], **paired["domains"]}.items()
        if (difference.get("interval") or {}).get("high") is not None and difference["interval"]["high"] < 0
    ]
    b_rows = {record.id: index for index, record in enumerate(b.run.records)}
    moved = []
    for index, record in enumerate(a.run.records):
        other = b_rows.get(record.id)
        changed = [
            (
                name,
                scores.outcomes[index] == Outcome.PASS,
                b.run.metrics[name].outcomes[other] == Outcome.PASS,
            )
            for name, scores in a.run.metrics.items()
            if other is not None and name in b.run.metrics
        ]
        changed = [(name, before, after) for name, before, after in changed if before != after]
        if changed:
            moved.append(
                {"id": record.id, "scope": record.domain, "question": record.question,
                 "a": _verdicts(changed, 1), "b": _verdicts(changed, 2),
                 "regression": any(before for _, before, _ in changed)}
            )  # fmt: skip
    return {"kind": "scored", "items_in_both": found["rows_in_both"], "paired": found, "moved": moved,
            "regressions": regressions, "warnings": found["warnings"]}  # fmt: skip


def _verdicts(changed: list[tuple[str, bool, bool]], side: int) -> str:
    return ", ".join(f"{found[0]} {'pass' if found[side] else 'fail'}" for found in changed)
