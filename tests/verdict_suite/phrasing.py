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
TIME_SUFFIXES = frozenset(
    ("days", "day", "months", "month", "years", "year", "hours", "hour", "weeks", "minutes")
)
_WHAT_PREFIX = r"^(?:what|how long|how much)\s+(?:is|are|was)\s+(?:the\s+)?"
_LINK = r"(?:of|under|for|in|according to)"
_WHAT = regex.compile(
    r"^(?:what|how long|how much)\s+(?:is|are|was)\s+(?:the\s+)?(?P<phrase>.+?)"
    r"\s+(?:of|under|for|in|according to)\s+(?:the\s+)?",
    regex.I,
)


def field_phrase(item: Mapping[str, Any], title: str) -> str:
    """The asked field as a noun phrase: from a "What is the X of <title>?" question, else the field's
    name without its unit words ("service credit claim period")."""
    question = str(item["question"])
    asked = regex.match(
        _WHAT_PREFIX + rf"(?P<phrase>.+?)\s+{_LINK}\s+(?:the\s+)?{regex.escape(title)}\b", question, regex.I
    )
    if asked:
        return asked["phrase"]
    words = str(item.get("field") or "value").split("_")
    timed = words[-1] in TIME_SUFFIXES
    while len(words) > 1 and words[-1] in UNIT_SUFFIXES:
        words.pop()
    if timed and words[-1] not in ("period", "time", "window", "notice"):
        words.append("period")  # post_hospitalization_days -> "post hospitalization period"
    return " ".join(words)


def field_terms(item: Mapping[str, Any]) -> list[str]:
    """The stems a page names the field by: the field name's words (not its unit words), cut to five
    letters ("hospitalization" -> "hospi"), for the plain check that a page speaks of the field."""
    words = [word for word in str(item.get("field") or "").split("_") if word and word not in UNIT_SUFFIXES]
    return sorted({word[:5] for word in words if len(word) > 3})


def lower_first(text: str, name: str = "") -> str:
    """The first letter made small, unless the text opens with `name` (a document's title) or an acronym
    ("API access ...")."""
    if (name and text.startswith(name)) or not text[1:2].islower():
        return text
    return text[:1].lower() + text[1:]


def without_source(said: str, title: str) -> str:
    """A statement without its "according to the <title>" (a lead-in that names the document already
    says it)."""
    return regex.sub(
        rf"\s+according\s+to\s+(?:the\s+)?{regex.escape(title)}(?=\W*$)", "", said, flags=regex.I
    )


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


# --- a question's answer as a statement, in the question's own words ------------------------------------

_REST = r"(?P<rest>(?:\s+(?:under|according to|in|for|by|as|on)\b.*)?)"
_PARTICIPLE = r"(?P<pred>(?:be\s+)?[\w-]+(?:ed|able|ible|en))"


def _negated_verb(aux: str, verb: str) -> tuple[str, str]:
    """(affirmative, negative) of an auxiliary with its verb: does+cover -> covers / does not cover."""
    if aux in ("does", "do"):
        return (_third_person(verb) if aux == "does" else verb), f"{aux} not {verb}"
    return f"{aux} {verb}", ("cannot" if aux == "can" else f"{aux} not") + f" {verb}"


def _when(found: regex.Match[str], value: str, count: str) -> tuple[str, str] | None:
    """ "Within how many days must S be P ...?" -> "S must be P within 30 days ..."."""
    aux, subject, predicate = found["aux"].lower(), found["subj"], found["pred"]
    if aux in ("do", "does"):
        return None
    tail = f" {found['tail']}" if found["tail"] else ""
    said = f"{found['prep'].lower()} {value}{tail}{found['rest']}"
    negative = "cannot" if aux == "can" else f"{aux} not"
    return f"{subject} {aux} {predicate} {said}", f"{subject} {negative} {predicate} {said}"


def _how_many(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "How many N does S V ...?" -> "S Vs 586 N ..."."""
    yes, no = _negated_verb(found["aux"].lower(), found["verb"])
    said = f"{count} {found['noun']}{found['rest']}"
    return f"{found['subj']} {yes} {said}", f"{found['subj']} {no} {said}"


def _how_much(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "How much notice is given before X?" -> "48 hours of notice is given before X"."""
    said = f"{found['pred']}{found['rest']}"
    return f"{value} of {found['noun']} is {said}", f"{value} of {found['noun']} is not {said}"


def _up_to(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "Up to what percentage of Y can S V ...?" -> "S can V up to 50% of Y ..."."""
    yes, no = _negated_verb(found["aux"].lower(), found["verb"])
    said = f"up to {value}{' ' + found['of'] if found['of'] else ''}{found['rest']}"
    return f"{found['subj']} {yes} {said}", f"{found['subj']} {no} {said}"


def _what_share(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "What percentage of Y does S V ...?" -> "S Vs 20% of Y ..."."""
    yes, no = _negated_verb("does", found["verb"])
    said = f"{value} {found['of']}{found['rest']}"
    return f"{found['subj']} {yes} {said}", f"{found['subj']} {no} {said}"


def _what_does(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "What N does S V (to) ...?" -> "S Vs (to) a N of 99.9% ..."."""
    yes, no = _negated_verb("does", found["verb"])
    particle = f" {found['particle']}" if found["particle"] else ""
    said = f"{particle} a {found['noun']} of {value}{found['rest']}"
    return f"{found['subj']} {yes}{said}", f"{found['subj']} {no}{said}"


def _what_applies(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "What N applies under X?" -> "A N of 20% applies under X"."""
    verb = found["verb"]
    base = verb[:-3] + "y" if verb.endswith("ies") else verb[:-1]
    said = f"a {found['noun']} of {value}"
    return f"{said} {verb}{found['rest']}", f"{said} does not {base}{found['rest']}"


def _what_object(found: regex.Match[str], value: str, count: str) -> tuple[str, str]:
    """ "What does S cost per year ...?" -> "S costs ₹1,25,000 per year ..."."""
    yes, no = _negated_verb("does", found["verb"])
    return f"{found['subj']} {yes} {value}{found['rest']}", f"{found['subj']} {no} {value}{found['rest']}"


_SUBJECT_VERB = rf"\s+(?P<subj>.+?)\s+(?P<verb>\w+){_REST}$"
_SHARE = r"(?:percentage|percent|share|amount|part|level)"
# Question forms and how each turns into its answer, tried in order (English wh-questions: the fronted
# phrase goes back after the verb).
_STATEMENTS = (
    (
        r"^(?P<prep>for|within|after|in)\s+(?:how\s+(?:many|much)\s+\w+|what\s+time)\s*(?P<tail>.*?)"
        rf"\s+(?P<aux>are|is|must|can|should|will|do|does)\s+(?P<subj>.+?)\s+{_PARTICIPLE}\b(?P<rest>.*)$",
        _when,
    ),
    (r"^how\s+many\s+(?P<noun>.+?)\s+(?P<aux>can|does|do|will)" + _SUBJECT_VERB, _how_many),
    (r"^how\s+much\s+(?P<noun>\w+)\s+is\s+(?P<pred>\w+(?:ed|en))(?P<rest>.*)$", _how_much),
    (rf"^up\s+to\s+what\s+{_SHARE}\s*(?P<of>of\s+.+?)?\s+(?P<aux>can|does|will)" + _SUBJECT_VERB, _up_to),
    (rf"^what\s+{_SHARE}\s+(?P<of>of\s+.+?)\s+(?:does|do)" + _SUBJECT_VERB, _what_share),
    (
        r"^what\s+(?P<noun>[\w\s-]+?)\s+does\s+(?P<subj>.+?)\s+(?P<verb>\w+)(?:\s+(?P<particle>to))?"
        + _REST
        + "$",
        _what_does,
    ),
    (r"^what\s+(?P<noun>[\w\s-]+?)\s+(?P<verb>applies|apply)" + _REST + "$", _what_applies),
    (
        r"^what\s+does\s+(?P<subj>.+?)\s+(?P<verb>\w+)"
        r"(?P<rest>(?:\s+(?:per|a|each|every|in|under|according to)\b.*)?)$",
        _what_object,
    ),
)
_STATEMENT_PATTERNS = tuple((regex.compile(pattern, regex.I), build) for pattern, build in _STATEMENTS)


def answer_statements(question: str, value: str, count: str) -> tuple[str, str] | None:
    """The answer as a statement in the question's own words, and its negation: "For how many days after
    discharge are expenses covered under X?" with "180 days" -> ("Expenses are covered for 180 days after
    discharge under X.", "Expenses are not covered for ..."). `count` is the bare number, for a question
    that names its noun ("How many treatments does X cover?"). None for another form."""
    body = question.strip().rstrip("?").strip()
    asked = _WHAT.match(body)
    if asked:  # "What is the X of T?" -> "The X of T is 30 days."
        subject = body[asked.start("phrase") :]
        return sentence(f"the {subject} is {value}"), sentence(f"the {subject} is not {value}")
    for pattern, build in _STATEMENT_PATTERNS:
        found = pattern.match(body)
        if found:
            made = build(found, value, count)
            return (sentence(made[0]), sentence(made[1])) if made else None
    return None
