"""The normalisation of the official SQuAD v1.1 and MLQA evaluation scripts, to give their numbers.

SQuAD v1.1: lowercase, drop ``string.punctuation``, drop the articles a/an/the, split on whitespace.
MLQA: the same steps per language: punctuation is Unicode category P and ``string.punctuation``;
articles are the language's own (none for Hindi and Chinese); Chinese is segmented one character per
CJK ideograph (U+4E00..U+9FA5). Both scripts use Python's ``re`` and ``str.split``; so does this
module, on purpose: matching their numbers, quirks included, is the point.

Each family's rules are also data (``Rule``), which the C accelerator reads (``_speedups.squad_rows``):
it does the same steps in one pass per text and is held to these functions by the tests.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass

from .seed import punctuation_bitmap, punctuation_set

_SQUAD_PUNCTUATION = frozenset(string.punctuation)

MLQA_LANGUAGES = ("en", "es", "hi", "vi", "de", "ar", "zh")
# The words each script's article pattern drops, as whole words: r"\b(w1|w2|...)\b", in its order.
_ARTICLE_WORDS = {
    "en": ("a", "an", "the"),
    "es": ("un", "una", "unos", "unas", "el", "la", "los", "las"),
    "vi": ("của", "là", "cái", "chiếc", "những"),
    "de": ("ein", "eine", "einen", "einem", "eines", "einer", "der", "die", "das", "den", "dem", "des"),
}
# The MLQA script's Arabic pattern, the article al- (alef, lam) as "\s\u0627\u0644^|\u0627\u0644": its
# first branch never matches (^ cannot follow two characters), so every alef-lam becomes a space,
# wherever it is: the infix below.
_ARABIC_PATTERN = re.compile("\\s\u0627\u0644^|\u0627\u0644")
_ARABIC_INFIX = "\u0627\u0644"


def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"\b({'|'.join(words)})\b")


_SQUAD_ARTICLES = _words_pattern(_ARTICLE_WORDS["en"])
_MLQA_ARTICLES = {lang: _words_pattern(words) for lang, words in _ARTICLE_WORDS.items()}
_MLQA_ARTICLES["ar"] = _ARABIC_PATTERN
_CJK = re.compile(r"[\u4e00-\u9fa5]")
_CJK_OR_RUN = re.compile(r"[\u4e00-\u9fa5]|[^\u4e00-\u9fa5]+")


@dataclass(frozen=True)
class Rule:
    """One script's steps for one language, as the accelerator reads them: the characters dropped (a
    bitmap, bit ``ord(ch)``), the articles (whole runs of ``\\w``, as ``re`` sees a word, that become a
    space), an infix that becomes a space wherever it occurs ("" for none), and whether each CJK
    ideograph is a token of its own."""

    dropped: bytes
    articles: tuple[str, ...]
    infix: str
    segmented: bool

    def as_tuple(self) -> tuple[bytes, tuple[str, ...], str, bool]:
        return (self.dropped, self.articles, self.infix, self.segmented)


def _bitmap(characters: frozenset[str], size: int) -> bytes:
    bits = bytearray(size // 8)
    for char in characters:
        bits[ord(char) >> 3] |= 1 << (ord(char) & 7)
    return bytes(bits)


@functools.cache
def squad_rule() -> Rule:
    return Rule(_bitmap(_SQUAD_PUNCTUATION, 128), _ARTICLE_WORDS["en"], "", False)


@functools.cache
def mlqa_rules() -> dict[str, Rule]:
    """Each MLQA language's rule. Category P lies below U+20000 (punctuation_bitmap's span; a test checks
    every plane), so the bitmap covers the script's set, every code point below sys.maxunicode."""
    bits = bytearray(punctuation_bitmap())
    for char in _SQUAD_PUNCTUATION:  # string.punctuation has symbols too ($, +, ^)
        bits[ord(char) >> 3] |= 1 << (ord(char) & 7)
    dropped = bytes(bits)
    return {
        lang: Rule(
            dropped,
            _ARTICLE_WORDS.get(lang, ()),
            _ARABIC_INFIX if lang == "ar" else "",
            lang == "zh",
        )
        for lang in MLQA_LANGUAGES
    }


def squad_tokens(text: str) -> list[str]:
    text = _deleted(text.lower(), _SQUAD_PUNCTUATION)
    return _SQUAD_ARTICLES.sub(" ", text).split()


def _deleted(text: str, characters: frozenset[str]) -> str:
    """`text` without `characters`, as the scripts' `"".join(ch for ch in text if ch not in exclude)`:
    the few that occur are each replaced away (str.translate, or a character class, costs several
    times more on long non-ASCII text)."""
    for character in characters.intersection(text):
        text = text.replace(character, "")
    return text


@functools.cache
def _mlqa_delete() -> frozenset[str]:
    # The MLQA script's set: every code point below sys.maxunicode in category P, and ASCII's.
    return punctuation_set() | _SQUAD_PUNCTUATION


def mlqa_tokens(text: str, lang: str) -> list[str]:
    """MLQA's tokens of `text` in `lang` (one of MLQA_LANGUAGES; a KeyError otherwise)."""
    text = _deleted(text.lower(), _mlqa_delete())
    articles = _MLQA_ARTICLES.get(lang)
    if articles is not None:
        text = articles.sub(" ", text)
    elif lang not in MLQA_LANGUAGES:
        raise KeyError(lang)
    return _mixed_segmentation(text) if lang == "zh" else text.split()


def _mixed_segmentation(text: str) -> list[str]:
    """Each CJK ideograph a token; the text between them split on whitespace (as the script's loop
    over characters does, by runs rather than a character at a time)."""
    tokens: list[str] = []
    for piece in _CJK_OR_RUN.findall(text):
        if _CJK.match(piece):
            tokens.append(piece)
        else:
            tokens.extend(piece.split())
    return tokens
