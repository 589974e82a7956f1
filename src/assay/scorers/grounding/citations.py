"""What a citation's document names: each document of the sources by every name a citation may give it
(id, path, file name, title, insurer and title), and the one document a name resolves to, or why none
(``grounding.check`` states the rule).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

if TYPE_CHECKING:
    from ...documents import Document, Sources
    from ...values.types import Value

_NOT_NAME = regex.compile(r"[^\p{L}\p{M}\p{N}]+")
_PATH_SEPARATOR = regex.compile(r"[/\\]+")
_QUERY = regex.compile(r"[?#][^/\\]*$")  # a URL's ?page=2 or #page=2


def name_key(text: str) -> str:
    """A name as compared: NFKC, casefolded, each run of other than letters, marks and digits a space."""
    return " ".join(_NOT_NAME.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split())


def insurer_of(document_id: str) -> str | None:
    """The insurer slug of an id ``<insurer>__<product>...``, or None for an id of one part."""
    head, separator, _ = document_id.partition("__")
    return head if separator and head else None


# --- the documents a citation may name ------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """What a row's gold item says about where its answer is."""

    scope: str = ""
    source_document: str | None = None
    source_title: str | None = None
    quote: str | None = None
    page: int | None = None
    expected_refusal: bool | None = None
    # What is asked, for "does the cited page state the answer for this field": the field's name, the
    # question, and the expected value typed (None for a text or a row without one).
    field: str | None = None
    question: str | None = None
    value: Value | None = None

    def allowed(self) -> frozenset[str]:
        return frozenset(name for name in (self.scope, self.source_document) if name)


class Library:
    """The documents of a sources folder by every name a citation may give them (``name_key``)."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.keys: dict[str, dict[str, str]] = {}  # key -> {document id: how the key names it}
        for document in sources.values():
            for key, how in document_names(document.id, document.path):
                self.keys.setdefault(key, {}).setdefault(document.id, how)
        self.insurers = {key for key in map(name_key, filter(None, map(insurer_of, sources))) if key}

    def document(self, document_id: str) -> Document | None:
        return self.sources.get(document_id)


def document_names(document_id: str, path: str | None = None) -> list[tuple[str, str]]:
    """(key, how) for each name of a document by its id and path: id, path with and without its
    suffix, file name and file stem."""
    names = [(document_id, "id")]
    if path:
        file_name = path.rsplit("/", 1)[-1]
        names += [(path, "path"), (path.rsplit(".", 1)[0], "path"), (file_name, "file name")]
        names.append((file_name.rsplit(".", 1)[0], "file name"))
    return [(key, how) for key, how in ((name_key(name), how) for name, how in names) if key]


def title_names(document_id: str, title: str) -> list[tuple[str, str]]:
    """(key, how) for a document's title, alone and after its insurer's name."""
    names = [(name_key(title), "title")]
    insurer = insurer_of(document_id)
    if insurer:
        names.append((name_key(f"{insurer} {title}"), "insurer and title"))
    return [(key, how) for key, how in names if key]


@dataclass(frozen=True)
class Resolution:
    """What a citation's document names: one document (`document_id`), or why none (`problem`)."""

    name: str
    document_id: str | None
    how: str = ""
    problem: str = ""


def resolve(name: str, library: Library, item: Item, other_titles: Mapping[str, str] = {}) -> Resolution:
    """The one document `name` names, among the sources' documents and those the item names (its
    scope and source, with its title); `other_titles` (document id -> title, from other rows) only
    say, when nothing else does, which document outside the scope a name means."""
    exact = name.strip()
    if not exact:
        return Resolution(name, None, problem="a citation names no document")
    if exact in library.sources or exact in item.allowed():
        return Resolution(name, exact, "id")
    found = _named(name_key(exact), library, item) or _named_by_path(exact, library, item)
    if len(found) == 1:
        ((document_id, how),) = found.items()
        return Resolution(name, document_id, how)
    if found:
        return Resolution(name, None, problem=f"{name!r} is ambiguous: it names {', '.join(sorted(found))}")
    key = name_key(exact)
    if item.allowed():  # another row's title names a document outside the scope, never one in it
        outside = {i: t for i, t in other_titles.items() if i not in item.allowed()}
        meant = {i for i, t in outside.items() if key in dict(title_names(i, t))}
        if len(meant) == 1:
            return Resolution(name, meant.pop(), "title (of another item)")
    if key in library.insurers or key in {name_key(insurer_of(i) or "") for i in item.allowed()}:
        return Resolution(name, None, problem=f"{name!r} names only an insurer, none of its documents")
    return Resolution(name, None, problem=f"{name!r} names no document of the sources")


def _named_by_path(name: str, library: Library, item: Item) -> dict[str, str]:
    """What the trailing parts of a path or URL name (whole parts, the longest first); {} for a name
    that is no path."""
    parts = [part for part in _PATH_SEPARATOR.split(_QUERY.sub("", name)) if part]
    if len(parts) < 2:
        return {}
    for first in range(1, len(parts)):
        found = _named(name_key("/".join(parts[first:])), library, item)
        if found:
            return found
    return {}


def _named(key: str, library: Library, item: Item) -> dict[str, str]:
    found = dict(library.keys.get(key, {}))
    own = [(i, n) for i in item.allowed() for n in document_names(i)]
    if item.source_document and item.source_title:
        own += [(item.source_document, n) for n in title_names(item.source_document, item.source_title)]
    for document_id, (own_key, how) in own:
        if own_key == key:
            found.setdefault(document_id, how)
    return found
