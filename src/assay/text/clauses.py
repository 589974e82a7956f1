"""Where a text says what: its clauses (a sentence, a clause of one, a list item, a table row), the terms
that name an asked field, and how near a place in the text those terms are.

A careful reader answers "what is the grace period?" from the clause that speaks of the grace period,
not from the first number of the right unit: "The free-look period is 30 days; the grace period is 15
days" states 15 days for the grace period. The terms of a field are the words of its name
(``post_hospitalization_days``: post, hospitalization) and the content words of its question, less
function words, words of units (the value says its unit itself) and the words of the document's title
(every clause of a reply may name the product). Words are compared by their first letters
(``KEY_LETTERS``), so that "hospitalisation", "hospitalization" and "hospital" meet, and "refundable"
and "refunded" do: a crude stem that needs no lexicon of any language (in scripts without letter case
or with vowel signs the whole word is its key).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from . import unicode

KEY_LETTERS = 5  # a word's key: its first five letters (a crude stem, see the module's note)
MIN_PREFIX = 4  # a key shorter than this meets only an equal key ("age" is not "agent")
# A clause ends at a sentence's end (not a full stop between digits: "3.5"), a line break, a bullet, a
# table cell's bar, and a comma or semicolon that opens a new clause with a conjunction.
_CLAUSE_END = regex.compile(
    r"[.!?;\u0964\u0965](?!\d)|\n|[\u2022\u25aa\u25cf\u2023|]|,\s*(?=(?:and|but|while|whereas|whilst|although|however)\b)"
)
_WORD = regex.compile(r"\w+")
# Function words, question words and words every question about a document shares. They are the
# closed classes of English (articles, pronouns, auxiliaries, prepositions, conjunctions), not a list
# of any domain's words; other languages' questions keep their words (less precise, never wrong).
FUNCTION_WORDS = frozenset(
    """
a an the this that these those it its they them their there here i you your we our us me my he she his her
is are was were be been being am do does did done doing have has had having can could shall should will
would may might must ought
of in on at to for from by with within without under over into onto upon about as per via than
and or nor but if then so also too not no any some each every all both either neither such other
what which who whom whose when where why how many much long often far old
please
""".split()  # noqa: SIM905 (a paragraph of words reads better than 90 quoted ones)
)
PREPOSITIONS = frozenset(("in", "under", "by", "at", "for", "of", "on", "with", "within", "during", "from",
                          "to", "per", "via", "through", "across"))  # fmt: skip
# Words of units and measures: the value carries its own unit, so they locate nothing.
UNIT_WORDS = frozenset(
    """
day days month months year years week weeks hour hours minute minutes
percent percentage pct per cent amount amounts count counts number numbers value values rate
rs inr rupee rupees usd dollar dollars eur euro euros gbp pound pounds lakh lakhs crore crores
period periods time limit
""".split()  # noqa: SIM905
)


def key(word: str) -> str:
    """A word's key: casefolded, its first KEY_LETTERS characters."""
    return unicode.normalise(word)[:KEY_LETTERS]


def meets(one: str, other: str) -> bool:
    """Whether two keys name one word: equal, or one begins the other and both have MIN_PREFIX letters."""
    if one == other:
        return True
    if min(len(one), len(other)) < MIN_PREFIX:
        return False
    return one.startswith(other) or other.startswith(one)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each clause of `text` that holds a word, in order."""
    spans, start = [], 0
    for found in _CLAUSE_END.finditer(text):
        spans.append((start, found.start()))
        start = found.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if _WORD.search(text, s, e)]


def clause_of(text: str, position: int) -> tuple[int, int]:
    """The clause of `text` that holds `position` (the whole text when none does)."""
    starts, spans = _spans_cached(text)
    at = bisect.bisect_right(starts, position) - 1
    if at >= 0 and spans[at][0] <= position <= spans[at][1]:
        return spans[at]
    return 0, len(text)


@functools.lru_cache(maxsize=64)  # keyed by the text: a reply's clauses are found once
def _spans_cached(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    spans = clause_spans(text)
    return [start for start, _ in spans], spans


@dataclass(frozen=True)
class FieldTerms:
    """The keys that name an asked field: `named` from the field's name, `asked` from its question, and
    `core` the question's own subject and predicate (its words before the first preposition that
    follows one: "Is single sign-on included | in the Enterprise plan?")."""

    named: frozenset[str] = frozenset()
    asked: frozenset[str] = frozenset()
    core: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.named or self.asked)

    def weight(self, word_key: str) -> int:
        """2 for a word of the field's name, 1 for one of the question only, 0 for neither."""
        if any(meets(word_key, term) for term in self.named):
            return 2
        return 1 if any(meets(word_key, term) for term in self.asked) else 0

    def found(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, int]]:
        """Each word of text[start:end] that names the field, as (start, end, weight)."""
        stop = len(text) if end is None else end
        found, weights = [], {}  # a long text repeats its words: each key is weighed once
        for word in _WORD.finditer(text, start, stop):
            word_key = key(word.group())
            if word_key not in weights:
                weights[word_key] = self.weight(word_key)
            if weights[word_key]:
                found.append((word.start(), word.end(), weights[word_key]))
        return found

    def names_what_is_asked(self, text: str, start: int = 0, end: int | None = None) -> bool:
        """Whether text[start:end] holds a word of the field's name or of the question's core: a
        clause that holds only the question's context ("the Enterprise plan has ...") does not."""
        asked = self.named | self.core
        stop = len(text) if end is None else end
        words = (key(word.group()) for word in _WORD.finditer(text, start, stop))
        return any(any(meets(word, term) for term in asked) for word in words)

    def score(self, text: str) -> int:
        """How strongly `text` names the field: the weights of the distinct terms it holds."""
        keys = {key(word) for word in _WORD.findall(text)}
        named = {term for term in self.named if any(meets(k, term) for k in keys)}
        asked = {term for term in self.asked - self.named if any(meets(k, term) for k in keys)}
        return 2 * len(named) + len(asked)


def _content_keys(words: Iterable[str], leave_out: frozenset[str]) -> frozenset[str]:
    keys = set()
    for word in words:
        folded = unicode.normalise(word)
        if folded in FUNCTION_WORDS or folded in UNIT_WORDS or folded.isdigit() or len(folded) < 2:
            continue
        word_key = key(folded)
        if not any(meets(word_key, out) for out in leave_out):
            keys.add(word_key)
    return frozenset(keys)


def field_terms(field: str | None, question: str | None, title: str | None = None) -> FieldTerms:
    """The terms of a field (see the module's note): its name's words, and its question's content
    words, less the title's words."""
    title_keys = frozenset(key(w) for w in _WORD.findall(unicode.normalise(title or "")))
    named = _content_keys(_WORD.findall((field or "").replace("_", " ")), title_keys)
    words = _WORD.findall(question or "")
    return FieldTerms(named, _content_keys(words, title_keys), _content_keys(_core(words), title_keys))


def _core(words: Sequence[str]) -> list[str]:
    """A question's words up to the first preposition after a content word: its subject and predicate."""
    seen_content = False
    for at, word in enumerate(words):
        folded = unicode.normalise(word)
        if seen_content and folded in PREPOSITIONS:
            return list(words[:at])
        seen_content = seen_content or folded not in FUNCTION_WORDS
    return list(words)


__all__ = [
    "FUNCTION_WORDS",
    "FieldTerms",
    "clause_of",
    "clause_spans",
    "field_terms",
    "key",
    "meets",
]
