"""A URL's verdict: its class, the hops it took, and why, as the check decides it and the cache keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CLASSES = ("ok", "redirected", "broken", "blocked", "error", "soft_404")


@dataclass(frozen=True)
class Hop:
    url: str
    status: int | None  # None: no answer (refused before asking, or a fault)


@dataclass(frozen=True)
class UrlVerdict:
    url: str
    klass: str
    status: int | None
    final_url: str | None
    chain: tuple[Hop, ...]
    checked_at: str  # ISO 8601 UTC
    reason: str  # one line: why this class
    notes: tuple[str, ...]
    is_pdf: bool | None  # None unless a PDF was expected (and when expected, None: no body was seen)
    attempts: int  # tries of the whole walk; 0: served from the cache
    expect_pdf: bool = False

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "url": self.url,
            "class": self.klass,
            "status": self.status,
            "final_url": self.final_url,
            "chain": [{"url": hop.url, "status": hop.status} for hop in self.chain],
            "checked_at": self.checked_at,
        }
        if self.expect_pdf:
            entry["is_pdf"] = self.is_pdf
        return entry | {"reason": self.reason, "notes": list(self.notes), "attempts": self.attempts}
