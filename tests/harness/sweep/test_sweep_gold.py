"""A gold set's quote spans as sweep questions (harness/sweep/gold_spans.py), over real PDFs made here:
page offsets become offsets in the joined text, every row is accounted for, and a gold set that does
not belong to the sources (a changed file, a missing document, a span past the page) is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pdfgen import pages_pdf

from assay.documents import load_sources
from assay.errors import InputError
from assay.harness.sweep.gold_spans import PAGE_SEPARATOR, load_gold_spans, read_gold_spans

PAGES = (
    ("Section 1. Definitions used in this policy.", "A hospital means an institution for in-patient care."),
    ("Section 2. The grace period for renewal is thirty days.", "Premiums are payable in advance."),
    ("Section 3. Claims must be intimated within 48 hours of admission.",),
)


@pytest.fixture()
def sources(tmp_path: Path) -> Path:
    folder = tmp_path / "pdfs"
    pages_pdf(folder / "acme", "policy.pdf", PAGES)
    pages_pdf(folder / "acme", "brochure.pdf", [("Our brochure says little of use.",)])
    return folder


def page_texts(sources: Path) -> tuple[str, ...]:
    return load_sources(sources, cache_dir=None)["acme__policy"].pages


def item(
    sources: Path, item_id: str, quote: str, page: int, end_page: int | None = None, **more: Any
) -> dict[str, Any]:
    """A gold item whose quote span is found in the extracted text (a cross-page quote: its first line
    ends page `page`, the rest starts `end_page`)."""
    pages = page_texts(sources)
    end_page = end_page or page
    head, _, tail = quote.partition(" / ")
    start = pages[page - 1].index(head)
    end = pages[end_page - 1].index(tail) + len(tail) if tail else start + len(head)
    path = sources / "acme" / "policy.pdf"
    source = {
        "document": "acme__policy", "path": "acme/policy.pdf", "page": page, "end_page": end_page,
        "span": [start, end], "quote": quote, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }  # fmt: skip
    row = {"id": item_id, "question": f"question {item_id}?", "expected_answer": "x", "scope": "acme__policy",
           "category": "coverage", "expected_refusal": False, "source": source}  # fmt: skip
    return {**row, **more}


def write_gold(folder: Path, rows: list[dict[str, Any]]) -> Path:
    path = folder / "gold.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_page_offsets_become_offsets_in_the_joined_text(sources: Path, tmp_path: Path) -> None:
    rows = [
        item(sources, "grace", "grace period for renewal is thirty days", 2),
        item(sources, "claims", "intimated within 48 hours", 3),
        item(sources, "across", "payable in advance. / Section 3. Claims", 2, 3),
    ]
    spans = load_gold_spans(write_gold(tmp_path, rows), sources, cache_dir=None)
    texts = {document.name: document.text for document in spans.documents}
    pages = page_texts(sources)
    assert texts["acme__policy"] == PAGE_SEPARATOR.join(pages)
    found = {question.id: question.spans[0] for question in spans.questions}
    quoted = {name: texts[span.document][span.start : span.end] for name, span in found.items()}
    assert quoted["grace"] == "grace period for renewal is thirty days"
    assert quoted["claims"] == "intimated within 48 hours"
    assert quoted["across"].startswith("payable in advance.") and quoted["across"].endswith(
        "Section 3. Claims"
    )
    assert PAGE_SEPARATOR in quoted["across"]


def test_every_document_of_the_folder_is_indexable_and_hashed(sources: Path, tmp_path: Path) -> None:
    gold = write_gold(tmp_path, [item(sources, "grace", "thirty days", 2)])
    spans = load_gold_spans(gold, sources, cache_dir=None)
    assert sorted(document.name for document in spans.documents) == ["acme__brochure", "acme__policy"]
    assert set(spans.sha256) == {"gold.jsonl", "acme/policy.pdf", "acme/brochure.pdf"}
    assert spans.sha256["gold.jsonl"] == hashlib.sha256(gold.read_bytes()).hexdigest()


def test_corpus_is_the_scope_and_category_the_gold_category(sources: Path, tmp_path: Path) -> None:
    rows = [item(sources, "a", "thirty days", 2, scope="acme-policies", category="renewal"),
            item(sources, "b", "thirty days", 2, scope="")]  # fmt: skip
    questions = {
        q.id: q for q in load_gold_spans(write_gold(tmp_path, rows), sources, cache_dir=None).questions
    }
    assert (questions["a"].corpus, questions["a"].category) == ("acme-policies", "renewal")
    assert questions["b"].corpus == "acme__policy"  # no scope: the source document
    assert questions["a"].question == "question a?"


def test_refusals_and_items_without_a_span_are_skipped_and_counted(sources: Path, tmp_path: Path) -> None:
    unfound = item(sources, "unfound", "thirty days", 2)
    unfound["source"] = {**unfound["source"], "span": None, "page": None, "end_page": None}
    rows = [
        item(sources, "kept", "thirty days", 2),
        {"id": "decline", "question": "Which hospitals are in Pune?", "expected_answer": "not stated",
         "category": "refusal", "expected_refusal": True, "source": None},
        unfound,
        {"id": "bare", "question": "No source at all?", "expected_answer": "x", "expected_refusal": False},
    ]  # fmt: skip
    found = read_gold_spans(write_gold(tmp_path, rows), sources, cache_dir=None)
    assert [question.id for question in found.spans.questions] == ["kept"]
    assert found.accounting() == {
        "rows": 4,
        "questions": 1,
        "skipped": {"refusal": ["decline"], "no_quote_span": ["unfound", "bare"]},
    }


def test_a_gold_set_with_nothing_answerable_is_an_error(sources: Path, tmp_path: Path) -> None:
    rows = [
        {
            "id": "decline",
            "question": "q?",
            "expected_answer": "no",
            "expected_refusal": True,
            "category": "refusal",
        }
    ]
    with pytest.raises(InputError, match="no answerable item with a quote span among its 1 items"):
        load_gold_spans(write_gold(tmp_path, rows), sources, cache_dir=None)


def test_a_changed_source_file_is_refused(sources: Path, tmp_path: Path) -> None:
    gold = write_gold(tmp_path, [item(sources, "grace", "thirty days", 2)])
    pages_pdf(sources / "acme", "policy.pdf", [PAGES[1], PAGES[0], PAGES[2]])  # the same words, moved
    with pytest.raises(InputError, match="has changed since the gold set was built") as raised:
        load_gold_spans(gold, sources, cache_dir=None)
    assert "line 1 (item grace)" in raised.value.message and "assay gold build" in raised.value.message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"document": "acme__gone", "path": "acme/gone.pdf"}, "'acme__gone' is not in the sources folder"),
        ({"page": 9, "end_page": 9}, "page 9, and acme/policy.pdf has 3 pages"),
        ({"span": [0, 5000]}, "end 5000 on page 2, which has"),
        ({"span": [-1, 5]}, "start -1 on page 2"),
        ({"span": [7, 7]}, "holds no characters"),
    ],
)
def test_a_span_that_does_not_fit_the_sources_is_refused(
    sources: Path, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    row = item(sources, "grace", "thirty days", 2)
    row["source"] = {**row["source"], **change}
    with pytest.raises(InputError, match=r"falls outside|not in the sources") as raised:
        load_gold_spans(write_gold(tmp_path, [row]), sources, cache_dir=None)
    assert message in raised.value.message
