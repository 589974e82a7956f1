"""Readable questions from a field's name and its value's type, for a gold set built without templates.

A curated field's name is written for code (``credits_available``, ``maxDailyDoseMg``,
``response_time_hours``, ``is_transferable``); a question is written for a person. The rules here are
the ones a careful reader applies to any such name, with no list of a domain's fields:

- the name is split into words at ``_``, ``-``, ``.``, spaces and camelCase humps; the naming
  conventions' clipped words ``min``, ``max``, ``avg`` are said in full; a word the claim's quote writes
  in capitals (an acronym: UIN, SLA) is said in them (``as_the_document_writes``);
- a trailing unit word (``_days``, ``_pct``, ``_count``, ``_usd``, or the claim's own unit: ``_mg``
  with unit ``mg``) leaves the words and is said after the question (", in days?", ", as a
  percentage?"), so ``probation_days`` and ``probation_months`` never ask one question;
- a yes/no field is asked as yes/no, by the shape of its name: a leading ``is``/``are`` (``Is {title}
  transferable?``), ``has``/``have`` (``Does {title} have …?``), a modal verb (``Can one … under
  {title}?``); a trailing participle or ``-able`` word is the predicate (``credits_available``: ``Are
  credits available under {title}?``; after a word of how often, ``monthly_refundable``: ``Is the
  monthly option refundable …``);
  a verb and a preposition (``take_with_food``) are an instruction (``According to {title}, should you
  take with food?``); any other name is a thing the document has or not (``Is there … under {title}?``);
- a count is ``How many … are there under {title}?``; money ``How much is the … of {title}, in USD?``;
  a list ``What are the … of {title}?``; a choice written ``x_a_or_b`` ``Is the x of {title} a or b?``;
  anything else ``What is the … of {title}?``, with its unit.

Questions keep the ``{title}`` placeholder (``templates.ask`` fills it in), so a templates file written
from them (``assay gold templates``) reads back as the same questions.
"""

from __future__ import annotations

import regex

from ..values import canonical_unit, unit_from_field

# Clipped words of field-naming conventions (not of any domain), said in full in a question.
CLIPPED = {"min": "minimum", "max": "maximum", "avg": "average"}
# Closed word classes of English: the auxiliary and modal verbs a yes/no field's name may start with,
# and the prepositions that mark a verb phrase (take_with_food, pay_by_card).
BE = frozenset({"is", "are", "was", "were"})
HAVE = frozenset({"has", "have"})
MODALS = frozenset({"can", "could", "may", "might", "must", "should", "shall", "will", "would"})
PREPOSITIONS = frozenset(
    {"with", "without", "before", "after", "during", "on", "in", "at", "by", "for", "from", "to", "into"}
)
# Endings that make a word a noun whatever precedes it (coverage, termination, payment, allowance...):
# such a first word is a thing, not an instruction, even before a preposition.
NOUN_ENDINGS = ("age", "tion", "sion", "ment", "ance", "ence", "ity", "ness", "ship", "ure", "ing", "s")
# How a question says the unit its value is in (the rest: "in <unit>s").
UNIT_PHRASES = {"%": "as a percentage", "INR": "in rupees", "count": "as a number"}

_HUMP = regex.compile(r"(?<=\p{Ll}|\d)(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})")


def name_words(name: str) -> list[str]:
    """A field's name as lower-case words: ``maxDailyDoseMg`` -> max daily dose mg, ``is_x`` -> is x.
    An all-capitals word of two letters or more (``UIN``, ``SLA``) keeps its capitals."""
    words = []
    for part in regex.split(r"[_\W]+", name):
        for word in _HUMP.split(part):
            if word:
                words.append(word if len(word) > 1 and word.isupper() else word.casefold())
    return words


def as_the_document_writes(name: str, quote: str | None) -> str:
    """The field's name with each word the document writes in capitals (an acronym: UIN, AYUSH, SLA) in
    its capitals, as words joined by ``_``: a question says "the UIN code", not "the uin code". Read from
    the claim's quote, and only where most of its words are not in capitals: a heading in capitals says
    nothing of which words are acronyms."""
    if not quote:
        return name
    words = regex.findall(r"\b\p{L}+\b", quote)  # words of letters only: a code (SURH26001V01) is none
    acronyms = [word for word in words if len(word) > 1 and word.isupper()]
    if len(acronyms) * 2 > len(words):
        return name
    capitals = {word.casefold(): word for word in acronyms}
    return "_".join(capitals.get(word.casefold(), word) for word in name_words(name))


def is_unit_word(word: str, unit: str | None = None) -> bool:
    """Whether a name's last word only says its unit (``days``, ``pct``, ``usd``; ``mg`` when the value's
    unit is mg), not a thing measured in it (``amount``, ``premium``: money, but the words of the name)."""
    from_name = unit_from_field(f"x_{word}")
    if from_name is not None and canonical_unit(word) == from_name:
        return True
    said = canonical_unit(unit) if unit is not None else None
    return said is not None and canonical_unit(word) == said


def unit_of_name(name: str) -> str | None:
    """The unit a field's name ends in, read as words (``monthlyPriceUsd`` -> USD, ``grace_days`` -> day)."""
    return unit_from_field("_".join(name_words(name)))


def subject_words(name: str, unit: str | None = None) -> tuple[list[str], str | None]:
    """The words a question names the field by, and the unit its name ends in (None if it ends in none):
    ``response_time_hours`` -> (response time, hour)."""
    words = name_words(name)
    unit_word = None
    if len(words) > 1 and is_unit_word(words[-1], unit):
        unit_word = canonical_unit(words[-1])
        if unit_from_field(f"x_{words[-1]}") is not None:
            unit_word = unit_from_field(f"x_{words[-1]}")
        words = words[:-1]
    # A name of no letters or digits ("", "__") still asks a question: about "the value".
    return [CLIPPED.get(word, word) for word in words] or ["value"], unit_word


def unit_phrase(unit: str | None) -> str:
    """ ", in days" for day, ", as a percentage" for %, ", in mg" for mg; "" for no unit."""
    unit = canonical_unit(unit) if unit else None
    if not unit:
        return ""
    if unit in UNIT_PHRASES:
        return f", {UNIT_PHRASES[unit]}"
    *before, last = unit.split(" ")  # "business day": its last word takes the plural
    said = plural(last) if len(last) > 2 and last.isalpha() and last.islower() else last
    # a unit is the facts file's text: its braces doubled, so that it reads as itself in the template
    return ", in " + " ".join([*before, said]).replace("{", "{{").replace("}", "}}")


def plural(word: str) -> str:
    """A word's regular plural (a naming convention writes most field words singular or plural already)."""
    if word.endswith("s"):
        return word
    if regex.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + ("es" if regex.search(r"(?:x|z|ch|sh)$", word) else "s")


def looks_plural(word: str) -> bool:
    """A regular plural ending (credits, fees), not a word that merely ends in s (access, status, bonus)."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _is_predicate(word: str) -> bool:
    """A past participle or an -able/-ible adjective: allowed, covered, supported, refundable, eligible."""
    participle = word.endswith("ed") and not word.endswith("eed")  # not speed, need, feed
    return len(word) > 4 and (participle or word.endswith(("able", "ible")))


# The adverbs of how often, a closed class of English: such a word names a plan or an option, no thing
# alone ("monthly refundable": the monthly option is refundable). A word merely ending in -ly (family,
# supply) is a thing.
FREQUENCIES = frozenset(
    {"hourly", "daily", "weekly", "fortnightly", "monthly", "quarterly", "yearly", "annually", "annual"}
)


def _is_modifier(word: str) -> bool:
    """A word of how often (monthly, yearly), which names no thing alone."""
    return word in FREQUENCIES


def yes_no_question(name: str) -> str:
    """A yes/no question for a boolean field, by the shape of its name (see the module's docstring)."""
    words, _ = subject_words(name)
    first, rest = words[0], words[1:]
    if first in BE and rest:
        # is_tax_included: "Is tax included under {title}?"; is_pet_friendly: "Is {title} pet friendly?"
        return _predicate_question(rest) or f"{first.capitalize()} {{title}} {' '.join(rest)}?"
    if first in HAVE and rest:
        return f"Does {{title}} have {' '.join(rest)}?"
    if first in MODALS and rest:
        return f"{first.capitalize()} one {' '.join(rest)} under {{title}}?"
    if len(words) == 1 and _is_predicate(first):
        return f"Is {{title}} {first}?"
    predicate = _predicate_question(words)
    if predicate:
        return predicate
    if len(words) > 1 and words[1] in PREPOSITIONS and not first.endswith(NOUN_ENDINGS):
        return f"According to {{title}}, should you {' '.join(words)}?"
    be = "Are" if looks_plural(words[-1]) else "Is"
    return f"{be} there {' '.join(words)} under {{title}}?"


def _predicate_question(words: list[str]) -> str | None:
    """``credits available`` -> "Are credits available under {title}?"; None when the last word is no
    predicate."""
    if len(words) < 2 or not _is_predicate(words[-1]):
        return None
    subject = words[:-1]
    if all(_is_modifier(word) for word in subject):
        subject = ["the", *subject, "option"]  # "monthly refundable": the monthly option is refundable
    be = "Are" if looks_plural(subject[-1]) else "Is"
    return f"{be} {' '.join(subject)} {words[-1]} under {{title}}?"


def value_question(name: str, answer_type: str, *, unit: str | None = None, is_list: bool = False) -> str:
    """A question for a field of any other type: count, money, percent, a number with its unit, a date,
    a choice, a list, a text."""
    words, named_unit = subject_words(name, unit)
    said_unit = named_unit or (canonical_unit(unit) if answer_type in ("number_unit", "money") else None)
    if answer_type == "percent":
        said_unit = "%"
    phrase = " ".join(words)
    if said_unit == "count" and answer_type == "number_unit":
        return f"How many {' '.join([*words[:-1], plural(words[-1])])} are there under {{title}}?"
    if answer_type == "money":
        return f"How much is the {phrase} of {{title}}{unit_phrase(said_unit)}?"
    choice = _choice(words)
    if choice is not None and answer_type in ("enum", "text"):
        return choice
    if is_list:
        return f"What are the {' '.join([*words[:-1], plural(words[-1])])} of {{title}}?"
    if answer_type == "date" and "date" not in words:
        return f"When is the {phrase} of {{title}}?"
    return f"What is the {phrase} of {{title}}{unit_phrase(said_unit)}?"


def _choice(words: list[str]) -> str | None:
    """``policy type indemnity or fixed`` -> "Is the policy type of {title} indemnity or fixed?"."""
    if "or" not in words:
        return None
    at = words.index("or")
    if at < 2 or at == len(words) - 1:
        return None
    return f"Is the {' '.join(words[: at - 1])} of {{title}} {words[at - 1]} or {' '.join(words[at + 1 :])}?"
