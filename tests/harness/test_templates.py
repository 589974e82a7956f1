"""Question templates: TOML and YAML read alike, every mistake named with its file, key and fix."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from assay.errors import InputError
from assay.harness.facts import Claim
from assay.harness.templates import (
    ask,
    category_of,
    field_words,
    inferred_template,
    load_templates,
    parse_templates,
    template_for,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"

TOML = """
[fields.grace_period]
questions = ["What is the grace period of {title}?", "How long is the grace period in {document}?"]
answer_type = "number_unit"
unit = "day"
category = "renewal"
aliases = ["grace_period_days"]

[fields.ayush_coverage]
questions = ["Does {title} cover AYUSH?"]
answer_type = "bool"
yes = "Yes, covered"
no = "No, not covered"

[fields.region]
questions = ["Where does {title} cover treatment?"]
answer_type = "enum"
labels = { pan_india = "India only" }

[[refusals]]
question = "What does {title} cost?"
documents = ["acme__alpha"]
"""

YAML = """
fields:
  grace_period:
    questions: ["What is the grace period of {title}?", "How long is the grace period in {document}?"]
    answer_type: number_unit
    unit: day
    category: renewal
    aliases: [grace_period_days]
  ayush_coverage:
    questions: ["Does {title} cover AYUSH?"]
    answer_type: bool
    yes: "Yes, covered"
    no: "No, not covered"
  region:
    questions: ["Where does {title} cover treatment?"]
    answer_type: enum
    labels: {pan_india: India only}
refusals:
  - question: "What does {title} cost?"
    documents: [acme__alpha]
"""


@pytest.mark.parametrize(("name", "text"), [("t.toml", TOML), ("t.yaml", YAML), ("t.yml", YAML)])
def test_toml_and_yaml_read_alike(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    templates = load_templates(path)
    grace = templates.for_field("grace_period")
    assert grace is not None and grace is templates.for_field("grace_period_days")  # the alias
    assert (grace.answer_type, grace.unit, grace.category, len(grace.questions)) == (
        "number_unit",
        "day",
        "renewal",
        2,
    )
    ayush = templates.for_field("ayush_coverage")
    assert ayush is not None and (ayush.yes, ayush.no) == ("Yes, covered", "No, not covered")
    # No category: the item's is the facts' own group of the field, else "general".
    assert ayush.category is None
    assert category_of(ayush, _claim("ayush_coverage", True)) == "general"
    assert category_of(ayush, dataclasses.replace(_claim("ayush_coverage", True), group="cover")) == "cover"
    assert category_of(grace, dataclasses.replace(_claim("grace_period", 30), group="cover")) == "renewal"
    region = templates.for_field("region")
    assert region is not None and dict(region.labels) == {"pan_india": "India only"}
    (refusal,) = templates.refusals
    assert refusal.applies_to("acme__alpha") and not refusal.applies_to("acme__beta")


@pytest.mark.parametrize(
    ("data", "where", "fix_words"),
    [
        (
            {"fields": {"f": {"questions": ["Q {title}?"], "answer_type": "number"}}},
            "fields.f",
            "answer_type",
        ),
        ({"fields": {"f": {"questions": [], "answer_type": "text"}}}, "fields.f", "at least one question"),
        ({"fields": {"f": {"questions": ["Q {name}?"], "answer_type": "text"}}}, "fields.f", "{title}"),
        ({"fields": {"f": {"questions": ["Q {title?"], "answer_type": "text"}}}, "fields.f", "literal brace"),
        (
            {"fields": {"f": {"questions": ["Q?"], "answer_type": "text", "units": "day"}}},
            "fields.f",
            "use only",
        ),
        ({"fields": {"f": {"questions": "Q?", "answer_type": "text"}}}, "fields.f", "list of strings"),
        (
            {
                "fields": {
                    "a": {"questions": ["Q?"], "answer_type": "text"},
                    "b": {"questions": ["Q?"], "answer_type": "text", "aliases": ["a"]},
                }
            },
            "fields.b",
            "keep one",
        ),
        ({"refusals": {"question": "Q?"}}, "t.toml", "[[refusals]]"),
        ({"refusals": [{"answer": "no"}]}, "refusals[0]", "'question'"),
        ({"field": {}}, "t.toml", "'fields' and 'refusals'"),
        (["a list"], "t.toml", "table"),
        (
            {"fields": {"f": {"questions": ["Q?"], "answer_type": "bool", "yes": True}}},
            "fields.f",
            "quote it",
        ),
    ],
)
def test_mistakes_name_the_file_the_key_and_the_fix(data: object, where: str, fix_words: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_templates(data, where="t.toml")
    assert where in raised.value.message and fix_words in raised.value.message


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("bad.toml", "[fields\n", "bad.toml"),
        ("bad.yaml", "fields:\n  a: [1,\n", "bad.yaml:"),
        ("bad.json", "{}", "bad.json"),
    ],
)
def test_unreadable_files_are_input_errors(tmp_path: Path, name: str, text: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_templates(path)
    assert where in raised.value.message and raised.value.fix


def _claim(field: str, value: object, unit: str | None = None) -> Claim:
    return Claim(document="acme__alpha", field=field, value=value, unit=unit)


@pytest.mark.parametrize(
    ("field", "value", "unit", "answer_type", "question"),
    [
        ("grace_period", 30, "days", "number_unit", "What is the grace period of {title}, in days?"),
        (
            "initial_waiting_period_days",
            30,
            None,
            "number_unit",
            "What is the initial waiting period of {title}, in days?",
        ),
        ("co_payment_pct", 20, None, "percent", "What is the co payment of {title}, as a percentage?"),
        ("deductible", 5000, "INR", "money", "How much is the deductible of {title}, in rupees?"),
        ("ayush_coverage", True, None, "bool", "Is there ayush coverage under {title}?"),
        ("geographic_coverage", "pan_india", "enum", "enum", "What is the geographic coverage of {title}?"),
        ("uin_code", "ABC123", None, "text", "What is the uin code of {title}?"),
    ],
)
def test_without_a_file_templates_are_inferred_from_the_claim(
    field: str, value: object, unit: str | None, answer_type: str, question: str
) -> None:
    template = inferred_template(_claim(field, value, unit))
    assert (template.answer_type, template.questions, template.inferred) == (answer_type, (question,), True)


def test_with_a_file_a_field_it_lacks_has_no_template() -> None:
    templates = parse_templates({"fields": {}}, where="t.toml")
    assert template_for(_claim("grace_period", 30), templates) is None
    assert template_for(_claim("grace_period", 30), None) is not None


def test_questions_are_filled_with_title_and_document() -> None:
    assert (
        ask("Is {title} ({document}) {{odd}}?", title="Acme", document="acme__a")
        == "Is Acme (acme__a) {odd}?"
    )
    assert field_words("pre_existing_disease_waiting_months") == "pre existing disease waiting"


def test_the_shipped_insurance_templates_load_and_cover_the_curated_fields() -> None:
    templates = load_templates(EXAMPLE)
    for field in (
        "grace_period",
        "free_look_period",
        "initial_waiting_period_days",
        "co_payment_pct",
        "copayment_pct",
        "no_claim_bonus_pct",
        "ayush_coverage",
        "geographic_coverage",
        "uin_code",
        "day_care_treatments_count",
        "policy_type",
    ):
        assert templates.for_field(field) is not None, field
    assert len(templates.refusals) == 3
