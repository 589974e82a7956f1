"""Where a piece of normalised text came from in the original: for traces' matched spans.

A normaliser folds, drops and expands characters (ß becomes ss, a soft hyphen vanishes, runs of
spaces collapse), so an offset in its output is not an offset in its input. Here the original is cut
into grapheme clusters (``\\X``: a letter with its vowel signs, virama, nukta and joiners), each
cluster is normalised alone, and every output character remembers the cluster it came from; then
whitespace is collapsed as the profile does. The sequences the profiles rewrite (a chillu spelled
with a ZWJ, a nukta after a vowel sign, a letter and its sign) lie inside one cluster, so the pieces
join up to the whole text's normal form. Where they do not (a context rule such as the final sigma
of ``str.lower``), ``locate`` says so by returning None, and a trace shows no span rather than a wrong
one.

A response can be tens of megabytes, and a list of offsets per character would take gigabytes. So the
original is first cut into chunks of about ``CHUNK`` characters, each cut between two characters that
no step of any view can join (``_safe_cut``): the chunks' normal forms join up to the whole text's
(checked), and only the chunks that hold the span are aligned cluster by cluster.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import unicodedata
from collections.abc import Callable, Iterator, Sequence

import regex

from . import unicode

Piece = Callable[[str], str]

CHUNK = 1 << 15  # original characters per chunk, about: what one chunk's offset lists may cost
_CLUSTER = regex.compile(r"\X")
_CODE_POINT = regex.compile(r".", regex.DOTALL)
_NOT_SPACE = regex.compile(r"\S+")  # the `regex` module's \s, as the unicode profile collapses it
_SPACE = regex.compile(r"\s")
_NOT_REGEX_SPACE = "\x1c\x1d\x1e\x1f"  # whitespace to str.split, not to regex's \s
# A character after which, or before which, a neighbour can change it (a mark, half of a pair a step
# joins), by the unicode profile's table; and one the table cannot treat alone.
_JOINS_AFTER = unicode.MARK | unicode.HAS_MARK | unicode.COMPOSES_FIRST | unicode.REWRITTEN_FIRST
_JOINS_BEFORE = unicode.MARK | unicode.COMPOSES_SECOND | unicode.REWRITTEN_SECOND
_BMP = 0x10000
_STOPS_SIGMA = frozenset({"Zs", "Nd", "Lo", "Cc"})  # neither cased nor case-ignorable


def locate(
    original: str,
    piece: Piece,
    seen: str,
    start: int,
    end: int,
    *,
    collapse: bool,
    by_code_point: bool = False,
) -> tuple[int, int] | None:
    """The original's [start, end) of `seen`'s [start, end) (end > start), where `seen` is the whole
    normaliser's output for `original`; None when the original normalised chunk by chunk and cluster by
    cluster with `piece` (then whitespace collapsed and stripped if `collapse`) is not `seen`. A
    normaliser that maps code points one by one (``str.lower``) is aligned `by_code_point`, which gives
    offsets inside a cluster too (a substring may end before a vowel sign)."""
    if collapse and (original[:1].isspace() or original[-1:].isspace()):
        # The profile strips the whole text's ends as str.strip does, the separators \x1c-\x1f with
        # them, which a chunk's collapsing (regex's whitespace) keeps: align what is inside the ends.
        lead = len(original) - len(original.lstrip())
        inside = locate(
            original[lead : len(original.rstrip())],
            piece,
            seen,
            start,
            end,
            collapse=True,
            by_code_point=by_code_point,
        )
        return None if inside is None else (inside[0] + lead, inside[1] + lead)
    unit = _CODE_POINT if by_code_point else _CLUSTER
    out = 0  # where the next chunk's output starts in `seen`
    space_pending = False  # whether the chunks so far end in whitespace that collapsing keeps
    found: dict[int, tuple[int, int]] = {}  # output offset -> the original's bounds of its character
    for at, chunk in _chunks(original):
        text = piece(chunk)
        produced = _collapsed(text) if collapse else text
        first = out  # where this chunk's output starts, the space before its first word included
        if collapse and produced and out and (space_pending or _SPACE.match(text)):
            out += 1  # the space between the last chunk's words and this one's
        if collapse:  # a word cut in two by a chunk boundary continues without a space
            space_pending = (space_pending or bool(text)) if not produced else bool(_SPACE.match(text[-1]))
        if seen[out : out + len(produced)] != produced:
            return None
        wanted = [offset - out for offset in (start, end - 1) if first <= offset < out + len(produced)]
        if wanted:
            bounds = _bounds_in_chunk(chunk, text, piece, unit, wanted, collapse)
            if bounds is None:
                return None
            found |= {out + w: (at + a, at + b) for w, (a, b) in zip(wanted, bounds)}
        out += len(produced)
    if out != len(seen) or start not in found or end - 1 not in found:
        return None
    return found[start][0], found[end - 1][1]


def _unspaced(runs: list[tuple[int, int]], offset: int) -> tuple[int, bool]:
    """The chunk text's offset (before collapsing) of the character at `offset` of its collapsed form
    (its runs joined by single spaces), and whether that is a space collapsing made, which borrows the
    origin of the next run's first character."""
    if offset < 0:  # the space before the chunk's first word
        return runs[0][0], True
    position = 0
    for index, (a, b) in enumerate(runs):
        if offset < position + b - a:
            return a + offset - position, False
        if offset == position + b - a:
            return runs[index + 1][0], True
        position += b - a + 1
    raise ValueError(offset)


def _bounds_in_chunk(
    chunk: str, text: str, piece: Piece, unit: regex.Pattern[str], wanted: list[int], collapse: bool
) -> list[tuple[int, int]] | None:
    """The chunk's bounds of the unit that each wanted character of its output came from (a space that
    collapsing made: the empty bounds at the next word's start); None when its units' pieces do not
    join up to its normal form `text` (after collapsing, if `collapse`)."""
    if chunk.isascii() and len(text) == len(chunk):  # every ASCII character is one, normalised alone
        starts: Sequence[int] = range(len(chunk) + 1)
        ends: Sequence[int] = range(1, len(chunk) + 1)
    else:
        units = unit.findall(chunk)
        outs = list(map(piece, units))
        joined = "".join(outs)
        if joined != text and not (collapse and _collapsed(joined) == _collapsed(text)):
            return None
        text = joined
        starts = list(itertools.accumulate(map(len, units), initial=0))
        ends = list(itertools.accumulate(map(len, outs)))  # where each unit's output ends
    runs = [m.span() for m in _NOT_SPACE.finditer(text)] if collapse else [(0, len(text))]
    found = []
    for offset in wanted:
        position, borrowed = _unspaced(runs, offset)
        index = bisect.bisect_right(ends, position)
        found.append((starts[index], starts[index] if borrowed else starts[index + 1]))
    return found


def _collapsed(text: str) -> str:
    """Runs of whitespace (regex's \\s) to one space, none at the ends."""
    if any(separator in text for separator in _NOT_REGEX_SPACE):
        return " ".join(_NOT_SPACE.findall(text))
    return " ".join(text.split())  # the same where str.split's whitespace is regex's, and faster


def _chunks(original: str) -> Iterator[tuple[int, str]]:
    """The original in consecutive chunks (with their offsets), each cut where `_safe_cut` allows."""
    at = 0
    while at < len(original):
        cut = at + CHUNK
        while cut < len(original) and not _safe_cut(original, cut):
            cut += 1
        yield at, original[at:cut]
        at = cut


def _safe_cut(text: str, at: int) -> bool:
    """Whether every view normalises text[:at] + text[at:] as the two halves apart: two characters the
    unicode profile's table treats alone, neither a mark nor half of a pair that a step joins, in
    two grapheme clusters; and before the cut a space, a digit or an uncased letter (Devanagari,
    Han), at which the final sigma of str.lower stops looking for its neighbours."""
    before, after = ord(text[at - 1]), ord(text[at])
    if before >= _BMP or after >= _BMP or unicodedata.category(text[at - 1]) not in _STOPS_SIGMA:
        return False
    mapping, flags = _tables()
    if unicode.UNSAFE in (mapping[before], mapping[after]):
        return False
    if flags[before] & _JOINS_AFTER or flags[after] & _JOINS_BEFORE:
        return False
    cluster = _CLUSTER.match(text, at - 1)
    return cluster is not None and cluster.end() == at  # a vowel sign stays with the letter before it


@functools.cache
def _tables() -> tuple[memoryview, bytes]:
    mapping, flags = unicode.fold_tables()
    return memoryview(mapping).cast("I"), flags
