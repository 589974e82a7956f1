"""The rows a person should look at, and why: where the agreement pair splits, where a matcher passed a
response holding a negation, contrast or hedge cue, and where a matcher and a referee disagree. Each
reason is a 0/1 flag per row, built with built-in maps; only the cue search reads texts."""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from .metric import MetricScores, Outcome, Scorer
from .records import Record
from .scorer_registry import SCORERS, default_pair

REVIEW_ROWS = 12  # rows to review listed by id; the rest are counted
CUE_SCAN_ROWS = 20_000  # passing rows searched for a cue: bounds the cost at a million rows
CUE_CHARS = 2_000  # of a response searched for a cue (as much as a trace shows)
# Why a row is to review, by kind (Review.counts' keys).
# A referee's (``Scorer.referee``) is "<its name>_disagrees". A cue, or a referee disagreeing, is listed
# before the rows where only the pair splits.
ONLY_SECOND, ONLY_FIRST, CUE, DISAGREES = "second_only", "first_only", "cue", "_disagrees"


@dataclass(frozen=True)
class ReviewRow:
    id: str
    why: str
    # 0: a cue in a passing response, or a matcher and a referee disagree (listed first: a verdict may be
    # wrong); 1: only the agreement pair splits.
    priority: int = 1


@dataclass(frozen=True)
class Review:
    """The rows a person should look at: where the agreement pair splits, where a matcher passed a
    response holding a negation, contrast or hedge cue (``text/cues.py``), and where a matcher and a
    referee (``Scorer.referee``: a second opinion) disagree. The first ``REVIEW_ROWS`` are listed in
    input order, each with why."""

    rows: tuple[ReviewRow, ...]
    total: int  # rows to review in all (a row counted once, whatever its reasons)
    counts: Mapping[str, int]  # rows by kind of reason
    cue_rows_scanned: int  # passing rows searched for a cue (the first CUE_SCAN_ROWS of the input)
    cue_rows_passing: int  # passing rows in all
    # What merging reviews of consecutive parts needs to give the whole's review (``merge_reviews``);
    # not part of the review itself, so two equal reviews compare equal however they were made.
    parts: ReviewParts | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class CueRow:
    """A passing row in which a part's scan found a cue: whether the whole's scan (the input's first
    CUE_SCAN_ROWS passing rows) reaches it is known only once the passing rows before the part are."""

    position: int  # the row's index in its part
    rank: int  # its index among the part's passing rows
    id: str
    cue: str  # why, for the cue
    other: str  # why, for the other reasons it is to review ("" for none)
    priority: int | None  # its priority by the other reasons alone (None: none)


@dataclass(frozen=True)
class ReviewParts:
    """What a review of part of an input keeps so that the reviews of consecutive parts merge into the
    whole's exactly: its cue rows, where each is among its passing rows, and its first rows of each
    priority to review for other reasons than a cue (with their places in the part)."""

    rows: int  # rows in the part
    cues: tuple[CueRow, ...]
    others: tuple[tuple[int, ReviewRow], ...]  # (position, row): the first REVIEW_ROWS of each priority
    others_total: int  # rows to review for a reason other than a cue


# A row's bucket under a pair (A, B) by the code A's outcome * 4 + B's outcome (outcomes are 0 .. 3):
# a soft pass is not a pass here, as in the accuracy. Index into the pair's bucket names.
RADIX_PAIR = 4
BUCKET_INDEX_OF_CODE = tuple(
    (0 if a == b == Outcome.PASS else 2 if a == Outcome.PASS else 3 if b == Outcome.PASS else 1)
    for a in range(RADIX_PAIR)
    for b in range(RADIX_PAIR)
)
CODES_OF_INDEX = tuple(
    frozenset(code for code, index in enumerate(BUCKET_INDEX_OF_CODE) if index == wanted)
    for wanted in range(4)
)


def pair_codes(first: MetricScores, second: MetricScores) -> bytes:
    """Each row's code under a pair (built-in maps only: no Python step per row)."""
    return bytes(map(operator.add, map(RADIX_PAIR.__mul__, first.outcomes), second.outcomes))


_PASSED = bytes.maketrans(bytes(range(4)), bytes((0, 1, 0, 0)))  # an outcome -> 1 for a (strict) pass
_NOT = bytes.maketrans(bytes((0, 1)), bytes((1, 0)))
_DECIDED = bytes.maketrans(bytes(range(4)), bytes((1, 1, 0, 0)))  # pass or fail, not unscored or soft


def rows_to_review(
    records: Sequence[Record],
    results: Mapping[str, MetricScores],
    blank: bytearray,
    pair: tuple[str, str] | None,
    scorers: Mapping[str, Scorer],
) -> Review:
    """The rows to review (see ``Review``): each reason's rows as a 0/1 flag per row, built with
    built-in maps; only the cue search looks at texts, on passing rows, at most CUE_SCAN_ROWS of them."""
    reasons: list[tuple[str, bytes, Callable[[int], str]]] = []  # kind, a 0/1 flag per row, why
    if pair is not None:
        first, second = pair
        codes = pair_codes(results[first], results[second])
        for kind, index, passes, fails in ((ONLY_SECOND, 3, second, first), (ONLY_FIRST, 2, first, second)):
            flags = codes.translate(_flag_table(CODES_OF_INDEX[index]))
            reasons.append((kind, flags, _constant(_split_why(passes, fails))))
    matchers = [name for name in SCORERS if name in scorers and scorers[name].review]  # registry order
    for referee in (name for name, scorer in scorers.items() if scorer.referee):
        reasons += _disagreements(results, referee, matchers)
    passing = bytes(len(records))
    for name in matchers:
        passing = _bitwise(operator.or_, passing, results[name].outcomes.translate(_PASSED))
    passing = _bitwise(operator.and_, passing, bytes(blank).translate(_NOT))
    cue_flags, cue_of, scanned = _cue_flags(records, passing)
    reasons.append((CUE, cue_flags, lambda row: f"a matcher passed it, with {cue_of[row]}"))
    review = _collect_review(records, reasons, scanned, passing.count(1))
    ranks = _passing_ranks(passing, cue_of)
    return replace(review, parts=_review_parts(records, reasons, ranks))


def _bitwise(operation: Callable[[int, int], int], a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    """Two equal-length byte strings of 0/1 flags combined byte by byte, as two big integers (fast)."""
    joined = operation(int.from_bytes(a, "big"), int.from_bytes(b, "big"))
    return joined.to_bytes(len(a), "big")


def _constant(text: str) -> Callable[[int], str]:
    return lambda _row: text


def _split_why(passes: str, fails: str) -> str:
    seed = default_pair()
    if seed is not None and (passes, fails) == seed[::-1]:
        return "overlap only: every golden word, not the golden phrase"
    if (passes, fails) == seed:
        return "exact only: the golden text, not all its words (inside a longer word?)"
    return f"{passes} only: {passes} passes, {fails} fails"


def _flag_table(codes: frozenset[int]) -> bytes:
    return bytes(1 if code in codes else 0 for code in range(256))


def _disagreements(
    results: Mapping[str, MetricScores], referee: str, matchers: Sequence[str]
) -> list[tuple[str, bytes, Callable[[int], str]]]:
    """The rows where a referee and each review matcher both decided, and differ."""
    decided_by_referee = results[referee].outcomes.translate(_DECIDED)
    referee_pass = results[referee].outcomes.translate(_PASSED)
    found = []
    for name in matchers:
        decided = _bitwise(operator.and_, decided_by_referee, results[name].outcomes.translate(_DECIDED))
        differ = _bitwise(operator.xor, referee_pass, results[name].outcomes.translate(_PASSED))
        flags = _bitwise(operator.and_, decided, differ)
        found.append((f"{referee}{DISAGREES}", flags, _referee_why(referee, name, referee_pass)))
    return found


def _referee_why(referee: str, matcher: str, referee_pass: bytes | bytearray) -> Callable[[int], str]:
    def why(row: int) -> str:
        verdicts = ("passes", "fails") if referee_pass[row] else ("fails", "passes")
        return f"the {referee} {verdicts[0]}, {matcher} {verdicts[1]}"

    return why


def _cue_flags(records: Sequence[Record], passing: bytes) -> tuple[bytes, dict[int, str], int]:
    """1 for each passing row whose response holds a cue, among the first CUE_SCAN_ROWS passing rows."""
    from .text.cues import cue_in, cue_words  # the unicode profile loads only for a report that asks

    rows = list(itertools.islice(itertools.compress(range(len(records)), passing), CUE_SCAN_ROWS))
    found = {}
    for row in rows:
        cue = cue_in(_start(records[row].response))
        if cue is not None:
            kinds = cue_words()  # cached; built only when a cue is found (a run without one pays nothing)
            kind = kinds[cue][1] if cue in kinds else "negation"  # n't, or a negative ending
            found[row] = f"the {kind} cue {cue!r}"
    flags = bytearray(len(records))
    for row in found:
        flags[row] = 1
    return bytes(flags), found, len(rows)


def _start(text: str) -> str:
    """The first CUE_CHARS characters of a text, cut at a space (never inside a word, which could make
    a cue of part of one): a 50 MB response is not normalised whole to look for a cue."""
    if len(text) <= CUE_CHARS:
        return text
    cut = text[:CUE_CHARS]
    return cut[: max(0, *(cut.rfind(space) for space in " \n\t"))]


def _collect_review(
    records: Sequence[Record],
    reasons: Sequence[tuple[str, bytes, Callable[[int], str]]],
    scanned: int,
    passing: int,
) -> Review:
    counts = {kind: 0 for kind, _, _ in reasons}
    union, first = bytes(len(records)), bytes(len(records))
    for kind, flags, _ in reasons:
        counts[kind] += flags.count(1)
        union = _bitwise(operator.or_, union, flags)
        if kind == CUE or kind.endswith(DISAGREES):
            first = _bitwise(operator.or_, first, flags)
    rest = _bitwise(operator.xor, union, first)
    listed = [
        *((0, row) for row in itertools.islice(itertools.compress(range(len(records)), first), REVIEW_ROWS)),
        *((1, row) for row in itertools.islice(itertools.compress(range(len(records)), rest), REVIEW_ROWS)),
    ][:REVIEW_ROWS]
    rows = []
    for priority, row in listed:
        whys = dict.fromkeys(why(row) for _, flags, why in reasons if flags[row])
        rows.append(ReviewRow(records[row].id, "; ".join(whys), priority))
    return Review(tuple(rows), union.count(1), counts, scanned, passing)


def _passing_ranks(passing: bytes, rows: Mapping[int, str]) -> dict[int, int]:
    """Each of `rows` (passing rows, among the first CUE_SCAN_ROWS) -> its index among passing rows."""
    scanned = itertools.islice(itertools.compress(itertools.count(), passing), CUE_SCAN_ROWS)
    return {row: rank for rank, row in enumerate(scanned) if row in rows}


def _review_parts(
    records: Sequence[Record],
    reasons: Sequence[tuple[str, bytes, Callable[[int], str]]],
    ranks: Mapping[int, int],
) -> ReviewParts:
    """A review's part for merging (``ReviewParts``): its cue rows, and its first rows to review for
    the other reasons, each with its priority by those alone."""
    others = [(kind, flags, why) for kind, flags, why in reasons if kind != CUE]
    union, first = bytes(len(records)), bytes(len(records))
    for kind, flags, _ in others:
        union = _bitwise(operator.or_, union, flags)
        if kind.endswith(DISAGREES):
            first = _bitwise(operator.or_, first, flags)

    def other_why(row: int) -> str:
        return "; ".join(dict.fromkeys(why(row) for _, flags, why in others if flags[row]))

    def priority(row: int) -> int | None:
        return 0 if first[row] else 1 if union[row] else None

    cue_why = next(why for kind, _, why in reasons if kind == CUE)
    cues = tuple(
        CueRow(row, rank, records[row].id, cue_why(row), other_why(row), priority(row))
        for row, rank in ranks.items()
    )
    cue_flags = bytearray(len(records))
    for row in ranks:
        cue_flags[row] = 1
    not_cue = bytes(cue_flags).translate(_NOT)
    by_priority = (  # the rows of each priority by the other reasons, cue rows apart (in `cues`)
        _bitwise(operator.and_, first, not_cue),
        _bitwise(operator.and_, _bitwise(operator.xor, union, first), not_cue),
    )
    listed = []
    for wanted, flags in enumerate(by_priority):
        chosen = itertools.islice(itertools.compress(itertools.count(), flags), REVIEW_ROWS)
        listed += [(row, ReviewRow(records[row].id, other_why(row), wanted)) for row in chosen]
    return ReviewParts(len(records), cues, tuple(listed), union.count(1))


def _merge_exact(parts: Sequence[Review], found: Sequence[ReviewParts]) -> Review:
    """The whole's review from its consecutive parts': the cue scan reaches the input's first
    CUE_SCAN_ROWS passing rows only, as in one process; the rest follows from what each part kept."""
    cues: list[CueRow] = []
    others: list[tuple[int, ReviewRow]] = []
    rows = passing = 0
    for review, part in zip(parts, found):
        cues += [replace(cue, position=cue.position + rows, rank=cue.rank + passing) for cue in part.cues]
        others += [(position + rows, row) for position, row in part.others]
        rows, passing = rows + part.rows, passing + review.cue_rows_passing
    reached = [cue for cue in cues if cue.rank < CUE_SCAN_ROWS]
    counts: Counter[str] = Counter()
    for review in parts:
        counts.update(review.counts)
    counts[CUE] = len(reached)
    candidates = [(position, row) for position, row in others]
    for cue in cues:
        if cue.rank < CUE_SCAN_ROWS:
            why = f"{cue.other}; {cue.cue}" if cue.other else cue.cue
            candidates.append((cue.position, ReviewRow(cue.id, why, 0)))
        elif cue.priority is not None:
            candidates.append((cue.position, ReviewRow(cue.id, cue.other, cue.priority)))
    listed = [
        *sorted((c for c in candidates if c[1].priority == 0), key=operator.itemgetter(0))[:REVIEW_ROWS],
        *sorted((c for c in candidates if c[1].priority == 1), key=operator.itemgetter(0))[:REVIEW_ROWS],
    ][:REVIEW_ROWS]
    # What the merged part keeps for merges to come stays bounded however many parts it merged: a cue
    # past the scan stays past it (a later merge only adds to its rank), so it is kept, as one of the
    # rows to review for another reason, only when it has such a reason and is among the first of them.
    beyond = [
        (cue.position, ReviewRow(cue.id, cue.other, cue.priority))
        for cue in cues
        if cue.rank >= CUE_SCAN_ROWS and cue.priority is not None
    ]
    pool = sorted([*others, *beyond], key=operator.itemgetter(0))
    kept = [c for c in pool if c[1].priority == 0][:REVIEW_ROWS] + [c for c in pool if c[1].priority == 1][
        :REVIEW_ROWS
    ]
    others_total = sum(part.others_total for part in found)
    return Review(
        tuple(row for _, row in listed),
        others_total + sum(1 for cue in reached if cue.priority is None),
        dict(counts),
        min(passing, CUE_SCAN_ROWS),
        passing,
        ReviewParts(rows, tuple(reached), tuple(kept), others_total),
    )


def merge_reviews(parts: Sequence[Review]) -> Review:
    found = [part.parts for part in parts if part.parts is not None]
    if len(found) == len(parts):  # each part kept what an exact merge needs
        return _merge_exact(parts, found)
    # (reviews made elsewhere, without their parts: the parts' first rows, in order)
    counts: Counter[str] = Counter()
    for part in parts:
        counts.update(part.counts)
    # Each part lists its own first rows by priority, then input order: sorted stably by priority, the
    # parts' lists begin with the whole file's.
    ordered = sorted(
        itertools.chain.from_iterable(p.rows for p in parts), key=operator.attrgetter("priority")
    )
    rows = tuple(ordered[:REVIEW_ROWS])
    return Review(
        rows,
        sum(p.total for p in parts),
        dict(counts),
        sum(p.cue_rows_scanned for p in parts),
        sum(p.cue_rows_passing for p in parts),
    )
