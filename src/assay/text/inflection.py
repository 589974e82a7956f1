"""Inflection tolerance: a key per word such that words differing only by an inflection share it.

It is soft credit, behind ``--inflection``, never the default: stemmers collide (Hindi कमल "lotus"
and कमला "Kamala" share a stem) and over-stem (Tamil சென்னை and சென்னையில் both become சென்).

- Latin-script words: a plural ending (``-s``, ``-es``) and then one trailing vowel are dropped, so
  ``temple``/``temples``, ``scroll painting``/``scroll paintings`` and the transliterations
  ``amalak``/``amalaka`` meet (the seed's examples). At least three letters are always kept, and a
  double ``ss`` is not a plural (``class``).
- Devanagari and Tamil words: the Snowball Hindi and Tamil stemmers (PyStemmer). Snowball has no
  stemmer for the other Indic scripts (Bengali, Gujarati, Malayalam, Telugu, ...): their words are
  compared as they are.

Words come from the ``unicode`` profile: already casefolded and NFC.
"""

from __future__ import annotations

import functools
from typing import Any

import regex
import Stemmer

VERSION = 1
SIGNATURE_ON = f"inflection:on@{VERSION}"
SIGNATURE_OFF = "inflection:off"

_LATIN_WORD = regex.compile(r"\p{Latin}+")
_SNOWBALL_BY_SCRIPT = (
    (regex.compile(r"\p{Devanagari}"), "hindi"),
    (regex.compile(r"\p{Tamil}"), "tamil"),
)
_MIN_STEM = 3
_VOWELS = "aeiouy"


def latin_stem(word: str) -> str:
    """The word without a plural ending, then without one trailing vowel, keeping three letters."""
    for ending in ("es", "s"):
        if word.endswith(ending) and not word.endswith("ss") and len(word) - len(ending) >= _MIN_STEM:
            word = word[: -len(ending)]
            break
    if word[-1:] in _VOWELS and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def soft_key(word: str) -> str:
    """What `word` is compared by under inflection tolerance (cached: response words repeat a lot)."""
    if _LATIN_WORD.fullmatch(word):
        return latin_stem(word)
    for script, language in _SNOWBALL_BY_SCRIPT:
        if script.search(word):
            return str(_stemmer(language).stemWord(word))
    return word


@functools.cache
def _stemmer(language: str) -> Any:  # PyStemmer has no type hints
    return Stemmer.Stemmer(language)


def rule_of(golden_word: str, response_word: str) -> str:
    """Which tolerance made two different words meet (for a verdict's trace)."""
    if _LATIN_WORD.fullmatch(golden_word):
        return f"latin plural/trailing vowel: '{golden_word}' ~ '{response_word}'"
    language = next((lang for script, lang in _SNOWBALL_BY_SCRIPT if script.search(golden_word)), "none")
    return f"snowball {language} stem '{soft_key(golden_word)}': '{golden_word}' ~ '{response_word}'"
