"""``refusal``: the reply declined exactly when the item says it should (``gold.expected_refusal``).

A reply **declined** when the system's own guard blocked it (``reply.blocked``), or when its text says
it declines in any language of the refusal lexicon (``text.refusals``: a negated verb of saying, showing
or finding whose subject is the source or the speaker -- "the brochure doesn't name ...", "it isn't
stated in the CIS", "I couldn't find ...", "there is no information on ...", "दस्तावेज़ में इसकी जानकारी
नहीं है"), never for a negated predicate about the world ("pre-existing diseases are not covered for 36
months", "monthly subscriptions are not refundable", "the policy does not cover dental" answer).

``declined`` means a decline of the asked thing with no answer to it given. So a reply that declines
and also answers did not decline: one that states a value (a number with its unit: ``30 days``, ``₹5
lakh``, ``20%``) before its first refusal phrase answered and then added a caveat ("30 days. Note that
the document does not mention the renewal bonus"); so did one that opens with a "yes" (in any language
of the lexicon) and declines only after its first sentence ("Yes, AYUSH is covered. The document does
not mention a sub-limit"); and so did one that, after its decline, guesses a value anyway -- a later
clause that states a value and hedges or speaks of what was asked ("I couldn't find it in the brochure,
but it is usually 30 days", "... typically around 50 hospitals"), or concludes from the silence ("the
brochure does not mention dental, so it is not covered"). A "no" decides nothing: "No, I
cannot find that" declines, and "No, the answer is not provided." is a decline, not a "No". Other
figures after a decline are other facts, not an answer to it ("The brochure doesn't give a UIN, but
the policy number is ..."): the reply still declined. The extra column ``declined`` (0/1) says which
rows declined, whatever the verdict: the run's outcomes read it ("refused when answerable"), and
``declines_only`` tells them whether a declining reply says anything besides its decline.

The verdict is PASS when declined equals expected_refusal, FAIL otherwise. A row whose item does not
say whether it should be refused is unscored; so is a row whose system failed (the core's rule).

Blank replies are this metric's to decide (``Scorer.decides_blank``), not failed by the core: a blank
reply the guard blocked declined (PASS on a refusal item, FAIL on an answerable one). A blank reply
that was not blocked neither answers nor declines, and FAILs either way (the seed's caveat 4: blank is
incorrect), with ``declined`` 0. So refusal recall counts a silent reply to an item that should be
refused as a miss, and refusal precision (over the replies that declined) is not flattered by it;
``refusal_rates`` gives both, with their Wilson intervals.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import regex

from .. import stats
from ..errors import InputError
from ..text import cues, refusals, unicode
from ..text.clauses import key
from ..text.refusal_notation import Refusal
from ._base import PASS, UNSCORED, MetricScores, Scorer, Seen, Span

if TYPE_CHECKING:
    from ..records import Record

NAME = "refusal"
EXPECTED = "gold.expected_refusal"  # required: a file without it does not run the metric by default
BLOCKED = "reply.blocked?"
NO_EXPECTATION = "the item does not say whether it should be refused (no expected_refusal)"
_FLAGS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}
# "yes" in the lexicon's languages (unicode profile), and the end of a reply's first sentence
_YES = frozenset(map(unicode.normalise, ("yes", "yeah", "हाँ", "हां", "होय", "হ্যাঁ", "ஆம்", "అవును", "ಹೌದು",
                                         "അതെ", "હા", "oui", "sí", "ja", "sim", "sì")))  # fmt: skip
# (not "si": Spanish for "if"); and "no" in them, an answer when it stands apart from a decline
_NO = frozenset(map(unicode.normalise, ("no", "nope", "नहीं", "नाही", "না", "இல்லை", "లేదు", "ಇಲ್ಲ", "ഇല്ല", "ના",
                                        "non", "nein", "não")))  # fmt: skip
_SENTENCE_END = regex.compile(r"[.!?;।॥]+(?:\s|$)|\n")


def expected_refusal(value: Any, where: str) -> bool | None:
    """An item's expected_refusal as a boolean (a flat CSV cell's "true"/"false", "yes"/"no", 1/0
    too); None when it has none; an InputError naming `where` when it is something else."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        if not value.strip():
            return None
        if value.strip().lower() in _FLAGS:
            return _FLAGS[value.strip().lower()]
    raise InputError(
        f"expected_refusal must be true or false, found {value!r}",
        where=where,
        fix="write true, false, or leave it empty when the item does not say",
    )


def declined(response: str, blocked: Any) -> bool:
    """Whether a reply declined: its guard blocked it, or its text declines (``reading``)."""
    return blocked is True or reading(response)[0] is not None


def reading(response: str) -> tuple[Refusal | None, str | None]:
    """The refusal phrase by which the reply declines (None when it does not), and what it answered
    with, when it did: a value or an opening "yes" before its first phrase (then the phrase is a caveat),
    or a guess after it (``guessed_after``); None of the phrase then."""
    found = refusals.find_refusal(response)
    if found is None or found.span is None:  # (no span: the texts could not be aligned; it declines)
        return found, None
    from .grounding.text import stated_numbers  # the value reader: loaded when a phrase is found

    before = response[: found.span[0]]
    stated = stated_numbers(before)
    if stated:
        return None, stated[0].shown()
    words = unicode.normalise(before).split()
    if words and words[0] in _YES and _SENTENCE_END.search(before):
        return None, f"opens with {words[0]!r}"
    guessed = guessed_after(response[found.span[1] :])
    if guessed is not None:
        return None, guessed
    return found, None


# Words that make a figure a guess: the cue lexicon's hedges in every language, and words of "as a
# rule" ("usually 30 days", "typically around 50", "आमतौर पर", "généralement", "normalerweise").
_GUESSING = frozenset(
    unicode.normalise(word)
    for word in (
        *(word for kinds in cues.CUES.values() for word in kinds[cues.HEDGE]),
        "usually", "typically", "generally", "normally", "commonly", "often", "approximately",
        "roughly", "around", "estimated", "standard", "आमतौर", "सामान्यतः", "लगभग", "généralement",
        "habituellement", "environ", "generalmente", "normalmente", "aproximadamente", "normalerweise",
        "üblicherweise", "ungefähr", "etwa", "geralmente", "solitamente", "circa",
    )
)  # fmt: skip
# "... but it is 30 days": a clause that speaks of the asked thing by a pronoun and gives its value
_REFERS_BACK = regex.compile(r"^(?:it|this|that)\s+(?:is|s|would be|should be|may be|could be|will be)\b")


# Words that draw a conclusion ("..., so dental is not covered"): what follows them, unless it declines
# too ("so I cannot say"), answers from the documents' silence.
_CONCLUDING = (
    "so", "therefore", "hence", "thus", "consequently", "इसलिए", "अतः", "म्हणून", "তাই", "அதனால்",
    "అందువల్ల", "ಆದ್ದರಿಂದ", "അതിനാൽ", "તેથી", "donc", "por lo tanto", "por tanto", "daher", "deshalb",
    "portanto", "quindi", "pertanto",
)  # fmt: skip


def guessed_after(after: str) -> str | None:
    """What a reply answers after its decline: a clause stating a value that hedges or refers back to
    what was asked ("guesses 30 days"), or a conclusion drawn from the silence that does not itself
    decline ("concludes 'so it is not covered'"); None when it answers nothing."""
    from .grounding.text import stated_numbers

    for clause in clauses(after):
        seen = unicode.normalise(clause)
        if _concludes(seen) and refusals.find_refusal(clause) is None:
            return f"concludes {' '.join(clause.split())!r}"
        stated = stated_numbers(clause)
        if stated and (_GUESSING.intersection(seen.split()) or _REFERS_BACK.match(_without_contrast(seen))):
            return f"guesses {stated[0].shown()}"
    return None


def _concludes(seen: str) -> bool:
    """Whether normalised text opens with a concluding word and says something after it."""
    return any(seen.startswith(word + " ") and len(seen) > len(word) + 1 for word in _concluding_words())


# Where a reply's claims part: sentence ends (``_SENTENCE_END``), and the contrast and concluding words
# ("but", "however", "लेकिन", "so", "therefore", ...), each as a whole word.
def clauses(text: str) -> list[str]:
    """`text` cut at sentence ends and before each contrast or concluding word (as written; empty pieces
    dropped)."""
    pieces = []
    for sentence in _SENTENCE_END.split(text):
        pieces.extend(_turn_split().split(sentence))
    return [piece for piece in pieces if piece.strip()]


@functools.cache
def _concluding_words() -> tuple[str, ...]:
    return tuple(unicode.normalise(word) for word in _CONCLUDING)


def _without_contrast(seen: str) -> str:
    """Normalised text less a contrast word it opens with ("but it is ..." -> "it is ...")."""
    words = seen.split()
    return " ".join(words[1:]) if words and words[0] in _contrast_words() else seen


@functools.cache
def _contrast_words() -> frozenset[str]:
    return frozenset(word for word, (_, kind) in cues.cue_words().items() if kind == cues.CONTRAST)


@functools.cache
def _turn_split() -> regex.Pattern[str]:
    """Where a contrast word of the cue lexicon, or a concluding word, begins, as a whole word (a place to
    cut, not a piece)."""
    words = {word for kinds in cues.CUES.values() for word in kinds[cues.CONTRAST]} | set(_CONCLUDING)
    alternatives = "|".join(regex.escape(word) for word in sorted(words, key=len, reverse=True))
    return regex.compile(rf"(?<!\w)(?=(?:{alternatives})(?!\w))", regex.IGNORECASE | regex.VERSION1)


_DIGIT = regex.compile(r"\d")
_CONTENT_WORD = 4  # letters a question's word needs to count as its content ("grace", "dental", "UIN"s aside)
def declines_only(response: str, question: str = "") -> bool:
    """Whether a reply that declines says nothing but its decline: each of its clauses either declines
    (``text.refusals``) or holds no figure, opens with no yes or no, shares no content word with the
    question, and draws no conclusion ("so ..."). "No, the answer is not provided." and "पॉलिसी
    दस्तावेज़ में इसकी जानकारी नहीं है" do; "I couldn't find it. However, the grace period is 30 days" and
    "No. The document does not say." do not (a figure, an opening "No": an answer besides the decline,
    which a reader must weigh)."""
    if refusals.find_refusal(response) is None:
        return False
    # words compared by text.clauses' crude stem, as a field's terms are: "covered" shares "cover"
    asked = {key(word) for word in unicode.normalise(question).split() if len(word) >= _CONTENT_WORD}
    for clause in clauses(response):
        if refusals.find_refusal(clause) is not None:
            continue
        seen = unicode.normalise(clause)
        words = seen.split()
        stems = {key(word) for word in words}
        if _DIGIT.search(clause) or (words and words[0] in _YES | _NO) or asked.intersection(stems):
            return False
        if _concludes(seen):
            return False
    return True


def _refusal(
    responses: Sequence[str],
    answer_sets: Sequence[tuple[str, ...]],
    expected: Sequence[Any],
    blocked: Sequence[Any],
    ids: Sequence[str],
    questions: Sequence[Any],
) -> MetricScores:
    scores = MetricScores.all_failing(NAME, len(responses), EXTRA_COLUMNS)
    column, only = scores.extras[DECLINED], scores.extras[DECLINES_ONLY]
    for row, (response, should, guard, record_id) in enumerate(zip(responses, expected, blocked, ids)):
        did = declined(response, guard)
        column[row] = int(did)
        only[row] = int(did and declines_only(response, str(questions[row] or "")))
        wanted = expected_refusal(should, f"row id {record_id}")
        if wanted is None:
            scores.outcomes[row] = UNSCORED
            scores.reasons[row] = NO_EXPECTATION
        elif (response or guard is True) and did == wanted:  # (a blank, unblocked reply: FAIL)
            scores.outcomes[row] = PASS
    return scores


def _explain(seen: Seen) -> tuple[str, Span | None]:
    should = expected_refusal(seen.inputs.get(EXPECTED), f"row id {seen.inputs.get('id')}")
    item = "the item should be refused" if should else "the item should be answered"
    if seen.inputs.get(BLOCKED) is True:
        return f"declined: the system's guard blocked the reply (reply.blocked); {item}", None
    if not seen.response:
        return f"the reply has no words and was not blocked: it neither answers nor declines; {item}", None
    found, answered = reading(seen.response)
    if answered is not None:
        said = answered if answered.startswith("opens with") else f"states {answered}"
        return f"answered: it {said} before any refusal phrase (a caveat); {item}", None
    if found is None:
        return f"answered: no refusal phrase of the lexicon in the reply, nor was it blocked; {item}", None
    phrase = f"the {found.lang} refusal phrase {found.phrase!r}"
    return f"declined: the reply says {found.matched!r} ({phrase}); {item}", found.span


# Per row: the reply declined; and it says nothing besides its decline (``declines_only``), which the
# outcome rule reads to tell a plain refusal from a decline with an answer beside it.
DECLINED, DECLINES_ONLY = "declined", "declines_only"
EXTRA_COLUMNS = (DECLINED, DECLINES_ONLY)


REFUSAL = Scorer(
    name=NAME,
    description="the reply declined (its guard blocked it, or it says it cannot answer, in any language "
    "of the refusal lexicon) exactly when the item should be refused (expected_refusal)",
    view=str,  # as written: the phrase is found under the unicode profile, a value before it as written
    score_rows=_refusal,
    extra_columns=EXTRA_COLUMNS,
    version=4,  # 2: a value stated before the first refusal phrase is a caveat; 3: an opening "yes" too;
    # 4: the roles of the lexicon (refusals:4), and a guess after the decline answers
    signature_parts=(unicode.SIGNATURE, refusals.SIGNATURE),
    inputs=(EXPECTED, BLOCKED, "id", "question"),
    explain=_explain,
    decides_blank=True,
)


# --- refusal precision and recall ---------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """hits of n, with its Wilson 95% interval (None of both when n is 0)."""

    hits: int
    n: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    @property
    def interval(self) -> stats.Interval | None:
        return stats.wilson(self.hits, self.n)


@dataclass(frozen=True)
class RefusalCounts:
    """The scored rows by (should be refused, declined); unscored rows (no expected_refusal, the
    system failed) are counted apart and in neither rate."""

    declined_refusal: int  # should be refused, declined: a true positive
    declined_answerable: int  # should be answered, declined: refused when answerable
    answered_refusal: int  # should be refused, did not decline (a blank reply included)
    answered_answerable: int
    unscored: int

    @property
    def declined(self) -> int:
        return self.declined_refusal + self.declined_answerable

    @property
    def should_refuse(self) -> int:
        return self.declined_refusal + self.answered_refusal


def refusal_rates(records: Sequence[Record], scores: MetricScores) -> tuple[Rate, Rate, RefusalCounts]:
    """Refusal precision (of the replies that declined, the share that should have) and recall (of the
    items that should be refused, the share declined), each with its Wilson interval, and the counts;
    over the rows the ``refusal`` metric scored (`scores`, its verdicts for `records`)."""
    from ..scoring import ScoreOptions, row_inputs  # scoring imports the scorers: late

    expected = row_inputs(records, EXPECTED, ScoreOptions())
    cells = [0, 0, 0, 0]  # (should, declined) -> cells[2 * (not should) + (not declined)]
    unscored = 0
    for row, (record, value) in enumerate(zip(records, expected, strict=True)):
        should = expected_refusal(value, f"row id {record.id}")
        if should is None or scores.outcomes[row] == UNSCORED:
            unscored += 1
            continue
        cells[2 * (not should) + (not scores.extras["declined"][row])] += 1
    counts = RefusalCounts(cells[0], cells[2], cells[1], cells[3], unscored)
    precision = Rate(counts.declined_refusal, counts.declined)
    return precision, Rate(counts.declined_refusal, counts.should_refuse), counts


__all__ = [
    "REFUSAL",
    "Rate",
    "RefusalCounts",
    "clauses",
    "declined",
    "declines_only",
    "expected_refusal",
    "guessed_after",
    "reading",
    "refusal_rates",
]
