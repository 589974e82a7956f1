"""The verdict cache: every judge reply kept in SQLite, so that a re-run makes no model call and a
killed run resumes where it stopped.

The key is a hash of everything that decides the reply: the backend kind, the endpoint and model (or
the model file), the prompt's id, version and hash, the sampling parameters, and the messages sent
(question, golden answers, the response after truncation). Never the API key. Each reply is committed
as soon as it arrives; the database is in WAL mode with a busy timeout, so two processes can share one
cache file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ._base import Reply, Sampling
from .prompt import PROMPT_SIGNATURE

DEFAULT_PATH = Path(".assay-cache") / "judge.sqlite"
_SCHEMA = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL, at REAL NOT NULL)"


def cache_key(kind: str, identity: str, sampling: Sampling, asked: list[dict[str, str]]) -> str:
    """The key of one request: the judge (its kind, and endpoint and model or model file), the prompt's
    version and hash, the sampling, and the exact messages (question, golden answers, the response as
    sent; for the retry, the reply it follows)."""
    parts = [kind, identity, PROMPT_SIGNATURE, sampling.signature(), asked]
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

    def get(self, key: str) -> Reply | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else Reply(**json.loads(row[0]))

    def has_all(self, keys: Sequence[str]) -> bool:
        """Whether every key has a reply (looked up in bulk: a fully cached re-run asks no server)."""
        wanted = set(keys)
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found = self._db.execute(f"SELECT key FROM replies WHERE key IN ({marks})", chunk)
                wanted.difference_update(key for (key,) in found)
        return not wanted

    def put(self, key: str, reply: Reply) -> None:
        record: dict[str, Any] = {
            "text": reply.text,
            "model": reply.model,
            "fingerprint": reply.fingerprint,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
        }
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, julianday('now'))",
                (key, json.dumps(record, ensure_ascii=False)),
            )
            self._db.commit()

    def close(self) -> None:
        self._db.close()
