"""The documents of a run: every row of a run is checked against one sources folder, so its documents are
extracted once per state of the folder's files (not once per row), and the scores carry a signature of
what they were read from (which documents, their content and extractor), not of the folder's path.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...documents import Sources


@functools.lru_cache(maxsize=8)
def _loaded(root: str, state: tuple[tuple[str, int, int], ...]) -> Sources:
    from ...documents import load_sources

    # No page cache: scoring writes nothing but its outputs, and the pages of a folder of policies
    # extract in a second or two, once per run.
    return load_sources(Path(root), cache_dir=None)


def load_run_sources(folder: str | Path) -> Sources:
    """The documents of a sources folder, loaded once per state of its files (paths, sizes, times)."""
    from ...documents import load_sources

    root = Path(folder)
    if not root.is_dir():
        return load_sources(root, cache_dir=None)  # which says what is wrong with the folder
    return _loaded(str(root.resolve()), _folder_state(root))


def _folder_state(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Each file's path, size and modification time: a changed file is a new state. Hidden files and
    folders are left out, as ``load_sources`` leaves them out (a .git folder changes often)."""
    found = []
    for path in sorted(root.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
        if path.is_file() and not hidden:
            status = path.stat()
            found.append((path.relative_to(root).as_posix(), status.st_size, status.st_mtime_ns))
    return tuple(found)


def sources_signature(sources: Sources) -> str:
    """What the numbers depend on in a sources folder: every document's id, content hash and the
    extractor that read it (and the files no extractor could read), as a digest; not the folder's path."""
    lines = [f"{d.id}\t{d.sha256}\t{d.extractor}" for d in sources.values()]
    lines += [f"unreadable\t{path}" for path, _ in sources.problems]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    return f"sources:{len(sources)}docs-{digest}"


__all__ = ["load_run_sources", "sources_signature"]
