"""``assay view``: a local web viewer over a folder of runs (``assay run --out`` folders) and scored
files (``assay score --out``): the runs in the order they ran with their headline numbers, trend
charts, two runs compared with the paired tests, each item's reply, outcome and evidence in its page,
and human marks (of a run's verdicts, of a scored file's replies) saved as labels ``assay agree``
reads. ``server`` serves it on 127.0.0.1; ``runs`` reads the runs, ``scored`` the scored files;
``labels`` keeps the marks of both."""

from __future__ import annotations

from .labels import LABEL_COLUMN, LABELS_FILE, MARK_COLUMN
from .server import ViewServer

__all__ = ["LABELS_FILE", "LABEL_COLUMN", "MARK_COLUMN", "ViewServer"]
