"""Curated facts: claims about documents, each with the quote that supports it, read through adapters.

A facts folder holds one JSON file per document (policy, product, report). Each file is read by an
adapter, found by name or detected from the file's shape, into one ``FactsFile`` of ``Claim`` s. Two
adapters are built in; others register with ``register_adapter``.

``default``, assay's own schema::

    {
      "document": "acme__basic-plan",            # the document id the facts are about (required)
      "title": "Acme Basic Plan",                # how questions name it (optional; else the id)
      "sources": ["acme/basic-plan.pdf"],        # the facts' own source files (optional)
      "claims": [                                # required, a list
        {"field": "grace_period",                # required, text
         "value": 30, "unit": "days",            # the value: any JSON; unit optional
         "source": {"path": "acme/basic-plan.pdf", "quote": "a Grace Period of 30 days"},
                                                 # or {"url": "https://...", "note": "..."}; optional
         "confidence": "high"}                   # "low" / "medium" / "high" or a number in [0, 1]
      ]
    }

``flat``, the layout of curated policy facts (one mapping per field, at the top level)::

    {"policy_id": "insurer__product", "policy_name": "...", "source_pdf_path": "...",
     "_meta": {"primary_source_pdf": "...", "supporting_source_pdfs": ["..."]},
     "grace_period": {"value": 30, "unit": "days", "source_pdf_path": "...", "source_quote": "...",
                      "source_url": "...", "source_note": "...", "_confidence": "high", ...}}

A field mapping's other keys are kept as the claim's extras. Either layout may group its fields (a claim's
``group``/``section``/``category``, a field name's path ``refunds.x`` or ``refunds__x``, a flat layout's
section ``{"refunds": {"x": {"value": ...}}}``): ``Claim.group``, the questions' category.

A file that matches no adapter, or is malformed, is an ``InputError`` naming the file (and the JSON line
and column), the key and the fix.
"""

from __future__ import annotations

import dataclasses
import json
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import regex

from ..cells import ValueProblem, parse_json, position
from ..documents.walk import refuse_skipped, walk_folder
from ..errors import InputError, UsageError

_SHOWN = reprlib.Repr()
_SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict = 60, 60, 2, 4, 4


def shown(raw: Any) -> str:
    """A value as an error shows it: repr, cut short (a long text, a long list, a deep nesting)."""
    return _SHOWN.repr(raw)


CONFIDENCE_LABELS = {"low": 1 / 3, "medium": 2 / 3, "high": 1.0}

# Bounds on a facts file as it is read (docs/limits.md), far past any curated fact: a text over its
# bound refuses the file with its line and claim, as a text of the wrong type does. The quote's bound
# is the one verification is measured at (a 1 MB quote is verified in well under a second).
MAX_FACTS_BYTES = 16 << 20  # one document's facts; the shared set's largest file is 20 KB
MAX_TEXT_CHARS = {
    "document": 500, "policy_id": 500, "title": 1_000, "policy_name": 1_000, "field": 200, "unit": 1_000,
    "quote": 1_000_000, "note": 10_000, "path": 4_096, "url": 8_192, "value": 100_000,
    # a field's group is a template's category (templates.MAX_TEXT_CHARS): the same bound
    "group": 1_000, "section": 1_000, "category": 1_000,
}  # fmt: skip
MAX_VALUE_ITEMS = 1_000  # items of a list value (options a quote lists)
_DEFAULT_TEXT_CHARS = 10_000  # any other text read (a source file's name, a confidence label)


def text_limit(key: str) -> int:
    """The bound on the text under `key` ("source.quote", "source_quote", "unit", ...): by its last word."""
    word = key.rsplit(".", 1)[-1].removeprefix("source_").removeprefix("source_pdf_")
    return MAX_TEXT_CHARS.get(word, _DEFAULT_TEXT_CHARS)


@dataclass(frozen=True)
class Claim:
    """One curated fact: a field's value about a document, and where the curator says it is stated."""

    document: str  # the facts' document id
    field: str
    value: Any
    unit: str | None = None
    source_path: str | None = None  # the cited source file, as the facts write it
    source_url: str | None = None
    quote: str | None = None  # the quote as curated (raw: notes and sentinels included)
    note: str | None = None  # the curator's note about the source (not a quote)
    confidence: str | float | None = None
    facts_file: str = ""  # the file the claim came from
    where: str = ""  # where in that file: the key path
    extras: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    group: str | None = None  # the facts' own grouping of the field (a section), the questions' category


# How facts group their fields, when they do: a claim's own key, or a field name's path: a dot
# ("refunds.monthly_refundable", a flat layout's section) or a double underscore ("refunds__monthly",
# the separator of folders in document ids), never a shared first word (min_, pre_, no_ are no groups).
GROUP_KEYS = ("group", "section", "category")
GROUP_SEPARATOR = "."
_PATH_SEPARATOR = regex.compile(r"\.|__")


def split_group(field: str) -> tuple[str | None, str]:
    """A field name's group path and its own name: ``refunds.monthly_refundable`` -> (refunds,
    monthly_refundable); (None, the name) for a name with no path."""
    found = list(_PATH_SEPARATOR.finditer(field))
    if not found:
        return None, field
    prefix, rest = field[: found[-1].start()].strip(), field[found[-1].end() :].strip()
    return (prefix, rest) if prefix and rest else (None, field)


def claim_group(item: Mapping[str, Any], field: str, where: str) -> str | None:
    """The group a claim's facts put it in: its first group key (``GROUP_KEYS``), else its field name's
    path (``split_group``), else None."""
    for key in GROUP_KEYS:
        text = _text_or_none(item.get(key), where, key)
        if text and text.strip():
            return " ".join(text.split())
    return split_group(field)[0]


def readable_name(document: str) -> str:
    """How a question names a document whose facts give no title: its id (a file name) as words, a
    lower-case word capitalised (``acme__basic-plan.pdf`` -> ``Acme Basic Plan``). A PDF's own metadata
    title is no better (the shared policies' are ``CARE CLASSIC- T&C.cdr`` or empty), nor its first line
    (a preamble, the insurer's name): a curated title is the way to a printed one."""
    stem = regex.sub(r"\.(?:pdf|txt|md|html?)$", "", document, flags=regex.IGNORECASE)
    words = [word for word in regex.split(r"[_\-/\s]+", stem) if word]
    return " ".join(word.capitalize() if word.islower() else word for word in words) or document


@dataclass(frozen=True)
class FactsFile:
    """One facts file, read: the document it is about, the sources it names as its own, its claims."""

    path: str
    document: str
    title: str
    adapter: str
    own_sources: tuple[str, ...] = ()  # source references the file names as its own (primary first)
    supporting_sources: tuple[str, ...] = ()
    claims: tuple[Claim, ...] = ()


class FactsAdapter(Protocol):
    """Reads one layout of facts file: says whether parsed JSON has its shape, and reads it."""

    name: str

    def detects(self, data: Any) -> bool: ...

    def read(self, data: Any, *, path: str) -> FactsFile: ...


ADAPTERS: dict[str, FactsAdapter] = {}


def register_adapter(adapter: FactsAdapter) -> FactsAdapter:
    """Add an adapter by its name (detection tries adapters in the order they were registered)."""
    ADAPTERS[adapter.name] = adapter
    return adapter


def confidence_score(confidence: str | float | None) -> float | None:
    """A confidence as a number in [0, 1]: the labels low/medium/high, or the number itself."""
    if confidence is None or isinstance(confidence, float | int):
        return None if confidence is None else float(confidence)
    return CONFIDENCE_LABELS.get(confidence.strip().casefold())


# --- reading files ---------------------------------------------------------------------------------


def load_facts(folder: Path, *, adapter: str | None = None) -> tuple[FactsFile, ...]:
    """Every ``*.json`` facts file in `folder` (not its subfolders), sorted by file name."""
    if not folder.is_dir():
        raise InputError("the facts folder does not exist", where=str(folder), fix="give --facts a folder")
    walk = walk_folder(folder, recursive=False, inside=False)  # a FIFO or a loop of links is never opened
    refuse_skipped(walk, (".json",), "facts file")
    paths = [path for path in walk.paths if _is_facts_file(path)]
    if not paths:
        raise InputError(
            "the facts folder holds no .json files", where=str(folder), fix="give the folder of facts files"
        )
    return tuple(read_facts_file(path, adapter=adapter, name=path.name) for path in paths)


def _is_facts_file(path: Path) -> bool:
    """A JSON file by its suffix in any case (``A.JSON``), not hidden: the sources skip hidden files
    too, and a copy from macOS leaves ``._name.json`` resource forks (binary) beside every file."""
    return path.suffix.casefold() == ".json" and not path.name.startswith(".") and path.is_file()


def read_facts_file(path: Path, *, adapter: str | None = None, name: str | None = None) -> FactsFile:
    """One facts file, through the named adapter or the first that detects its shape. `name` is how
    claims and reports name the file (``load_facts``: its name in the folder, no machine path)."""
    _check_size(path)
    text, data = read_json(path, "facts file")
    chosen = _adapter_for(data, path, adapter)
    shown = name or str(path)
    try:
        return chosen.read(data, path=shown)
    except InputError as exc:
        raise _located(exc, shown, path, text) from None


def _check_size(path: Path) -> None:
    try:
        size = path.stat().st_size
    except OSError as exc:
        fix = "give a readable file"
        raise InputError(f"cannot read the facts file ({exc})", where=str(path), fix=fix) from None
    if size > MAX_FACTS_BYTES:
        raise InputError(
            f"the facts file is {size:,} bytes, over the limit of {MAX_FACTS_BYTES:,}",
            where=str(path),
            fix="keep one document's facts per file; quotes are sentences, not pages",
        )


def read_json(path: Path, what: str) -> tuple[str, Any]:
    """A JSON file's text and value, read as every input is (``values.parse_json``: a key written twice,
    nesting too deep, a number too long are refused, not lost or crashed on); an InputError naming the
    file, the line and column where it can, and the fix. A byte-order mark is not part of the JSON."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        fix = "give a UTF-8 JSON file"
        raise InputError(f"cannot read the {what} ({exc})", where=str(path), fix=fix) from None
    try:
        return text, parse_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg})",
            where=f"{path}:{exc.lineno}:{exc.colno}",
            fix="correct the JSON at that line and column",
        ) from None
    except ValueProblem as exc:
        found = position(text, exc.offset)
        at = f" (at {exc.path})" if exc.path else ""
        where = f"{path}:{found[0]}" if found else str(path)
        raise InputError(f"{exc.what}{at}", where=where, fix=exc.fix) from None


def _located(exc: InputError, shown: str, path: Path, text: str) -> InputError:
    """An adapter's error, with the file's whole path and the line of the top-level key it is about."""
    if not exc.where.startswith(shown):
        return exc
    rest = exc.where[len(shown) :]  # ": grace_period", ": claims[2]", ""
    key = regex.match(r": ([^.\[:]+)", rest)
    line = _line_of(text, key.group(1)) if key else None
    return InputError(exc.what, where=f"{path}:{line}{rest}" if line else f"{path}{rest}", fix=exc.fix)


def _key_pattern(key: str) -> str:
    return str(regex.escape(json.dumps(key))) + r"\s*:"


def _line_of(text: str, key: str) -> int | None:
    """The line of the first place `key` is written as a key (1-based), or None."""
    found = regex.search(_key_pattern(key), text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def _adapter_for(data: Any, path: Path, name: str | None) -> FactsAdapter:
    if name is not None:
        if name not in ADAPTERS:
            known = ", ".join(sorted(ADAPTERS))
            raise UsageError(f"no facts adapter named {name!r}", fix=f"use one of: {known}")
        return ADAPTERS[name]
    for adapter in ADAPTERS.values():
        if adapter.detects(data):
            return adapter
    raise InputError(
        "the file matches no facts layout",
        where=str(path),
        fix="write assay's default schema (an object with 'document' and a 'claims' list) or the flat "
        "layout (an object with 'policy_id' and one mapping with 'value' per field)",
    )


# --- checking values as read -----------------------------------------------------------------------


def _text_or_none(raw: Any, where: str, key: str) -> str | None:
    if raw is None:
        return raw
    if isinstance(raw, str):
        return _bounded(raw, where, key)
    what = f"'{key}' is {type(raw).__name__} {shown(raw)}, not text"
    raise InputError(what, where=where, fix=f"write '{key}' as a string")


def _bounded(text: str, where: str, key: str) -> str:
    limit = text_limit(key)
    if len(text) > limit:
        raise InputError(
            f"'{key}' is {len(text):,} characters long ({shown(text)}), over the limit of {limit:,}",
            where=where,
            fix=f"shorten '{key}' to {limit:,} characters at most",
        )
    return text


def _value(raw: Any, where: str) -> Any:
    """A claim's value as read: any JSON, its text and its list bounded (docs/limits.md)."""
    if isinstance(raw, str):
        return _bounded(raw, where, "value")
    if isinstance(raw, list) and len(raw) > MAX_VALUE_ITEMS:
        raise InputError(
            f"'value' is a list of {len(raw):,} items, over the limit of {MAX_VALUE_ITEMS:,}",
            where=where,
            fix="list the options a quote states, or write the value as a text",
        )
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, str):
            _bounded(item, where, "value")
    return raw


def _required_text(mapping: Mapping[str, Any], key: str, where: str) -> str:
    text = _text_or_none(mapping.get(key), where, key)
    if not text or not text.strip():
        raise InputError(
            f"'{key}' is missing or empty", where=where, fix=f"give '{key}' as a non-empty string"
        )
    return text


def _confidence(raw: Any, where: str, key: str) -> str | float | None:
    if raw is None or (isinstance(raw, str) and raw.strip().casefold() in CONFIDENCE_LABELS):
        return raw
    if isinstance(raw, int | float) and not isinstance(raw, bool) and 0 <= raw <= 1:
        return float(raw)
    raise InputError(
        f"'{key}' is {shown(raw)}",
        where=where,
        fix=f"write '{key}' as low, medium or high, or a number in [0, 1]",
    )


def _texts(raw: Any, where: str, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return tuple(_bounded(item, where, key) for item in raw)
    raise InputError(f"'{key}' is {shown(raw)}", where=where, fix=f"write '{key}' as a list of strings")


def _object(raw: Any, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise InputError(
            f"{what} is {type(raw).__name__}, not an object",
            where=where,
            fix=f"write {what} as a JSON object",
        )
    return raw


# --- the default schema ----------------------------------------------------------------------------


class DefaultAdapter:
    """assay's own schema (see the module's docstring)."""

    name = "default"

    def detects(self, data: Any) -> bool:
        return isinstance(data, dict) and "document" in data and isinstance(data.get("claims"), list)

    def read(self, data: Any, *, path: str) -> FactsFile:
        top = _object(data, path, "the file")
        document = _required_text(top, "document", path)
        claims = top.get("claims")
        if not isinstance(claims, list):
            raise InputError(
                "'claims' is missing or not a list", where=path, fix="give 'claims' as a list of objects"
            )
        read = tuple(self._claim(item, document, path, index) for index, item in enumerate(claims))
        return FactsFile(
            path=path,
            document=document,
            title=_text_or_none(top.get("title"), path, "title") or readable_name(document),
            adapter=self.name,
            own_sources=_texts(top.get("sources"), path, "sources"),
            claims=read,
        )

    def _claim(self, raw: Any, document: str, path: str, index: int) -> Claim:
        where = f"claims[{index}]"
        located = f"{path}: {where}"
        item = _object(raw, located, where)
        source = _object(item.get("source") or {}, located, f"{where}.source")
        known = {"field", "value", "unit", "source", "confidence", *GROUP_KEYS}
        field = _required_text(item, "field", located)
        return Claim(
            document=document,
            field=field,
            value=_value(item.get("value"), located),
            unit=_text_or_none(item.get("unit"), located, "unit"),
            source_path=_text_or_none(source.get("path"), located, "source.path"),
            source_url=_text_or_none(source.get("url"), located, "source.url"),
            quote=_text_or_none(source.get("quote"), located, "source.quote"),
            note=_text_or_none(source.get("note"), located, "source.note"),
            confidence=_confidence(item.get("confidence"), located, "confidence"),
            facts_file=path,
            where=where,
            extras={key: value for key, value in item.items() if key not in known},
            group=claim_group(item, field, located),
        )


# --- the flat layout -------------------------------------------------------------------------------

# A field mapping's keys that the claim reads; any other key is kept in the claim's extras.
FLAT_KEYS = ("value", "unit", "source_pdf_path", "source_url", "source_quote", "source_note", "_confidence")


class FlatAdapter:
    """Curated policy facts: top-level ``policy_id``, and one mapping with ``value`` per field."""

    name = "flat"

    def detects(self, data: Any) -> bool:
        return isinstance(data, dict) and isinstance(data.get("policy_id"), str)

    def read(self, data: Any, *, path: str) -> FactsFile:
        top = _object(data, path, "the file")
        document = _required_text(top, "policy_id", path)
        meta = _object(top.get("_meta") or {}, f"{path}: _meta", "_meta")
        own = _texts(top.get("source_pdf_path"), path, "source_pdf_path")
        own += _texts(meta.get("primary_source_pdf"), f"{path}: _meta", "primary_source_pdf")
        claims = tuple(
            claim
            for key, value in top.items()
            if isinstance(value, dict) and not key.startswith("_")
            for claim in self._claims(key, value, document, path)
        )
        return FactsFile(
            path=path,
            document=document,
            title=_text_or_none(top.get("policy_name"), path, "policy_name") or readable_name(document),
            adapter=self.name,
            own_sources=tuple(dict.fromkeys(own)),
            supporting_sources=_texts(
                meta.get("supporting_source_pdfs"), f"{path}: _meta", "supporting_source_pdfs"
            ),
            claims=claims,
        )

    def _claims(self, key: str, item: Mapping[str, Any], document: str, path: str) -> list[Claim]:
        """The claim of a field's mapping; or, for a section (a mapping of field mappings, ``{"refunds":
        {"monthly_refundable": {"value": ...}}}``), its fields' claims, named ``section.field``."""
        if _is_section(item):
            return [
                self._claim(f"{key}{GROUP_SEPARATOR}{name}", field, document, path, section=key)
                for name, field in item.items()
                if not name.startswith("_")
            ]
        return [self._claim(key, item, document, path)]

    def _claim(
        self, key: str, item: Mapping[str, Any], document: str, path: str, section: str | None = None
    ) -> Claim:
        located = f"{path}: {key}"
        _bounded(key, path, "field")
        if "value" not in item:
            raise InputError(
                "the field's mapping has no 'value'",
                where=located,
                fix="give the field a 'value' (null when the document does not state it), or rename the key "
                "with a leading underscore if it is not a field",
            )

        def text(name: str) -> str | None:
            return _text_or_none(item.get(name), located, name)

        return Claim(
            document=document,
            field=key,
            value=_value(item["value"], located),
            unit=text("unit"),
            source_path=text("source_pdf_path"),
            source_url=text("source_url"),
            quote=text("source_quote"),
            note=text("source_note"),
            confidence=_confidence(item.get("_confidence"), located, "_confidence"),
            facts_file=path,
            where=key,
            extras={name: value for name, value in item.items() if name not in (*FLAT_KEYS, *GROUP_KEYS)},
            group=claim_group(item, key, located) if section is None else section,
        )


def _is_section(item: Mapping[str, Any]) -> bool:
    """A flat layout's section: no value of its own, and every entry a field's mapping with a value."""
    fields = [value for name, value in item.items() if not name.startswith("_")]
    return "value" not in item and bool(fields) and all(isinstance(f, dict) and "value" in f for f in fields)


register_adapter(DefaultAdapter())
register_adapter(FlatAdapter())
