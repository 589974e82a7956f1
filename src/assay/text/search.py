"""The first of several strings that occurs in a text, in one pass over the text.

A row may carry thousands of golden answers (every alias of an entity), and its response may be long:
looking for each answer in turn reads the response once per answer. With the C accelerator built the
answers go into one Aho-Corasick automaton (``_speedups.first_found``) and the response is read once;
without it, each is looked for in turn, which is the definition.
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    from .. import _speedups
except ImportError:  # not built (no C compiler at install): one search per needle
    _speedups = None  # type: ignore[assignment]


def first_occurring(needles: Sequence[str], text: str) -> int:
    """The index of the first of `needles` that occurs in `text` (``needle in text``), or -1."""
    if _speedups is not None and len(needles) > 1:
        return _speedups.first_found(list(needles), text)
    return first_occurring_by_definition(needles, text)


def first_occurring_by_definition(needles: Sequence[str], text: str) -> int:
    return next((index for index, needle in enumerate(needles) if needle in text), -1)
