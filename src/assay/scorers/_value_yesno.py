"""How a reply says yes or no (value_match's yes/no values; its module docstring says the rules): its
opening "Yes." or "No.", its sentences' own "Yes"/"No", and the polarity of the clauses that name the
question's subject and predicate, else its yes/no words of coverage.
"""

from __future__ import annotations

import regex

from ..text.clauses import FieldTerms, clause_spans
from ..values.patterns import EXCLUSIONS, NEGATED_POSITIVE, NEGATIVE, POSITIVE, SENTENCE_NO
from ..values.reading import Mention
from ..values.types import Value, render_answer
from ._value_clauses import clause_negated, denial_words, negative_forms
from ._value_reply import Decision, hedged

_NEGATIVE_PHRASE = regex.compile(
    rf"(?<!\w)(?:{NEGATED_POSITIVE}|(?:{'|'.join(EXCLUSIONS)}|{'|'.join(NEGATIVE)})(?!\w))"
)
_POSITIVE_TERM = regex.compile(rf"(?<!\w)(?:{'|'.join(POSITIVE)})(?!\w)")
_SENTENCE_NO = regex.compile(SENTENCE_NO)
_SENTENCE_YES = regex.compile(r"(?:^|(?<=[.!?;:]\s?))(?:yes|हाँ|हां)(?=\s?[.,;:!]|\s?$)")  # "Yes, ..."
_NOT_BEFORE = regex.compile(r"(?<!\w)not\s$")


def _sentence_polarities(text: str) -> list[tuple[bool, int, int]]:
    """Each "Yes" and "No" that opens a sentence of the response, as (truth, start, end)."""
    found = [(False, m.start(), m.end()) for m in _SENTENCE_NO.finditer(text)]
    return found + [(True, m.start(), m.end()) for m in _SENTENCE_YES.finditer(text)]


def _polarities(text: str) -> list[tuple[bool, int, int]]:
    """Each yes or no the response says, as (truth, start, end), in order: its sentences' own "Yes"
    and "No", and its yes/no words of coverage."""
    found, taken = [], []
    for match in [*_NEGATIVE_PHRASE.finditer(text), *_SENTENCE_NO.finditer(text)]:
        # "not excluded" is a yes: the word just before decides (a few characters, not the whole text)
        before = max(0, match.start() - 5)
        flipped = match.group() in EXCLUSIONS and _NOT_BEFORE.search(text, before, match.start())
        found.append((bool(flipped), match.start(), match.end()))
        taken.append(match.span())
    for match in _POSITIVE_TERM.finditer(text):
        if not any(start <= match.start() < end for start, end in taken):
            found.append((True, match.start(), match.end()))
    return sorted(found, key=lambda item: item[1])


def decide_bool(expected: Value, text: str, terms: FieldTerms) -> Decision:
    """Yes or no: the reply's own "Yes"/"No", and the polarity of the clauses that name the question's
    predicate (its terms: "Are monthly subscriptions refundable?" is answered by "Monthly
    subscriptions are not refundable."), else of the clauses that say a yes/no word of coverage. A
    reply that opens with a bare "Yes." or "No." has answered: what follows is its context or evidence
    (the grounded metric reads it), as with an opening value."""
    said = _opening_polarity(text) or _predicate_polarities(text, terms)
    # The reply's own "Yes"/"No" always counts; the yes/no words of coverage only when no clause
    # names the question's terms ("Dental is not covered" beside the AYUSH answer is another claim).
    beside = _sentence_polarities(text) if said else _polarities(text)
    said = sorted(set([*beside, *said]), key=lambda item: item[1])
    shown = ", ".join(dict.fromkeys(repr(text[start:end]) for _, start, end in said)) or "no yes or no"
    if not said:
        return Decision(None, "the response says neither yes nor no of the question's terms: a judge decides")
    wanted = [item for item in said if item[0] == expected.value]
    if not wanted:
        return Decision(False, f"the response does not say {render_answer(expected)!r}; it says {shown}")
    if len(wanted) < len(said):
        return Decision(False, f"the response says both yes and no: {shown}")
    _, start, end = wanted[0]
    hedge = hedged(text, Mention(expected, start, end), ())
    if hedge is not None:
        return Decision(False, f"{render_answer(expected)!r} is said under {hedge}; it says {shown}")
    return Decision(True, f"the response says {render_answer(expected)!r}: {shown}", (start, end))


_OPENING_YES_NO = regex.compile(r"\W*(?:(?P<yes>yes|हाँ|हां)|(?P<no>no|नहीं))\s*(?:[.!;\u0964]|$)")


def _opening_polarity(text: str) -> list[tuple[bool, int, int]]:
    """The reply's opening "Yes." or "No." when it is a sentence of its own, else nothing."""
    found = _OPENING_YES_NO.match(text)
    if found is None:
        return []
    word = "yes" if found.group("yes") else "no"
    return [(word == "yes", found.start(word), found.end(word))]


def _predicate_polarities(text: str, terms: FieldTerms) -> list[tuple[bool, int, int]]:
    """The polarity of each clause that names the question's terms most strongly: negative when a
    negation governs the clause or a term is said in its negative form ("non-refundable")."""
    if not terms:
        return []
    spans = clause_spans(text)
    # A clause that holds only the question's context ("the Enterprise plan has ...") says nothing of
    # what is asked ("Is single sign-on included in the Enterprise plan?").
    asked = [terms.names_what_is_asked(text, *span) for span in spans]
    scores = [terms.score(text[start:end]) if has else 0 for (start, end), has in zip(spans, asked)]
    best = max(scores, default=0)
    found = []
    for (start, end), score in zip(spans, scores):
        if score == 0 or score < best:
            continue
        hits = terms.found(text, start, end)
        if not hits:
            continue
        first, last = hits[0][0], hits[-1][1]
        denied = negative_forms(text, start, end, terms) or denial_words(text, start, end)
        negative = clause_negated(text, end) or bool(denied)
        found.append((not negative, first, last))
    return found


__all__ = ["decide_bool"]
