"""Find a curated quote in the text extracted from its document, and say how it was found.

Curated "verbatim" quotes are rarely byte-exact in extracted PDF text: extractors emit curly quotes,
dashes, no-break and soft hyphens, control-character bullets and line breaks where the curator typed
none. `find_quote` runs a cascade of ever looser comparisons and records the first that succeeds:

    exact       the quote is a substring of the page text
    normalised  both sides folded: NFKC, dashes and quotes to ASCII, spaces collapsed, soft hyphens,
                control and private-use characters dropped, "hyphen + line break" joined, casefolded
    alnum       letters, marks and digits only
    pieces      a quote with "..." or "…" elisions: every piece found in order
    fuzzy       rapidfuzz partial_ratio >= FUZZY_THRESHOLD on the normalised text

Whatever the level, the match is mapped back through the folding to the ORIGINAL page text, so the
span and text of a `QuoteMatch` are the extracted characters, not the folded ones. Each level searches
every page alone, then each pair of adjacent pages joined (a quote crossing a page break).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import regex
from rapidfuzz import fuzz

LEVELS = ("exact", "normalised", "alnum", "pieces", "fuzzy")

# Chosen from a measurement on the shared insurance set (5 PDFs, 82 quotes whose PDF is present):
# - true but unfound: each real quote given a curator's slip (a typo per 50 characters, two typos, a
#   word dropped, two words swapped) that no cheaper level finds, scored against its own document:
#   271 cases, min 78.2, 10th percentile 88-98 by kind; 248 (92%) score >= 90, 259 (96%) >= 88.
# - wrong document: each quote scored against the 4 documents it does not come from, where no cheaper
#   level finds it: 300 cases, median 55, 90th percentile 76. All 16 that reach 90 are the same
#   IRDAI-standard clause reworded ("30-day waiting period (Code-Excl03) ...", "Domiciliary
#   Hospitalization means ..."); the highest score of unrelated text is 85.0 (a 20-character quote),
#   83.8 for quotes of 40 characters or more.
# 90 keeps nine in ten slips and stays 6 points above unrelated text: a quote left unfound is
# reported for a person to fix, a false match grounds a gold item in the wrong place silently.
FUZZY_THRESHOLD: float = 90.0
# Of those 16 reworded clauses, one differs in its number ("24 months" against "36 months", 97.8):
# a fuzzy match may differ in wording, never in numbers, so every digit run of the quote must be in
# the matched text (see _numbers_agree).
# Below 40 characters, shared phrases score high in the wrong document ("Health Checkup (Only"
# 85.0, "Maternity: Code - Excl18: i." 85.7) and one changed character costs 3-5 points, so the
# score carries no evidence: short quotes are not fuzzy-matched.
FUZZY_MIN_CHARS = 40
# partial_ratio's cost grows with the square of the quote's length (measured over the shared set's
# 130 pages: 100 characters 0.01 s, 300 0.1 s, 1,000 1.7 s, 3,000 23 s), so longer quotes are not
# fuzzy-searched: this bounds the work for a pathological quote (a real quote that long, unfound by
# the cheaper levels, is better split with "..." into pieces). The other levels are linear in page
# and quote size (str.find, one pass of folding per page).
FUZZY_MAX_CHARS = 500
# Pieces are searched one after another; bound their number so a quote of dots cannot loop long.
MAX_PIECES = 50


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found: the first level that found it, its page(s) and original span."""

    level: str
    page: int
    end_page: int
    span: tuple[int, int]
    text: str
    score: float | None = None


@dataclass(frozen=True)
class CleanQuote:
    """A quote ready to search for, and the trailing curator note stripped from it."""

    text: str
    note: str | None


# ---------------------------------------------------------------------------------------------
# Folding with an offset map


@dataclass(frozen=True)
class _Folded:
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

    def build(self) -> _Folded:
        return _Folded("".join(self.parts), self.starts, self.orig_starts, self.orig_ends, self.linear)


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


def _fold(text: str) -> _Folded:
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


def _alnum_text(text: str) -> str:
    ascii_dropped = text.translate(_ASCII_NOT_ALNUM)
    return ascii_dropped if ascii_dropped.isascii() else _NOT_ALNUM.sub("", ascii_dropped)


_ALNUM_RUN = regex.compile(r"[\p{L}\p{M}\p{N}]+")


def _alnum_of(normal: _Folded) -> _Folded:
    """Letters, marks and digits of a folded text, mapped to the FOLDED text's offsets."""
    built = _Builder()
    for run in _ALNUM_RUN.finditer(normal.text):
        built.add(run.group(), run.start(), run.end(), linear=True)
    return built.build()


# ---------------------------------------------------------------------------------------------
# Prepared pages


@dataclass(eq=False)
class _Page:
    """One page's texts per level; the alnum offset map is built only when a match needs it."""

    original: str
    normal: _Folded
    alnum_text: str
    _alnum: _Folded | None = field(default=None, repr=False)

    @property
    def alnum(self) -> _Folded:
        if self._alnum is None:
            self._alnum = _alnum_of(self.normal)
        return self._alnum


@lru_cache(maxsize=4096)
def _prepare_page(text: str) -> _Page:
    # Keyed by the page's text: a document's pages are folded once however many quotes cite it.
    normal = _fold(text)
    return _Page(text, normal, _alnum_text(normal.text))


@dataclass(frozen=True)
class _Hit:
    """A match in level coordinates: [start, end) in a page's (or joined pair's) level text."""

    page: int  # 0-based index of the first page
    joined: bool
    start: int
    end: int
    score: float | None = None


class PreparedPages:
    """A document's pages folded once for every level; `find_quote` accepts it in place of pages."""

    def __init__(self, pages: Sequence[str]) -> None:
        self.pages = tuple(_prepare_page(text) for text in pages)
        self._joined: dict[tuple[str, int], tuple[str, int]] = {}

    def __len__(self) -> int:
        return len(self.pages)

    def level_text(self, level: str, index: int) -> str:
        page = self.pages[index]
        if level == "exact":
            return page.original
        return page.alnum_text if level == "alnum" else page.normal.text

    def joiner(self, level: str, index: int) -> str:
        """What stands between page `index` and the next in a joined text, per level."""
        if level == "exact":
            return "\n"
        if level == "alnum":
            return ""
        before = self.pages[index].normal.text.rstrip(" ")
        return "" if _HYPHEN_END.search(before) else " "

    def joined(self, level: str, index: int) -> tuple[str, int]:
        """Pages index and index+1 joined at this level, and where the second page starts."""
        key = (level, index)
        if key not in self._joined:
            self._joined[key] = self._join(level, index)
        return self._joined[key]

    def _join(self, level: str, index: int) -> tuple[str, int]:
        first = self.level_text(level, index)
        second = self.level_text(level, index + 1)
        if level not in ("exact", "alnum"):
            first, second = first.rstrip(" "), second.lstrip(" ")
        joiner = self.joiner(level, index)
        return first + joiner + second, len(first) + len(joiner)

    def match(self, level: str, hit: _Hit, *, reported: str | None = None) -> QuoteMatch:
        """Map a hit in `level` coordinates back to the original pages; `reported` names the level."""
        first_page, first = self._page_offset(level, hit, hit.start)
        last_page, last = self._page_offset(level, hit, hit.end - 1)
        start = self._original(level, first_page, first, end=False)
        end = self._original(level, last_page, last, end=True)
        if first_page == last_page:
            text = self.pages[first_page].original[start:end]
        else:
            text = self.pages[first_page].original[start:] + "\n" + self.pages[last_page].original[:end]
        score = None if hit.score is None else round(hit.score, 1)
        return QuoteMatch(reported or level, first_page + 1, last_page + 1, (start, end), text, score)

    def _page_offset(self, level: str, hit: _Hit, offset: int) -> tuple[int, int]:
        """The page (0-based) and offset in that page's level text of a hit's character."""
        if not hit.joined:
            return hit.page, offset
        first = self.level_text(level, hit.page)
        first_len = len(first) if level in ("exact", "alnum") else len(first.rstrip(" "))
        second_start = first_len + len(self.joiner(level, hit.page))
        if offset < second_start:
            return hit.page, min(offset, first_len - 1)
        second = self.level_text(level, hit.page + 1)
        lead = 0 if level in ("exact", "alnum") else len(second) - len(second.lstrip(" "))
        return hit.page + 1, offset - second_start + lead

    def _original(self, level: str, page: int, offset: int, *, end: bool) -> int:
        """The original offset where level character `offset` starts, or just past it (`end`)."""
        if level == "exact":
            return offset + 1 if end else offset
        prepared = self.pages[page]
        if level == "alnum":
            offset = prepared.alnum.last(offset) - 1 if end else prepared.alnum.first(offset)
        return prepared.normal.last(offset) if end else prepared.normal.first(offset)


_HYPHEN_END = regex.compile(r"[\p{L}\p{M}\p{N}]-$")


# ---------------------------------------------------------------------------------------------
# The cascade


def find_quote(quote: str, pages: Sequence[str] | PreparedPages, *, fuzzy: bool = True) -> QuoteMatch | None:
    """The first level of LEVELS at which `quote` is found in `pages` (pages[0] is page 1), or None.

    Each level searches every page alone, then adjacent pages joined; the earliest page wins.
    `fuzzy=False` stops after the pieces level (the CLI's --strict).
    """
    prepared = pages if isinstance(pages, PreparedPages) else PreparedPages(pages)
    raw = quote.strip()
    normal = _fold(raw).text.strip(" ")
    alnum = _alnum_text(normal)
    for level, needle in (("exact", raw), ("normalised", normal), ("alnum", alnum)):
        hit = _substring(needle, level, prepared) if needle else None
        if hit is not None:
            return prepared.match(level, hit)
    found = _pieces(raw, prepared)
    if found is not None:
        return prepared.match(found[0], found[1], reported="pieces")
    if fuzzy and FUZZY_MIN_CHARS <= len(normal) <= FUZZY_MAX_CHARS:
        hit = _fuzzy(normal, prepared)
        if hit is not None:
            return prepared.match("normalised", hit, reported="fuzzy")
    return None


def _substring(needle: str, level: str, prepared: PreparedPages) -> _Hit | None:
    for index in range(len(prepared)):
        at = prepared.level_text(level, index).find(needle)
        if at >= 0:
            return _Hit(index, False, at, at + len(needle))
    for index in range(len(prepared) - 1):
        text, _ = prepared.joined(level, index)
        at = text.find(needle)
        if at >= 0:
            return _Hit(index, True, at, at + len(needle))
    return None


_ELISION = regex.compile(r"\.{3,}|\u2026|\[\s*(?:\.{3,}|\u2026)\s*\]")


def _pieces(raw: str, prepared: PreparedPages) -> tuple[str, _Hit] | None:
    """Every piece between elisions found in order on one page or two adjacent ones, tightest span."""
    pieces = [piece for piece in _ELISION.split(raw) if piece.strip()]
    if not 2 <= len(pieces) <= MAX_PIECES:
        return None
    normal = [_fold(piece).text.strip(" ") for piece in pieces]
    for level, needles in (
        ("normalised", normal),
        ("alnum", [_alnum_text(piece) for piece in normal]),
    ):
        needles = [needle for needle in needles if needle]
        hit = _pieces_in(needles, level, prepared) if len(needles) >= 2 else None
        if hit is not None:
            return level, hit
    return None


def _pieces_in(needles: list[str], level: str, prepared: PreparedPages) -> _Hit | None:
    for index in range(len(prepared)):
        span = _in_order(needles, prepared.level_text(level, index))
        if span is not None:
            return _Hit(index, False, *span)
    for index in range(len(prepared) - 1):
        span = _in_order(needles, prepared.joined(level, index)[0])
        if span is not None:
            return _Hit(index, True, *span)
    return None


def _in_order(needles: list[str], text: str) -> tuple[int, int] | None:
    at, starts = 0, []
    for needle in needles:
        found = text.find(needle, at)
        if found < 0:
            return None
        starts.append(found)
        at = found + len(needle)
    # The greedy chain ends as early as possible; walking back from its last piece, each earlier
    # piece's LAST occurrence before the next makes the span the tightest one ending there.
    start = starts[-1]
    for needle in reversed(needles[:-1]):
        start = text.rfind(needle, 0, start)
    return start, at


def _fuzzy(needle: str, prepared: PreparedPages) -> _Hit | None:
    best = _best_alignment(
        needle, [(index, False, prepared.level_text("normalised", index)) for index in range(len(prepared))]
    )
    if best is None:
        pairs = [(index, True, prepared.joined("normalised", index)[0]) for index in range(len(prepared) - 1)]
        best = _best_alignment(needle, pairs)
    return best


def _best_alignment(needle: str, texts: list[tuple[int, bool, str]]) -> _Hit | None:
    best: _Hit | None = None
    for index, joined, text in texts:
        # A page shorter than the quote would align wholly inside it and score 100: skip it (the
        # joined pairs still see it).
        if len(text) < len(needle):
            continue
        cutoff = FUZZY_THRESHOLD if best is None or best.score is None else best.score
        found = fuzz.partial_ratio_alignment(needle, text, score_cutoff=cutoff)
        if found is None or (best is not None and best.score is not None and found.score <= best.score):
            continue  # the earliest page keeps an equal score
        start, end = _widened(needle, text, *_trimmed(text, found.dest_start, found.dest_end))
        if _numbers_agree(needle, text[start:end]):
            best = _Hit(index, joined, start, end, found.score)
    return best


_DIGIT_RUN = regex.compile(r"\p{Nd}+")


def _numbers_agree(quote: str, window: str) -> bool:
    """Every digit run of the quote occurs in the window as many times ("24" is not in "240")."""
    missing = Counter(_DIGIT_RUN.findall(quote)) - Counter(_DIGIT_RUN.findall(window))
    return not missing


_WIDEN = 3


def _widened(needle: str, text: str, start: int, end: int) -> tuple[int, int]:
    """The window, widened by up to _WIDEN characters a side where that raises the plain ratio.

    partial_ratio's window has the quote's length, so a character the quote lacks pushes a
    character of the text out of it ("xcluded until ..." for "excluded until ...").
    """
    spans = [(start - left, end + right) for left in range(_WIDEN + 1) for right in range(_WIDEN + 1)]
    spans = [(a, b) for a, b in spans if a >= 0 and b <= len(text)]
    # max() keeps the first of equal ratios: the narrowest, since spans start at (start, end).
    return max(spans, key=lambda span: fuzz.ratio(needle, text[span[0] : span[1]]))


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


# ---------------------------------------------------------------------------------------------
# What is a quote: curator notes and sentinels

_PAGE_REF = r"(?:p|pp|pg|page|pages)\.?\s*\d+(?:\s*[-\u2013\u2014,&]\s*\d+)*"
# A trailing bracketed note that cites a page or a file: "(wordings p.13-14)", "(see p. 4)",
# "[p.12]", "(brochure.pdf)". A trailing parenthesis without one is kept: policy text itself ends
# with "(Unless specified otherwise in the Policy Schedule)".
_TRAILING_NOTE = regex.compile(
    rf"\s*(?P<note>\((?:[^()]*\b{_PAGE_REF}|[^()]*\.pdf\b)[^()]*\)|\[(?:[^\[\]]*\b{_PAGE_REF}|[^\[\]]*\.pdf\b)[^\[\]]*\]"
    rf"|[,;\u2013\u2014-]\s*(?:see\s+)?{_PAGE_REF})\s*$",
    regex.IGNORECASE,
)
_OPEN_CLOSE = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}


def clean_quote(raw: str) -> CleanQuote:
    """The quote to search for: trimmed, a trailing curator note stripped (and returned as `note`)."""
    text = raw.strip()
    found = _TRAILING_NOTE.search(text)
    note = None
    if found is not None and found.start() > 0:
        note = found.group("note").strip(" ,;\u2013\u2014-")
        text = text[: found.start()].rstrip()
    return CleanQuote(_unwrapped(text), note)


def _unwrapped(text: str) -> str:
    # One pair of quotation marks around the whole quote is the curator's, not the document's.
    close = _OPEN_CLOSE.get(text[:1])
    if close is not None and len(text) > 2 and text.endswith(close) and close not in text[1:-1]:
        return text[1:-1].strip()
    return text


_STATED = r"(?:stated|mentioned|specified|found|given|disclosed|defined|listed|provided|available|present)"
# "not stated in X.pdf", "no Sum Insured options stated; ...": a negation, a few words naming what
# is absent, then the verb. Conditional policy text ("Not covered unless specified in the Policy
# Schedule", "No claim shall be paid if ...") has a modal or a condition in between, so it is not one.
_NOT_STATED = regex.compile(
    rf"^(?:not|no|nothing|none)\b(?P<what>[^.;:()]{{0,80}}?)\s*\b{_STATED}\b(?P<rest>.*)$",
    regex.IGNORECASE | regex.DOTALL,
)
# "Information not available", "Age not specified in wording": a short text that ENDS in the phrase.
_ENDS_NOT_STATED = regex.compile(
    rf"(?P<what>(?:[\w/-]+\s+){{1,3}}?)(?:is\s+|are\s+)?not\s+(?:\w+\s+)?{_STATED}(?:\s+in\s+[^;,.]*)?\.?",
    regex.IGNORECASE,
)
_SHORT = 80
_ONLY_WHERE = regex.compile(r"\s*in\s+[^;,]*")  # "not stated in X.pdf": the phrase alone, no elaboration
_CONDITION = regex.compile(
    r"\b(?:unless|if|shall|will|would|may|must|can|be|is|are|was|were|otherwise|except|as|per|under|where|when)\b",
    regex.I,
)
# "see source_url", "refer to the brochure, p. 4": pointing elsewhere instead of quoting.
_SEE_ELSEWHERE = regex.compile(
    r"(?:see|refer\s+to|cf\.?)\s+(?:the\s+)?(?:source|url|brochure|wordings?|document|pdf|cis|p\.|pp\.|page)",
    regex.I,
)
_PLACEHOLDER = regex.compile(
    r"(?:n\.?\s*/?\s*a\.?|none|null|nil|unknown|tbd|todo|missing|not applicable|not available"
    r"|[-\u2013\u2014?.]+)",
    regex.I,
)
_BACKFILLED = regex.compile(
    r"\bback-?fill(?:ed)?\b|\bsee\s+source[_ ]?url\b|\bsource_url\b", regex.IGNORECASE
)
# Words a curator uses about the document or the index, and policy text does not.
_ABOUT_DOCUMENT = regex.compile(
    r"\b(?:indexed\s+chunks?|chunks?\s+(?:checked|indexed)|checked\s+all|does\s+not\s+appear|do\s+not\s+appear"
    r"|not\s+(?:found|present|stated|mentioned)\s+in\s+(?:the\s+)?(?:document|pdf|wordings?|brochure|cis)"
    r"|(?:taken|sourced|copied|obtained)\s+from\s+(?:the\s+)?(?:insurer'?s?\s+)?(?:website|web|url|internet|public)"
    r"|inferred\s+from|paraphrased?|curator|[\w.-]+\.pdf)\b",
    regex.IGNORECASE,
)


def sentinel_reason(raw: str | None) -> str | None:
    """None for a real quote; else why it is not one (empty, not stated, backfilled, a curator note)."""
    if raw is None or not raw.strip():
        return "empty quote"
    text = " ".join(raw.split())
    if _BACKFILLED.search(text):
        return "backfilled from another source (see source_url), not a quote of the document"
    if _TRAILING_NOTE.fullmatch(text) or _SEE_ELSEWHERE.match(text):
        return "curator note, not a quote"
    if _PLACEHOLDER.fullmatch(text):
        return f"placeholder {text!r}, not a quote"
    stated = _NOT_STATED.match(text)
    if stated is not None and not _CONDITION.search(stated.group("what")):
        rest = stated.group("rest")
        plain = not rest.strip(" .") or _ONLY_WHERE.fullmatch(rest)
        return "not stated in the document" if plain else "curator note: not stated in the document"
    ends = _ENDS_NOT_STATED.fullmatch(text) if len(text) <= _SHORT else None
    if ends is not None and not _CONDITION.search(ends.group("what")):
        return "not stated in the document"
    if _ABOUT_DOCUMENT.search(text):
        return "curator note about the document, not a quote of it"
    return None
