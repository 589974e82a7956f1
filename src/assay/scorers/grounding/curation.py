"""What is a quote: trailing curator notes stripped, and sentinels told from quotes.

Curated facts hold texts that are not quotes of the document at all: "not stated in X.pdf", notes
about the document ("checked all indexed chunks"), "backfilled ... see source_url". They are kept out
of a gold set with their reason (`sentinel_reason`). A real quote may end in a curator's note such as
"(wordings p.13-14)": it is stripped before searching, and reported (`clean_quote`).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex


@dataclass(frozen=True)
class CleanQuote:
    """A quote ready to search for, and the trailing curator note stripped from it."""

    text: str
    note: str | None


_PAGE_REF = r"(?:p|pp|pg|page|pages)\.?\s*\d+(?:\s*[-\u2013\u2014,&]\s*\d+)*"
# A trailing bracketed note that cites a page or a file: "(wordings p.13-14)", "(see p. 4)",
# "[p.12]", "(brochure.pdf)", "-- handbook p.3". A trailing parenthesis without one is kept: policy
# text itself ends with "(Unless specified otherwise in the Policy Schedule)".
_TRAILING_NOTE = regex.compile(
    rf"\s*(?P<note>\((?:[^()]*\b{_PAGE_REF}|[^()]*\.pdf\b)[^()]*\)|\[(?:[^\[\]]*\b{_PAGE_REF}|[^\[\]]*\.pdf\b)[^\[\]]*\]"
    rf"|[,;\u2013\u2014-]\s*(?:see\s+)?{_PAGE_REF}"
    # after a dash, a source's name may stand before the page: "-- handbook p.3", "- wordings, p. 13"
    rf"|(?<=\s)[\u2013\u2014-]\s*(?:see\s+)?(?:\w[\w.'-]*,?\s+){{1,3}}{_PAGE_REF})\s*$",
    regex.IGNORECASE,
)
_OPEN_CLOSE = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}


def clean_quote(raw: str) -> CleanQuote:
    """The quote to search for: trimmed, a trailing curator note stripped (and returned as `note`)."""
    text = raw.strip()
    found = _TRAILING_NOTE.search(text)
    note = None
    if found is not None and found.start() > 0:
        note = found.group("note").strip(" ,;\u2013\u2014-")
        text = text[: found.start()].rstrip()
    return CleanQuote(_unwrapped(text), note)


def _unwrapped(text: str) -> str:
    # One pair of quotation marks around the whole quote is the curator's, not the document's.
    close = _OPEN_CLOSE.get(text[:1])
    if close is not None and len(text) > 2 and text.endswith(close) and close not in text[1:-1]:
        return text[1:-1].strip()
    return text


_STATED = r"(?:stated|mentioned|specified|found|given|disclosed|defined|listed|provided|available|present)"
# "not stated in X.pdf", "no Sum Insured options stated; ...": a negation, a few words naming what
# is absent, then the verb. Conditional policy text ("Not covered unless specified in the Policy
# Schedule", "No claim shall be paid if ...") has a modal or a condition in between, so it is not one.
_NOT_STATED = regex.compile(
    rf"^(?:not|no|nothing|none)\b(?P<what>[^.;:()]{{0,80}}?)\s*\b{_STATED}\b(?P<rest>.*)$",
    regex.IGNORECASE | regex.DOTALL,
)
# "Information not available", "Age not specified in wording": a short text that ENDS in the phrase.
_ENDS_NOT_STATED = regex.compile(
    rf"(?P<what>(?:[\w/-]+\s+){{1,3}}?)(?:is\s+|are\s+)?not\s+(?:\w+\s+)?{_STATED}(?:\s+in\s+[^;,.]*)?\.?",
    regex.IGNORECASE,
)
_SHORT = 80
_ONLY_WHERE = regex.compile(r"\s*in\s+[^;,]*")  # "not stated in X.pdf": the phrase alone, no elaboration
_CONDITION = regex.compile(
    r"\b(?:unless|if|shall|will|would|may|must|can|be|is|are|was|were|otherwise|except|as|per|under|where|when)\b",
    regex.I,
)
# "see source_url", "refer to the brochure, p. 4": pointing elsewhere instead of quoting.
_SEE_ELSEWHERE = regex.compile(
    r"(?:see|refer\s+to|cf\.?)\s+(?:the\s+)?(?:source|url|brochure|wordings?|document|pdf|cis|p\.|pp\.|page)",
    regex.I,
)
_PLACEHOLDER = regex.compile(
    r"(?:n\.?\s*/?\s*a\.?|none|null|nil|unknown|tbd|todo|missing|not applicable|not available"
    r"|[-\u2013\u2014?.]+)",
    regex.I,
)
_BACKFILLED = regex.compile(
    r"\bback-?fill(?:ed)?\b|\bsee\s+source[_ ]?url\b|\bsource_url\b", regex.IGNORECASE
)
# Words a curator uses about the document or the index, and policy text does not.
_ABOUT_DOCUMENT = regex.compile(
    r"\b(?:indexed\s+chunks?|chunks?\s+(?:checked|indexed)|checked\s+all|does\s+not\s+appear|do\s+not\s+appear"
    r"|not\s+(?:found|present|stated|mentioned)\s+in\s+(?:the\s+)?(?:document|pdf|wordings?|brochure|cis)"
    r"|(?:taken|sourced|copied|obtained)\s+from\s+(?:the\s+)?(?:insurer'?s?\s+)?(?:website|web|url|internet|public)"
    r"|inferred\s+from|paraphrased?|curator|[\w.-]+\.pdf)\b",
    regex.IGNORECASE,
)


def sentinel_reason(raw: str | None) -> str | None:
    """None for a real quote; else why it is not one (empty, not stated, backfilled, a curator note)."""
    if raw is None or not raw.strip():
        return "empty quote"
    text = " ".join(raw.split())
    if _BACKFILLED.search(text):
        return "backfilled from another source (see source_url), not a quote of the document"
    if _TRAILING_NOTE.fullmatch(text) or _SEE_ELSEWHERE.match(text):
        return "curator note, not a quote"
    if _PLACEHOLDER.fullmatch(text):
        return f"placeholder {text!r}, not a quote"
    stated = _NOT_STATED.match(text)
    if stated is not None and not _CONDITION.search(stated.group("what")):
        rest = stated.group("rest")
        plain = not rest.strip(" .") or _ONLY_WHERE.fullmatch(rest)
        return "not stated in the document" if plain else "curator note: not stated in the document"
    ends = _ENDS_NOT_STATED.fullmatch(text) if len(text) <= _SHORT else None
    if ends is not None and not _CONDITION.search(ends.group("what")):
        return "not stated in the document"
    if _ABOUT_DOCUMENT.search(text):
        return "curator note about the document, not a quote of it"
    return None
