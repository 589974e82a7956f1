"""Which words of a page a value it states belongs to: ``grounding.check`` finds a reply's figure on a
page and asks whether the page says it of the field the reply answers, so a value is read with its label,
as a reader of extracted PDF text sees it (``values_on_page``).

Extraction keeps the page's lines: a wrapped sentence runs over several ("within the Grace \nPeriod of
30 days"), a table row is one line ("Grace Period 30 days") or a label over its value ("Grace Period\n30
days"), a definition puts its term a line or two above its figures. A value's *label* is the text before
it back to the nearest of: the end of the sentence before it (``. ! ? ;``, a bullet or a table bar), the
value before it (a row's value ends the row: "Grace Period 30 days\nTenure 1/2/3 Years" gives "2 years"
the label "Tenure"), or the start of the line ``LABEL_LINES`` above its own. A value joined to the one
before it by a conjunction ("fifteen days where the mode is monthly and thirty days in all other cases")
is an alternative of that value and shares its label. The text after a value, to its sentence's end
and at most ``AFTER_LINES`` line below, is its label too when no other value follows in that sentence
("a 30 days \ngrace period"): when one does, that text is the next value's label ("free look period of
30 days and a grace period of 15 days"). Values joined with "or", "to", "/" ("1/2/3 years", "30 or 60
days") are one group with one label.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from ...values.reading import JOINER, Mention, is_reference, read_folded
from ...values.types import MONEY, NUMBER_UNIT, Value

if TYPE_CHECKING:
    from ...text.clauses import FieldTerms

LABEL_LINES = 2  # a label wraps over a line or two above its value; further up is another row's
AFTER_LINES = 1  # a value ending a line may have its noun on the next ("a 30 days\ngrace period")
_SENTENCE_END = regex.compile(r"[.!?;\u0964\u0965](?!\d)|[\u2022\u25aa\u25cf\u2023|]")
# A value after one of these words is an alternative of the value before it, with its label.
_COORDINATED = regex.compile(r"(?<!\w)(?:and|or|but|while|whereas|whilst)\W*$")


@dataclass(frozen=True)
class PageValue:
    """A value a page states, at [start, end) of its folded text (``folded_page``), and its label: the
    words it belongs to, [label_start, label_end) (see the module's note)."""

    value: Value
    start: int
    end: int
    label_start: int
    label_end: int
    label: str
    heading: str = ""  # the title of the item or section the value is under, when there is one near

    def evidence(self, folded: str) -> str:
        """The label as a problem shows it: the heading, then the words before the value, the value and
        the words after it (each cut near the value)."""
        before = " ".join(folded[self.label_start : self.start].split())
        after = " ".join(folded[self.start : self.label_end].split())
        before = before if len(before) <= EVIDENCE_BEFORE else "…" + before[-EVIDENCE_BEFORE:].lstrip()
        after = after if len(after) <= EVIDENCE_AFTER else after[:EVIDENCE_AFTER].rstrip() + "…"
        heading = _cut(self.heading, EVIDENCE_HEADING)
        joint = " " if folded[self.start - 1 : self.start].isspace() else ""
        return repr(" … ".join(part for part in (heading, f"{before}{joint}{after}".strip()) if part))


EVIDENCE_HEADING, EVIDENCE_BEFORE, EVIDENCE_AFTER = 40, 70, 40  # characters of a label a problem shows


def _cut(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1].rstrip() + "…"


@functools.lru_cache(maxsize=1024)
def folded_page(text: str) -> str:
    """A page's text folded line by line (``unicode.fold`` joins lines): its line breaks kept."""
    from ...text import unicode

    return "\n".join(unicode.fold(line) for line in text.split("\n"))


@functools.lru_cache(maxsize=1024)  # keyed by a page's text: each page is read once per run
def values_on_page(text: str) -> tuple[PageValue, ...]:
    """Every value a page states (page and clause numbers left out), each with its label; a bare number
    again as an amount, as ``text.text_values`` reads it."""
    folded = folded_page(text)
    # Read with the line breaks as spaces (the same length: offsets agree): "expiry of 24\nmonths" is
    # 24 months; the lines are kept for the labels.
    flat = folded.replace("\n", " ")
    mentions = [m for m in read_folded(flat) if not is_reference(flat, m.start)]
    groups = _groups(flat, mentions)
    lines = _LineIndex(folded)
    found: list[PageValue] = []
    label_starts: list[int] = []
    for index, (start, end, members) in enumerate(groups):
        label_start = _label_start(folded, lines, groups, label_starts, index)
        label_starts.append(label_start)
        after_end = _after_end(folded, lines, groups, index)
        heading = _heading(folded, lines, label_start)
        label = f"{heading} {folded[label_start:start]} {folded[end:after_end]}"
        for mention in members:
            for value in _as_read(mention):
                span = (mention.start, mention.end, label_start, max(end, after_end))
                found.append(PageValue(value, *span, label, heading))
    return tuple(found)


HEADING_LINES = 3  # how far above a value's sentence its item's heading may be
# A line that opens an item: "7.1.2.", "2.1.17.", "(ii)", "(a)", "a.", "ii.", "1)", "def. 17." (a number
# alone is no enumerator: "30 days" opens a table's cell, "5 BIPAP MACHINE" a row of a numbered table)
_ENUMERATOR = regex.compile(
    r"^\s*(?:def\.\s*)?(?:\d+(?:\.\d+)+\.?|\d+[.)]|\(?[ivxlc]{1,6}[.)]|\(?[a-z][.)]|\([ivxlc\d]{1,6}\))\s+"
)
_SECTION_NUMBER = regex.compile(r"^\s*\d+(?:\.\d+)+\.?\s")  # 7.1.2: a section's own number
_INNER_END = regex.compile(r"[.!?;](?=\s)")


def _heading(folded: str, lines: _LineIndex, label_start: int) -> str:
    """The title of the item or section a value's sentence is under, its enumerator left out; "" when
    there is none near. Going up from the sentence's line, at most HEADING_LINES lines: a heading line
    (``_is_heading``), or the first sentence of the list item the value's sentence is a later one of
    ("1. Any Pre-existing Condition. Except if ... for 4 consecutive years"). A policy's clauses put a
    benefit's name there and its figures in the items or sentences below."""
    first, in_item = lines.line_of(label_start), False
    for line in range(first, max(first - 1 - HEADING_LINES, -1), -1):
        start, text = lines.start(line), folded[lines.start(line) : lines.end(line)]
        following = (
            folded[lines.start(line + 1) : lines.end(line + 1)] if line + 1 < len(lines.starts) else ""
        )
        if line < first and _is_heading(text, following):
            return " ".join(_ENUMERATOR.sub("", text, count=1).split())
        opened = _ENUMERATOR.match(text)
        if opened is None or in_item:
            continue
        in_item = True  # the value's own item: only its first sentence, or a heading above, names it
        lead = _INNER_END.search(text, opened.end())
        if lead is not None and start + lead.end() <= label_start:
            return " ".join(text[opened.end() : lead.end()].split())
    return ""


def _is_heading(text: str, following: str) -> bool:
    """Whether a line is a heading: it opens an item and holds no sentence of its own, and ends in a
    colon, or is a numbered section ("5.1.15. Free Look Period"), or is followed by an item that is not
    its next sibling ("(ii) Specific Waiting Period" then "a. Expenses ...": its first sub-item; "k.
    Varicose veins" then "l. Parkinson's disease" are two items of one list); or a line ending in a
    colon ("Waiting Periods:")."""
    opened = _ENUMERATOR.match(text)
    title = text[opened.end() :] if opened else text
    if not title.strip() or _INNER_END.search(title.rstrip()):
        return False
    if title.rstrip().endswith(":"):
        return True
    if opened is None:
        return False
    if _SECTION_NUMBER.match(text):
        return True
    below = _ENUMERATOR.match(following)
    return below is not None and not _is_next(_token(opened.group()), _token(below.group()))


def _token(enumerator: str) -> str:
    """An enumerator's number or letters: "(ii) " -> "ii", "7.1.2. " -> "7.1.2", "def. 17. " -> "17"."""
    return enumerator.strip().removeprefix("def.").strip().strip("().").strip()


def _is_next(first: str, second: str) -> bool:
    """Whether `second` numbers the item after `first` in one list: 3, 4; 7.1.2, 7.1.3; k, l; ii, iii."""
    if first.replace(".", "").isdigit() and second.replace(".", "").isdigit():
        head, _, last = first.rpartition(".")
        other_head, _, other_last = second.rpartition(".")
        return head == other_head and int(other_last) == int(last) + 1
    if len(first) == len(second) == 1 and first.isalpha() and ord(second) == ord(first) + 1:
        return True
    one, two = _roman(first), _roman(second)
    return one is not None and two == one + 1


_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _roman(token: str) -> int | None:
    if not token or any(letter not in _ROMAN for letter in token):
        return None
    values = [_ROMAN[letter] for letter in token]
    return sum(-value if value < after else value for value, after in zip(values, [*values[1:], 0]))


def _as_read(mention: Mention) -> list[Value]:
    value = mention.value
    bare = value.type == NUMBER_UNIT and value.unit is None
    return [value, Value(MONEY, value.value)] if bare else [value]  # an amount of no currency


def _groups(folded: str, mentions: Sequence[Mention]) -> list[tuple[int, int, list[Mention]]]:
    """Mentions joined by "or", "to", "/", "," ("1/2/3 years", "30 or 60 days") as one group each."""
    groups: list[tuple[int, int, list[Mention]]] = []
    for mention in mentions:
        if groups and JOINER.fullmatch(folded[groups[-1][1] : mention.start]):
            start, _, members = groups[-1]
            groups[-1] = (start, mention.end, [*members, mention])
        else:
            groups.append((mention.start, mention.end, [mention]))
    return groups


class _LineIndex:
    """Where each line of a folded page starts."""

    def __init__(self, folded: str) -> None:
        self.starts: list[int] = [0] + [found.end() for found in regex.finditer("\n", folded)]
        self.length = len(folded)

    def line_of(self, position: int) -> int:
        return bisect.bisect_right(self.starts, position) - 1

    def start(self, line: int) -> int:
        return self.starts[max(line, 0)]

    def end(self, line: int) -> int:
        return self.starts[line + 1] - 1 if line + 1 < len(self.starts) else self.length


def _label_start(
    folded: str,
    lines: _LineIndex,
    groups: Sequence[tuple[int, int, list[Mention]]],
    starts: Sequence[int],
    index: int,
) -> int:
    start = groups[index][0]
    earliest = lines.start(lines.line_of(start) - LABEL_LINES)
    ends = [found.end() for found in _SENTENCE_END.finditer(folded, earliest, start)]
    sentence = ends[-1] if ends else earliest
    if index == 0:
        return sentence
    before_end = groups[index - 1][1]
    if before_end <= sentence:
        return sentence
    if _COORDINATED.search(folded, before_end, start):
        return max(starts[index - 1], sentence if ends else 0)
    return before_end


def _after_end(
    folded: str, lines: _LineIndex, groups: Sequence[tuple[int, int, list[Mention]]], index: int
) -> int:
    """Where the label after a group ends: its sentence's end, at most AFTER_LINES below; the group's own
    end when another value follows in that stretch (the words between are that one's)."""
    end = groups[index][1]
    latest = lines.end(min(lines.line_of(end) + AFTER_LINES, len(lines.starts) - 1))
    found = _SENTENCE_END.search(folded, end, latest)
    stop = found.start() if found else latest
    if index + 1 < len(groups):
        following = groups[index + 1][0]
        if following < stop:
            return end
        line = lines.line_of(following)
        if not folded[lines.start(line) : following].strip() and line - 1 > lines.line_of(end):
            # the next value begins its line: the line above it is its label ("Free Look Period\n15 days")
            stop = min(stop, lines.end(line - 2))
    return max(stop, end)


_TERM_WORD = regex.compile(r"\w+")


def names_field(terms: FieldTerms, text: str, *, every: bool = False) -> bool:
    """Whether `text` names the field: at least half of the words of its name (of its question, for a
    field without a name), and at least one; with `every`, all of them. A field is named by most of its
    words: "Specific disease waiting period" names half of pre_existing_disease_waiting_months,
    "waiting period" alone a quarter."""
    from ...text.clauses import key, meets

    wanted = terms.named or terms.asked
    keys = {key(word) for word in _TERM_WORD.findall(text)}
    present = sum(1 for term in wanted if any(meets(word, term) for word in keys))
    return present > 0 and (present == len(wanted) if every else 2 * present >= len(wanted))


__all__ = [
    "PageValue",
    "folded_page",
    "names_field",
    "values_on_page",
]
