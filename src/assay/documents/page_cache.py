"""The cache of extracted pages: one JSON file per (file sha256, extractor name and version), so a new
extractor release or a changed file is a miss by construction. A file that fails its checks
(unreadable, another key, a checksum that does not match its pages) is a miss with a
`PageCacheWarning`, and is written again.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import AssayError
from ..outputs import write_text

DEFAULT_PAGE_CACHE = Path(".assay-cache") / "pages"
CACHE_FORMAT = 1


class PageCacheWarning(UserWarning):
    """A page cache file could not be used; the pages were extracted again."""


def cache_path(cache_dir: Path, sha256: str, extractor: str) -> Path:
    return cache_dir / f"{sha256}.{extractor.replace(' ', '-')}.json"


def _checksum(pages: Sequence[str], encryption: str | None) -> str:
    return hashlib.sha256(json.dumps([encryption, list(pages)]).encode("ascii")).hexdigest()


def write_cache(
    cache_dir: Path, sha256: str, extractor: str, pages: Sequence[str], encryption: str | None
) -> None:
    """Store the pages; a cache that cannot be written costs only speed, so it warns."""
    entry = {
        "format": CACHE_FORMAT,
        "sha256": sha256,
        "extractor": extractor,
        "encryption": encryption,
        "pages": list(pages),
        "checksum": _checksum(pages, encryption),
    }
    target = cache_path(cache_dir, sha256, extractor)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_text(target, json.dumps(entry))  # ASCII-escaped: a lone surrogate from pypdf stays writable
    except (AssayError, OSError) as exc:
        warnings.warn(
            f"{target}: the page cache could not be written ({exc})", PageCacheWarning, stacklevel=2
        )


def read_cache(cache_dir: Path, sha256: str, extractor: str) -> tuple[tuple[str, ...], str | None] | None:
    """The cached (pages, encryption), or None: absent, or unusable (with a PageCacheWarning)."""
    target = cache_path(cache_dir, sha256, extractor)
    try:
        entry = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        problem: str | None = f"unreadable: {exc}"
    else:
        problem = _cache_problem(entry, sha256, extractor)
    if problem is None:
        return tuple(entry["pages"]), entry["encryption"]
    warnings.warn(
        f"{target}: page cache entry {problem}; the pages are extracted again", PageCacheWarning, stacklevel=3
    )
    return None


def _cache_problem(entry: Any, sha256: str, extractor: str) -> str | None:
    if not isinstance(entry, dict):
        return "not a JSON object"
    key = (entry.get("format"), entry.get("sha256"), entry.get("extractor"))
    if key != (CACHE_FORMAT, sha256, extractor):
        return "written for another file, extractor or cache format"
    pages, encryption = entry.get("pages"), entry.get("encryption")
    if not isinstance(pages, list) or not all(isinstance(page, str) for page in pages):
        return "its pages are not a list of texts"
    if encryption is not None and not isinstance(encryption, str):
        return "its encryption is not a text"
    if entry.get("checksum") != _checksum(pages, encryption):
        return "its checksum does not match its pages (edited or damaged)"
    return None
