"""The files a command writes besides its report (gold build's, gold coverage's, sources map's): each
one asked for written whole, then one line naming them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..outputs import write_text
from ..terminal import one_line


def write_outputs(outputs: Sequence[tuple[str | None, Callable[[], str]]]) -> None:
    """Each output asked for (its path given), its text made only then; then one line naming them."""
    written = [path for path, _ in outputs if path]
    for path, text in outputs:
        if path:
            write_text(path, text())
    if written:
        print("wrote " + ", ".join(one_line(str(path)) for path in written))
