"""``assay view``: a local web viewer over a folder of runs (``assay run --out`` folders): the runs in
the order they ran with their headline numbers, trend charts, two runs compared with the paired tests,
each item's reply, outcome and evidence in its page, and human marks saved as labels ``assay agree``
reads. ``server`` serves it on 127.0.0.1; ``runs`` reads the runs; ``labels`` keeps the marks."""

from __future__ import annotations

from .labels import LABEL_COLUMN, LABELS_FILE, MARK_COLUMN
from .server import ViewServer

__all__ = ["LABELS_FILE", "LABEL_COLUMN", "MARK_COLUMN", "ViewServer"]
