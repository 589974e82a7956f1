"""The ``unicode`` normalisation profile: script-aware folding, then word tokens.

Python's ``.lower()`` is a no-op for Indic scripts, NFC and NFD forms of one word compare unequal,
``re`` splits Indic words at their vowel signs, and ``string.punctuation`` misses the danda. This
profile folds what should not change a verdict, step by step, each step a small named function:

  1. NFC
  2. sequences spelled with a ZWJ mapped to their atomic letters (Malayalam chillu, Bengali
     khanda-ta), before step 3 drops the joiners that tell them apart
  3. zero-width space to a space; every other format character (Cf: ZWJ, ZWNJ, soft hyphen, BOM,
     word joiner) dropped
  4. a nukta typed after a vowel sign moved before it, and independent vowels typed as letter + sign
     mapped to the vowel; then NFKC (full-width forms, NBSP, ligatures)
  5. casefold, with İ folded to plain i
  6. every decimal digit (category Nd: १९४७, ১৯৭১) to its ASCII digit (no normal form does this)
  7. quotes and apostrophes unified, so that the grave and acute accents typed for an apostrophe
     count as the punctuation they stand for
  8. punctuation (\\p{P}, the danda included) to a space
  9. whitespace collapsed

Tokens are then runs of word characters as the ``regex`` module defines them (letters, marks,
digits), which keeps an Indic word whole. Each step is idempotent and the profile returns NFC.

At a million rows the twelve steps cost more than all else in ``assay score``, so where the C
accelerator is built most texts take a fast path: one pass over a table that says, for each character
of the Basic Multilingual Plane, what the whole profile makes of it. That is exact only for a
character the profile treats alone, with no neighbour able to change it (see ``_fold_tables``); a text
holding any other character takes the twelve steps. Tests hold both paths equal.
"""

from __future__ import annotations

import functools
import itertools
import operator
import os
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Callable

import regex

from .search import LONG, by_chunks

try:
    from .. import _speedups
except ImportError:  # not built (no C compiler at install): every text takes the twelve steps
    _speedups = None  # type: ignore[assignment]

VERSION = 2  # 2: numbers whole tokens; more legacy Indic sequences mapped
SIGNATURE = f"profile:unicode@{VERSION}"
FOLD_SIGNATURE = f"profile:unicode-fold@{VERSION}"  # fold(): the same folding, punctuation kept

_ZWJ, _ZWNJ, _VIRAMA_ML, _VIRAMA_BN = "\u200d", "\u200c", "\u0d4d", "\u09cd"

# Sequences no normal form unifies (The Unicode Standard, ch. 12). Those spelled with a ZWJ (Malayalam
# chillus, Bengali khanda-ta) are mapped before format characters go; the "do not use" spellings of
# independent vowels (Devanagari, Gurmukhi) after, so that no dropped character can hide one.
_JOINED = {
    "\u0d23" + _VIRAMA_ML + _ZWJ: "\u0d7a",  # chillu NN
    "\u0d28" + _VIRAMA_ML + _ZWJ: "\u0d7b",  # chillu N
    "\u0d30" + _VIRAMA_ML + _ZWJ: "\u0d7c",  # chillu RR
    "\u0d32" + _VIRAMA_ML + _ZWJ: "\u0d7d",  # chillu L
    "\u0d33" + _VIRAMA_ML + _ZWJ: "\u0d7e",  # chillu LL
    "\u0d15" + _VIRAMA_ML + _ZWJ: "\u0d7f",  # chillu K
    "\u0d2e" + _VIRAMA_ML + _ZWJ: "\u0d54",  # chillu M (Unicode 9)
    "\u0d2f" + _VIRAMA_ML + _ZWJ: "\u0d55",  # chillu Y
    "\u0d34" + _VIRAMA_ML + _ZWJ: "\u0d56",  # chillu LLL
    "\u09a4" + _VIRAMA_BN + _ZWJ: "\u09ce",  # khanda-ta
    "\u0930\u094d" + _ZWJ: "\u0931\u094d",  # Devanagari eyelash ra: RA + virama + ZWJ is RRA + virama
}
_VOWELS = {
    "\u0905\u093e": "\u0906",  # Devanagari आ
    "\u0905\u0949": "\u0911",  # ऑ
    "\u0905\u094a": "\u0912",  # ऒ
    "\u0905\u094b": "\u0913",  # ओ
    "\u0905\u094c": "\u0914",  # औ
    "\u090f\u0945": "\u090d",  # ऍ
    "\u090f\u0946": "\u090e",  # ऎ
    "\u090f\u0947": "\u0910",  # ऐ
    "\u0a05\u0a3e": "\u0a06",  # Gurmukhi ਆ
    "\u0a05\u0a48": "\u0a10",  # ਐ
    "\u0a05\u0a4c": "\u0a14",  # ਔ
    "\u0a72\u0a3f": "\u0a07",  # ਇ
    "\u0a72\u0a40": "\u0a08",  # ਈ
    "\u0a72\u0a47": "\u0a0f",  # ਏ
    "\u0a73\u0a41": "\u0a09",  # ਉ
    "\u0a73\u0a42": "\u0a0a",  # ਊ
    "\u0a73\u0a4b": "\u0a13",  # ਓ
    # The other scripts' tables of vowel letters not to spell as letter + sign (ch. 12, each script's
    # section), and Devanagari's for Kashmiri and the vocalic letters.
    "\u0905\u0946": "\u0904",  # Devanagari ऄ
    "\u0905\u0945": "\u0972",  # ॲ
    "\u0905\u093a": "\u0973",  # ॳ
    "\u0905\u093b": "\u0974",  # ॴ
    "\u0905\u094f": "\u0975",  # ॵ
    "\u0905\u0956": "\u0976",  # ॶ
    "\u0905\u0957": "\u0977",  # ॷ
    "\u0909\u0941": "\u090a",  # ऊ
    "\u090b\u0943": "\u0960",  # ॠ
    "\u090c\u0962": "\u0961",  # ॡ
    "\u0985\u09be": "\u0986",  # Bengali আ
    "\u098b\u09c3": "\u09e0",  # ৠ
    "\u098c\u09e2": "\u09e1",  # ৡ
    "\u0a85\u0abe": "\u0a86",  # Gujarati આ
    "\u0a85\u0ac5": "\u0a8d",  # ઍ
    "\u0a85\u0ac7": "\u0a8f",  # એ
    "\u0a85\u0ac8": "\u0a90",  # ઐ
    "\u0a85\u0ac9": "\u0a91",  # ઑ
    "\u0a85\u0acb": "\u0a93",  # ઓ
    "\u0a85\u0acc": "\u0a94",  # ઔ
    "\u0a8b\u0ac3": "\u0ae0",  # ૠ
    "\u0a8c\u0ae2": "\u0ae1",  # ૡ
    "\u0b05\u0b3e": "\u0b06",  # Oriya ଆ
    "\u0b0b\u0b43": "\u0b60",  # ୠ
    "\u0b0c\u0b62": "\u0b61",  # ୡ
    "\u0b0f\u0b57": "\u0b10",  # ଐ
    "\u0b13\u0b57": "\u0b14",  # ଔ
    "\u0b89\u0bd7": "\u0b8a",  # Tamil ஊ
    "\u0c12\u0c55": "\u0c13",  # Telugu ఓ
    "\u0c12\u0c4c": "\u0c14",  # ఔ
    "\u0c0b\u0c43": "\u0c60",  # ౠ
    "\u0c0c\u0c62": "\u0c61",  # ౡ
    "\u0c89\u0cbe": "\u0c8a",  # Kannada ಊ
    "\u0c92\u0ccc": "\u0c94",  # ಔ
    "\u0c8b\u0cbe": "\u0ce0",  # ೠ
    "\u0c8c\u0ce2": "\u0ce1",  # ೡ
    "\u0d07\u0d57": "\u0d08",  # Malayalam ഈ
    "\u0d09\u0d57": "\u0d0a",  # ഊ
    "\u0d0e\u0d46": "\u0d10",  # ഐ
    "\u0d12\u0d3e": "\u0d13",  # ഓ
    "\u0d12\u0d57": "\u0d14",  # ഔ
    "\u0d0b\u0d43": "\u0d60",  # ൠ
    "\u0d0c\u0d62": "\u0d61",  # ൡ
}
_JOINED_PATTERN = regex.compile("|".join(map(regex.escape, _JOINED)))
_VOWELS_PATTERN = regex.compile("|".join(map(regex.escape, _VOWELS)))

# A nukta typed after a dependent vowel sign (an IME or OCR slip): NFC cannot reorder it, since the
# vowel signs have combining class 0. Every major Indic block puts its nukta at +3C and its vowel
# signs at +3E..+4C.
_INDIC_BLOCKS = range(0x0900, 0x0D80, 0x80)
_NUKTA_AFTER_SIGN = regex.compile(
    "|".join(f"([{chr(b + 0x3E)}-{chr(b + 0x4C)}]+)({chr(b + 0x3C)}+)" for b in _INDIC_BLOCKS)
)

_NUKTAS = tuple(chr(block + 0x3C) for block in _INDIC_BLOCKS)
_QUOTE_PAIRS = tuple((quote, "'") for quote in "\u2018\u2019\u201b`\u00b4") + tuple(
    (quote, '"') for quote in "\u201c\u201d\u201e"
)
_QUOTES = str.maketrans(dict(_QUOTE_PAIRS))
_NOT_REGEX_SPACE = "\x1c\x1d\x1e\x1f"  # whitespace to str.split, not to regex's \s
# Numbers stay whole: a full stop or comma between two digits is part of the number, not punctuation
# (3.5, 1,24,000; digits are ASCII by then). Arabic's decimal and group separators become . and ,
# first. A number whose commas group it the Western way (1,240,000) or the Indian way (1,24,000) is
# written without them, so that 1,24,000 and 124000 are one token; other commas (3,5) and every
# decimal point stay, so that 3.5 is neither 3 nor 35.
_IN_NUMBER = "[.,]"
_PUNCTUATION = regex.compile(rf"(?:(?![.,])\p{{P}}|(?<![0-9]){_IN_NUMBER}|{_IN_NUMBER}(?![0-9]))+")
_ARABIC_SEPARATORS = regex.compile("(?<=[0-9])([\u066b\u066c])(?=[0-9])")
_NUMBER = regex.compile(r"(?<![0-9.,])[0-9]+(?:[.,][0-9]+)+")
_GROUPED = regex.compile(r"[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,2}(?:,[0-9]{2})*,[0-9]{3}")  # Western, Indian
WORD_PATTERN = r"(?:\w|(?<=[0-9])[.,](?=[0-9]))+"  # a word: a number with its points and commas too
_FORMAT = regex.compile(r"\p{Cf}+")
_OTHER_DIGIT = regex.compile(r"(?![0-9])\p{Nd}")  # a decimal digit of any script but ASCII
_SPACES = regex.compile(r"\s+")
_WORD = regex.compile(WORD_PATTERN)
# Scripts written without spaces between words: their tokens are single characters (as in MLQA for zh).
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_CHARACTER_OR_RUN = regex.compile(rf"[{_UNSPACED}]|[^{_UNSPACED}]+")
_HAS_UNSPACED = regex.compile(rf"[{_UNSPACED}]")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _joined_sequences(text: str) -> str:
    return str(_JOINED_PATTERN.sub(lambda m: _JOINED[m.group()], text))


def _letter_sequences(text: str) -> str:
    if text.isascii():
        return text
    if any(nukta in text for nukta in _NUKTAS):  # a scan per nukta is far cheaper than the pattern
        text = str(_NUKTA_AFTER_SIGN.sub(lambda m: "".join(reversed([g for g in m.groups() if g])), text))
    return str(_VOWELS_PATTERN.sub(lambda m: _VOWELS[m.group()], text))


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _format_characters(text: str) -> str:
    return str(_FORMAT.sub("", text.replace("\u200b", " ")))


def _casefold(text: str) -> str:
    return text.replace("İ", "i").casefold()


def _digits(text: str) -> str:
    if text.isascii():
        return text
    return str(_OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group(), m.group())), text))


def _quotes(text: str) -> str:
    # str.replace per quote: str.translate with a table is several times slower on non-ASCII text.
    for quote, plain in _QUOTE_PAIRS:
        if quote in text:
            text = text.replace(quote, plain)
    return text


def _numbers(text: str) -> str:
    """Numbers made whole tokens: Arabic separators to . and , and grouping commas dropped."""
    if "," not in text and "\u066b" not in text and "\u066c" not in text:
        return text  # nothing to rewrite: a decimal point alone stays as it is
    text = str(_ARABIC_SEPARATORS.sub(lambda m: "." if m.group() == "\u066b" else ",", text))
    return str(_NUMBER.sub(_ungrouped, text))


def _ungrouped(number: regex.Match[str]) -> str:
    whole, point, fraction = number.group().partition(".")
    if _GROUPED.fullmatch(whole):
        whole = whole.replace(",", "")
    return str(whole + point + fraction)


def _punctuation(text: str) -> str:
    return str(_PUNCTUATION.sub(" ", text))


def _whitespace(text: str) -> str:
    if not any(separator in text for separator in _NOT_REGEX_SPACE):
        return " ".join(text.split())  # the same, where str.split's whitespace is regex's, and faster
    return str(_SPACES.sub(" ", text)).strip()


STEPS: tuple[Callable[[str], str], ...] = (
    _nfc,
    _joined_sequences,
    _format_characters,
    _nfc,  # a dropped format character can leave combining marks out of canonical order
    _letter_sequences,
    _nfkc,
    _casefold,
    _nfkc,  # casefold can leave a compatibility form behind (NFKC_Casefold, approximately)
    _digits,
    _quotes,
    _numbers,
    _punctuation,
    _whitespace,
)


def normalise(text: str) -> str:
    """The profile's text: folded, punctuation-free, single-spaced, NFC."""
    return by_chunks(_normalise, text, collapsed=True)  # no step reads across whitespace


def _normalise(text: str) -> str:
    if _speedups is not None:
        folded = _speedups.unicode_fold(text, *_fold_tables())
        if folded is not None:
            return folded
    return normalise_in_steps(text)


def normalise_in_steps(text: str) -> str:
    """``normalise`` step by step: the definition, which the fast path must equal."""
    for step in STEPS:
        text = step(text)
    return _nfc(text)  # casefold and NFKC can leave a composable pair behind


def fold(text: str) -> str:
    """The profile's folding with punctuation kept (for patterns that name it: 50%, 10:30, 1,00,000),
    numbers as they are written."""
    return by_chunks(_fold, text, collapsed=True)


def _fold(text: str) -> str:
    for step in STEPS:
        if step is not _punctuation and step is not _numbers:
            text = step(text)
    return _nfc(text)


def words(normalised: str) -> list[str]:
    """The words of normalised text (`regex`'s \\w keeps vowel signs, viramas and nuktas in a word)."""
    if _speedups is not None:
        found = _speedups.unicode_tokens(normalised, _fold_tables()[1], False)
        if found is not None:
            return found
    return list(_WORD.findall(normalised))


def f1_tokens(normalised: str) -> list[str]:
    """Words, with each character of a script written without spaces (Chinese, Japanese, Thai, ...) a
    token of its own, as in SQuAD-style F1 for those languages."""
    if _speedups is not None:
        tokens = _speedups.unicode_tokens(normalised, _fold_tables()[1], True)
        if tokens is not None:
            return tokens
    return f1_tokens_by_regex(normalised)


def spaced_words(normalised: str) -> str:
    """The words of normalised text joined by spaces, with a space at each end: a run of whole words is
    then a substring (words hold no space)."""
    if len(normalised) > LONG:  # the C path's buffer takes 8 bytes a character: a chunk at a time
        return f" {by_chunks(lambda chunk: _spaced_words(chunk).strip(' '), normalised, collapsed=True)} "
    return _spaced_words(normalised)


def _spaced_words(normalised: str) -> str:
    if _speedups is not None:
        spaced = _speedups.unicode_spaced_words(normalised, _fold_tables()[1])
        if spaced is not None:
            return spaced
    return f" {' '.join(words_by_regex(normalised))} "


def token_overlap(golden: list[str], normalised: str) -> tuple[int, int]:
    """SQuAD's multiset overlap of `golden` tokens with the f1_tokens of normalised text, and how many
    those are (in C, without making them, where the accelerator is built)."""
    if _speedups is not None:
        counted = _speedups.unicode_token_overlap(golden, normalised, _fold_tables()[1])
        if counted is not None:
            return counted
    tokens = f1_tokens_by_regex(normalised)
    return sum(min(golden.count(token), tokens.count(token)) for token in set(golden)), len(tokens)


def f1_tokens_by_regex(normalised: str) -> list[str]:
    """``f1_tokens`` by the ``regex`` module: the definition, which the C path must equal."""
    found: list[str] = _WORD.findall(normalised)
    if not _HAS_UNSPACED.search(normalised):
        return found
    return [piece for word in found for piece in _CHARACTER_OR_RUN.findall(word)]


def words_by_regex(normalised: str) -> list[str]:
    """``words`` by the ``regex`` module: the definition, which the C path must equal."""
    return list(_WORD.findall(normalised))


# The fast path's table. Flags, per character of the Basic Multilingual Plane:
MARK = 1  # a combining mark (canonical combining class > 0): NFC may reorder it after another
HAS_MARK = 2  # a precomposed character whose decomposition holds a mark (é): the same
COMPOSES_FIRST = 4  # the first of a pair that NFC composes when adjacent (e + ́, ে + া)
COMPOSES_SECOND = 8  # the second of such a pair
WORD = 16  # a word character (regex's \w)
UNSPACED = 32  # of a script written without spaces between words
REWRITTEN_FIRST = 64  # the first of a pair _letter_sequences rewrites when adjacent (अ + ा, ि + ़)
REWRITTEN_SECOND = 128  # the second of such a pair
MEETS_BEFORE = MARK | COMPOSES_SECOND | REWRITTEN_SECOND  # what a character's first piece shows
MEETS_AFTER = COMPOSES_FIRST | REWRITTEN_FIRST  # what its last piece shows, with HAS_MARK
UNSAFE = 0xFFFF  # in the mapping: the profile cannot treat this character alone; the text takes the steps
SEPARATOR = 0x20  # in the mapping: punctuation or whitespace, one space between words, none at the ends
NUMBER_POINT = 0xFFFE  # in the mapping: a separator, but a full stop between two digits (3.5)
# A separator, but between two digits the steps decide (1,24,000); no real pair ends in a noncharacter.
NUMBER_SEPARATOR = 0xFFFFFFFE
_NUMBER_MARKS = frozenset(".,\u066b\u066c")


def _separator_kind(pieces: list[str]) -> int:
    """How the fast path treats a character whose pieces are all separators: a full stop keeps a
    number whole by itself, a comma or Arabic separator is for the steps to judge (_numbers)."""
    if pieces == ["."]:
        return NUMBER_POINT
    return NUMBER_SEPARATOR if _NUMBER_MARKS.intersection(pieces) else SEPARATOR


_BMP = 0x10000


# The tables, precomputed when assay is built (setup.py writes this file beside the module) for the
# interpreter and regex release of that build. Building them takes about half a second of CPU, more
# than all the rest of a small run: a checkout that was not built, or another interpreter or regex
# release, builds them once per process on first use instead (``_fold_tables``).
FOLD_TABLES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unicode_fold.bin")
_FOLD_TABLES_FORMAT = 1
_FOLD_TABLES_SIZE = _BMP * 4 + _BMP  # the mapping (uint32 a character), then the flags (a byte)


@functools.cache
def _fold_tables() -> tuple[bytes, bytes]:
    """(mapping, flags) for the C fast path, once per process: the stored ones when they were made by
    this very code from the same Unicode data (``FOLD_TABLES_FILE``), else built."""
    return _stored_fold_tables(FOLD_TABLES_FILE) or build_fold_tables()


def fold_tables_key() -> str:
    """What the tables are made from: this module's source (the steps and the builder), the Unicode
    data of ``unicodedata`` and of ``regex``, and the byte order of the mapping's integers."""
    with open(__file__, "rb") as source:
        checksum = zlib.crc32(source.read())
    return (
        f"assay fold tables {_FOLD_TABLES_FORMAT}; unicodedata {unicodedata.unidata_version}; "
        f"regex {regex.__version__}; {sys.byteorder}-endian; source crc32 {checksum:08x}"
    )


def fold_tables_file() -> bytes:
    """The contents of ``FOLD_TABLES_FILE`` (written at build time): a line with the key and the
    tables' checksum, then the tables."""
    mapping, flags = build_fold_tables()
    header = f"{fold_tables_key()}; tables crc32 {zlib.crc32(mapping + flags):08x}\n"
    return header.encode("ascii") + mapping + flags


def _stored_fold_tables(path: str) -> tuple[bytes, bytes] | None:
    """The tables in `path` when its key is this process's and its tables are whole (their checksum says
    so: CRC-32 guards against a file cut short or changed by accident, which is all a build's own file
    needs, and costs no hashing library); None when it is absent, unreadable, stale or damaged: the
    caller builds them."""
    try:
        with open(path, "rb") as stored:
            header, tables = stored.readline(), stored.read()
        key, _, checksum = header.decode("ascii").rstrip("\n").rpartition("; tables crc32 ")
        ours = fold_tables_key()  # reads this module's source: a .pyc-only install has none
    except (OSError, UnicodeDecodeError):
        return None
    if (
        len(tables) != _FOLD_TABLES_SIZE
        or key != ours
        or checksum != f"{zlib.crc32(tables):08x}"
    ):
        return None
    return tables[: _BMP * 4], tables[_BMP * 4 :]


def build_fold_tables() -> tuple[bytes, bytes]:
    """(mapping, flags) for the C fast path. The mapping says what the profile makes of each BMP
    character alone: one or two characters (a native uint32, the second in the high half: क़ becomes
    क + nukta, ß becomes ss), UNSAFE or SEPARATOR. The flags say when a neighbour would change that:
    two marks in a row (NFC could reorder them), the two halves of a pair, at either edge of every
    form the character takes on its way through the steps. Built from the same regex classes and
    unicodedata the steps use."""
    everything = "".join(map(chr, range(_BMP)))
    separator, format_character, digit, word, unspaced = (
        _class_bits(pattern, everything)
        for pattern in (r"[\p{P}\s]", r"\p{Cf}", r"\p{Nd}", r"\w", rf"[{_UNSPACED}]")
    )
    neighbourly = _neighbourly_flags(everything)
    flags = bytearray(_BMP)
    mapping = array("I", [UNSAFE]) * _BMP
    stays = _stays_alone(everything)
    for code, character in enumerate(everything):
        flags[code] = WORD * word[code] | UNSPACED * unspaced[code]
        if format_character[code] or unicodedata.category(character) in ("Cn", "Cs"):
            continue  # format characters are dropped, and joiners spell the _JOINED sequences
        forms = [character] if stays[code] else _forms_alone(character)
        edges = _EDGES_ALONE[neighbourly[code]] if stays[code] else _edge_flags(forms, neighbourly)
        if edges is None:
            continue
        flags[code] |= edges
        pieces = [_punctuated(piece, digit) for piece in forms[-1]]
        if all(separator[ord(piece)] for piece in pieces):  # … becomes ..., a separator still
            mapping[code] = _separator_kind(pieces)
        elif len(pieces) <= 2 and not any(separator[ord(piece)] for piece in pieces):
            mapping[code] = sum(ord(piece) << (16 * at) for at, piece in enumerate(pieces))
    return mapping.tobytes(), bytes(flags)


def fold_tables() -> tuple[bytes, bytes]:
    """The fast path's (mapping, flags) tables (see ``_fold_tables``), for others that need to know
    which characters the profile treats alone (text.align cuts long texts between them)."""
    return _fold_tables()


# A character that stays itself meets its neighbours with its own flags at both edges.
_EDGES_ALONE = [
    flag & (MEETS_BEFORE | MEETS_AFTER) | HAS_MARK * bool(flag & (MARK | HAS_MARK)) for flag in range(256)
]


def _stays_alone(everything: str) -> list[bool]:
    """For each character, whether it is its own NFD, NFKC and casefold, and so its own only form
    before the digit, quote and punctuation steps (whole-table maps: a loop would be slower)."""
    forms = (map(unicodedata.normalize, itertools.repeat(form), everything) for form in ("NFD", "NFKC"))
    stays = map(operator.eq, everything, map(str.casefold, everything))
    for form in forms:
        stays = map(operator.and_, stays, map(operator.eq, everything, form))
    return list(stays)


def _forms_alone(character: str) -> list[str]:
    """The forms a lone character that changes takes through the steps before punctuation and
    whitespace, each once, the last one last (the regex steps only for that one: they change only
    what is longer than one character)."""
    nfc = _nfc(character)
    forms = [character, unicodedata.normalize("NFD", character), nfc, _nfkc(nfc), _casefold(_nfkc(nfc))]
    forms += [_nfkc(forms[-1]), _nfc(_nfkc(forms[-1]))]
    for step in STEPS:
        if step is not _punctuation and step is not _whitespace:
            character = step(character)
    last = _nfc(character)
    return [*dict.fromkeys(form for form in forms if form != last), last]


def _edge_flags(forms: list[str], neighbourly: bytearray) -> int | None:
    """The flags by which a character's neighbours can change it: what stands before it meets the first
    piece of each of its forms, what follows it the last. None (not for the table) when a form is
    empty (its neighbours would meet) or leaves the table, or has several pieces of which the first is a
    mark (what stands before could compose with a mark inside)."""
    edges = 0
    for form in forms:
        if not form or any(ord(piece) >= _BMP for piece in form):
            return None
        first, last = neighbourly[ord(form[0])], neighbourly[ord(form[-1])]
        if len(form) > 1 and first & MARK:
            return None
        edges |= first & MEETS_BEFORE | last & MEETS_AFTER | HAS_MARK * bool(last & (MARK | HAS_MARK))
    return edges


def _punctuated(piece: str, digit: bytearray) -> str:
    """A character of a folded text as the digit and quote steps leave it, before punctuation goes."""
    if ord(piece) < _BMP and digit[ord(piece)]:
        piece = str(unicodedata.decimal(piece, piece))
    return piece.translate(_QUOTES)


def _neighbourly_flags(everything: str) -> bytearray:
    """The flags by which each BMP character can change its neighbours or be changed by them."""
    flags = bytearray(_BMP)
    for code, character in enumerate(everything):
        decomposed = unicodedata.normalize("NFD", character)
        flags[code] = MARK * (unicodedata.combining(character) > 0) | HAS_MARK * any(
            map(unicodedata.combining, decomposed)
        )
    for pairs, (first, second) in (
        (_composing_pairs(), (COMPOSES_FIRST, COMPOSES_SECOND)),
        (_rewritten_pairs(), (REWRITTEN_FIRST, REWRITTEN_SECOND)),
    ):
        for code in pairs[0]:
            flags[code] |= first
        for code in pairs[1]:
            flags[code] |= second
    return flags


def _composing_pairs() -> tuple[set[int], set[int]]:
    """The BMP characters that start and that end a pair NFC composes. Hangul syllables and jamo compose
    by rule, not by table: all count. A pair excluded from composition (क + ़) does not. Compositions
    above U+20000 are all singletons (CJK compatibility ideographs), hence the bound."""
    firsts = set(range(0x1100, 0x1113)) | set(range(0xAC00, 0xD7A4))  # Hangul L jamo, syllables
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V and T jamo
    for code, decomposition in enumerate(map(unicodedata.decomposition, map(chr, range(0x20000)))):
        pair = decomposition.split()
        if len(pair) == 2 and pair[0][0] != "<" and unicodedata.normalize("NFC", chr(code)) == chr(code):
            firsts.add(int(pair[0], 16))
            seconds.add(int(pair[1], 16))
    return {code for code in firsts if code < _BMP}, {code for code in seconds if code < _BMP}


def _rewritten_pairs() -> tuple[set[int], set[int]]:
    """The characters that start and that end a pair _letter_sequences rewrites: a _VOWELS sequence,
    a vowel sign before a nukta (_NUKTA_AFTER_SIGN)."""
    firsts = {ord(sequence[0]) for sequence in _VOWELS}
    seconds = {ord(sequence[1]) for sequence in _VOWELS}
    for block in _INDIC_BLOCKS:
        firsts.update(range(block + 0x3E, block + 0x4D))
        seconds.add(block + 0x3C)
    return firsts, seconds


def _class_bits(pattern: str, everything: str) -> bytearray:
    """1 for each BMP character the regex class matches, 0 else."""
    bits = bytearray(_BMP)
    for match in regex.finditer(pattern + "+", everything):
        bits[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
    return bits


def normalise_keeping_spaces(text: str) -> str:
    """``normalise`` without its last step (whitespace collapsed): what a trace aligns piece by piece."""
    for step in STEPS:
        if step is not _whitespace:
            text = step(text)
    return _nfc(text)


def fold_keeping_spaces(text: str) -> str:
    """``fold`` without collapsing whitespace (see ``normalise_keeping_spaces``)."""
    for step in STEPS:
        if step not in (_punctuation, _numbers, _whitespace):
            text = step(text)
    return _nfc(text)
