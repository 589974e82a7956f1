"""Question templates: how a gold set asks about each field of the facts, and how it writes the answer.

A template file is TOML or YAML (by its suffix: .toml; .yaml or .yml)::

    [fields.grace_period]
    questions = ["What is the grace period of {title}?", "How long is the grace period under {title}?"]
    answer_type = "number_unit"        # number_unit, money, percent, bool, enum, text
    unit = "day"                       # optional: else the claim's unit, else the field name's (_days)
    category = "renewal"               # optional (default: "general")
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

Questions may use ``{title}`` (the facts' title) and ``{document}`` (the document id), nothing else.
Without a template file every field gets an inferred template (``inferred_template``): its answer type
from the value (a boolean, a number with a percent, rupee or time unit, a text that reads as one of
these, a text), one question from the
field's name. Errors name the file, the key and the fix.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from ..errors import InputError
from ..values import ANSWER_TYPES, canonical_unit, is_currency, parse_answer, unit_from_field
from .facts import Claim

# The types an inferred template gives a value written as text that reads as one value.
TYPED_FROM_TEXT = ("number_unit", "money", "percent", "bool", "date")

PLACEHOLDERS = frozenset({"title", "document"})
DEFAULT_CATEGORY = "general"
REFUSAL_ANSWER = "The documents do not state this."
FIELD_KEYS = frozenset({"questions", "answer_type", "unit", "category", "aliases", "yes", "no", "labels"})
REFUSAL_KEYS = frozenset({"question", "documents", "answer", "category"})
YAML_BOOLEAN_KEYS: dict[Any, str] = {True: "yes", False: "no"}


@dataclass(frozen=True)
class FieldTemplate:
    """How to ask about one field and write its answer."""

    field: str
    questions: tuple[str, ...]
    answer_type: str
    unit: str | None = None
    category: str = DEFAULT_CATEGORY
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
        return self.fields.get(name)


def load_templates(path: Path) -> Templates:
    """Read and validate a TOML or YAML template file."""
    return parse_templates(_read(path), where=str(path))


def _read(path: Path) -> Any:
    try:  # utf-8-sig: a leading byte-order mark is not TOML (tomllib refuses it at line 1)
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read the template file ({exc})", where=str(path), fix="give a UTF-8 file"
        ) from None
    suffix = path.suffix.casefold()
    if suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(
                f"not valid TOML ({exc})", where=str(path), fix="correct the TOML there"
            ) from None
    if suffix in (".yaml", ".yml"):
        import yaml  # only for YAML templates: every command line imports this module

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
            raise InputError(f"not valid YAML ({exc})", where=where, fix="correct the YAML there") from None
    raise InputError(
        f"unknown template file type {path.suffix!r}", where=str(path), fix="name it .toml, .yaml or .yml"
    )


def parse_templates(data: Any, *, where: str) -> Templates:
    """Templates from parsed TOML/YAML data; `where` names the file in errors."""
    top = _mapping(data, where, "the file")
    unknown = set(top) - {"fields", "refusals"}
    if unknown:
        raise InputError(
            f"unknown key {sorted(unknown)[0]!r}", where=where, fix="use only 'fields' and 'refusals'"
        )
    fields: dict[str, FieldTemplate] = {}
    for name, raw in _mapping(top.get("fields") or {}, where, "'fields'").items():
        template = _field_template(str(name), raw, f"{where}: fields.{name}")
        for key in (template.field, *template.aliases):
            if key in fields:
                raise InputError(
                    f"field {key!r} has two templates",
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
            f"answer_type is {answer_type!r}",
            where=where,
            fix=f"set answer_type to one of: {', '.join(ANSWER_TYPES)}",
        )
    questions = _strings(item.get("questions"), where, "questions")
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
            f"the yes and no answers are both {yes!r}",
            where=where,
            fix="write 'yes' and 'no' as different answers",
        )
    return FieldTemplate(
        field=name,
        questions=questions,
        answer_type=answer_type,
        unit=_string(item.get("unit"), where, "unit"),
        category=_string(item.get("category"), where, "category") or DEFAULT_CATEGORY,
        yes=yes,
        no=no,
        labels={str(key): _string(value, where, f"labels.{key}") or "" for key, value in labels.items()},
        aliases=_strings(item.get("aliases"), where, "aliases"),
    )


def _refusal(raw: Any, where: str, index: int) -> RefusalTemplate:
    item = _mapping(raw, where, "the refusal")
    _no_unknown_keys(item, REFUSAL_KEYS, where)
    question = _string(item.get("question"), where, "question")
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
    """A question's placeholders are {title} and {document} only, and the braces are balanced."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(question) if name is not None}
    except ValueError as exc:
        raise InputError(
            f"the question {question!r} has unbalanced braces ({exc})",
            where=where,
            fix="write a literal brace as {{ or }}",
        ) from None
    unknown = names - PLACEHOLDERS
    if unknown:
        raise InputError(
            f"the question {question!r} uses the placeholder {{{sorted(unknown)[0]}}}",
            where=where,
            fix="use only {title} and {document}",
        )


def ask(question: str, *, title: str, document: str) -> str:
    """A question template filled in for one facts file."""
    return question.format(title=title, document=document)


def _mapping(raw: Any, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise InputError(
            f"{what} is {type(raw).__name__}, not a table",
            where=where,
            fix=f"write {what} as a table/mapping",
        )
    return raw


def _no_unknown_keys(item: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(set(item) - known)
    if unknown:
        raise InputError(
            f"unknown key {unknown[0]!r}", where=where, fix=f"use only: {', '.join(sorted(known))}"
        )


def _string(raw: Any, where: str, key: str) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    quote = " (in YAML, quote it: a bare yes/no is a boolean)" if isinstance(raw, bool) else ""
    raise InputError(f"'{key}' is {raw!r}, not text", where=where, fix=f"write '{key}' as a string{quote}")


def _strings(raw: Any, where: str, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return tuple(raw)
    raise InputError(f"'{key}' is {raw!r}", where=where, fix=f"write '{key}' as a list of strings")


# --- templates inferred from a claim ------------------------------------------------------------------


def field_words(field_name: str) -> str:
    """A field's name as words, without a trailing unit: ``initial_waiting_period_days`` -> ``initial
    waiting period``."""
    words = [word for word in regex.split(r"[_\W]+", field_name) if word]
    if len(words) > 1 and unit_from_field(words[-1]):
        words = words[:-1]
    return " ".join(words)


# How an inferred question says the unit its field's name ends in (the name's unit word dropped).
UNIT_PHRASES = {"%": "as a percentage", "INR": "in rupees", "count": "as a number"}


def _unit_phrase(field_name: str) -> str:
    """ ", in days" for ``probation_days``, "" for a name with no unit at its end: a question keeps what
    its field's name said, or ``probation_days`` and ``probation_months`` (or ``co_payment_pct`` and
    ``co_payment_amount``) would ask one question with two answers."""
    words = [word for word in regex.split(r"[_\W]+", field_name) if word]
    unit = unit_from_field(words[-1]) if len(words) > 1 else None
    if unit is None:
        return ""
    return f", {UNIT_PHRASES.get(unit, f'in {unit}s')}"


def inferred_template(claim: Claim) -> FieldTemplate:
    """A template for a field no template file covers, typed by the claim's value and unit."""
    words = field_words(claim.field)
    answer_type = _inferred_type(claim)
    if answer_type == "bool":
        question = f"Does {{title}} include {words}?"
    else:
        question = f"What is the {words} of {{title}}{_unit_phrase(claim.field)}?"
    return FieldTemplate(field=claim.field, questions=(question,), answer_type=answer_type, inferred=True)


def _inferred_type(claim: Claim) -> str:
    value, written = claim.value, (claim.unit or "").strip().casefold()
    if isinstance(value, bool) or written == "boolean":
        return "bool"
    if written == "enum" and isinstance(value, str):
        return "enum"
    if isinstance(value, int | float):
        unit = canonical_unit(claim.unit) or unit_from_field(claim.field)
        return "money" if is_currency(unit) else {"%": "percent"}.get(unit or "", "number_unit")
    if isinstance(value, str):
        # A value written as text that reads as one value ("₹2.5 lakh", "30 days", "12%", "Yes") is
        # that value: typed as text it would get no pattern and no value check at all.
        read = parse_answer(value)
        if read is not None and read.type in TYPED_FROM_TEXT:
            return read.type
    return "text"


def template_for(claim: Claim, templates: Templates | None) -> FieldTemplate | None:
    """The claim's template: from the file (by field or alias), or inferred when there is no file. None
    when a file is given and has no template for the field."""
    if templates is None:
        return inferred_template(claim)
    return templates.for_field(claim.field)
