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
import json
import logging
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pypdf
import pypdfium2
import pypdfium2.raw as pdfium_c
import pypdfium2.version as pdfium_version

from ..errors import AssayError, InputError, UsageError
from ..outputs import write_text

log = logging.getLogger(__name__)

DEFAULT_PAGE_CACHE = Path(".assay-cache") / "pages"
PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".md"})
EXTRACTOR_ORDER = ("pypdfium2", "pypdf")  # the first that reads a PDF wins
CACHE_FORMAT = 1
FORM_FEED = "\f"


class PageCacheWarning(UserWarning):
    """A page cache file could not be used; the pages were extracted again."""


class ExtractionError(Exception):
    """One extractor could not read one file; the reason is the message."""


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
        wanted = reference_parts(reference)
        if not wanted:
            return None
        documents = list(self._documents.values())
        for stage in (_by_whole_path, _by_path_suffix, _by_id, _by_name, _by_stem):
            found = stage(wanted, documents)
            if len(found) == 1:
                return found[0]
            if found:
                raise _ambiguous(reference, found)
        return None

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
    """Every PDF and text file under `root` (hidden folders and files skipped), as a `Sources`."""
    _check_root(root)
    _check_extractors(extractors)
    documents: dict[str, Document] = {}
    problems: list[tuple[str, str]] = []
    ignored: list[str] = []
    for path in _files_under(root):
        relative = path.relative_to(root).as_posix()
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


def _check_root(root: Path) -> None:
    if not root.is_dir():
        kind = "is not a folder" if root.exists() else "does not exist"
        raise UsageError(
            f"the sources folder {kind}", where=str(root), fix="give the folder holding the documents"
        )


def _check_extractors(extractors: Sequence[str]) -> None:
    if not extractors:
        raise UsageError("no PDF extractor given", fix=f"give one or more of {', '.join(EXTRACTOR_ORDER)}")
    for name in extractors:
        _extractor(name)


def _files_under(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]  # .git, caches
        found.extend(Path(folder) / name for name in files if not name.startswith("."))
    return sorted(found)


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
    if suffix in TEXT_SUFFIXES:
        return _text_document(path, relative)
    if suffix not in PDF_SUFFIXES:
        raise UsageError(
            "not a PDF or text file",
            where=relative,
            fix="give a .pdf, .txt or .md file, or convert it to one",
        )
    try:
        sha256 = file_sha256(path)
    except OSError as exc:
        raise InputError(f"could not be read ({exc.strerror or exc})", where=relative) from None
    pages, encryption, extractor = _pdf_pages(path, relative, sha256, cache_dir, extractors)
    return _document(relative, sha256, pages, extractor, encryption)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
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
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"could not be read ({exc.strerror or exc})", where=relative) from None
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
        extract, label = _extractor(name)
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


# --- extractors ------------------------------------------------------------------------------------

Extract = Callable[[Path], tuple[tuple[str, ...], str | None]]


def _extractor(name: str) -> tuple[Extract, str]:
    """An extractor's function and label (its name and version: part of the cache key)."""
    if name == "pypdfium2":
        return extract_pypdfium2, f"pypdfium2 {pdfium_version.PYPDFIUM_INFO}"
    if name == "pypdf":
        return extract_pypdf, f"pypdf {pypdf.__version__}"
    raise UsageError(f"unknown PDF extractor {name!r}", fix=f"use one of {', '.join(EXTRACTOR_ORDER)}")


def extract_pypdfium2(path: Path) -> tuple[tuple[str, ...], str | None]:
    """Pages and encryption by pdfium; ExtractionError when it cannot open or read the file."""
    try:
        document = pypdfium2.PdfDocument(path)
    except pypdfium2.PdfiumError as exc:
        raise ExtractionError(_pdfium_reason(str(exc))) from None
    try:
        pages = tuple(_pdfium_page_text(document, index) for index in range(len(document)))
        revision = pdfium_c.FPDF_GetSecurityHandlerRevision(document)
    except Exception as exc:  # any failure inside pdfium means: try the next extractor
        raise ExtractionError(f"{type(exc).__name__}: {exc}") from None
    finally:
        document.close()
    return pages, (None if revision < 0 else encryption_of(path, revision))


def _pdfium_page_text(document: Any, index: int) -> str:
    page = document[index]
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_range())
    finally:
        textpage.close()
        page.close()


def _pdfium_reason(message: str) -> str:
    if "password" in message.lower():
        return f"it needs a password to open ({message.rstrip('.')}): ask for a copy without one"
    return message.rstrip(".")


def extract_pypdf(path: Path) -> tuple[tuple[str, ...], str | None]:
    """Pages and encryption by pypdf; ExtractionError when it cannot open or read the file."""
    try:
        with path.open("rb") as handle:
            reader = pypdf.PdfReader(handle)
            encryption = None
            if reader.is_encrypted:
                encryption = encryption_name(_encrypt_dictionary(reader))
                if reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED:
                    raise ExtractionError("it needs a password to open: ask for a copy without one")
            return tuple(page.extract_text() for page in reader.pages), encryption
    except ExtractionError:
        raise
    except Exception as exc:  # pypdf raises many kinds for a broken file; all mean unreadable
        raise ExtractionError(f"{type(exc).__name__}: {exc}") from None


# pdfium gives the standard security handler's revision only; these are the algorithms each implies
# (ISO 32000-2, 7.6.4: R4 may be RC4-128 or AES-128, so pypdf reads the /Encrypt dictionary to tell).
REVISION_ALGORITHMS = {2: "RC4-40", 3: "RC4-128", 5: "AES-256", 6: "AES-256"}


def encryption_of(path: Path, revision: int) -> str:
    """The encryption algorithm of an encrypted PDF, read from its /Encrypt dictionary by pypdf (which
    reads the trailer only, from the open file, not the whole file into memory)."""
    try:
        with path.open("rb") as handle:
            return encryption_name(_encrypt_dictionary(pypdf.PdfReader(handle)))
    except Exception:  # pypdf cannot parse what pdfium read: name it by revision alone
        return REVISION_ALGORITHMS.get(revision, f"standard security handler revision {revision}")


def _encrypt_dictionary(reader: pypdf.PdfReader) -> Mapping[str, Any]:
    found = reader.trailer["/Encrypt"].get_object()
    if not isinstance(found, Mapping):
        raise ExtractionError("its /Encrypt entry is not a dictionary")
    return found


def encryption_name(encrypt: Mapping[str, Any]) -> str:
    """ "AES-256", "AES-128", "RC4-128", "RC4-40" from an /Encrypt dictionary (ISO 32000-2, 7.6)."""
    version = int(encrypt.get("/V", 0))
    if version >= 5:
        name = "AES-256"
    elif version == 4:
        name = _crypt_filter_name(encrypt)
    else:
        name = f"RC4-{int(encrypt.get('/Length', 40))}"
    handler = str(encrypt.get("/Filter", "/Standard")).lstrip("/")
    return name if handler == "Standard" else f"{name} ({handler})"


def _crypt_filter_name(encrypt: Mapping[str, Any]) -> str:
    """V4 names its algorithm in the crypt filter that streams (else strings) use."""
    filters = encrypt.get("/CF", {})
    chosen = str(encrypt.get("/StmF", "/Identity"))
    if chosen == "/Identity":
        chosen = str(encrypt.get("/StrF", "/Identity"))
    method = str(filters.get(chosen, {}).get("/CFM", "/None")) if chosen != "/Identity" else "/None"
    return {"/AESV2": "AES-128", "/AESV3": "AES-256", "/V2": "RC4-128"}.get(method, f"none ({method})")


# --- the page cache --------------------------------------------------------------------------------


def cache_path(cache_dir: Path, sha256: str, extractor: str) -> Path:
    return cache_dir / f"{sha256}.{extractor.replace(' ', '-')}.json"


def _checksum(pages: Sequence[str], encryption: str | None) -> str:
    return hashlib.sha256(json.dumps([encryption, list(pages)]).encode("ascii")).hexdigest()


def write_cache(
    cache_dir: Path, sha256: str, extractor: str, pages: Sequence[str], encryption: str | None
) -> None:
    """Store the pages; a cache that cannot be written costs only speed, so it warns."""
    entry = {
        "format": CACHE_FORMAT,
        "sha256": sha256,
        "extractor": extractor,
        "encryption": encryption,
        "pages": list(pages),
        "checksum": _checksum(pages, encryption),
    }
    target = cache_path(cache_dir, sha256, extractor)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_text(target, json.dumps(entry))  # ASCII-escaped: a lone surrogate from pypdf stays writable
    except (AssayError, OSError) as exc:
        warnings.warn(
            f"{target}: the page cache could not be written ({exc})", PageCacheWarning, stacklevel=2
        )


def read_cache(cache_dir: Path, sha256: str, extractor: str) -> tuple[tuple[str, ...], str | None] | None:
    """The cached (pages, encryption), or None: absent, or unusable (with a PageCacheWarning)."""
    target = cache_path(cache_dir, sha256, extractor)
    try:
        entry = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        problem: str | None = f"unreadable: {exc}"
    else:
        problem = _cache_problem(entry, sha256, extractor)
    if problem is None:
        return tuple(entry["pages"]), entry["encryption"]
    warnings.warn(
        f"{target}: page cache entry {problem}; the pages are extracted again", PageCacheWarning, stacklevel=3
    )
    return None


def _cache_problem(entry: Any, sha256: str, extractor: str) -> str | None:
    if not isinstance(entry, dict):
        return "not a JSON object"
    key = (entry.get("format"), entry.get("sha256"), entry.get("extractor"))
    if key != (CACHE_FORMAT, sha256, extractor):
        return "written for another file, extractor or cache format"
    pages, encryption = entry.get("pages"), entry.get("encryption")
    if not isinstance(pages, list) or not all(isinstance(page, str) for page in pages):
        return "its pages are not a list of texts"
    if encryption is not None and not isinstance(encryption, str):
        return "its encryption is not a text"
    if entry.get("checksum") != _checksum(pages, encryption):
        return "its checksum does not match its pages (edited or damaged)"
    return None
