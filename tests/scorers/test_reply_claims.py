"""A reply read as claims about the asked field (issue 20), on a real PDF of another domain than the shared
insurance set: a software company's service level agreement, built into a gold set by `assay gold build`
and graded as `assay run --sources` grades (the run's metrics, then the outcome rule).

Each case is a reply a capable assistant could write, with the outcome a careful reader gives after
reading the page: the value in the clause that answers the field; a second true figure in another
clause; the expected figure said only of another clause; a negation before or after the value; a
hedge; a yes/no said with the question's own predicate, plainly, negated or in a negative form; and a
reply that says neither, which the rules leave to a judge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
from budget import SECOND, assert_within

from assay import load_records
from assay.cli import main
from assay.harness.outcomes import OUTCOME_COLUMN, REASON_COLUMN, with_outcomes
from assay.harness.run import run_metrics
from assay.scoring import ScoreOptions, score

DOCUMENT = "nimbus__sla"
PAGES = (
    ("Nimbus Cloud Service Level Agreement", "Version 3, effective 1 March 2025."),
    ("Uptime commitment: Nimbus Cloud guarantees 99.9% monthly uptime.",
     "Service credits: 10% of the monthly fee for each full hour below the commitment."),
    ("Support: priority tickets are answered within 4 business hours.",
     "Refunds: annual subscriptions may be refunded within 30 days of purchase.",
     "Monthly subscriptions are not refundable."),
    ("Data retention: customer data is kept for 30 days after cancellation.",
     "Single sign-on is included in the Enterprise plan."),
)  # fmt: skip
TEMPLATES = """
[fields.annual_refund_window]
questions = ["Within how many days of purchase can an annual subscription to {title} be refunded?"]
answer_type = "number_unit"
unit = "day"

[fields.service_credit_pct]
questions = ["What service credit does {title} give for each full hour below the uptime commitment?"]
answer_type = "percent"

[fields.monthly_refundable]
questions = ["Are monthly subscriptions to {title} refundable?"]
answer_type = "bool"
yes = "Yes, monthly subscriptions are refundable"
no = "No, monthly subscriptions are not refundable"

[fields.sso_included]
questions = ["Is single sign-on included in the Enterprise plan of {title}?"]
answer_type = "bool"
yes = "Yes, single sign-on is included"
no = "No, single sign-on is not included"
"""


def _claim(field: str, value: Any, quote: str, unit: str | None = None) -> dict[str, Any]:
    claim = {"field": field, "value": value, "source": {"path": "nimbus/sla.pdf", "quote": quote}}
    return {**claim, "unit": unit} if unit else claim


FACTS = {
    "document": DOCUMENT,
    "title": "Nimbus Cloud",
    "claims": [
        _claim("annual_refund_window", 30, "annual subscriptions may be refunded within 30 days", "days"),
        _claim("service_credit_pct", 10, "Service credits: 10% of the monthly fee", "%"),
        _claim("monthly_refundable", False, "Monthly subscriptions are not refundable."),
        _claim("sso_included", True, "Single sign-on is included in the Enterprise plan."),
    ],
}

# (field, reply, cited page, the outcome a careful reader gives)
CASES = [
    # the value in the clause that answers the field, other true figures of the page beside it
    (
        "annual_refund_window",
        "Annual subscriptions may be refunded within 30 days of purchase.",
        3,
        "correct",
    ),
    (
        "annual_refund_window",
        "You can get a refund on an annual plan within thirty days of buying it.",
        3,
        "correct",
    ),
    (
        "annual_refund_window",
        "Annual subscriptions may be refunded within 30 days of purchase, and priority "
        "tickets are answered within 4 business hours.",
        3,
        "correct",
    ),
    (
        "annual_refund_window",
        "Refunds of annual subscriptions are available for not more than 30 days after purchase.",
        3,
        "correct",
    ),
    # the expected figure said only of another clause; a negation before or after it; a hedge
    (
        "annual_refund_window",
        "Customer data is kept for 30 days after cancellation, while annual "
        "subscriptions may be refunded within 14 days.",
        3,
        "wrong_cited",
    ),
    (
        "annual_refund_window",
        "Annual subscriptions cannot be refunded within 30 days of purchase.",
        3,
        "wrong_cited",
    ),
    (
        "annual_refund_window",
        "Annual refunds are usually allowed within 30 days, but it can be 14.",
        3,
        "wrong_cited",
    ),
    ("service_credit_pct", "A service credit of 10% does not apply to Nimbus Cloud.", 2, "wrong_cited"),
    (
        "service_credit_pct",
        "Nimbus Cloud credits 10% of the monthly fee for each full hour below the commitment.",
        2,
        "correct",
    ),
    # yes/no with the question's own predicate
    ("monthly_refundable", "Monthly subscriptions are not refundable.", 3, "correct"),
    ("monthly_refundable", "Monthly subscriptions are non-refundable.", 3, "correct"),
    ("monthly_refundable", "No. Monthly plans cannot be refunded.", 3, "correct"),
    ("monthly_refundable", "Monthly subscriptions can be refunded.", 3, "wrong_cited"),
    ("monthly_refundable", "Yes, monthly subscriptions are refundable.", 3, "wrong_cited"),
    ("sso_included", "Single sign-on is included in the Enterprise plan.", 4, "correct"),
    ("sso_included", "SSO is not included in the Enterprise plan.", 4, "wrong_cited"),
    (
        "sso_included",
        "The Enterprise plan comes with single sign-on, but SAML audit logs are not included.",
        4,
        "correct",
    ),
    ("sso_included", "Single sign-on depends on your contract.", 4, "wrong_cited"),  # a hedge
    # a reply that says neither: the rules cannot decide, and say so
    ("sso_included", "The Enterprise plan has several security features.", 4, "unscored"),
]


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The sources folder and the gold items by field, built by `assay gold build`."""
    root = tmp_path_factory.mktemp("claims")
    pdfgen.pages_pdf(root / "sources" / "nimbus", "sla.pdf", PAGES)
    (root / "facts").mkdir()
    (root / "facts" / "nimbus.json").write_text(json.dumps(FACTS), encoding="utf-8")
    (root / "templates.toml").write_text(TEMPLATES, encoding="utf-8")
    out = root / "gold.jsonl"
    argv = ["gold", "build", "--facts", str(root / "facts"), "--sources", str(root / "sources")]
    assert main([*argv, "--templates", str(root / "templates.toml"), "--out", str(out)]) == 0
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return root / "sources", {item["field"]: item for item in items}


def _graded(gold: tuple[Path, dict[str, dict[str, Any]]], folder: Path) -> list[tuple[str, str]]:
    sources, items = gold
    path = folder / "run.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index, (field, reply, page, _) in enumerate(CASES):
            citation = {"document": DOCUMENT, "page": page}
            reply_part = {"citations": [citation]}
            row = {**items[field], "id": f"case-{index}", "response": reply, "reply": reply_part}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    options = ScoreOptions(sources=str(sources))
    scored = with_outcomes(score(load_records(path), run_metrics(sources=sources), options=options))
    texts = scored.metrics["factual"].texts
    return list(zip(texts[OUTCOME_COLUMN], texts[REASON_COLUMN]))  # type: ignore[arg-type]


def test_each_reply_gets_the_outcome_a_careful_reader_gives(
    gold: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    graded = _graded(gold, tmp_path)
    wrong = [
        (reply, expected, outcome, reason)
        for (_, reply, _, expected), (outcome, reason) in zip(CASES, graded)
        if outcome != expected
    ]
    assert wrong == []


# Which value a term of the field is said of, in one clause: (reply, expected days, passes). The field
# is the refund window; its terms are "annual", "refund", "purchase".
ATTRIBUTION = [
    ("Annual plans are refunded within 30 days of purchase and data is kept for 60 days.", 30, True),
    ("Data is kept for 60 days and annual plans are refunded within 30 days of purchase.", 30, True),
    ("Data is kept for 30 days and annual plans are refunded within 60 days of purchase.", 30, False),
    ("The refund window is not 14 days but 30 days.", 30, True),
    ("The refund window is 30 days, not 14.", 30, True),
    ("The refund window is 14 or 30 days.", 30, False),
    ("The refund window is 14-30 days.", 30, False),
    # a reply that answers first and quotes after: the opening is its answer, the quote its evidence
    (
        "30 days. Refunds: annual subscriptions may be refunded within 30 days of purchase (14 days for "
        "promotional plans).",
        30,
        True,
    ),
    ("14 days. Refunds: annual subscriptions may be refunded within 30 days of purchase.", 30, False),
    ("It is 30 days, but the refund window is 14 days for some plans.", 30, False),
]


@pytest.mark.parametrize(("reply", "days", "passes"), ATTRIBUTION)
def test_a_term_is_said_of_the_value_it_follows_or_the_next_after_a_conjunction(
    reply: str, days: int, passes: bool
) -> None:
    from assay.scorers.value_match import _terms, decide, expected_of
    from assay.text import unicode

    expected = expected_of({"value": days, "unit": "days"}, None, None, ()).value
    assert expected is not None
    question = "Within how many days of purchase can an annual plan be refunded?"
    terms = _terms("annual_refund_window", question, "X")
    assert decide(expected, unicode.fold(reply), (), terms).passed is passes


# A yes/no item of any domain, said with the question's own predicate or a verb that denies it.
PETS = ("pets_allowed", "Are pets allowed in the rental units under the Maple Lease?", "Maple Lease")
YES_NO = [
    ("Pets are not allowed in the rental units.", False),
    ("Tenants may not keep pets in the units.", False),
    ("Pets are prohibited.", False),
    ("No pets are allowed.", False),
    ("Pets are permitted with a deposit of $300.", True),
    ("Yes - pets are allowed, subject to a $300 deposit.", True),
    ("Tenants can keep pets with prior written approval.", True),
    ("Yes. Pets not registered with the landlord must be removed.", True),  # the opening answers
    ("No. Section 4: pets are allowed only in ground-floor units.", False),
]


@pytest.mark.parametrize(("reply", "says"), YES_NO)
def test_a_yes_or_no_is_read_from_the_questions_predicate_in_any_domain(reply: str, says: bool) -> None:
    from assay.scorers.value_match import _terms, decide, expected_of
    from assay.text import unicode

    terms = _terms(*PETS)
    for expected in (True, False):
        value = expected_of({"value": expected, "unit": None}, None, "bool", ()).value
        assert value is not None
        assert decide(value, unicode.fold(reply), (), terms).passed is (expected is says), (reply, expected)


@pytest.mark.parametrize(
    "reply",
    [
        ("The refund window for annual plans is 30 days. " * 25_000)[:1_000_000],  # a clause a value
        "annual refund within 30 days and 14 days " * 25_000,  # one clause of 50,000 values
    ],
)
def test_a_megabyte_reply_with_the_fields_terms_takes_seconds(reply: str) -> None:

    from assay.scorers.value_match import _terms, decide, expected_of
    from assay.text import unicode

    expected = expected_of({"value": 30, "unit": "days"}, None, None, ()).value
    assert expected is not None
    terms = _terms("annual_refund_window", "Within how many days can an annual plan be refunded?", "X")
    assert_within(lambda: decide(expected, unicode.fold(reply), (), terms), 15 * SECOND, "a megabyte reply")


def test_a_megabyte_of_distinct_figures_is_grounded_in_seconds_and_not_vouched_for(
    gold: tuple[Path, dict[str, dict[str, Any]]],
) -> None:

    from assay.parts import Citation
    from assay.scorers.grounding import load_run_sources
    from assay.scorers.grounding.check import MAX_FIGURES, ground
    from assay.scorers.grounding.citations import Item, Library

    sources, _ = gold
    library = Library(load_run_sources(sources))
    reply = " ".join(f"{number} seats" for number in range(1, 90_000))  # 1.2 MB
    item = Item(scope=DOCUMENT, source_document=DOCUMENT, source_title="Nimbus Cloud")
    grounded: list[Any] = []
    cited = [Citation(document=DOCUMENT, page=3)]
    assert_within(lambda: grounded.append(ground(reply, cited, [], item, library)), 15 * SECOND, "a megabyte")
    grounding = grounded[0]
    assert not grounding.passed
    assert any(f"the first {MAX_FIGURES} were checked" in problem for problem in grounding.problems)
