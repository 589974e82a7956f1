"""The normalisation of the official SQuAD v1.1 and MLQA evaluation scripts, to give their numbers.

SQuAD v1.1: lowercase, drop ``string.punctuation``, drop the articles a/an/the, split on whitespace.
MLQA: the same steps per language: punctuation is Unicode category P and ``string.punctuation``;
articles are the language's own (none for Hindi and Chinese); Chinese is segmented one character per
CJK ideograph (U+4E00..U+9FA5). Both scripts use Python's ``re`` and ``str.split``; so does this
module, on purpose: matching their numbers, quirks included, is the point.
"""

from __future__ import annotations

import functools
import re
import string
import sys
import unicodedata

_SQUAD_PUNCTUATION = frozenset(string.punctuation)

_SQUAD_ARTICLES = re.compile(r"\b(a|an|the)\b")

MLQA_LANGUAGES = ("en", "es", "hi", "vi", "de", "ar", "zh")
_MLQA_ARTICLES = {
    "en": re.compile(r"\b(a|an|the)\b"),
    "es": re.compile(r"\b(un|una|unos|unas|el|la|los|las)\b"),
    "vi": re.compile(r"\b(của|là|cái|chiếc|những)\b"),
    "de": re.compile(r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b"),
    "ar": re.compile("\\s\u0627\u0644^|\u0627\u0644"),  # the script's pattern: "al-" (ال)
}
_CJK = re.compile(r"[\u4e00-\u9fa5]")
_CJK_OR_RUN = re.compile(r"[\u4e00-\u9fa5]|[^\u4e00-\u9fa5]+")


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
    # As the MLQA script builds it: every code point below sys.maxunicode in category P, and ASCII's.
    return (
        frozenset(chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P"))
        | _SQUAD_PUNCTUATION
    )


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
