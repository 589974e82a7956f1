"""An earlier run's rows and reports in a run's folder, kept under a number when the folder is run again.

``assay run`` on a folder that already holds ``run.jsonl`` and ``results.json/.md/.html`` (a resumed run,
or one re-graded from its journal with another judge) does not replace them: before it asks anything
it renames them (and the marks ``assay view`` keeps of its verdicts, ``human_labels.jsonl``) to
``run.N.jsonl``, ``results.N.json/.md/.html`` and ``human_labels.N.jsonl``, N one above the highest number
any file of the folder already has (1 the first time), so that all of one earlier run's files share
one number, a later run's number is always higher, and no kept file is ever written over.

A kept ``run.N.jsonl`` is still a run: ``assay compare DIR/run.1.jsonl DIR`` compares it with the newest,
reading its signatures from the ``results.N.json`` beside it (``results_beside``), and ``assay view``
lists it among the runs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..outputs import write_failed

RUN_NAME = "run.jsonl"  # harness.run's RUN_NAME (not imported: run imports this module)
RESULTS_NAMES = ("results.json", "results.md", "results.html")  # results.RESULTS_FILES
# The marks a person gave the run's verdicts in `assay view` (view/labels.py): they are of these rows, so
# they go with them.
LABELS_NAME = "human_labels.jsonl"
KEPT_NAMES = (RUN_NAME, *RESULTS_NAMES, LABELS_NAME)
# run.3.jsonl, results.3.md, ...: the files of a kept run, the number between the name and its suffix
_NUMBERED = re.compile(r"^(run|results|human_labels)\.([0-9]+)\.(jsonl|json|md|html)$")


@dataclass(frozen=True)
class KeptRun:
    """An earlier run's files, renamed: their number, and each old name -> the new path."""

    number: int
    renamed: dict[str, Path]

    def line(self) -> str:
        """What the run says of it on stderr."""
        names = ", ".join(path.name for path in self.renamed.values())
        folder = next(iter(self.renamed.values())).parent
        return (
            f"kept the earlier run's {', '.join(self.renamed)} in {folder} as {names} "
            f"(earlier run {self.number}); this run writes its own"
        )


def numbered(name: str, number: int) -> str:
    """results.md, 2 -> results.2.md."""
    stem, _, suffix = name.rpartition(".")
    return f"{stem}.{number}.{suffix}"


def earlier_number(name: str) -> int | None:
    """The number of a kept run's file name (results.2.md -> 2); None for any other name."""
    found = _NUMBERED.match(name)
    return int(found.group(2)) if found else None


def next_number(out: Path) -> int:
    """One above the highest number a kept run's file in `out` has (1 when there is none): a gap left by
    a file deleted by hand is never filled, so numbers only grow."""
    numbers = [earlier_number(path.name) for path in out.iterdir()]
    return max((number for number in numbers if number is not None), default=0) + 1


def keep_earlier(out: Path) -> KeptRun | None:
    """Rename the earlier run's rows and reports in `out` to the next number; None when there are none.

    Called with the journal's lock held: no other run renames or writes in the folder meanwhile."""
    present = [name for name in KEPT_NAMES if (out / name).exists()]
    if not present:
        return None
    number = next_number(out)
    renamed: dict[str, Path] = {}
    for name in present:
        target = out / numbered(name, number)
        try:
            os.rename(out / name, target)  # the number is new: nothing of that name exists to replace
        except OSError as exc:
            raise write_failed(target, exc) from None
        renamed[name] = target
    return KeptRun(number, renamed)


def beside(run_path: Path, name: str) -> Path:
    """The file `name` written with a run's rows: `name` beside run.jsonl, its numbered name beside
    run.N.jsonl (any other name of rows: `name` beside it)."""
    number = earlier_number(run_path.name)
    return run_path.parent / (name if number is None else numbered(name, number))


def results_beside(run_path: Path) -> Path:
    """The results.json written with a run's rows (``beside``)."""
    return beside(run_path, "results.json")


__all__ = [
    "KEPT_NAMES",
    "LABELS_NAME",
    "KeptRun",
    "beside",
    "earlier_number",
    "keep_earlier",
    "next_number",
    "numbered",
    "results_beside",
]
