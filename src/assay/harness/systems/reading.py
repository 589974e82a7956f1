"""Reading what a system returned (a text, or a mapping: base.py's docstring says which keys) into a
``parts.Reply``, each field held to its bound (limits.py) before it is cleaned or parsed.

Two kinds of trouble, two exceptions: a field of the wrong shape is ``Malformed`` (answer_from adds
"malformed reply: "), a field past its bound is ``limits.OverLimit``. Nothing here recurses into the
value, copies it whole, or prints more than its first characters: a reply's depth and size are the
system's choice, not ours.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from ...net import clean
from ...parts import Citation, Context, Reply
from .citations import citation_of_text, citations_in_text
from .limits import (
    MAX_CITATION_CHARS,
    MAX_CITATIONS,
    MAX_CONTEXT_CHARS,
    MAX_CONTEXTS,
    MAX_DOCUMENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_OFFSET,
    MAX_PAGE,
    MAX_QUOTE_CHARS,
    MAX_REPLY_CHARS,
    Budget,
    check_count,
    shown_number,
)

TEXT_KEYS = ("text", "answer", "response", "reply_text", "result")
CITATION_KEYS = ("citations", "sources")
ROUTE_KEYS = ("route", "brain_used")
DOCUMENT_KEYS = ("document", "doc", "source", "title")
CONTEXT_TEXT_KEYS = ("text", "content", "page_content")


class Malformed(ValueError):
    """What is wrong with one field (answer_from adds 'malformed reply: ')."""


def reply_of(value: object, raw: str | None) -> Reply:
    """The Reply of a text or a mapping (a dataclass, a pydantic model: their mapping); Malformed or
    OverLimit naming the field."""
    value = as_mapping(value)
    budget = Budget()
    if isinstance(value, str):
        text = _text(value, "the reply's text", MAX_REPLY_CHARS, budget)
        return Reply(text=text, citations=citations_in_text(text, most=MAX_CITATIONS), raw=raw)
    if not isinstance(value, Mapping):
        raise Malformed(f"a {type(value).__name__}, not a text or a mapping with 'text'")
    return _reply_of_mapping(value, raw, budget)


def as_mapping(value: object) -> object:
    """A dataclass instance, or a pydantic model, as its mapping (a dataclass's fields one level deep:
    ``dataclasses.asdict`` copies all of it, and recurses past Python's limit on a deep one); anything
    else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name, None) for field in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return dump()
        except Exception as exc:
            raise Malformed(
                f"a {type(value).__name__} whose model_dump() raised {type(exc).__name__}"
            ) from None
    return value


def _text(value: str, what: str, limit: int, budget: Budget) -> str:
    """A text of the reply, its length held to `limit` (and the reply's budget) before it is cleaned."""
    budget.take(value, what, limit)
    return clean(value)


def _reply_of_mapping(value: Mapping[Any, Any], raw: str | None, budget: Budget) -> Reply:
    blocked = _optional_bool(value, "blocked")
    text_key = _text_key(value)
    if text_key is None and not blocked:
        raise Malformed(f"a mapping without 'text' (its keys: {_some_keys(value)})")
    text = "" if text_key is None else _optional_text(value, text_key, budget, blank_ok=True) or ""
    contexts = _contexts(value.get("contexts"), budget)
    citations_key = _first_key(value, CITATION_KEYS)
    given = None if citations_key is None else value[citations_key]
    citations = _citations(given, citations_key or "citations", contexts, budget)
    if not citations:  # none given: the ones written in the text, [N] read against the contexts
        citations = citations_in_text(text, contexts, most=MAX_CITATIONS)
    route_key = _first_key(value, ROUTE_KEYS)
    return Reply(
        text=text,
        citations=citations,
        contexts=contexts,
        raw=raw,
        blocked=blocked,
        route=None if route_key is None else _optional_text(value, route_key, budget),
        model=_optional_text(value, "model", budget),
    )


def _some_keys(value: Mapping[Any, Any]) -> str:
    """Up to ten of a mapping's keys, sorted, each cut: never all of a million keys."""
    keys = sorted(_cut(str(key), 40) for key in itertools.islice(value, 100))[:10]
    return ", ".join(keys) + (", ..." if len(value) > 10 else "") if keys else "none"


def _text_key(value: Mapping[Any, Any]) -> str | None:
    """The key of the reply's text: the one of TEXT_KEYS that holds a text ({"answer": "...",
    "response": {...the model's raw reply...}} is a reply); two different texts are ambiguous; a key
    that holds no text, when none does, is returned for its type to be named."""
    present = [key for key in TEXT_KEYS if value.get(key) is not None]
    texts = [key for key in present if isinstance(value[key], str)]
    for key in texts:  # compared below: each held to its bound first
        Budget().take(value[key], "the reply's text", MAX_REPLY_CHARS)
    if len({value[key] for key in texts}) > 1:
        raise Malformed(f"both {texts[0]!r} and {texts[1]!r} given, with different texts (give one)")
    return texts[0] if texts else present[0] if present else None


def _first_key(value: Mapping[Any, Any], keys: Sequence[str]) -> str | None:
    """The first of `keys` the mapping gives a value (None when it gives none)."""
    return next((key for key in keys if value.get(key) is not None), None)


# Each text field: its limit, and how a reason names it.
_LIMITS = {
    **{key: (MAX_REPLY_CHARS, "text") for key in TEXT_KEYS},
    **{key: (MAX_LABEL_CHARS, "route") for key in ROUTE_KEYS},
    "model": (MAX_LABEL_CHARS, "model"),
}


def _optional_text(
    value: Mapping[Any, Any], key: str, budget: Budget, *, blank_ok: bool = False
) -> str | None:
    item = value.get(key)
    if item is None:
        return None
    if not isinstance(item, str):
        raise Malformed(f"field {key!r} must be a text, found {shown(item)}")
    limit, name = _LIMITS.get(key, (MAX_CONTEXT_CHARS, key))
    item = _text(item, f"the reply's {name}", limit, budget)
    if not blank_ok and not item.strip():
        return None  # "" for a route or model is no route or model
    return item


def _optional_bool(value: Mapping[Any, Any], key: str) -> bool | None:
    item = value.get(key)
    if item is None or isinstance(item, bool):
        return item
    raise Malformed(f"field {key!r} must be true or false, found {shown(item)}")


def _items(item: object, field: str, most: int) -> Sequence[object]:
    """A list field's items, its length checked before any item is read."""
    if item is None:
        return ()
    if isinstance(item, (str, bytes, Mapping)) or not isinstance(item, Sequence):
        raise Malformed(f"field {field!r} must be a list, found {shown(item)}")
    check_count(len(item), field, most)
    return item


def _citations(item: object, key: str, contexts: Sequence[Context], budget: Budget) -> tuple[Citation, ...]:
    found: dict[Citation, None] = {}  # the same citation twice is one citation
    for at, element in enumerate(_items(item, key, MAX_CITATIONS)):
        where = f"field {key!r} item {at}"
        element = as_mapping(element)
        if isinstance(element, str):
            text = _text(element, f"the reply's {where}", MAX_CITATION_CHARS, budget).strip()
            if not text:
                raise Malformed(f"{where} is blank")
            found.update(dict.fromkeys(citation_of_text(text, contexts)))
        elif isinstance(element, Mapping):
            found[_citation(element, where, budget)] = None
        else:
            raise Malformed(f"{where} must be a text or a mapping, found {shown(element)}")
    check_count(len(found), "citations", MAX_CITATIONS)  # a page range is a citation per page
    return tuple(found)


def _citation(element: Mapping[Any, Any], where: str, budget: Budget) -> Citation:
    start, end = _span(element, where)
    quote = _part_text(element, "quote", where, MAX_QUOTE_CHARS, budget)
    return Citation(_document(element, where, budget), _page(element, where), start, end, quote)


def _contexts(item: object, budget: Budget) -> tuple[Context, ...]:
    found: list[Context] = []
    for at, element in enumerate(_items(item, "contexts", MAX_CONTEXTS)):
        where = f"field 'contexts' item {at}"
        element = as_mapping(element)
        if isinstance(element, str):  # a passage of no known document
            found.append(
                Context(document="", text=_text(element, f"the reply's {where}", MAX_CONTEXT_CHARS, budget))
            )
        elif isinstance(element, Mapping):
            start, end = _span(element, where)
            key = _first_key(element, CONTEXT_TEXT_KEYS)
            text = None if key is None else _part_text(element, key, where, MAX_CONTEXT_CHARS, budget)
            found.append(Context(_document(element, where, budget), _page(element, where), start, end, text))
        else:
            raise Malformed(f"{where} must be a text or a mapping, found {shown(element)}")
    return tuple(found)


def _part_text(element: Mapping[Any, Any], key: str, where: str, limit: int, budget: Budget) -> str | None:
    """A citation's quote or a context's text ("" kept: a blank passage is what was retrieved)."""
    item = element.get(key)
    if item is None:
        return None
    if not isinstance(item, str):
        raise Malformed(f"{where} field {key!r} must be a text, found {shown(item)}")
    return _text(item, f"the reply's {where} {key!r}", limit, budget)


def _document(element: Mapping[Any, Any], where: str, budget: Budget) -> str:
    key = _first_key(element, DOCUMENT_KEYS)
    document = None if key is None else element[key]
    if not isinstance(document, str) or not document.strip():
        found = "none" if document is None else shown(document)
        raise Malformed(f"{where} needs a 'document' (a non-blank text), found {found}")
    return _text(document, f"the reply's {where} document", MAX_DOCUMENT_CHARS, budget).strip()


def _page(element: Mapping[Any, Any], where: str) -> int | None:
    return _whole(element.get("page"), f"{where} page", least=1, most=MAX_PAGE)


def _span(element: Mapping[Any, Any], where: str) -> tuple[int | None, int | None]:
    start = _whole(element.get("start"), f"{where} start", least=0, most=MAX_OFFSET)
    end = _whole(element.get("end"), f"{where} end", least=0, most=MAX_OFFSET)
    if start is not None and end is not None and end < start:
        raise Malformed(f"{where} ends ({end}) before it starts ({start})")
    return start, end


def _whole(item: object, name: str, least: int, most: int) -> int | None:
    """A whole number from `least` to `most`: an int, an integral finite float (3.0), or a text of
    digits ("3"); None stays None. Anything else names the field."""
    number: int | None = None
    if item is None:
        return None
    if isinstance(item, int) and not isinstance(item, bool):
        number = item
    elif isinstance(item, float) and math.isfinite(item) and item.is_integer():
        number = int(item)
    elif isinstance(item, str) and len(item) <= 40 and item.strip().isdecimal() and len(item.strip()) <= 11:
        number = int(item.strip())
    if number is None or number < least:
        wanted = "a page number (1 or more)" if least == 1 else "an offset (0 or more)"
        raise Malformed(f"{name} must be {wanted}, found {shown(item)}")
    if number > most:
        raise Malformed(f"{name} must be at most {most:,}, found {shown(item)}")
    return number


_REPR = reprlib.Repr()  # never the whole of a deep or huge value (its settings are attributes in 3.11)
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60


def shown(item: object) -> str:
    """A value as a reason names it: its type, and its first characters (``repr`` of a list nested
    100,000 deep raises RecursionError, of a 10 MB text copies it, of a 5,000-digit number raises)."""
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        text = shown_number(item)
    else:
        try:
            text = _REPR.repr(item)
        except Exception:  # a value's own __repr__ that raises (or a number deep inside one)
            text = "..."
    return f"a {type(item).__name__} {_cut(text, 40)}"


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else f"{text[:most]}..."
