"""The verdict cache: every judge reply kept in SQLite, so that a re-run makes no model call and a
killed run resumes where it stopped.

The key is a hash of everything that decides the reply: the backend kind, the endpoint and model (or
the model file), the prompt's id, version and hash (its rubric's signature), the sampling parameters,
and the messages sent (question, golden answers, the response after truncation). Never the API key:
replies are stored as cleaned where they entered (``_clean``), and cleaned again on the way in and out.
Each reply is committed as soon as it arrives; the database is in WAL mode with a busy timeout, so two
processes can share one cache file.

A row that is not a reply (bad JSON, wrong types, truncated: a tampered file) is a miss, asked again
and counted in ``unreadable`` for the report's warnings. A database error (a full disk, a read-only
file, a file that is not a database) is a UsageError: one line, exit 2, never a traceback.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ._base import DEFAULT_CACHE_PATH, MAX_TOKENS, Completion, Sampling
from ._clean import cleaned
from .prompt import PROMPT_SIGNATURE

DEFAULT_PATH = DEFAULT_CACHE_PATH
_SCHEMA = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL, at REAL NOT NULL)"
_TEXTS = ("text", "model")
_COUNTS = ("prompt_tokens", "completion_tokens")
_FIX = "free disk space or give --cache a writable file (or run with --no-cache)"


def cache_key(
    kind: str,
    identity: str,
    sampling: Sampling,
    asked: list[dict[str, str]],
    prompt: str = PROMPT_SIGNATURE,
) -> str:
    """The key of one request: the judge (its kind, and endpoint and model or model file), the prompt's
    signature (its rubric's id, version and hash: ``Rubric.signature``), the sampling, and the exact
    messages (question, golden answers, the response as sent; for the retry, the reply it follows)."""
    parts = [kind, identity, prompt, sampling.signature(), asked]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class Cache:
    """A dictionary of replies on disk."""

    def __init__(self, path: str | Path = DEFAULT_PATH) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            self._set_up()
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(
                f"cannot open the judge cache ({exc})",
                where=str(self.path),
                fix="give --cache a writable file, or run with --no-cache",
            ) from None
        self._lock = threading.Lock()
        self.unreadable: set[str] = set()  # keys whose stored row was not a reply

    def _set_up(self, attempts: int = 50) -> None:
        """WAL mode and the table. Two processes opening a new cache at once can find it locked
        without SQLite's busy wait (a journal-mode change takes the lock at once or not at all), so
        the setup is tried again for a few seconds."""
        for attempt in range(attempts):
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                # Each reply is committed at once; in WAL mode NORMAL keeps every commit through a
                # killed process (only a power cut can lose the last ones) without an fsync per reply.
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(_SCHEMA)
                self._db.commit()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == attempts - 1:
                    raise
                time.sleep(0.1)

    def get(self, key: str) -> Completion | None:
        """The stored reply, or None: not there, or stored as something that is not a reply."""
        with self._lock, self._errors("read"):
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        reply = _decoded(row[0])
        if reply is None:
            self.unreadable.add(key)
        return reply

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise UsageError(
                f"cannot {doing} the judge cache ({exc})", where=str(self.path), fix=_FIX
            ) from None

    def has_all(self, keys: Sequence[str]) -> bool:
        """Whether every key has a reply (looked up in bulk: a fully cached re-run asks no server)."""
        wanted = set(keys)
        with self._lock, self._errors("read"):
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found = self._db.execute(f"SELECT key FROM replies WHERE key IN ({marks})", chunk)
                wanted.difference_update(key for (key,) in found)
        return not wanted

    def put(self, key: str, reply: Completion) -> None:
        reply = cleaned(reply)
        record: dict[str, Any] = {
            "text": reply.text,
            "model": reply.model,
            "fingerprint": reply.fingerprint,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
        }
        with self._lock, self._errors("write"):
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, julianday('now'))",
                (key, json.dumps(record, ensure_ascii=False)),
            )
            self._db.commit()

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # every reply was committed as it came
            self._db.close()


def _decoded(stored: object) -> Completion | None:
    """A stored row as a reply (cleaned), or None when it is not one."""
    try:
        found = json.loads(stored)  # type: ignore[arg-type]
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(found, dict) or set(found) != {*_TEXTS, *_COUNTS, "fingerprint"}:
        return None
    texts_ok = all(isinstance(found[name], str) for name in _TEXTS)
    fingerprint_ok = found["fingerprint"] is None or isinstance(found["fingerprint"], str)
    counts_ok = all(type(found[name]) is int and 0 <= found[name] <= MAX_TOKENS for name in _COUNTS)
    return cleaned(Completion(**found)) if texts_ok and fingerprint_ok and counts_ok else None
