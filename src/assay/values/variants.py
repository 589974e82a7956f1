"""The answers a ``hard_fact`` pattern of ``value_patterns`` must match, and the near misses it must not.

Variants are the forms people write for a value: its rendered answer first, then digits and words,
echoed (``30 (thirty) days``), hyphenated and run-together units, upper case, the equivalent quantities,
a unit qualifier on the gold's own unit (``7 business days``), Devanagari digits with a Hindi unit;
amounts in their own currency (₹/Rs./INR, in lakh, crore, million, Indian and Western grouping; $1,499,
USD 1,499, 1,499 dollars); yes and no in their common phrasings. Near misses are the answers a loose
pattern would pass: the number ten times larger, one more, inside a longer number (``2024``, ``245``,
``1,24`` for ``24``), with a decimal, as a range's end, in another unit or currency, the opposite yes/no,
a negated label; a near miss that states the value after all (``2 years`` for 24 months) is dropped.
Then the value itself denied or hedged (``not 24 months``, ``about 24 months``), and in a unit qualified
otherwise than the gold's (``1 business week`` for 7 days).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import regex

from .patterns import grouped, spelt, words_pattern
from .reading import _ONES, value_in_text
from .types import (
    BOOL,
    COUNT,
    CURRENCIES,
    CURRENCY_WORDS,
    DATE,
    DAY,
    ENUM,
    EQUIVALENT_QUALIFIERS,
    MONEY,
    MONTHS,
    NUMBER_UNIT,
    PERCENT,
    RUPEES,
    TEXT,
    UNIT_ALIASES,
    UNIT_QUALIFIERS,
    UNIT_WORDS,
    Value,
    equivalents,
    indian_grouping,
    money_text,
    number_text,
    plain_number,
    quantity_text,
    render_answer,
    rupees_text,
    split_unit,
)

_DEVANAGARI_DIGITS = str.maketrans("0123456789", "०१२३४५६७८९")
# A unit's first Hindi spelling, for the Devanagari variant of an answer (३० दिन).
_HINDI_UNIT = {
    unit: alias
    for alias, unit in reversed(list(UNIT_ALIASES.items()))
    if regex.match(r"\p{Devanagari}", alias)
}


def _spelt(number: int | float) -> str | None:
    return spelt(number) if isinstance(number, int) else None


def _quantity_variants(
    number: int | float, unit: str, qualifier: str | None = None, *, counting: bool = False
) -> list[str]:
    """How replies write `number` `unit`: with `qualifier` (``business``) when the gold unit has one,
    else plain and with a neutral qualifier (``4 consecutive years``), and with a unit qualifier
    (``7 business days``) when `counting` (the gold's own unit, unqualified)."""
    singular, plural = UNIT_WORDS[unit]
    word = singular if number == 1 else plural
    if qualifier is not None:
        singular, word = f"{qualifier} {singular}", f"{qualifier} {word}"
    written = number_text(number)
    found = [f"{written} {word}", f"{written}-{singular}", f"{written} {singular}",
             f"{written} {word}".upper(), f"within {written} {word}.", f"{written}\u00a0{word}"]  # fmt: skip
    if qualifier is None:
        found += [f"{written}{word}", f"{written} consecutive {word}"]
    if counting:
        found += [f"{written} {other} {word}" for other in UNIT_QUALIFIERS]
    in_words = _spelt(number)
    if in_words is not None:
        found += [f"{in_words} {word}", f"{in_words}-{singular}", f"{in_words} ({written}) {word}",
                  f"{written} ({in_words}) {word}", f"{in_words.title()} {word}"]  # fmt: skip
    if number == 1:
        found += [f"a {singular}", f"one {singular}", f"an {singular}" if singular[0] in "aeiouh" else ""]
    if unit in _HINDI_UNIT and qualifier is None:
        found.append(f"{written.translate(_DEVANAGARI_DIGITS)} {_HINDI_UNIT[unit]}")
    return [text for text in found if text]


def _number_variants(value: Value) -> list[str]:
    number, unit = value.value, value.unit
    qualifier, known = split_unit(unit)
    if known not in UNIT_WORDS:
        known = None
    if qualifier is not None and known is not None:
        same = sorted(str(word) for word in EQUIVALENT_QUALIFIERS.get(qualifier, {qualifier}) if word)
        found = [text for word in same for text in _quantity_variants(number, known, word)]
        return found if qualifier != "calendar" else found + _quantity_variants(number, known)
    if known is not None:
        own, *equal = equivalents(number, known)
        found = _quantity_variants(*own, counting=True)
        return found + [text for n, other in equal for text in _quantity_variants(n, other)]
    forms = grouped(number) if isinstance(number, int) else [number_text(number)]
    in_words = _spelt(number)
    found = [*forms, f"there are {forms[-1]} of them.", *([in_words] if in_words else [])]
    if isinstance(number, int):
        found.append(str(number).translate(_DEVANAGARI_DIGITS))
    if value.unit is not None and value.unit != COUNT:
        found = [f"{form} {value.unit}" for form in forms]
    return found


def _spellings(code: str) -> list[str]:
    """How the currency `code` is written (types.CURRENCIES), signs first."""
    written = [word for word, of in CURRENCIES.items() if of == code] or [code]
    return sorted(written, key=lambda word: (word in CURRENCY_WORDS, word.isalpha(), len(word)))


def _money_variants(amount: int | float, currency: str | None) -> list[str]:
    if currency is None:  # an amount that names no currency: in any, or none
        written = money_text(amount, None)
        return [written, f"₹{written}", f"${written}", f"{written} EUR"]
    if currency != RUPEES:
        return _foreign_variants(amount, currency)
    if not isinstance(amount, int):
        return [f"₹{number_text(amount)}", f"Rs. {number_text(amount)}"]
    indian, western = indian_grouping(amount), f"{amount:,}"
    found = [rupees_text(amount), f"Rs. {indian}", f"INR {amount}", indian, str(amount), western,
             f"₹ {indian}/-", f"Rs.{indian}.00", f"{indian} rupees", f"{indian} रुपये"]  # fmt: skip
    for size, words in ((100_000, ("lakh", "lakhs", "lac")), (10_000_000, ("crore", "cr")),
                        (1_000_000, ("million",))):  # fmt: skip
        if amount >= size and (amount * 100) % size == 0:
            scaled = number_text(plain_number(Fraction(amount, size)))
            found += [f"₹{scaled} {word}" for word in words] + [f"Rs {scaled} {words[0]}"]
            found += [f"₹{scaled}L", f"Rs.{scaled}L"] if size == 100_000 else []
            in_words = _spelt(amount // size) if amount % size == 0 else None
            found += [f"{in_words} {words[0]}"] if in_words else []
    if 1000 <= amount < 100_000 and amount % 1000 == 0:
        found += [f"₹{amount // 1000}k", f"{amount // 1000} thousand rupees"]
    return found


def _foreign_variants(amount: int | float, currency: str) -> list[str]:
    written = f"{amount:,}" if isinstance(amount, int) else number_text(amount)
    spellings = _spellings(currency)
    found = [money_text(amount, currency), f"{currency} {written}", f"{written} {currency}"]
    words = [word for word in spellings if word in CURRENCY_WORDS]
    signs = [word for word in spellings if word not in CURRENCY_WORDS and not word.isalpha()]
    found += [f"{written} {word}" for word in words] + [f"{sign.upper()}{written}" for sign in signs]
    if isinstance(amount, int):
        found += [f"{currency} {amount}", f"{currency} {written}.00"]
        if amount >= 1_000_000 and (amount * 100) % 1_000_000 == 0:
            found.append(f"{currency} {number_text(plain_number(Fraction(amount, 1_000_000)))} million")
        if 1000 <= amount < 1_000_000 and amount % 1000 == 0:
            found.append(f"{currency} {amount // 1000}k")
    return found


def _bool_variants(truth: bool) -> list[str]:
    if truth:
        return ["Yes", "yes", "Yes, it is covered.", "covered", "is covered",
                "It is covered under the policy.", "Yes, maternity expenses are included.",
                "The policy covers it.", "हाँ"]  # fmt: skip
    return ["No", "No.", "No, it is not covered.", "not covered", "isn't covered", "is not covered",
            "It is excluded.", "excluded", "not included", "The policy does not cover it.",
            "The policy excludes it.", "नहीं"]  # fmt: skip


def answer_variants(value: Value, *, labels: Mapping[str, str] | None = None) -> list[str]:
    """The answers `value`'s pattern must match: its rendered answer first (an enum's label from
    `labels`, as ``expected_regex`` is given them), then the forms people write."""
    found = [render_answer(value, labels=labels)]
    if value.type == NUMBER_UNIT:
        found += _number_variants(value)
    elif value.type == MONEY:
        found += _money_variants(value.value, value.unit)
    elif value.type == PERCENT:
        written = number_text(value.value)
        found += [f"{written} %", f"{written} percent", f"{written} per cent", f"{written} pct",
                  f"a co-payment of {written}%."]  # fmt: skip
        spelt = _spelt(value.value)
        found += [f"{spelt} percent"] if spelt else []
    elif value.type == BOOL:
        found += _bool_variants(bool(value.value))
    elif value.type == DATE:
        found += _date_variants(value.value)
    else:
        label = (labels or {}).get(value.value) if value.type == ENUM else None
        for text in (str(value.value), label or ""):
            if text and words_pattern(text) is not None:
                words = text.replace("_", " ")
                found += [
                    words,
                    words.upper(),
                    f"It is {words}.",
                    "  ".join(words.split()),
                    words.replace(" ", "-"),
                ]
    return list(dict.fromkeys(found))


def _date_variants(iso: str) -> list[str]:
    year, month, day = (int(part) for part in iso.split("-"))
    name = MONTHS[month - 1].title()
    nth = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return [f"{name} {day}, {year}", f"{day}{nth} {name} {year}", iso, f"{day:02d}/{month:02d}/{year}",
            f"{day} {name[:3]} {year}", f"{day}-{month:02d}-{year}",
            f"the {day}{nth} of {name}, {year}"]  # fmt: skip


_OTHER_UNIT = {DAY: "month", "week": "day", "month": "day", "year": "month", "hour": "day", "minute": "hour"}


def _number_misses(value: Value) -> list[str]:
    number = value.value
    qualifier, known = split_unit(value.unit)
    unit = " ".join(filter(None, (qualifier, UNIT_WORDS.get(known or "", ("", ""))[1])))
    tail = f" {unit}" if unit else ""
    if not isinstance(number, int):
        written = number_text(number)
        found = [f"{written}5{tail}", f"1{written}{tail}", f"{number_text(number * 10)}{tail}",
                 f"{number_text(number + 1)}{tail}"]  # fmt: skip
        if value.unit in _OTHER_UNIT:
            found.append(quantity_text(number, _OTHER_UNIT[value.unit]))
        return found
    found = [f"{number * 10 or 10}{tail}", f"{number + 1}{tail}", f"20{number}{tail}", f"1{number}{tail}",
             f"{number}5{tail}", f"{number}.5{tail}", f"{max(number - 10, 1)}-{number}{tail}",
             f"1,{number:03d}{tail}", f"1.{number}{tail}"]  # fmt: skip
    if number >= 10 and number % 10 == 0:
        found.append(f"{number // 10}{tail}")
    if 0 < number < 10:
        found.append(f"twenty-{_ONES[number]}{tail}")
    if value.unit in _OTHER_UNIT:
        found.append(quantity_text(number, _OTHER_UNIT[value.unit]))
    if value.unit in (None, COUNT):
        found += [f"{number} days", f"{number}%", f"See page {number}.", f"(p. {number})"]
        found += [f"Section {number}", f"Clause {number} applies.", f"Rs {number}", f"₹{number}"]
    return found


def _money_misses(amount: int | float, currency: str | None) -> list[str]:
    if not isinstance(amount, int):
        return [money_text(amount * 10, currency)]
    found = [money_text(amount * 10, currency), money_text(amount + 1, currency), f"1{amount}",
             money_text(amount + amount // 10 or 1, currency), str(amount * 10), f"{amount}.5"]  # fmt: skip
    if currency == RUPEES:
        found.append(indian_grouping(amount * 10))
    if amount >= 10:
        found.append(money_text(amount // 10, currency))
    if currency == RUPEES and amount >= 100_000 and amount % 100_000 == 0:
        found += [f"₹{amount // 100_000} crore", f"₹{amount // 100_000 + 10} lakh"]
    return found


_COMMON = (RUPEES, "USD", "EUR", "GBP", "JPY", "AUD")  # the other currencies a near miss is written in


def _other_currencies(amount: int | float, currency: str | None) -> list[str]:
    """The same amount in another currency: $1,499 is not ₹1,499, nor 1,499 EUR $1,499; an amount
    that names no currency (None) is any currency's."""
    if currency is None:
        return []
    written = f"{amount:,}" if isinstance(amount, int) else number_text(amount)
    found = [money_text(amount, code) for code in _COMMON if code != currency]
    found += [f"{written} {code}" for code in _COMMON if code != currency]
    found += [
        f"{written} {word}" for word, code in CURRENCY_WORDS.items() if code in _COMMON and code != currency
    ]
    return found


def _date_misses(iso: str) -> list[str]:
    year, month, day = (int(part) for part in iso.split("-"))
    name = MONTHS[month - 1].title()
    other = MONTHS[month % 12].title()
    return [f"{day % 28 + 1} {name} {year}", f"{day} {name} {year + 1}", f"{day} {other} {year}", str(year)]


def _miss_candidates(value: Value) -> list[str]:
    if value.type == NUMBER_UNIT:
        return _number_misses(value)
    if value.type == MONEY:
        return _money_misses(value.value, value.unit)
    if value.type == PERCENT:
        written, number = number_text(value.value), value.value
        found = [f"{number_text(number * 10)}%", f"{number_text(number + 1)}%", f"1{written}%",
                 f"{written}.5%", f"{written}5%", f"{written} days"]  # fmt: skip
        return found + ([f"{number_text(number // 10)}%"] if number >= 10 and number % 10 == 0 else [])
    if value.type == BOOL:
        return _bool_variants(not value.value) + (
            ["not excluded", "uncovered", "No claim is payable", "never covered"]
            if value.value
            else ["not excluded"]
        )
    if value.type == DATE:
        return _date_misses(value.value)
    words = str(value.value).replace("_", " ")
    return [f"not {words}", f"non-{words}", f"{words}s", f"isn't {words}"]


def _same_value_misses(value: Value) -> list[str]:
    """The value itself, denied or made another quantity around it: not, about, more than, another
    currency, a counting qualifier the gold unit does not have."""
    if value.type in (BOOL, ENUM, TEXT):
        return []
    answer = render_answer(value)
    found = [f"not {answer}", f"It is not {answer}.", f"isn't {answer}"]
    if value.type != DATE:
        found += [f"about {answer}", f"more than {answer}"]
    if value.type == MONEY:
        found += _other_currencies(value.value, value.unit)
    if value.type == NUMBER_UNIT and value.unit is not None:
        found += _qualifier_misses(value.value, value.unit)
    return found


def _qualifier_misses(number: int | float, gold_unit: str) -> list[str]:
    """A unit qualifier the gold does not have (types' note): 1 business week for 7 days; 7 days, 7
    calendar days, 7 clear days or 1 week for 7 business days (a qualified unit converts into nothing)."""
    qualifier, unit = split_unit(gold_unit)
    if unit not in UNIT_WORDS:
        return []
    plain = [quantity_text(n, other) for n, other in equivalents(number, str(unit))]
    if qualifier in (None, "calendar"):
        return [text.replace(" ", " business ", 1) for text in plain[1:]] + (
            [plain[0].replace(" ", " business ", 1)] if qualifier else []
        )
    same = EQUIVALENT_QUALIFIERS.get(qualifier, frozenset((qualifier,)))
    others = [other for other in UNIT_QUALIFIERS if other not in same]
    return [*plain, *(plain[0].replace(" ", f" {other} ", 1) for other in others)]


def near_misses(value: Value) -> list[str]:
    """Answers close to `value`'s that its pattern must NOT match (a different value, a longer number,
    another unit or currency, a negation or a bound); none of them states the value itself."""
    found = []
    for text in dict.fromkeys(_miss_candidates(value)):
        if value.type not in (BOOL, ENUM, TEXT) and value_in_text(value, text):
            continue  # an equivalent (2 years for 24 months) is no miss
        found.append(text)
    return list(dict.fromkeys([*found, *_same_value_misses(value)]))
