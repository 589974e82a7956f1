"""How large a user's regular expression would be once compiled, read from its text before compiling.

The ``regex`` module expands a counted repeat into copies of what it repeats: compiling
``a{1000000000}`` alone grows the process past 20 GB, and ``(?:a{1000}){1000}`` takes most of a second.
So a pattern from a data file is measured first, by a small scanner over its text: each literal,
escape, class or dot counts one; a counted repeat ``{m}``, ``{m,n}``, ``{m,}``, ``{,n}`` multiplies
what it follows by its largest bound; ``*``, ``+`` and ``?`` are loops and multiply nothing; groups
nest. The scanner errs towards counting more (a ``{`` in a verbose-mode comment counts as a repeat):
it is a guard, and the ``regex`` module still decides what the pattern means.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import regex

MAX_REPEAT = 1000  # the largest bound of one counted repeat
MAX_EXPANDED = 10_000  # the pattern's size with every counted repeat expanded (about 5 ms to compile)
MAX_DEPTH = 100  # groups inside groups
MAX_CHARACTERS = 10_000  # the pattern's own length

_REPEAT = regex.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_BRACED_ESCAPES = frozenset("pPNxXug")  # \p{...}, \N{...}, \x{...}: braces that are not a repeat


@dataclass
class _Group:
    total: int = 0  # the size of everything in the group so far
    last: int = 0  # the size of the last atom, which a repeat that follows multiplies


@dataclass
class _Scan:
    pattern: str
    at: int = 0
    groups: list[_Group] = field(default_factory=lambda: [_Group()])

    def atom(self, size: int) -> None:
        self.groups[-1].total += size
        self.groups[-1].last = size


def oversize(pattern: str) -> str | None:
    """Why `pattern` would compile too large (a sentence), or None when it is within bounds."""
    if len(pattern) > MAX_CHARACTERS:
        return f"it is {len(pattern):,} characters long (at most {MAX_CHARACTERS:,})"
    scan = _Scan(pattern)
    while scan.at < len(pattern):
        problem = _step(scan)
        if problem:
            return problem
        if scan.groups[0].total > MAX_EXPANDED:
            return f"with its counted repeats expanded it is over {MAX_EXPANDED:,} items"
    return None


def shown(text: str, keep: int = 60) -> str:
    """`text` as a message quotes it: its repr, cut to `keep` characters and its length when longer."""
    return repr(text) if len(text) <= keep else f"{text[:keep]!r}... ({len(text):,} characters)"


def _step(scan: _Scan) -> str | None:
    """Read one item at scan.at, and say what is wrong with it, if anything."""
    character = scan.pattern[scan.at]
    if character == "\\":
        _skip_escape(scan)
    elif character == "[":
        _skip_class(scan)
    elif character == "(":
        return _open_group(scan)
    elif character == ")":
        _close_group(scan)
    elif character == "{" and (repeat := _REPEAT.match(scan.pattern, scan.at)) and repeat.group(0) != "{}":
        return _apply_repeat(scan, repeat)
    else:  # a literal, a dot, an anchor, |, or a loop (*, +, ?) that adds no copies
        scan.atom(0 if character in "|*+?^$" else 1)
        scan.at += 1
    return None


def _skip_escape(scan: _Scan) -> None:
    after = scan.at + 2
    if scan.pattern[scan.at + 1 : after] in _BRACED_ESCAPES and scan.pattern[after : after + 1] in ("{", "<"):
        closing = scan.pattern.find("}" if scan.pattern[after] == "{" else ">", after)
        after = len(scan.pattern) if closing < 0 else closing + 1
    scan.atom(1)
    scan.at = after


def _skip_class(scan: _Scan) -> None:
    """A character class counts one, however long; a ] first in it is a member, not its end."""
    at = scan.at + 1
    if scan.pattern[at : at + 1] == "^":
        at += 1
    if scan.pattern[at : at + 1] == "]":
        at += 1
    while at < len(scan.pattern) and scan.pattern[at] != "]":
        at += 2 if scan.pattern[at] == "\\" else 1
    scan.atom(1)
    scan.at = at + 1


def _open_group(scan: _Scan) -> str | None:
    if scan.pattern.startswith("(?#", scan.at):  # a comment
        closing = scan.pattern.find(")", scan.at)
        scan.at = len(scan.pattern) if closing < 0 else closing + 1
        return None
    scan.groups.append(_Group())
    scan.at += 1
    if len(scan.groups) > MAX_DEPTH:
        return f"it nests groups more than {MAX_DEPTH} deep"
    return None


def _close_group(scan: _Scan) -> None:
    if len(scan.groups) > 1:  # an unbalanced ) is the compiler's to report
        inner = scan.groups.pop()
        scan.atom(inner.total)
    scan.at += 1


def _apply_repeat(scan: _Scan, repeat: regex.Match[str]) -> str | None:
    low, comma, high = repeat.groups()
    bounds = [digits for digits in (low, high) if digits]
    if any(len(digits) > len(str(MAX_REPEAT)) or int(digits) > MAX_REPEAT for digits in bounds):
        return f"its repeat {shown(repeat.group())} is above {MAX_REPEAT:,}"
    times = max(map(int, bounds), default=1) if not (comma and not high) else int(low or 1)
    group = scan.groups[-1]
    group.total += group.last * (times - 1)
    group.last *= times
    scan.at = repeat.end()
    return None
