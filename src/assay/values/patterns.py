"""Self-contained ``expected_regex`` patterns built from typed values (``variants`` holds what each must
match, and the near misses it must not).

A pattern is written to be compiled alone, as a team's own runner compiles it: ``regex.compile(pattern,
PATTERN_FLAGS)`` (the ``regex`` module, case-insensitive; docs/gold.md documents it) and searched in a
reply's raw text. It carries its own boundaries, so it never matches

- inside a longer word or number: ``24`` is not in ``2024``, ``124``, ``1,24``, ``2.24`` or ``24.5``,
  ``covered`` is not in ``uncovered`` (``WHOLE_START``, ``WHOLE_END``);
- as the tail of a hyphenated word or a range: ``twenty-four days`` for 4 days, ``20-30 days`` for 30,
  ``non-indemnity`` for ``indemnity``;
- negated (``not 24 months``, ``isn't covered``, ``no cover``, Hindi ``30 दिन नहीं``), approximate or
  strictly bounded (``about 30 days``, ``more than 30 days``: ``reading.APPROXIMATIONS`` and
  ``STRICT_BOUNDS``; an inclusive bound states the value: ``not more than 30 days``, ``up to 30 days``);
- in another unit or currency: a count is not followed by a unit (``586 days`` is not the count 586)
  nor is it a page or clause number (``p. 30``); an amount does not follow another currency (``$1,499``
  is not ₹1,499) nor precede one.

It matches the value as replies write it, and only the forms the value needs: digits plain or grouped
(``500000``, ``500,000``, ``5,00,000``), English number words (``one hundred and eighty``,
``twenty-four``), a number with its echo (``30 (thirty) days``, ``thirty (30) days``), ``a``/``an``
for one unit, a unit in every spelling of ``types.UNIT_ALIASES`` run together or hyphenated (``30days``,
``thirty-day``), a qualifier before it (``4 consecutive years``; ``7 business days`` is 7 days unless
the gold unit is itself qualified, ``business day``: then the qualifier is required), the exact
equivalences of ``types`` (24 months = 2 years), an amount with its own currency only (``₹``, ``Rs.``,
``INR``, ``rupees`` for INR; ``$``, ``USD``, ``dollars`` for USD; €, £ likewise) and in lakh, crore,
million or thousand.

Assay's ``hard_fact`` folds the reply before searching (case, NFKC, whitespace, Indic digits to ASCII),
so through it the same pattern also matches ``३० दिन`` or full-width digits; a raw-text runner matches
ASCII digits only (fold digits with ``unicodedata.decimal`` first to get the rest).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import regex

from ..text import unicode
from .reading import _ONES, _TENS, NOT_A_REFERENCE, QUALIFIERS, SCALES
from .types import (
    BOOL,
    COUNT,
    CURRENCIES,
    CURRENCY_WORDS,
    DATE,
    DAY,
    ENUM,
    EQUIVALENT_QUALIFIERS,
    HOUR,
    MINUTE,
    MONEY,
    MONTH,
    MONTHS,
    NUMBER_UNIT,
    PERCENT,
    RUPEES,
    TEXT,
    UNIT_QUALIFIERS,
    UNIT_WORDS,
    WEEK,
    YEAR,
    Value,
    equivalents,
    number_text,
    split_unit,
)

# The flags every generated pattern is compiled with (docs/gold.md): case-insensitive, the regex
# module's default (version 0) behaviour, Unicode classes (\w, \s, \p{Pd}) as the module gives them.
PATTERN_FLAGS = regex.IGNORECASE
DASHES = r"\p{Pd}"  # every Unicode dash: hyphen-minus, hyphen, non-breaking hyphen, en and em dash
_SEP = rf"[\s{DASHES}]?"  # between a number and its unit: 30 days, 30-day, 30days
# A whole token: not after a word character, nor a digit and a separator (1,24 / 2.24), nor a word and a
# dash (twenty-four, 20-30, non-indemnity); not followed by a word character or a decimal part.
WHOLE_START = rf"(?<!\w|\d[.,]|\w{DASHES})"
WHOLE_END = r"(?!\w|[.,]\d)"
QUANTITY_END = r"(?!\w|[.,]\d|\s?नही)"  # Hindi negates after: "30 दिन नहीं" is "not 30 days"
# A quantity is not negated, approximate or strictly bounded right before it (reading.APPROXIMATIONS and
# STRICT_BOUNDS, the words replies use; a test holds them to it); a negated strict bound is an inclusive
# one and states the value ("not more than 30 days"), as is an inclusive bound ("up to 30 days").
_NEGATION = r"\b(?:not|no|never|\w+n['\u2019]t)\s+"
APPROXIMATE = r"about|around|approx(?:imately|\.)?|roughly|nearly|almost|circa|close\sto|ca\."
STRICTLY = r"(?:more|less|fewer|greater)\sthan|over|under|above|below|beyond|exceeding|in\sexcess\sof"
NOT_QUALIFIED = rf"(?<!\b(?:not|no|never|\w+n['\u2019]t|{APPROXIMATE})\s+|(?<!\bnot?\s)\b(?:{STRICTLY})\s+)"

# No negation in the same clause within this many characters before a yes or a label: "not covered",
# "is not currently covered", "no cover"; a clause ends at . ; : ! ? (a comma does not: "No, covered").
NEGATION_REACH = 24
NEGATIONS = ("not", "no", "never", "cannot", "without", "nor", "neither", "except", "excluding", "nahi")
_NOT_NEGATED = rf"(?<!(?<!\w)(?:{'|'.join(NEGATIONS)}|\w+n['\u2019]t)(?!\w)[^.;:!?]{{0,{NEGATION_REACH}}})"
# Yes and no, as answers say them. A yes-word negated ("isn't covered", "does not cover") says no, as
# does an exclusion unless negated ("not excluded"); "No" says no as a sentence's whole first word.
POSITIVE = ("yes", "covered", "covers", "included", "includes", "available", "payable", "offered",
            "supported", "हाँ", "हां")  # fmt: skip
NEGATABLE = (*POSITIVE[1:9], "cover", "include")
EXCLUSIONS = ("excluded", "excludes", "exclusion")
NEGATIVE = ("no cover", "no coverage", "नहीं")
NEGATED_POSITIVE = rf"(?:not|\w*n't|never)\s(?:\w+\s){{0,2}}?(?:{'|'.join(NEGATABLE)})(?!\w)"
SENTENCE_NO = r"(?:^|(?<=[.!?;:]\s?))no(?=\s?[.,;:!]|\s?$)"  # "No." "No, ..." as the answer's first word
MAX_TEXT_WORDS, MAX_TEXT_CHARACTERS = 12, 120  # a text longer than this gets no pattern


def _longest_first(word: str) -> tuple[int, str]:
    """A sort key: longest first (an alternation tries ``lakhs`` before ``lakh``), then alphabetical, so
    that a pattern's text is the same in every process (a set's order is not)."""
    return -len(word), word


def _alternatives(forms: Iterable[str]) -> str:
    unique = list(dict.fromkeys(forms))
    return unique[0] if len(unique) == 1 else f"(?:{'|'.join(unique)})"


# --- numbers ------------------------------------------------------------------------------------------

MAX_WORDS = 999  # numbers up to this get their English words in a pattern (and in answer variants)
_SCALE_WORDS = ((1000, "thousand"), (100, "hundred"))


def spelt(number: int) -> str | None:
    """A whole number in English words as replies write it (``one hundred and eighty``,
    ``twenty-four``, ``two thousand five hundred``), None past ``MAX_WORDS`` or below zero."""
    if not 0 <= number <= MAX_WORDS:
        return None
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens - 2] + (f"-{_ONES[ones]}" if ones else "")
    size, name = next((size, name) for size, name in _SCALE_WORDS if number >= size)
    head, rest = divmod(number, size)
    joiner = " and " if 0 < rest < 100 else " "
    return f"{spelt(head)} {name}" + (f"{joiner}{spelt(rest)}" if rest else "")


def number_words(number: int) -> str | None:
    """The pattern of `number`'s English words: any dash or space inside a tens-and-ones pair, an
    optional "and" after a hundred or thousand, ``a hundred`` for one hundred; None past ``MAX_WORDS``."""
    if not 0 <= number <= MAX_WORDS:
        return None
    if number < 100:
        words = spelt(number) or ""
        return words.replace("-", f"[\\s{DASHES}]")
    size, name = next((size, name) for size, name in _SCALE_WORDS if number >= size)
    head, rest = divmod(number, size)
    lead = rf"(?:(?:a|one)\s)?{name}" if head == 1 else rf"{number_words(head)}\s{name}"
    return lead + (rf",?\s(?:and\s)?{number_words(rest)}" if rest else "")


def grouped(number: int) -> list[str]:
    """A whole number's digits as written: plain, Western grouping, Indian grouping (lakh, crore)."""
    plain = str(number)
    western = f"{number:,}"
    head, tail = plain[:-3], plain[-3:]
    indian = ",".join([*regex.findall(r"\d{1,2}(?=(?:\d{2})*$)", head), tail]) if head else tail
    return list(dict.fromkeys((plain, western, indian)))


def number_pattern(number: int | float, *, one_as_article: bool = False) -> str:
    """Every way to write `number`: digits (grouped or not), words, either echoed in brackets by the
    other (``30 (thirty)``, ``thirty (30)``), and ``a``/``an`` for one when `one_as_article`."""
    if isinstance(number, float):
        return str(regex.escape(number_text(number)))
    forms = [regex.escape(form) for form in grouped(number)]
    words = number_words(number)
    if words is None:
        return _alternatives(forms)
    written = _alternatives([*forms, words])
    article = ["an?"] if one_as_article and number == 1 else []
    return _alternatives([f"{written}(?:\\s?\\({written}\\))?", *article])


# --- quantities -----------------------------------------------------------------------------------------

# Each unit's spellings (every alias in types.UNIT_ALIASES but a qualified one, which a test holds them
# to), written compactly: a pattern compiles in about a millisecond per alternative.
UNIT_PATTERNS = {
    DAY: rf"days?(?!{_SEP}care)|दिन(?:ों)?",  # day care is not days
    WEEK: "weeks?|wks?|सप्ताह|हफ़?्त(?:े|ा)",
    MONTH: "months?|mths?|महीन(?:े|ा|ों)|माह",
    YEAR: "years?|yrs?|वर्ष(?:ों)?|साल(?:ों)?",
    HOUR: "hours?|hrs?|घंट(?:े|ा|ों)",
    MINUTE: "minutes?|mins?|मिनट",
}
# Words between a number and its unit (types' note on qualified units). A neutral one keeps the
# quantity (4 consecutive years are 48 months: reading.QUALIFIERS; "calendar" is the plain unit said
# explicitly), on every equivalent. A unit qualifier (business, working, clear, banking days) makes it
# another unit that converts into nothing: optional on the gold's own unit when the gold has none (7
# business days state 7 days, not 1 week), required when it has one (business = working).


def _one_stem_each(words: Iterable[str]) -> str:
    """The words as alternatives, longest first, ``completed?`` for complete and completed."""
    stems = set(words)
    if {"complete", "completed"} <= stems:
        stems = stems - {"complete", "completed"} | {"completed?"}
    return "|".join(sorted(stems, key=_longest_first))


_NEUTRAL = _one_stem_each((*QUALIFIERS, "calendar"))
_ANY_QUALIFIER = _one_stem_each((*QUALIFIERS, *UNIT_QUALIFIERS))


def _quantity(number: int | float, unit: str, *, optional: str = "", required: str = "") -> str:
    """`number` `unit` with one of the qualifiers `required` between, or one of `optional` or none."""
    between = rf"[\s{DASHES}](?:{required})" if required else rf"(?:[\s{DASHES}](?:{optional}))?"
    between += _SEP
    return f"{number_pattern(number, one_as_article=True)}{between}(?:{UNIT_PATTERNS[unit]})"


def _quantities(number: int | float, unit: str, qualifier: str | None) -> str:
    """Every way to write `number` of the gold unit `unit` qualified by `qualifier` (see the note above)."""
    if qualifier not in (None, "calendar"):  # a unit qualifier: this quantity only, in the same words
        same = EQUIVALENT_QUALIFIERS.get(qualifier, frozenset((qualifier,)))
        return _quantity(number, unit, required="|".join(sorted(str(word) for word in same if word)))
    own = _ANY_QUALIFIER if qualifier is None else _NEUTRAL
    equal = [_quantity(n, other, optional=_NEUTRAL) for n, other in equivalents(number, unit)[1:]]
    return _alternatives([_quantity(number, unit, optional=own), *equal])


def _number_unit(value: Value) -> str:
    if value.unit is None or value.unit == COUNT:
        return _count(value)
    qualifier, unit = split_unit(value.unit)
    if unit not in UNIT_WORDS:  # a unit assay does not know: its own spelling, plural or not
        spelling = r"\s".join(map(regex.escape, value.unit.split()))
        quantity = f"{number_pattern(value.value)}{_SEP}{spelling}s?"
    else:
        quantity = _quantities(value.value, str(unit), qualifier)
    return f"{WHOLE_START}{NOT_QUALIFIED}{quantity}{QUANTITY_END}"


# Every unit word: what a count is not followed by (586 days is not the count 586), nor a scale.
_ANY_UNIT = "|".join([*UNIT_PATTERNS.values(), "lakhs?|lacs?|crores?"])


def _count(value: Value) -> str:
    unit_after = rf"(?!{_SEP}(?:(?:{_ANY_UNIT})(?!\w)|{_CURRENCY_AFTER})|\s?%)"
    before = f"{WHOLE_START}{NOT_QUALIFIED}{NOT_A_REFERENCE}(?<!{_CURRENCY_BEFORE})"
    return f"{before}{number_pattern(value.value)}{unit_after}{WHOLE_END}"


# --- money ----------------------------------------------------------------------------------------------

# How each currency is written (types.CURRENCIES: signs, codes, words -> ISO code). Before an amount: a
# sign or a code (₹, Rs., INR, $, US$, USD); after it: any of its spellings (1,499 USD, 500 rupees, 20
# €). An amount does not follow nor precede another currency than its own: $1,499 is not ₹1,499.


def _spelled(words: Iterable[str], *, phrases: bool = False) -> str:
    r"""`words` as alternatives, longest first: a plural folded into its singular (``dollars?``), a
    final dot made optional (``rs\.?``), a phrase left out when a word of the list begins it (``pounds
    sterling``: ``pounds`` is enough to see a currency follows) unless `phrases` keeps them."""
    pool = set(words)
    if not phrases:
        pool = {word for word in pool if not any(word.startswith(f"{other} ") for other in pool)}
    found = []
    for word in sorted(pool, key=_longest_first):
        if word[-1] in "s." and word[:-1] in pool:
            continue  # folded into its stem below
        tail = {"s": "s?", ".": r"\.?"}
        ending = next((tail[end] for end in tail if f"{word}{end}" in pool), "")
        found.append(f"{regex.escape(word)}{ending}")
    return "|".join(found)


_SIGNS = "".join(sorted(written for written in CURRENCIES if len(written) == 1))
# Any currency, before an amount and after one. A sign ends every dollar's prefix (US$, A$, HK$), so
# the sign alone tells a currency is there; the words are enough without their phrases (US dollars).
_NAMED = [word for word in CURRENCIES if len(word) > 1 and word not in CURRENCY_WORDS and "$" not in word]
_CURRENCY_BEFORE = rf"[{_SIGNS}]\s?|\b(?:{_spelled(_NAMED)})\s?"
_CURRENCY_AFTER = rf"[{_SIGNS}]|(?:{_spelled([*_NAMED, *CURRENCY_WORDS])})(?!\w)"


def currency_spellings(code: str) -> tuple[str, str]:
    """(before an amount, after it): how the currency `code` is written, as two patterns."""
    written = [word for word, of in CURRENCIES.items() if of == code] or [code.casefold()]
    before = [word for word in written if word not in CURRENCY_WORDS]  # not "rupees 500"
    return _spelled(before), _spelled(written, phrases=True)


_INDIAN_SCALES = (100_000, 10_000_000)  # lakh and crore: rupees only


def _scaled(amount: int, size: int, words: Iterable[str]) -> str | None:
    """`amount` in a scale (lakh: 100000) when it is at most two decimals of it."""
    if amount < size or (amount * 100) % size:
        return None
    number = amount // size if amount % size == 0 else amount / size
    spelt_words = _alternatives(regex.escape(word) for word in sorted(words, key=_longest_first))
    return f"{number_pattern(number, one_as_article=True)}{_SEP}{spelt_words}"


def _scale_forms(amount: int, currency: str | None) -> list[str]:
    rupees = currency in (RUPEES, None)
    forms = []
    for size in sorted(set(SCALES.values()), reverse=True):
        if (size == 1000 and amount >= 100_000 and rupees) or (size in _INDIAN_SCALES and not rupees):
            continue  # 500 thousand is no way to write 5 lakh, nor $5 lakh a way to write $500,000
        words = [word for word, of in SCALES.items() if of == size and word != "l"]
        scaled = _scaled(amount, size, [word for word in words if rupees or word.isascii()])
        if scaled is not None:
            forms.append(scaled)
    short = _scaled(amount, 100_000, ["l"]) if currency == RUPEES else None
    if short is not None:  # ₹5L: the letter alone is lakh only after the currency (5 l may be litres)
        forms.append(f"(?<=(?:{currency_spellings(RUPEES)[0]})\\s?){short}")
    return forms


def _amount_forms(amount: int | float, currency: str | None) -> str:
    if isinstance(amount, int):
        return _alternatives([f"{number_pattern(amount)}(?:\\.0{{1,2}})?", *_scale_forms(amount, currency)])
    whole, _, cents = number_text(amount).partition(".")
    zero = "0?" if len(cents) == 1 else ""  # 1234.5 or 1234.50
    return f"{_alternatives(map(regex.escape, grouped(int(whole))))}\\.{cents}{zero}"


def _money(value: Value) -> str:
    """An amount in its own currency or none, never right after another currency nor followed by one;
    an amount that names no currency (unit None) in any currency or none."""
    amount = _amount_forms(value.value, value.unit)
    if value.unit is None:
        before, after = f"(?:{_CURRENCY_BEFORE})?", f"(?:\\s?(?:{_CURRENCY_AFTER}))?"
    else:
        own_before, own_after = currency_spellings(value.unit)
        before = f"(?:(?:{own_before})\\s?|(?<!{_CURRENCY_BEFORE}))"
        after = f"(?:\\s?(?:{own_after})(?!\\w))?(?!\\s?(?:{_CURRENCY_AFTER}))"
    return f"{WHOLE_START}{NOT_QUALIFIED}{before}{amount}{after}{QUANTITY_END}"


def _percent(value: Value) -> str:
    signs = rf"%|per[\s{DASHES}]?cent|pct|प्रतिशत"
    number = number_pattern(value.value)
    return f"{WHOLE_START}{NOT_QUALIFIED}{number}(?:\\.0{{1,2}})?\\s?(?:{signs}){QUANTITY_END}"


# --- yes/no, labels, texts, dates ---------------------------------------------------------------------


def _bool(value: Value) -> str:
    if value.value:
        return f"{_NOT_NEGATED}(?<!\\w)(?:{'|'.join(POSITIVE)})(?!\\w)"
    exclusion = f"{_NOT_NEGATED}(?:{'|'.join(EXCLUSIONS)})"
    forms = [exclusion, SENTENCE_NO, NEGATED_POSITIVE, *map(regex.escape, NEGATIVE)]
    return f"(?<!\\w)(?:{'|'.join(forms)})(?!\\w)"


def words_pattern(text: str) -> str | None:
    """A label's or a short text's words as a literal (whitespace, ``_`` and dashes between words free),
    not negated and whole; None for a text too long to be a safe literal."""
    folded = unicode.fold(text.replace("_", " "))
    pieces = folded.split()
    if not pieces or len(pieces) > MAX_TEXT_WORDS or len(folded) > MAX_TEXT_CHARACTERS:
        return None
    if not regex.search(r"\w", folded):
        return None
    words = rf"[\s_{DASHES}]*".join(map(regex.escape, pieces))
    return f"{WHOLE_START}{_NOT_NEGATED}{words}{WHOLE_END}"


def _date(value: Value) -> str:
    year, month, day = (int(part) for part in value.value.split("-"))
    full = MONTHS[month - 1]
    name = _alternatives([full, *(["sept\\.?"] if month == 9 else []), full[:3] + "\\.?"])
    nth = r"(?:st|nd|rd|th)?"
    d, m = (f"0?{part}" if part < 10 else str(part) for part in (day, month))
    forms = [
        rf"{d}{nth}[\s{DASHES}](?:of\s)?{name},?[\s{DASHES}]{year}",
        rf"{name}\s{d}{nth},?\s{year}",
        f"{year}-{m}-{d}",
        f"{d}[/.{DASHES}]{m}[/.{DASHES}]{year}",
    ]
    return f"{WHOLE_START}(?<!{_NEGATION}){_alternatives(forms)}{WHOLE_END}"


def expected_regex(value: Value, *, labels: Mapping[str, str] | None = None) -> str | None:
    """The self-contained pattern for `value` (see the module's note), to compile with
    ``PATTERN_FLAGS``; None for a text too long to be safe as a literal. An enum's label in `labels`
    (the answer written for it: "India only" for ``pan_india``) is matched as well as its own words."""
    if value.type == NUMBER_UNIT:
        return _number_unit(value)
    if value.type == MONEY:
        return _money(value)
    if value.type == PERCENT:
        return _percent(value)
    if value.type == BOOL:
        return _bool(value)
    if value.type == DATE:
        return _date(value)
    if value.type == ENUM and (labels or {}).get(value.value):
        forms = [words_pattern(str(value.value)), words_pattern((labels or {})[value.value])]
        return _alternatives(form for form in forms if form is not None) if any(forms) else None
    if value.type in (ENUM, TEXT):
        return words_pattern(str(value.value))
    raise ValueError(f"unknown value type {value.type!r}")
