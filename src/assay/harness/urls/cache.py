"""The URL check's cache: one JSON file of verdicts, keyed by URL, each with the validators (ETag,
Last-Modified) of its final answer and the time it was stored.

An entry younger than the TTL is served without a request ("served from cache"). An older one with a
validator is revalidated: the check sends If-None-Match / If-Modified-Since, and a 304 keeps the verdict
with a new ``checked_at`` ("revalidated (304)"); any other answer is a fresh verdict. Only a server's
lasting answer is stored: never a transient class (``error``: 5xx, timeouts, connection faults; a 429),
and never a verdict reached without an answer (a refused scheme or address, a DNS failure), which
depends on the settings or the network of the moment. A stored entry is kept when a later check of its
URL is transient. The file is written whole and atomically (``assay.outputs``); one that is not this
cache (corrupt, another program's, another format version) is an InputError naming it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from ...errors import InputError
from ...outputs import write_text
from .verdict import CLASSES, Hop, UrlVerdict

CACHE_FORMAT = "assay-urls-cache"
CACHE_VERSION = 1
CACHE_NOTES = frozenset({"served from cache", "revalidated (304)"})  # about one reading, never stored
T = TypeVar("T")
FIX = "delete it (it is only a cache), or pass another --cache"


@dataclass(frozen=True)
class CacheEntry:
    verdict: UrlVerdict
    etag: str | None
    last_modified: str | None
    stored_at: float  # seconds since the epoch

    def validators(self) -> dict[str, str]:
        """The conditional request's headers (none: the entry cannot be revalidated, only replaced)."""
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


def _storable(verdict: UrlVerdict) -> bool:
    """A server's lasting answer: not a transient class, not a 429, not a verdict without an answer."""
    return verdict.status is not None and verdict.klass != "error" and verdict.status != 429


class UrlCache:
    """Verdicts by URL, read from and saved to one JSON file; `ttl` seconds of freshness."""

    def __init__(self, path: Path, ttl: float, entries: dict[str, CacheEntry] | None = None) -> None:
        self.path = path
        self.ttl = ttl
        self.entries = dict(entries or {})
        self.changed = False

    @classmethod
    def open(cls, path: Path, ttl: float) -> UrlCache:
        """The cache in `path` (empty when the file does not exist yet)."""
        path = Path(path)
        if not path.exists():
            return cls(path, ttl)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"not a readable URL cache ({_cause(exc)})", where=str(path), fix=FIX) from None
        return cls(path, ttl, _entries(data, str(path)))

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, url: str, expect_pdf: bool) -> CacheEntry | None:
        """The entry for `url`, when it was checked with the same PDF expectation."""
        entry = self.entries.get(url)
        if entry is None or entry.verdict.expect_pdf != expect_pdf:
            return None
        return entry

    def is_fresh(self, entry: CacheEntry) -> bool:
        return time.time() - entry.stored_at < self.ttl

    def store(self, verdict: UrlVerdict, etag: str | None, last_modified: str | None) -> None:
        """Keep `verdict` (without the notes about this reading), when it is a lasting answer."""
        if not _storable(verdict):
            return
        notes = tuple(note for note in verdict.notes if note not in CACHE_NOTES)
        kept = UrlVerdict(**{**vars(verdict), "notes": notes})
        self.entries[verdict.url] = CacheEntry(kept, etag, last_modified, time.time())
        self.changed = True

    def save(self) -> None:
        """Write the file (atomically), when anything was stored since it was read."""
        if not self.changed:
            return
        entries = {url: _entry_json(entry) for url, entry in self.entries.items()}
        data = {"format": CACHE_FORMAT, "version": CACHE_VERSION, "entries": entries}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_text(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        self.changed = False


def _cause(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _entry_json(entry: CacheEntry) -> dict[str, Any]:
    stored = datetime.fromtimestamp(entry.stored_at, UTC).isoformat(timespec="seconds")
    return {
        "verdict": entry.verdict.to_json(),
        "etag": entry.etag,
        "last_modified": entry.last_modified,
        "stored_at": stored,
    }


def _entries(data: Any, where: str) -> dict[str, CacheEntry]:
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        raise InputError('not an assay URL cache (no "format": "assay-urls-cache")', where=where, fix=FIX)
    if data.get("version") != CACHE_VERSION:
        raise InputError(
            f"a URL cache of format version {data.get('version')!r}; this assay reads {CACHE_VERSION}",
            where=where,
            fix=FIX,
        )
    entries = data.get("entries")
    if not isinstance(entries, dict):
        raise InputError('a URL cache without its "entries" object', where=where, fix=FIX)
    found = {}
    for url, entry in entries.items():
        try:
            found[url] = _entry(url, entry)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"a malformed entry for {url} ({_cause(exc)})", where=where, fix=FIX) from None
    return found


def _entry(url: str, entry: dict[str, Any]) -> CacheEntry:
    data = entry["verdict"]
    if data["url"] != url or data["class"] not in CLASSES:
        raise ValueError(f"its verdict is for {data['url']!r}, class {data['class']!r}")
    verdict = UrlVerdict(
        url=url,
        klass=data["class"],
        status=_optional(data["status"], int),
        final_url=_optional(data["final_url"], str),
        chain=tuple(Hop(_typed(hop["url"], str), _optional(hop["status"], int)) for hop in data["chain"]),
        checked_at=_typed(data["checked_at"], str),
        reason=_typed(data["reason"], str),
        notes=tuple(_typed(note, str) for note in data["notes"]),
        is_pdf=_optional(data.get("is_pdf"), bool),
        attempts=_typed(data["attempts"], int),
        expect_pdf="is_pdf" in data,
    )
    stored_at = datetime.fromisoformat(_typed(entry["stored_at"], str)).timestamp()
    etag, modified = _optional(entry["etag"], str), _optional(entry["last_modified"], str)
    return CacheEntry(verdict, etag, modified, stored_at)


def _typed(value: Any, kind: type[T]) -> T:
    if not isinstance(value, kind):
        raise TypeError(f"{value!r} is not a {kind.__name__}")
    return value


def _optional(value: Any, kind: type[T]) -> T | None:
    return None if value is None else _typed(value, kind)
