"""The documents of a run: every row of a run is checked against one sources folder, so its documents are
extracted once per state of the folder's files (not once per row), and the scores carry a signature of
what they were read from (which documents, their content and extractor), not of the folder's path.
"""

from __future__ import annotations

import functools
import hashlib
import os
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
    # realpath, not Path.resolve: Python 3.11's resolve raises RuntimeError on a loop of links
    return _loaded(os.path.realpath(root), _folder_state(root))


def _folder_state(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Each file's path, size and modification time (a changed file is a new state), from the walk that
    ``load_sources`` makes too (hidden entries left out, links to folders not followed); the entries it
    skips are part of the state, so a loop of links made or mended is a new state as well."""
    from ...documents.walk import walk_folder

    walk = walk_folder(root)
    skipped = tuple((path, -1, -1) for path, _ in walk.skipped)
    return tuple((found.relative, found.size, found.mtime_ns) for found in walk.files) + skipped


def sources_signature(sources: Sources) -> str:
    """What the numbers depend on in a sources folder: every document's id, content hash and the
    extractor that read it (and the files no extractor could read), as a digest; not the folder's path."""
    lines = [f"{d.id}\t{d.sha256}\t{d.extractor}" for d in sources.values()]
    lines += [f"unreadable\t{path}" for path, _ in sources.problems]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    return f"sources:{len(sources)}docs-{digest}"


__all__ = ["load_run_sources", "sources_signature"]
