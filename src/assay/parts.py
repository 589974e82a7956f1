"""The typed optional parts of a record: what the gold file knows (`Gold`) and what the system replied
(`Reply`), beyond the question, the golden answers and the response text.

Both are optional (``Record.gold``/``Record.reply`` are None for a file without them, at no cost to
loading) and read from nested objects: ``"gold": {...}`` and ``"reply": {...}`` in JSONL/JSON, a JSON
text in a CSV cell, a struct (or a JSON text) in a Parquet column. A reply's text IS
``Record.response`` (the text every metric scores): it is not repeated here. Every field may be unset
(None); unknown keys are an error naming the row and the key, so that a misspelt field is not lost.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True, slots=True)
class Citation:
    """A source the reply cites: a document, and where in it (page; character offsets [start, end))."""

    document: str
    page: int | None = None
    start: int | None = None
    end: int | None = None
    quote: str | None = None


@dataclass(frozen=True, slots=True)
class Context:
    """A passage retrieved for the reply: its document, page, offsets [start, end) and text."""

    document: str
    page: int | None = None
    start: int | None = None
    end: int | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Gold:
    """What the gold file knows of the expected answer beyond its text (``Record.answers``)."""

    value: Any = None  # the expected value, typed (a number, a boolean, a text)
    # what `value` is: a gold set's answer_type ("number_unit", "money", "percent", "bool", "enum",
    # "text"), or "number", "date", ... from other files
    value_type: str | None = None
    unit: str | None = None  # the value's unit ("day", "INR", "%")
    expected_regex: str | None = None  # hard_fact's pattern for the row
    source_document: str | None = None  # the source's document id
    source_title: str | None = None  # the source document's title (how a citation may name it)
    source_path: str | None = None  # the source file, relative to the sources folder
    source_sha256: str | None = None  # the source file's hash when the gold set was built
    page: int | None = None  # 1-based page the quote starts on
    end_page: int | None = None  # the page it ends on, when it crosses a page break
    quote: str | None = None  # the passage of the source that holds the answer
    # the quote's [start, end) in the extracted text: start in `page`'s text, end in `end_page`'s
    quote_span: tuple[int, int] | None = None
    match_level: str | None = None  # how the quote was found: exact, normalised, alnum, pieces, fuzzy
    expected_refusal: bool | None = None  # the system should decline to answer
    category: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """What a system replied: its text, and what came with it.

    A system returns its text here (``text``); on a Record the text is ``Record.response`` (the text every
    metric scores) and ``text`` is unset, so that it is held once. A reply read from a file never has a
    ``text`` field: its text is the record's response column."""

    text: str | None = None  # the reply's text, as a system returns it (None on a Record)
    citations: tuple[Citation, ...] = ()
    contexts: tuple[Context, ...] = ()  # the retrieved passages it answered from
    raw: str | None = None  # the reply as it came (before any extraction of its text)
    error: str | None = None  # the system's error, when it failed to answer
    latency: float | None = None  # seconds
    blocked: bool | None = None  # a guard stopped the reply
    route: str | None = None  # which path of the system answered
    model: str | None = None


class PartError(ValueError):
    """A malformed part: the message names the field (the loader adds the row)."""


Part = TypeVar("Part", Gold, Reply, Citation, Context)
# A reply read from a row has its text in the row's response column, never twice: not a field there.
_NOT_READ: dict[type, set[str]] = {Reply: {"text"}}
_INT_FIELDS = {"page", "end_page", "start", "end"}


def parse_part(kind: type[Part], value: Any) -> Part:
    """A Gold or Reply from a mapping, or a JSON text of one (a CSV cell); PartError when malformed."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise PartError(f"is not JSON ({exc})") from None
    if not isinstance(value, Mapping):
        raise PartError(f"must be an object, found a {type(value).__name__}")
    names = {spec.name for spec in dataclasses.fields(kind)} - _NOT_READ.get(kind, set())
    unknown = sorted(set(value) - names)
    if unknown:
        raise PartError(f"has no field {unknown[0]!r} (its fields: {', '.join(sorted(names))})")
    found = {key: _field(kind, key, item) for key, item in value.items() if item is not None}
    if kind in (Citation, Context) and not isinstance(found.get("document"), str):
        raise PartError("needs a 'document' (text)")
    return kind(**found)


def _field(kind: type, key: str, item: Any) -> Any:
    if kind is Reply and key in ("citations", "contexts"):
        if not isinstance(item, (list, tuple)) and not hasattr(item, "tolist"):
            raise PartError(f"field {key!r} must be a list of objects")
        inner: type = Citation if key == "citations" else Context
        items = item.tolist() if hasattr(item, "tolist") else item
        parsed = []
        for at, element in enumerate(items):
            try:
                parsed.append(parse_part(inner, element))
            except PartError as exc:
                raise PartError(f"field {key!r} item {at} {exc}") from None
        return tuple(parsed)
    if key == "quote_span":
        items = item.tolist() if hasattr(item, "tolist") else item
        if not (isinstance(items, (list, tuple)) and len(items) == 2 and all(type(i) is int for i in items)):
            raise PartError("field 'quote_span' must be [start, end], two integers")
        return (items[0], items[1])
    if key in _INT_FIELDS and type(item) is not int:
        raise PartError(f"field {key!r} must be an integer, found {item!r}")
    if key == "latency":
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise PartError(f"field 'latency' must be a number of seconds, found {item!r}")
        return float(item)
    if key in ("blocked", "expected_refusal") and not isinstance(item, bool):
        raise PartError(f"field {key!r} must be true or false, found {item!r}")
    return item


# A gold set's item (``assay gold build``) names its parts flat; these keys become its Gold.
GOLD_ITEM_KEYS = (
    "expected_answer",
    "expected_value",
    "expected_regex",
    "answer_type",
    "category",
    "expected_refusal",
    "source",
)
_SOURCE_KEYS = {
    "document": "source_document",
    "title": "source_title",
    "path": "source_path",
    "sha256": "source_sha256",
    "page": "page",
    "end_page": "end_page",
    "span": "quote_span",
    "quote": "quote",
    "match_level": "match_level",
}


def gold_of_item(item: Mapping[str, Any]) -> Gold:
    """The Gold of a gold set's item: its flat keys (``GOLD_ITEM_KEYS``) as Gold's fields, the typed
    ``expected_value`` ({"value", "unit"}) as value and unit, ``source`` as the source fields."""
    fields: dict[str, Any] = {
        "expected_regex": item.get("expected_regex"),
        "value_type": item.get("answer_type"),
        "category": item.get("category"),
        "expected_refusal": _flag(item.get("expected_refusal")),
    }
    expected = _object(item.get("expected_value"), "expected_value")
    if expected is not None:
        unknown = sorted(set(expected) - {"value", "unit"})
        if unknown:
            raise PartError(f"field 'expected_value' has no key {unknown[0]!r} (its keys: value, unit)")
        fields |= {"value": expected.get("value"), "unit": expected.get("unit")}
    source = _object(item.get("source"), "source")
    if source is not None:
        unknown = sorted(set(source) - set(_SOURCE_KEYS))
        if unknown:
            raise PartError(f"field 'source' has no key {unknown[0]!r} (its keys: {', '.join(_SOURCE_KEYS)})")
        fields |= {_SOURCE_KEYS[key]: value for key, value in source.items()}
    return parse_part(Gold, {key: value for key, value in fields.items() if value is not None})


def _flag(value: Any) -> Any:
    """A CSV cell's "true"/"false" as the boolean it stands for (anything else is checked as it is)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def _object(value: Any, name: str) -> Mapping[str, Any] | None:
    if isinstance(value, str) and value.strip():  # a CSV cell
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise PartError(f"field {name!r} is not JSON ({exc})") from None
    if value is None or value == "":
        return None
    if not isinstance(value, Mapping):
        raise PartError(f"field {name!r} must be an object, found a {type(value).__name__}")
    return value


def part_dict(part: Gold | Reply | Citation | Context) -> dict[str, Any]:
    """The part as a JSON-ready mapping of its set fields (what --out writes back; a reply's text is its
    row's response, not written here)."""
    found: dict[str, Any] = {}
    for spec in dataclasses.fields(part):
        value = getattr(part, spec.name)
        if value is None or value == () or spec.name in _NOT_READ.get(type(part), ()):
            continue
        if spec.name in ("citations", "contexts"):
            value = [part_dict(item) for item in value]
        elif spec.name == "quote_span":
            value = list(value)
        found[spec.name] = value
    return found


__all__ = [
    "GOLD_ITEM_KEYS",
    "Citation",
    "Context",
    "Gold",
    "PartError",
    "Reply",
    "gold_of_item",
    "parse_part",
    "part_dict",
]
