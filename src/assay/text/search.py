"""The first of several strings that occurs in a text, in one pass over the text.

A row may carry thousands of golden answers (every alias of an entity), and its response may be long:
looking for each answer in turn reads the response once per answer. With the C accelerator built the
answers go into one Aho-Corasick automaton (``_speedups.first_found``) and the response is read once;
without it, each is looked for in turn, which is the definition.
"""

from __future__ import annotations

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
    while at < len(text) and not text[at - 1].isspace():
        at += 1
    return min(at, len(text))
