"""What a cell can hold: values that every writer can put back out, and names that show what they are.

Python's ``json`` accepts text that assay could not write again: a ``"\\ud800"`` escape decodes to a lone
surrogate, which no UTF-8 writer can encode; a number of more than 4,300 digits stops at ``int()``'s
limit (CVE-2020-10735); 200,000 nested brackets exhaust the parser's recursion. ``parse_json`` turns each
into a ``ValueProblem`` with the offset it can find, and ``unrepresentable`` finds the same kinds of value
in cells that did not come from JSON (a DataFrame). Names (headers, ids) must not hide invisible
characters: a second BOM before ``id`` would otherwise make a column nobody can name.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from collections.abc import Iterator
from typing import Any

import regex

# A format character (Cf: BOM, ZWSP, LRM, WORD JOINER, soft hyphen, ...) or a surrogate anywhere; ZWJ and
# ZWNJ only at an end, since inside a word they are part of some Indic spellings.
_INVISIBLE = regex.compile(r"(?V1m)^[\u200c\u200d]|[\u200c\u200d]$|[[\p{Cf}\p{Cs}]--[\u200c\u200d]]")
_SURROGATE = regex.compile(r"\p{Cs}")
# The only way JSON text read as UTF-8 can carry a surrogate is an escape: look for one before walking.
_SURROGATE_ESCAPE = regex.compile(r"\\u[dD][89a-fA-F]")
_BIG_INTEGER_BITS = int(sys.get_int_max_str_digits() * 3.3219)  # digits -> bits, a little under
_STRINGS = regex.compile(r'"(?:[^"\\]|\\.)*+"')  # a JSON string, escapes included
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _blank(found: regex.Match[str]) -> str:
    return " " * len(found.group())  # the same length: offsets stay true


FIX_SURROGATE = "write the character itself, or a surrogate pair (\\ud83d\\ude00) for one past U+FFFF"
FIX_DIGITS = "write the number as a string, in quotes"
FIX_NESTING = "flatten the value, or write it as a string"
FIX_CONSTANT = "write null for a missing value, or the number as a string"
FIX_REPEATED_KEY = "keep one of the two (or rename one)"


class ValueProblem(ValueError):
    """A value assay cannot hold: what it is, where in the text (an offset) or the value (a path), and
    the fix."""

    def __init__(
        self, what: str, fix: str, offset: int | None = None, path: str = "", *, pattern: str = ""
    ) -> None:
        super().__init__(what)
        self.what, self.fix, self.offset, self.path = what, fix, offset, path
        self.pattern = pattern  # how to find the value in the text, when the parser cannot say


def has_invisible(name: str) -> bool:
    """Whether a header or id holds a character that does not show: print it with repr() to show it."""
    return not name.isascii() and _INVISIBLE.search(name) is not None


def visible(name: str) -> str:
    """`name` without the characters has_invisible finds: the name a user meant to write."""
    return str(_INVISIBLE.sub("", name))


def parse_json(text: str) -> Any:
    """The value of JSON text, or ValueProblem for what assay cannot hold (json.JSONDecodeError passes)."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        depth, offset = _deepest(text)
        raise ValueProblem(
            f"nesting {depth} levels deep, more than JSON input may have", FIX_NESTING, offset
        ) from None
    except json.JSONDecodeError:
        raise
    except _RepeatedKey as exc:
        # The hook is not told where its object stands: the place is named only when the key is spelled
        # just twice in the text (a key that other objects share too would be named at the wrong one).
        spelled = regex.compile(regex.escape(json.dumps(exc.key, ensure_ascii=False)) + r"\s*+:")
        spots = list(itertools.islice(spelled.finditer(text), 3))
        raise ValueProblem(exc.what, exc.fix, spots[1].start() if len(spots) == 2 else None) from None
    except ValueProblem as exc:  # parse_constant's or parse_float's refusal: find where it stands
        found = regex.search(exc.pattern, _STRINGS.sub(_blank, text))
        raise ValueProblem(exc.what, exc.fix, found.start() if found else None) from None
    except ValueError:  # int()'s digit limit
        raise ValueProblem(_too_long(), FIX_DIGITS, _long_number(text)) from None
    if _SURROGATE_ESCAPE.search(text):
        found = unrepresentable(value)
        if found is not None:
            raise ValueProblem(found[1], FIX_SURROGATE, None, found[0])
    return value


def unrepresentable(value: Any) -> tuple[str, str] | None:
    """(where in `value`, what) of the first part no writer could write out, or None.

    Walks without recursion: a value's depth is the data's choice, not ours.
    """
    for where, part in _parts(value):
        if isinstance(part, str):
            if not part.isascii() and _SURROGATE.search(part):
                return where, f"a lone surrogate {_first_surrogate(part)} (not a character) in {part[:40]!r}"
        elif type(part) is int and part.bit_length() > _BIG_INTEGER_BITS:
            return where, _too_long()
        elif isinstance(part, float) and math.isinf(part):
            return where, f"the number {part} (infinity, which JSON has no way to write)"
    return None


def _parts(value: Any) -> Iterator[tuple[str, Any]]:
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, part = stack.pop()
        if isinstance(part, dict):
            for key, item in part.items():
                shown = key if isinstance(key, str) and key.isprintable() else repr(key)
                named = f"{where}.{shown}" if where else shown
                yield f"{named} (the key)", key
                stack.append((named, item))
        elif isinstance(part, (list, tuple)):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(part))
        else:
            yield where, part


def _first_surrogate(text: str) -> str:
    found = _SURROGATE.search(text)
    return f"\\u{ord(found.group()):04x}" if found else "?"


def _constant(name: str) -> float:
    if name == "NaN":  # a missing value, as pandas' NaN: treated like null
        return float("nan")
    raise ValueProblem(f"{name} is not a number JSON allows, nor text", FIX_CONSTANT, pattern=r"-?Infinity")


class _RepeatedKey(ValueProblem):
    def __init__(self, key: str) -> None:
        what = f"the key {key!r} appears twice in one object (JSON readers keep only one of them)"
        super().__init__(what, FIX_REPEATED_KEY)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object, refusing a key given twice: json keeps the last in silence, so a row with two
    "answer" keys would be scored against one and lose the other."""
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return value


def _finite_float(literal: str) -> float:
    """A JSON number as a float, refusing one past the float's range: `1e400` would become infinity,
    the value `Infinity` stands for, which no writer could put back as JSON."""
    value = float(literal)
    if math.isinf(value):
        shown = literal if len(literal) <= 40 else literal[:40] + "..."
        what = f"the number {shown} is past a float's range (it would be {value})"
        raise ValueProblem(what, FIX_DIGITS, pattern=r"(?<![\w.+-])" + regex.escape(literal))
    return value


# One decoder for every call: json.loads(text, **hooks) would build a new one per line of a file.
_DECODER = json.JSONDecoder(
    parse_constant=_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
)


def _too_long() -> str:
    return f"a number of more than {sys.get_int_max_str_digits()} digits"


def _deepest(text: str) -> tuple[int, int]:
    """The greatest depth of brackets outside strings, and the offset where it is first reached.

    Strings are blanked to spaces of the same length (offsets stay true), and the depths summed in C:
    a Python step per bracket would take a second on 200,000 of them.
    """
    blanked = _STRINGS.sub(_blank, text)
    depths = list(itertools.accumulate(map(_DEPTH_STEP.get, blanked, itertools.repeat(0))))
    deepest = max(depths, default=0)
    return deepest, depths.index(deepest) if depths else 0


def _long_number(text: str) -> int | None:
    """Where the first number past int()'s digit limit starts, outside strings."""
    limit = sys.get_int_max_str_digits()
    found = regex.search(rf"\d{{{limit + 1},}}", _STRINGS.sub(_blank, text))
    return found.start() if found else None


def position(text: str, offset: int | None) -> tuple[int, int] | None:
    """The 1-based (line, column) of an offset into text, or None."""
    if offset is None:
        return None
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1
