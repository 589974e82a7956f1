"""URLs found in facts files, gold sets, corpora and plain lists (a stand-in holding only `FoundUrl`:
the extraction itself is helper urlcli's, and its version of this file replaces this one)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FoundUrl:
    url: str  # normalised
    expect_pdf: bool  # path ends .pdf, or the source says it is a PDF
    places: tuple[str, ...]  # "file:line" where it was found (every occurrence)
