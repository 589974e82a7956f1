"""Reading a templates file as data: TOML or YAML parsed with every expansion bounded, errors with a line.

A templates file is small and written by hand, so it is read under bounds that no such file comes near
(``docs/limits.md``): at most ``MAX_TEMPLATES_BYTES``, nested at most ``MAX_DEPTH`` levels. YAML anchors
and aliases (``&base``, ``*base``, and so the ``<<: *base`` merge) are refused where they are written:
an alias is a reference, and a few hundred bytes of aliases to aliases (the "billion laughs") stand for
billions of values that any walk of the data, or an error message showing it, would expand. Explicit YAML
tags are refused too: ``!!python/object`` would build an object (the safe loader refuses it anyway), and
PyYAML's own constructors crash on odd tagged values (``!!timestamp`` on a text that is none).

Every failure is an ``InputError`` naming the file and, where it can be found, the line (``line_of``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import regex

from ..errors import InputError
from ..extras import missing_extra

MAX_TEMPLATES_BYTES = 256 << 10  # 256 KiB of hand-written questions; the shipped example is 3 KB
MAX_DEPTH = 16  # mappings and lists inside each other; a templates file needs 4 (fields.f.labels.x)


def read_templates_data(path: Path) -> tuple[str, Any]:
    """The file's text and its parsed value (TOML or YAML, by the suffix)."""
    text = _text(path)
    suffix = path.suffix.casefold()
    if suffix == ".toml":
        data = _toml(text, path)
        if _depth(data) > MAX_DEPTH:
            raise InputError(
                f"the TOML is nested more than {MAX_DEPTH} levels deep", where=str(path), fix="flatten it"
            )
        return text, data
    if suffix in (".yaml", ".yml"):
        return text, _yaml(text, path)
    raise InputError(
        f"unknown template file type {path.suffix!r}", where=str(path), fix="name it .toml, .yaml or .yml"
    )


def _text(path: Path) -> str:
    try:
        with path.open("rb") as handle:  # read one byte past the limit, never the whole of a huge file
            data = handle.read(MAX_TEMPLATES_BYTES + 1)
        if len(data) > MAX_TEMPLATES_BYTES:
            raise InputError(
                f"the template file is over {MAX_TEMPLATES_BYTES:,} bytes",
                where=str(path),
                fix="give a templates file of questions (a few KB); split the facts' fields, not the file",
            )
        # utf-8-sig: a leading byte-order mark is not TOML (tomllib refuses it at line 1)
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read the template file ({exc})", where=str(path), fix="give a UTF-8 file"
        ) from None


# A key of more parts than MAX_DEPTH (``a.b.c...``, ``[a.b.c...]``, ``{a.b.c... = 1}``), where a key
# starts: tomllib's time grows with the square of a dotted key's parts (8,000 parts: 0.65 s; a file at
# the size limit: minutes), so it is refused before tomllib reads it.
_KEY_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_LONG_DOTTED_KEY = regex.compile(
    rf"(?m)(?:^[ \t]*+\[{{0,2}}+|[{{,])[ \t]*+{_KEY_PART}(?:[ \t]*+\.[ \t]*+{_KEY_PART}){{{MAX_DEPTH},}}+"
)


def _toml(text: str, path: Path) -> Any:
    long_key = _LONG_DOTTED_KEY.search(text)
    if long_key is not None:
        raise InputError(
            f"a dotted key of more than {MAX_DEPTH} parts",
            where=f"{path}:{text.count(chr(10), 0, long_key.start()) + 1}",
            fix="flatten it",
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", where=str(path), fix="correct the TOML there") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise InputError("the TOML is nested too deeply to read", where=str(path), fix="flatten it") from None
    except ValueError as exc:  # an integer past int()'s digit limit (CVE-2020-10735)
        raise InputError(
            f"not readable TOML ({exc})", where=str(path), fix="write a long number as a string, in quotes"
        ) from None


def _depth(data: Any) -> int:
    """How deep tables and arrays nest in `data` (walked with a stack, not recursion)."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth + 1)
            stack += [(item, depth + 1) for item in (value.values() if isinstance(value, dict) else value)]
    return deepest


def _yaml(text: str, path: Path) -> Any:
    try:
        import yaml  # only for YAML templates: every command line imports the templates module
    except ImportError:
        raise missing_extra(
            "yaml", "to read templates written in YAML", where=str(path), alternative="write them as TOML"
        ) from None

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML was built with it
    try:
        _check_events(yaml.parse(text, Loader=loader), yaml)
        return yaml.load(text, Loader=loader)  # a safe loader: no tag builds an object
    except _Refused as exc:
        raise InputError(exc.what, where=f"{path}:{exc.line}", fix=exc.fix) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise InputError(f"not valid YAML ({exc})", where=where, fix="correct the YAML there") from None
    except ValueError as exc:  # an integer past int()'s digit limit, a date out of range
        raise InputError(
            f"not readable YAML ({exc})", where=str(path), fix="write the value as a string, in quotes"
        ) from None


class _Refused(Exception):
    """A construct the templates reader does not read, at a 1-based line."""

    def __init__(self, what: str, line: int, fix: str) -> None:
        super().__init__(what)
        self.what, self.line, self.fix = what, line, fix


def _check_events(events: Iterator[Any], yaml: Any) -> None:
    """Refuse anchors, aliases and nesting past MAX_DEPTH in the parser's events, before anything is
    composed: the events are a flat stream (no recursion, no alias followed), the composer is where an
    alias would be shared and where nesting recurses."""
    depth = 0
    for event in events:
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(
                "YAML anchors and aliases (&name, *name, <<: *name) are not read in a templates file",
                line,
                "write each template out in full",
            )
        if getattr(event, "tag", None) is not None:  # explicit: PyYAML's constructors crash on some
            raise _Refused(
                f"YAML tags ({event.tag}) are not read in a templates file",
                line,
                "write the value plainly (quote a text)",
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Refused(f"the YAML is nested more than {MAX_DEPTH} levels deep", line, "flatten it")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def line_of(text: str, needle: str | None, key: str | None = None) -> int | None:
    """The 1-based line where `needle` (a question, a text) is first written, as it is or escaped as in a
    TOML or YAML double-quoted string; else where `key` (a field's name) is written as a key."""
    for written in _spellings(needle):
        found = text.find(written)
        if found >= 0:
            return text.count("\n", 0, found) + 1
    if key:
        escaped = regex.escape(key)
        pattern = rf"(?m)^[ \t]*(?:\[+[ \t]*fields\.)?[\"']?{escaped}[\"']?[ \t]*[:=\].]"
        found_key = regex.search(pattern, text)
        if found_key is not None:
            return text.count("\n", 0, found_key.start()) + 1
    return None


def _spellings(needle: str | None) -> list[str]:
    if not needle:
        return []
    escaped = [json.dumps(needle)[1:-1], json.dumps(needle, ensure_ascii=False)[1:-1]]
    return list(dict.fromkeys([needle, *escaped]))
