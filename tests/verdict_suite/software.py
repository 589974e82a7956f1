"""The second corpus: a software company's service level agreement and price list, written as real PDFs
(tests/support/pdfgen.py), with their facts in assay's default schema and their question templates.

Each value is stated on the page where it belongs, and some numbers are stated again on other pages for
other clauses (30 days is the credit claim window, the data retention period, the refund window and the
invoice term; 60 days is the termination notice and the price change notice), so a citation to the wrong
page can hold the right number for the wrong clause.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfgen

COMPANY = "nimbus"


@dataclass(frozen=True)
class Claim:
    """One fact of a document: field, value, unit and the quote that states it (a line of a page)."""

    field: str
    value: Any
    unit: str | None
    quote: str


@dataclass(frozen=True)
class SoftwareDocument:
    """A generated document: its file under the sources folder, its title, pages and facts."""

    name: str  # the file's stem under COMPANY/
    title: str
    pages: tuple[tuple[str, ...], ...]
    claims: tuple[Claim, ...]

    @property
    def path(self) -> str:
        return f"{COMPANY}/{self.name}.pdf"

    @property
    def document_id(self) -> str:
        return f"{COMPANY}__{self.name}"


SLA_PAGES = (
    (
        "Nimbus Workspace Service Level Agreement",
        "Version 4.2, effective 1 March 2025.",
        "This agreement applies to every paid plan of Nimbus Workspace.",
        "1. Definitions",
        "Business day means Monday to Friday, excluding public holidays.",
        "Business hours means the working hours of a business day in the customer's region.",
    ),
    (
        "2. Service availability",
        "Nimbus commits to a monthly uptime of 99.9% for the Workspace service.",
        "Scheduled maintenance is announced at least 48 hours in advance.",
        "Scheduled maintenance does not count as downtime.",
        "3. Support",
        "Critical incidents receive a first response within 4 business hours.",
        "Standard requests receive a first response within 2 business days.",
    ),
    (
        "4. Service credits",
        "A month below the uptime commitment earns a service credit of 10% of the monthly fee.",
        "Service credits must be claimed within 30 days of the end of the affected month.",
        "Customers are not eligible for service credits for scheduled maintenance.",
        "Service credits are capped at 50% of the monthly fee.",
    ),
    (
        "5. Termination and data",
        "Customer data is retained for 30 days after cancellation, then deleted.",
        "Either party may terminate this agreement with 60 days written notice.",
        "For customers in India, liability is capped at Rs. 2,00,00,000 per contract year.",
        "An incident report is published within 5 business days of a critical incident.",
    ),
)

PRICE_PAGES = (
    (
        "Nimbus Workspace Price List",
        "All prices are in US dollars and exclude taxes.",
        "Team plan: $12 per user per month, for up to 25 users.",
        "Business plan: $1,499 per year, for up to 100 users.",
        "Enterprise plan: priced on request.",
        "In India the Business plan costs Rs. 1,25,000 per year, billed in rupees.",
        "Enterprise plans in India start at Rs. 5,00,000 per year.",
        "Invoices are payable within 30 days of the invoice date.",
    ),
    (
        "Plan features",
        "Single sign-on (SSO) is included in the Business plan.",
        "API access is not allowed on the Free plan.",
        "Priority support is included in the Enterprise plan only.",
        "A free trial of 14 days is available on every paid plan.",
    ),
    (
        "Billing and refunds",
        "Annual plans are refundable within 30 days of purchase.",
        "Monthly subscriptions are not refundable.",
        "Prices may change with 60 days notice to the customer.",
    ),
)


def _line(pages: Sequence[Sequence[str]], words: str) -> str:
    """The line of `pages` holding `words`: a quote is always a line the PDF really has."""
    found = [line for page in pages for line in page if words in line]
    assert len(found) == 1, f"{words!r} is on {len(found)} lines"
    return found[0]


def _claims(
    pages: Sequence[Sequence[str]], rows: Sequence[tuple[str, Any, str | None, str]]
) -> tuple[Claim, ...]:
    return tuple(Claim(field, value, unit, _line(pages, words)) for field, value, unit, words in rows)


SLA = SoftwareDocument(
    "sla",
    "Nimbus Workspace Service Level Agreement",
    SLA_PAGES,
    _claims(SLA_PAGES, (
        ("uptime_commitment_pct", 99.9, "%", "monthly uptime of 99.9%"),
        ("maintenance_notice_hours", 48, "hours", "announced at least 48 hours"),
        ("critical_response_business_hours", 4, "business hours", "first response within 4 business hours"),
        ("standard_response_business_days", 2, "business days", "first response within 2 business days"),
        ("service_credit_pct", 10, "%", "service credit of 10%"),
        ("service_credit_claim_days", 30, "days", "claimed within 30 days"),
        ("service_credit_cap_pct", 50, "%", "capped at 50%"),
        ("maintenance_credit_eligible", False, "boolean", "not eligible for service credits"),
        ("data_retention_days", 30, "days", "retained for 30 days"),
        ("termination_notice_days", 60, "days", "terminate this agreement with 60 days"),
        ("liability_cap_india", 20000000, "INR", "liability is capped at Rs. 2,00,00,000"),
        ("incident_report_business_days", 5, "business days", "within 5 business days"),
    )),
)  # fmt: skip

PRICE_LIST = SoftwareDocument(
    "price-list",
    "Nimbus Workspace Price List",
    PRICE_PAGES,
    _claims(PRICE_PAGES, (
        ("team_price_per_user_month", 12, "USD", "Team plan: $12"),
        ("team_seat_limit", 25, "users", "up to 25 users"),
        ("business_annual_price_india", 125000, "INR", "Rs. 1,25,000"),
        ("enterprise_minimum_price_india", 500000, "INR", "Rs. 5,00,000"),
        ("business_annual_price", 1499, "USD", "Business plan: $1,499"),
        ("business_seat_limit", 100, "users", "up to 100 users"),
        ("invoice_payment_days", 30, "days", "payable within 30 days"),
        ("sso_included", True, "boolean", "Single sign-on (SSO) is included"),
        ("api_access_allowed_free", False, "boolean", "API access is not allowed"),
        ("priority_support_business", False, "boolean", "Priority support is included in the Enterprise"),
        ("free_trial_days", 14, "days", "free trial of 14 days"),
        ("annual_refund_window_days", 30, "days", "refundable within 30 days"),
        ("monthly_plan_refundable", False, "boolean", "Monthly subscriptions are not refundable"),
        ("price_change_notice_days", 60, "days", "Prices may change with 60 days"),
    )),
)  # fmt: skip

DOCUMENTS = (SLA, PRICE_LIST)

TEMPLATES = """
# Question templates for the generated software SLA and price list (tests/verdict_suite).

[fields.uptime_commitment_pct]
questions = ["What monthly uptime does the {title} commit to?"]
answer_type = "percent"

[fields.maintenance_notice_hours]
questions = ["How much notice is given before scheduled maintenance under the {title}?"]
answer_type = "number_unit"
unit = "hour"

[fields.critical_response_business_hours]
questions = ["What is the first response time for critical incidents under the {title}?"]
answer_type = "number_unit"

[fields.standard_response_business_days]
questions = ["What is the first response time for standard support requests under the {title}?"]
answer_type = "number_unit"

[fields.service_credit_pct]
questions = ["What service credit does a month below the uptime commitment earn under the {title}?"]
answer_type = "percent"

[fields.service_credit_claim_days]
questions = ["Within how many days must service credits be claimed under the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.service_credit_cap_pct]
questions = ["What is the cap on service credits under the {title}?"]
answer_type = "percent"

[fields.maintenance_credit_eligible]
questions = ["Are customers eligible for service credits for scheduled maintenance under the {title}?"]
answer_type = "bool"
yes = "Yes, customers are eligible for service credits for scheduled maintenance"
no = "No, customers are not eligible for service credits for scheduled maintenance"

[fields.data_retention_days]
questions = ["How long is customer data retained after cancellation under the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.termination_notice_days]
questions = ["How much notice is needed to terminate the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.liability_cap_india]
questions = ["What is the liability cap for customers in India under the {title}?"]
answer_type = "money"

[fields.incident_report_business_days]
questions = ["Within what time is an incident report published after a critical incident under the {title}?"]
answer_type = "number_unit"

[fields.team_price_per_user_month]
questions = ["What is the monthly price per user of the Team plan in the {title}?"]
answer_type = "money"

[fields.team_seat_limit]
questions = ["How many users can the Team plan have according to the {title}?"]
answer_type = "number_unit"
unit = "count"

[fields.business_annual_price]
questions = ["What is the annual price of the Business plan in the {title}?"]
answer_type = "money"

[fields.business_annual_price_india]
questions = ["What does the Business plan cost per year in India according to the {title}?"]
answer_type = "money"

[fields.enterprise_minimum_price_india]
questions = ["What is the minimum annual price of an Enterprise plan in India according to the {title}?"]
answer_type = "money"

[fields.business_seat_limit]
questions = ["How many users can the Business plan have according to the {title}?"]
answer_type = "number_unit"
unit = "count"

[fields.invoice_payment_days]
questions = ["Within how many days are invoices payable according to the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.sso_included]
questions = ["Is single sign-on (SSO) included in the Business plan according to the {title}?"]
answer_type = "bool"
yes = "Yes, single sign-on is included in the Business plan"
no = "No, single sign-on is not included in the Business plan"

[fields.api_access_allowed_free]
questions = ["Is API access allowed on the Free plan according to the {title}?"]
answer_type = "bool"
yes = "Yes, API access is allowed on the Free plan"
no = "No, API access is not allowed on the Free plan"

[fields.priority_support_business]
questions = ["Is priority support included in the Business plan according to the {title}?"]
answer_type = "bool"
yes = "Yes, priority support is included in the Business plan"
no = "No, priority support is not included in the Business plan"

[fields.free_trial_days]
questions = ["How long is the free trial according to the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.annual_refund_window_days]
questions = ["Within how many days of purchase are annual plans refundable according to the {title}?"]
answer_type = "number_unit"
unit = "day"

[fields.monthly_plan_refundable]
questions = ["Are monthly subscriptions refundable according to the {title}?"]
answer_type = "bool"
yes = "Yes, monthly subscriptions are refundable"
no = "No, monthly subscriptions are not refundable"

[fields.price_change_notice_days]
questions = ["How much notice is given before prices change according to the {title}?"]
answer_type = "number_unit"
unit = "day"

[[refusals]]
question = "Which data centre hosts customers in Brazil under the {title}?"
answer = "The documents do not state which data centre hosts customers in Brazil."

[[refusals]]
question = "How many employees does the company behind the {title} have?"
answer = "The documents do not give the number of employees."

[[refusals]]
question = "What does the {title} charge in euros?"
answer = "The documents do not state prices in euros."
"""


def write_corpus(root: Path) -> tuple[Path, Path, Path]:
    """The PDFs under root/pdfs, the facts under root/facts and the templates file: (pdfs, facts,
    templates)."""
    pdfs, facts = root / "pdfs", root / "facts"
    facts.mkdir(parents=True, exist_ok=True)
    for document in DOCUMENTS:
        pdfgen.pages_pdf(pdfs / COMPANY, f"{document.name}.pdf", document.pages)
        (facts / f"{document.document_id}.json").write_text(json.dumps(_facts(document), indent=1), "utf-8")
    templates = root / "software_templates.toml"
    templates.write_text(TEMPLATES, encoding="utf-8")
    return pdfs, facts, templates


def _facts(document: SoftwareDocument) -> dict[str, Any]:
    """The document's facts in assay's default schema (docs/gold.md)."""
    claims = [
        {
            "field": claim.field,
            "value": claim.value,
            **({"unit": claim.unit} if claim.unit else {}),
            "source": {"path": document.path, "quote": claim.quote},
            "confidence": "high",
        }
        for claim in document.claims
    ]
    return {
        "document": document.document_id,
        "title": document.title,
        "sources": [document.path],
        "claims": claims,
    }
