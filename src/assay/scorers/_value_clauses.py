"""Which of a reply's values answer the asked field, and what negates a clause: the clause reading
behind value_match (its module docstring says the rules in full).

A reply is a set of claims. The values that answer the field are those said in the clauses that name the
field most strongly (``text.clauses.FieldTerms``), each term of a clause counted for the value it follows
(or the next, when a comma or a conjunction opens the next value's words), so "covered for 60 days
before admission and 180 days after discharge" gives "60 days" to a question about the days before
admission and "180 days" to one about the days after discharge. Values in other clauses are other
claims (the grounded metric checks them against the documents), neither rivals nor answers. A reply
that opens with a bare answer ("30 days. ...") has answered, and what follows is its evidence; one that
names none of the field's terms near a value ("It is 30 days.") is read whole.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import regex

from ..text.clauses import FUNCTION_WORDS, UNIT_WORDS, FieldTerms, clause_of, key
from ..values.reading import HIGH, LOW, Mention
from ._value_reply import SENTENCE_REACH, _cue_sets

# Values joined as alternatives: "30 or 60 days", "30/60 days" (a range the reader marks itself). "and"
# alone joins two claims ("30 days before and 60 days after").
_ALTERNATIVE = regex.compile(r"\s?(?:or|/)\s?")
# A conditional or relative clause before a negation: its negation is of the condition, not the claim
# ("If you don't renew within 30 days, ...", "claims that are not intimated within 30 days").
_SUBORDINATE = frozenset(("if", "unless", "when", "whenever", "who", "which", "where", "whose", "once",
                          "until"))  # fmt: skip
# Words after a negation that make a bound of it: "not more than 30 days" states 30 days as a limit.
_BOUND_AFTER = frozenset(("more", "less", "later", "earlier", "beyond", "exceed", "exceeding", "exceeds",
                          "over", "above", "below", "fewer", "than", "only", "just"))  # fmt: skip


def relevance(text: str, found: Sequence[Mention], terms: FieldTerms) -> list[int]:
    """For each mention, the weight of the field's terms its clause says of it. A term before the
    clause's first value is the clause's subject, said of every value in it; a term after a value
    belongs to that value ("99.9% monthly uptime", "60 days before admission") unless a comma or a
    conjunction comes between them, which opens the next value's words ("the free-look period is 30
    days and the grace period 15 days"); a term after the last value belongs to it."""
    scores = [0] * len(found)
    if not terms or not found:
        return scores
    by_clause: dict[tuple[int, int], list[int]] = {}
    for index, mention in enumerate(found):
        by_clause.setdefault(clause_of(text, mention.start), []).append(index)
    for clause, indices in by_clause.items():
        members = sorted(indices, key=lambda i: found[i].start)
        mentions = [found[i] for i in members]
        ends = [mention.end for mention in mentions]
        for start, _, weight in terms.found(text, *clause):
            for index in _owners(text, mentions, ends, start):
                scores[members[index]] += weight
    return scores


# What opens the words of the next value: a comma, a semicolon, a conjunction or "with".
_OPENS_NEXT = regex.compile(r",|;|(?<!\w)(?:and|or|but|while|whereas|with|whilst)(?!\w)")


def _owners(text: str, members: Sequence[Mention], ends: Sequence[int], at: int) -> list[int]:
    """The indices (in `members`, in text order, ending at `ends`) of the values a term at `at` is
    said of."""
    previous = bisect.bisect_right(ends, at) - 1
    if previous < 0:
        return list(range(len(members)))  # the clause's subject
    if previous + 1 >= len(members) or members[previous + 1].start < at:
        return [previous]
    opened = _OPENS_NEXT.search(text, members[previous].end, at) is not None
    return [previous + 1] if opened else [previous]


OPENING, BY_TERMS, WHOLE = "opening", "by terms", "whole"  # how the answering values were found


def answering(text: str, found: Sequence[Mention], terms: FieldTerms) -> tuple[list[Mention], str]:
    """The mentions that answer the field, and how they were found: the reply's ``OPENING`` answer
    ("30 days. ..."), the clauses that name the field ``BY_TERMS``, or the ``WHOLE`` reply (it names
    none of the field's terms near a value, and every mention is read)."""
    opening = _bare_answer(text, found)
    if opening:
        return opening, OPENING
    scores = relevance(text, found, terms)
    best = max(scores, default=0)
    if best == 0:
        return list(found), WHOLE
    return [m for m, score in zip(found, scores) if score == best], BY_TERMS


BARE_ANSWER_CHARS = 120  # a bare answer is short: a longer opening clause says more than its value
# Words a bare answer may have besides its value: "It is 30 days.", "Answer: 30 days", "30 days only."
_ANSWER_WORDS = frozenset(("answer", "only", "just", "exactly", "total", "yes", "no"))


def _bare_answer(text: str, found: Sequence[Mention]) -> list[Mention]:
    """The values of the reply's first clause when it is nothing but an answer ("30 days. The grace
    period of 30 days (15 days for monthly premiums) ..."): the reply's answer, the text after it
    context or evidence, as a reader takes a reply that answers first and quotes after."""
    if not found:
        return []
    start, end = clause_of(text, found[0].start)
    if end - start > BARE_ANSWER_CHARS:
        return []
    if text[:start].strip(" \t\n*#>-:"):  # words before the first clause: it is not the opening
        return []
    own = [m for m in found if start <= m.start < end]
    rest = text[start:end]
    for mention in reversed(own):
        rest = rest[: mention.start - start] + " " + rest[mention.end - start :]
    words = (w.casefold() for w in regex.findall(r"\p{L}+", rest))
    return own if all(w in FUNCTION_WORDS or w in UNIT_WORDS or w in _ANSWER_WORDS for w in words) else []


def alternatives(text: str, one: Mention, other: Mention) -> bool:
    """Whether two values are offered as alternatives ("30 or 60 days", "30/60 days") or as the two
    ends of a range, as the reader marks them (``Mention.range_end``: "30-60 days", "between 30 and 60
    days")."""
    earlier, later = sorted((one, other), key=lambda m: m.start)
    if earlier.end > later.start:
        return False
    if earlier.range_end == LOW and later.range_end == HIGH:
        return True
    return _ALTERNATIVE.fullmatch(text, earlier.end, later.start) is not None


_TOKENS = regex.compile(r"\w+(?:'\w+)?|,")
# Words that end what a negation after a value can be said of: another claim begins there ("36 months,
# and is not covered before that").
_CLAIM_ENDS = frozenset(("and", "but", "or", "while", "whereas", "although", "except", "unless", "if",
                         "when"))  # fmt: skip
AFTER_REACH = 80  # characters after a value in which its clause's verb is looked for


def _is_negation(token: str, negations: frozenset[str]) -> bool:
    return token.endswith("n't") or token.replace("'", "") in negations


def clause_negated(text: str, start: int) -> bool:
    """A negation in the clause before `start` that is not a condition's, a bound's, "No, ..." nor the
    "No Claim" of a benefit's name (see ``_value_reply.negated`` for the nearer rule)."""
    negations, _, _, _ = _cue_sets()
    # a clause a megabyte long is not read whole for each of its values
    first = max(clause_of(text, start)[0], start - SENTENCE_REACH)
    tokens = _TOKENS.findall(text[first:start])
    for at, token in enumerate(tokens):
        if not _is_negation(token, negations):
            continue
        before, after = tokens[:at], tokens[at + 1 :]
        if _SUBORDINATE & set(before) or after[:1] == [","] or after[:1] == ["claim"]:
            continue
        if after[:1] and after[0][0].isdigit():
            continue  # "not 15 days but 30 days": it negates the value it comes before
        if _BOUND_AFTER & set(after[:3]) or (token == "not" and after[:1] == ["only"]):
            continue
        return True
    return False


def negated_after(text: str, end: int) -> bool:
    """A negation of the clause's verb after the value, before a comma, a conjunction or another
    number: "A co-payment of 20% does not apply" (not "30 days, not 60", which corrects another value,
    nor "not more than", a bound)."""
    negations, _, _, _ = _cue_sets()
    last = min(clause_of(text, end)[1], end + AFTER_REACH)
    tokens = _TOKENS.findall(text[end:last])
    for at, token in enumerate(tokens):
        if token == "," or token in _CLAIM_ENDS or token[0].isdigit():
            return False
        if _is_negation(token, negations):
            after = tokens[at + 1 : at + 4]
            return not (_BOUND_AFTER & set(after)) and not any(word[0].isdigit() for word in after)
    return False


# Verbs that deny what a yes/no question asks, in any domain ("excluded", "prohibited", "not
# eligible" is a negation): English's verbs of exclusion and prohibition, by their first letters (any
# inflection), and the short ones whole.
DENIAL_STEMS = ("exclu", "prohi", "forbi", "disal", "precl", "disqu")
DENIAL_WORDS = frozenset(("ban", "bans", "banned", "bar", "bars", "barred", "deny", "denies", "denied"))


def denial_words(text: str, start: int, end: int) -> list[str]:
    """The words of text[start:end] that deny: "excluded", "prohibited", "barred"."""
    words = (word.group() for word in regex.finditer(r"\w+", text[start:end]))
    return [w for w in words if w in DENIAL_WORDS or (len(w) > 5 and w.startswith(DENIAL_STEMS))]


_PREFIXED = regex.compile(r"(?<!\w)(?:non|un|in|im|dis)[\-\u2010\u2011]?(\w{4,})")


def negative_forms(text: str, start: int, end: int, terms: FieldTerms) -> list[str]:
    """The words of text[start:end] that are one of the field's terms with a negative prefix
    ("non-refundable", "unavailable", "ineligible", "unlimited"): read from the word, so that no list
    of antonyms is needed. A word that is itself a term ("included") is not one."""
    found = []
    for match in _PREFIXED.finditer(text, start, end):
        whole = match.group()
        if terms.weight(key(match.group(1))) and not terms.weight(key(whole)):
            found.append(whole)
    return found


__all__ = [
    "BY_TERMS",
    "OPENING",
    "WHOLE",
    "alternatives",
    "answering",
    "clause_negated",
    "denial_words",
    "negated_after",
    "negative_forms",
    "relevance",
]
