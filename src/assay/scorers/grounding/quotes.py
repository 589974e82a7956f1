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
every page alone, then each pair of adjacent pages joined (a quote crossing a page break): whole, and
then, when the break has them, without the running footer of the first and the running header of the
second (``running_lines``: "Page 3 of 12", the document's title), which a curator copying a sentence
across the break leaves out.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise

import regex
from rapidfuzz import fuzz

from .curation import CleanQuote, clean_quote, sentinel_reason
from .folding import Folded, alnum_of, alnum_text, fold, running_lines

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
# the matched text, and every number it writes in words must be a value the matched text states (see
# _numbers_agree).
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


# ---------------------------------------------------------------------------------------------
# Prepared pages


@dataclass(eq=False)
class _Page:
    """One page's texts per level; the alnum offset map is built only when a match needs it."""

    original: str
    normal: Folded
    alnum_text: str
    _alnum: Folded | None = field(default=None, repr=False)

    @property
    def alnum(self) -> Folded:
        if self._alnum is None:
            self._alnum = alnum_of(self.normal)
        return self._alnum


@lru_cache(maxsize=4096)
def _prepare_page(text: str) -> _Page:
    # Keyed by the page's text: a document's pages are folded once however many quotes cite it.
    normal = fold(text)
    return _Page(text, normal, alnum_text(normal.text))


@dataclass(frozen=True)
class _Hit:
    """A match in level coordinates: [start, end) in a page's (or joined pair's) level text."""

    page: int  # 0-based index of the first page
    joined: bool
    start: int
    end: int
    score: float | None = None
    bare: bool = False  # joined without the running header and footer at the break


class PreparedPages:
    """A document's pages folded once for every level; `find_quote` accepts it in place of pages."""

    def __init__(self, pages: Sequence[str]) -> None:
        self.pages = tuple(_prepare_page(text) for text in pages)
        self._joined: dict[tuple[str, int, bool], tuple[str, int]] = {}
        self._running: list[tuple[int, int]] | None = None
        self._cuts: dict[tuple[str, int], tuple[int, int]] = {}

    def body(self, level: str, index: int) -> tuple[int, int]:
        """Where page `index`'s body starts and ends in its level text: after its running header, before
        its running footer (``running_lines``). A bare join leaves them out: a quote crossing a page
        break reads on past "Page 3 of 12" and the document's title, which curators rarely copy (but
        some do: the whole join is tried first)."""
        key = (level, index)
        if key not in self._cuts:
            if self._running is None:
                self._running = running_lines([page.original for page in self.pages])
            head, foot = self._running[index]
            self._cuts[key] = (self._level_offset(level, index, head), self._level_offset(level, index, foot))
        return self._cuts[key]

    def _level_offset(self, level: str, index: int, original: int) -> int:
        """The first level character of page `index` at or past `original` (an original offset)."""
        if level == "exact":
            return original
        page = self.pages[index]
        normal = bisect_left(range(len(page.normal.text)), original, key=page.normal.first)
        if level == "normalised":
            return normal
        # alnum_text filters characters one by one, so the alnum text of the normalised text's first
        # `normal` characters is as long as the offset wanted: no alnum offset map needs building.
        return len(alnum_text(page.normal.text[:normal]))

    def __len__(self) -> int:
        return len(self.pages)

    @cached_property
    def widest(self) -> int:
        """The most letters and digits any page, or two adjacent pages, hold (at the alnum level)."""
        sizes = [len(page.alnum_text) for page in self.pages]
        return max([*sizes, *(a + b for a, b in pairwise(sizes))], default=0)

    def level_text(self, level: str, index: int) -> str:
        page = self.pages[index]
        if level == "exact":
            return page.original
        return page.alnum_text if level == "alnum" else page.normal.text

    def _first(self, level: str, index: int, bare: bool) -> str:
        """The first page of a join: up to its running footer when `bare`."""
        text = self.level_text(level, index)
        return text[: self.body(level, index)[1]] if bare else text

    def _head(self, level: str, index: int, bare: bool) -> int:
        """Where the second page of a join starts in its level text: past its running header when `bare`."""
        return self.body(level, index)[0] if bare else 0

    def joiner(self, level: str, index: int, bare: bool = False) -> str:
        """What stands between page `index` and the next in a joined text, per level."""
        if level == "exact":
            return "\n"
        if level == "alnum":
            return ""
        before = self._first("normalised", index, bare).rstrip(" ")
        return "" if _HYPHEN_END.search(before) else " "

    def joined(self, level: str, index: int, bare: bool = False) -> tuple[str, int]:
        """Pages index and index+1 joined at this level, and where the second page starts."""
        key = (level, index, bare)
        if key not in self._joined:
            self._joined[key] = self._join(level, index, bare)
        return self._joined[key]

    def joins(self, level: str) -> list[tuple[int, bool, str]]:
        """Every adjacent pair's joined text, (first page, bare, text): whole, then bare when the break
        has a running header or footer to leave out."""
        found = []
        for index in range(len(self) - 1):
            found.append((index, False, self.joined(level, index)[0]))
            exact = self.level_text("exact", index)
            if self.body("exact", index)[1] < len(exact) or self.body("exact", index + 1)[0] > 0:
                found.append((index, True, self.joined(level, index, bare=True)[0]))
        return found

    def _join(self, level: str, index: int, bare: bool) -> tuple[str, int]:
        first = self._first(level, index, bare)
        second = self.level_text(level, index + 1)[self._head(level, index + 1, bare) :]
        if level not in ("exact", "alnum"):
            first, second = first.rstrip(" "), second.lstrip(" ")
        joiner = self.joiner(level, index, bare)
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
        first = self._first(level, hit.page, hit.bare)
        first_len = len(first) if level in ("exact", "alnum") else len(first.rstrip(" "))
        second_start = first_len + len(self.joiner(level, hit.page, hit.bare))
        if offset < second_start:
            return hit.page, min(offset, first_len - 1)
        head = self._head(level, hit.page + 1, hit.bare)
        second = self.level_text(level, hit.page + 1)[head:]
        lead = 0 if level in ("exact", "alnum") else len(second) - len(second.lstrip(" "))
        return hit.page + 1, offset - second_start + lead + head

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


@lru_cache(maxsize=1024)
def prepared_pages(pages: tuple[str, ...]) -> PreparedPages:
    """A document's pages prepared once, however many quotes are searched in it: the joins of its
    pages and its running headers and footers are worked out once, not per quote (a claim that is
    found nowhere is searched in every document)."""
    return PreparedPages(pages)


def find_quote(quote: str, pages: Sequence[str] | PreparedPages, *, fuzzy: bool = True) -> QuoteMatch | None:
    """The first level of LEVELS at which `quote` is found in `pages` (pages[0] is page 1), or None.

    Each level searches every page alone, then adjacent pages joined; the earliest page wins.
    `fuzzy=False` stops after the pieces level (the CLI's --strict).
    """
    prepared = pages if isinstance(pages, PreparedPages) else prepared_pages(tuple(pages))
    raw = quote.strip()
    if ascii_alnum_count(raw) > max(prepared.widest, FUZZY_MAX_CHARS if fuzzy else 0):
        return None  # more letters than any page or two hold: no level can find it (nor need fold it)
    normal, alnum = folded_quote(raw)
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


@lru_cache(maxsize=32)
def folded_quote(raw: str) -> tuple[str, str]:
    """A quote's normalised and alnum texts, folded once however many documents it is searched in."""
    normal = fold(raw).text.strip(" ")
    return normal, alnum_text(normal)


_NOT_ASCII_ALNUM = bytes(code for code in range(128) if not chr(code).isalnum())


def ascii_alnum_count(text: str) -> int:
    """The ASCII letters and digits of `text`: a lower bound, counted in one fast pass, on the letters
    and digits of its folding at every level (folding never drops one, nor joins two into one), so a
    quote with more of them than a page holds cannot be found on it, and need not be folded."""
    return len(text.encode("ascii", "ignore").translate(None, _NOT_ASCII_ALNUM))


def _substring(needle: str, level: str, prepared: PreparedPages) -> _Hit | None:
    for index in range(len(prepared)):
        at = prepared.level_text(level, index).find(needle)
        if at >= 0:
            return _Hit(index, False, at, at + len(needle))
    for index, bare, text in prepared.joins(level):
        at = text.find(needle)
        if at >= 0:
            return _Hit(index, True, at, at + len(needle), bare=bare)
    return None


_ELISION = regex.compile(r"\.{3,}|\u2026|\[\s*(?:\.{3,}|\u2026)\s*\]")


def _pieces(raw: str, prepared: PreparedPages) -> tuple[str, _Hit] | None:
    """Every piece between elisions found in order on one page or two adjacent ones, tightest span."""
    pieces = [piece for piece in _ELISION.split(raw) if piece.strip()]
    if not 2 <= len(pieces) <= MAX_PIECES:
        return None
    normal = [fold(piece).text.strip(" ") for piece in pieces]
    for level, needles in (
        ("normalised", normal),
        ("alnum", [alnum_text(piece) for piece in normal]),
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
    for index, bare, text in prepared.joins(level):
        span = _in_order(needles, text)
        if span is not None:
            return _Hit(index, True, *span, bare=bare)
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
    pages = [
        (index, False, False, prepared.level_text("normalised", index)) for index in range(len(prepared))
    ]
    best = _best_alignment(needle, pages)
    if best is None:
        pairs = [(index, True, bare, text) for index, bare, text in prepared.joins("normalised")]
        best = _best_alignment(needle, pairs)
    return best


def _best_alignment(needle: str, texts: list[tuple[int, bool, bool, str]]) -> _Hit | None:
    best: _Hit | None = None
    for index, joined, bare, text in texts:
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
            best = _Hit(index, joined, start, end, found.score, bare)
    return best


_DIGIT_RUN = regex.compile(r"\p{Nd}+")
_ARTICLE = regex.compile(r"an?\s", regex.IGNORECASE)


def _numbers_agree(quote: str, window: str) -> bool:
    """Every digit run of the quote occurs in the window as many times ("24" is not in "240"), and every
    value the quote states in words is one the window states: "sixty days" scores 96 against "thirty
    days" in a sentence of 70 characters, and a quote with another number is not the page's."""
    missing = Counter(_DIGIT_RUN.findall(quote)) - Counter(_DIGIT_RUN.findall(window))
    return not missing and _worded_values_agree(quote, window)


def _worded_values_agree(quote: str, window: str) -> bool:
    """Every number the quote writes in words (as the value reader reads it) is a number the window
    states, in any unit (a slip in the unit's word is wording; the number is not)."""
    from ...text import unicode
    from ...values.reading import read_folded

    quote = unicode.fold(quote)
    worded = {
        m.value.value
        for m in read_folded(quote)
        # "a year" is the reader's 1 year, but an article, not a number: a swapped word ("once in Policy
        # a Year") must not make it one
        if not _DIGIT_RUN.search(quote, m.start, m.end) and not _ARTICLE.match(quote, m.start)
    }
    return not worded or worded <= {m.value.value for m in read_folded(unicode.fold(window))}


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


__all__ = [
    "FUZZY_THRESHOLD",
    "LEVELS",
    "CleanQuote",
    "PreparedPages",
    "QuoteMatch",
    "ascii_alnum_count",
    "clean_quote",
    "find_quote",
    "folded_quote",
    "sentinel_reason",
]
