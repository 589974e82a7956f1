"""Real synthetic PDFs with known text, for the document and quote tests.

Each builder writes one PDF with fpdf2 into a folder and returns a `Built`: its path, the sentences
written on each page, and the sentence the case is about (the quote a curator would copy), with the
page(s) it is on. The layouts are the ones that break naive quote matching in real policy wordings:
two columns, a word hyphenated across a line break, a ligature, a table, a sentence crossing a page
break, a page with no text layer, and encrypted copies (AES-128, AES-256, a user password).

The ligature case needs a TrueType font with ligature glyphs: DejaVu Sans, which matplotlib ships
(matplotlib is in the test extra). pdfium decomposes the Alphabetic Presentation Forms (U+FB00-FB06,
"ﬁ" comes out as "fi") but keeps U+0133 "ĳ" (LATIN SMALL LIGATURE IJ), so the case writes both: the
pypdfium2 text carries "ĳ", the pypdf text carries "ﬁ" and "ĳ".
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
from fpdf import FPDF
from PIL import Image, ImageDraw
from pypdf import PdfReader, PdfWriter

LIGATURE_FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
OWNER_PASSWORD = "owner-secret"
USER_PASSWORD = "let-me-in"
LINE = 7.0  # mm between baselines: far enough apart that no extractor merges two lines


@dataclass(frozen=True)
class Built:
    path: Path
    pages: tuple[tuple[str, ...], ...]  # the lines (or cells) written on each page, in writing order
    quote: str  # the sentence this case is about, as a curator would copy it (no line breaks)
    page: int  # 1-based page where the quote starts
    end_page: int  # 1-based page where it ends


def _pdf(font: str = "Helvetica") -> FPDF:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_compression(True)
    if font == "DejaVu":
        pdf.add_font("DejaVu", fname=str(LIGATURE_FONT))
    pdf.set_font(font, size=11)
    return pdf


def _lines(pdf: FPDF, lines: Sequence[str], *, x: float = 20.0, y: float = 30.0) -> None:
    """One line of text per baseline, at an exact position (no wrapping the test cannot predict)."""
    for index, line in enumerate(lines):
        pdf.text(x, y + index * LINE, line)


def _write(pdf: FPDF, folder: Path, name: str) -> Path:
    path = folder / name
    pdf.output(str(path))
    return path


def pages_pdf(folder: Path, name: str, pages: Sequence[Sequence[str]]) -> Path:
    """A PDF of these pages, each its lines one per baseline, written as folder/name (folder made)."""
    pdf = _pdf()
    for lines in pages:
        pdf.add_page()
        _lines(pdf, lines)
    folder.mkdir(parents=True, exist_ok=True)
    return _write(pdf, folder, name)


def rows_pdf(folder: Path, name: str, pages: Sequence[Sequence[str | tuple[str, ...]]]) -> Path:
    """A PDF of these pages, written as folder/name: each page a sequence of lines (a str, one per
    baseline) and table rows (a tuple of cells; consecutive rows are one ruled table, as a policy's
    schedule or a price list is set)."""
    pdf = _pdf()
    for items in pages:
        pdf.add_page()
        y, index = 30.0, 0
        while index < len(items):
            item = items[index]
            if isinstance(item, str):
                pdf.text(20.0, y, item)
                y, index = y + LINE, index + 1
                continue
            rows = []
            while index < len(items) and not isinstance(items[index], str):
                rows.append(items[index])
                index += 1
            y = _table(pdf, rows, y) + LINE
    folder.mkdir(parents=True, exist_ok=True)
    return _write(pdf, folder, name)


def _table(pdf: FPDF, rows: Sequence[Sequence[str]], y: float) -> float:
    """A ruled table from y down, its columns sharing 160 mm; where it ends."""
    pdf.set_xy(20.0, y)
    columns = max(len(row) for row in rows)
    widths = tuple(160 / columns for _ in range(columns))
    with pdf.table(col_widths=widths, width=160, align="LEFT", first_row_as_headings=False) as grid:
        for cells in rows:
            row = grid.row()
            for cell in cells:
                row.cell(cell)
    return float(pdf.get_y())


PLAIN_PAGES = (
    ("Section 1. Definitions used in this policy.", "A hospital means an institution for in-patient care."),
    ("Section 2. The grace period for renewal is thirty days.", "Premiums are payable in advance."),
    ("Section 3. Claims must be intimated within 48 hours of admission.",),
)


def plain(folder: Path) -> Built:
    """(1) One column, three pages, one sentence per line."""
    pdf = _pdf()
    for lines in PLAIN_PAGES:
        pdf.add_page()
        _lines(pdf, lines)
    return Built(_write(pdf, folder, "plain.pdf"), PLAIN_PAGES, PLAIN_PAGES[1][0], 2, 2)


LEFT_COLUMN = ("Room rent is covered up to", "one percent of the sum", "insured per day of stay.")
RIGHT_COLUMN = ("Ambulance charges are paid", "up to Rs 2,000 for each", "hospitalisation event.")


def two_columns(folder: Path) -> Built:
    """(2) Two columns side by side: the left one is written first, as a typesetter does."""
    pdf = _pdf()
    pdf.add_page()
    _lines(pdf, LEFT_COLUMN, x=20.0)
    _lines(pdf, RIGHT_COLUMN, x=115.0)
    quote = " ".join(RIGHT_COLUMN)
    return Built(_write(pdf, folder, "two-columns.pdf"), (LEFT_COLUMN + RIGHT_COLUMN,), quote, 1, 1)


def interleaved_columns(folder: Path) -> Built:
    """(2b) The same two columns written line by line across the page, as some producers do: every
    extractor then runs the columns together, and the right column's sentence is not in the text."""
    pdf = _pdf()
    pdf.add_page()
    for index, (left, right) in enumerate(zip(LEFT_COLUMN, RIGHT_COLUMN)):
        _lines(pdf, (left,), y=30.0 + index * LINE)
        _lines(pdf, (right,), x=115.0, y=30.0 + index * LINE)
    written = tuple(line for pair in zip(LEFT_COLUMN, RIGHT_COLUMN) for line in pair)
    return Built(_write(pdf, folder, "interleaved-columns.pdf"), (written,), " ".join(RIGHT_COLUMN), 1, 1)


HYPHENATED_LINES = (
    "Expenses for any pre-",
    "existing disease are covered after 36 months",
    "of continuous cover.",
)


def hyphenated(folder: Path) -> Built:
    """(3) "pre-" ends a line and "existing" starts the next: the quote writes "pre-existing"."""
    pdf = _pdf()
    pdf.add_page()
    _lines(pdf, HYPHENATED_LINES)
    quote = "Expenses for any pre-existing disease are covered after 36 months of continuous cover."
    return Built(_write(pdf, folder, "hyphenated.pdf"), (HYPHENATED_LINES,), quote, 1, 1)


LIGATURE_LINES = ("The \ufb01rst bene\ufb01t is paid at the Rĳswĳk branch.", "Other branches pay later.")
LIGATURE_QUOTE = "The first benefit is paid at the Rijswijk branch."


def ligature(folder: Path) -> Built:
    """(4) Ligature code points in the text layer: "ﬁ" (U+FB01) and "ĳ" (U+0133)."""
    pdf = _pdf("DejaVu")
    pdf.add_page()
    _lines(pdf, LIGATURE_LINES)
    return Built(_write(pdf, folder, "ligature.pdf"), (LIGATURE_LINES,), LIGATURE_QUOTE, 1, 1)


TABLE_ROWS = (
    ("Benefit", "Limit"),
    ("Room rent", "1% of sum insured"),
    ("ICU charges", "2% of sum insured"),
    ("Ambulance", "Rs 2,000 per event"),
)


def table(folder: Path) -> Built:
    """(5) A ruled table: cells in a grid, one row per line."""
    pdf = _pdf()
    pdf.add_page()
    pdf.set_xy(20.0, 30.0)
    with pdf.table(col_widths=(60, 80), width=140, align="LEFT", first_row_as_headings=False) as grid:
        for cells in TABLE_ROWS:
            row = grid.row()
            for cell in cells:
                row.cell(cell)
    written = tuple(cell for cells in TABLE_ROWS for cell in cells)
    return Built(_write(pdf, folder, "table.pdf"), (written,), "ICU charges 2% of sum insured", 1, 1)


ACROSS_FIRST = ("Section 4. Emergency care.", "The insurer pays the reasonable and customary")
ACROSS_SECOND = ("charges for an emergency ambulance.", "Section 5. Exclusions.")


def across_pages(folder: Path) -> Built:
    """(6) A sentence starting on the last line of page 1 and ending on the first line of page 2."""
    pdf = _pdf()
    pdf.add_page()
    _lines(pdf, ACROSS_FIRST, y=260.0)
    pdf.add_page()
    _lines(pdf, ACROSS_SECOND)
    quote = f"{ACROSS_FIRST[1]} {ACROSS_SECOND[0]}"
    return Built(_write(pdf, folder, "across-pages.pdf"), (ACROSS_FIRST, ACROSS_SECOND), quote, 1, 2)


SCANNED_TEXT = "This page is a scan: its words are pixels."


def _scan_image() -> io.BytesIO:
    image = Image.new("L", (600, 120), 255)
    ImageDraw.Draw(image).text((10, 50), SCANNED_TEXT, fill=0)
    png = io.BytesIO()
    image.save(png, format="PNG")
    png.seek(0)
    return png


def blank_pages(folder: Path) -> Built:
    """(7) Page 1 has text, page 2 is only an image (a scan without OCR), page 3 is blank."""
    pdf = _pdf()
    pdf.add_page()
    _lines(pdf, PLAIN_PAGES[0])
    pdf.add_page()
    pdf.image(_scan_image(), x=20, y=30, w=150)
    pdf.add_page()
    built = Built(_write(pdf, folder, "blank-pages.pdf"), (PLAIN_PAGES[0], (), ()), PLAIN_PAGES[0][1], 1, 1)
    return built


def encrypted(source: Built, algorithm: str, folder: Path, *, user_password: str = "") -> Built:
    """(8) A copy of `source` encrypted with `algorithm` ("AES-128", "AES-256", "RC4-128"): with an
    empty user password any reader opens it, as the real care-health wording does."""
    writer = PdfWriter(clone_from=PdfReader(source.path))
    writer.encrypt(user_password=user_password, owner_password=OWNER_PASSWORD, algorithm=algorithm)
    kind = "locked" if user_password else algorithm.lower()
    path = folder / f"{source.path.stem}.{kind}.pdf"
    with path.open("wb") as out:
        writer.write(out)
    return Built(path, source.pages, source.quote, source.page, source.end_page)


def password_protected(source: Built, folder: Path) -> Built:
    """A copy that needs a user password: no extractor can read it without one."""
    return encrypted(source, "AES-256", folder, user_password=USER_PASSWORD)


def truncated(source: Built, folder: Path) -> Path:
    """The first half of `source`'s bytes: a download cut short (no cross-reference table, no end)."""
    data = source.path.read_bytes()
    path = folder / f"{source.path.stem}.truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    return path


def junk_prefixed(source: Built, folder: Path) -> Built:
    """`source` behind 2,000 bytes of junk (a saved HTTP response, a mail gateway's banner): pdfium
    looks for the header only in the first 1,024 bytes and rejects the file; pypdf finds its objects."""
    path = folder / f"{source.path.stem}.junk.pdf"
    path.write_bytes(b"\0" * 2000 + source.path.read_bytes())
    return Built(path, source.pages, source.quote, source.page, source.end_page)


CASES: dict[str, Callable[[Path], Built]] = {
    "plain": plain,
    "two_columns": two_columns,
    "interleaved_columns": interleaved_columns,
    "hyphenated": hyphenated,
    "ligature": ligature,
    "table": table,
    "across_pages": across_pages,
    "blank_pages": blank_pages,
}


def build_all(folder: Path) -> dict[str, Built]:
    """Every case, plus AES-128 and AES-256 copies of the two-column case, in `folder`."""
    built = {name: make(folder) for name, make in CASES.items()}
    built["aes128"] = encrypted(built["two_columns"], "AES-128", folder)
    built["aes256"] = encrypted(built["two_columns"], "AES-256", folder)
    return built
