"""Source documents: page text from real PDFs (synthetic ones built here, and the shared insurance
wordings), encryption, empty pages, the fallback extractor, unreadable files, the page cache, and how
a facts file's reference finds its document."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pdfgen
import pypdf
import pytest

from assay.documents import (
    Document,
    PageCacheWarning,
    Sources,
    cache_path,
    document_id,
    file_sha256,
    load_document,
    load_sources,
    write_cache,
)
from assay.documents.sources import MAX_PDF_BYTES, MAX_TEXT_BYTES
from assay.errors import InputError, UsageError
from conftest import skip_or_fail

SHARED_PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance" / "pdfs"
PDFIUM = ("pypdfium2",)
PYPDF = ("pypdf",)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pdfgen.Built]:
    return pdfgen.build_all(tmp_path_factory.mktemp("pdfs"))


def load(case: pdfgen.Built, extractors: tuple[str, ...] = PDFIUM) -> Document:
    return load_document(case.path, root=case.path.parent, cache_dir=None, extractors=extractors)


# What pypdfium2 gives for each case, line endings folded: pinned, so any change in the extractor's
# text (which quote spans are offsets into) shows here first.
PDFIUM_TEXT = {
    "plain": tuple("\n".join(lines) for lines in pdfgen.PLAIN_PAGES),
    "two_columns": ("\n".join(pdfgen.LEFT_COLUMN + pdfgen.RIGHT_COLUMN),),
    # written across the page line by line: each text line holds both columns' lines
    "interleaved_columns": (
        "\n".join(f"{left} {right}" for left, right in zip(pdfgen.LEFT_COLUMN, pdfgen.RIGHT_COLUMN)),
    ),
    # pdfium marks a hyphen ending a line with U+FFFE in place of "-\r\n"
    "hyphenated": (
        "Expenses for any pre\ufffeexisting disease are covered after 36 months\nof continuous cover.",
    ),
    # pdfium decomposes U+FB01 (an Alphabetic Presentation Form) but keeps U+0133
    "ligature": ("The first benefit is paid at the R\u0133sw\u0133k branch.\nOther branches pay later.",),
    "table": ("\n".join(" ".join(cells) for cells in pdfgen.TABLE_ROWS),),
    "across_pages": tuple("\n".join(lines) for lines in (pdfgen.ACROSS_FIRST, pdfgen.ACROSS_SECOND)),
    "blank_pages": ("\n".join(pdfgen.PLAIN_PAGES[0]), "", ""),
    "aes128": ("\n".join(pdfgen.LEFT_COLUMN + pdfgen.RIGHT_COLUMN),),
    "aes256": ("\n".join(pdfgen.LEFT_COLUMN + pdfgen.RIGHT_COLUMN),),
}


@pytest.mark.parametrize("case", sorted(PDFIUM_TEXT))
def test_pypdfium2_pages_are_the_extractors_text_with_line_endings_folded(
    built: dict[str, pdfgen.Built], case: str
) -> None:
    document = load(built[case])
    assert document.pages == PDFIUM_TEXT[case]
    assert document.extractor.startswith("pypdfium2 ")


@pytest.mark.parametrize("case", sorted(PDFIUM_TEXT))
def test_pypdf_reads_every_case_with_the_lines_written(built: dict[str, pdfgen.Built], case: str) -> None:
    document = load(built[case], PYPDF)
    assert document.extractor == f"pypdf {pypdf.__version__}"
    assert len(document.pages) == len(built[case].pages)
    for page, lines in zip(document.pages, built[case].pages):
        assert "\r" not in page
        for line in lines:
            assert line in page


@pytest.mark.parametrize(
    ("extractors", "code_point"), [(PDFIUM, "\u0133"), (PYPDF, "\u0133"), (PYPDF, "\ufb01")]
)
def test_the_ligature_case_has_a_ligature_code_point_in_its_text(
    built: dict[str, pdfgen.Built], extractors: tuple[str, ...], code_point: str
) -> None:
    assert code_point in load(built["ligature"], extractors).pages[0]


@pytest.mark.parametrize("extractors", [PDFIUM, PYPDF])
@pytest.mark.parametrize(
    ("case", "encryption"), [("plain", None), ("aes128", "AES-128"), ("aes256", "AES-256")]
)
def test_encryption_is_named(
    built: dict[str, pdfgen.Built], extractors: tuple[str, ...], case: str, encryption: str | None
) -> None:
    assert load(built[case], extractors).encryption == encryption


@pytest.mark.parametrize("algorithm", ["RC4-40", "RC4-128"])
def test_rc4_encryption_is_named_too(built: dict[str, pdfgen.Built], tmp_path: Path, algorithm: str) -> None:
    copy = pdfgen.encrypted(built["plain"], algorithm, tmp_path)
    document = load(copy)
    assert (document.encryption, document.pages) == (algorithm, PDFIUM_TEXT["plain"])


def test_pages_without_text_are_reported_as_empty(built: dict[str, pdfgen.Built]) -> None:
    document = load(built["blank_pages"])
    assert document.empty_pages == (2, 3)
    assert document.summary()["empty_pages"] == [2, 3]
    assert load(built["plain"]).empty_pages == ()


def test_summary_says_pages_characters_encryption_and_extractor(built: dict[str, pdfgen.Built]) -> None:
    summary = load(built["aes256"]).summary()
    assert summary["pages"] == 1
    assert summary["characters_per_page"] == [len(PDFIUM_TEXT["aes256"][0])]
    assert (summary["encryption"], summary["id"], summary["path"]) == (
        "AES-256",
        "two-columns.aes-256",
        "two-columns.aes-256.pdf",
    )
    assert summary["extractor"].startswith("pypdfium2 ")


def test_a_pdf_pdfium_rejects_is_read_by_pypdf(built: dict[str, pdfgen.Built], tmp_path: Path) -> None:
    junk = pdfgen.junk_prefixed(built["plain"], tmp_path)
    document = load(junk, ("pypdfium2", "pypdf"))
    assert document.extractor == f"pypdf {pypdf.__version__}"
    assert document.pages == PDFIUM_TEXT["plain"]  # pypdf's text of these lines equals pdfium's


def test_without_the_fallback_that_pdf_is_a_problem(built: dict[str, pdfgen.Built], tmp_path: Path) -> None:
    pdfgen.junk_prefixed(built["plain"], tmp_path)
    sources = load_sources(tmp_path, cache_dir=None, extractors=PDFIUM)
    assert len(sources) == 0
    [(path, reason)] = sources.problems
    assert path == "plain.junk.pdf"
    assert "pypdfium2" in reason and "Data format error" in reason


def _locked(folder: Path) -> Path:
    return pdfgen.password_protected(pdfgen.plain(folder), folder).path


def _truncated(folder: Path) -> Path:
    return pdfgen.truncated(pdfgen.plain(folder), folder)


def _empty(folder: Path) -> Path:
    pdfgen.plain(folder)
    (folder / "empty.pdf").write_bytes(b"")
    return folder / "empty.pdf"


@pytest.mark.parametrize(
    ("make", "pdfium_says", "pypdf_says"),
    [
        (_locked, "needs a password", "needs a password"),
        (_truncated, "Data format error", "Stream has ended unexpectedly"),
        (_empty, "Data format error", "empty file"),
    ],
)
def test_an_unreadable_pdf_is_a_problem_with_its_reasons_and_the_rest_load(
    tmp_path: Path, make: Callable[[Path], Path], pdfium_says: str, pypdf_says: str
) -> None:
    broken = make(tmp_path)
    sources = load_sources(tmp_path, cache_dir=None)
    assert list(sources) == ["plain"]
    [(problem, reason)] = sources.problems
    assert problem == broken.name
    pdfium_reason, pypdf_reason = reason.split("; pypdf ")
    assert reason.startswith("no extractor could read this PDF (pypdfium2 ")
    assert pdfium_says in pdfium_reason and pypdf_says in pypdf_reason
    with pytest.raises(InputError, match="no extractor could read this PDF"):
        load_document(broken, root=tmp_path, cache_dir=None)


def test_other_kinds_of_file_are_ignored_and_listed_not_problems(tmp_path: Path) -> None:
    pdfgen.plain(tmp_path)
    (tmp_path / "notes.docx").write_bytes(b"PK\x03\x04")
    (tmp_path / "index.json").write_text("{}")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "old.pdf").write_bytes(b"not looked at")
    sources = load_sources(tmp_path, cache_dir=None)
    assert (list(sources), sources.problems, sources.ignored) == (["plain"], (), ("index.json", "notes.docx"))


@pytest.mark.parametrize(
    ("name", "data", "pages"),
    [
        ("one.txt", b"Line one.\r\nLine two.\rLine three.", ("Line one.\nLine two.\nLine three.",)),
        ("paged.md", b"# Page one\n\fPage two\n", ("# Page one\n", "Page two\n")),
        ("pdftotext.txt", b"Page one\fPage two\f", ("Page one", "Page two")),  # a form feed ends each page
        ("bom.txt", b"\xef\xbb\xbfText", ("Text",)),
        ("blank.txt", b"Text\f \n\fMore", ("Text", " \n", "More")),
    ],
)
def test_text_files_are_pages_split_on_form_feeds(
    tmp_path: Path, name: str, data: bytes, pages: tuple[str, ...]
) -> None:
    (tmp_path / name).write_bytes(data)
    document = load_document(tmp_path / name, root=tmp_path, cache_dir=None)
    assert (document.pages, document.extractor, document.encryption) == (pages, "text", None)
    assert document.empty_pages == tuple(n for n, page in enumerate(pages, 1) if not page.strip())


def test_a_text_file_that_is_not_utf8_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    sources = load_sources(tmp_path, cache_dir=None)
    assert sources.problems == (("latin1.txt", "not UTF-8 text (byte 3): save the file as UTF-8"),)


@pytest.mark.parametrize(("name", "limit"), [("huge.txt", MAX_TEXT_BYTES), ("huge.pdf", MAX_PDF_BYTES)])
def test_a_document_over_its_size_is_a_problem_not_read(tmp_path: Path, name: str, limit: int) -> None:
    with (tmp_path / name).open("wb") as handle:
        handle.truncate(limit + 1)  # sparse: no disk used, but hashing or extracting it would take minutes
    (tmp_path / "small.txt").write_text("The grace period is 30 days.")
    sources = load_sources(tmp_path, cache_dir=None)
    assert list(sources) == ["small"]
    assert sources.problems == (
        (name, f"{limit + 1:,} bytes, over the {limit:,} bytes a document may have here: not read: "
         "split the document, or leave it out of the sources folder"),
    )


def test_two_files_with_one_document_id_keep_the_first_and_report_the_second(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.txt").write_text("folder")
    (tmp_path / "a__b.txt").write_text("flat")
    sources = load_sources(tmp_path, cache_dir=None)
    assert sources["a__b"].path == "a/b.txt"
    assert sources.problems == (("a__b.txt", "its document id 'a__b' is taken by a/b.txt: rename one"),)


def test_document_ids_and_paths_come_from_the_relative_path(tmp_path: Path) -> None:
    (tmp_path / "hdfc-ergo").mkdir()
    pdf = pdfgen.plain(tmp_path / "hdfc-ergo")
    document = load_document(pdf.path, root=tmp_path, cache_dir=None)
    assert (document.id, document.path) == ("hdfc-ergo__plain", "hdfc-ergo/plain.pdf")
    assert document.sha256 == file_sha256(pdf.path)
    assert document_id("hdfc-ergo/my-optima-secure__wordings.pdf") == "hdfc-ergo__my-optima-secure__wordings"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda root: load_sources(root / "missing"), "the sources folder does not exist"),
        (lambda root: load_document(root / "x.docx", root=root), "not a PDF or text file"),
        (lambda root: load_document(Path(os.devnull), root=root), "not inside the sources folder"),
        (
            lambda root: load_sources(root / "empty", extractors=("pdfminer",)),
            "unknown PDF extractor 'pdfminer'",
        ),
        (lambda root: load_sources(root / "empty", extractors=()), "no PDF extractor given"),
    ],
)
def test_usage_errors_say_what_and_the_fix(tmp_path: Path, call: object, error: str) -> None:
    pdfgen.plain(tmp_path)
    (tmp_path / "empty").mkdir()  # no PDF in it: a wrong extractor is refused before any is needed
    with pytest.raises(UsageError, match=error) as raised:
        call(tmp_path)  # type: ignore[operator]
    assert raised.value.fix


# --- the page cache -------------------------------------------------------------------------------


def test_the_first_load_writes_a_cache_entry_and_the_second_reads_it(
    built: dict[str, pdfgen.Built], tmp_path: Path
) -> None:
    case = built["aes256"]
    first = load_document(case.path, root=case.path.parent, cache_dir=tmp_path)
    entry = cache_path(tmp_path, first.sha256, first.extractor)
    assert [p.name for p in tmp_path.iterdir()] == [entry.name]
    # A valid entry holding other pages: the next load returns them, so it did not extract the file.
    write_cache(tmp_path, first.sha256, first.extractor, ["from the cache\r\n"], "AES-256")
    again = load_document(case.path, root=case.path.parent, cache_dir=tmp_path)
    assert (again.pages, again.encryption, again.extractor) == (
        ("from the cache\n",),
        "AES-256",
        first.extractor,
    )


def test_no_cache_dir_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pdfs").mkdir()
    pdfgen.plain(tmp_path / "pdfs")
    monkeypatch.chdir(tmp_path)  # the default cache folder is relative: it would appear here
    load_sources(tmp_path / "pdfs", cache_dir=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pdfs"]


def _tamper(entry: Path) -> None:
    data = json.loads(entry.read_text())
    data["pages"][0] = "edited by hand"
    entry.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (_tamper, "checksum does not match"),
        (lambda entry: entry.write_text(entry.read_text()[:40]), "unreadable"),
        (lambda entry: entry.write_text("[1, 2]"), "not a JSON object"),
        (lambda entry: entry.write_text(entry.read_text().replace('"format": 1', '"format": 0')), "another"),
    ],
)
def test_a_damaged_cache_entry_is_a_miss_with_a_warning_and_is_rewritten(
    built: dict[str, pdfgen.Built], tmp_path: Path, damage: object, says: str
) -> None:
    case = built["plain"]
    first = load_document(case.path, root=case.path.parent, cache_dir=tmp_path)
    entry = cache_path(tmp_path, first.sha256, first.extractor)
    damage(entry)  # type: ignore[operator]
    with pytest.warns(PageCacheWarning, match=says):
        again = load_document(case.path, root=case.path.parent, cache_dir=tmp_path)
    assert again.pages == first.pages
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rewritten whole: the third load reads it without a warning
        assert load_document(case.path, root=case.path.parent, cache_dir=tmp_path).pages == first.pages


def test_the_fallback_extractors_pages_are_cached_under_its_own_name(
    built: dict[str, pdfgen.Built], tmp_path: Path
) -> None:
    (tmp_path / "pdfs").mkdir()
    junk = pdfgen.junk_prefixed(built["plain"], tmp_path / "pdfs")
    cache = tmp_path / "cache"
    first = load_document(junk.path, root=junk.path.parent, cache_dir=cache)
    assert [p.name for p in cache.iterdir()] == [cache_path(cache, first.sha256, first.extractor).name]
    assert load_document(junk.path, root=junk.path.parent, cache_dir=cache) == first


def test_copies_differing_in_one_byte_are_two_cache_entries(
    built: dict[str, pdfgen.Built], tmp_path: Path
) -> None:
    source = built["plain"].path.read_bytes()
    (tmp_path / "pdfs").mkdir()
    for name, tail in (("a.pdf", b""), ("b.pdf", b"\n%copy\n")):
        (tmp_path / "pdfs" / name).write_bytes(source + tail)
    sources = load_sources(tmp_path / "pdfs", cache_dir=tmp_path / "cache")
    assert sources["a"].pages == sources["b"].pages and sources["a"].sha256 != sources["b"].sha256
    assert len(list((tmp_path / "cache").iterdir())) == 2


# --- resolving a facts file's reference -----------------------------------------------------------


def _doc(path: str) -> Document:
    return Document(document_id(path), path, "0" * 64, ("text",), "text", None, ())


RESOLVE_SOURCES = Sources(
    Path("sources"),
    [
        _doc("hdfc-ergo/my-optima-secure__wordings.pdf"),
        _doc("hdfc-ergo/optima-restore__brochure.pdf"),
        _doc("archive/hdfc-ergo/optima-restore__brochure.pdf"),
        _doc("care-health/care-classic__wordings.pdf"),
        _doc("niva-bupa/rise__wordings.pdf"),
        _doc("tata-aig/rise__wordings.pdf"),
        _doc("glossary.md"),
        _doc("v1/policies/star.pdf"),
        _doc("v2/policies/star.pdf"),
    ],
)


@pytest.mark.parametrize(
    ("reference", "found"),
    [
        ("rag/corpus/hdfc-ergo/my-optima-secure__wordings.pdf", "hdfc-ergo/my-optima-secure__wordings.pdf"),
        ("hdfc-ergo/my-optima-secure__wordings.pdf", "hdfc-ergo/my-optima-secure__wordings.pdf"),
        ("./hdfc-ergo\\my-optima-secure__wordings.pdf", "hdfc-ergo/my-optima-secure__wordings.pdf"),
        ("hdfc-ergo__my-optima-secure__wordings", "hdfc-ergo/my-optima-secure__wordings.pdf"),
        ("care-classic__wordings.pdf", "care-health/care-classic__wordings.pdf"),
        ("downloads/care-classic__wordings.pdf", "care-health/care-classic__wordings.pdf"),
        ("care-classic__wordings", "care-health/care-classic__wordings.pdf"),
        # the whole path wins over a longer document path sharing it as a suffix
        ("hdfc-ergo/optima-restore__brochure.pdf", "hdfc-ergo/optima-restore__brochure.pdf"),
        (
            "old/archive/hdfc-ergo/optima-restore__brochure.pdf",
            "archive/hdfc-ergo/optima-restore__brochure.pdf",
        ),
        ("rag/corpus/niva-bupa/rise__wordings.pdf", "niva-bupa/rise__wordings.pdf"),
        # a document whose whole path the reference ends with beats one sharing only part of it
        ("x/rag/hdfc-ergo/optima-restore__brochure.pdf", "hdfc-ergo/optima-restore__brochure.pdf"),
        ("docs/glossary.md", "glossary.md"),
        ("glossary", "glossary.md"),
        ("rag/corpus/hdfc-ergo/optima-secure__brochure.pdf", None),
        ("", None),
        ("   ", None),
    ],
)
def test_resolve_finds_a_reference_by_path_suffix_id_name_then_stem(
    reference: str, found: str | None
) -> None:
    document = RESOLVE_SOURCES.resolve(reference)
    assert (document.path if document else None) == found


@pytest.mark.parametrize(
    ("reference", "candidates"),
    [
        ("rise__wordings.pdf", "niva-bupa/rise__wordings.pdf, tata-aig/rise__wordings.pdf"),
        ("rise__wordings", "niva-bupa/rise__wordings.pdf, tata-aig/rise__wordings.pdf"),
        ("rag/policies/star.pdf", "v1/policies/star.pdf, v2/policies/star.pdf"),
    ],
)
def test_an_ambiguous_reference_names_its_candidates_and_the_fix(reference: str, candidates: str) -> None:
    with pytest.raises(InputError) as raised:
        RESOLVE_SOURCES.resolve(reference)
    assert candidates in raised.value.what
    assert "write more of its path" in raised.value.fix


def test_sources_is_a_mapping_sorted_by_id() -> None:
    assert list(RESOLVE_SOURCES) == sorted(RESOLVE_SOURCES)
    assert RESOLVE_SOURCES["glossary"].path == "glossary.md"
    assert len(RESOLVE_SOURCES) == 9


# --- the shared insurance wordings ------------------------------------------------------------------

SHARED = {
    "aditya-birla__activ-assure-diamond__wordings": (38, None),
    "care-health__care-classic__wordings": (38, "AES-256"),
    "hdfc-ergo__my-optima-secure__wordings": (53, None),
    "niva-bupa__rise__wordings": (34, None),
    "tata-aig__wellsurance-family__cis": (4, None),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Sources:
    if not SHARED_PDFS.is_dir():
        skip_or_fail(f"the shared insurance PDFs are missing ({SHARED_PDFS})")
    return load_sources(SHARED_PDFS, cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize("extractors", [PDFIUM, PYPDF])
def test_the_shared_wordings_aes256_file_opens_with_either_extractor(extractors: tuple[str, ...]) -> None:
    if not SHARED_PDFS.is_dir():
        skip_or_fail(f"the shared insurance PDFs are missing ({SHARED_PDFS})")
    path = SHARED_PDFS / "care-health" / "care-classic__wordings.pdf"
    document = load_document(path, root=SHARED_PDFS, cache_dir=None, extractors=extractors)
    assert (len(document.pages), document.encryption, document.empty_pages) == (38, "AES-256", ())
    assert document.pages[0] == "Know Your Policy Better"
    assert document.pages[1].startswith("1. Preamble\nThe proposal and declaration given by the proposer")


def test_the_shared_wordings_load_with_their_page_counts_and_encryption(shared: Sources) -> None:
    found = {doc_id: (len(document.pages), document.encryption) for doc_id, document in shared.items()}
    assert found == SHARED
    assert (shared.problems, shared.ignored) == ((), ())
    for document in shared.values():
        assert document.empty_pages == ()
        assert all("\r" not in page for page in document.pages)
        assert min(document.summary()["characters_per_page"]) >= len("Know Your Policy Better")


def test_the_facts_files_references_resolve_in_the_shared_wordings(shared: Sources) -> None:
    found = shared.resolve("rag/corpus/hdfc-ergo/my-optima-secure__wordings.pdf")
    assert found is not None and found.id == "hdfc-ergo__my-optima-secure__wordings"
    assert shared.resolve("rag/corpus/hdfc-ergo/optima-restore__brochure.pdf") is None  # not in the folder
