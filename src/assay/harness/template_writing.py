"""A starting templates file written from the facts (``assay gold templates``): one entry per field.

Each entry is the template a build without templates infers for the field (``templates.inferred_template``:
its question, its answer type, its category from the facts' own grouping), written in the format
``templates.load_templates`` reads (TOML, or YAML by the suffix), so that the file, unedited, builds the
gold set the build without it builds. A field's template is inferred from its first claim (in the facts
files' order) that states a value: a field null in one file and stated in another is typed by its value.
The team edits the questions (adds variants), categories, yes/no answers and enum labels from there.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from ..errors import InputError
from ..values import canonical_unit
from .facts import Claim, FactsFile, shown
from .questions import unit_of_name
from .template_reading import MAX_TEMPLATES_BYTES
from .templates import FieldTemplate, inferred_template

HEADER = """\
Question templates for {fields} of {files}, written by `assay gold templates` as a
starting point: each question is the one `assay gold build` asks without templates. Edit them: add
question variants, set categories, write yes/no answers ("yes = ...", "no = ...") and enum labels
("labels = {{ value = \\"answer\\" }}"). Questions may use {{title}} and {{document}}.
Then: assay gold build --facts DIR --sources DIR --templates THIS_FILE --out gold.jsonl"""

REFUSAL_EXAMPLE = """\
# Questions the documents cannot answer (assay gold build --refusals):
# [[refusals]]
# question = "What is the claim settlement ratio of {title} this year?"
# documents = ["*"]
# answer = "The documents do not state this."
"""


def field_templates(facts: Sequence[FactsFile]) -> list[tuple[FieldTemplate, Claim]]:
    """Each field's inferred template (in order of first appearance) and the claim it was inferred from.
    Its category is the facts' group of the field when every claim of it has that one; where they differ
    (or some have none) it is None and no category is written: each item then keeps its claim's group,
    as a build without templates gives it."""
    chosen: dict[str, Claim] = {}
    groups: dict[str, set[str | None]] = {}
    for file in facts:
        for claim in file.claims:
            groups.setdefault(claim.field, set()).add(claim.group)
            if claim.field not in chosen or (chosen[claim.field].value is None and claim.value is not None):
                chosen[claim.field] = claim
    found = []
    for field, claim in chosen.items():
        template = inferred_template(_typed_for_writing(claim))
        if len(groups[field]) > 1:
            template = dataclasses.replace(template, category=None)
        found.append((template, claim))
    return found


def _typed_for_writing(claim: Claim) -> Claim:
    """A field no facts file states a value for gives no item yet; its template is written for the value
    it will have: a number when its unit or its name's says one (``min_entry_age`` in years), else as
    the claim is (a text, or the unit's ``boolean`` or ``enum``)."""
    if claim.value is not None or (canonical_unit(claim.unit) is None and unit_of_name(claim.field) is None):
        return claim
    return dataclasses.replace(claim, value=0)


def _entry(template: FieldTemplate) -> dict[str, Any]:
    entry: dict[str, Any] = {"questions": list(template.questions), "answer_type": template.answer_type}
    if template.category is not None:  # None: the facts group the field's claims differently
        entry["category"] = template.category
    return entry


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _example(claim: Claim) -> str:
    if claim.value is None:
        unit = f" in {claim.unit}" if claim.unit else ""
        return f"no facts file states a value{unit} yet: check the answer type"
    unit = f" {claim.unit}" if claim.unit else ""
    return f"e.g. {shown(claim.value)}{unit} ({claim.document})"


def templates_text(facts: Sequence[FactsFile], *, yaml: bool = False) -> str:
    """The starting templates file's text, TOML (or YAML); an InputError when there is nothing to write
    or the file would be over the size a templates file is read at."""
    templates = field_templates(facts)
    if not templates:
        raise InputError(
            "the facts files hold no claims",
            where=facts[0].path if facts else "",
            fix="give facts with fields",
        )
    header = HEADER.format(fields=_count(len(templates), "field"), files=_count(len(facts), "facts file"))
    text = _yaml_text(templates, header) if yaml else _toml_text(templates, header)
    if len(text.encode("utf-8")) > MAX_TEMPLATES_BYTES:
        raise InputError(
            f"the templates for {len(templates):,} fields are over {MAX_TEMPLATES_BYTES:,} bytes, the most a "
            "templates file is read at",
            where=facts[0].path,
            fix="split the facts into folders of fewer fields and write a templates file for each",
        )
    return text


def _comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines()) + "\n"


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, and TOML also wants DEL escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def _toml_text(templates: list[tuple[FieldTemplate, Claim]], header: str) -> str:
    parts = [_comment(header)]
    for template, claim in templates:
        entry = _entry(template)
        questions = ", ".join(_toml_string(question) for question in entry["questions"])
        parts.append(
            f"\n[fields.{_toml_string(template.field)}]\n"
            f"{_comment(_example(claim))}"
            f"questions = [{questions}]\n"
            f"answer_type = {_toml_string(entry['answer_type'])}\n"
            + (
                f"category = {_toml_string(entry['category'])}\n"
                if "category" in entry
                else "# category: none, its claims' groups differ (each item keeps its own)\n"
            )
        )
    parts.append("\n" + REFUSAL_EXAMPLE)
    return "".join(parts)


def _yaml_text(templates: list[tuple[FieldTemplate, Claim]], header: str) -> str:
    import yaml  # only for a YAML file: every command line imports the harness's names

    data = {"fields": {template.field: _entry(template) for template, _ in templates}}
    body: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1_000)
    if yaml.safe_load(body) != data:
        # PyYAML writes some characters as they are where its reader folds them (a NEL in a quoted
        # key is read as a space): escaped, every character reads back as written.
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=False, width=1_000)
    return _comment(header) + body + "\n" + REFUSAL_EXAMPLE
