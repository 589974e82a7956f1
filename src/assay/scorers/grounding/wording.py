"""What a quote says differently from the document text it was matched to: the words and numbers a
reader would see changed, not the slips the quote cascade's fuzzy level forgives.

The fuzzy level finds a quote with a typo, a dropped word or two words swapped; it also finds "7
working days" where the document says "7 business days", a different claim in the same shape. Both
texts are folded (``unicode.fold``) and split into words, aligned word by word (``difflib``), and each
changed stretch is kept when it changes something:

- a number: digits or number words, compared as values ("seven" is 7; "30" is not "60");
- a content word: any word but the articles, prepositions, pronouns and forms of "be" of
  ``FUNCTION_WORDS`` (the closed classes that do not change a claim); negations, modals ("may",
  "shall") and conjunctions ("and", "or") are content. A word of another language is content.

A changed word is a slip, not a difference, when it is a near spelling of the word it replaces
(``SLIP_SIMILARITY``: "exluded" for "excluded", "day" for "days"), never for numbers. A word that moved
(in the quote and the document, at other places) is no difference. Words the document has at the very
edges of the matched window are left out: the window's bounds are approximate.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

import regex
from rapidfuzz import fuzz

from ...text import unicode
from ...values.reading import read_folded

# Closed-class English words whose change does not change a claim (negations, modals and "and"/"or"
# are left out of it on purpose: they do).
FUNCTION_WORDS = frozenset((
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "into", "onto",
    "upon", "within", "is", "are", "be", "been", "being", "was", "were", "it", "its", "this", "that",
    "these", "those", "which", "who", "whom", "whose", "such", "their", "them", "they", "he", "she",
    "his", "her", "we", "our", "you", "your", "i", "my", "me", "us",
))  # fmt: skip
# A word this similar (rapidfuzz ratio, 0-100) to the one it replaces is a slip: a typo, a plural.
SLIP_SIMILARITY = 80.0
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+(?:[.,]\p{N}+)*")


def _words(text: str) -> list[str]:
    return [str(word) for word in _WORD.findall(unicode.fold(text))]


def _numbers(words: Sequence[str]) -> Counter[object]:
    """The numbers a stretch of words states (digits or number words), as values."""
    return Counter(mention.value.value for mention in read_folded(" ".join(words)))


def _content(words: Sequence[str]) -> list[str]:
    return [word for word in words if word not in FUNCTION_WORDS and not read_folded(word)]


def _slip(said: str, meant: str) -> bool:
    return fuzz.ratio(said, meant) >= SLIP_SIMILARITY


def _without_slips(quoted: list[str], written: list[str]) -> tuple[list[str], list[str]]:
    """The two stretches without the words that are slips of one another, paired in order."""
    left = list(written)
    kept = []
    for word in quoted:
        match = next((other for other in left if _slip(word, other)), None)
        if match is None:
            kept.append(word)
        else:
            left.remove(match)
    return kept, left


def _shown(words: Sequence[str]) -> str:
    return repr(" ".join(words))


def differences(quote: str, document: str) -> list[str]:
    """Each way `quote` differs from `document` (the text it was matched to) in words or numbers, in
    words: "the quote says 'working' where the document says 'business'"; empty when none does."""
    quoted, written = _words(quote), _words(document)
    stretches = []
    for tag, q1, q2, d1, d2 in difflib.SequenceMatcher(None, quoted, written, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "insert" and (d1 == 0 or d2 == len(written))):
            continue  # the same, or words at the window's approximate edges
        stretches.append((quoted[q1:q2], written[d1:d2]))
    moved = Counter(w for q, _ in stretches for w in q) & Counter(w for _, d in stretches for w in d)
    found = []
    for said, meant in stretches:
        numbers_differ = _numbers(said) != _numbers(meant)
        content = _without_slips(_unmoved(_content(said), moved), _unmoved(_content(meant), moved))
        if numbers_differ or any(content):
            found.append(_described(said, meant))
    return found


def _unmoved(words: list[str], moved: Counter[str]) -> list[str]:
    return [word for word in words if word not in moved]


def _described(said: Sequence[str], meant: Sequence[str]) -> str:
    if said and meant:
        return f"the quote says {_shown(said)} where the document says {_shown(meant)}"
    if said:
        return f"the quote has {_shown(said)}, which the document does not"
    return f"the quote leaves out {_shown(meant)}"


__all__ = ["FUNCTION_WORDS", "SLIP_SIMILARITY", "differences"]
