"""Consistency checks on a curated claim and its quote: warnings of the gold build (errors under
``--strict``).

- ``value_not_in_quote``: a number, amount or percentage its own quote does not state
  (``values.value_in_text`` is False); a list item by item, a text by the numbers it states.
- ``unit_mismatch``: the claim's unit against the template's, or the one the field's name ends in.
- ``low_confidence``: the curator's confidence below the minimum asked for.
- ``quote_differs``: a quote found only at the cascade's fuzzy level whose words or numbers differ from
  the document's (``scorers.grounding.wording``): "7 working days" where the page says "7 business
  days" is another claim, not a slip; the warning names each difference.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..values import (
    Value,
    canonical_unit,
    is_currency,
    read_values,
    split_unit,
    typed_value,
    unit_from_field,
    values_in_text,
)
from .facts import Claim, confidence_score
from .facts import shown as shown_value
from .templates import FieldTemplate, inferred_template

if TYPE_CHECKING:
    from ..scorers.grounding.quotes import QuoteMatch

DEFAULT_MIN_CONFIDENCE = "medium"  # "low" is below it: a curator's own doubt is worth a warning
WARNING_CODES = ("value_not_in_quote", "unit_mismatch", "low_confidence", "quote_differs")


@dataclass(frozen=True)
class Check:
    """One consistency finding about a claim."""

    code: str  # one of WARNING_CODES
    message: str


def consistency_checks(
    claim: Claim, quote: str, template: FieldTemplate | None, *, min_confidence: str | float
) -> tuple[Check, ...]:
    """Every finding about a claim whose quote was searched (whatever was found)."""
    checks = [*_value_check(claim, quote, template), *_unit_check(claim, template)]
    return (*checks, *_confidence_check(claim, min_confidence))


def wording_check(quote: str, match: QuoteMatch | None) -> tuple[Check, ...]:
    """A fuzzy-level match whose text says other words or numbers than the quote: each difference."""
    if match is None or match.level != "fuzzy":
        return ()
    # rapidfuzz loads with a gold build, never with a command's parser (assay score must not load it)
    from ..scorers.grounding.wording import differences

    found = differences(quote, match.text)
    if not found:
        return ()
    where = f" (page {match.page}, fuzzy match {match.score})"
    return (Check("quote_differs", "; ".join(found) + where),)


def claim_value(claim: Claim, template: FieldTemplate | None) -> Value:
    """The claim's value, typed by its template, in the claim's own unit (else the template's, else the
    field name's); ValueError, with the reason, when it cannot be typed."""
    if template is None:
        raise ValueError(f"no template for the field {claim.field!r}")
    return typed_value(claim.value, answer_type=template.answer_type, unit=_unit_of(claim, template))


# The value check reads values from a quote of at most this many characters (a longer one is a
# passage, not a quote: its values are not read, and it gets no value_not_in_quote), and compares at most
# MAX_CHECKED_VALUES of the values a list or a text states: the work is bounded by these, not by the
# facts (a text of 200,000 numbers took 9 s, each number reading the quote again).
MAX_CHECKED_QUOTE_CHARS = 10_000
MAX_CHECKED_VALUES = 100


def _value_check(claim: Claim, quote: str, template: FieldTemplate | None) -> list[Check]:
    """values.value_in_text says False only where the text could show the value and does not (a yes/no
    or an enum is a curator's reading, not words of the quote: None). The check does not need a template
    file: a field it does not cover is typed from its value and unit. A list is checked item by item
    (options a quote should list); a text value by the numbers it states."""
    if len(quote) > MAX_CHECKED_QUOTE_CHARS:
        return []
    template = template or inferred_template(claim)
    if isinstance(claim.value, list):
        stated = [(item, _typed(replace(claim, value=item), template)) for item in claim.value]
    elif template.answer_type == "text" and isinstance(claim.value, str):
        stated = [(mention.value.value, mention.value) for mention in read_values(_head(claim.value))]
    else:
        stated = [(claim.value, _typed(claim, template))]
    stated = stated[:MAX_CHECKED_VALUES]
    distinct = list(dict.fromkeys(value for _, value in stated if value is not None))
    found = dict(zip(distinct, values_in_text(distinct, quote)))
    missing = [shown for shown, value in stated if value is not None and found[value] is False]
    if not missing:
        return []
    if missing == [claim.value]:
        what = f"the value {shown_value(claim.value)} is not stated in its quote"
    elif missing == claim.value:
        what = f"none of the values {shown_value(missing)} is stated in its quote"
    else:
        what = f"{shown_value(missing)} of the value {shown_value(claim.value)} are not stated in its quote"
    return [Check("value_not_in_quote", what)]


def _head(text: str) -> str:
    """The start of a text value, up to about MAX_CHECKED_QUOTE_CHARS, cut at a space (never inside a
    number): the values it states are read from there."""
    if len(text) <= MAX_CHECKED_QUOTE_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_CHECKED_QUOTE_CHARS)
    return text[: max(cut, 0)]


def _typed(claim: Claim, template: FieldTemplate) -> Value | None:
    """The claim's value as its quote should state it (None: it cannot be typed, so cannot be told)."""
    answer_type = template.answer_type
    if answer_type == "text":  # a list's item, or a field the template file writes as text: by its value
        answer_type = inferred_template(claim).answer_type
    try:
        return typed_value(claim.value, answer_type=answer_type, unit=_unit_of(claim, template))
    except ValueError:
        return None


def _unit_of(claim: Claim, template: FieldTemplate) -> str | None:
    return canonical_unit(claim.unit) or canonical_unit(template.unit) or unit_from_field(claim.field)


def implied_unit(claim: Claim, template: FieldTemplate | None) -> str | None:
    """The unit the field's values should have: the template's (percent and money imply theirs), else
    the one the field's name ends in (``_days``); None for a yes/no, an enum, a text."""
    if template is not None:
        if template.answer_type in ("bool", "enum", "text"):
            return None
        unit = canonical_unit(template.unit)
        money = unit if is_currency(unit) else "INR"  # a template's currency, else rupees (or any: _agrees)
        implied = {"percent": "%", "money": money}.get(template.answer_type) or unit
        if implied:
            return implied
    return unit_from_field(claim.field)


def _unit_check(claim: Claim, template: FieldTemplate | None) -> list[Check]:
    stated, implied = canonical_unit(claim.unit), implied_unit(claim, template)
    if stated is None or implied is None or _agrees(stated, implied):
        return []
    what = f"the claim's unit {shown_value(claim.unit)} is not the field's ({implied})"
    return [Check("unit_mismatch", what)]


def _agrees(stated: str, implied: str) -> bool:
    """A qualified form of the field's unit is of it (business days for a ``_days`` field); any currency
    is money's, unless the template names one (rupees is only the default of a fact with no unit)."""
    if split_unit(stated)[1] == implied:
        return True
    return is_currency(stated) and implied == "INR"


def _confidence_check(claim: Claim, minimum: str | float) -> list[Check]:
    score, threshold = confidence_score(claim.confidence), confidence_score(minimum)
    if score is None or threshold is None or score >= threshold:
        return []
    return [Check("low_confidence", f"the curator's confidence {claim.confidence!r} is below {minimum!r}")]
