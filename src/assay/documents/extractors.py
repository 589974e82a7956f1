"""The PDF extractors: pypdfium2 first (fast; opens AES-encrypted files with an empty password), pypdf
(with `cryptography`, for AES) when pdfium cannot open or read a file; and the name of a file's encryption.

Both come with `pip install 'assay[pdf]'` and are imported when a PDF is first read, not before: text
documents, and every command that reads none, need neither.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..extras import missing_extra

if TYPE_CHECKING:
    import pypdf

EXTRACTOR_ORDER = ("pypdfium2", "pypdf")  # the first that reads a PDF wins
# The way round the pdf extra: a sources folder of text needs no PDF library.
TEXT_ALTERNATIVE = "give the documents as .txt or .md text (one page per form feed)"


class ExtractionError(Exception):
    """One extractor could not read one file; the reason is the message."""


Extract = Callable[[Path], tuple[tuple[str, ...], str | None]]


def check_extractor(name: str) -> None:
    """A known extractor's name passes (without loading its library); any other is a UsageError."""
    if name not in EXTRACTOR_ORDER:
        raise UsageError(f"unknown PDF extractor {name!r}", fix=f"use one of {', '.join(EXTRACTOR_ORDER)}")


def extractor(name: str) -> tuple[Extract, str]:
    """An extractor's function and label (its name and version: part of the cache key). Its library is
    loaded here: a missing one is a MissingExtra (exit 2, `pip install 'assay[pdf]'`)."""
    check_extractor(name)
    _load_pdf_libraries()
    if name == "pypdfium2":
        import pypdfium2.version as pdfium_version

        return extract_pypdfium2, f"pypdfium2 {pdfium_version.PYPDFIUM_INFO}"
    import pypdf

    return extract_pypdf, f"pypdf {pypdf.__version__}"


def _load_pdf_libraries() -> None:
    """Both, whichever extractor is asked for: pypdf names the encryption of a file pdfium opened."""
    for module in ("pypdfium2", "pypdf"):
        try:
            importlib.import_module(module)
        except ImportError:
            raise missing_extra(module, "to read PDF documents", alternative=TEXT_ALTERNATIVE) from None


def extract_pypdfium2(path: Path) -> tuple[tuple[str, ...], str | None]:
    """Pages and encryption by pdfium; ExtractionError when it cannot open or read the file."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

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


@contextlib.contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf logs what it repairs or cannot read ("EOF marker not found") as warnings, which Python
    prints to stderr when nothing configured logging: for a broken file the reason is already in the
    ExtractionError and the report, so the log lines would only repeat it, out of place."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def extract_pypdf(path: Path) -> tuple[tuple[str, ...], str | None]:
    """Pages and encryption by pypdf; ExtractionError when it cannot open or read the file."""
    import pypdf

    try:
        with _quiet_pypdf(), path.open("rb") as handle:
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
    import pypdf

    try:
        with _quiet_pypdf(), path.open("rb") as handle:
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
