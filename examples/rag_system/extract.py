"""The answering half of the example bot: of the top chunks' sentences, the one that best answers the
question, and what to say first ("Yes." / "No." / the quantity asked for) when the sentence plainly says it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import regex
from retrieval import WORD, Chunk, DocumentIndex, Hit, Span, as_written, question_terms, terms

# --- the extractive answer ---------------------------------------------------------------------------

QUANTITY = regex.compile(
    r"\b(?:how\s+(?:many|much|long|old|soon|often)|percent(?:age)?|proportion|period|duration|amount|limit"
    r"|ratio|minimum|maximum|age|number\s+of|up\s+to\s+what)\b",
    regex.IGNORECASE,
)
YES_NO = regex.compile(
    r"^\s*(?:is|are|does|do|did|can|could|will|would|shall|should|may|has|have|was|were)\b", regex.IGNORECASE
)
# Words that grant cover, and the same words negated ("not covered", "shall not be liable", "we do NOT
# pay") or an exclusion. A negation elsewhere in the sentence ("not result in recovery") says nothing
# about the cover asked for, so it is no answer. "no" counts lower-case only: "No Claim Bonus" names a
# benefit and negates nothing.
GRANTING = (
    r"(?:cover(?:s|ed|age)?|pays?|payable|paid|includ(?:es?|ed)|available|avail(?:s|ed)?|reimburs\w*"
    r"|indemnif\w*|eligible|entitled|allowed|admissible|provided|offer(?:s|ed)?|liable)"
)
AFFIRMATION = regex.compile(rf"(?i)\b{GRANTING}\b")
NEGATION = regex.compile(
    rf"\b(?:(?i:not|never|cannot|nor|\w+n't)|no)\s+(?:\w+\s+){{0,3}}?(?i:{GRANTING})\b"
    r"|(?i)\bexclu(?:ded|des?|sions?)\b"
)
# A quantity as written: a number that is not part of a code or a clause number ("Excl03", "4.1.3."),
# or a number word before a unit ("thirty days"; "the two waiting periods" is no quantity).
DURATIONS = r"(?:days?|weeks?|months?|years?|hours?|minutes?)"
PERCENTS = r"(?:%|percent|per\s?cent)"
UNITS = rf"(?:{DURATIONS}|{PERCENTS}|times|lakhs?|crores?)"
QUANTITY_IN_TEXT = regex.compile(
    r"(?<![\p{L}\p{N}.])\d+(?:,\d{2,3})*(?:\.\d+)?(?![\p{L}\p{N}]|\.\d)"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|fifty"
    rf"|sixty|ninety|hundred|thousand)(?:\s*\(\d+\))?[\s-]+{UNITS}(?!\p{{L}})",
    regex.IGNORECASE,
)
HEADING_WORDS = 4


# The kind of quantity a question asks for, when it says: a share, or a length of time.
ASKS_PERCENT = regex.compile(r"\bpercent(?:age)?\b|%", regex.IGNORECASE)
ASKS_DURATION = regex.compile(
    r"\bhow\s+long\b|\bperiod\b|\bduration\b|\b(?:days|weeks|months|years|hours)\b", regex.IGNORECASE
)


def wanted_unit(question: str) -> str | None:
    """The units a quantity answering the question is in (a pattern), or None when it may be any."""
    if ASKS_PERCENT.search(question):
        return PERCENTS
    return DURATIONS if ASKS_DURATION.search(question) else None


def wanted_cue(question: str) -> Callable[[str], bool] | None:
    """What a sentence answering the question should hold, as a test of the sentence; None for other
    questions."""
    if QUANTITY.search(question):
        unit = wanted_unit(question)
        return lambda sentence: bool(quantities(sentence, unit))
    if YES_NO.search(question):
        return says_yes_or_no
    return None


class Sentence(NamedTuple):
    fits: bool  # holds what the question asks for (see wanted_cue)
    score: float
    hit_rank: int
    span: Span
    chunk: Chunk
    heading: bool


def best_sentence(question: str, scope: str | None, hits: Sequence[Hit],
                  index_of: Mapping[str, DocumentIndex]) -> Sentence:
    """The best sentence of the pages of `hits` that overlaps one of them: of those that hold what the
    question asks for (a quantity, a yes or a no) when any does, the one `sentence_score` rates highest;
    ties go to the better chunk, then to the earlier sentence. Headings answer only when nothing else can."""
    query = set(question_terms(question, scope))
    wants = wanted_cue(question)
    candidates: list[Sentence] = []
    seen: set[tuple[str, int, int]] = set()
    for rank, hit in enumerate(hits):
        index = index_of[hit.chunk.document]
        page = index.pages[hit.chunk.page - 1]
        for span in index.sentences[hit.chunk.page - 1]:
            key = (hit.chunk.document, hit.chunk.page, span.start)
            if span.end <= hit.chunk.start or span.start >= hit.chunk.end or key in seen:
                continue
            seen.add(key)
            text = page[span.start : span.end]
            score = sentence_score(text, query, index)
            fits = score > 0 and wants is not None and not span.running and wants(text)
            candidates.append(Sentence(fits, score, rank, span, hit.chunk, is_heading(text)))
    answers = [candidate for candidate in candidates if not candidate.heading] or candidates
    return max(answers, key=lambda s: (s.fits, s.score, -s.hit_rank, -s.span.start))


def is_heading(sentence: str) -> bool:
    """A title or a label ("Waiting periods"): too short to answer, though it tells what follows."""
    return len(WORD.findall(sentence)) < HEADING_WORDS and not any(ch.isdigit() for ch in sentence)


def sentence_score(sentence: str, query: set[str], index: DocumentIndex) -> float:
    """BM25 of the question's terms over the sentence, with the document's idf and its length against a
    25-word sentence, as a share of the question's weight (0..1)."""
    counts = Counter(terms(sentence))
    norm = 1.5 * (0.25 + 0.75 * sum(counts.values()) / 25)
    weight = sum(index.idf(term) for term in query) or 1.0
    return sum(index.idf(t) * counts[t] / (counts[t] + norm) for t in query if counts[t]) / weight


def yes_or_no(question: str, sentence: str) -> str | None:
    """"Yes" or "No" when the question is a yes/no one and the sentence plainly says which, else None."""
    if not YES_NO.search(question):
        return None
    if NEGATION.search(sentence):
        return "No"
    return "Yes" if AFFIRMATION.search(sentence) else None


def says_yes_or_no(sentence: str) -> bool:
    return bool(NEGATION.search(sentence) or AFFIRMATION.search(sentence))


def quantities(sentence: str, unit: str | None = None) -> list[regex.Match[str]]:
    """The sentence's quantities (in `unit`, a pattern, when given), less a bare number that opens it: a
    clause number ("2.1 Expenses ...")."""
    found = list(QUANTITY_IN_TEXT.finditer(sentence))
    opening = sentence[: found[0].start()].strip(" (") if found else "x"
    if not opening and sentence[found[0].start()].isdigit() and not has_unit(sentence, found[0]):
        found.pop(0)
    if unit is None:
        return found
    in_unit = regex.compile(rf"(?i)(?:\s|-){{0,3}}{unit}(?!\p{{L}})$|(?i){unit}$")
    return [m for m in found if in_unit.search(_with_unit(sentence, m.start(), m.end()))]


def has_unit(text: str, number: regex.Match[str]) -> bool:
    """Whether the number has a unit after it or a currency before it (a number word always has)."""
    if not number.group()[:1].isdigit():
        return True
    return bool(UNIT_AFTER.match(text, number.end()) or MONEY_BEFORE.search(text, 0, number.start()))


CLAUSE_END = regex.compile(r"[,;:()\[\]]|\s(?:and|or|but|while|whereas)\s", regex.IGNORECASE)
MONEY_BEFORE = regex.compile(r"(?:₹|rs\.?|inr|usd|\$|€|£)\s{0,3}$", regex.IGNORECASE)
UNIT_AFTER = regex.compile(rf"(?:\s{{0,3}}|-){UNITS}(?!\p{{L}})", regex.IGNORECASE)  # "30 days", "30-day"


def asked_quantity(question: str, scope: str | None, sentence: str) -> str | None:
    """For a question asking for a quantity, the quantity of the sentence it asks for, as written: of
    the sentence's quantities in the unit asked for that have a unit (or a currency), the one whose clause
    shares the most of the question's terms ("60 days before the date of admission" for "how many days
    before admission"); the first of equals. None when there is no such quantity."""
    if not QUANTITY.search(question):
        return None
    query = set(question_terms(question, scope))
    best: tuple[int, str] | None = None
    for found in quantities(sentence, wanted_unit(question)):
        if not has_unit(sentence, found):
            continue  # a bare number may be a year, a clause or a list's count: the sentence says which
        clause = _clause(sentence, found.start(), found.end())
        rank = len(query & set(terms(clause)))
        if best is None or rank > best[0]:
            best = (rank, _with_unit(sentence, found.start(), found.end()))
    return None if best is None else as_written(best[1])


def _clause(text: str, start: int, end: int) -> str:
    before = [m.end() for m in CLAUSE_END.finditer(text, 0, start)]
    after = CLAUSE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def _with_unit(text: str, start: int, end: int) -> str:
    """The number with its unit after it ("30 days", "20%") or its currency before it ("INR 50,000")."""
    unit = UNIT_AFTER.match(text, end)
    money = MONEY_BEFORE.search(text, 0, start)
    return text[money.start() if money else start : unit.end() if unit else end]


def source_tag(document: str, page: int) -> str:
    return f"[Source: {document}, p.{page}]"
