"""The first of several strings that occurs in a text, in one pass over the text.

A row may carry thousands of golden answers (every alias of an entity), and its response may be long:
looking for each answer in turn reads the response once per answer. With the C accelerator built the
answers go into one Aho-Corasick automaton (``_speedups.first_found``) and the response is read once;
without it, each is looked for in turn, which is the definition.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence

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


CHUNK = 1 << 16  # characters of a long text tokenised at a time


def tokens_in_chunks(text: str, tokenise: Callable[[str], list[str]]) -> Iterator[str]:
    """The tokens `tokenise(text)` gives, a chunk of the text at a time, so that a long text is never a
    list of millions of tokens at once. Each chunk ends just after whitespace, which no tokeniser of
    assay's reads across (they split on it; a word boundary is the same either side)."""
    for chunk in chunks_at_spaces(text):
        yield from tokenise(chunk)


def token_counts(text: str, tokenise: Callable[[str], list[str]]) -> Counter[str]:
    """How often each token of `tokenise(text)` occurs, counted a chunk at a time."""
    counts: Counter[str] = Counter()
    for chunk in chunks_at_spaces(text):
        counts.update(tokenise(chunk))
    return counts


def joined_tokens(text: str, tokenise: Callable[[str], list[str]]) -> str:
    """``" ".join(tokenise(text))``, a chunk of the text at a time (see ``tokens_in_chunks``)."""
    return " ".join(filter(None, (" ".join(tokenise(chunk)) for chunk in chunks_at_spaces(text))))


def chunks_at_spaces(text: str) -> Iterator[str]:
    """`text` in pieces of about CHUNK characters, each but the last ending just after whitespace."""
    at = 0
    while at < len(text):
        cut = _cut_after_space(text, at + CHUNK)
        yield text[at:cut]
        at = cut


def _cut_after_space(text: str, at: int) -> int:
    # Whitespace to str.split, str.strip and the regex module alike (not \x1c-\x1f, say).
    while at < len(text) and text[at - 1] not in " \t\n":
        at += 1
    return min(at, len(text))


LONG = 1 << 20  # characters past which a text is normalised a chunk at a time
# Whitespace to str.strip but not to the regex module: a chunk's strip would eat what the whole keeps.
_STRIPPED_NOT_SPLIT = "\x1c\x1d\x1e\x1f"


def by_chunks(function: Callable[[str], str], text: str, *, collapsed: bool) -> str:
    """`function(text)` for a normaliser that treats text either side of whitespace apart, a chunk at
    a time when the text is long: str.lower or casefold of a 50 MB text briefly takes 12 bytes a
    character, the C fast path 8. `collapsed`: the function collapses and strips whitespace, so the
    chunks' results join with one space, and an empty one adds nothing."""
    if len(text) <= LONG or any(separator in text for separator in _STRIPPED_NOT_SPLIT):
        return function(text)
    pieces = map(function, chunks_at_spaces(text))
    return " ".join(filter(None, pieces)) if collapsed else "".join(pieces)
