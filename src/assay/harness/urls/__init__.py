"""URL verification: the URLs a gold set's sources, facts and corpora cite, each checked over HTTP and
given one class (``ok``, ``redirected``, ``broken``, ``blocked``, ``error``, ``soft_404``), with a cache
that never keeps a transient answer.

Each name loads its module on first use, so importing the package does not load httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

if TYPE_CHECKING:
    from .cache import CacheEntry, UrlCache
    from .check import URL_CLASSES, check_urls, check_urls_sync
    from .extract import FoundUrl, UrlScan, scan_urls, urls_in
    from .normalise import normalise_url
    from .report import class_counts, has_broken, url_entries, urls_markdown
    from .settings import CheckSettings
    from .verdict import CLASSES, Hop, UrlVerdict

_MODULES = {
    "CLASSES": "verdict",
    "CacheEntry": "cache",
    "CheckSettings": "settings",
    "FoundUrl": "extract",
    "Hop": "verdict",
    "URL_CLASSES": "check",
    "UrlCache": "cache",
    "UrlScan": "extract",
    "UrlVerdict": "verdict",
    "check_urls": "check",
    "check_urls_sync": "check",
    "class_counts": "report",
    "has_broken": "report",
    "normalise_url": "normalise",
    "scan_urls": "extract",
    "url_entries": "report",
    "urls_in": "extract",
    "urls_markdown": "report",
}


__getattr__, __dir__ = lazy_names(__name__, _MODULES)


__all__ = [
    "CLASSES",
    "URL_CLASSES",
    "CacheEntry",
    "CheckSettings",
    "FoundUrl",
    "Hop",
    "UrlCache",
    "UrlScan",
    "UrlVerdict",
    "check_urls",
    "check_urls_sync",
    "class_counts",
    "has_broken",
    "normalise_url",
    "scan_urls",
    "url_entries",
    "urls_in",
    "urls_markdown",
]
