"""Questions with gold character spans from a gold set (``assay gold build``'s JSONL) and its sources
folder, so a RAG team sweeps chunkings over their own PDFs.

Each document of the sources folder becomes one ``SpanDocument`` whose text is its pages' texts joined
with ``PAGE_SEPARATOR`` ("\\n\\n", a paragraph break: a chunker snapping to whitespace may break there,
and BM25 sees no word in it). A gold item's ``quote_span`` starts in its ``page``'s extracted text and
ends in its ``end_page``'s, so the span in the document is the start page's offset plus the start, and
the end page's offset plus the end: a quote across a page break holds the separator between.

Every row of the gold file is accounted for. A refusal item (nothing in the sources answers it) and an
answerable item without a quote span (its quote was not found when the set was built) are skipped and
counted by reason (``GoldSpans.skipped``). An item whose source is not in the folder, whose file has
changed since the set was built (another sha256: its offsets index another text), whose span falls
outside the page text, or whose quote is found elsewhere than its span (the pages were extracted
another way) is an ``InputError``: the gold set does not belong to these sources, and a sweep
over part of it would report numbers about a question set nobody chose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...documents import Document, Sources, file_sha256, load_sources
from ...documents.page_cache import DEFAULT_PAGE_CACHE
from ...errors import InputError
from ...scorers.grounding.quotes import PreparedPages, find_quote, prepared_pages
from .spans import GoldSpan, SpanDocument, SpanQuestion, SpanSet

PAGE_SEPARATOR = "\n\n"
SKIP_REASONS = {
    "refusal": "refusal items: nothing in the sources answers them, so there is no span to retrieve",
    "no_quote_span": "answerable items without a quote span (the quote was not found in the source)",
}
_REBUILD = "rebuild the gold set from these sources (assay gold build), or give the sources it was built from"


@dataclass(frozen=True)
class GoldSpans:
    """A gold set as questions with spans, and what became of every row of the file."""

    spans: SpanSet
    rows: int  # the gold file's items
    skipped: Mapping[str, tuple[str, ...]]  # reason (a key of SKIP_REASONS) -> the ids skipped for it

    def accounting(self) -> dict[str, Any]:
        """Rows read, questions kept, and the skipped ones by reason with their ids."""
        return {
            "rows": self.rows,
            "questions": len(self.spans.questions),
            "skipped": {reason: list(ids) for reason, ids in self.skipped.items()},
        }


def load_gold_spans(
    gold: Path, sources: Path | Sources, *, cache_dir: Path | None = DEFAULT_PAGE_CACHE
) -> SpanSet:
    """The answerable items with a quote span of the gold set `gold`, over the documents of `sources`
    (a folder, or a ``Sources`` already loaded). See ``read_gold_spans`` for what was skipped."""
    return read_gold_spans(gold, sources, cache_dir=cache_dir).spans


def read_gold_spans(
    gold: Path, sources: Path | Sources, *, cache_dir: Path | None = DEFAULT_PAGE_CACHE
) -> GoldSpans:
    """``load_gold_spans`` with the accounting of every row (``GoldSpans``)."""
    from ...records import load_records

    if not Path(gold).read_bytes().strip():  # load_records would name its own flag, --responses
        raise InputError("the gold set has no items", where=str(gold), fix="build one with assay gold build")
    records = load_records(gold, need_responses=False).records
    found = sources if isinstance(sources, Sources) else load_sources(sources, cache_dir=cache_dir)
    documents = {document.id: document for document in found.values()}
    questions: list[SpanQuestion] = []
    skipped: dict[str, list[str]] = {reason: [] for reason in SKIP_REASONS}
    prepared: dict[str, PreparedPages] = {}  # each document's pages made ready for quote search once
    for record in records:
        where = f"{gold} line {record.row} (item {record.id})"
        reason = _skip_reason(record.gold)
        if reason is not None:
            skipped[reason].append(record.id)
            continue
        document = _source_of(record.gold, found, where)
        span = document_span(document, record.gold, where)
        _check_quote_in_place(record.gold, document, prepared, where)
        corpus = record.scope or document.id
        category = record.gold.category if record.gold else None
        questions.append(SpanQuestion(record.id, record.question, corpus, category, (span,)))
    if not questions:
        counts = ", ".join(f"{len(ids)} {reason}" for reason, ids in skipped.items())
        raise InputError(
            f"no answerable item with a quote span among its {len(records)} items ({counts}): "
            "there is nothing to retrieve, so no cell could be measured",
            where=str(gold),
            fix="give a gold set built with verified quotes (assay gold build), or a questions CSV",
        )
    span_documents = tuple(_span_document(document) for document in documents.values())
    hashes = {Path(gold).name: file_sha256(Path(gold))}
    hashes |= {document.path: document.sha256 for document in documents.values()}
    spans = SpanSet(span_documents, tuple(questions), hashes)
    return GoldSpans(spans, len(records), {reason: tuple(ids) for reason, ids in skipped.items()})


def _skip_reason(gold: Any) -> str | None:
    if gold is not None and gold.expected_refusal:
        return "refusal"
    if gold is None or gold.quote_span is None or gold.page is None:
        return "no_quote_span"
    return None


def _source_of(gold: Any, sources: Sources, where: str) -> Document:
    """The item's document: by its id, else by its path; its file must be the one the set was built on."""
    reference = gold.source_document or gold.source_path or ""
    document = sources.get(gold.source_document or "") or sources.resolve(gold.source_path or reference)
    if document is None:
        held = ", ".join(sources) or "no documents"
        raise InputError(
            f"its source document {reference!r} is not in the sources folder {sources.root} "
            f"(it holds {held})",
            where=where,
            fix=_REBUILD,
        )
    if gold.source_sha256 and gold.source_sha256 != document.sha256:
        raise InputError(
            f"its source {document.path} has changed since the gold set was built (sha256 "
            f"{document.sha256[:12]}..., the gold set has {gold.source_sha256[:12]}...): "
            "its quote span indexes the old file's text",
            where=where,
            fix=_REBUILD,
        )
    return document


def _check_quote_in_place(
    gold: Any, document: Document, prepared: dict[str, PreparedPages], where: str
) -> None:
    """The quote is found (by the cascade gold build used, without its fuzzy step) where the item's span
    says, or the extracted text is not the one the set was built on: a gold set without the file's
    sha256, or pages extracted another way (another extractor or its version), would otherwise
    index other characters silently, all inside the pages. A quote found only fuzzily is not checked."""
    if not gold.quote:
        return
    if document.id not in prepared:
        prepared[document.id] = prepared_pages(tuple(document.pages))
    found = find_quote(gold.quote, prepared[document.id], fuzzy=False)
    recorded = (gold.page, gold.end_page or gold.page, tuple(gold.quote_span))
    if found is None or (found.page, found.end_page, tuple(found.span)) == recorded:
        return
    raise InputError(
        f"its quote is found in {document.path}'s text on page {found.page}, span {list(found.span)}, "
        f"where the gold set says page {gold.page}, span {list(gold.quote_span)}: the pages' text is not "
        "the one the set was built on, so its span would index other characters",
        where=where,
        fix=_REBUILD,
    )


def page_offsets(document: Document) -> tuple[int, ...]:
    """Where each page's text starts in the joined text (``PAGE_SEPARATOR`` between pages)."""
    offsets, at = [], 0
    for page in document.pages:
        offsets.append(at)
        at += len(page) + len(PAGE_SEPARATOR)
    return tuple(offsets)


def document_span(document: Document, gold: Any, where: str) -> GoldSpan:
    """The item's quote span as [start, end) of the document's joined text."""
    start_page, end_page = gold.page, gold.end_page or gold.page
    start, end = gold.quote_span
    offsets = page_offsets(document)
    for number in (start_page, end_page):
        if not 1 <= number <= len(document.pages):
            raise _outside(f"page {number}, and {document.path} has {len(document.pages)} pages", where)
    if not 0 <= start <= len(document.pages[start_page - 1]):
        raise _outside(f"start {start} on page {start_page}, which has {_chars(document, start_page)}", where)
    if not 0 <= end <= len(document.pages[end_page - 1]):
        raise _outside(f"end {end} on page {end_page}, which has {_chars(document, end_page)}", where)
    begin, finish = offsets[start_page - 1] + start, offsets[end_page - 1] + end
    if finish <= begin:
        raise _outside(
            f"[{start}, {end}) from page {start_page} to {end_page}, which holds no characters", where
        )
    return GoldSpan(document.id, begin, finish)


def _chars(document: Document, page: int) -> str:
    return f"{len(document.pages[page - 1])} characters"


def _outside(what: str, where: str) -> InputError:
    return InputError(f"its quote span falls outside the extracted text: {what}", where=where, fix=_REBUILD)


def _span_document(document: Document) -> SpanDocument:
    return SpanDocument(document.id, document.id, PAGE_SEPARATOR.join(document.pages))
