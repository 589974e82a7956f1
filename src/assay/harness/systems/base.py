"""What every system under test shares: the protocol, the two ways it fails, and ``answer_from``, which
turns what a system returned (a text, or a mapping) into a ``parts.Reply`` with its text.

A system's failure comes in two kinds, because the runner treats them differently: a TransportError
(connection refused or reset, a timeout, HTTP 429/502/503/504) may pass if asked again, so it is retried;
a SystemFailure (the system raised, answered HTTP 4xx/500, returned something that is not a reply) is
the system's own answer to that item, and asking again would only repeat it.

The mapping a system may return (unknown keys are ignored: a bot's reply carries extras of its own, such
as timings or debug traces; a dataclass, or a pydantic model's ``model_dump()``, is read as its mapping):

    text       the reply's text; also spelled ``answer``, ``response``, ``reply_text`` or ``result``
               (the one of them that is a text: two different texts are ambiguous)
    citations  (or ``sources``) a list: strings ("doc p.3", "[Source: doc, p.3]") or mappings {document,
               page, quote, start, end} (``document`` may be spelled ``doc``, ``source`` or ``title``,
               the first given wins); when absent or empty, the citations written in the text are read
               (citations.py)
    contexts   a list: strings (the passage; its document unknown, "") or mappings {document, page,
               text, start, end} (``text`` may be spelled ``content`` or ``page_content``)
    blocked    true when a guard stopped the reply (then the text may be missing: "")
    route      which path of the system answered; also spelled ``brain_used`` (the seed's name)
    model      the model that wrote the reply

Anything else (None, bytes, a number, a citation without a document, a page that is not a positive
whole number, NaN) is a SystemFailure whose reason names the field.
"""

from __future__ import annotations

import dataclasses
import math
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ...net import clean
from ...parts import Citation, Context, Reply
from .citations import citation_of_text, citations_in_text

TEXT_KEYS = ("text", "answer", "response", "reply_text", "result")
CITATION_KEYS = ("citations", "sources")
ROUTE_KEYS = ("route", "brain_used")
DOCUMENT_KEYS = ("document", "doc", "source", "title")
CONTEXT_TEXT_KEYS = ("text", "content", "page_content")


class TransportError(Exception):
    """The request did not get through (retryable): connection refused or reset, a timeout, HTTP
    408/429/502/503/504 (``net.SYSTEM_RETRY_STATUSES``). ``retry_after`` is the wait in seconds the
    server asked for, when it did."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class SystemFailure(Exception):
    """The system's own failure (not retried): it raised, answered HTTP 4xx/500, or returned something
    that is not a reply. ``reason`` is what the run row's ``reply.error`` says; ``raw`` is the reply as
    it came, when there was one."""

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class System(Protocol):
    """A system under test, as the runner sees it."""

    spec: str  # as given on the command line

    def signature(self) -> str:
        """The spec and its options (never a secret): the run's signature and the journal's header."""
        ...

    async def ask(self, question: str, scope: str | None) -> Reply:
        """The system's reply (its text set) to one question, restricted to `scope` (a document id)
        when given; raises TransportError or SystemFailure."""
        ...

    async def aclose(self) -> None:
        """Release what the system holds (an HTTP client's connections)."""
        ...


def answer_from(value: object, *, raw: str | None = None) -> Reply:
    """The Reply (its text set) of what a system returned: a Reply with its text, a text, or a mapping
    (see the module's docstring); SystemFailure("malformed reply: ...") for anything else. `raw` is
    kept as the Reply's raw."""
    answer = value if isinstance(value, Reply) else _answer_of(value, raw)
    if answer.text is None:
        raise _malformed("a Reply without its text (give text='' for a reply without one)", raw)
    if len(answer.text) > MAX_REPLY_CHARS:
        raise SystemFailure(
            f"the reply's text is {len(answer.text):,} characters, more than the {MAX_REPLY_CHARS:,} a reply "
            "may have (an answer is never that long: does the system echo its contexts?)",
            raw=None,  # not kept: it is what made the reply unusable
        )
    return answer


# The longest reply text graded: far beyond any answer, and short enough that every metric reads it in
# well under a second (a reply of megabytes would hold the run's scoring for minutes).
MAX_REPLY_CHARS = 200_000


def _answer_of(value: object, raw: str | None) -> Reply:
    value = _as_mapping(value)
    if isinstance(value, str):
        text = clean(value)
        return Reply(text=text, citations=citations_in_text(text), raw=raw)
    if not isinstance(value, Mapping):
        raise _malformed(f"a {type(value).__name__}, not a text or a mapping with 'text'", raw)
    try:
        return _answer_of_mapping(value, raw)
    except _Malformed as exc:
        raise _malformed(str(exc), raw) from None


def _as_mapping(value: object) -> object:
    """A dataclass instance, or a pydantic model, as its mapping; anything else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return dump()
        except Exception as exc:
            reason = f"a {type(value).__name__} whose model_dump() raised {type(exc).__name__}"
            raise _malformed(reason, None) from None
    return value


class _Malformed(ValueError):
    """What is wrong with one field (answer_from adds 'malformed reply: ')."""


def _malformed(reason: str, raw: str | None) -> SystemFailure:
    return SystemFailure(f"malformed reply: {reason}", raw=raw)


def _answer_of_mapping(value: Mapping[Any, Any], raw: str | None) -> Reply:
    blocked = _optional_bool(value, "blocked")
    text_key = _text_key(value)
    if text_key is None and not blocked:
        keys = ", ".join(sorted(map(str, value))[:10]) or "none"
        raise _Malformed(f"a mapping without 'text' (its keys: {keys})")
    text = "" if text_key is None else _optional_text(value, text_key, blank_ok=True) or ""
    contexts = _contexts(value.get("contexts"))
    citations_key = _first_key(value, CITATION_KEYS)
    citations = _citations(None if citations_key is None else value[citations_key], citations_key, contexts)
    if not citations:  # none given: the ones written in the text, [N] read against the contexts
        citations = citations_in_text(text, contexts)
    route_key = _first_key(value, ROUTE_KEYS)
    return Reply(
        text=text,
        citations=citations,
        contexts=contexts,
        raw=raw,
        blocked=blocked,
        route=None if route_key is None else _optional_text(value, route_key),
        model=_optional_text(value, "model"),
    )


def _text_key(value: Mapping[Any, Any]) -> str | None:
    """The key of the reply's text: the one of TEXT_KEYS that holds a text ({"answer": "...",
    "response": {...the model's raw reply...}} is a reply); two different texts are ambiguous; a key
    that holds no text, when none does, is returned for its type to be named."""
    present = [key for key in TEXT_KEYS if value.get(key) is not None]
    texts = [key for key in present if isinstance(value[key], str)]
    if len({value[key] for key in texts}) > 1:
        raise _Malformed(f"both {texts[0]!r} and {texts[1]!r} given, with different texts (give one)")
    return texts[0] if texts else present[0] if present else None


def _first_key(value: Mapping[Any, Any], keys: Sequence[str]) -> str | None:
    """The first of `keys` the mapping gives a value (None when it gives none)."""
    return next((key for key in keys if value.get(key) is not None), None)


def _optional_text(value: Mapping[Any, Any], key: str, *, blank_ok: bool = False) -> str | None:
    item = value.get(key)
    if item is None:
        return None
    if not isinstance(item, str):
        raise _Malformed(f"field {key!r} must be a text, found {_shown(item)}")
    item = clean(item)
    if not blank_ok and not item.strip():
        return None  # "" for a route or model is no route or model
    return item


def _optional_bool(value: Mapping[Any, Any], key: str) -> bool | None:
    item = value.get(key)
    if item is None or isinstance(item, bool):
        return item
    raise _Malformed(f"field {key!r} must be true or false, found {_shown(item)}")


def _items(item: object, field: str) -> Sequence[object]:
    if item is None:
        return ()
    if isinstance(item, (str, bytes, Mapping)) or not isinstance(item, Sequence):
        raise _Malformed(f"field {field!r} must be a list, found {_shown(item)}")
    return item


def _citations(item: object, key: str | None, contexts: Sequence[Context]) -> tuple[Citation, ...]:
    found: list[Citation] = []
    for at, element in enumerate(_items(item, key or "citations")):
        where = f"field {key!r} item {at}"
        if isinstance(element, str):
            text = clean(element).strip()
            if not text:
                raise _Malformed(f"{where} is blank")
            found.extend(citation_of_text(text, contexts))
        elif isinstance(element, Mapping):
            found.append(_citation(element, where))
        else:
            raise _Malformed(f"{where} must be a text or a mapping, found {_shown(element)}")
    return tuple(dict.fromkeys(found))  # the same citation twice is one citation


def _citation(element: Mapping[Any, Any], where: str) -> Citation:
    start, end = _span(element, where)
    quote = _optional_text(element, "quote")
    return Citation(_document(element, where), _page(element, where), start, end, quote)


def _contexts(item: object) -> tuple[Context, ...]:
    found: list[Context] = []
    for at, element in enumerate(_items(item, "contexts")):
        where = f"field 'contexts' item {at}"
        if isinstance(element, str):
            found.append(Context(document="", text=clean(element)))  # a passage of no known document
        elif isinstance(element, Mapping):
            start, end = _span(element, where)
            text_key = _first_key(element, CONTEXT_TEXT_KEYS)
            text = None if text_key is None else _optional_text(element, text_key, blank_ok=True)
            found.append(Context(_document(element, where), _page(element, where), start, end, text))
        else:
            raise _Malformed(f"{where} must be a text or a mapping, found {_shown(element)}")
    return tuple(found)


def _document(element: Mapping[Any, Any], where: str) -> str:
    key = _first_key(element, DOCUMENT_KEYS)
    document = None if key is None else element[key]
    if not isinstance(document, str) or not document.strip():
        shown = "none" if document is None else _shown(document)
        raise _Malformed(f"{where} needs a 'document' (a non-blank text), found {shown}")
    return clean(document).strip()


def _page(element: Mapping[Any, Any], where: str) -> int | None:
    return _whole(element.get("page"), f"{where} page", least=1)


def _span(element: Mapping[Any, Any], where: str) -> tuple[int | None, int | None]:
    start = _whole(element.get("start"), f"{where} start", least=0)
    end = _whole(element.get("end"), f"{where} end", least=0)
    if start is not None and end is not None and end < start:
        raise _Malformed(f"{where} ends ({end}) before it starts ({start})")
    return start, end


def _whole(item: object, name: str, least: int) -> int | None:
    """A whole number of at least `least`: an int, an integral finite float (3.0), or a text of digits
    ("3"); None stays None. Anything else names the field."""
    number: int | None = None
    if item is None:
        return None
    if isinstance(item, int) and not isinstance(item, bool):
        number = item
    elif isinstance(item, float) and math.isfinite(item) and item.is_integer():
        number = int(item)
    elif isinstance(item, str) and item.strip().isdecimal() and len(item.strip()) <= 9:
        number = int(item.strip())
    if number is None or number < least:
        wanted = "a page number (1 or more)" if least == 1 else "an offset (0 or more)"
        raise _Malformed(f"{name} must be {wanted}, found {_shown(item)}")
    return number


_REPR = reprlib.Repr()  # never the whole of a deep or huge value (its settings are attributes in 3.11)
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 60, 60


def _shown(item: object) -> str:
    """A value as a reason names it: its type, and its first characters (``repr`` of a list nested
    100,000 deep raises RecursionError, and of a 10 MB text copies it)."""
    text = _REPR.repr(item)
    return f"a {type(item).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"
