"""Documents as text per page: every PDF and text file of a sources folder read once (``sources``), by
the first extractor that can (``extractors``), through a page cache (``page_cache``). Each name loads its
module on first use, so that a scoring run that never reads a document never loads the PDF libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .page_cache import DEFAULT_PAGE_CACHE, PageCacheWarning, cache_path, write_cache
    from .sources import Document, Sources, document_id, file_sha256, load_document, load_sources

_MODULES = {
    "DEFAULT_PAGE_CACHE": "page_cache",
    "Document": "sources",
    "PageCacheWarning": "page_cache",
    "Sources": "sources",
    "cache_path": "page_cache",
    "document_id": "sources",
    "file_sha256": "sources",
    "load_document": "sources",
    "load_sources": "sources",
    "write_cache": "page_cache",
}
__all__ = [
    "DEFAULT_PAGE_CACHE",
    "Document",
    "PageCacheWarning",
    "Sources",
    "cache_path",
    "document_id",
    "file_sha256",
    "load_document",
    "load_sources",
    "write_cache",
]
__getattr__, __dir__ = lazy_names(__name__, _MODULES)
