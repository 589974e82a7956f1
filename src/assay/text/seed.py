"""Tokenisation of the seed's word-overlap protocol, with "punctuation" meaning Unicode category P.

The seed splits the lowercased text on whitespace and strips leading and trailing punctuation from
each word. ``string.punctuation`` is ASCII only and would leave the danda in ``दिल्ली।``; category P
(Pc, Pd, Ps, Pe, Pi, Pf, Po, as Python's ``unicodedata`` knows them) covers the danda, smart quotes,
dashes and the ellipsis. Symbols (category S: ``$``, ``+``, ``=``) are not punctuation and stay.
"""

from __future__ import annotations

import functools
import itertools
import os
import unicodedata
import zlib

from .search import CHUNK, by_chunks, chunks_at_spaces

# Category P has no character beyond the Supplementary Multilingual Plane (a test checks every plane).
_PUNCTUATION_PLANES_END = 0x20000


# Category P, precomputed when assay is built (setup.py writes this file beside the module): asking
# unicodedata about each of 131,072 characters takes some 0.03 s of CPU, a tenth of a one-row score. A
# checkout not built, another interpreter's Unicode data, or a damaged file: found on first use instead.
PUNCTUATION_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_punctuation.txt")


@functools.cache
def punctuation() -> str:
    """Every character of Unicode general category P, as one string for ``str.strip``."""
    return _stored_punctuation(PUNCTUATION_FILE) or find_punctuation()


def find_punctuation() -> str:
    """Category P, asked of ``unicodedata`` character by character."""
    return "".join(
        ch for ch in map(chr, range(_PUNCTUATION_PLANES_END)) if unicodedata.category(ch)[0] == "P"
    )


def punctuation_file() -> str:
    """The contents of ``PUNCTUATION_FILE`` (written at build time): a line naming the Unicode data the
    characters were read from and their checksum, then the characters."""
    found = find_punctuation()
    return _punctuation_header(found) + found


def _punctuation_header(found: str) -> str:
    return (
        f"assay seed punctuation 1; unicodedata {unicodedata.unidata_version}; "
        f"below {_PUNCTUATION_PLANES_END:#x}; crc32 {zlib.crc32(found.encode('utf-8')):08x}\n"
    )


def _stored_punctuation(path: str) -> str | None:
    """The characters in `path` when they were read from this process's Unicode data and are whole (the
    checksum says so); None when the file is absent, unreadable, stale or damaged."""
    try:
        with open(path, encoding="utf-8", newline="") as stored:
            header, found = stored.readline(), stored.read()
    except (OSError, ValueError):
        return None
    return found if found and header == _punctuation_header(found) else None


@functools.cache
def punctuation_bitmap() -> bytes:
    """Bit ``ord(ch)`` set for each punctuation character below 0x20000: the C accelerator's view."""
    bits = bytearray(_PUNCTUATION_PLANES_END // 8)
    for char in punctuation():
        bits[ord(char) >> 3] |= 1 << (ord(char) & 7)
    return bytes(bits)


@functools.cache
def punctuation_set() -> frozenset[str]:
    return frozenset(punctuation())


def is_punctuation(char: str) -> bool:
    return char in punctuation_set()


def strip_punctuation(word: str) -> str:
    return word.strip(punctuation())


def seed_words(lowered: str) -> frozenset[str]:
    """The seed's word set of already-lowercased text; words that are all punctuation vanish. Only the
    distinct words with punctuation at an end are stripped (stripping every word of a long text with
    the whole of category P is slow)."""
    if len(lowered) <= CHUNK:
        words = set(lowered.split())
    else:
        words = set()
        for chunk in chunks_at_spaces(lowered):  # no list of a long text's words
            words.update(chunk.split())
    marks = punctuation_set()
    edged = [word for word in words if word[0] in marks or word[-1] in marks]
    if edged:  # (str.split gives no empty word: only stripping makes one)
        words.difference_update(edged)
        words.update(map(str.strip, edged, itertools.repeat(punctuation())))
        words.discard("")
    return frozenset(words)


def lowercase(text: str) -> str:
    """``str.lower``, a chunk at a time for a long text (the seed protocols' view)."""
    return by_chunks(str.lower, text, collapsed=False)  # the final sigma stops at whitespace


def is_empty_golden(answer: str) -> bool:
    """True for a golden answer with no words: empty, whitespace or punctuation only (the seed's caveat 1)."""
    return not seed_words(answer)


def occurs_as_word(word: str, lowered: str) -> bool:
    """True when ``word`` is in ``seed_words(lowered)``, without tokenising all of ``lowered``.

    ``word`` must be a non-empty result of ``strip_punctuation``. A whitespace-delimited token strips to
    ``word`` exactly when the token is ``word`` with only punctuation around it, so it suffices to find
    each occurrence and look outward to the nearest whitespace. For a short golden word and a long
    response this is several times faster than splitting and stripping every response token.
    """
    start = lowered.find(word)
    while start != -1:
        end = start + len(word)
        if _only_punctuation_before(lowered, start) and _only_punctuation_after(lowered, end):
            return True
        start = lowered.find(word, start + 1)
    return False


def _only_punctuation_before(text: str, index: int) -> bool:
    while index > 0:
        char = text[index - 1]
        if char.isspace():
            return True
        if not is_punctuation(char):
            return False
        index -= 1
    return True


def _only_punctuation_after(text: str, index: int) -> bool:
    while index < len(text):
        char = text[index]
        if char.isspace():
            return True
        if not is_punctuation(char):
            return False
        index += 1
    return True
