"""What a citation's document names: each document by every name a citation may give it, and the one
document a name resolves to, or why none (``grounding.check`` states the rule).

A document's names, from the most exact to the loosest (a name found at one tier is never overruled by a
looser one; two documents found at the same tier make the name ambiguous, never a guess):

1. **identifiers**: its id, path (with and without the suffix), file name and file stem; a path or URL
   of the system's own names the document its trailing parts name;
2. **titles**: the title printed on its first pages (``printed_names``), the gold set's title
   (``source.title``), and either after the company's name; compared as ``loose_name`` reads them, so
   "the Elevate Policy Wordings" is "ELEVATE POLICY WORDING";
3. **titles without the kind word**: the same titles with the kind of document ("policy wording",
   "CIS", "brochure", "SLA", ... ``KINDS``) left out on both sides; a kind the citation gives must be
   a kind the document is (from its id, file name or printed title), so "Elevate CIS" and "Elevate
   Policy Wordings" name two documents of one product apart.

A name that is only a company's (an insurer slug of the ids, or a printed line ending in a legal form
such as "Limited", "Inc.", "GmbH") names none of its documents.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import regex

if TYPE_CHECKING:
    from ...documents import Document
    from ...values.types import Value

_NOT_NAME = regex.compile(r"[^\p{L}\p{M}\p{N}]+")
_PATH_SEPARATOR = regex.compile(r"[/\\]+")
_QUERY = regex.compile(r"[?#][^/\\]*$")  # a URL's ?page=2 or #page=2
_POSSESSIVE = regex.compile(r"(?<=\p{L})['\u2019]s?\b")  # "HDFC ERGO's", "Members'"
_AMPERSAND = regex.compile(r"\s*&\s*")

# Kinds of document, each with the ways people write it (name_key form). A generic list of what
# documents are, not of one domain's products: a citation's kind must be one the document is.
KINDS: Mapping[str, tuple[str, ...]] = {
    "policy wording": ("policy wording", "policy wordings", "wording", "wordings"),
    "customer information sheet": ("customer information sheet", "cis"),
    "brochure": ("brochure", "sales brochure"),
    "prospectus": ("prospectus",),
    "terms and conditions": ("terms and conditions", "terms of service", "terms of use"),
    "schedule": ("schedule",),
    "service level agreement": ("service level agreement", "sla"),
    "price list": ("price list", "pricing", "price sheet"),
    "datasheet": ("datasheet", "data sheet"),
    "leaflet": ("leaflet", "package leaflet"),
    "guide": ("guide", "user guide"),
    "handbook": ("handbook",),
    "manual": ("manual", "user manual"),
}
# Words that say "a document" without saying which kind: dropped at a name's edges.
_DOCUMENT_NOUNS = frozenset({"policy", "document", "documents", "doc", "pdf", "file"})
_ARTICLES = frozenset({"the", "our", "a", "an", "this", "your", "their", "its"})
_CONNECTORS = frozenset({"of", "for", "to", "and", "on", "in"})  # left at an edge once a kind is out
# A company's legal form, the last word(s) of its name: "HDFC ERGO General Insurance Company Limited".
_LEGAL_FORMS = frozenset({
    "limited", "ltd", "company", "co", "inc", "incorporated", "corp", "corporation", "llc", "llp", "plc",
    "pvt", "private", "gmbh", "ag", "sas", "srl", "bv", "nv", "pty",
})  # fmt: skip

# Printed titles: the top lines of a page that a reader sees before the body text starts.
_TOP_LINES = 8  # lines read from a page's top
_TITLE_WORDS = 8  # a longer line is body text (a title is a few words)
_HEADER_PAGES = 20  # pages read for a running header
_NUMBERED = regex.compile(r"^\s*(?:\(?[\p{N}]+(?:\.[\p{N}]+)*[.)]|\(?[ivxIVX]+\))\s")  # "1. Preamble"
# "PRODUCT NAME: RISE | UIN ...", "Product Name WELLSURANCE FAMILY", "Title: Cloud SLA"
_LABELLED = regex.compile(
    r"(?:^|\|)\s*(?:\p{L}+\s+)?(?:name\s*[:\-\u2013]?|title\s*[:\-\u2013])\s*([^|]+)", regex.I
)


def name_key(text: str) -> str:
    """A name as compared: NFKC, casefolded, each run of other than letters, marks and digits a space."""
    return " ".join(_NOT_NAME.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split())


def insurer_of(document_id: str) -> str | None:
    """The insurer slug of an id ``<insurer>__<product>...``, or None for an id of one part."""
    head, separator, _ = document_id.partition("__")
    return head if separator and head else None


# --- a name as a reader reads it: what it calls the document, and which kind of document ---------------


@dataclass(frozen=True)
class LooseName:
    """A name without its articles, possessives and document nouns: `core` (what it calls the document)
    and `kinds` (the kinds of document it says, ``KINDS`` keys)."""

    core: str
    kinds: frozenset[str] = frozenset()


_KIND_WORDS = sorted(
    ((tuple(way.split()), kind) for kind, ways in KINDS.items() for way in ways), key=lambda p: -len(p[0])
)


def loose_name(text: str) -> LooseName:
    """`text` read loosely: "&" is "and", possessives and leading articles go, each kind phrase (whole
    words, longest first) is taken out as a kind, and document nouns and connectors go at the edges."""
    folded = _AMPERSAND.sub(" and ", _POSSESSIVE.sub("", unicodedata.normalize("NFKC", text)))
    words = name_key(folded).split()
    while words and words[0] in _ARTICLES:
        words = words[1:]
    kept, kinds, at = [], set(), 0
    while at < len(words):
        phrase = next((p for p in _KIND_WORDS if tuple(words[at : at + len(p[0])]) == p[0]), None)
        if phrase is None:
            kept.append(words[at])
            at += 1
        else:
            kinds.add(phrase[1])
            at += len(phrase[0])
    return LooseName(" ".join(_trimmed(kept)), frozenset(kinds))


def _trimmed(words: list[str]) -> list[str]:
    edge = _DOCUMENT_NOUNS | _CONNECTORS | _ARTICLES
    while words and words[-1] in edge:
        words = words[:-1]
    while words and words[0] in edge:
        words = words[1:]
    return words


def company_name(line: str) -> str | None:
    """The company a line names, its legal form dropped ("Acme Cloud Inc." -> "acme cloud"), or None for
    a line that does not end in a legal form."""
    words = name_key(line).split()
    if len(words) < 2 or words[-1] not in _LEGAL_FORMS:
        return None
    while words and words[-1] in _LEGAL_FORMS:
        words = words[:-1]
    return " ".join(words) or None


# --- the title printed on a document -------------------------------------------------------------------


@dataclass(frozen=True)
class Printed:
    """What a document's first pages print as its name: `titles` (lines and adjacent lines of the title
    block, running header lines, labelled names) and `companies` (lines naming a company)."""

    titles: tuple[str, ...] = ()
    companies: tuple[str, ...] = ()


def printed_names(pages: Sequence[str]) -> Printed:
    """The names printed on a document (see ``Printed``), read from its pages' text once.

    A careful reader takes the title from the lines above the body text of the first page (or of the
    second, when the first has none: a cover that is an image), from the lines repeated at the top of
    most pages (a running header), and from a line that labels a name ("Product Name: X"). Body text
    starts at the first line of more than ``_TITLE_WORDS`` words or the first numbered heading."""
    block = _title_block(pages[0] if pages else "") or _title_block(pages[1] if len(pages) > 1 else "")
    header = _running_header(pages)
    lines = list(dict.fromkeys(block + header))
    companies = tuple(dict.fromkeys(c for c in map(company_name, lines) if c))
    titles = [line for line in lines if company_name(line) is None]
    titles += _windows(block) + _windows(header) + _labelled(pages[:2])
    return Printed(tuple(dict.fromkeys(t for t in titles if name_key(t))), companies)


def _top_lines(page: str) -> list[str]:
    lines = (" ".join(line.split()) for line in page.splitlines())
    return [line for line in lines if regex.search(r"\p{L}", line)][:_TOP_LINES]


def _title_block(page: str) -> list[str]:
    block: list[str] = []
    for line in _top_lines(page):
        if len(line.split()) > _TITLE_WORDS or _NUMBERED.match(line):
            break
        block.append(line)
    return block


def _running_header(pages: Sequence[str]) -> list[str]:
    """The short lines at the top of at least half the pages (two at least)."""
    read = pages[:_HEADER_PAGES]
    if len(read) < 2:
        return []
    tops = [dict.fromkeys(line for line in _top_lines(page) if len(line.split()) <= _TITLE_WORDS)
            for page in read]  # fmt: skip
    counts: dict[str, int] = {}
    for top in tops:
        for line in top:
            counts[line] = counts.get(line, 0) + 1
    return [line for line, count in counts.items() if count >= max(2, (len(read) + 1) // 2)]


def _windows(lines: Sequence[str]) -> list[str]:
    """Two and three adjacent lines read as one ("RISE" / "Policy Wordings"), none across a company's."""
    found = []
    for size in (2, 3):
        for start in range(len(lines) - size + 1):
            part = lines[start : start + size]
            if not any(company_name(line) for line in part):
                found.append(" ".join(part))
    return found


def _labelled(pages: Sequence[str]) -> list[str]:
    return [
        m.group(1).strip() for page in pages for line in _top_lines(page) for m in _LABELLED.finditer(line)
    ]


@lru_cache(maxsize=64)
def _printed_of(document: Document) -> Printed:
    return printed_names(document.pages)


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
    source_path: str | None = None  # the source file as the gold set records it: its file name names it

    def allowed(self) -> frozenset[str]:
        return frozenset(name for name in (self.scope, self.source_document) if name)


@dataclass
class Named:
    """One document by its names: `exact` (name_key -> how: id, path, file name), `titles` (a loose name
    -> how), `kinds` it is, and the `companies` it is of."""

    id: str
    exact: dict[str, str] = field(default_factory=dict)
    titles: dict[LooseName, str] = field(default_factory=dict)
    kinds: set[str] = field(default_factory=set)
    companies: set[str] = field(default_factory=set)

    def add_title(self, title: str, how: str, *, curated: bool = False) -> None:
        """Add a title; a printed line that is only a company's name ("ACME", a logo) is none, but a
        title the gold set gives is the document's whatever the folder is called ("relivex/leaflet.pdf"
        titled "Relivex")."""
        loose = loose_name(title)
        if loose.core and (curated or loose.core not in self.companies):
            self.titles.setdefault(loose, how)
            for company in sorted(self.companies):
                self.titles.setdefault(
                    LooseName(f"{company} {loose.core}", loose.kinds), f"insurer and {how}"
                )
        self.kinds |= loose.kinds

    def by_title(self, name: LooseName) -> str | None:
        """How a title names this document exactly (kinds and all), or None."""
        return self.titles.get(name)

    def by_core(self, name: LooseName) -> str | None:
        """How a title names this document without its kind word: the cores are equal and each kind the
        name gives is one this document is (any, when its kind is not known)."""
        if self.kinds and not name.kinds <= self.kinds:
            return None
        return next((f"{how} without the kind word" for t, how in self.titles.items() if t.core == name.core),
                    None)  # fmt: skip


def named(document_id: str, path: str | None = None, printed: Printed = Printed()) -> Named:
    """A document's names from its id, path and printed names."""
    found = Named(document_id)
    for key, how in document_names(document_id, path):
        found.exact.setdefault(key, how)  # "acme/basic-plan" is the id before it is the path
    insurer = insurer_of(document_id)
    found.companies |= {c for c in (name_key(insurer or ""), *printed.companies) if c}
    for key in found.exact:  # the kind an id or file name says: "rise__wordings", "family__cis.pdf"
        found.kinds |= loose_name(key).kinds
    for title in printed.titles:
        found.add_title(title, "printed title")
    return found


class Library:
    """The documents of a sources folder by every name a citation may give them; without sources
    (`sources` None), none: only the names the gold set records (``Item``) are known."""

    def __init__(self, sources: Mapping[str, Document] | None) -> None:
        self.sources: Mapping[str, Document] = sources if sources is not None else {}
        self.reads_text = sources is not None
        self.named = {d.id: named(d.id, d.path, _printed_of(d)) for d in self.sources.values()}
        self.companies = {c for n in self.named.values() for c in n.companies}

    def document(self, document_id: str) -> Document | None:
        return self.sources.get(document_id)


def document_names(document_id: str, path: str | None = None) -> list[tuple[str, str]]:
    """(key, how) for each name of a document by its id and path: id, path with and without its
    suffix, file name and file stem."""
    names = [(document_id, "id")]
    if path:
        file_name = path.replace("\\", "/").rsplit("/", 1)[-1]
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


def _known(library: Library, item: Item) -> dict[str, Named]:
    """The documents a citation of this row may name: the library's, and those the item names (its
    scope and source, with the gold set's file name and title), merged by id."""
    found = dict(library.named)
    for document_id in sorted(item.allowed()):
        own = document_id == item.source_document
        extra = named(document_id, item.source_path if own else None)
        if own and item.source_title:
            extra.add_title(item.source_title, "title", curated=True)
        found[document_id] = _merged(found.get(document_id), extra)
    return found


def _merged(first: Named | None, second: Named) -> Named:
    if first is None:
        return second
    merged = Named(first.id, {**second.exact, **first.exact}, kinds=first.kinds | second.kinds,
                   companies=first.companies | second.companies)  # fmt: skip
    merged.titles = {**second.titles, **first.titles}
    return merged


# --- resolving a name ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolution:
    """What a citation's document names: one document (`document_id`), or why none (`problem`)."""

    name: str
    document_id: str | None
    how: str = ""
    problem: str = ""


def resolve(name: str, library: Library, item: Item, other_titles: Mapping[str, str] = {}) -> Resolution:
    """The one document `name` names, among the sources' documents and those the item names (its
    scope and source, with its file name and title); `other_titles` (document id -> title, from other
    rows) only say, when nothing else does, which document outside the scope a name means."""
    exact = name.strip()
    if not exact:
        return Resolution(name, None, problem="a citation names no document")
    if exact in library.sources or exact in item.allowed():
        return Resolution(name, exact, "id")
    known = _known(library, item)
    for found in _tiers(exact, known):
        if len(found) == 1:
            ((document_id, how),) = found.items()
            return Resolution(name, document_id, how)
        if found:
            return Resolution(
                name, None, problem=f"{name!r} is ambiguous: it names {', '.join(sorted(found))}"
            )
    meant = _outside(exact, item, other_titles)
    if meant is not None:
        return Resolution(name, meant, "title (of another item)")
    loose = loose_name(exact)
    companies = library.companies | {c for n in known.values() for c in n.companies}
    if {name_key(exact), loose.core, company_name(exact)} & companies:
        return Resolution(name, None, problem=f"{name!r} names only a company, none of its documents")
    where = "of the sources" if library.reads_text else "the gold set records for the item (no --sources)"
    return Resolution(name, None, problem=f"{name!r} names no document {where}")


def _tiers(name: str, known: Mapping[str, Named]) -> Iterator[dict[str, str]]:
    """The documents each tier finds, from the most exact (see the module's note)."""
    key, loose = name_key(name), loose_name(name)
    yield {i: n.exact[key] for i, n in known.items() if key in n.exact}
    yield _by_path(name, known)
    yield {i: how for i, n in known.items() if (how := n.by_title(loose))}
    if loose.core:
        yield {i: how for i, n in known.items() if (how := n.by_core(loose))}


def _by_path(name: str, known: Mapping[str, Named]) -> dict[str, str]:
    """What the trailing parts of a path or URL name (whole parts, the longest first); {} for a name
    that is no path."""
    parts = [part for part in _PATH_SEPARATOR.split(_QUERY.sub("", name)) if part]
    for first in range(1, len(parts)):
        key = name_key("/".join(parts[first:]))
        found = {i: n.exact[key] for i, n in known.items() if key in n.exact}
        if found:
            return found
    return {}


def _outside(name: str, item: Item, other_titles: Mapping[str, str]) -> str | None:
    """The one document outside the item's scope that another row's title gives this name."""
    if not item.allowed():
        return None
    loose = loose_name(name)
    outside = {i: t for i, t in other_titles.items() if i not in item.allowed()}
    meant = set()
    for document_id, title in outside.items():
        other = named(document_id)
        other.add_title(title, "title")
        if other.by_title(loose) or (loose.core and other.by_core(loose)):
            meant.add(document_id)
    return meant.pop() if len(meant) == 1 else None


def names_checked(
    citations: Iterable[str], library: Library, item: Item, other_titles: Mapping[str, str] = {}
) -> tuple[list[str], list[str]]:
    """(problems, checked) of the citations' names alone: each names one document the item allows
    (what the ``grounded`` metric checks without documents to read)."""
    problems: list[str] = []
    checked: list[str] = []
    for cited in dict.fromkeys(citations):
        resolved = resolve(cited, library, item, other_titles)
        if resolved.document_id is None:
            problems.append(resolved.problem)
        elif item.allowed() and resolved.document_id not in item.allowed():
            scope = item.scope or item.source_document
            problems.append(f"cites {resolved.document_id}, outside the item's scope ({scope})")
        else:
            checked.append(f"{cited!r} is {resolved.document_id} (by {resolved.how})")
    return problems, checked
