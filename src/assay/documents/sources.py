"""Source documents as text, page by page: what the quote search reads and what a gold item cites.

A sources folder holds PDFs and text files (.txt, .md). A PDF's text comes from pypdfium2, which is
fast and opens AES-encrypted files with an empty password; when pypdfium2 cannot open a file or fails
on it, pypdf (with `cryptography`, for AES) is tried. A text file is one page, or pages split on form
feeds. Other kinds of file are skipped and listed in `Sources.ignored`; a file no extractor can read
is listed in `Sources.problems` with the reason. Neither is an error, and nothing is dropped silently.

The page text is the extractor's text with "\\r\\n" and "\\r" folded to "\\n", and nothing else changed
(pdfium's U+FFFE for a hyphen at a line's end, C0 bullets and private-use characters stay): a quote's
span is an offset into exactly this text, so a reader can show the characters the extractor gave.

Extracted pages are cached as one JSON file per (file sha256, extractor name and version) under
`cache_dir`, so a new extractor release or a changed file is a miss by construction. A cache file that
fails its checks (unreadable, another key, a checksum that does not match its pages) is a miss with a
`PageCacheWarning`, and is written again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import InputError, UsageError
from .extractors import EXTRACTOR_ORDER, ExtractionError, check_extractor, extractor
from .page_cache import DEFAULT_PAGE_CACHE, PageCacheWarning, cache_path, read_cache, write_cache
from .walk import FolderWarning, check_folder, skipped_summary, walk_folder

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".md"})
FORM_FEED = "\f"
# The largest file read as a document, checked before a byte is read: a text file is held whole (with its
# folded copy), and a PDF is hashed and handed to an extractor that may scan all of it. Past these sizes a
# file is a listed problem, not hours of work: 64 MB of text is some 30,000 pages, and the largest PDFs of
# policy wordings, manuals or filings are tens of MB.
MAX_TEXT_BYTES = 64 << 20
MAX_PDF_BYTES = 512 << 20


@dataclass(frozen=True)
class Document:
    id: str  # the relative path, suffix dropped, "/" -> "__"
    path: str  # the relative posix path under the sources folder
    sha256: str  # of the file's bytes
    pages: tuple[str, ...]  # text per page; pages[0] is page 1
    extractor: str  # "pypdfium2 <version>", "pypdf <version>", "text"
    encryption: str | None  # "AES-256", "AES-128", "RC4-128", ... or None
    empty_pages: tuple[int, ...]  # 1-based pages with no text: a scan, which needs OCR

    def summary(self) -> dict[str, Any]:
        """What a report says about the document."""
        return {
            "id": self.id,
            "path": self.path,
            "sha256": self.sha256,
            "pages": len(self.pages),
            "characters_per_page": [len(page) for page in self.pages],
            "encryption": self.encryption,
            "empty_pages": list(self.empty_pages),
            "extractor": self.extractor,
        }


class Sources(Mapping[str, Document]):
    """The documents of a sources folder by `Document.id`, sorted, with the files that could not be
    read (`problems`: relative path and reason) and those of other kinds (`ignored`)."""

    def __init__(
        self,
        root: Path,
        documents: Iterable[Document],
        *,
        problems: Iterable[tuple[str, str]] = (),
        ignored: Iterable[str] = (),
    ) -> None:
        self.root = root
        self._documents = {document.id: document for document in sorted(documents, key=lambda d: d.id)}
        self.problems: tuple[tuple[str, str], ...] = tuple(sorted(problems))
        self.ignored: tuple[str, ...] = tuple(sorted(ignored))

    def __getitem__(self, document_id: str) -> Document:
        return self._documents[document_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._documents)

    def __len__(self) -> int:
        return len(self._documents)

    def resolve(self, reference: str) -> Document | None:
        """The document a reference names: a path as a facts file writes it (its longest matching path
        suffix: "rag/corpus/hdfc-ergo/x.pdf" finds "hdfc-ergo/x.pdf"), a document id, a file name, a
        file name without its suffix; tried in that order. None when nothing matches; InputError when
        the first kind that matches matches more than one document."""
        found = self.candidates(reference)
        if len(found) > 1:
            raise _ambiguous(reference, list(found))
        return found[0] if found else None

    def candidates(self, reference: str) -> tuple[Document, ...]:
        """The documents the first kind of match that matches at all finds for `reference` (see
        ``resolve``): one, several (ambiguous: a caller may know which it means), or none."""
        wanted = reference_parts(reference)
        documents = list(self._documents.values())
        for stage in (_by_whole_path, _by_path_suffix, _by_id, _by_name, _by_stem):
            found = stage(wanted, documents) if wanted else []
            if found:
                return tuple(found)
        return ()

    def summary(self) -> dict[str, Any]:
        return {
            "documents": [document.summary() for document in self.values()],
            "problems": [{"path": path, "reason": reason} for path, reason in self.problems],
            "ignored": list(self.ignored),
        }


# --- resolving references --------------------------------------------------------------------------


def reference_parts(reference: str) -> tuple[str, ...]:
    """A reference's path parts: backslashes read as slashes, empty and "." parts dropped."""
    return tuple(part for part in reference.strip().replace("\\", "/").split("/") if part not in ("", "."))


def _common_suffix(a: Sequence[str], b: Sequence[str]) -> int:
    count = 0
    while count < min(len(a), len(b)) and a[-1 - count] == b[-1 - count]:
        count += 1
    return count


def _by_whole_path(wanted: tuple[str, ...], documents: list[Document]) -> list[Document]:
    return [document for document in documents if reference_parts(document.path) == wanted]


def _by_path_suffix(wanted: tuple[str, ...], documents: list[Document]) -> list[Document]:
    """The documents sharing the most trailing path parts with the reference (a folder and the file
    name at least, or the document's whole path); of equals, those whose whole path the reference
    ends with, as no folder of theirs contradicts it."""
    scored: list[tuple[tuple[int, bool], Document]] = []
    for document in documents:
        parts = reference_parts(document.path)
        common = _common_suffix(parts, wanted)
        if common >= 2 or (common == len(parts) and common > 0):
            scored.append(((common, common == len(parts)), document))
    best = max((score for score, _ in scored), default=None)
    return [document for score, document in scored if score == best]


def _by_id(wanted: tuple[str, ...], documents: list[Document]) -> list[Document]:
    return [document for document in documents if document.id == "/".join(wanted)]


def _by_name(wanted: tuple[str, ...], documents: list[Document]) -> list[Document]:
    return [document for document in documents if PurePosixPath(document.path).name == wanted[-1]]


def _by_stem(wanted: tuple[str, ...], documents: list[Document]) -> list[Document]:
    stem = PurePosixPath(wanted[-1]).stem
    return [document for document in documents if PurePosixPath(document.path).stem in (stem, wanted[-1])]


def _ambiguous(reference: str, found: list[Document]) -> InputError:
    names = ", ".join(document.path for document in found)
    return InputError(
        f"the source reference matches {len(found)} documents ({names})",
        where=repr(reference),
        fix=f"write more of its path, such as {found[0].path!r}, or its document id, such as {found[0].id!r}",
    )


# --- loading --------------------------------------------------------------------------------------


def document_id(relative_path: str) -> str:
    """ "hdfc-ergo/my-optima-secure__wordings.pdf" -> "hdfc-ergo__my-optima-secure__wordings"."""
    return str(PurePosixPath(relative_path).with_suffix("")).replace("/", "__")


def load_sources(
    root: Path,
    *,
    cache_dir: Path | None = DEFAULT_PAGE_CACHE,
    extractors: Sequence[str] = EXTRACTOR_ORDER,
) -> Sources:
    """Every PDF and text file under `root` (hidden folders and files skipped), as a `Sources`. The
    folder is walked by ``walk.walk_folder``: an entry it skips (a link to a folder or outside the folder,
    a loop of links, a FIFO, ...) is a problem with its reason, and a ``FolderWarning`` names them."""
    check_folder(root, "sources folder")
    _check_extractors(extractors)
    walk = walk_folder(root)
    if walk.skipped:
        warnings.warn(FolderWarning(skipped_summary(walk, "sources folder")), stacklevel=2)
    documents: dict[str, Document] = {}
    problems: list[tuple[str, str]] = list(walk.skipped)
    ignored: list[str] = []
    # by path parts ("a/b.txt" before "a__b.txt"): of two files with one document id, the first keeps it
    for found in sorted(walk.files, key=lambda found: PurePosixPath(found.relative).parts):
        path, relative = found.path, found.relative
        if path.suffix.lower() not in PDF_SUFFIXES | TEXT_SUFFIXES:
            log.debug("sources: %s is neither a PDF nor a text file; skipped", relative)
            ignored.append(relative)
            continue
        try:
            document = load_document(path, root=root, cache_dir=cache_dir, extractors=extractors)
        except InputError as exc:
            problems.append((relative, f"{exc.what}: {exc.fix}" if exc.fix else exc.what))
            continue
        if document.id in documents:
            taken = documents[document.id].path
            problems.append((relative, f"its document id {document.id!r} is taken by {taken}: rename one"))
            continue
        documents[document.id] = document
    return Sources(root, documents.values(), problems=problems, ignored=ignored)


def _check_extractors(extractors: Sequence[str]) -> None:
    if not extractors:
        raise UsageError("no PDF extractor given", fix=f"give one or more of {', '.join(EXTRACTOR_ORDER)}")
    for name in extractors:
        check_extractor(name)  # the libraries load when a PDF is read: text documents need neither


def load_document(
    path: Path,
    *,
    root: Path,
    cache_dir: Path | None = DEFAULT_PAGE_CACHE,
    extractors: Sequence[str] = EXTRACTOR_ORDER,
) -> Document:
    """One file under `root` as a `Document`. InputError when no extractor can read it."""
    relative = _relative(path, root)
    _check_extractors(extractors)
    suffix = path.suffix.lower()
    if suffix not in PDF_SUFFIXES | TEXT_SUFFIXES:
        raise UsageError(
            "not a PDF or text file",
            where=relative,
            fix="give a .pdf, .txt or .md file, or convert it to one",
        )
    _check_size(path, relative, MAX_TEXT_BYTES if suffix in TEXT_SUFFIXES else MAX_PDF_BYTES)
    if suffix in TEXT_SUFFIXES:
        return _text_document(path, relative)
    try:
        sha256 = file_sha256(path)
    except OSError as exc:
        raise InputError(f"could not be read ({exc.strerror or exc})", where=relative) from None
    pages, encryption, extractor = _pdf_pages(path, relative, sha256, cache_dir, extractors)
    return _document(relative, sha256, pages, extractor, encryption)


def _check_size(path: Path, relative: str, limit: int) -> None:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"could not be read ({exc.strerror or exc})", where=relative) from None
    if size > limit:
        raise _too_large(relative, f"{size:,} bytes", limit)


def _too_large(relative: str, size: str, limit: int) -> InputError:
    return InputError(
        f"{size}, over the {limit:,} bytes a document may have here: not read",
        where=relative,
        fix="split the document, or leave it out of the sources folder",
    )


def _relative(path: Path, root: Path) -> str:
    # realpath, not Path.resolve: Python 3.11's resolve raises RuntimeError on a loop of links
    try:
        return Path(os.path.realpath(path)).relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        raise UsageError(
            "the file is not inside the sources folder", where=str(path), fix=f"move it into {root}"
        ) from None


def _document(
    relative: str, sha256: str, pages: Sequence[str], extractor: str, encryption: str | None
) -> Document:
    folded = tuple(fold_line_endings(page) for page in pages)
    empty = tuple(number for number, page in enumerate(folded, 1) if not page.strip())
    return Document(document_id(relative), relative, sha256, folded, extractor, encryption, empty)


def fold_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def file_sha256(path: Path) -> str:
    """The file's sha256, read in chunks (a large PDF is never held in memory for this)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _text_document(path: Path, relative: str) -> Document:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TEXT_BYTES + 1)  # a file that grew since its size was checked stops here
    except OSError as exc:
        raise InputError(f"could not be read ({exc.strerror or exc})", where=relative) from None
    if len(data) > MAX_TEXT_BYTES:
        raise _too_large(relative, "more bytes than its size said", MAX_TEXT_BYTES)
    try:
        text = fold_line_endings(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.start})", where=relative, fix="save the file as UTF-8"
        ) from None
    pages = text.split(FORM_FEED)
    if len(pages) > 1 and text.endswith(FORM_FEED):
        pages.pop()  # pdftotext ends every page, the last too, with a form feed: no page follows it
    return _document(relative, hashlib.sha256(data).hexdigest(), pages, "text", None)


def _pdf_pages(
    path: Path, relative: str, sha256: str, cache_dir: Path | None, extractors: Sequence[str]
) -> tuple[tuple[str, ...], str | None, str]:
    """The pages from the first extractor that reads the file (its cached pages when there are)."""
    failures = []
    for name in extractors:
        extract, label = extractor(name)
        cached = read_cache(cache_dir, sha256, label) if cache_dir is not None else None
        if cached is not None:
            return cached[0], cached[1], label
        try:
            pages, encryption = extract(path)
        except ExtractionError as exc:
            failures.append(f"{label}: {exc}")
            continue
        if cache_dir is not None:
            write_cache(cache_dir, sha256, label, pages, encryption)
        return pages, encryption, label
    raise InputError(f"no extractor could read this PDF ({'; '.join(failures)})", where=relative)


__all__ = [
    "DEFAULT_PAGE_CACHE",
    "MAX_PDF_BYTES",
    "MAX_TEXT_BYTES",
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
