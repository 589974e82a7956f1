"""What a reply says about an item, in words: the asked field as a noun phrase, a yes/no question turned
into statements with its own predicate, the topic of a refusal item, and citations as systems write
them. Generic English, no domain's vocabulary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from assay.harness import citations_in_text

# Words a field's name ends in that name its unit, not its subject (grace_period_days -> grace period).
UNIT_SUFFIXES = frozenset(("days", "day", "months", "month", "years", "year", "hours", "hour", "weeks", "pct",
                           "percent", "count", "amount", "inr", "usd", "business", "minutes"))  # fmt: skip
_WHAT = regex.compile(
    r"^(?:what|how long|how much)\s+(?:is|are|was)\s+(?:the\s+)?(?P<phrase>.+?)"
    r"\s+(?:of|under|for|in|according to)\s+(?:the\s+)?",
    regex.I,
)


def field_phrase(item: Mapping[str, Any], title: str) -> str:
    """The asked field as a noun phrase: from a "What is the X of <title>?" question, else the field's
    name without its unit words ("service credit claim")."""
    question = str(item["question"])
    found = _WHAT.match(question)
    if found and question[found.end() :].startswith(title):
        return found["phrase"]
    words = str(item.get("field") or "value").split("_")
    while len(words) > 1 and words[-1] in UNIT_SUFFIXES:
        words.pop()
    return " ".join(words)


def field_terms(item: Mapping[str, Any]) -> list[str]:
    """The stems a page names the field by: the field name's words (not its unit words), cut to five
    letters ("hospitalization" -> "hospi"), for the plain check that a page speaks of the field."""
    words = [word for word in str(item.get("field") or "").split("_") if word and word not in UNIT_SUFFIXES]
    return sorted({word[:5] for word in words if len(word) > 3})


def sentence(text: str) -> str:
    """First letter up, a final full stop."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _third_person(verb: str) -> str:
    if regex.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return f"{verb}es"
    if regex.search(r"[^aeiou]y$", verb):
        return f"{verb[:-1]}ies"
    return f"{verb}s"


def predicate_statements(question: str, title: str) -> tuple[str, str] | None:
    """A yes/no question as its (yes, no) statements with its own predicate: "Does X cover Y?" ->
    ("X covers Y.", "X does not cover Y."); "Are A refundable ...?" -> ("A are refundable ...",
    "A are not refundable ..."); "Can A be B?" -> ("A can be B.", "A cannot be B."). None for another
    form."""
    body = question.strip().rstrip("?").strip()
    does = regex.match(rf"^does\s+(?:the\s+)?{regex.escape(title)}\s+(\w+)\s+(.+)$", body, regex.I)
    if does:
        verb, rest = does.group(1), does.group(2)
        return sentence(f"{title} {_third_person(verb)} {rest}"), sentence(f"{title} does not {verb} {rest}")
    can = regex.match(r"^(can|may|will)\s+(.+?)\s+(be\s+.+)$", body, regex.I)
    if can:
        modal = can.group(1).lower()
        negative = "cannot" if modal == "can" else f"{modal} not"
        return sentence(f"{can.group(2)} {modal} {can.group(3)}"), sentence(
            f"{can.group(2)} {negative} {can.group(3)}"
        )
    be = regex.match(r"^(is|are)\s+(.+?)\s+(\w+(?:ed|able|ible|ble))\b(.*)$", body, regex.I)
    if be:
        verb, subject, predicate, rest = be.group(1).lower(), be.group(2), be.group(3), be.group(4)
        return sentence(f"{subject} {verb} {predicate}{rest}"), sentence(
            f"{subject} {verb} not {predicate}{rest}"
        )
    return None


_TOPIC = regex.compile(
    r"\bdo(?:es)?\s+not\s+(?:state|list|give|name|mention|say|specify|provide)\s+(?P<topic>.+?)\.?$", regex.I
)


def refusal_topic(item: Mapping[str, Any]) -> str | None:
    """What a refusal item's expected answer says the documents do not give ("the claim settlement
    ratio", "network hospitals"), or None."""
    found = _TOPIC.search(str(item.get("expected_answer") or ""))
    return found["topic"] if found else None


# --- citations --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cite:
    """How a reply cites a place: `style` is one of STYLES."""

    style: str
    document: str  # the document id
    page: int
    quote: str | None = None


# id / file / title: a citations object naming the document so; source-tag and paren-id: written in the
# text, read into citations as a system adapter does (citations_in_text).
STYLES = ("id", "file", "title", "source-tag", "paren-id", "quote")
TEXT_STYLES = frozenset(("source-tag", "paren-id"))


def cite_marker(cite: Cite, title: str) -> str:
    """The citation as written in the reply's text (empty for one given apart)."""
    if cite.style == "source-tag":
        return f" [Source: {title}, p.{cite.page}]"
    if cite.style == "paren-id":
        return f" (Source: {cite.document}, page {cite.page})"
    return ""


def citation_objects(text: str, cites: Sequence[Cite], names: Mapping[str, str]) -> list[dict[str, Any]]:
    """The reply's citations: read from its text for the text styles, else as objects naming the document
    by the style's name (`names` maps "file:<id>" and "title:<id>" to the file name and title)."""
    found: list[dict[str, Any]] = []
    for cite in cites:
        if cite.style in TEXT_STYLES:
            continue
        name = names.get(f"{cite.style}:{cite.document}", cite.document)
        row: dict[str, Any] = {"document": name, "page": cite.page}
        if cite.quote:
            row["quote"] = cite.quote
        found.append(row)
    if any(cite.style in TEXT_STYLES for cite in cites):
        for citation in citations_in_text(text):
            found.append(
                {
                    key: value
                    for key, value in (("document", citation.document), ("page", citation.page))
                    if value is not None
                }
            )
    return found
