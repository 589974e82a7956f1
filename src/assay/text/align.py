"""Where a piece of normalised text came from in the original: for traces' matched spans.

A normaliser folds, drops and expands characters (ß becomes ss, a soft hyphen vanishes, runs of
spaces collapse), so an offset in its output is not an offset in its input. Here the original is cut
into grapheme clusters (``\\X``: a letter with its vowel signs, virama, nukta and joiners), each
cluster is normalised alone, and every output character remembers the cluster it came from; then
whitespace is collapsed as the profile does. The sequences the profiles rewrite (a chillu spelled
with a ZWJ, a nukta after a vowel sign, a letter and its sign) lie inside one cluster, so the pieces
join up to the whole text's normal form. Where they do not (a context rule such as the final sigma
of ``str.lower``), ``align`` says so by returning None, and a trace shows no span rather than a wrong
one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import regex

Piece = Callable[[str], str]

_CLUSTER = regex.compile(r"\X")
_CODE_POINT = regex.compile(r".", regex.DOTALL)
_NOT_SPACE = regex.compile(r"\S+")  # the `regex` module's \s, as the unicode profile collapses it


@dataclass(frozen=True)
class Aligned:
    """A normalised text, and for each of its characters the original's [start, end) it came from."""

    text: str
    starts: list[int]
    ends: list[int]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original's offsets of the normalised text's [start, end) (end > start)."""
        return self.starts[start], self.ends[end - 1]


def align(
    original: str, piece: Piece, whole: Callable[[str], str], *, collapse: bool, by_code_point: bool = False
) -> Aligned | None:
    """`original` normalised cluster by cluster with `piece` (then whitespace collapsed and stripped if
    `collapse`), or None when that differs from `whole(original)`, the normaliser applied at once.
    A normaliser that maps code points one by one (``str.lower``) can be aligned `by_code_point`,
    which gives offsets inside a cluster too (a substring may end before a vowel sign)."""
    text, starts, ends = _pieces(original, piece, _CODE_POINT if by_code_point else _CLUSTER)
    if collapse:
        text, starts, ends = _collapsed(text, starts, ends)
    return Aligned(text, starts, ends) if text == whole(original) else None


def _pieces(original: str, piece: Piece, unit: regex.Pattern[str]) -> tuple[str, list[int], list[int]]:
    if original.isascii():  # every ASCII character is a cluster, normalised alone to one character
        text = piece(original)
        if len(text) == len(original):
            return text, list(range(len(original))), list(range(1, len(original) + 1))
    units = unit.findall(original)
    outs = list(map(piece, units))
    bounds = list(itertools.accumulate(map(len, units), initial=0))
    sizes = list(map(len, outs))  # each output character carries its unit's bounds
    starts = list(itertools.chain.from_iterable(map(itertools.repeat, bounds, sizes)))
    ends = list(itertools.chain.from_iterable(map(itertools.repeat, bounds[1:], sizes)))
    return "".join(outs), starts, ends


def _collapsed(text: str, starts: list[int], ends: list[int]) -> tuple[str, list[int], list[int]]:
    """Runs of whitespace to one space, none at the ends; each space borrows the next run's origin."""
    runs = [run.span() for run in _NOT_SPACE.finditer(text)]
    new_starts: list[int] = []
    new_ends: list[int] = []
    for index, (start, end) in enumerate(runs):
        if index:
            new_starts.append(starts[start])
            new_ends.append(starts[start])
        new_starts += starts[start:end]
        new_ends += ends[start:end]
    return " ".join(text[start:end] for start, end in runs), new_starts, new_ends
