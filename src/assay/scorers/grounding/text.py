"""What ``grounding.check`` reads of a reply's text: its figures and quoted spans, whether a text states a
figure, and where a quote is on a page (the quote cascade, ``grounding.quotes``). Which words of a page a
value belongs to is ``grounding.page_values``; the documents of a run, ``grounding.run_sources``.

A number is compared as a value read by ``values.reading`` from both sides, never as digits in
a text: "24 months" is not in "124 months" nor in "2024"; "5,00,000" states "₹5 lakh", and "24 months"
states "2 years" (the exact equivalences of ``values.types``). A number followed by its own words
in brackets, as policy wordings write it ("30 (thirty) days"), is read by the reader as the number
with its unit.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from ...values.reading import Mention, is_reference, read_folded
from ...values.types import COUNT, DATE, MONEY, NUMBER_UNIT, PERCENT, Value, render_answer, same_value

if TYPE_CHECKING:
    from .quotes import QuoteMatch

QUOTED_MIN_CHARS = 20  # a shorter quoted span is a term ("Sum Insured"), not a quotation
SHOWN_CHARS = 60  # a quote shown in a problem is cut to this many characters
_QUOTED = regex.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')
_ARTICLE = regex.compile(r"an?\s")
MARKER = regex.compile(r"\[[^\[\]]*\]")  # [Source: doc, p.3], [2], [doc:chunk]: citations, not values


def find_in_pages(quote: str, pages: Sequence[str], *, fuzzy: bool = True) -> QuoteMatch | None:
    """The quote cascade's match of `quote` in a document's pages (prepared once per document);
    `fuzzy=False` stops before the fuzzy level."""
    from .quotes import find_quote, prepared_pages

    return find_quote(quote, prepared_pages(tuple(pages)), fuzzy=fuzzy)


def quote_on_page(quote: str, pages: Sequence[str], page: int, *, fuzzy: bool = True) -> QuoteMatch | None:
    """The match of `quote` that holds 1-based `page`: on the page alone, else across a break with the
    page before or after it; `fuzzy=False` stops before the fuzzy level."""
    from .quotes import find_quote, prepared_pages

    found = find_quote(quote, prepared_pages((pages[page - 1],)), fuzzy=fuzzy)
    if found is not None:
        return _shifted(found, page - 1)
    first = max(page - 2, 0)
    found = find_quote(quote, prepared_pages(tuple(pages[first : page + 1])), fuzzy=fuzzy)
    if found is not None and found.page + first <= page <= found.end_page + first:
        return _shifted(found, first)
    return None


def _shifted(found: QuoteMatch, offset: int) -> QuoteMatch:
    return dataclasses.replace(found, page=found.page + offset, end_page=found.end_page + offset)


@dataclass(frozen=True)
class Stated:
    """A figure the reply states, as the reader read it: a number with a unit, or a bare count or amount
    (`bare`); [start, end) in the reply's folded text."""

    value: Value
    written: str
    start: int = 0
    end: int = 0
    bare: bool = False

    def shown(self) -> str:
        """The figure in words: a number with its unit as rendered ("30 days", "₹5 lakh"); a count as
        written, with what it counts ("9,500 network hospitals")."""
        return self.written if self.bare or self.value.unit == COUNT else render_answer(self.value)


def stated_numbers(text: str) -> list[Stated]:
    """Every number with a unit (a duration, a count of things, an amount, a percentage) the reply
    states, once per value; bracketed citation markers are not read, nor bare numbers or dates, nor an
    article before a unit ("once a year", "within an hour": the reader's 1 year, 1 hour)."""
    return [figure for figure in stated_figures(text) if not figure.bare]


# After a count, a word that may say what it counts ("9,500 network hospitals"), for a problem.
_COUNTED_WORD = regex.compile(r"[ \-]+([\p{L}][\p{L}\p{M}]*)")
# A bare number that numbers a list ("1. Claims", "2) Renewal"): after a line's or sentence's start.
_NUMBERING_BEFORE = regex.compile(r"(?:^|[.:;!?]\s|\n)\s*$")
_NUMBERING_AFTER = regex.compile(r"[.)](?!\d)")
_YEAR = regex.compile(r"(?:19|20)\d\d")
# A number written into another or into a code is no figure: "24/7", "10:30", "+91", "#4", a phone
# number's groups ("1800-266-0700", "1800 425 2255").
_IDENTIFIER_BEFORE = regex.compile(r"(?:[/:+#]|\d[\s-])$")
_IDENTIFIER_AFTER = regex.compile(r"[/:]|[\s-]\d")


def stated_figures(text: str) -> list[Stated]:
    """Every figure the reply states, once per value: the numbers with units of ``stated_numbers``, and
    the bare counts and amounts written in digits ("over 9,500 network hospitals", "within 10 working
    days", "up to 5 ultrasound scans"). Not figures: citation markers, page, section and clause numbers
    ("p. 4", "Section 3"), a year alone ("in 2024"; dates are read as dates and left out), a list's
    numbering ("1. ..."), a number written into another or a code ("24/7", "10:30", a phone number's
    "1800 425 2255"), and a bare number in words
    ("the two plans": discourse more often than a figure)."""
    from ...text import unicode

    folded = unicode.fold(MARKER.sub(" ", text))
    found: dict[Value, Stated] = {}
    for mention in read_folded(folded):
        written = folded[mention.start : mention.end]
        if _has_unit(mention):
            if not _ARTICLE.match(written):
                shown_as = _with_counted(folded, mention) if mention.value.unit == COUNT else written
                found.setdefault(mention.value, Stated(mention.value, shown_as, mention.start, mention.end))
        elif _is_bare_figure(folded, mention):
            shown_as = _with_counted(folded, mention)
            found.setdefault(
                mention.value, Stated(mention.value, shown_as, mention.start, mention.end, bare=True)
            )
    return list(found.values())


def _with_counted(folded: str, mention: Mention) -> str:
    """The figure as written, with the words after it that say what it counts, up to two and not a
    function word ("9,500 network hospitals", "12 scans", "9,500 hospitals")."""
    from ...text.clauses import FUNCTION_WORDS

    end = mention.end
    for _ in range(2):
        word = _COUNTED_WORD.match(folded, end)
        if word is None or word.group(1) in FUNCTION_WORDS:
            break
        end = word.end()
    return folded[mention.start : end].strip()


LOOK_BEHIND = 8  # characters before a number that say it numbers a list or sits in a code


def _is_bare_figure(folded: str, mention: Mention) -> bool:
    written = folded[mention.start : mention.end]
    if mention.value.type != NUMBER_UNIT or not written[:1].isdigit():
        return False  # a date, or a number in words
    if is_reference(folded, mention.start) or _YEAR.fullmatch(written):
        return False
    # What comes just before: both patterns end at the number, so a few characters decide (searching
    # from the text's start would read a megabyte reply once per figure)
    near = max(0, mention.start - LOOK_BEHIND)
    if _NUMBERING_BEFORE.search(folded, near, mention.start) and _NUMBERING_AFTER.match(folded, mention.end):
        return False
    return not _IDENTIFIER_BEFORE.search(folded, near, mention.start) and not _IDENTIFIER_AFTER.match(
        folded, mention.end
    )


def _has_unit(mention: Mention) -> bool:
    value = mention.value
    return value.type != DATE and (value.type != NUMBER_UNIT or value.unit is not None)


@functools.lru_cache(maxsize=1024)  # keyed by a page's text: each page is read once per run
def text_values(text: str) -> tuple[Value, ...]:
    """The values `text` states, and each bare number that is not a page or clause number again as an
    amount of no currency (which equals an amount of any): policy wordings write "5,00,000" for the sum
    insured."""
    from ...text import unicode

    folded = unicode.fold(text)
    values: list[Value] = []
    for mention in read_folded(folded):
        values.append(mention.value)
        bare = mention.value.type == NUMBER_UNIT and mention.value.unit is None
        if bare and not is_reference(folded, mention.start):
            values.append(Value(MONEY, mention.value.value))
    return tuple(values)


def states(text: str, number: Stated) -> bool:
    """Whether `text` states the figure as a value (number + unit, through the exact equivalences; a
    bare count or amount as the same number in any unit, ``same_figure``)."""
    return any(same_figure(number, value) for value in text_values(text))


def same_figure(number: Stated, value: Value) -> bool:
    """Whether `value` (read from a page) is the figure the reply states."""
    if not number.bare:
        return same_value(number.value, value)
    # A bare number of the reply is the page's number in whatever unit the page gives it: "aged 18 to 65"
    # is the page's "18 - 65 years", "9,500" its "9,500 hospitals" or "Rs 9,500".
    return value.type in (NUMBER_UNIT, MONEY, PERCENT) and value.value == number.value.value


def shown_span(text: str, start: int, end: int) -> str:
    """text[start:end] on one line, as a problem shows evidence."""
    return shown(text[start:end].strip())


def quoted_spans(text: str) -> list[str]:
    """The spans the reply quotes: in straight or curly double quotes, of QUOTED_MIN_CHARS or more."""
    spans = (next(group for group in match.groups() if group is not None) for match in _QUOTED.finditer(text))
    return [span.strip() for span in spans if len(span.strip()) >= QUOTED_MIN_CHARS]


def shown(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…")


__all__ = [
    "MARKER",
    "QUOTED_MIN_CHARS",
    "Stated",
    "find_in_pages",
    "quote_on_page",
    "quoted_spans",
    "same_figure",
    "shown",
    "shown_span",
    "stated_figures",
    "stated_numbers",
    "states",
    "text_values",
]
