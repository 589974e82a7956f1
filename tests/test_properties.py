"""Properties of the seed protocols, checked with Hypothesis against the seed's one-line definitions.

The batch scorers in assay.scorers.seed are written for speed (chains of built-in maps, golden words
tokenised per batch, a find-and-look-outward word test); these tests hold them to the naive definitions,
row by row:

    exact_substring:  answer.lower() in response.lower()
    word_overlap:     toks(answer) <= toks(response),
                      toks(s) = {t for t in (w.strip(P) for w in s.lower().split()) if t}, P = category P

plus the rules for several golden answers and blank responses (see NaiveVerdict).
"""

from __future__ import annotations

import contextlib
import random
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay.scorers.seed
import assay.scoring
from assay import Outcome, ScoreOptions, ScoreRun, score, verdict_rows
from assay.text.seed import occurs_as_word, seed_words, strip_punctuation

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
METRICS = ("exact_substring", "word_overlap")


# --- the naive reference ----------------------------------------------------------------------------------


def is_p(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def toks(text: str) -> set[str]:
    """The seed's word set, written as the one-liner reads (not sharing any code with assay)."""
    words = set()
    for word in text.lower().split():
        punctuation = "".join(ch for ch in set(word) if is_p(ch))
        stripped = word.strip(punctuation) if punctuation else word
        if stripped:
            words.add(stripped)
    return words


@dataclass(frozen=True)
class NaiveVerdict:
    exact: bool
    exact_index: int
    overlap: bool
    overlap_index: int
    matching: int
    total: int


def naive_verdict(answers: list[str], response: str, *, nfc: bool) -> NaiveVerdict:
    if nfc:
        answers = [unicodedata.normalize("NFC", a) for a in answers]
        response = unicodedata.normalize("NFC", response)
    exact_hits = [i for i, a in enumerate(answers) if a.lower() in response.lower()]
    response_words = toks(response)
    words = [toks(a) for a in answers]
    overlap_hits = [i for i, w in enumerate(words) if w <= response_words]
    if overlap_hits:
        decider = overlap_hits[0]  # the first passing answer
    else:  # the answer with the highest matched/total ratio, first on ties (max keeps the first maximum)
        decider = max(
            range(len(answers)), key=lambda i: Fraction(len(words[i] & response_words), len(words[i]))
        )
    matching, total = len(words[decider] & response_words), len(words[decider])
    if not response.strip():
        # Caveat 4: a blank response fails under both, whatever the golden; no answer decided it. Its
        # word counts are still those of the answer chosen above (all matches are 0 for a blank response).
        return NaiveVerdict(False, -1, False, -1, matching, total)
    exact_index = exact_hits[0] if exact_hits else -1
    return NaiveVerdict(bool(exact_hits), exact_index, bool(overlap_hits), decider, matching, total)


def assay_verdicts(run: ScoreRun) -> list[NaiveVerdict]:
    exact, overlap = run.metrics["exact_substring"], run.metrics["word_overlap"]
    return [
        NaiveVerdict(
            exact.outcomes[i] == Outcome.PASS,
            exact.answer_index[i],
            overlap.outcomes[i] == Outcome.PASS,
            overlap.answer_index[i],
            overlap.extras["matching_words"][i],
            overlap.extras["total_golden_words"][i],
        )
        for i in range(len(exact))
    ]


def score_rows(
    rows: list[tuple[list[str], str]], *, nfc: bool, several: bool, **extra: list[Any]
) -> ScoreRun:
    """Score (answers, response) rows; `several` puts them in an `answers` list column, else `answer`."""
    columns: dict[str, list[Any]] = {"question": ["q"] * len(rows), "response": [r for _, r in rows], **extra}
    if several:
        columns["answers"] = [list(a) for a, _ in rows]
    else:
        columns["answer"] = [a[0] for a, _ in rows]
    return score(pd.DataFrame(columns), options=ScoreOptions(nfc=nfc))


# --- strategies -------------------------------------------------------------------------------------------

# Small alphabets so that golden words recur in responses and both verdicts occur: ASCII letters in
# both cases, Devanagari letters with a vowel sign and a nukta, a combining acute (NFC composes e + U+0301
# into U+00E9), U+0958 (NFC decomposes it: a composition exclusion), and a symbol that is not punctuation.
LETTERS = "abAB" + "\u0915\u0932\u093f\u093c\u0958" + "e\u0301\u00e9" + "$"
PUNCTUATION = '.,!?\u0964"\u201c\u201d-'
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", "\u00a0"]
SMALL_ALPHABET = LETTERS + PUNCTUATION + "".join(sorted(set(SEPARATORS)))

word = st.text(LETTERS, min_size=1, max_size=3)
token = st.builds(
    "".join, st.tuples(st.text(PUNCTUATION, max_size=2), word, st.text(PUNCTUATION, max_size=2))
)
separator = st.sampled_from(SEPARATORS)


def joined(parts: st.SearchStrategy[str], *, min_size: int = 0) -> st.SearchStrategy[str]:
    return st.lists(st.tuples(parts, separator), min_size=min_size, max_size=4).map(
        lambda pairs: "".join(p + s for p, s in pairs)
    )


phrase = st.one_of(joined(token, min_size=1), st.text(SMALL_ALPHABET, max_size=10))

# How a golden word or answer may reappear in a response: as is, in another case or normal form, inflected
# (a letter appended: exact-only territory), or wrapped in punctuation.
VARIANTS = [
    lambda s: s,
    str.upper,
    lambda s: unicodedata.normalize("NFD", s),
    lambda s: unicodedata.normalize("NFC", s),
    lambda s: s + "a",
    lambda s: "\u201c" + s + "\u0964",
]


@st.composite
def response_to(draw: st.DrawFn, answers: list[str]) -> str:
    """A response built partly from the golden answers' words and whole answers, partly from noise."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["", " ", "\t\n"]))  # blank: caveat 4
    reused = [w for a in answers for w in a.split()] + list(answers)
    parts = st.one_of(
        token, st.sampled_from(reused).flatmap(lambda w: st.sampled_from(VARIANTS).map(lambda v: v(w)))
    )
    return draw(joined(parts, min_size=1))


def rows_of(answers: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[tuple[list[str], str]]]:
    row = answers.flatmap(lambda a: st.tuples(st.just(a), response_to(a)))
    return st.lists(row, min_size=1, max_size=8)


single_rows = rows_of(st.lists(phrase, min_size=1, max_size=1))
several_rows = rows_of(st.lists(phrase, min_size=1, max_size=3)).filter(
    lambda rows: any(len(answers) != 1 for answers, _ in rows)  # at least one row forces the loop path
)

# Anything at all: Hypothesis' default text (no surrogates), every category but surrogates, private use and
# unassigned, and a mix heavy in what trips tokenisers (zero-width and soft hyphen, dandas, Devanagari signs).
WILD_ALPHABET = st.characters(categories=("L", "M", "N", "P", "S", "Z", "Cc", "Cf"))
TRICKY = (
    "\u200b\u200c\u200d\u00ad\u0964\u0965\u2026\u0301\u0308" + "\u0901\u0902\u0903\u093e\u093f\u094b\u094d"
)
anything = st.one_of(st.text(), st.text(WILD_ALPHABET), st.text(SMALL_ALPHABET + TRICKY, max_size=20))


# --- 1. never raises --------------------------------------------------------------------------------------


@pytest.mark.parametrize("nfc", [False, True], ids=["nfc-off", "nfc-on"])
@SETTINGS
@given(rows=st.lists(st.tuples(st.lists(anything, min_size=1, max_size=3), anything), min_size=1, max_size=5))
def test_protocols_never_raise_on_any_text(nfc: bool, rows: list[tuple[list[str], str]]) -> None:
    run = score_rows(rows, nfc=nfc, several=True)
    for metric in METRICS:
        assert set(run.metrics[metric].outcomes) <= {Outcome.FAIL, Outcome.PASS}
    extras = run.metrics["word_overlap"].extras
    assert all(
        0 <= m <= t for m, t in zip(extras["matching_words"], extras["total_golden_words"], strict=True)
    )


@contextlib.contextmanager
def implementation(name: str) -> Iterator[None]:
    """Score one-answer rows with the C accelerator ("c") or with the pure-Python path ("python")."""
    if name == "c" and assay.scorers.seed._speedups is None:
        pytest.skip("the C accelerator is not built here")  # tests/test_speedups.py fails this in CI
    with pytest.MonkeyPatch.context() as patch:
        if name == "python":
            patch.setattr(assay.scorers.seed, "_speedups", None)
        yield


IMPLEMENTATIONS = pytest.mark.parametrize("path", ["c", "python"])


@IMPLEMENTATIONS
@pytest.mark.parametrize("nfc", [False, True], ids=["nfc-off", "nfc-on"])
@SETTINGS
@given(rows=st.lists(st.tuples(anything, anything), min_size=1, max_size=5))
def test_single_answer_path_never_raises_on_any_text(
    path: str, nfc: bool, rows: list[tuple[str, str]]
) -> None:
    with implementation(path):
        run = score_rows([([a], r) for a, r in rows], nfc=nfc, several=False)
    assert len(run.metrics["word_overlap"]) == len(rows)


# --- 2. batch equals the naive one-liners -----------------------------------------------------------------


@IMPLEMENTATIONS
@pytest.mark.parametrize("nfc", [False, True], ids=["nfc-off", "nfc-on"])
@SETTINGS
@given(rows=single_rows)
def test_single_answer_batch_equals_one_liners(
    path: str, nfc: bool, rows: list[tuple[list[str], str]]
) -> None:
    with implementation(path):
        run = score_rows(rows, nfc=nfc, several=False)
    assert assay_verdicts(run) == [naive_verdict(answers, response, nfc=nfc) for answers, response in rows]


@pytest.mark.parametrize("nfc", [False, True], ids=["nfc-off", "nfc-on"])
@SETTINGS
@given(rows=several_rows)
def test_several_answers_batch_equals_one_liners(nfc: bool, rows: list[tuple[list[str], str]]) -> None:
    run = score_rows(rows, nfc=nfc, several=True)
    assert assay_verdicts(run) == [naive_verdict(answers, response, nfc=nfc) for answers, response in rows]


@SETTINGS
@given(rows=rows_of(st.lists(phrase, min_size=1, max_size=3)))
def test_batches_of_mixed_paths_equal_one_liners(rows: list[tuple[list[str], str]]) -> None:
    # With batches of 3 rows, one run mixes batches scored on the fast path and on the loop path, and
    # blank rows are forced to fail by their index in the whole run, not in their batch.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assay.scoring, "BATCH_ROWS", 3)
        run = score_rows(rows, nfc=False, several=True)
    assert assay_verdicts(run) == [naive_verdict(answers, response, nfc=False) for answers, response in rows]


# --- 3. row order does not matter -------------------------------------------------------------------------


def _per_id(run: ScoreRun) -> dict[str, dict[str, Any]]:
    keep = (
        "exact_substring",
        "word_overlap",
        "matching_words",
        "total_golden_words",
        "agreement",
        "exact_substring_answer",
        "word_overlap_answer",
    )
    return {row["id"]: {k: row[k] for k in keep} for row in verdict_rows(run)}


def _tallies(run: ScoreRun) -> dict[str, Any]:
    summary, agreement = run.summary, run.summary.agreement
    assert agreement is not None
    return {
        "total": summary.total,
        "blank": summary.blank,
        "empty_golden_ids": sorted(summary.empty_golden_ids),
        "metrics": {m: (s.combined, dict(s.domains)) for m, s in summary.metrics.items()},
        "agreement": (dict(agreement.overall), {d: dict(b) for d, b in agreement.domains.items()}),
        "review_ids": sorted(agreement.review_ids),
    }


@SETTINGS
@given(
    rows=rows_of(st.lists(phrase, min_size=1, max_size=2)),
    domains=st.lists(st.sampled_from(["Art", "History", "Science"]), min_size=10, max_size=10),
    shuffle_seed=st.integers(0, 2**32 - 1),
)
def test_row_order_does_not_change_verdicts_or_tallies(
    rows: list[tuple[list[str], str]], domains: list[str], shuffle_seed: int
) -> None:
    ids = [f"r{i}" for i in range(len(rows))]
    order = list(range(len(rows)))
    random.Random(shuffle_seed).shuffle(order)

    def run_in(order: list[int]) -> ScoreRun:
        return score_rows(
            [rows[i] for i in order],
            nfc=False,
            several=True,
            id=[ids[i] for i in order],
            Domain=[domains[i] for i in order],
        )

    original, shuffled = run_in(list(range(len(rows)))), run_in(order)
    assert _per_id(shuffled) == _per_id(original)
    assert _tallies(shuffled) == _tallies(original)


# --- 4. occurs_as_word is the word-set test without tokenising --------------------------------------------


@SETTINGS
@given(data=st.data(), text=phrase.map(str.lower))
def test_occurs_as_word_equals_membership_in_seed_words(data: st.DataObject, text: str) -> None:
    # Half the time take a word from the text itself, so that True answers are common too.
    from_text = [w for w in map(strip_punctuation, text.split()) if w]
    from_text = from_text if data.draw(st.booleans()) else []
    raw = data.draw(st.sampled_from(from_text) if from_text else token.map(str.lower))
    word = strip_punctuation(raw)
    if not word:
        return  # occurs_as_word requires a non-empty stripped word
    assert occurs_as_word(word, text) == (word in seed_words(text))


# --- the summary's flags follow the same definitions ------------------------------------------------------


@SETTINGS
@given(rows=rows_of(st.lists(st.one_of(phrase, anything), min_size=1, max_size=3)))
def test_summary_flags_rows_by_the_one_liners(rows: list[tuple[list[str], str]]) -> None:
    # Caveat 1: a golden with no words (empty, whitespace or punctuation only) is flagged.
    # Caveat 4: blank responses are counted.
    ids = [f"r{i}" for i in range(len(rows))]
    summary = score_rows(rows, nfc=False, several=True, id=ids).summary
    assert summary.empty_golden_ids == tuple(
        i for i, (answers, _) in zip(ids, rows, strict=True) if any(not toks(a) for a in answers)
    )
    assert summary.blank == sum(not response.strip() for _, response in rows)
