"""A gold set built without templates asks readable questions (by the field's name and value type, across
domains), takes its categories from the facts' own grouping, and `assay gold templates` writes a file that
loads back and builds the same gold set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzzing import SEED, examples, fuzz_settings, one_example
from hypothesis import given, seed
from hypothesis import strategies as st

from assay.cli import main
from assay.harness.facts import Claim, FactsFile
from assay.harness.template_writing import field_templates, templates_text
from assay.harness.templates import check_question, inferred_template, load_templates

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gold"


def _question(field: str, value: object, unit: str | None = None) -> tuple[str, str]:
    template = inferred_template(Claim(document="d", field=field, value=value, unit=unit))
    return template.answer_type, template.questions[0].replace("{title}", "DOC")


@pytest.mark.parametrize(
    ("field", "value", "unit", "answer_type", "question"),
    [
        # an SLA
        ("uptime_percent", 99.9, None, "percent", "What is the uptime of DOC, as a percentage?"),
        ("response_time_hours", 4, None, "number_unit", "What is the response time of DOC, in hours?"),
        ("credits_available", True, None, "bool", "Are credits available under DOC?"),
        ("is_transferable", False, None, "bool", "Is DOC transferable?"),
        ("is_credit_included", False, None, "bool", "Is credit included under DOC?"),
        ("is_pet_friendly", True, None, "bool", "Is DOC pet friendly?"),
        ("incident_count", 3, None, "number_unit", "How many incidents are there under DOC?"),
        # a price list
        ("monthly_refundable", True, None, "bool", "Is the monthly option refundable under DOC?"),
        ("monthlyPriceUsd", 29, None, "money", "How much is the monthly price of DOC, in USD?"),
        ("annual_price", 290, "USD", "money", "How much is the annual price of DOC, in USD?"),
        ("has_free_trial", True, None, "bool", "Does DOC have free trial?"),
        ("early_termination_allowed", True, None, "bool", "Is early termination allowed under DOC?"),
        ("supported_region", ["EU", "US"], None, "text", "What are the supported regions of DOC?"),
        ("price_effective_date", "1 April 2025", None, "date", "What is the price effective date of DOC?"),
        ("renewal_deadline", "1 April 2025", None, "date", "When is the renewal deadline of DOC?"),
        # a medical leaflet
        ("max_daily_dose_mg", 4000, "mg", "number_unit", "What is the maximum daily dose of DOC, in mg?"),
        ("take_with_food", True, None, "bool", "According to DOC, should you take with food?"),
        ("can_drive_after_dose", False, None, "bool", "Can one drive after dose under DOC?"),
        ("shelf_life_months", 24, None, "number_unit", "What is the shelf life of DOC, in months?"),
        ("active_ingredient", "paracetamol", None, "text", "What is the active ingredient of DOC?"),
        ("sla_response_window", 4, "business day", "number_unit",
         "What is the sla response window of DOC, in business days?"),  # the unit's last word plural
        # a word that merely ends in -ly is a thing, not a how-often option
        ("family_covered", True, None, "bool", "Is family covered under DOC?"),
        ("supply_included", True, None, "bool", "Is supply included under DOC?"),
        # a name of no words
        ("", [30, 60], None, "text", "What are the values of DOC?"),
        ("__", True, None, "bool", "Is there value under DOC?"),
        # an insurance policy (the shared facts' names)
        ("grace_period", 30, "days", "number_unit", "What is the grace period of DOC, in days?"),
        ("ayush_coverage", True, None, "bool", "Is there ayush coverage under DOC?"),
        ("organ_donor_expenses", True, "boolean", "bool", "Are there organ donor expenses under DOC?"),
        ("modern_treatments_covered", False, "boolean", "bool", "Are modern treatments covered under DOC?"),
        ("day_care_treatments_count", 586, "count", "number_unit",
         "How many day care treatments are there under DOC?"),
        ("policy_type_indemnity_or_fixed", "family_floater", "enum", "enum",
         "Is the policy type of DOC indemnity or fixed?"),
    ],
)  # fmt: skip
def test_a_field_name_and_its_value_type_give_a_readable_question(
    field: str, value: object, unit: str | None, answer_type: str, question: str
) -> None:
    assert _question(field, value, unit) == (answer_type, question)


# --- built end to end ----------------------------------------------------------------------------------

SLA_TEXT = """ACME CLOUD SERVICE LEVEL AGREEMENT
1. Availability. The service will be available 99.9% of each calendar month.
2. Support. Priority 1 incidents receive a first response within 4 hours.
3. Credits. Service credits are available when availability falls below the commitment.
"""
PRICE_TEXT = """NIMBUS PRO PRICING AND REFUND POLICY
The Pro plan costs USD 29 per month. Monthly plans are refundable within 14 days of purchase.
Annual plans may be cancelled at any time.
"""


def _claim(field: str, value: Any, quote: str, path: str, **extra: Any) -> dict[str, Any]:
    return {"field": field, "value": value, "source": {"path": path, "quote": quote}, **extra}


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    """An SLA (assay's schema, a `section` per claim, no title) and a price list (the flat layout, its
    fields in sections, a title), with their text documents."""
    sources, facts = tmp_path / "sources", tmp_path / "facts"
    sources.mkdir()
    facts.mkdir()
    (sources / "acme-cloud-sla.txt").write_text(SLA_TEXT, encoding="utf-8")
    (sources / "nimbus-pro-pricing.txt").write_text(PRICE_TEXT, encoding="utf-8")
    sla = {
        "document": "acme-cloud-sla",
        "claims": [
            _claim("uptime_percent", 99.9, "available 99.9% of each calendar month", "acme-cloud-sla.txt",
                   section="availability"),
            _claim("response_time_hours", 4, "a first response within 4 hours", "acme-cloud-sla.txt",
                   section="support"),
            _claim("credits_available", True, "Service credits are available", "acme-cloud-sla.txt",
                   section="credits"),
            {"field": "credit_cap_percent", "value": None, "section": "credits"},  # stated nowhere yet
        ],
    }  # fmt: skip
    quote = {"source_pdf_path": "nimbus-pro-pricing.txt"}
    prices = {
        "policy_id": "nimbus-pro-pricing",
        "policy_name": "Nimbus Pro Pricing and Refund Policy",
        "pricing": {"monthly_price_usd": {"value": 29, **quote, "source_quote": "costs USD 29 per month"}},
        "refunds": {
            "monthly_refundable": {
                "value": True, **quote, "source_quote": "Monthly plans are refundable within 14 days"
            },
            "refund_window_days": {"value": 14, **quote, "source_quote": "refundable within 14 days"},
        },
    }  # fmt: skip
    (facts / "acme-cloud-sla.json").write_text(json.dumps(sla), encoding="utf-8")
    (facts / "nimbus-pro-pricing.json").write_text(json.dumps(prices), encoding="utf-8")
    return facts, sources


def _build(facts: Path, sources: Path, out: Path, *extra: str) -> list[dict[str, Any]]:
    argv = [
        "gold",
        "build",
        "--facts",
        str(facts),
        "--sources",
        str(sources),
        "--no-cache",
        "--out",
        str(out),
    ]
    assert main([*argv, *extra]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("field", "quote", "question"),
    [
        ("uin_code", "Product UIN: SURHLIP26001V012526", "What is the UIN code of DOC?"),
        ("sla_uptime_target", "Under this SLA the monthly uptime target is 99.9%.",
         "What is the SLA uptime target of DOC?"),
        # a heading in capitals says nothing of acronyms
        ("grace_period", "GRACE PERIOD OF THIRTY DAYS", "What is the grace period of DOC?"),
        ("grace_period", None, "What is the grace period of DOC?"),
    ],
)  # fmt: skip
def test_a_question_spells_an_acronym_as_the_document_does(
    field: str, quote: str | None, question: str
) -> None:
    claim = Claim(document="d", field=field, value="x", quote=quote)
    assert inferred_template(claim).questions[0].replace("{title}", "DOC") == question


def test_a_build_without_templates_asks_readable_questions_in_the_facts_own_categories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = _corpus(tmp_path)
    items = _build(facts, sources, tmp_path / "gold.jsonl")
    asked = sorted((item["category"], item["field"], item["question"]) for item in items)
    assert asked == [
        ("availability", "uptime_percent", "What is the uptime of Acme Cloud Sla, as a percentage?"),
        ("credits", "credits_available", "Are credits available under Acme Cloud Sla?"),
        ("pricing", "pricing.monthly_price_usd",
         "How much is the monthly price of Nimbus Pro Pricing and Refund Policy, in USD?"),
        ("refunds", "refunds.monthly_refundable",
         "Is the monthly option refundable under Nimbus Pro Pricing and Refund Policy?"),
        ("refunds", "refunds.refund_window_days",
         "What is the refund window of Nimbus Pro Pricing and Refund Policy, in days?"),
        ("support", "response_time_hours", "What is the response time of Acme Cloud Sla, in hours?"),
    ]  # fmt: skip
    capsys.readouterr()
    assert main(["lint", str(tmp_path / "gold.jsonl"), "--sources", str(sources), "--no-cache"]) == 0


def test_a_dotted_field_name_is_its_group_and_a_template_without_a_category_keeps_it(tmp_path: Path) -> None:
    facts, sources = _corpus(tmp_path)
    sla = json.loads((facts / "acme-cloud-sla.json").read_text(encoding="utf-8"))
    for claim, separator in zip(sla["claims"], [".", "__", ".", "."]):
        claim["field"] = f"{claim.pop('section')}{separator}{claim['field']}"
    (facts / "acme-cloud-sla.json").write_text(json.dumps(sla), encoding="utf-8")
    templates = tmp_path / "t.toml"
    templates.write_text(
        '[fields.uptime_percent]\nquestions = ["How available is {title}?"]\nanswer_type = "percent"\n'
        '[fields.monthly_refundable]\nquestions = ["Can a monthly plan of {title} be refunded?"]\n'
        'answer_type = "bool"\ncategory = "money back"\n',
        encoding="utf-8",
    )
    items = _build(facts, sources, tmp_path / "gold.jsonl", "--templates", str(templates))
    asked = sorted((item["category"], item["question"]) for item in items)
    assert asked == [
        ("availability", "How available is Acme Cloud Sla?"),  # the file's template, the facts' group
        ("money back", "Can a monthly plan of Nimbus Pro Pricing and Refund Policy be refunded?"),
    ]
    # Without templates: support__response_time_hours is in the group support, asked by its own name.
    items = _build(facts, sources, tmp_path / "inferred.jsonl")
    asked = {item["field"]: (item["category"], item["question"]) for item in items}
    assert asked["support__response_time_hours"] == (
        "support",
        "What is the response time of Acme Cloud Sla, in hours?",
    )


# --- assay gold templates --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["templates.toml", "templates.yaml"])
def test_the_written_templates_file_loads_back_and_builds_the_same_gold_set(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = _corpus(tmp_path)
    out = tmp_path / name
    assert main(["gold", "templates", "--facts", str(facts), "--out", str(out)]) == 0
    templates = load_templates(out)
    assert sorted(templates.fields) == [
        "credit_cap_percent", "credits_available", "pricing.monthly_price_usd", "refunds.monthly_refundable",
        "refunds.refund_window_days", "response_time_hours", "uptime_percent",
    ]  # fmt: skip
    refunds = templates.for_field("refunds.monthly_refundable")
    assert refunds is not None and (refunds.category, refunds.answer_type) == ("refunds", "bool")
    assert refunds.questions == ("Is the monthly option refundable under {title}?",)
    cap = templates.for_field("credit_cap_percent")  # no value to type it: typed by its name's unit
    assert cap is not None and (cap.answer_type, cap.category) == ("percent", "credits")
    without = _build(facts, sources, tmp_path / "without.jsonl")
    with_file = _build(facts, sources, tmp_path / "with.jsonl", "--templates", str(out))
    assert with_file == without


def test_the_templates_command_keeps_an_existing_file_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, _ = _corpus(tmp_path)
    out = tmp_path / "templates.toml"
    out.write_text("# the team's edits\n", encoding="utf-8")
    argv = ["gold", "templates", "--facts", str(facts), "--out", str(out)]
    assert main(argv) == 2
    assert "exists" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "# the team's edits\n"
    assert main([*argv, "--force"]) == 0
    assert load_templates(out).for_field("uptime_percent") is not None
    assert main(["gold", "templates", "--facts", str(facts), "--out", str(tmp_path / "t.json")]) == 2
    assert not (tmp_path / "t.json").exists()
    capsys.readouterr()
    assert main(["gold", "templates", "--facts", str(facts)]) == 0  # to standard output
    assert '[fields."refunds.monthly_refundable"]' in capsys.readouterr().out


def test_the_bundled_example_builds_with_readable_questions_and_from_its_written_templates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = EXAMPLE / "facts", EXAMPLE / "sources"
    without = _build(facts, sources, tmp_path / "without.jsonl")
    questions = {item["field"]: item["question"] for item in without}
    assert questions["ayush_coverage"] == "Is there ayush coverage under Suraksha Health Plus?"
    assert questions["grace_period"] == "What is the grace period of Suraksha Health Plus, in days?"
    assert not any("include" in question for question in questions.values())
    out = tmp_path / "templates.toml"
    assert main(["gold", "templates", "--facts", str(facts), "--out", str(out)]) == 0
    assert _build(facts, sources, tmp_path / "with.jsonl", "--templates", str(out)) == without


def test_a_group_longer_than_a_template_category_refuses_the_facts_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, _ = _corpus(tmp_path)
    sla = json.loads((facts / "acme-cloud-sla.json").read_text(encoding="utf-8"))
    sla["claims"][0]["section"] = "x" * 1_001  # a written templates file could not be read back
    (facts / "acme-cloud-sla.json").write_text(json.dumps(sla), encoding="utf-8")
    assert main(["gold", "templates", "--facts", str(facts), "--out", str(tmp_path / "t.toml")]) == 2
    assert "'section' is 1,001 characters long" in capsys.readouterr().err
    assert not (tmp_path / "t.toml").exists()


# --- any field name ----------------------------------------------------------------------------------------

_NAMES = st.text(max_size=200) | st.from_regex(r"[a-z]{1,8}(?:[_.]{1,2}[a-zA-Z]{1,8}){0,5}", fullmatch=True)
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40), st.lists(st.integers(0, 100), max_size=3),
)  # fmt: skip
# A group as the facts reader gives it (facts.claim_group): its white space collapsed, never empty.
_GROUPS = st.text(min_size=1, max_size=30).map(lambda text: " ".join(text.split())).filter(bool)
_UNITS = st.none() | st.sampled_from(["days", "%", "INR", "USD", "mg", "boolean", "enum", "count", "hours"])


@seed(SEED)
@fuzz_settings(examples(200))
@given(field=_NAMES, value=_VALUES, unit=_UNITS, group=st.none() | _GROUPS)
def test_any_field_gives_a_question_a_templates_file_reads_back(
    tmp_path_factory: pytest.TempPathFactory, field: str, value: object, unit: str | None, group: str | None
) -> None:
    claim = Claim(document="d", field=field, value=value, unit=unit, group=group)
    with one_example():
        template = inferred_template(claim)
        (question,) = template.questions
        check_question(question, "inferred")  # plain {title}, balanced braces, bounded
        assert question.count("{title}") == 1 and question.endswith("?")
        facts = FactsFile(path="d.json", document="d", title="D", adapter="default", claims=(claim,))
        ((template, _),) = field_templates([facts])  # a null value is typed by its unit for the file
        for suffix in ("toml", "yaml"):
            path = tmp_path_factory.mktemp("t") / f"templates.{suffix}"
            path.write_text(templates_text([facts], yaml=suffix == "yaml"), encoding="utf-8")
            read = load_templates(path).for_field(field)
            assert read is not None
            assert (read.questions, read.answer_type) == (template.questions, template.answer_type)
            assert read.category == template.category


def test_a_field_grouped_differently_across_facts_files_is_written_without_a_category() -> None:
    """One field in two documents' facts, in another group in each: the written template names no
    category, so that each item keeps its own claim's group, as a build without templates gives it."""
    claims = [
        Claim(document="a", field="refund_window_days", value=14, group="refunds"),
        Claim(document="b", field="refund_window_days", value=30, group="billing"),
        Claim(document="b", field="uptime_percent", value=99.9, group="service"),
    ]
    facts = [
        FactsFile(
            f"{claim.document}.json", claim.document, claim.document.upper(), "default", claims=(claim,)
        )
        for claim in claims
    ]
    written = {template.field: template.category for template, _ in field_templates(facts)}
    assert written == {"refund_window_days": None, "uptime_percent": "service"}
    text = templates_text(facts)
    assert "# category: none, its claims' groups differ" in text and 'category = "service"' in text


def test_a_unit_with_braces_is_asked_as_written() -> None:
    """A unit is the facts file's own text: a brace in it is no placeholder (a fuzzer found '{')."""
    from assay.harness.questions import unit_phrase
    from assay.harness.templates import ask

    question = "What is the grace period of {title}" + unit_phrase("{") + "?"
    assert ask(question, title="Acme Plan", document="acme") == "What is the grace period of Acme Plan, in {?"
