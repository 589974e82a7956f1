"""End to end on real synthetic PDFs: a curator's quote of each layout is found by `find_quote` in the
pages `load_document` extracts, at a pinned level, page and span, by either extractor.

The spans are offsets into the stored page text (the extractor's text with line endings folded), so
each test also checks that the span shows the original characters: pdfium's U+FFFE for a line-end
hyphen, pypdf's "ﬁ", the line breaks inside a column."""

from __future__ import annotations

import pdfgen
import pytest

from assay.documents import Document, load_document
from assay.scorers.grounding.quotes import find_quote

PDFIUM = ("pypdfium2",)
PYPDF = ("pypdf",)
RIGHT_COLUMN_TEXT = "\n".join(pdfgen.RIGHT_COLUMN)
ACROSS_TEXT = f"{pdfgen.ACROSS_FIRST[1]}\n{pdfgen.ACROSS_SECOND[0]}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pdfgen.Built]:
    return pdfgen.build_all(tmp_path_factory.mktemp("pdfs"))


def load(case: pdfgen.Built, extractors: tuple[str, ...]) -> Document:
    return load_document(case.path, root=case.path.parent, cache_dir=None, extractors=extractors)


# (case, extractors) -> (level, page, end_page, span, the original characters the span covers)
PINNED = {
    ("plain", PDFIUM): ("exact", 2, 2, (0, 55), pdfgen.PLAIN_PAGES[1][0]),
    ("plain", PYPDF): ("exact", 2, 2, (0, 55), pdfgen.PLAIN_PAGES[1][0]),
    # the column's lines are separate lines of the text: whitespace folding finds the sentence
    ("two_columns", PDFIUM): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
    ("two_columns", PYPDF): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
    # pdfium writes U+FFFE for "-" + line break; pypdf keeps "-\n": both join to "pre-existing"
    ("hyphenated", PDFIUM): (
        "normalised",
        1,
        1,
        (0, 86),
        "Expenses for any pre\ufffeexisting disease are covered after 36 months\nof continuous cover.",
    ),
    ("hyphenated", PYPDF): (
        "normalised",
        1,
        1,
        (0, 87),
        "Expenses for any pre-\nexisting disease are covered after 36 months\nof continuous cover.",
    ),
    # NFKC folds "ĳ" (both extractors) and "ﬁ" (pypdf only; pdfium already decomposed it)
    ("ligature", PDFIUM): (
        "normalised",
        1,
        1,
        (0, 47),
        "The first benefit is paid at the R\u0133sw\u0133k branch.",
    ),
    ("ligature", PYPDF): (
        "normalised",
        1,
        1,
        (0, 45),
        "The \ufb01rst bene\ufb01t is paid at the R\u0133sw\u0133k branch.",
    ),
    ("table", PDFIUM): ("exact", 1, 1, (42, 71), "ICU charges 2% of sum insured"),
    ("table", PYPDF): ("exact", 1, 1, (42, 71), "ICU charges 2% of sum insured"),
    # starts at offset 27 of page 1, ends at offset 35 of page 2
    ("across_pages", PDFIUM): ("normalised", 1, 2, (27, 35), ACROSS_TEXT),
    ("across_pages", PYPDF): ("normalised", 1, 2, (27, 35), ACROSS_TEXT),
    ("blank_pages", PDFIUM): ("exact", 1, 1, (44, 96), pdfgen.PLAIN_PAGES[0][1]),
    ("aes128", PDFIUM): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
    ("aes128", PYPDF): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
    ("aes256", PDFIUM): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
    ("aes256", PYPDF): ("normalised", 1, 1, (75, 148), RIGHT_COLUMN_TEXT),
}


@pytest.mark.parametrize(("case", "extractors"), sorted(PINNED))
def test_each_layouts_quote_is_found_at_its_pinned_level_page_and_span(
    built: dict[str, pdfgen.Built], case: str, extractors: tuple[str, ...]
) -> None:
    level, page, end_page, span, text = PINNED[case, extractors]
    quote = built[case]
    document = load(quote, extractors)
    found = find_quote(quote.quote, document.pages, fuzzy=False)
    assert found is not None
    assert (found.level, found.page, found.end_page, found.span, found.text) == (
        level,
        page,
        end_page,
        span,
        text,
    )
    assert (found.page, found.end_page) == (quote.page, quote.end_page)  # where the builder wrote it


@pytest.mark.parametrize(("case", "extractors"), sorted(PINNED))
def test_the_span_shows_the_stored_page_text(
    built: dict[str, pdfgen.Built], case: str, extractors: tuple[str, ...]
) -> None:
    document = load(built[case], extractors)
    found = find_quote(built[case].quote, document.pages, fuzzy=False)
    assert found is not None
    start, end = found.span
    if found.page == found.end_page:
        shown = document.pages[found.page - 1][start:end]
    else:
        shown = document.pages[found.page - 1][start:] + "\n" + document.pages[found.end_page - 1][:end]
    assert shown == found.text


def test_text_that_is_only_pixels_is_not_found(built: dict[str, pdfgen.Built]) -> None:
    document = load(built["blank_pages"], PDFIUM)
    assert document.empty_pages == (2, 3)
    assert find_quote(pdfgen.SCANNED_TEXT, document.pages, fuzzy=False) is None


def test_a_quote_of_both_columns_run_together_is_not_found_exactly(built: dict[str, pdfgen.Built]) -> None:
    # a reader's eye goes across the page; the text goes down each column, so no strict level finds it
    across_columns = f"{pdfgen.LEFT_COLUMN[0]} {pdfgen.RIGHT_COLUMN[0]}"
    assert find_quote(across_columns, load(built["two_columns"], PDFIUM).pages, fuzzy=False) is None


@pytest.mark.parametrize("extractors", [PDFIUM, PYPDF])
def test_a_column_run_together_with_its_neighbour_stays_unfound_even_fuzzily(
    built: dict[str, pdfgen.Built], extractors: tuple[str, ...]
) -> None:
    # written across the page line by line, the right column's sentence is split by the left one's
    # words in every extractor's text: the cascade must report it unfound, not guess a span
    case = built["interleaved_columns"]
    document = load(case, extractors)
    assert find_quote(case.quote, document.pages, fuzzy=True) is None
    run_together = f"{pdfgen.LEFT_COLUMN[0]} {pdfgen.RIGHT_COLUMN[0]}"  # what the text holds instead
    found = find_quote(run_together, document.pages, fuzzy=False)
    assert found is not None and (found.level, found.span) == ("exact", (0, len(run_together)))
