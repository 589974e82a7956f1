"""What a gold set does not test of its documents (`assay gold coverage`, and the gold build's report).

Generated real PDFs with known sections (one with an outline written by pypdf, one without an outline
but with numbered and capitalised headings), a Markdown document, a PDF no item cites, and a gold set
citing some of their pages; then the shared insurance PDFs with the gold set `assay gold build` makes
of them (skipped locally without them, a failure under CI=true).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader, PdfWriter

from assay.cli import main
from assay.documents import load_sources
from assay.harness.coverage import gold_coverage
from assay.harness.coverage_report import coverage_json, page_ranges, ranges_text
from assay.harness.sections import heading_level, text_headings
from conftest import INSURANCE
from support import pdfgen

# --- the generated corpus -----------------------------------------------------------------------------

# Mixed-case, unnumbered titles: the headings rule finds none of them, so sections come from the outline.
OUTLINED_PAGES = [
    ["Introduction", "This plan pays for care in hospital."],
    ["Cover", "Hospital cover", "Room rent is paid up to one percent of the sum insured."],
    ["Ambulance cover", "Ambulance charges are paid up to Rs 2,000 per event."],
    ["Exclusions", "Cosmetic surgery is not covered."],
    ["Claims", "Claims must be intimated within 48 hours of admission."],
    ["Renewal", "The grace period for renewal is thirty days."],
]
# (title, page, parent's title): "Hospital cover" and "Ambulance cover" lie in "Cover".
OUTLINE = [
    ("Introduction", 1, None),
    ("Cover", 2, None),
    ("Hospital cover", 2, "Cover"),
    ("Ambulance cover", 3, "Cover"),
    ("Exclusions", 4, None),
    ("Claims", 5, None),
    ("Renewal", 6, None),
]
NUMBERED_PAGES = [
    ["1. Definitions", "A hospital means an institution for in-patient care."],
    ["2. Cover", "2.1 Hospital cover", "Room rent is paid up to one percent of the sum insured."],
    ["2.2 Ambulance cover", "Ambulance charges are paid up to Rs 2,000 per event."],
    ["GENERAL CONDITIONS", "Claims must be intimated within 48 hours of admission."],
    ["4. Renewal", "The grace period for renewal is thirty days."],
]
NOTES = (
    "# Notes\n\nA summary of the plan.\n\n## Waiting periods\n\nThere is no waiting period.\n\n"
    "## Contact\n\nWrite to us.\n"
)


def outlined_pdf(folder: Path) -> Path:
    """OUTLINED_PAGES with OUTLINE as the PDF's bookmarks (pypdf's add_outline_item)."""
    path = pdfgen.pages_pdf(folder, "outlined.pdf", OUTLINED_PAGES)
    writer = PdfWriter(clone_from=PdfReader(path))
    added: dict[str, Any] = {}
    for title, page, parent in OUTLINE:
        added[title] = writer.add_outline_item(
            title=title, page_number=page - 1, parent=added.get(parent or "")
        )
    with path.open("wb") as out:
        writer.write(out)
    return path


def _item(item_id: str, path: str | None, quote: str | None, **more: Any) -> dict[str, Any]:
    source = {"path": path, "quote": quote} if path else None
    return {
        "id": item_id,
        "question": f"Question {item_id}?",
        "expected_answer": "an answer",
        "source": source,
        **more,
    }


ITEMS = [
    _item("o-hospital", "outlined.pdf", OUTLINED_PAGES[1][2]),
    _item("o-claims", "outlined.pdf", OUTLINED_PAGES[4][1]),
    _item("n-ambulance", "numbered.pdf", NUMBERED_PAGES[2][1]),
    _item("n-renewal", "numbered.pdf", NUMBERED_PAGES[4][1]),
    _item("m-waiting", "notes.md", "There is no waiting period."),
    _item("n-lost", "numbered.pdf", "Dental treatment is covered in full."),
    _item("away", "brochure.pdf", "Anything at all."),
    _item("refuse", None, None, expected_refusal=True),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Sources (two PDFs with known sections, a Markdown file, a PDF no item cites) and a gold set."""
    root = tmp_path_factory.mktemp("coverage")
    sources = root / "sources"
    outlined_pdf(sources)
    pdfgen.pages_pdf(sources, "numbered.pdf", NUMBERED_PAGES)
    pdfgen.pages_pdf(sources, "uncited.pdf", [["Annex", "A table of rates."], ["More rates."]])
    (sources / "notes.md").write_text(NOTES, encoding="utf-8")
    gold = root / "gold.jsonl"
    gold.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    return gold, sources


@pytest.fixture(scope="module")
def report(corpus: tuple[Path, Path]) -> dict[str, Any]:
    _, sources = corpus
    return coverage_json(gold_coverage(ITEMS, load_sources(sources, cache_dir=None)))


def _document(report: dict[str, Any], document_id: str) -> dict[str, Any]:
    (found,) = [d for d in report["documents"] if d["id"] == document_id]
    return found


def _untested(document: dict[str, Any]) -> list[tuple[str, Any, int]]:
    where = "pages" if document["paged"] else "lines"
    return [(s["title"], s[where], s["subsections"]) for s in document["sections"]["untested"]]


def test_an_outlined_pdf_reports_its_untested_pages_and_outline_sections(report: dict[str, Any]) -> None:
    outlined = _document(report, "outlined")
    assert outlined["sections"]["origin"] == "outline"
    assert (outlined["untested_pages"], outlined["untested_pages_text"]) == (
        [[1, 1], [3, 4], [6, 6]],
        "1, 3–4, 6",
    )
    assert (outlined["pages_tested"], outlined["pages_with_text"], outlined["share_tested"]) == (2, 6, 2 / 6)
    # "Ambulance cover" is untested inside the tested "Cover"; "Cover" and "Claims" are tested.
    assert _untested(outlined) == [
        ("Introduction", [1, 1], 0),
        ("Ambulance cover", [3, 3], 0),
        ("Exclusions", [4, 4], 0),
        ("Renewal", [6, 6], 0),
    ]
    assert (outlined["sections"]["total"], outlined["sections"]["tested"]) == (7, 3)


def test_a_pdf_without_outline_reports_sections_from_its_headings(report: dict[str, Any]) -> None:
    numbered = _document(report, "numbered")
    assert numbered["sections"]["origin"] == "headings"
    assert numbered["untested_pages_text"] == "1–2, 4" and numbered["share_tested"] == 2 / 5
    # "2. Cover" holds the tested "2.2 Ambulance cover", so only its untested "2.1" is listed.
    assert _untested(numbered) == [
        ("1. Definitions", [1, 1], 0),
        ("2.1 Hospital cover", [2, 2], 0),
        ("GENERAL CONDITIONS", [4, 4], 0),
    ]
    assert (numbered["sections"]["total"], numbered["sections"]["tested"]) == (6, 3)


def test_a_document_no_item_cites_is_listed_untested(report: dict[str, Any]) -> None:
    uncited = _document(report, "uncited")
    assert (uncited["share_tested"], uncited["untested_pages_text"], uncited["items"]) == (0.0, "1–2", [])
    assert [d["id"] for d in report["documents"]] == ["notes", "numbered", "outlined", "uncited"]


def test_a_text_document_of_one_page_is_not_paged_and_gives_its_sections_lines(
    report: dict[str, Any],
) -> None:
    notes = _document(report, "notes")
    assert (notes["paged"], notes["share_tested"], notes["untested_pages_text"]) == (False, None, "not paged")
    assert notes["sections"]["origin"] == "markdown"
    assert _untested(notes) == [("Contact", [9, 11], 0)]


def test_unfound_quotes_are_listed_apart_and_missing_documents_are_errors(report: dict[str, Any]) -> None:
    assert [(e["id"], e["document"]) for e in report["items_not_located"]] == [("n-lost", "numbered")]
    assert "not found in numbered.pdf" in report["items_not_located"][0]["reason"]
    assert [(e["id"], e["reference"]) for e in report["errors"]] == [("away", "brochure.pdf")]
    assert report["refusal_items"] == ["refuse"]
    assert report["total"]["pages_with_text"] == 6 + 5 + 2


@pytest.mark.parametrize(
    ("pages", "text"),
    [([], "none"), ([4], "4"), ([3, 4, 5, 6, 7, 12], "3–7, 12"), ([9, 1, 2, 2], "1–2, 9")],
)
def test_pages_are_given_as_compact_ranges(pages: list[int], text: str) -> None:
    assert ranges_text(page_ranges(pages)) == text


@pytest.mark.parametrize(
    ("line", "level"),
    [
        ("1. Definitions", 0),
        ("2.3 Grace period", 1),
        ("4.1.2. Room rent", 2),
        ("Section 4 - General", 0),
        ("GENERAL CONDITIONS", 0),
        ("1. The insurer will pay the claim.", None),  # a sentence
        ("2.1.6. Condition Precedent shall mean a Policy term or", None),  # a wrapped line
        ("2.1.22. In-patient Care (not applicable for Overseas Travel", None),  # a bracket left open
        ("5 Lacs -10 Lacs", None),  # a bare number: a table cell
        ("UIN: ACMHLIP00001V012324", None),  # a code, more digits than letters
        ("Introduction", None),  # mixed case and unnumbered: only an outline makes it a section
    ],
)
def test_the_headings_rule(line: str, level: int | None) -> None:
    assert heading_level(line) == level


# --- the command line -------------------------------------------------------------------------------------


def test_the_command_writes_json_markdown_and_html(
    corpus: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, sources = corpus
    outputs = {"--json": tmp_path / "c.json", "--markdown": tmp_path / "c.md", "--html": tmp_path / "c.html"}
    command = ["gold", "coverage", "--gold", str(gold), "--sources", str(sources), "--no-cache"]
    assert main([*command, *(str(part) for pair in outputs.items() for part in pair)]) == 1  # the error item
    printed = capsys.readouterr().out
    assert "outlined: 33% of 6 pages tested; untested pages 1, 3–4, 6" in printed
    assert "error: item away:" in printed and "not located: n-lost:" in printed
    written = json.loads(outputs["--json"].read_text(encoding="utf-8"))
    assert _document(written, "numbered")["untested_pages_text"] == "1–2, 4"
    assert "| outlined | 33% | 1, 3–4, 6 |" in outputs["--markdown"].read_text(encoding="utf-8")
    page = outputs["--html"].read_text(encoding="utf-8")
    assert "GENERAL CONDITIONS" in page and "<script" not in page
    assert "src=" not in page and "href=" not in page  # self-contained: nothing fetched


@pytest.mark.parametrize(
    ("gold_text", "expected"),
    [
        (None, "no such file"),
        ('{"id": "a", "question": "Q?", "expected_answer": "A"}\n{"id": \n', "line 2"),
    ],
)
def test_a_missing_or_invalid_gold_file_is_refused_with_its_place(
    corpus: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    gold_text: str | None,
    expected: str,
) -> None:
    gold = tmp_path / "gold.jsonl"
    if gold_text is not None:
        gold.write_text(gold_text, encoding="utf-8")
    command = ["gold", "coverage", "--gold", str(gold), "--sources", str(corpus[1]), "--no-cache"]
    assert main(command) == 2
    error = capsys.readouterr().err
    assert str(gold) in error and expected in error.casefold()


def test_an_unreadable_pdf_is_refused_naming_it(
    corpus: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = tmp_path / "sources"
    pdfgen.pages_pdf(sources, "fine.pdf", [["A page."]])
    (sources / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is no PDF at all\n")
    command = ["gold", "coverage", "--gold", str(corpus[0]), "--sources", str(sources), "--no-cache"]
    assert main(command) == 2
    error = capsys.readouterr().err
    assert "broken.pdf" in error and "could not be read" in error


def test_gold_build_reports_coverage_in_json_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "gold"
    report, markdown = tmp_path / "report.json", tmp_path / "report.md"
    command = ["gold", "build", "--facts", str(examples / "facts"), "--sources", str(examples / "sources")]
    command += ["--no-cache", "--out", str(tmp_path / "gold.jsonl"), "--report", str(report)]
    assert main([*command, "--markdown", str(markdown)]) == 0
    capsys.readouterr()
    coverage = json.loads(report.read_text(encoding="utf-8"))["coverage"]
    documents = load_sources(examples / "sources", cache_dir=None)
    assert [d["id"] for d in coverage["documents"]] == list(documents)
    items = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    located = {item for d in coverage["documents"] for item in d["items"]}
    assert located == {item["id"] for item in items if item["source"]}
    assert all(isinstance(d["fields_without_items"], list) for d in coverage["documents"])
    assert "## Coverage" in markdown.read_text(encoding="utf-8")


# --- the shared insurance documents -------------------------------------------------------------------


@pytest.fixture(scope="module")
def insurance_coverage(
    insurance_gold: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`assay gold coverage` of the gold set `assay gold build` made of the shared insurance data."""
    out = tmp_path_factory.mktemp("coverage") / "coverage.json"
    command = ["gold", "coverage", "--gold", str(insurance_gold), "--sources", str(INSURANCE / "pdfs")]
    command += ["--facts", str(INSURANCE / "facts"), "--no-cache", "--json", str(out)]
    assert main(command) == 0
    items = [json.loads(line) for line in insurance_gold.read_text(encoding="utf-8").splitlines()]
    return json.loads(out.read_text(encoding="utf-8")), items


def test_insurance_every_document_is_listed_with_its_untested_pages_and_share(
    insurance_coverage: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    report, _ = insurance_coverage
    pdfs = sorted(
        path.relative_to(INSURANCE / "pdfs").as_posix() for path in (INSURANCE / "pdfs").rglob("*.pdf")
    )
    assert sorted(d["path"] for d in report["documents"]) == pdfs
    for document in report["documents"]:
        assert document["paged"] and 0 <= document["share_tested"] <= 1, document["id"]
        untested = [page for first, last in document["untested_pages"] for page in range(first, last + 1)]
        assert len(untested) == document["pages_with_text"] - document["pages_tested"] > 0, document["id"]
        assert document["untested_pages_text"] == ranges_text(document["untested_pages"])
        assert isinstance(document["fields_without_items"], list)
    assert not report["errors"] and not report["items_not_located"]


def test_insurance_pages_cited_by_items_are_not_untested(
    insurance_coverage: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    report, items = insurance_coverage
    untested = {
        (d["id"], page)
        for d in report["documents"]
        for first, last in d["untested_pages"]
        for page in range(first, last + 1)
    }
    cited = [item for item in items if item["source"]]
    assert len(cited) >= 80
    for item in cited:
        source = item["source"]
        for page in range(source["page"], source["end_page"] + 1):
            assert (source["document"], page) not in untested, item["id"]
    # Every item is accounted for: in its document's items, or a refusal.
    listed = {item for d in report["documents"] for item in d["items"]}
    assert listed == {item["id"] for item in cited}
    assert set(report["refusal_items"]) == {item["id"] for item in items if item["expected_refusal"]}


def test_a_numbered_line_that_fills_the_text_width_is_a_paragraphs_first_line_not_a_heading() -> None:
    """A numbered definition wraps like its paragraph: its first line is as long as the page's lines.
    A numbered heading is shorter. (Headings are told apart by the page's own width, not by words.)"""
    body = "The insured person may claim the expenses named in the schedule of"
    page = "\n".join(
        [
            "3. Benefits Covered",
            "3.1. Hospital Care",
            *[body] * 10,
            "3.2. Portability Transfer Facility Offered To Every Insured Member",  # as long as the lines
            "Continued Without A Break, The Clause Runs On Into The Next Line",
            *[body] * 4,
        ]
    )
    found = [heading.title for heading in text_headings([page])]
    assert found == ["3. Benefits Covered", "3.1. Hospital Care"]


def test_a_page_of_few_lines_keeps_its_headings_whatever_their_length() -> None:
    page = "1. A Heading Wider Than Any Line Of Its Page\nSome Line\nAnother Line"
    assert [heading.title for heading in text_headings([page])] == [page.splitlines()[0]]
