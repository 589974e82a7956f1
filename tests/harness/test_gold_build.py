"""Gold builds: claims verified in their documents, cross-document facts flagged, items with safe patterns.

Two corpora: a synthetic one written into tmp_path (text sources, known pages and spans, facts in both
layouts), so every status and check is pinned without the shared folder; and the real insurance facts and
PDFs in ../shared/data/insurance (skipped locally without them, a failure under CI=true).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main
from assay.documents import load_sources
from assay.errors import InputError, UsageError
from assay.harness.claims import Verification, VerifyOptions, has_errors, tally, verify_claims
from assay.harness.facts import load_facts
from assay.harness.gold import GoldBuild, build_gold, gold_jsonl, gold_report
from assay.harness.templates import Templates, parse_templates
from assay.scorers.hard_fact import HARD_FACT
from assay.values import near_misses, typed_value
from conftest import skip_or_fail

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance"
EXAMPLE_TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"

# --- the synthetic corpus ----------------------------------------------------------------------------

ALPHA_PAGES = [
    "Acme Alpha Plan policy wording. UIN: ACMHLIP00001V012324.\n"
    "The Grace Period of 30 days applies to renewals.",
    "Waiting period: expenses within 30 days from the first policy\ncommencement date are excluded.\n"
    "AYUSH treatment is covered up to the sum insured.",
    "Co-payment of 20% applies on every claim.\nPre-hospitalisation expenses are covered for 60 days.",
]
BETA_TEXT = "Acme Beta Plan. The free look period is fifteen days from receipt of the policy."
# Page 2 has no text: a scanned page, which needs OCR.
DELTA_PAGES = ["Delta wording. Ambulance charges are covered up to the sum insured.", "", "Delta, the end."]
EPSILON_TEXT = "Epsilon wording. Ambulance charges are covered up to Rs 2,000. The grace period is 30 days."


def _claim(field: str, value: Any, quote: str | None = None, **more: Any) -> dict[str, Any]:
    source = {"path": more.pop("path", "acme/alpha.txt"), "quote": quote} if quote is not None else {}
    if "url" in more:
        source = {"url": more.pop("url")}
    return {"field": field, "value": value, "source": source, **more}


ALPHA_CLAIMS = [
    _claim("uin_code", "ACMHLIP00001V012324", "UIN: ACMHLIP00001V012324"),
    _claim("grace_period", 30, "The Grace Period of 30 days", unit="days", confidence="high"),
    _claim(
        "initial_waiting_period_days", 30, "expenses within 30 days from the first policy commencement date"
    ),
    _claim("ayush_coverage", True, "AYUSH treatment is covered (wordings p.2)", confidence="low"),
    _claim("co_payment_pct", 25, "Co-payment of 20% applies on every claim", unit="%"),
    _claim(
        "pre_hospitalization_days", 60, "Pre-hospitalisation expenses are covered for 60 days", unit="months"
    ),
    _claim("maternity_waiting_months", None, "not stated in alpha.txt"),
    _claim("network_hospital_count", 5000, url="https://example.com/network"),
    _claim("deductible_amount", 10000, "A deductible of Rs 10,000 applies to every claim"),
    _claim(
        "min_entry_age", 18, "The minimum entry age is 18 years", unit="years", path="acme/alpha-brochure.pdf"
    ),
    _claim("free_look_period", 15, "The free look period is fifteen days", unit="days"),
]


def write_corpus(root: Path) -> tuple[Path, Path]:
    """A facts folder and a sources folder: alpha (default schema), beta (flat, owns beta.txt), gamma (flat,
    no document of its own, names beta.txt as its primary source), delta (default schema, its id is not a
    document's, but it names delta.txt as its own), epsilon (flat, no top-level source: its claims cite
    epsilon-wordings.txt, which no one owns by id, beta.txt, and a PDF that cannot be read), zeta (default
    schema, no sources named: it owns zeta__wordings.txt, whose id is its id and a part's name)."""
    facts, sources = root / "facts", root / "sources"
    (sources / "acme").mkdir(parents=True)
    facts.mkdir()
    (sources / "acme" / "alpha.txt").write_text("\f".join(ALPHA_PAGES), encoding="utf-8")
    (sources / "acme" / "beta.txt").write_text(BETA_TEXT, encoding="utf-8")
    (sources / "acme" / "delta.txt").write_text("\f".join(DELTA_PAGES), encoding="utf-8")
    (sources / "acme" / "epsilon-wordings.txt").write_text(EPSILON_TEXT, encoding="utf-8")
    (sources / "acme" / "broken.pdf").write_bytes(b"%PDF-1.7 not really")
    (sources / "acme" / "zeta__wordings.txt").write_text(
        "Zeta. Ambulance charges are covered.", encoding="utf-8"
    )
    alpha = {"document": "acme__alpha", "title": "Acme Alpha", "claims": ALPHA_CLAIMS}
    beta = {
        "policy_id": "acme__beta",
        "policy_name": "Acme Beta",
        "source_pdf_path": "corpus/acme/beta.txt",
        "free_look_period": {
            "value": 15,
            "unit": "days",
            "source_quote": "The free look period is fifteen days",
        },
    }
    gamma = {
        "policy_id": "acme__gamma",
        "policy_name": "Acme Gamma",
        "_meta": {"primary_source_pdf": "corpus/acme/beta.txt"},
        "free_look_period": {
            "value": 15,
            "unit": "days",
            "source_pdf_path": "corpus/acme/beta.txt",
            "source_quote": "The free look period is fifteen days",
            "_confidence": "high",
            "extraction_method": "by hand",
        },
    }
    delta = {
        "document": "acme__delta-facts",
        "title": "Acme Delta",
        "sources": ["acme/delta.txt"],
        "claims": [
            _claim("ambulance_cover", True, "Ambulance charges are covered", path="acme/delta.txt"),
            _claim("deductible_amount", 5000, "A deductible of Rs 5,000 applies", path="acme/delta.txt"),
        ],
    }
    epsilon = {
        "policy_id": "acme__epsilon",
        "policy_name": "Acme Epsilon",
        "ambulance_cover": {
            "value": True,
            "source_pdf_path": "corpus/acme/epsilon-wordings.txt",
            "source_quote": "Ambulance charges are covered up to Rs 2,000",
        },
        "grace_period": {  # cites beta's document, but the quote is in epsilon's own: found there
            "value": 30,
            "unit": "days",
            "source_pdf_path": "corpus/acme/beta.txt",
            "source_quote": "The grace period is 30 days",
        },
        "min_entry_age": {
            "value": 18,
            "unit": "years",
            "source_pdf_path": "corpus/acme/broken.pdf",
            "source_quote": "The minimum entry age is 18 years",
        },
    }
    zeta = {
        "document": "acme__zeta",
        "title": "Acme Zeta",
        "claims": [_claim("ambulance_cover", True, "Ambulance", path=None)],
    }
    files = {"alpha": alpha, "beta": beta, "gamma": gamma, "delta": delta, "epsilon": epsilon, "zeta": zeta}
    for name, data in files.items():
        (facts / f"{name}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return facts, sources


TEMPLATES = {
    "fields": {
        "uin_code": {"questions": ["What is the UIN of {title}?"], "answer_type": "text"},
        "grace_period": {
            "questions": [
                "What is the grace period of {title}?",
                "How long is the grace period under {title}?",
            ],
            "answer_type": "number_unit",
            "unit": "day",
            "category": "renewal",
        },
        "initial_waiting_period_days": {
            "questions": ["What is the initial waiting period of {title}?"],
            "answer_type": "number_unit",
            "unit": "day",
        },
        "ayush_coverage": {
            "questions": ["Does {title} cover AYUSH?"],
            "answer_type": "bool",
            "yes": "Yes, AYUSH is covered",
            "no": "No, AYUSH is not covered",
        },
        "co_payment_pct": {"questions": ["What is the co-payment under {title}?"], "answer_type": "percent"},
        "free_look_period": {
            "questions": ["What is the free look period of {title}?"],
            "answer_type": "number_unit",
            "unit": "day",
        },
        "ambulance_cover": {"questions": ["Does {title} cover ambulances?"], "answer_type": "bool"},
    },
    "refusals": [{"question": "What premium does {title} cost?", "answer": "Not stated."}],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def templates() -> Templates:
    return parse_templates(TEMPLATES, where="templates.toml")


@pytest.fixture(scope="module")
def verification(corpus: tuple[Path, Path], templates: Templates) -> Verification:
    facts, sources = corpus
    return verify_claims(load_facts(facts), load_sources(sources, cache_dir=None), templates=templates)


def _verdict(verification: Verification, document: str, field: str) -> Any:
    (found,) = [v for v in verification.verdicts if v.claim.document == document and v.claim.field == field]
    return found


@pytest.mark.parametrize(
    ("document", "field", "status", "found_in"),
    [
        ("acme__alpha", "uin_code", "found", "acme__alpha"),
        ("acme__alpha", "grace_period", "found", "acme__alpha"),
        ("acme__alpha", "initial_waiting_period_days", "found", "acme__alpha"),  # across a line break
        ("acme__alpha", "ayush_coverage", "found", "acme__alpha"),
        ("acme__alpha", "maternity_waiting_months", "sentinel", None),
        ("acme__alpha", "network_hospital_count", "url", None),
        ("acme__alpha", "deductible_amount", "missing", None),
        ("acme__alpha", "min_entry_age", "source_missing", None),
        ("acme__alpha", "free_look_period", "other_document", "acme__beta"),  # cites alpha, is in beta
        ("acme__beta", "free_look_period", "found", "acme__beta"),
        ("acme__gamma", "free_look_period", "other_document", "acme__beta"),
        ("acme__delta-facts", "ambulance_cover", "found", "acme__delta"),  # named as its own
        ("acme__delta-facts", "deductible_amount", "missing", None),
        ("acme__epsilon", "ambulance_cover", "found", "acme__epsilon-wordings"),  # cited, owned by no one
        ("acme__epsilon", "grace_period", "found", "acme__epsilon-wordings"),  # own before the cited
        ("acme__epsilon", "min_entry_age", "source_missing", None),  # the cited PDF is unreadable
        ("acme__zeta", "ambulance_cover", "found", "acme__zeta__wordings"),  # a part of its document
    ],
)
def test_each_claim_gets_its_status(
    verification: Verification, document: str, field: str, status: str, found_in: str | None
) -> None:
    verdict = _verdict(verification, document, field)
    assert (verdict.status, verdict.document) == (status, found_in)


def test_an_exact_quote_has_its_page_and_span_in_the_extracted_text(verification: Verification) -> None:
    match = _verdict(verification, "acme__alpha", "grace_period").match
    start = ALPHA_PAGES[0].index("The Grace Period of 30 days")
    assert (match.level, match.page, match.end_page, match.span) == ("exact", 1, 1, (start, start + 27))


def test_a_trailing_curator_note_is_stripped_and_reported(verification: Verification) -> None:
    verdict = _verdict(verification, "acme__alpha", "ayush_coverage")
    assert verdict.quote == "AYUSH treatment is covered"
    assert verdict.note is not None and "p.2" in verdict.note


def test_a_file_without_a_document_of_its_own_is_flagged_cross_document(verification: Verification) -> None:
    (flag,) = verification.flags
    assert (flag.facts_file, flag.code, flag.documents) == ("gamma.json", "cross_document", ("acme__beta",))
    assert "beta.json" in flag.message  # names the facts file that owns the document


def test_own_documents_follow_the_rule(verification: Verification) -> None:
    # gamma names beta.txt as its primary source, but beta.json owns it by id: gamma owns nothing.
    assert dict(verification.own) == {
        "alpha.json": ("acme__alpha",),
        "beta.json": ("acme__beta",),
        "delta.json": ("acme__delta",),
        "epsilon.json": ("acme__epsilon-wordings",),
        "zeta.json": ("acme__zeta__wordings",),
        "gamma.json": (),
    }


@pytest.mark.parametrize(
    ("field", "codes"),
    [
        ("co_payment_pct", ["value_not_in_quote"]),  # 25 claimed, the quote says 20%
        # 60 months claimed where the quote says 60 days, and the field name says days: both, though the
        # template file has no template for the field (the check types the value by itself)
        ("pre_hospitalization_days", ["value_not_in_quote", "unit_mismatch"]),
        ("ayush_coverage", ["low_confidence"]),
        ("grace_period", []),
        ("initial_waiting_period_days", []),
    ],
)
def test_consistency_checks_warn(verification: Verification, field: str, codes: list[str]) -> None:
    assert [check.code for check in _verdict(verification, "acme__alpha", field).warnings] == codes


def test_a_consistent_claim_found_in_another_document_has_no_warning(verification: Verification) -> None:
    assert _verdict(verification, "acme__gamma", "free_look_period").warnings == ()


@pytest.fixture(scope="module")
def build(verification: Verification, templates: Templates) -> GoldBuild:
    return build_gold(verification, templates, refusals=True)


def test_items_are_made_per_found_claim_and_question_variant(build: GoldBuild) -> None:
    made = sorted((item["scope"], item["field"] or "", item["question"]) for item in build.items)
    assert made == [
        ("acme__alpha", "", "What premium does Acme Alpha cost?"),
        ("acme__alpha", "ayush_coverage", "Does Acme Alpha cover AYUSH?"),
        ("acme__alpha", "co_payment_pct", "What is the co-payment under Acme Alpha?"),
        ("acme__alpha", "grace_period", "How long is the grace period under Acme Alpha?"),
        ("acme__alpha", "grace_period", "What is the grace period of Acme Alpha?"),
        ("acme__alpha", "initial_waiting_period_days", "What is the initial waiting period of Acme Alpha?"),
        ("acme__alpha", "uin_code", "What is the UIN of Acme Alpha?"),
        ("acme__beta", "", "What premium does Acme Beta cost?"),
        ("acme__beta", "free_look_period", "What is the free look period of Acme Beta?"),
        ("acme__delta-facts", "", "What premium does Acme Delta cost?"),
        ("acme__delta-facts", "ambulance_cover", "Does Acme Delta cover ambulances?"),
        ("acme__epsilon", "", "What premium does Acme Epsilon cost?"),
        ("acme__epsilon", "ambulance_cover", "Does Acme Epsilon cover ambulances?"),
        ("acme__epsilon", "grace_period", "How long is the grace period under Acme Epsilon?"),
        ("acme__epsilon", "grace_period", "What is the grace period of Acme Epsilon?"),
        ("acme__zeta", "", "What premium does Acme Zeta cost?"),
        ("acme__zeta", "ambulance_cover", "Does Acme Zeta cover ambulances?"),
    ]


def test_an_item_carries_its_typed_value_answer_and_source(build: GoldBuild) -> None:
    (item,) = [
        i
        for i in build.items
        if (i["scope"], i["field"]) == ("acme__alpha", "grace_period") and i["question"].startswith("What")
    ]
    assert item["expected_value"] == {"value": 30, "unit": "day"}
    assert item["answer_type"] == "number_unit" and item["category"] == "renewal"
    assert item["expected_refusal"] is False
    source = item["source"]
    assert (source["document"], source["path"], source["page"], source["match_level"]) == (
        "acme__alpha",
        "acme/alpha.txt",
        1,
        "exact",
    )
    assert source["quote"] == "The Grace Period of 30 days" and len(source["sha256"]) == 64


def test_refusal_items_have_no_source_value_or_pattern(build: GoldBuild) -> None:
    refusals = [item for item in build.items if item["expected_refusal"]]
    assert {item["scope"] for item in refusals} == {
        "acme__alpha",
        "acme__beta",
        "acme__delta-facts",
        "acme__epsilon",
        "acme__zeta",
    }
    for item in refusals:
        assert (item["source"], item["expected_value"], item["expected_regex"]) == (None, None, None)


@pytest.mark.parametrize(
    ("field", "reason_starts"),
    [
        ("deductible_amount", "status missing"),
        ("maternity_waiting_months", "status sentinel"),
        ("network_hospital_count", "status url"),
        ("min_entry_age", "status source_missing"),
        ("free_look_period", "status other_document"),
        ("pre_hospitalization_days", "no template for the field"),
    ],
)
def test_every_claim_without_an_item_says_why(build: GoldBuild, field: str, reason_starts: str) -> None:
    reasons = [
        skip.reason for skip in build.skipped if skip.document == "acme__alpha" and skip.field == field
    ]
    assert len(reasons) == 1 and reasons[0].startswith(reason_starts)


def hard_fact_passes(pattern: str, reply: str) -> bool:
    """The real hard_fact scorer on one reply: its folded view, its boundaries, its outcome."""
    scores = HARD_FACT.score_rows([HARD_FACT.view(reply)], [()], [pattern], ["row"])
    return scores.outcome(0).name == "PASS"


def check_patterns(items: tuple[dict[str, Any], ...]) -> int:
    """Every pattern matches its item's answer and none of its near misses; returns how many were checked."""
    checked = 0
    for item in items:
        if item["expected_regex"] is None:
            continue
        value = typed_value(
            item["expected_value"]["value"],
            answer_type=item["answer_type"],
            unit=item["expected_value"]["unit"],
        )
        assert hard_fact_passes(item["expected_regex"], item["expected_answer"]), item
        for miss in near_misses(value):
            assert not hard_fact_passes(item["expected_regex"], miss), (item, miss)
        checked += 1
    return checked


def test_every_pattern_matches_its_answer_and_no_near_miss(build: GoldBuild) -> None:
    assert check_patterns(build.items) >= 5


def test_ids_are_stable_and_items_sorted_without_timestamps(
    corpus: tuple[Path, Path], templates: Templates, build: GoldBuild
) -> None:
    facts, sources = corpus
    again = build_gold(
        verify_claims(load_facts(facts), load_sources(sources, cache_dir=None), templates=templates),
        templates,
        refusals=True,
    )
    assert gold_jsonl(again) == gold_jsonl(build)
    ids = [item["id"] for item in build.items]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert not any("time" in key or "date" in key for item in build.items for key in item)


def test_the_report_has_one_entry_per_claim_and_counts(build: GoldBuild) -> None:
    report = gold_report(build)
    assert len(report["claims"]) == 19
    total = report["counts"]["total"]
    assert total["by_status"] == {
        "found": 11,
        "missing": 2,
        "sentinel": 1,
        "source_missing": 2,
        "other_document": 2,
        "url": 1,
    }
    assert report["counts"]["by_document"]["acme__gamma"]["by_status"]["other_document"] == 1
    documents = {d["id"]: d for d in report["documents"]}
    assert list(documents) == [
        "acme__alpha",
        "acme__beta",
        "acme__delta",
        "acme__epsilon-wordings",
        "acme__zeta__wordings",
    ]
    assert documents["acme__alpha"]["characters_per_page"] == [len(page) for page in ALPHA_PAGES]
    assert (documents["acme__delta"]["empty_pages"], documents["acme__delta"]["needs_ocr"]) == ([2], True)
    assert [problem["path"] for problem in report["source_problems"]] == ["acme/broken.pdf"]


@pytest.mark.parametrize(
    ("document", "field", "words"),
    [
        ("acme__epsilon", "min_entry_age", "the cited file corpus/acme/broken.pdf could not be read"),
        ("acme__alpha", "min_entry_age", "the cited file acme/alpha-brochure.pdf is not in the sources"),
        (
            "acme__delta-facts",
            "deductible_amount",
            "acme__delta has pages with no text (scans that need OCR): 2",
        ),
        (
            "acme__gamma",
            "free_look_period",
            "found only in acme__beta, not in the facts' own documents (none)",
        ),
    ],
)
def test_reasons_say_what_was_searched_and_why_it_failed(
    verification: Verification, document: str, field: str, words: str
) -> None:
    assert words in _verdict(verification, document, field).reason


# --- synthetic PDFs: the layouts that break naive matching ---------------------------------------------

# Case -> (status, level, page, end page) when each facts file cites its own PDF with the case's quote.
# The interleaved columns run the quote's lines together with the other column's: it is not in its own
# document, but word for word in the two-column PDF, so it is found there, as another document's.
PDF_CASES = {
    "plain": ("found", "exact", 2, 2),
    "two_columns": ("found", "normalised", 1, 1),
    "interleaved_columns": ("other_document", "normalised", 1, 1),
    "hyphenated": ("found", "normalised", 1, 1),
    "ligature": ("found", "normalised", 1, 1),
    "table": ("found", "exact", 1, 1),
    "across_pages": ("found", "normalised", 1, 2),
    "blank_pages": ("found", "exact", 1, 1),
    "aes128": ("found", "normalised", 1, 1),
    "aes256": ("found", "normalised", 1, 1),
}


@pytest.fixture(scope="module")
def pdf_verification(tmp_path_factory: pytest.TempPathFactory) -> Verification:
    import pdfgen

    root = tmp_path_factory.mktemp("pdfs")
    (root / "sources" / "acme").mkdir(parents=True)
    (root / "facts").mkdir()
    for name, built in pdfgen.build_all(root / "sources" / "acme").items():
        claim = _claim("clause", name, built.quote, path=f"acme/{built.path.name}")
        facts = {"document": f"acme__{built.path.stem}", "title": name, "claims": [claim]}
        (root / "facts" / f"{name}.json").write_text(json.dumps(facts), encoding="utf-8")
    return verify_claims(load_facts(root / "facts"), load_sources(root / "sources", cache_dir=None))


@pytest.mark.parametrize(("case", "expected"), PDF_CASES.items())
def test_synthetic_pdf_quotes_are_found_where_they_are(
    pdf_verification: Verification, case: str, expected: tuple[str, str, int, int]
) -> None:
    (verdict,) = [v for v in pdf_verification.verdicts if v.claim.value == case]
    match = verdict.match
    assert (verdict.status, match.level, match.page, match.end_page) == expected


def test_synthetic_encrypted_pdfs_report_their_encryption(pdf_verification: Verification) -> None:
    sources = pdf_verification.sources
    encryption = {doc.id: doc.encryption for doc in sources.values() if doc.encryption}
    assert encryption == {"acme__two-columns.aes-128": "AES-128", "acme__two-columns.aes-256": "AES-256"}
    assert sources["acme__blank-pages"].empty_pages == (2, 3)


# A software company's terms as a real PDF, and curated quotes the fuzzy level finds: slips are
# forgiven; a changed word or number is another claim and is warned (quote_differs), never silently found.
SLA_PAGES = (
    (
        "Acme Cloud terms of service.",
        "Refunds for annual plans are issued within 7 business days of the request.",
    ),
    ("Support tickets of severity 1 are answered within 4 business hours, all year round.",),
)
SLA_QUOTES = {
    "exact": ("Refunds for annual plans are issued within 7 business days of the request.", None),
    "typo": ("Refunds for anual plans are isued within 7 business days of the request.", None),
    "word": (
        "Refunds for annual plans are issued within 7 working days of the request.",
        "the quote says 'working' where the document says 'business'",
    ),
    "negation": (
        "Support tickets of severity 1 are not answered within 4 business hours, all year round.",
        "the quote has 'not', which the document does not",
    ),
    "number": (
        "Support tickets of severity 1 are answered within four business hours all year round.",
        None,  # four is 4: the same number in words
    ),
}


@pytest.fixture(scope="module")
def sla_verifications(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Verification]:
    import pdfgen

    root = tmp_path_factory.mktemp("sla")
    pdfgen.pages_pdf(root / "sources", "acme__cloud.pdf", SLA_PAGES)
    claims = [_claim("refund", name, quote, path="acme__cloud.pdf")
              for name, (quote, _) in SLA_QUOTES.items()]
    (root / "facts").mkdir()
    facts = {"document": "acme__cloud", "claims": claims}
    (root / "facts" / "cloud.json").write_text(json.dumps(facts), encoding="utf-8")
    sources = load_sources(root / "sources", cache_dir=None)
    return {
        fuzzy: verify_claims(load_facts(root / "facts"), sources, options=VerifyOptions(fuzzy=fuzzy))
        for fuzzy in (True, False)
    }


@pytest.mark.parametrize(("case", "difference"), [(case, said) for case, (_, said) in SLA_QUOTES.items()])
def test_a_fuzzy_quote_whose_words_differ_is_warned_with_the_difference(
    sla_verifications: dict[bool, Verification], case: str, difference: str | None
) -> None:
    (verdict,) = [v for v in sla_verifications[True].verdicts if v.claim.value == case]
    assert verdict.status == "found"
    differs = [check.message for check in verdict.warnings if check.code == "quote_differs"]
    if difference is None:
        assert differs == []
    else:
        assert verdict.match.level == "fuzzy"
        assert len(differs) == 1 and differs[0].startswith(difference)


def test_quote_differs_is_counted_and_an_error_under_strict(
    sla_verifications: dict[bool, Verification],
) -> None:
    loose, strict = sla_verifications[True], sla_verifications[False]
    assert tally(loose.verdicts)["warnings"]["quote_differs"] == 2
    assert has_errors(loose, strict=True) and not has_errors(loose, strict=False)
    # --strict turns the fuzzy level off: a quote that differs is not found at all (an error too)
    statuses = {v.claim.value: v.status for v in strict.verdicts}
    assert statuses["word"] == statuses["negation"] == "missing" and statuses["exact"] == "found"


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"policy_id": "x",\n "f": {"value": 1,}}', "bad.json:2:"),  # the JSON's line and column
        ('{"policy_id": "x",\n "f": {"unit": "days"}}', "bad.json:2: f: the field's mapping has no 'value'"),
        ('{"document": "x", "claims": [{"value": 1}]}', "claims[0]"),
        ('{"document": "x", "claims": [{"field": "f", "confidence": "sure"}]}', "'confidence'"),
        ('["not", "facts"]', "matches no facts layout"),
    ],
)
def test_malformed_facts_name_the_file_and_the_fix(tmp_path: Path, content: str, expected: str) -> None:
    (tmp_path / "bad.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_facts(tmp_path)
    assert expected in raised.value.message and "bad.json" in raised.value.message and raised.value.fix


def test_an_unknown_adapter_is_a_usage_error(corpus: tuple[Path, Path]) -> None:
    with pytest.raises(UsageError, match="no facts adapter named 'csv'"):
        load_facts(corpus[0], adapter="csv")


# --- the command line ----------------------------------------------------------------------------------


def _templates_file(root: Path) -> Path:
    lines = [
        "[fields.grace_period]",
        'questions = ["What is the grace period of {title}?"]',
        'answer_type = "number_unit"',
        'unit = "day"',
    ]
    path = root / "templates.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_command_writes_gold_report_and_markdown(
    corpus: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = corpus
    out, report, markdown = tmp_path / "gold.jsonl", tmp_path / "report.json", tmp_path / "report.md"
    command = ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
    command += ["--templates", str(_templates_file(tmp_path)), "--out", str(out)]
    assert main([*command, "--report", str(report), "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    assert "flagged: gamma.json: cross_document" in printed and "gold items: 2 (0 refusals)" in printed
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((item["scope"], item["field"]) for item in items) == [
        ("acme__alpha", "grace_period"),
        ("acme__epsilon", "grace_period"),
    ]
    assert json.loads(report.read_text(encoding="utf-8"))["items"]["total"] == 2
    assert "## Facts files flagged" in markdown.read_text(encoding="utf-8")
    assert main([*command, "--strict"]) == 1  # its warnings (and the flagged file) are errors


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--refusals"], "--refusals needs refusal templates"),
        (["--min-confidence", "sure"], "is not a confidence"),
        (["--templates", "missing.toml"], "cannot read the template file"),
        (["--sources", "EMPTY"], "the sources folder holds no PDF or text file"),
    ],
)
def test_the_command_refuses_bad_input_with_exit_2(
    corpus: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    facts, sources = corpus
    (tmp_path / "empty").mkdir()
    extra = [str(tmp_path / "empty") if flag == "EMPTY" else flag for flag in extra]
    command = ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
    assert main([*command, "--out", str(tmp_path / "gold.jsonl"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "gold.jsonl").exists()


# --- the real insurance facts and PDFs -------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoldBuild]:
    if not (SHARED / "facts").is_dir() or not (SHARED / "pdfs").is_dir():
        skip_or_fail(f"the shared insurance data is missing: {SHARED}")
    from assay.harness.templates import load_templates

    templates = load_templates(EXAMPLE_TEMPLATES)
    sources = load_sources(SHARED / "pdfs", cache_dir=tmp_path_factory.mktemp("pages"))
    verification = verify_claims(load_facts(SHARED / "facts"), sources, templates=templates)
    yield build_gold(verification, templates, refusals=True)


# Claims per facts file: (found, missing, sentinel, source_missing, other_document, url) and, of the
# quotes found anywhere, (exact, normalised, alnum, pieces, fuzzy). Measured with pypdfium2's text.
REAL_COUNTS = {
    "aditya-birla__activ-assure-diamond__wordings": ((20, 0, 15, 0, 0, 1), (6, 14, 0, 0, 0)),
    "care-health__care-classic__wordings": ((14, 0, 13, 0, 0, 1), (1, 10, 2, 1, 0)),
    "hdfc-ergo__my-optima-secure__wordings": ((13, 0, 6, 0, 0, 2), (4, 9, 0, 0, 0)),
    "hdfc-ergo__optima-secure": ((0, 0, 9, 3, 14, 2), (5, 9, 0, 0, 0)),
    "niva-bupa__rise__wordings": ((16, 0, 17, 0, 0, 1), (5, 11, 0, 0, 0)),
    "tata-aig__wellsurance-family__cis": ((5, 0, 14, 0, 0, 2), (2, 3, 0, 0, 0)),
}
REAL_TOTAL = ((68, 0, 74, 3, 14, 9), (23, 56, 2, 1, 0))
# Every single number, amount and percent the real quotes carry is stated in them (`4 consecutive
# years` is 48 months, `thirty days` is 30); the sum-insured options are not: their quote, "Sum Insured
# options range from Rs", stops before any amount. The curators' own "low" marks are warned.
REAL_WARNINGS = [
    ("hdfc-ergo__my-optima-secure__wordings", "sum_insured_options", "value_not_in_quote"),
    ("hdfc-ergo__my-optima-secure__wordings", "policy_type", "low_confidence"),
    ("hdfc-ergo__optima-secure", "sum_insured_options", "value_not_in_quote"),
    ("hdfc-ergo__optima-secure", "policy_type", "low_confidence"),
]


def _tally(tally: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(tally["by_status"].values()), tuple(tally["by_level"].values())


def test_real_counts_per_document_and_total_by_status_and_level(real: GoldBuild) -> None:
    counts = gold_report(real)["counts"]
    assert {doc: _tally(tally) for doc, tally in counts["by_document"].items()} == REAL_COUNTS
    assert _tally(counts["total"]) == REAL_TOTAL


def test_real_quotes_with_their_document_present_are_found(real: GoldBuild) -> None:
    present = [v for v in real.verification.verdicts if v.status in ("found", "missing", "other_document")]
    assert len(present) == 82
    assert sum(v.match is not None for v in present) >= 81


def test_real_quotes_citing_the_absent_brochure_are_source_missing(real: GoldBuild) -> None:
    missing = [v for v in real.verification.verdicts if v.status == "source_missing"]
    assert sorted(v.claim.field for v in missing) == ["max_entry_age", "min_entry_age", "room_rent_capping"]
    assert {v.claim.source_path for v in missing} == {"rag/corpus/hdfc-ergo/optima-restore__brochure.pdf"}


def test_real_encrypted_pdf_is_read_and_its_quotes_found(real: GoldBuild) -> None:
    (care,) = [d for d in gold_report(real)["documents"] if d["id"] == "care-health__care-classic__wordings"]
    assert (care["encryption"], care["pages"], care["empty_pages"]) == ("AES-256", 38, [])
    found = [v for v in real.verification.verdicts if v.claim.document == care["id"] and v.status == "found"]
    assert len(found) == 14 and all(v.document == care["id"] for v in found)


def test_real_cross_document_facts_file_is_flagged(real: GoldBuild) -> None:
    (flag,) = real.verification.flags
    assert (flag.facts_file, flag.code, flag.documents) == (
        "hdfc-ergo__optima-secure.json",
        "cross_document",
        ("hdfc-ergo__my-optima-secure__wordings",),
    )
    assert not [item for item in real.items if item["scope"] == "hdfc-ergo__optima-secure"]


def test_real_warnings_are_listed(real: GoldBuild) -> None:
    warned = [
        (v.claim.document, v.claim.field, check.code)
        for v in real.verification.verdicts
        for check in v.warnings
    ]
    assert warned == REAL_WARNINGS


def test_real_items_patterns_are_safe_through_hard_fact(real: GoldBuild) -> None:
    with_pattern = [item for item in real.items if item["expected_regex"] is not None]
    assert check_patterns(real.items) == len(with_pattern) >= 80


def test_real_build_is_stable(real: GoldBuild, tmp_path: Path) -> None:
    from assay.harness.templates import load_templates

    templates = load_templates(EXAMPLE_TEMPLATES)
    sources = load_sources(SHARED / "pdfs", cache_dir=tmp_path)
    again = build_gold(
        verify_claims(load_facts(SHARED / "facts"), sources, templates=templates), templates, refusals=True
    )
    assert gold_jsonl(again) == gold_jsonl(real)
    assert [item["id"] for item in real.items] == sorted(item["id"] for item in real.items)


def test_real_command_end_to_end(real: GoldBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, report = tmp_path / "gold.jsonl", tmp_path / "report.json"
    command = ["gold", "build", "--facts", str(SHARED / "facts"), "--sources", str(SHARED / "pdfs")]
    command += ["--templates", str(EXAMPLE_TEMPLATES), "--refusals", "--cache", str(tmp_path / "cache")]
    assert main([*command, "--out", str(out), "--report", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "168 claims in 6 facts files, 5 source documents" in printed
    assert "flagged: hdfc-ergo__optima-secure.json: cross_document" in printed
    assert out.read_text(encoding="utf-8") == gold_jsonl(real)
    assert json.loads(report.read_text(encoding="utf-8"))["items"]["total"] == len(real.items)
    assert main([*command, "--out", str(out), "--strict"]) == 1  # the flag and the warnings are errors
    capsys.readouterr()
    # The gold set loads as gold records, and every quote is found again where the item says.
    assert main(["lint", str(out), "--sources", str(SHARED / "pdfs")]) == 0
    assert f"0 errors, 0 warnings in {len(real.items)} rows" in capsys.readouterr().out


def test_real_items_answered_with_their_own_answer_pass_value_match_and_hard_fact(
    real: GoldBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answered = tmp_path / "answered.jsonl"
    items = [
        item | {"response": item["expected_answer"]} for item in real.items if not item["expected_refusal"]
    ]
    answered.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    summary = tmp_path / "summary.json"
    command = ["score", "--responses", str(answered), "--metric", "value_match", "--metric", "hard_fact"]
    assert main([*command, "--json", str(summary)]) == 0
    metrics = json.loads(summary.read_text(encoding="utf-8"))["metrics"]
    for metric in ("value_match", "hard_fact"):
        combined = metrics[metric]["combined"]
        assert (combined["n"], combined["passed"]) == (len(items), len(items)), metric
