"""Ways people write a value in a reply, and the plain checks of a page's text the labels rest on.

These are the suite's own readings (plain regular expressions and arithmetic), kept apart from assay's
value reader on purpose: a label checked with the grader's own code would agree with the grader by
construction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import regex

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen")  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1_000, "thousand"))

# Units a reply writes after a number: (singular, plural) by the gold's canonical unit.
UNIT_WORDS = {
    "day": ("day", "days"), "week": ("week", "weeks"), "month": ("month", "months"),
    "year": ("year", "years"), "hour": ("hour", "hours"), "minute": ("minute", "minutes"),
}  # fmt: skip
# Exact conversions between time units, both ways: 4 years are 48 months on a page.
FACTORS = {("year", "month"): 12, ("week", "day"): 7, ("day", "hour"): 24, ("hour", "minute"): 60}
# Another unit of the same kind, for a reply that states the right number in the wrong unit.
OTHER_UNIT = {
    "day": "month",
    "month": "year",
    "year": "month",
    "hour": "day",
    "week": "month",
    "minute": "hour",
}
CURRENCY_UNITS = {"₹": "INR", "rs": "INR", "inr": "INR", "$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR"}
CURRENCY_SIGNS = {
    "INR": ("₹", "Rs.", "INR"),
    "USD": ("$", "US$", "USD"),
    "EUR": ("€", "EUR"),
    "GBP": ("£", "GBP"),
}


def number_words(number: int) -> str:
    """An integer in English words: 180 -> "one hundred and eighty", 1499 -> "one thousand four hundred
    and ninety-nine"."""
    if number < 0:
        return f"minus {number_words(-number)}"
    for size, name in _SCALES:
        if number >= size:
            head, rest = divmod(number, size)
            tail = "" if rest == 0 else (" and " if rest < 100 else " ") + number_words(rest)
            return f"{number_words(head)} {name}{tail}"
    if number >= 100:
        head, rest = divmod(number, 100)
        return f"{_ONES[head]} hundred" + (f" and {number_words(rest)}" if rest else "")
    if number >= 20:
        tens, ones = divmod(number, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    return _ONES[number]


def western(number: float) -> str:
    """1499 -> "1,499"; 99.9 stays "99.9"."""
    return f"{number:,}" if isinstance(number, int) else f"{number:g}"


def indian(number: int) -> str:
    """500000 -> "5,00,000": the last three digits, then groups of two."""
    digits = str(number)
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    groups = [head[max(0, end - 2) : end] for end in range(len(head), 0, -2)][::-1]
    return ",".join([*groups, tail])


@dataclass(frozen=True)
class Quantity:
    """A gold item's number with its unit as written in its expected answer ("business days", "%")."""

    number: int | float
    unit: str | None  # canonical: day, month, %, INR, USD, count, or a word such as "users"
    written_unit: str  # what follows the number in the expected answer ("days", "business hours", "%")

    def plain(self) -> str:
        return self.with_number(self.grouped(self.number))

    def grouped(self, number: int | float) -> str:
        """A number of this quantity in digits: rupees in Indian grouping (5,00,000), else Western."""
        return indian(number) if self.unit == "INR" and isinstance(number, int) else western(number)

    def with_number(self, written: str, unit: str | None = None) -> str:
        """The number as `written`, with the unit (or `unit` in its place)."""
        shown = self.written_unit if unit is None else unit
        if self.unit in CURRENCY_SIGNS:
            return f"{CURRENCY_SIGNS[self.unit][0]}{written}" if unit is None else f"{unit}{written}"
        if shown == "%":
            return f"{written}%"
        return f"{written} {shown}".strip()


def quantity(expected_answer: str, value: dict[str, object]) -> Quantity | None:
    """The item's quantity, read from its expected answer ("180 days", "50%", "₹5,00,000"), or None."""
    number, unit = value.get("value"), value.get("unit")
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    found = regex.search(r"\d[\d,]*(?:\.\d+)?", expected_answer)
    if found is None:
        return None
    written = expected_answer[found.end() :].strip()
    unit = CURRENCY_UNITS.get(str(unit).casefold(), unit) if unit is not None else None
    return Quantity(number, unit if isinstance(unit, str) else None, written)


class Form(NamedTuple):
    """A way of writing the value: its name, the value written whole, and its number alone (for "586 day
    care treatments")."""

    name: str
    full: str
    bare: str


def stated_forms(q: Quantity) -> list[Form]:
    """The value as people write it: digits, words, "30 (thirty) days", "thirty (30) days", "per cent",
    Indian grouping and lakh/crore for rupees, a currency's code; every form states the same value."""
    number = q.number
    forms = [Form("digits", q.plain(), q.grouped(number))]
    if isinstance(number, int) and 1 < number < 1000:
        words, both, echoed = (
            number_words(number),
            f"{number} ({number_words(number)})",
            f"{number_words(number)} ({number})",
        )
        if q.unit == "%":
            forms += [
                Form("words", f"{words} per cent", words),
                Form("digits-words", f"{both} per cent", both),
            ]
        else:
            forms += [
                Form("words", q.with_number(words), words),
                Form("digits-words", q.with_number(both), both),
                Form("words-digits", q.with_number(echoed), echoed),  # as contracts write it
            ]
    if q.unit == "%":
        forms.append(Form("per-cent", f"{western(number)} per cent", western(number)))
    if q.unit == "INR" and isinstance(number, int):
        forms.append(Form("rs", f"Rs. {indian(number)}", indian(number)))
        forms += [Form("lakh-crore", written, written) for written in _indian_scales(number)]
    if q.unit == "USD":
        forms += [
            Form("code", f"USD {western(number)}", western(number)),
            Form("currency-words", f"{western(number)} US dollars", western(number)),
        ]
    return forms


def _indian_scales(number: int) -> list[str]:
    """Rupees in lakh or crore, as Indian documents write them: ₹5 lakh, Rs 1.25 lakh, ₹2 crore."""
    if number % 10_000_000 == 0:
        return [f"Rs {number // 10_000_000} crore"]
    if number >= 100_000 and number % 1_000 == 0:
        return [f"₹{number / 100_000:g} lakh"]
    return []


def wrong_unit_form(q: Quantity) -> str | None:
    """The right number in another unit of its kind (30 months for 30 days), or another currency."""
    if q.unit in UNIT_WORDS and q.unit in OTHER_UNIT and q.written_unit in UNIT_WORDS[q.unit]:
        single, plural = UNIT_WORDS[OTHER_UNIT[q.unit]]
        return q.with_number(western(q.number), single if q.number == 1 else plural)
    if q.unit in CURRENCY_SIGNS:
        other = "USD" if q.unit != "USD" else "INR"
        return q.with_number(western(q.number), CURRENCY_SIGNS[other][0])
    return None


# --- reading a page, plainly ---------------------------------------------------------------------------


def flat(text: str) -> str:
    """Case folded, hyphens and whitespace runs made one space: extracted pages break lines anywhere."""
    return regex.sub(r"[\s\u00ad]+", " ", text.casefold()).strip()


def alnum(text: str) -> str:
    """Letters and digits only, case folded: how a quote is compared with a page."""
    return "".join(regex.findall(r"[\p{L}\p{N}]+", text.casefold()))


def number_spellings(number: int | float) -> list[str]:
    """How a page may write `number`: 1499, 1,499, 1,49,9.. (Indian), and its words."""
    found = {str(number) if isinstance(number, int) else f"{number:g}", western(number)}
    if isinstance(number, int):
        found.add(indian(number))
        if 0 <= number < 1000:
            found.add(number_words(number))
    return sorted(found, key=len, reverse=True)


def equivalent_numbers(q: Quantity) -> list[tuple[int | float, str | None]]:
    """(number, unit) pairs that state the quantity: itself, and exact time conversions (48 months are
    4 years)."""
    pairs: list[tuple[int | float, str | None]] = [(q.number, q.unit)]
    for (large, small), factor in FACTORS.items():
        if q.unit == small and isinstance(q.number, int) and q.number % factor == 0:
            pairs.append((q.number // factor, large))
        if q.unit == large:
            pairs.append((q.number * factor, small))
    return pairs


def _unit_pattern(unit: str | None) -> str:
    if unit in UNIT_WORDS:
        return rf"(?:[\w-]+ ){{0,2}}{UNIT_WORDS[unit][0]}s?\b"  # "30 consecutive days", "7 business days"
    if unit == "%":
        return r"(?:%|per ?cent)"
    return ""


# How a currency is written before an amount, in case-folded text.
CURRENCY_BEFORE = {"INR": r"(?:₹|rs\.?|inr|rupees)\s?", "USD": r"(?:us\$|\$|usd)\s?", "EUR": r"(?:€|eur)\s?"}


def number_spans(text: str, number: int | float, unit: str | None) -> Iterator[tuple[int, int]]:
    """Where the flat `text` states `number` as a whole number (not inside a longer one), followed by its
    unit when it has a time or percent unit, after its currency sign when it is money."""
    for spelled in number_spellings(number):
        currency = CURRENCY_BEFORE.get(unit or "", "")
        pattern = rf"{currency}(?<![\w.,]){regex.escape(spelled)}(?![\w]|[.,]\d)"
        if spelled[0].isdigit():
            pattern += r"(?:\s*\([a-z -]+\))?"  # 30 (thirty) days
        else:
            pattern += r"(?:\s*\(\d+\))?"  # thirty (30) days
        unit_part = _unit_pattern(unit)
        if unit_part:
            pattern += rf"[\s-]*{unit_part}"
        for found in regex.finditer(pattern, text):
            yield found.start(), found.end()


def states_quantity(text: str, q: Quantity) -> bool:
    """The text states the quantity (in its unit, or an exact conversion of it)."""
    folded = flat(text)
    return any(next(number_spans(folded, number, unit), None) for number, unit in equivalent_numbers(q))


def has_number(text: str, number: int | float) -> bool:
    """The text holds this number anywhere, with or without a unit, in any grouping."""
    return next(number_spans(flat(text), number, None), None) is not None


def holds_quote(page: str, quote: str, share: float = 0.9) -> bool:
    """The page holds the quote: its letters and digits in one run, or (a quote stitched over table
    cells) nearly all its words."""
    if alnum(quote) in alnum(page):
        return True
    words = regex.findall(r"[\p{L}\p{N}]+", quote.casefold())
    on_page = set(regex.findall(r"[\p{L}\p{N}]+", page.casefold()))
    return bool(words) and sum(word in on_page for word in words) / len(words) >= share


def terms_near(text: str, spans: Sequence[tuple[int, int]], terms: Sequence[str], reach: int = 200) -> bool:
    """One of `terms` (word stems) occurs within `reach` characters of one of the spans of flat `text`."""
    for start, end in spans:
        window = text[max(0, start - reach) : end + reach]
        if any(regex.search(rf"\b{regex.escape(term)}", window) for term in terms):
            return True
    return False


def values_of_unit(text: str, unit: str | None) -> set[int | float]:
    """The numbers the flat `text` states in `unit` (a time unit or %), in digits or words."""
    words = {number_words(number): number for number in range(1, 100)}
    spelled = "|".join(sorted((regex.escape(word) for word in words), key=len, reverse=True))
    unit_part = _unit_pattern(unit)
    if not unit_part:
        return set()
    found: set[int | float] = set()
    for match in regex.finditer(
        rf"(?<![\w.,])(\d[\d,]*(?:\.\d+)?|{spelled})(?:\s*\([^)]*\))?[\s-]*{unit_part}", text
    ):
        written = match.group(1)
        if written in words:
            found.add(words[written])
        else:
            value = float(written.replace(",", ""))
            found.add(int(value) if value.is_integer() else value)
    return found
