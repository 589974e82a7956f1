"""The citations a reply writes in its text: the three forms, page ranges, numbers that are not citations,
numbers with no context, and scripts other than Latin."""

from __future__ import annotations

import pytest

from assay.harness.systems.citations import MAX_RANGE, citation_of_text, citations_in_text
from assay.parts import Citation, Context

CONTEXTS = (Context("wordings", 3, 100, 180, "the grace period is 30 days"), Context("prospectus", 5))
FIRST = Citation("wordings", 3, 100, 180)
SECOND = Citation("prospectus", 5)
POLICY = "hdfc-ergo__my-optima-secure__wordings"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"The grace period is 30 days [Source: {POLICY}, p.13].", [Citation(POLICY, 13)]),
        (f"[Source: {POLICY}, p. 13]", [Citation(POLICY, 13)]),
        (f"[Source: {POLICY} p.13]", [Citation(POLICY, 13)]),
        (f"[source: {POLICY}, page 13]", [Citation(POLICY, 13)]),
        (f"[Source: {POLICY}, Page: 13]", [Citation(POLICY, 13)]),
        (f"[Source: {POLICY}, pg. 13]", [Citation(POLICY, 13)]),
        (f"(Source: {POLICY}, p.13)", [Citation(POLICY, 13)]),
        (f"[Source: {POLICY}]", [Citation(POLICY)]),
        ("[Source: HDFC ERGO, Optima, pp. 13-14]", [Citation("HDFC ERGO, Optima", p) for p in (13, 14)]),
        ("[Source: doc, pp. 13\u201314]", [Citation("doc", 13), Citation("doc", 14)]),  # an en dash
        ("[Source: doc, pp. 14-13]", [Citation("doc", 13), Citation("doc", 14)]),
        ("[Source: doc, pages 3, 5 and 7]", [Citation("doc", 3), Citation("doc", 5), Citation("doc", 7)]),
        ("[Source: doc (Wordings), p.2]", [Citation("doc (Wordings)", 2)]),
        ("[Source: doc, p.13, p.14]", [Citation("doc", 13), Citation("doc", 14)]),
        ("[Source: doc, Section 4.2, p.13]", [Citation("doc", 13)]),
        ("[Source: doc, Clause 5(b), Table 2, page 7]", [Citation("doc", 7)]),
        ("[Source: doc, §4]", [Citation("doc")]),
        ("[Source: Optima Part A, p.1]", [Citation("Optima Part A", 1)]),  # no comma: part of the name
        ("[Source: p.3]", [Citation("", 3)]),  # a page of no document: grounding fails it
        ("[Sources: a, p.1; b, p.2]", [Citation("a", 1), Citation("b", 2)]),
        ("[Source: a, p.1] and again [Source: a, p.1]", [Citation("a", 1)]),  # each citation once
        ("[Ref: a, p.4]", [Citation("a", 4)]),
        ("[Source: 2]", [SECOND]),  # a context by its number
        ("[Source 1]", [FIRST]),
        (f"[Source: doc, pp. 1-{MAX_RANGE + 1}]", [Citation("doc")]),  # too wide to be a page citation
    ],
)
def test_source_brackets_are_read_with_their_pages(text: str, expected: list[Citation]) -> None:
    assert list(citations_in_text(text, CONTEXTS)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The grace period is 30 days [1].", [FIRST]),
        ("30 days[1]", [FIRST]),  # right after a word, as models write it
        ("[1][2]", [FIRST, SECOND]),
        ("[1, 2]", [FIRST, SECOND]),
        ("[1,2]", [FIRST, SECOND]),
        ("[1-2]", [FIRST, SECOND]),
        ("[2] then [1]", [SECOND, FIRST]),  # in the order written
        ("[^1]", [FIRST]),
        ("[3]", [Citation("[3]")]),  # no third context: kept, so grounding fails it
        ("[0]", [Citation("[0]")]),  # 1-based
        ("[1] [7]", [FIRST, Citation("[7]")]),
    ],
)
def test_numbers_are_the_contexts_they_count(text: str, expected: list[Citation]) -> None:
    assert list(citations_in_text(text, CONTEXTS)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The sum insured is [1,000] rupees",
        "a cover of [1,50,000]",  # Indian grouping
        "[12,345]",
        "in [2024] the policy changed",  # four digits: a year, not a citation
        "a ratio of [1.5]",
        "at [10:30] the office opens",  # a time is not doc:chunk
        "see [http://example.com/x]",
        "[]",
        "[ ]",
        "no brackets at all, 30 days",
        "[Sources and methods]",  # a label with no colon and no number
    ],
)
def test_the_texts_own_numbers_and_brackets_are_not_citations(text: str) -> None:
    assert citations_in_text(text, CONTEXTS) == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[wordings:12]", [Citation("wordings")]),  # a chunk id: the document, no page
        ("[wordings:p3]", [Citation("wordings", 3)]),
        ("[wordings:page-3]", [Citation("wordings", 3)]),
        (f"[{POLICY}:chunk_7]", [Citation(POLICY)]),
        ("[doc.pdf:p.4]", [Citation("doc.pdf", 4)]),
    ],
)
def test_doc_chunk_names_the_document_and_a_page_when_it_is_one(text: str, expected: list[Citation]) -> None:
    assert list(citations_in_text(text, CONTEXTS)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[स्रोत: नीति, पृष्ठ ३]", [Citation("नीति", 3)]),  # Devanagari digits, a Hindi label
        ("अवधि ३० दिन है [२]", [SECOND]),
        ("[Source: हिन्दी-नीति, p.4]", [Citation("हिन्दी-नीति", 4)]),
        ("[நிபந்தனை:p2]", [Citation("நிபந்தனை", 2)]),  # a Tamil document id, its vowel signs kept
        ("[Source：doc, p.2]", [Citation("doc", 2)]),  # a full-width colon
    ],
)
def test_other_scripts_are_read_whole(text: str, expected: list[Citation]) -> None:
    assert list(citations_in_text(text, CONTEXTS)) == expected


def test_without_contexts_every_number_is_unresolved() -> None:
    assert citations_in_text("[1] and [2]") == (Citation("[1]"), Citation("[2]"))


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("doc p.3", [Citation("doc", 3)]),
        ("doc, page 3", [Citation("doc", 3)]),
        ("[Source: doc, p.3]", [Citation("doc", 3)]),
        ("doc", [Citation("doc")]),
        ("2", [SECOND]),
        ("wordings:p13", [Citation("wordings", 13)]),  # doc:chunk without its brackets
        ("Source: wordings, p.4", [Citation("wordings", 4)]),
        ("HDFC ERGO: Optima, p.2", [Citation("HDFC ERGO: Optima", 2)]),  # a colon in a name with spaces
        ("[1]", [FIRST]),
        ("HDFC ERGO, My Optima Secure", [Citation("HDFC ERGO, My Optima Secure")]),
    ],
)
def test_a_citation_string_given_apart_is_one_source(given: str, expected: list[Citation]) -> None:
    assert list(citation_of_text(given, CONTEXTS)) == expected
