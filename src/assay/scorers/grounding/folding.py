"""Folding a text for the quote cascade, with a map from each folded character back to the original.

The normalised level compares texts folded by `fold`: NFKC, dashes and quotes to ASCII, spaces
collapsed, soft hyphens, control and private-use characters dropped, "hyphen + line break" joined,
casefolded. The alnum level keeps letters, marks and digits only (`alnum_text`, `alnum_of`). A match
found in folded text is mapped back through `Folded` to the extracted characters it covers.
`running_lines` finds a page's running header and footer, which a join of two pages can leave out.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex


@dataclass(frozen=True)
class Folded:
    """A folded text and, piece by piece, where its characters came from in the original.

    Segment k covers folded[starts[k]:starts[k+1]]. A linear segment maps folded index i to
    orig_starts[k] + (i - starts[k]); an atomic one (a space run, a ligature) maps every folded
    character to the whole original range [orig_starts[k], orig_ends[k]).
    """

    text: str
    starts: list[int]
    orig_starts: list[int]
    orig_ends: list[int]
    linear: list[bool]

    def first(self, i: int) -> int:
        """The original offset where folded character i starts."""
        k = bisect_right(self.starts, i) - 1
        return self.orig_starts[k] + (i - self.starts[k] if self.linear[k] else 0)

    def last(self, i: int) -> int:
        """The original offset just past folded character i."""
        k = bisect_right(self.starts, i) - 1
        return self.orig_starts[k] + i - self.starts[k] + 1 if self.linear[k] else self.orig_ends[k]


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.starts: list[int] = []
        self.orig_starts: list[int] = []
        self.orig_ends: list[int] = []
        self.linear: list[bool] = []

    def add(self, out: str, orig_start: int, orig_end: int, *, linear: bool) -> None:
        if not out:
            return
        self.parts.append(out)
        self.starts.append(self.size)
        self.orig_starts.append(orig_start)
        self.orig_ends.append(orig_end)
        self.linear.append(linear)
        self.size += len(out)

    def build(self) -> Folded:
        return Folded("".join(self.parts), self.starts, self.orig_starts, self.orig_ends, self.linear)


# U+FFFE is what pdfium puts in place of a hyphen that ended a line ("Co\ufffepayment"): it is the
# "hyphen + line break" fold already done, so it folds to "-" like any dash, not to nothing.
_DASHES = r"\p{Pd}\u2212\ufffe"
# Dropped: C0 controls other than whitespace (extractors turn Symbol-font bullets into \x07), DEL,
# soft hyphen, zero-width space, word joiner, BOM, the non-character U+FFFF and private-use code
# points (Wingdings bullets such as U+F0B7). ZWJ/ZWNJ stay: they are meaningful in Indic words.
_DROP = r"\x00-\x08\x0e-\x1f\x7f\u00ad\u200b\u2060\ufeff\uffff\p{Co}"
_TOKEN = regex.compile(
    # A dash after a letter or digit, then a line break or spaces: one hyphen ("pre-\nexisting",
    # and the curator's "pre- existing" alike, so both sides fold to "pre-existing").
    rf"(?P<hyphen>(?<=[\p{{L}}\p{{M}}\p{{N}}])[{_DASHES}][{_DROP}]*\s[\s{_DROP}]*)"
    # A soft hyphen is a break point INSIDE a word: the line break after it is no word break.
    rf"|(?P<soft>\u00ad[\s{_DROP}]*)"
    # Any run of whitespace and dropped characters other than one plain space.
    rf"|(?P<space>[ ]*[^\S ][\s{_DROP}]*|[ ]*[{_DROP}][\s{_DROP}]*|[ ]{{2,}})"
)
# A grapheme cluster that is not plain ASCII: folded as a unit so NFC and NFD agree.
_CLUSTER = regex.compile(r"(?=[^\x00-\x7f]|.\p{M})\X")
_DROP_CHARS = regex.compile(rf"[{_DROP}]+")
_QUOTE_FOLDS = (
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u2035": "'",
        "\u2039": "'", "\u203a": "'", "\u00b4": "'", "`": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u2036": '"',
        "\u00ab": '"', "\u00bb": '"',
    }
)  # fmt: skip
_PUNCT = str.maketrans(_QUOTE_FOLDS)
# A stretch without these, already NFKC and casefolded, folds to itself (and most of a page does).
_UNSTABLE = regex.compile(rf"(?!-)[{''.join(_QUOTE_FOLDS)}{_DASHES}]")
_DASH_CHARS = regex.compile(rf"[{_DASHES}]")


@lru_cache(maxsize=65536)
def _fold_cluster(cluster: str) -> str:
    # Quotes are mapped before NFKC too, because NFKC splits a double prime into two primes.
    text = unicodedata.normalize("NFKC", cluster.translate(_PUNCT)).casefold()
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT)
    folded: str = _DROP_CHARS.sub("", _DASH_CHARS.sub("-", text))
    return folded


def _fold_space(run: str) -> str:
    return " " if any(char.isspace() for char in run) else ""


# The tokeniser above costs ~0.6 us per character in the regex module (its lookbehind and
# alternation are tried at every position); plain printable ASCII between single spaces, most of any
# page, needs only lower(). So a cheap scan finds the runs that hold anything else, and the
# tokeniser runs inside those runs only (measured: 0.36 s -> 0.05 s for the shared set's 130 pages).
# Every run of two or more non-printables is special (two spaces, or something other than a space),
# so is any single one but a space, and so is a dash before a space (the hyphen rule).
_SPECIAL_RUN = regex.compile(r"[^\x21-\x7e]{2,}|[^\x20-\x7e]|-[ ]+[^\x21-\x7e]*")


def fold(text: str) -> Folded:
    """The normalised level's folding of `text`, with its offset map."""
    built = _Builder()
    done = 0
    for run in _SPECIAL_RUN.finditer(text):
        start, end = run.span()
        # Take in the dash of "-\n" and the base letter of a combining mark, which the scan leaves out.
        if start > done and (text[start - 1] == "-" or unicodedata.category(text[start])[0] == "M"):
            start -= 1
        if start > done:
            built.add(text[done:start].lower(), done, start, linear=True)
        if run.start() == start and run.group().isspace():  # most runs: a line break, say
            built.add(" ", start, end, linear=False)
            done = end
        else:
            done = _fold_run(text, start, end, built)
    if done < len(text):
        built.add(text[done:].lower(), done, len(text), linear=True)
    return built.build()


def _fold_run(text: str, start: int, end: int, built: _Builder) -> int:
    done = start
    for token in _TOKEN.finditer(text, start, end):
        token_start, token_end = token.span()
        _fold_stretch(text, done, token_start, built)
        if token.group("hyphen") is not None:
            built.add("-", token_start, token_start + 1, linear=True)
        elif token.group("soft") is None:
            built.add(_fold_space(token.group()), token_start, token_end, linear=False)
        done = token_end
    _fold_stretch(text, done, end, built)
    return end


def _fold_stretch(text: str, start: int, end: int, built: _Builder) -> None:
    """Fold text between line breaks: whole when it is stable (Devanagari prose), else by cluster."""
    stretch = text[start:end]
    folded = stretch.casefold()
    if len(folded) == len(stretch) and _is_stable(stretch, folded):
        built.add(folded, start, end, linear=True)
        return
    done = start
    for cluster in _CLUSTER.finditer(text, start, end):
        cluster_start, cluster_end = cluster.span()
        if cluster_start > done:
            built.add(text[done:cluster_start].lower(), done, cluster_start, linear=True)
        folded = _fold_cluster(cluster.group())
        built.add(folded, cluster_start, cluster_end, linear=folded == cluster.group())
        done = cluster_end
    if done < end:
        built.add(text[done:end].lower(), done, end, linear=True)


def _is_stable(stretch: str, folded: str) -> bool:
    if stretch.isascii():
        return True
    return (
        _UNSTABLE.search(stretch) is None
        and unicodedata.is_normalized("NFKC", stretch)
        and unicodedata.is_normalized("NFKC", folded)
    )


_NOT_ALNUM = regex.compile(r"[^\p{L}\p{M}\p{N}]+")
# str.translate drops ASCII punctuation and spaces five times faster than the regex; the regex is
# needed only when something else is left.
_ASCII_NOT_ALNUM = str.maketrans("", "", "".join(chr(code) for code in range(128) if not chr(code).isalnum()))


def alnum_text(text: str) -> str:
    ascii_dropped = text.translate(_ASCII_NOT_ALNUM)
    return ascii_dropped if ascii_dropped.isascii() else _NOT_ALNUM.sub("", ascii_dropped)


_ALNUM_RUN = regex.compile(r"[\p{L}\p{M}\p{N}]+")


def alnum_of(normal: Folded) -> Folded:
    """Letters, marks and digits of a folded text, mapped to the FOLDED text's offsets."""
    built = _Builder()
    for run in _ALNUM_RUN.finditer(normal.text):
        built.add(run.group(), run.start(), run.end(), linear=True)
    return built.build()


# Running headers and footers: among the first and last EDGE_LINES lines of a page, a line that
# stands (digits aside: "Page 3 of 12") at the edge of at least half the pages (two at least), or
# is a bare page number. Only joins of two pages leave them out; a page searched alone keeps them.
EDGE_LINES = 3
_PAGE_NUMBER = regex.compile(r"\W*(?:page|p\.?)?\s*#(?:\s*(?:of|/)\s*#)?\W*", regex.IGNORECASE)
_LINE = regex.compile(r"[^\n]+")


_DIGITS = regex.compile(r"\d+")


def _line_key(line: str) -> str:
    return " ".join(_DIGITS.sub("#", line).casefold().split())


def _edge_lines(text: str) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """A page's first and last EDGE_LINES non-blank lines (the last ones last first), with their keys:
    only these are keyed, not every line of the page."""
    lines = [m for m in _LINE.finditer(text) if not m.group().isspace()]
    top, bottom = lines[:EDGE_LINES], lines[-EDGE_LINES:][::-1]
    return (
        [(m.start(), m.end(), _line_key(m.group())) for m in top],
        [(m.start(), m.end(), _line_key(m.group())) for m in bottom],
    )


def running_lines(pages: Sequence[str]) -> list[tuple[int, int]]:
    """Per page, where its running header ends and its running footer starts (original offsets)."""
    edges = [_edge_lines(text) for text in pages]
    seen = Counter(key for top, bottom in edges for key in {key for *_, key in top + bottom})
    need = max(2, (len(pages) + 1) // 2)

    def running(key: str) -> bool:
        return seen[key] >= need or _PAGE_NUMBER.fullmatch(key) is not None

    bounds = []
    for text, (top, bottom) in zip(pages, edges):
        head = next((start for start, _, key in top if not running(key)), len(text))
        foot = next((end for _, end, key in bottom if not running(key)), 0)
        bounds.append((head, foot) if head < foot else (0, len(text)))  # all running: leave it whole
    return bounds
