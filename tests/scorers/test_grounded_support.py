"""grounded asks "does the cited text support this claim", not "is this the gold page": a cited page
supports a typed answer when it states the asked value *for the asked field* (the value's label on the
page names it: its clause, table row, list item, or the heading of its item), wherever that page is; a
page that states the value for another clause does not; every figure the reply states, bare counts too,
must be in the cited text, and one a cited page states otherwise is a contradiction (``wrong_cited`` in
``assay run``).

Real PDFs made with tests/support/pdfgen.py: an insurance policy whose grace period is stated in four
places (the gold quote's clause, a benefit table, a definition, a schedule with labels over values) beside
pages that state 30 days and 24 months for other clauses; and a software company's SLA and price list.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
from cli_run import run

from assay.documents import load_sources
from assay.parts import Citation
from assay.scorers.grounding import Grounding, Item, Library, ground, stated_figures
from assay.values.types import DAY, MONEY, MONTH, NUMBER_UNIT, PERCENT, RUPEES, Value

TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
POLICY = "acme__shield"
GRACE_QUOTE = "A grace period of 30 days is allowed for paying the renewal premium."
POLICY_PAGES: tuple[tuple[str | tuple[str, ...], ...], ...] = (
    ("Acme Shield policy wording.", "This wording was revised in 2024."),
    ("5.1.10. Renewal", GRACE_QUOTE, "Premiums are payable in advance."),
    (  # 30 days, for another clause
        "5.1.15. Free Look Period",
        "The Free Look Period applies to new policies and not to renewals.",
        "The insured person shall be allowed a free look period of",
        "30 days from the date of receipt of the policy document.",
    ),
    (  # a benefit table: the value in its row
        "Table of Benefits",
        ("Benefit", "Limit"),
        ("Room rent", "1% of sum insured"),
        ("Grace period for renewal", "30 days"),
        ("Ambulance", "Rs 2,000 per event"),
    ),
    (  # a definition: the term on one line, its figures wrapped on the next
        "2.1.17. Grace Period means the specified period of time immediately following the premium due",
        "date during which a payment can be made to renew the policy. The grace period shall be: fifteen",
        "days where premium payment mode is monthly and thirty days in all other cases.",
    ),
    (  # a schedule: labels over values, and a tenure of 1, 2 or 3 years (2 years = 24 months)
        "Policy Schedule",
        "Grace Period",
        "30 days",
        "Free Look Period",
        "15 days",
        "Tenure 1/2/3 Years",
    ),
    (
        "Waiting periods.",
        "Pre-existing diseases are covered after 24 months of continuous coverage.",
        "Cashless treatment is available at 5,000 network hospitals.",
    ),
    (  # headings over their items: each figure is its heading's
        "4.1. Waiting Periods",
        "(i) Pre-Existing Diseases: Code- Excl01",
        "a. Expenses related to the treatment of a pre-existing disease shall be excluded until the",
        "expiry of 36 months of continuous coverage.",
        "(ii) Specific Waiting Period: Code- Excl02",
        "a. Expenses related to the listed conditions shall be excluded until the expiry of 24",
        "months of continuous coverage. The listed conditions are:",
        "k. Cataract",
        "l. Hernia of 2 types",
    ),
)
GRACE = Item(
    scope=POLICY,
    source_document=POLICY,
    source_title="Acme Shield",
    quote=GRACE_QUOTE,
    page=2,
    expected_refusal=False,
    field="grace_period",
    question="What is the grace period for paying the renewal premium of Acme Shield?",
    value=Value(NUMBER_UNIT, 30, DAY),
)
PED = Item(
    scope=POLICY,
    source_document=POLICY,
    source_title="Acme Shield",
    quote="Pre-existing diseases are covered after 24 months of continuous coverage.",
    page=7,
    field="pre_existing_disease_waiting_months",
    question="After how many months of continuous coverage are pre-existing diseases covered by Acme Shield?",
    value=Value(NUMBER_UNIT, 24, MONTH),
)


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("policy")
    pdfgen.rows_pdf(root / "acme", "shield.pdf", POLICY_PAGES)
    return Library(load_sources(root, cache_dir=None))


def _cite(library: Library, text: str, *pages: int, item: Item = GRACE) -> Grounding:
    return ground(text, [Citation(item.scope, page) for page in pages], [], item, library)


# --- the asked value, for the asked field ----------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "checked"),
    [
        (2, "acme__shield p.2 holds the gold quote (exact)"),  # the gold quote's page is one of them
        # a table row (the words after the row above's value are read before this one's: a row of a table
        # and a wrapped sentence are alike in extracted text)
        (
            4,
            "acme__shield p.4 states 30 days for the field: 'of sum insured grace period for renewal 30 "
            "days'",
        ),
        (5, "acme__shield p.5 states 30 days for the field: 'grace period means the"),  # a definition
        (6, "acme__shield p.6 states 30 days for the field: 'policy schedule grace period 30 days'"),
    ],
)
def test_a_page_stating_the_value_for_the_field_supports_it_wherever_it_is(
    policy: Library, page: int, checked: str
) -> None:
    found = _cite(policy, "The grace period is 30 days.", page)
    assert found.passed, found.problems
    assert any(line.startswith(checked) for line in found.checked), found.checked


@pytest.mark.parametrize(
    ("text", "page", "item", "problem"),
    [
        (  # 30 days on p.3 is the free-look period
            "The grace period is 30 days.",
            3,
            GRACE,
            "acme__shield p.3 states 30 days, but for another clause: 'free look period … the insured "
            "person shall be allowed a free look period of 30 days from the date of receipt of the…'",
        ),
        (  # "Tenure 1/2/3 Years" states 2 years = 24 months, for the tenure
            "Pre-existing diseases are covered after 24 months.",
            6,
            PED,
            "acme__shield p.6 states 24 months, but for another clause: 'tenure 1/2/3 years'",
        ),
        (
            "The grace period is 30 days.",
            7,
            GRACE,
            "acme__shield p.7 does not state 30 days (the gold quote is on p.2)",
        ),
    ],
)
def test_a_page_stating_the_value_only_for_another_clause_does_not_support_it(
    policy: Library, text: str, page: int, item: Item, problem: str
) -> None:
    found = _cite(policy, text, page, item=item)
    assert problem in found.problems, found.problems


SPECIFIC = Item(
    scope=POLICY,
    source_document=POLICY,
    source_title="Acme Shield",
    field="specific_disease_waiting_months",
    question="What is the waiting period for specified diseases under Acme Shield?",
    value=Value(NUMBER_UNIT, 24, MONTH),
)


@pytest.mark.parametrize(
    ("item", "value", "evidence"),
    [
        (PED, 36, "'pre-existing diseases: code- excl01 … …atment of a pre-existing disease shall"),
        (SPECIFIC, 24, "'specific waiting period: code- excl02 … "),
        (PED, 24, None),  # 24 months is the specific waiting period's, under its heading
        (SPECIFIC, 36, None),
    ],
)
def test_a_figure_under_a_heading_is_the_heading_s(
    policy: Library, item: Item, value: int, evidence: str | None
) -> None:
    asked = dataclasses.replace(item, value=Value(NUMBER_UNIT, value, MONTH))
    found = _cite(policy, f"It is {value} months.", 8, item=asked)
    if evidence is None:
        assert found.problems[0].startswith(f"acme__shield p.8 states {value} months, but for another clause")
    else:
        assert found.passed, found.problems
        assert f"acme__shield p.8 states {value} months for the field: {evidence}" in " ".join(found.checked)


def test_a_second_citation_holding_another_figure_of_the_reply_passes(policy: Library) -> None:
    text = "The grace period is 30 days; pre-existing diseases are covered after 24 months."
    found = _cite(policy, text, 4, 7)
    assert found.passed, found.problems
    assert "acme__shield p.7 holds what the reply says too" in found.checked


def test_a_yes_no_item_needs_a_clause_naming_the_field(policy: Library) -> None:
    item = Item(
        scope=POLICY,
        source_document=POLICY,
        field="free_look_period_available",
        question="Does Acme Shield have a free look period?",
        value=Value("bool", True),
    )
    assert _cite(policy, "Yes, it has a free look period.", 3, item=item).passed
    found = _cite(policy, "Yes, it has a free look period.", 7, item=item)
    assert found.problems == ("acme__shield p.7 holds neither the gold quote nor a clause naming the field",)


# --- every figure of the reply ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "figure"),
    [
        ("The grace period is 30 days, and 9,500 network hospitals take part.", "9,500 network hospitals"),
        ("The grace period is 30 days; refunds are paid within 10 working days.", "10 working days"),
        ("The grace period is 30 days. Maternity includes up to 5 ultrasound scans.", "5 ultrasound scans"),
    ],
)  # fmt: skip
def test_an_invented_figure_fails_with_the_figure_named(policy: Library, text: str, figure: str) -> None:
    found = _cite(policy, text, 2)
    assert f"'{figure}' is not in the cited or retrieved text" in found.problems, found.problems
    assert found.contradicts == ()  # no cited page states these things otherwise


@pytest.mark.parametrize(
    "text",
    [
        "The grace period is 30 days (fifteen days when the premium is paid monthly).",  # p.5 says both
        "The grace period is 30 days [1], see p. 5, Section 2.1.17, in force since 2024.",
        "1. The grace period is 30 days. Call the 24/7 helpline at 10:30 or later.",
        "The grace period is 30 days; call 1800 425 2255 or +91 22 6234 6234.",  # phone numbers
    ],
)
def test_true_figures_and_numbers_that_are_no_figures_pass(policy: Library, text: str) -> None:
    found = _cite(policy, text, 5)
    assert found.passed, found.problems


def test_stated_figures_read_bare_counts_but_not_references_years_numbering_or_words() -> None:
    text = (
        "1. Over 9,500 hospitals, 12 scans and 3 visits; see p. 4 (Section 3), since 2019, 24/7, two plans."
    )
    assert [figure.shown() for figure in stated_figures(text)] == [
        "9,500 hospitals",
        "12 scans",
        "3 visits",
    ]


def test_a_figure_the_cited_page_states_otherwise_is_a_contradiction(policy: Library) -> None:
    text = "The grace period is 30 days, and the free look period is 15 days."
    found = _cite(policy, text, 2, 3)
    (contradiction,) = found.contradicts
    assert contradiction.startswith(
        "'15 days': acme__shield p.3 states 30 days for it: 'free look period … the"
    )
    assert any(
        p.startswith("'15 days' is not in the cited or retrieved text; acme__shield p.3")
        for p in found.problems
    )
    # a true figure the cited pages do not hold is unsupported, not contradicted: what the reply says
    # 15 days of is monthly premiums, which p.2's 30 days is not said of
    uncited = _cite(policy, "The grace period is 30 days (15 days for monthly premiums).", 2)
    assert uncited.problems == ("'15 days' is not in the cited or retrieved text",)
    assert uncited.contradicts == ()
    counted = _cite(policy, "The grace period is 30 days. The network has 9,500 hospitals.", 2, 7)
    assert counted.contradicts[0].startswith("'9,500 hospitals': acme__shield p.7 states 5000 for it")


# --- another domain: an SLA and a price list ---------------------------------------------------------

SLA = "cloudco__sla"
SLA_PAGES: tuple[tuple[str | tuple[str, ...], ...], ...] = (
    ("CloudCo Service Level Agreement and Price List", "Effective 1 April 2025."),
    (
        "4. Refunds",
        "Annual subscriptions may be cancelled within 30 days of purchase for a full refund.",
        "Monthly subscriptions are not refundable.",
    ),
    (
        "7. Termination",
        "Either party may terminate this agreement with 30 days written notice.",
        "Support response times",
        ("Priority", "First response"),
        ("P1 Critical", "1 hour"),
        ("P2 High", "4 hours"),
    ),
    (
        "Price List",
        ("Plan", "Price per month", "Seats"),
        ("Starter", "Rs 1,499", "5"),
        ("Team", "Rs 4,999", "25"),
        "Monthly uptime commitment: 99.9%",
    ),
)


def _sla_item(field: str, question: str, value: Value, quote: str, page: int) -> Item:
    return Item(SLA, SLA, "Service Level Agreement", quote, page, False, field, question, value)


REFUND = _sla_item(
    "refund_window_days",
    "Within how many days can an annual subscription be cancelled for a full refund?",
    Value(NUMBER_UNIT, 30, DAY),
    "Annual subscriptions may be cancelled within 30 days of purchase for a full refund.",
    2,
)
STARTER = _sla_item(
    "starter_plan_price", "What does the Starter plan cost per month?", Value(MONEY, 1499, RUPEES), "", 0
)
UPTIME = _sla_item(
    "uptime_commitment_pct", "What monthly uptime does CloudCo commit to?", Value(PERCENT, 99.9, "%"), "", 0
)


@pytest.fixture(scope="module")
def sla(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("sla")
    pdfgen.rows_pdf(root / "cloudco", "sla.pdf", SLA_PAGES)
    return Library(load_sources(root, cache_dir=None))


@pytest.mark.parametrize(
    ("item", "text", "page", "problem"),
    [
        (REFUND, "An annual plan can be cancelled within 30 days for a full refund.", 2, None),
        (REFUND, "An annual plan can be cancelled within 30 days for a full refund.", 3,
         "cloudco__sla p.3 states 30 days, but for another clause: 'termination either party may terminate"),
        (STARTER, "The Starter plan costs ₹1,499 a month.", 4, None),  # a price list's row
        (STARTER, "The Starter plan costs ₹1,499 a month.", 2, "cloudco__sla p.2 does not state ₹1,499"),
        (UPTIME, "CloudCo commits to 99.9% monthly uptime.", 4, None),
        (REFUND, "Cancel within 30 days; the refund arrives within 5 business days.", 2,
         "'5 business days' is not in the cited or retrieved text"),
        # a true second figure; a bare number is the page's in the unit the page gives it
        (STARTER, "The Starter plan costs ₹1,499 a month for up to 5 seats.", 4, None),
        (STARTER, "The Starter plan costs ₹1,499 a month; Team costs 4,999.", 4, None),
        (STARTER, "The Starter plan costs ₹1,499 a month for up to 10 seats.", 4,
         "'10 seats' is not in the cited or retrieved text"),
    ],
)  # fmt: skip
def test_an_sla_and_a_price_list(sla: Library, item: Item, text: str, page: int, problem: str | None) -> None:
    found = ground(text, [Citation(SLA, page)], [], item, sla)
    if problem is None:
        assert found.passed, found.problems
    else:
        assert any(line.startswith(problem) for line in found.problems), found.problems


# --- assay run: a contradicting figure is wrong_cited ---------------------------------------------------

RUN_PAGES = (
    ("Acme Shield policy wording.",),
    (GRACE_QUOTE, "Cashless treatment is available at 5,000 network hospitals."),
    ("The free look period is 15 days from the receipt of the policy.",),
)
SYSTEM = """
def answer(question, scope=None):
    if question.startswith("What"):  # right, and a figure p.2 states otherwise
        return "The grace period is 30 days, at any of 9,500 network hospitals. [Source: acme__shield, p.2]"
    # right, and an invented count of something p.2 does not speak of
    return "The grace period is 30 days; up to 5 ultrasound scans are paid. [Source: acme__shield, p.2]"
"""


def test_assay_run_makes_a_contradicting_figure_wrong_cited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdfgen.pages_pdf(tmp_path / "sources" / "acme", "shield.pdf", RUN_PAGES)
    claim = {"field": "grace_period", "value": 30, "unit": "days",
             "source": {"path": "acme/shield.pdf", "quote": GRACE_QUOTE}}  # fmt: skip
    (tmp_path / "facts").mkdir()
    facts = {"document": POLICY, "title": "Acme Shield", "claims": [claim]}
    (tmp_path / "facts" / "acme.json").write_text(json.dumps(facts), encoding="utf-8")
    (tmp_path / "bot.py").write_text(SYSTEM, encoding="utf-8")
    gold, out = tmp_path / "gold.jsonl", tmp_path / "run"
    build = ["gold", "build", "--facts", str(tmp_path / "facts"), "--sources", str(tmp_path / "sources")]
    assert run([*build, "--templates", str(TEMPLATES), "--out", str(gold)], capsys)[0] == 0
    argv = ["run", "--gold", str(gold), "--system", f"{tmp_path / 'bot.py'}:answer", "--out", str(out)]
    code, _, stderr = run([*argv, "--sources", str(tmp_path / "sources")], capsys)
    assert code == 0, stderr
    rows: list[dict[str, Any]] = [json.loads(line) for line in (out / "run.jsonl").read_text().splitlines()]
    by_question = {row["question"].split()[0]: row for row in rows}
    contradicted = by_question["What"]
    assert contradicted["outcome"] == "wrong_cited", contradicted["outcome_reason"]
    assert "'9,500 network hospitals': acme__shield p.2 states 5000 for it" in contradicted["outcome_reason"]
    invented = by_question["How"]
    assert invented["outcome"] == "correct_ungrounded", invented["outcome_reason"]
    assert "'5 ultrasound scans' is not in the cited or retrieved text" in invented["outcome_reason"]
