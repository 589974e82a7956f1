"""Question templates: how a gold set asks about each field of the facts, and how it writes the answer.

A template file is TOML or YAML (by its suffix: .toml; .yaml or .yml)::

    [fields.grace_period]
    questions = ["What is the grace period of {title}?", "How long is the grace period under {title}?"]
    answer_type = "number_unit"        # number_unit, money, percent, bool, enum, text
    unit = "day"                       # optional: else the claim's unit, else the field name's (_days)
    category = "renewal"               # optional (default: the facts' group of the field, else "general")
    aliases = ["grace_period_days"]    # optional: other field names this template answers

    [fields.ayush_coverage]
    questions = ["Does {title} cover AYUSH treatment?"]
    answer_type = "bool"
    yes = "Yes, AYUSH treatment is covered"   # optional answer renderings (default "Yes" / "No")
    no = "No, AYUSH treatment is not covered"

    [fields.geographic_coverage]
    questions = ["Where is treatment covered under {title}?"]
    answer_type = "enum"
    labels = { pan_india = "India only" }     # the answer written for each enum value

    [[refusals]]                       # questions the documents cannot answer (gold build --refusals)
    question = "What is the claim settlement ratio of {title}?"
    documents = ["*"]                  # document ids, or "*" for every facts file (default)
    answer = "The policy documents do not state this."   # optional
    category = "refusal"               # optional

Questions may use ``{title}`` (the facts' title) and ``{document}`` (the document id), nothing else:
a template is data, so a placeholder is a plain name (no ``!r`` conversion, no ``:>30`` format spec,
no ``.attribute`` or ``[index]``), refused when the file is loaded, with the line; a question is filled
in by substitution, never by ``str.format``. The file is read under bounds (``template_reading``; the
lengths and counts below; ``docs/limits.md``). Without a template file every field gets an inferred
template (``inferred_template``): its answer type from the value (a boolean, a number with a percent,
rupee or time unit, a text that reads as one of these, a text), one question from the field's name and
that type (``questions``), its category the facts' own group of the field (``Claim.group``).
Errors name the file, the line, the key and the fix.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from ..errors import InputError
from ..values import ANSWER_TYPES, canonical_unit, is_currency, parse_answer, unit_from_field
from .facts import MAX_TEXT_CHARS as FACTS_TEXT_CHARS
from .facts import Claim, shown, split_group
from .questions import as_the_document_writes, unit_of_name, value_question, yes_no_question
from .template_reading import line_of, read_templates_data

# The types an inferred template gives a value written as text that reads as one value.
TYPED_FROM_TEXT = ("number_unit", "money", "percent", "bool", "date")

PLACEHOLDERS = frozenset({"title", "document"})
DEFAULT_CATEGORY = "general"
REFUSAL_ANSWER = "The documents do not state this."
FIELD_KEYS = frozenset({"questions", "answer_type", "unit", "category", "aliases", "yes", "no", "labels"})
REFUSAL_KEYS = frozenset({"question", "documents", "answer", "category"})
YAML_BOOLEAN_KEYS: dict[Any, str] = {True: "yes", False: "no"}
# Bounds on what a templates file writes (docs/limits.md), far past any hand-written template. A
# question fills in at most MAX_PLACEHOLDERS titles or ids of at most facts.MAX_TEXT_CHARS["title"]
# characters each: a filled question is at most MAX_QUESTION_OUTPUT characters.
MAX_QUESTION_CHARS = 1_000
MAX_PLACEHOLDERS = 4
MAX_TEXT_CHARS = 1_000  # an answer rendering (yes, no, a label), a unit, a category, an alias, a pattern
MAX_LIST_ITEMS = 100  # questions, aliases, documents of one template
MAX_NAME_CHARS = 200  # a field's name (as facts.py bounds a claim's field)
MAX_QUESTION_OUTPUT = MAX_QUESTION_CHARS + MAX_PLACEHOLDERS * FACTS_TEXT_CHARS["title"]


@dataclass(frozen=True)
class FieldTemplate:
    """How to ask about one field and write its answer."""

    field: str
    questions: tuple[str, ...]
    answer_type: str
    unit: str | None = None
    category: str | None = None  # None: the facts' own group of the field (Claim.group), else "general"
    yes: str = "Yes"
    no: str = "No"
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    inferred: bool = False  # made from the claim, not read from a template file


@dataclass(frozen=True)
class RefusalTemplate:
    """A question the documents cannot answer, asked of the listed documents ("*": every one)."""

    name: str
    question: str
    documents: tuple[str, ...] = ("*",)
    answer: str = REFUSAL_ANSWER
    category: str = "refusal"

    def applies_to(self, document: str) -> bool:
        """Whether the refusal is asked of `document`: an id listed, or a pattern ("*", "acme__*")."""
        return any(fnmatch.fnmatchcase(document, pattern) for pattern in self.documents)


@dataclass(frozen=True)
class Templates:
    """A template file, read: field templates by field name (aliases included) and refusal templates."""

    path: str
    fields: Mapping[str, FieldTemplate]
    refusals: tuple[RefusalTemplate, ...] = ()

    def for_field(self, name: str) -> FieldTemplate | None:
        """The template of a field by its name; a grouped field's (``refunds.monthly_refundable``) by
        its whole name, else by its name in the group."""
        found = self.fields.get(name)
        if found is None and split_group(name)[0] is not None:
            found = self.fields.get(split_group(name)[1])
        return found


def load_templates(path: Path) -> Templates:
    """Read and validate a TOML or YAML template file; an error names the file and the line."""
    text, data = read_templates_data(path)
    try:
        return parse_templates(data, where=str(path))
    except InputError as exc:
        raise _with_line(exc, str(path), text) from None


def _with_line(exc: InputError, shown: str, text: str) -> InputError:
    """The error with the line of what it is about: the offending text, else the template's key."""
    if not exc.where.startswith(shown):
        return exc
    rest = exc.where[len(shown) :]  # ": fields.grace_period", ": refusals[2]", ""
    key = regex.match(r": fields\.(.+)$", rest)
    needle = exc.needle if isinstance(exc, TemplateError) else None
    line = line_of(text, needle, key.group(1) if key else None)
    return InputError(exc.what, where=f"{shown}:{line}{rest}" if line else exc.where, fix=exc.fix)


class TemplateError(InputError):
    """An error about a text of a templates file, which it carries to find the text's line."""

    def __init__(self, what: str, *, where: str, fix: str, needle: str | None = None) -> None:
        super().__init__(what, where=where, fix=fix)
        self.needle = needle


def parse_templates(data: Any, *, where: str) -> Templates:
    """Templates from parsed TOML/YAML data; `where` names the file in errors."""
    top = _mapping(data, where, "the file")
    unknown = sorted(map(str, set(top) - {"fields", "refusals"}))
    if unknown:
        raise InputError(
            f"unknown key {shown(unknown[0])}", where=where, fix="use only 'fields' and 'refusals'"
        )
    fields: dict[str, FieldTemplate] = {}
    for name, raw in _mapping(top.get("fields") or {}, where, "'fields'").items():
        _bounded(str(name), MAX_NAME_CHARS, f"{where}: fields", "a field's name")
        template = _field_template(str(name), raw, f"{where}: fields.{name}")
        for key in (template.field, *template.aliases):
            if key in fields:
                raise InputError(
                    f"field {shown(key)} has two templates",
                    where=f"{where}: fields.{name}",
                    fix="keep one of them",
                )
            fields[key] = template
    refusals = top.get("refusals") or []
    if not isinstance(refusals, list):
        raise InputError("'refusals' is not a list", where=where, fix="write [[refusals]] tables (a list)")
    parsed = tuple(_refusal(raw, f"{where}: refusals[{index}]", index) for index, raw in enumerate(refusals))
    return Templates(path=where, fields=fields, refusals=parsed)


def _field_template(name: str, raw: Any, where: str) -> FieldTemplate:
    # YAML 1.1 reads a bare `yes:` or `no:` key as a boolean: take it for the key it was written as.
    item = {
        YAML_BOOLEAN_KEYS.get(key, key): value
        for key, value in _mapping(raw, where, "the field's template").items()
    }
    _no_unknown_keys(item, FIELD_KEYS, where)
    answer_type = item.get("answer_type")
    if answer_type not in ANSWER_TYPES:
        raise InputError(
            f"answer_type is {shown(answer_type)}",
            where=where,
            fix=f"set answer_type to one of: {', '.join(ANSWER_TYPES)}",
        )
    questions = _strings(item.get("questions"), where, "questions", MAX_QUESTION_CHARS)
    if not questions:
        raise InputError(
            "no questions", where=where, fix="give 'questions' as a list of at least one question"
        )
    for question in questions:
        check_question(question, where)
    labels = _mapping(item.get("labels") or {}, where, "'labels'")
    yes, no = _string(item.get("yes"), where, "yes") or "Yes", _string(item.get("no"), where, "no") or "No"
    if " ".join(yes.casefold().split()) == " ".join(no.casefold().split()):
        # Every item of the field would be dropped for a pattern that cannot tell its answers apart.
        raise InputError(
            f"the yes and no answers are both {shown(yes)}",
            where=where,
            fix="write 'yes' and 'no' as different answers",
        )
    return FieldTemplate(
        field=name,
        questions=questions,
        answer_type=answer_type,
        unit=_string(item.get("unit"), where, "unit"),
        category=_string(item.get("category"), where, "category") or None,
        yes=yes,
        no=no,
        labels=_labels(labels, where),
        aliases=_strings(item.get("aliases"), where, "aliases"),
    )


def _labels(labels: Mapping[Any, Any], where: str) -> dict[str, str]:
    """An enum's labels: each value's name (bounded) and the answer written for it."""
    read = {}
    for key, value in labels.items():
        name = _bounded(str(key), MAX_TEXT_CHARS, where, "an enum value's name")
        read[name] = _string(value, where, f"labels.{name}") or ""
    return read


def _refusal(raw: Any, where: str, index: int) -> RefusalTemplate:
    item = _mapping(raw, where, "the refusal")
    _no_unknown_keys(item, REFUSAL_KEYS, where)
    question = _string(item.get("question"), where, "question", MAX_QUESTION_CHARS)
    if not question:
        raise InputError("no question", where=where, fix="give the refusal a 'question'")
    check_question(question, where)
    return RefusalTemplate(
        name=f"refusals[{index}]",
        question=question,
        documents=_strings(item.get("documents"), where, "documents") or ("*",),
        answer=_string(item.get("answer"), where, "answer") or REFUSAL_ANSWER,
        category=_string(item.get("category"), where, "category") or "refusal",
    )


def check_question(question: str, where: str) -> None:
    """A question is data: plain placeholders {title} and {document} (no conversion, format spec,
    attribute or index: ``str.format`` would run them), balanced braces, bounded length."""
    _bounded(question, MAX_QUESTION_CHARS, where, "a question")
    try:
        parts = list(string.Formatter().parse(question))
    except ValueError as exc:
        raise TemplateError(
            f"the question {shown(question)} has unbalanced braces ({exc})",
            where=where,
            fix="write a literal brace as {{ or }}",
            needle=question,
        ) from None
    placeholders = [(name, spec, conversion) for _, name, spec, conversion in parts if name is not None]
    for name, spec, conversion in placeholders:
        written = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if name not in PLACEHOLDERS:
            what = f"the question {shown(question)} uses the placeholder {shown(written)[1:-1]}"
            fix = "use only {title} and {document}"
        elif conversion or spec:
            what = f"the question {shown(question)} writes {shown(written)[1:-1]}: a placeholder is a name"
            fix = "write {title} or {document} with nothing after the name (no !conversion, no :format)"
        else:
            continue
        raise TemplateError(what, where=where, fix=fix, needle=question)
    if len(placeholders) > MAX_PLACEHOLDERS:
        raise TemplateError(
            f"the question {shown(question)} has {len(placeholders)} placeholders",
            where=where,
            fix=f"use at most {MAX_PLACEHOLDERS}",
            needle=question,
        )


def ask(question: str, *, title: str, document: str) -> str:
    """A question template filled in for one facts file: its placeholders replaced by their values, as
    data (never through ``str.format``, which would run a format spec or an attribute lookup)."""
    values = {"title": title, "document": document}
    filled = []
    for literal, name, _, _ in string.Formatter().parse(question):
        filled.append(literal)
        if name is not None:
            filled.append(values[name])
    return "".join(filled)


def _bounded(text: str, limit: int, where: str, what: str) -> str:
    if len(text) > limit:
        raise TemplateError(
            f"{what} is {len(text):,} characters long ({shown(text)}), over the limit of {limit:,}",
            where=where,
            fix=f"shorten it to {limit:,} characters at most",
            needle=text[:200],
        )
    return text


def _mapping(raw: Any, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise InputError(
            f"{what} is {type(raw).__name__}, not a table",
            where=where,
            fix=f"write {what} as a table/mapping",
        )
    return raw


def _no_unknown_keys(item: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(map(str, set(item) - known))  # str: a YAML key may be a number or a date
    if unknown:
        raise InputError(
            f"unknown key {shown(unknown[0])}", where=where, fix=f"use only: {', '.join(sorted(known))}"
        )


def _string(raw: Any, where: str, key: str, limit: int = MAX_TEXT_CHARS) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return _bounded(raw, limit, where, f"'{key}'")
    quote = " (in YAML, quote it: a bare yes/no is a boolean)" if isinstance(raw, bool) else ""
    raise InputError(
        f"'{key}' is {shown(raw)}, not text", where=where, fix=f"write '{key}' as a string{quote}"
    )


def _strings(raw: Any, where: str, key: str, limit: int = MAX_TEXT_CHARS) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        if len(raw) > MAX_LIST_ITEMS:
            raise InputError(
                f"'{key}' lists {len(raw):,} items", where=where, fix=f"list at most {MAX_LIST_ITEMS}"
            )
        return tuple(_bounded(item, limit, where, f"an item of '{key}'") for item in raw)
    raise InputError(f"'{key}' is {shown(raw)}", where=where, fix=f"write '{key}' as a list of strings")


# --- templates inferred from a claim ------------------------------------------------------------------


def field_words(field_name: str) -> str:
    """A field's name as words, without a trailing unit: ``initial_waiting_period_days`` -> ``initial
    waiting period``."""
    words = [word for word in regex.split(r"[_\W]+", field_name) if word]
    if len(words) > 1 and unit_from_field(words[-1]):
        words = words[:-1]
    return " ".join(words)


def inferred_template(claim: Claim) -> FieldTemplate:
    """A template for a field no template file covers: typed by the claim's value and unit, asked as the
    field's name and type read (``questions``), in the facts' own group (``Claim.group``) if any."""
    answer_type = _inferred_type(claim)
    name = as_the_document_writes(split_group(claim.field)[1], claim.quote)
    if answer_type == "bool":
        question = yes_no_question(name)
    else:
        is_list = isinstance(claim.value, list)
        question = value_question(name, answer_type, unit=claim.unit, is_list=is_list)
    return FieldTemplate(
        field=claim.field,
        questions=(question,),
        answer_type=answer_type,
        category=claim.group or DEFAULT_CATEGORY,
        inferred=True,
    )


def _inferred_type(claim: Claim) -> str:
    value, written = claim.value, (claim.unit or "").strip().casefold()
    if isinstance(value, bool) or written == "boolean":
        return "bool"
    if written == "enum" and isinstance(value, str):
        return "enum"
    if isinstance(value, int | float):
        # the name read as words: a camelCase name (monthlyPriceUsd) ends in its unit too
        unit = canonical_unit(claim.unit) or unit_of_name(claim.field)
        return "money" if is_currency(unit) else {"%": "percent"}.get(unit or "", "number_unit")
    if isinstance(value, str):
        # A value written as text that reads as one value ("₹2.5 lakh", "30 days", "12%", "Yes") is
        # that value: typed as text it would get no pattern and no value check at all.
        read = parse_answer(value)
        if read is not None and read.type in TYPED_FROM_TEXT:
            return read.type
    return "text"


def category_of(template: FieldTemplate, claim: Claim) -> str:
    """An item's category: the template's, else the facts' own group of the field, else "general"."""
    return template.category or claim.group or DEFAULT_CATEGORY


def template_for(claim: Claim, templates: Templates | None) -> FieldTemplate | None:
    """The claim's template: from the file (by field or alias), or inferred when there is no file. None
    when a file is given and has no template for the field."""
    if templates is None:
        return inferred_template(claim)
    return templates.for_field(claim.field)
