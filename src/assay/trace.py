"""A trace for every verdict: what the metric saw, the rule that decided, and where it matched.

A trace is built from a run's stored verdict (outcome, deciding answer, score), so it can never
disagree with it; it adds the golden answer and the response as the metric saw them (after its
normalisation), the rule in words, and the matched span as character offsets [start, end) into the
original response, for the metrics whose pass is a place in the response (exact_substring,
phrase_match, token_em, hard_fact). Metrics that count tokens (word_overlap, the F1 scores) have no
span; their rule says what they counted.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from .errors import InputError
from .records import Dataset, Record
from .scorers import SCORERS, MetricScores, Outcome, get_scorer
from .scorers.hard_fact import pattern_of, search, timed_out_reason
from .scoring import ScoreOptions, ScoreRun, score
from .text import align, unicode
from .text.inflection import rule_of, soft_key
from .text.search import joined_tokens, token_counts
from .text.seed import lowercase, seed_words
from .text.squad import MLQA_LANGUAGES, mlqa_tokens, squad_tokens

OUTCOME_NAMES = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.UNSCORED: "unscored",
    Outcome.SOFT_PASS: "soft_pass",
}
BLANK = "the response is blank: incorrect, whatever the golden answer (the seed's caveat 4)"
EMPTY_GOLDEN = "the golden answer is empty, which the seed protocols score correct (the seed's caveat 1)"
_WORD = regex.compile(unicode.WORD_PATTERN)  # the unicode profile's word (text.unicode.words)
_LAST_WORD = regex.compile(f"(?r){unicode.WORD_PATTERN}")  # searched from the end
TEXT_SHOWN = 2000  # characters of each text a written trace shows
CUT_MARK = " [... {:,} characters in all]"
JUDGE_TEXTS = ("judge_by", "judge_rationale", "judge_raw")  # the judge metric's text columns


@dataclass(frozen=True)
class Trace:
    metric: str
    outcome: str  # pass, fail, unscored or soft_pass
    rule: str  # what decided, in words
    golden: str | None  # the deciding golden answer (else the first) as the metric saw it
    response: str  # the response as the metric saw it (its first TEXT_SHOWN characters, when longer)
    span: tuple[int, int] | None = None  # [start, end) of the match in the original response
    score: float | None = None  # a graded metric's row score

    def as_dict(self) -> dict[str, Any]:
        """The trace as written to files: a long text as the metric saw it is cut to its first
        TEXT_SHOWN characters (the response itself is in its own column), so that a 50 MB cell does
        not become ten copies of it, one per metric."""
        found: dict[str, Any] = {"outcome": self.outcome, "rule": self.rule}
        found |= {"golden": _shown(self.golden), "response": _shown(self.response)}
        found["span"] = list(self.span) if self.span else None
        return found | ({} if self.score is None else {"score": self.score})


def _shown(text: str | None) -> str | None:
    if text is None or len(text) <= TEXT_SHOWN:
        return text
    return f"{text[:TEXT_SHOWN]}{CUT_MARK.format(len(text))}"


@dataclass(frozen=True)
class _Verdict:
    """One row's verdict under one metric, and the texts as the metric saw them."""

    metric: str
    record: Record
    outcome: Outcome
    answer_index: int  # the deciding golden answer; -1: none
    score: float | None
    response: str  # seen
    goldens: list[str]  # seen: the deciding golden answer (else the first), or none
    options: ScoreOptions

    @property
    def golden(self) -> str | None:
        return self.goldens[0] if self.goldens else None

    def span(self, view: Callable[[str], str], start: int, end: int) -> tuple[int, int] | None:
        """The original response's offsets of the seen response's [start, end)."""
        if end <= start:
            return None
        piece, collapse, by_code_point = _PIECES[view]
        if self.options.nfc:  # NFC composes across code points: align by cluster
            return align.locate(
                self.record.response, lambda t: piece(_nfc(t)), self.response, start, end, collapse=collapse
            )
        return align.locate(
            self.record.response,
            piece,
            self.response,
            start,
            end,
            collapse=collapse,
            by_code_point=by_code_point,
        )


def traces(run: ScoreRun, index: int) -> dict[str, Trace]:
    """Every metric's trace of row `index` of a run."""
    return {name: trace(run, name, index) for name in run.metrics}


def trace(run: ScoreRun, metric: str, index: int) -> Trace:
    scores: MetricScores = run.metrics[metric]
    if metric not in SCORERS:  # the judge: its own words are the rule
        return _judge_trace(run, metric, scores, index)
    verdict = _verdict(run, metric, scores, index)
    if run.blank[index]:
        rule, span = BLANK, None
    elif verdict.outcome is Outcome.UNSCORED:
        rule, span = scores.reasons.get(index, "unscored"), None
    else:
        rule, span = _DESCRIBE[metric](verdict)
    # A trace keeps the texts as shown (cut past TEXT_SHOWN): a row's traces are held together, and ten
    # copies of a 50 MB response as ten metrics saw it would cost a gigabyte.
    return Trace(
        metric,
        OUTCOME_NAMES[verdict.outcome],
        rule,
        _shown(verdict.golden),
        str(_shown(verdict.response)),
        span,
        verdict.score,
    )


def _judge_trace(run: ScoreRun, metric: str, scores: MetricScores, index: int) -> Trace:
    outcome = scores.outcome(index)
    by, rationale, raw = (scores.texts.get(column, [None] * len(scores))[index] for column in JUDGE_TEXTS)
    if outcome is Outcome.UNSCORED:
        rule = scores.reasons.get(index, "unscored") + (f"; its reply: {raw!r}" if raw else "")
    else:
        verdict = "CORRECT" if outcome is Outcome.PASS else "INCORRECT"
        rule = f"{by}: {verdict}" + (f" ({rationale})" if rationale else "")
    record = run.records[index]
    return Trace(
        metric, OUTCOME_NAMES[outcome], rule, _shown(" | ".join(record.answers)), str(_shown(record.response))
    )


def _verdict(run: ScoreRun, metric: str, scores: MetricScores, index: int) -> _Verdict:
    record, options = run.records[index], run.options
    seen = _seen(metric, record, options)
    value = scores.values[index] if scores.values is not None else None
    # Only the deciding golden answer (else the first) is shown: a row may have thousands.
    deciding = record.answers[max(scores.answer_index[index], 0) : max(scores.answer_index[index], 0) + 1]
    response = _seen_response(_how_seen(metric, record, options), seen, record.response)
    goldens = [seen(answer) for answer in deciding]
    outcome, answer_index = scores.outcome(index), scores.answer_index[index]
    return _Verdict(metric, record, outcome, answer_index, value, response, goldens, options)


_LAST_SEEN: dict[tuple[object, int], tuple[str, str]] = {}  # (how, id(original)) -> (original, seen)


def _seen_response(how: object, seen: Callable[[str], str], response: str) -> str:
    """`seen(response)`, reusing the last one when metrics that see alike follow each other (a row's
    traces: both seed protocols, the three unicode metrics): a long response is viewed once, and
    only one view is kept."""
    last = _LAST_SEEN.get((how, id(response)))
    if last is not None and last[0] is response:
        return last[1]
    _LAST_SEEN.clear()
    _LAST_SEEN[how, id(response)] = (response, seen(response))
    return _LAST_SEEN[how, id(response)][1]


def _how_seen(metric: str, record: Record, options: ScoreOptions) -> object:
    """What decides how `metric` sees a text (equal for metrics that see alike)."""
    if metric.startswith(("squad", "mlqa")):
        return metric[:4], (record.lang or "").strip().lower() if metric.startswith("mlqa") else ""
    return get_scorer(metric).view, options.nfc


def _seen(metric: str, record: Record, options: ScoreOptions) -> Callable[[str], str]:
    """How `metric` sees a text: the official scripts' tokens joined by spaces, else its view."""
    if metric.startswith("squad"):
        return lambda text: joined_tokens(text, squad_tokens)
    if metric.startswith("mlqa"):
        lang = (record.lang or "").strip().lower()
        if lang not in MLQA_LANGUAGES:  # unscored, with the scorer's reason: the text as it came
            return str
        return lambda text: joined_tokens(text, lambda chunk: mlqa_tokens(chunk, lang))
    view = get_scorer(metric).view
    return (lambda text: view(_nfc(text))) if options.nfc else view


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# How each view is aligned: the view of one piece, whether whitespace is then collapsed, and whether a
# piece is a code point (the view maps them one by one) rather than a grapheme cluster.
# Pieces (clusters) repeat endlessly across rows: each is normalised once.
_PIECES: dict[Callable[[str], str], tuple[Callable[[str], str], bool, bool]] = {
    lowercase: (str.lower, False, True),
    unicode.normalise: (functools.lru_cache(1 << 16)(unicode.normalise_keeping_spaces), True, False),
    unicode.fold: (functools.lru_cache(1 << 16)(unicode.fold_keeping_spaces), True, False),
}


Description = tuple[str, tuple[int, int] | None]  # the rule, and the span


def _exact(verdict: _Verdict) -> Description:
    golden = verdict.golden or ""
    if verdict.outcome is not Outcome.PASS:
        return "no golden answer, lowercased, occurs in the lowercased response", None
    if not golden:
        return EMPTY_GOLDEN, None
    at = verdict.response.find(golden)
    rule = "the golden answer, lowercased, occurs in the lowercased response (inside a word counts too)"
    return rule, verdict.span(lowercase, at, at + len(golden))


def _overlap(verdict: _Verdict) -> Description:
    words = sorted(seed_words(verdict.golden or ""))
    if not words:
        return EMPTY_GOLDEN, None
    response_words = seed_words(verdict.response)  # once: a golden answer may have thousands of words
    missing = [word for word in words if word not in response_words]
    found = len(words) - len(missing)
    counted = f"{found} of {len(words)} golden words occur among the response's words"
    if not missing:
        return f"{counted} (order and words in between are free)", None
    return f"{counted}; missing: {', '.join(missing)}", None


def _phrase(verdict: _Verdict) -> Description:
    golden_words = unicode.words(verdict.golden or "")
    if verdict.outcome is Outcome.FAIL:
        present = set(map(_group, _WORD.finditer(verdict.response)))  # no list of a long text's words
        absent = [word for word in golden_words if word not in present]
        why = f"absent: {', '.join(absent)}" if absent else "each occurs, but not together in this order"
        return f"the golden words do not occur as a contiguous run of whole words ({why})", None
    soft = verdict.outcome is Outcome.SOFT_PASS
    key: Callable[[str], str] = soft_key if soft else str
    at = _run_at(
        unicode.spaced_words(verdict.response)
        if not soft
        else _spaced(map(soft_key, map(_group, _WORD.finditer(verdict.response)))),
        _spaced(map(key, golden_words)),
    )
    located = (
        []
        if at is None
        else list(itertools.islice(_WORD.finditer(verdict.response), at, at + len(golden_words)))
    )
    span = None
    if located:
        span = verdict.span(unicode.normalise, located[0].start(), located[-1].end())
    if not soft:
        return "the golden words occur in the response as a contiguous run of whole words", span
    matched = list(map(_group, located))
    tolerated = "; ".join(rule_of(g, r) for g, r in zip(golden_words, matched) if g != r)
    return f"a soft pass: the golden words occur only with inflections tolerated ({tolerated})", span


def _group(match: regex.Match[str]) -> str:
    return str(match.group())


def _spaced(words: Iterable[str]) -> str:
    return f" {' '.join(words)} "


def _run_at(spaced_words: str, spaced_run: str) -> int | None:
    """Where a run of words starts among words, both `_spaced`, as a word index, or None. Words hold no
    space, so this is a substring search (linear, where comparing slices at each word would cost words
    x run), and the spaces before the place found count the words before it."""
    at = spaced_words.find(spaced_run)
    return None if at < 0 else spaced_words.count(" ", 0, at)


def _tokens(verdict: _Verdict) -> Description:
    tokenise = unicode.f1_tokens if verdict.metric.startswith("token") else str.split
    if verdict.score is None:  # exact match
        if verdict.outcome is Outcome.PASS:
            return "the response's tokens equal the golden answer's", _whole_response(verdict)
        return "the response's tokens differ from every golden answer's", None
    golden = tokenise(verdict.golden or "")
    response = token_counts(verdict.response, tokenise)  # no list of a long text's tokens
    common, length = sum((Counter(golden) & response).values()), sum(response.values())
    counts = f"{common} tokens in common; precision {common}/{length}, recall {common}/{len(golden)}"
    return f"token F1 {verdict.score:.3f} with the best golden answer: {counts}", None


def _whole_response(verdict: _Verdict) -> tuple[int, int] | None:
    """token_em's span: from the response's first word to its last (the official scores see no offsets)."""
    first = _WORD.search(verdict.response)
    if verdict.metric != "token_em" or first is None:
        return None
    last = _LAST_WORD.search(verdict.response)
    assert last is not None
    return verdict.span(unicode.normalise, first.start(), last.end())


def _hard_fact(verdict: _Verdict) -> Description:
    pattern = verdict.record.meta.get(verdict.options.regex_column)
    try:
        found = search(pattern_of(str(pattern), f"row id {verdict.record.id}"), verdict.response)
    except TimeoutError:  # it passed in time when scored, but not now (a loaded machine): no span
        return f"the pattern {pattern!r} matched when scored; {timed_out_reason(verdict.response)}", None
    if found is None:
        return (
            f"the pattern {pattern!r} matches nowhere as a whole (no word or digit run on either side)",
            None,
        )
    span = verdict.span(unicode.fold, *found.span())
    return f"the pattern {pattern!r} matches {_shown(found.group())!r} as a whole", span


_DESCRIBE: dict[str, Callable[[_Verdict], Description]] = {
    "exact_substring": _exact,
    "word_overlap": _overlap,
    "phrase_match": _phrase,
    "token_f1": _tokens,
    "token_em": _tokens,
    "squad_em": _tokens,
    "squad_f1": _tokens,
    "mlqa_em": _tokens,
    "mlqa_f1": _tokens,
    "hard_fact": _hard_fact,
}


def explain(
    data: Dataset,
    row_id: str,
    metrics: Sequence[str] | None = None,
    options: ScoreOptions | None = None,
) -> tuple[Record, dict[str, Trace]]:
    """One row of a dataset scored alone, with every metric's trace (what ``assay explain`` prints)."""
    record = next((r for r in data.records if r.id == row_id), None)
    if record is None:
        shown = ", ".join(r.id for r in data.records[:5])
        raise InputError(
            f"no row has the id '{row_id}' (the first ids are: {shown})",
            where=data.source,
            fix="give an id from the file's id column (or a 1-based row number when it has none)",
        )
    run = score(dataclasses.replace(data, records=[record]), metrics, options=options)
    return record, traces(run, 0)
