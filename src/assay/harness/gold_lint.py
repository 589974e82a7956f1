"""What ``assay lint`` adds for a gold set: each item's quote still verifies in its source document.

A gold item records where its quote was found when the set was built (document, page, span, level,
and the file's sha256). Documents get re-issued and gold sets outlive them: an item whose quote can no
longer be found grades every system against a fact its source does not state. With the sources at
hand the linter looks for each quote again (the same cascade as the build) and says what changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..documents import Document, Sources
from ..lint import ERROR, WARNING, Finding
from ..parts import Gold
from ..records import Dataset, Record
from ..scorers.grounding.quotes import find_quote


def lint_quotes(dataset: Dataset, sources: Sources, *, fuzzy: bool = True) -> list[Finding]:
    """A finding for each item whose quote no longer verifies in `sources`, or has moved."""
    findings = []
    for record in dataset.records:
        gold = record.gold
        if gold is None or not gold.quote or gold.expected_refusal:
            continue
        where = f"{dataset.source} {dataset.location_kind} {record.row} (id {record.id})"
        findings += [
            Finding(severity, check, where, message)
            for severity, check, message in _quote(record, gold, sources, fuzzy)
        ]
    return findings


def _quote(record: Record, gold: Gold, sources: Sources, fuzzy: bool) -> Iterable[tuple[str, str, str]]:
    reference = gold.source_path or gold.source_document or ""
    document = sources.resolve(reference) if reference else None
    if document is None:
        yield (
            ERROR,
            "source-missing",
            f"the item's source {reference or '(none named)'!r} is not among the sources in {sources.root}. "
            "Fix: pass the folder the gold set was built from as --sources, or rebuild the gold set",
        )
        return
    if gold.source_sha256 and gold.source_sha256 != document.sha256:
        yield (
            WARNING,
            "source-changed",
            f"{document.path} is not the file the gold set was built from (sha256 {document.sha256[:12]}..., "
            f"built from {gold.source_sha256[:12]}...). Fix: rebuild the gold set from the current documents",
        )
    found = find_quote(gold.quote or "", document.pages, fuzzy=fuzzy)
    if found is None:
        yield (
            ERROR,
            "quote-not-found",
            f"the item's quote {_short(gold.quote or '')!r} is no longer found in {document.path}, at any "
            "level of the cascade. Fix: re-quote the passage from the current document, or drop the item",
        )
        return
    yield from _moved(gold, document, found.page, found.span, found.level)


def _moved(
    gold: Gold, document: Document, page: int, span: tuple[int, int], level: str
) -> Iterable[tuple[str, str, str]]:
    recorded = (gold.page, gold.quote_span, gold.match_level)
    if None in recorded or recorded == (page, span, level):
        return
    yield (
        WARNING,
        "quote-moved",
        f"the item's quote is now found in {document.path} on page {page}, span {list(span)} ({level}); the "
        f"gold set says page {gold.page}, span {list(gold.quote_span or ())} ({gold.match_level}). "
        "Fix: rebuild the gold set so that its sources point at the text as it is",
    )


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[:limit]}..."
