"""Where the deterministic matchers are blind: cues that a response may say the opposite of what its
words contain, and responses that name more than one candidate (issue 9, item 8).

"The answer is not Delhi, but Ganga" holds the golden answer ``Delhi``, so exact_substring,
word_overlap and phrase_match all pass it; only a reader of the sentence sees that it denies it. The
judge's cascade sends every such row to the judge instead of deciding it from the matchers.

A **cue** is a negation, contrast or hedge word of English or of an Indian language (Hindi, Marathi,
Bengali, Assamese, Odia, Punjabi, Gujarati, Tamil, Telugu, Kannada, Malayalam, Urdu), matched as a
whole word among the response's words under the ``unicode`` profile (so ``note``, ``nothing`` and
``know`` are not ``no`` or ``not``, and a word typed in NFD or with a legacy spelling still matches).
English ``n't`` becomes the word ``t`` after a word ending in ``n`` once the profile turns the
apostrophe into a space (``don't`` -> ``don t``), and is matched so. The Dravidian languages fuse
negation into the verb (Tamil ``தெரியவில்லை``, "does not know"), so a few negative endings count
when a word ends with them.

A response **names several candidates** when it offers alternatives (a word for "or": or, either,
या, அல்லது, ...), or when it is a list of answers: split at list separators (``, ; / |``, line
breaks, a word for "and"), it has at least two pieces, every piece is answer-shaped (no longer than
twice the longest golden answer's words, or three words), and at least one piece holds no word of any
golden answer ("Delhi, Mumbai" for the golden ``Delhi``; not "Delhi, India" for the golden
``Delhi, India``).

Both rules err towards the judge: a false alarm costs one call, a miss is a wrong verdict. The lists
are small on purpose and versioned: change any list, bump ``VERSION`` (it is in the judge's
signature, so two runs with one signature decided the same rows without a judge).

Deliberately left out: Hindi ``पर`` ("but", and far more often the postposition "on"), English ``may``
(the month) and ``yet``, Malayalam ``ല്ല`` and Kannada ``ಲ್ಲ`` as endings (``നല്ല`` "good", ``ಎಲ್ಲ``
"all").
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

import regex

from . import unicode

VERSION = 1
SIGNATURE = f"cues:{VERSION}"

NEGATION, CONTRAST, HEDGE = "negation", "contrast", "hedge"

# language -> kind -> words, each as people type it; every one is normalised by the unicode profile
# before use. Sources: common grammars' lists of negators and conjunctions; kept to unambiguous words.
CUES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "en": {
        NEGATION: ("not", "no", "never", "none", "neither", "nor", "cannot", "without", "wrong",
                   "incorrect", "false", "dont", "doesnt", "didnt", "isnt", "wasnt", "arent", "werent",
                   "cant", "couldnt", "wouldnt", "shouldnt", "hasnt", "havent", "hadnt", "aint"),
        CONTRAST: ("but", "however", "instead", "rather", "although", "though", "whereas", "except",
                   "unlike", "nevertheless"),
        HEDGE: ("maybe", "perhaps", "possibly", "probably", "likely", "unlikely", "might", "unsure",
                "uncertain", "unclear"),
    },
    "hi": {
        NEGATION: ("नहीं", "नही", "न", "ना", "मत"),
        CONTRAST: ("लेकिन", "किंतु", "किन्तु", "परंतु", "परन्तु", "मगर", "बल्कि", "बजाय"),
        HEDGE: ("शायद", "संभवतः", "सम्भवतः"),
    },
    "mr": {
        NEGATION: ("नाही", "नाहीत", "नको", "नव्हे", "नव्हता", "नव्हती", "नव्हते"),
        CONTRAST: ("पण", "परंतु", "ऐवजी"),
        HEDGE: ("कदाचित",),
    },
    "bn": {
        NEGATION: ("না", "নয়", "নেই", "নি"),
        CONTRAST: ("কিন্তু", "তবে", "বরং", "পরিবর্তে"),
        HEDGE: ("হয়তো", "সম্ভবত"),
    },
    "as": {
        NEGATION: ("নহয়", "নাই"),
        CONTRAST: ("কিন্তু",),
        HEDGE: ("হয়তো",),
    },
    "or": {
        NEGATION: ("ନାହିଁ", "ନୁହେଁ", "ନା"),
        CONTRAST: ("କିନ୍ତୁ", "ବଦଳରେ"),
        HEDGE: ("ବୋଧହୁଏ",),
    },
    "pa": {
        NEGATION: ("ਨਹੀਂ", "ਨਾ", "ਨ", "ਮਤ"),
        CONTRAST: ("ਪਰ", "ਲੇਕਿਨ", "ਪਰੰਤੂ", "ਬਲਕਿ", "ਬਜਾਏ"),
        HEDGE: ("ਸ਼ਾਇਦ",),
    },
    "gu": {
        NEGATION: ("નથી", "નહીં", "ના", "ન"),
        CONTRAST: ("પણ", "પરંતુ", "બદલે"),
        HEDGE: ("કદાચ",),
    },
    "ta": {
        NEGATION: ("இல்லை", "அல்ல", "இல்லாத", "வேண்டாம்"),
        CONTRAST: ("ஆனால்", "ஆயினும்", "மாறாக", "பதிலாக"),
        HEDGE: ("ஒருவேளை",),
    },
    "te": {
        NEGATION: ("కాదు", "లేదు", "లేరు", "వద్దు"),
        CONTRAST: ("కానీ", "కాని", "బదులు", "బదులుగా"),
        HEDGE: ("బహుశా",),
    },
    "kn": {
        NEGATION: ("ಇಲ್ಲ", "ಅಲ್ಲ", "ಬೇಡ"),
        CONTRAST: ("ಆದರೆ", "ಬದಲು", "ಬದಲಾಗಿ"),
        HEDGE: ("ಬಹುಶಃ",),
    },
    "ml": {
        NEGATION: ("ഇല്ല", "അല്ല", "വേണ്ട"),
        CONTRAST: ("പക്ഷേ", "പക്ഷെ", "എന്നാൽ", "പകരം"),
        HEDGE: ("ഒരുപക്ഷേ", "ഒരുപക്ഷെ"),
    },
    "ur": {
        NEGATION: ("نہیں", "نہ", "مت"),
        CONTRAST: ("لیکن", "مگر", "بلکہ", "بجائے"),
        HEDGE: ("شاید",),
    },
}  # fmt: skip

# Negative endings of words in which the language fuses negation into the verb.
NEGATIVE_ENDINGS: Mapping[str, tuple[str, ...]] = {
    "ta": ("வில்லை",),  # தெரியவில்லை "does not know", வரவில்லை "did not come"
    "te": ("లేదు",),  # చేయలేదు "did not do"
    "kn": ("ಲಿಲ್ಲ", "ದಿಲ್ಲ"),  # ಬರಲಿಲ್ಲ "did not come", ಮಾಡುವುದಿಲ್ಲ "does not do"
    "ml": ("ില്ല",),  # വന്നില്ല "did not come"
}

# Words that offer alternatives ("X or Y"), and words that join a list ("X and Y").
ALTERNATIVES = ("or", "either", "या", "अथवा", "किंवा", "বা", "অথবা", "কিংবা", "କିମ୍ବା", "ਜਾਂ", "અથવા",
                "அல்லது", "లేదా", "ಅಥವಾ", "അല്ലെങ്കിൽ", "یا")  # fmt: skip
CONJUNCTIONS = ("and", "और", "तथा", "एवं", "आणि", "এবং", "ও", "ଏବଂ", "ਅਤੇ", "અને", "மற்றும்", "మరియు",
                "ಮತ್ತು", "اور")  # fmt: skip
_SEPARATORS = regex.compile(r"[,;/|\n\r\u060c\u3001]+")  # , ; / | line breaks ، 、 (not a full stop)
MIN_SHAPED_WORDS = 3  # an answer-shaped piece may always be this long


def _normalised_words(texts: Iterable[str]) -> frozenset[str]:
    found = set()
    for text in texts:
        found.update(unicode.words(unicode.normalise(text)))
    return frozenset(found)


@functools.cache
def cue_words() -> Mapping[str, tuple[str, str]]:
    """Every cue as the profile's word -> (language, kind)."""
    table: dict[str, tuple[str, str]] = {}
    for language, kinds in CUES.items():
        for kind, listed in kinds.items():
            for word in _normalised_words(listed):
                table.setdefault(word, (language, kind))
    return table


@functools.cache
def _endings() -> tuple[str, ...]:
    return tuple(unicode.normalise(end) for ends in NEGATIVE_ENDINGS.values() for end in ends)


@functools.cache
def _alternatives() -> frozenset[str]:
    return _normalised_words(ALTERNATIVES)


@functools.cache
def _conjunctions() -> frozenset[str]:
    return _normalised_words(CONJUNCTIONS)


def cue_in(response: str) -> str | None:
    """The first negation, contrast or hedge cue among the response's words, as the profile spells it
    (``n't`` as ``n't``), or None."""
    return cue_in_words(unicode.words(unicode.normalise(response)))


def cue_in_words(words: Sequence[str]) -> str | None:
    """``cue_in`` over words the unicode profile already made."""
    table, endings = cue_words(), _endings()
    if not _may_hold_a_cue(words, table, endings):
        return None
    for position, word in enumerate(words):
        if word in table:
            return word
        if word == "t" and position and words[position - 1].endswith("n"):
            return "n't"  # don't, isn't, can't, won't: the apostrophe became a space
        if word.endswith(endings) and word not in endings:
            return word
    return None


def _may_hold_a_cue(words: Sequence[str], table: Mapping[str, object], endings: tuple[str, ...]) -> bool:
    """False when no word can be a cue: none is a cue word or "t", none ends with a negative ending.
    Set and substring tests in C: most responses hold no cue, and a loop over their words in Python
    would cost more than all the rest of the search."""
    if not table.keys().isdisjoint(words) or "t" in words:
        return True
    spaced = " ".join(words) + " "  # a word ends with an ending when the ending stands before a space
    return any(ending + " " in spaced for ending in endings)


def names_several_candidates(response: str, answers: Sequence[str]) -> bool:
    """Whether the response offers alternatives or is a list of answers, one of them not golden (see
    the module's note)."""
    if not _alternatives().isdisjoint(unicode.words(unicode.normalise(response))):
        return True
    pieces = _pieces(response)
    if len(pieces) < 2:
        return False
    golden = [unicode.words(unicode.normalise(answer)) for answer in answers]
    longest = max((len(words) for words in golden), default=0)
    limit = max(MIN_SHAPED_WORDS, 2 * longest)
    if any(len(piece) > limit for piece in pieces):
        return False  # a sentence with clauses, not a list of answers
    golden_words = {word for words in golden for word in words}
    return any(golden_words.isdisjoint(piece) for piece in pieces)


def _pieces(response: str) -> list[list[str]]:
    """The response's words, split at list separators and at words for "and"; empty pieces dropped."""
    pieces: list[list[str]] = []
    conjunctions = _conjunctions()
    for part in _SEPARATORS.split(response):
        current: list[str] = []
        for word in unicode.words(unicode.normalise(part)):
            if word in conjunctions:
                pieces.append(current)
                current = []
            else:
                current.append(word)
        pieces.append(current)
    return [piece for piece in pieces if piece]
