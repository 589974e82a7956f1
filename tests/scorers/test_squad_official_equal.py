"""squad_em/squad_f1 and mlqa_em/mlqa_f1 equal the official scripts to the last digit, on every path.

The reference is the official scripts restated step for step in ``bench/squad_official.py`` (what
``bench/bench_squad.py`` times them against); it is first checked against this suite's own restatement
(test_squad_mlqa.py). Rows are generated from pieces that exercise each step: ASCII and Unicode
punctuation (the danda, CJK and Arabic marks, quotes, dashes), symbols, every language's articles in
every case and glued to punctuation, whitespace str.split knows and regex does not, CJK ideographs at and
past the script's range, Devanagari with its signs, Arabic al-, letters whose lowercase is longer (İ) or
depends on context (final sigma), characters beyond the BMP, empty texts; one to four golden answers per
row, repeats among them, often the response itself or a variant so exact matches happen.

Each row's verdict, deciding answer and F1 (compared with ==, not approx) must equal the reference's on
the C accelerator's path, on the pure-Python path, and on the Python path the accelerator hands long
texts to.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from test_squad_mlqa import official_f1, official_mlqa_normalise, official_squad_normalise

import assay.scorers.squad as squad
from assay import Outcome
from assay.metric import MetricScores

_SPEC = importlib.util.spec_from_file_location(
    "squad_official", Path(__file__).resolve().parents[2] / "bench" / "squad_official.py"
)
assert _SPEC is not None and _SPEC.loader is not None
official = importlib.util.module_from_spec(_SPEC)
sys.modules["squad_official"] = official
_SPEC.loader.exec_module(official)

ROWS = 3000
LANGS = ("en", "es", "hi", "vi", "de", "ar", "zh")

# Words, every script's articles in several cases, and punctuation (string.punctuation, category P beyond
# ASCII, and symbols the SQuAD script keeps), space-separated.
_PIECES = """
river Nile Denver Broncos tower 1947 x y_z _ the The THE a A an An AN them another
el la los las un una unos unas El LAS
của là cái chiếc những Của LÀ cu\u0309a
der die das den dem des ein eine einen einem eines einer Der DAS
\u0627\u0644\u0643\u062a\u0627\u0628 \u0627\u0644 \u0627 \u0644 \u0645\u0635\u0631 \u0661\u0669\u0665\u0662
दिल्ली का की नदी १९४७ क ्
中 国 一 龥 \u9fa6 \u3400 黄河 1949年
Straße ß ΟΔΟΣ Σ İstanbul İ ǅ ﬁ 😀 𝐀
! " # $ % & ' ( ) * + , - . / : ; < = > ? @ [ \\ ] ^ _ ` { | } ~
। ॥ \uff0c 。 、 《 》 « » ‘ ’ “ ” — – … ¿ ¡ ・ ، ؟ ٪ ‐ ‽ ⸮
€ £ © ° ± × ÷ ¬ ¦
"""
# (cu\u0309a: của decomposed, not the article the script's pattern spells.) Then a zero-width joiner (a
# format character: neither space nor punctuation) and a lone combining mark (not a word character to re).
PIECES = [*_PIECES.split(), "\u200d", "\u0301"]
# Whitespace to str.split (the scripts' tokeniser), among it some that regex's \s does not know.
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u2028", "\x1c", "\x1f", "\x85", "\u2009"]


Text = list[tuple[str, str]]  # a text as pieces, each with the separator after it ("" when glued)


def text(rng: random.Random) -> Text:
    if rng.random() < 0.05:
        return []
    return [
        (rng.choice(PIECES), "" if rng.random() < 0.3 else rng.choice(SPACES))
        for _ in range(rng.randint(1, 8))
    ]


def written(pieces: Text) -> str:
    return "".join(piece + separator for piece, separator in pieces)


def variant(rng: random.Random, source: Text) -> str:
    """The text as is, in another case, with punctuation or an article around it, or one piece dropped,
    changed, glued to the next or parted from it: near misses that each step of the scripts decides."""
    kind = rng.randrange(7)
    at = rng.randrange(len(source)) if source else 0
    if kind == 0 or not source:
        return written(source)
    if kind == 1:
        return written(source).upper() if rng.random() < 0.5 else written(source).title()
    if kind == 2:
        before = rng.choice(["the ", "The ", "el ", "der ", "«", '"', "\u0627\u0644"])
        return f"{before}{written(source)}{rng.choice(['.', '!', '。', '।', '»'])}"
    if kind == 3:
        return written(source[:at] + source[at + 1 :])
    if kind == 4:
        return written([*source[:at], (rng.choice(PIECES), source[at][1]), *source[at + 1 :]])
    glued = "" if source[at][1] else rng.choice(SPACES)
    return written([*source[:at], (source[at][0], glued), *source[at + 1 :]])


def rows(seed: int) -> Iterator[tuple[str, tuple[str, ...], str]]:
    """(response, golden answers, lang) rows; the lang as a file might give it, now and then one the
    MLQA script has no rules for."""
    rng = random.Random(seed)
    for _ in range(ROWS):
        pieces = text(rng)
        answers = [
            variant(rng, pieces) if rng.random() < 0.7 else written(text(rng))
            for _ in range(rng.randint(1, 4))
        ]
        if rng.random() < 0.2:
            answers.append(rng.choice(answers))  # a repeated golden answer, as SQuAD's dev set has
        lang = rng.choice(LANGS)
        lang = rng.choice([lang, lang, lang.upper(), f" {lang} ", "ta", "xx"]) if rng.random() < 0.1 else lang
        yield written(pieces), tuple(answers), lang


# Edges each step decides, written out (response, golden answers, lang); the generated rows follow.
EDGES = [
    ("", ("",), "en"),  # EM 1, F1 0: the script's num_same == 0
    ("!!! «»", ("", "the"), "en"),  # nothing left of either: equal
    ("the", ("a", "an"), "de"),  # English articles are words in German
    ("1the river", ("1 river", "river"), "en"),  # a digit is a word character: no article inside 1the
    ("t.h.e river", ("river",), "en"),  # punctuation goes first: then "the" is an article
    ("x_the", ("x",), "es"),  # _ is punctuation: dropped, and then "the" stands alone (not Spanish's)
    ("the\u0301 nile", ("nile",), "en"),  # a combining mark is no word character: "the" is whole
    ("龦x 中国", ("龦 x 中 国", "龦x中国"), "zh"),  # U+9FA6 is past the script's range: no token of its own
    ("龥x", ("龥 x",), "zh"),  # U+9FA5 is in it
    ("㐀x", ("㐀 x", "㐀x"), "zh"),  # extension A is not
    ("\u0627\u0644\u0643\u062a\u0627\u0628", ("\u0643\u062a\u0627\u0628",), "ar"),  # al- anywhere
    ("\u0643\u0627\u0644\u0628\u064a\u062a", ("\u0643 \u0628\u064a\u062a",), "ar"),
    ("của nhà", ("nhà",), "vi"),
    ("cu\u0309a nhà", ("nhà",), "vi"),  # decomposed: not the article the pattern spells
    ("ΟΔΟΣ", ("οδοσ", "οδος"), "en"),  # str.lower makes a final sigma
    ("İ", ("i", "i\u0307"), "en"),  # İ lowercases to two code points
    ("दिल्ली।", ("दिल्ली",), "hi"),  # the danda is category P: MLQA drops it, SQuAD keeps it
    ("a\u3000b\x1cc\x85d", ("a b c d",), "en"),  # whitespace to str.split that regex's \s does not know
]
ROWS_OF = EDGES + list(rows(24))


def test_the_reference_is_this_suites_restatement() -> None:
    """The bench's reference and test_squad_mlqa's restatement agree (the latter has the articles of
    English only, so the other languages are compared where no article step applies)."""
    for response, answers, _ in ROWS_OF:
        for golden in answers[:1]:
            assert official.squad_normalize_answer(response) == official_squad_normalise(response)
            assert official.squad_f1_score(response, golden) == official_f1(
                official_squad_normalise(response), official_squad_normalise(golden)
            )
            for lang in ("en", "hi", "zh"):
                assert official.mlqa_normalize_answer(golden, lang) == official_mlqa_normalise(golden, lang)


def expected(
    exact: Callable[..., bool], f1: Callable[..., float], response: str, answers: Sequence[str], *lang: str
) -> tuple[bool, int, float, int]:
    """The scripts' EM and F1 of a row (the max over the golden answers), with the golden answer each
    comes from (the first of the best, as assay reports it)."""
    matches = [exact(response, golden, *lang) for golden in answers]
    scores = [f1(response, golden, *lang) for golden in answers]
    best = max(scores)
    return any(matches), matches.index(True) if any(matches) else -1, best, scores.index(best)


@pytest.fixture(params=["c", "python", "long texts"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way a row is scored: the accelerator; the pure-Python path (no accelerator); and the Python
    path the accelerator hands a row to when a text of it is longer than LONG_TEXT (here 12 characters,
    so that most rows go)."""
    if request.param != "python" and getattr(squad._speedups, "squad_rows", None) is None:
        pytest.skip("the C accelerator is not built here")
    if request.param == "python":
        monkeypatch.setattr(squad, "_speedups", None)
    if request.param == "long texts":
        monkeypatch.setattr(squad, "LONG_TEXT", 12)
    return str(request.param)


def check(em: MetricScores, f1: MetricScores, row: int, want: tuple[bool, int, float, int]) -> None:
    matched, match_index, best, best_index = want
    assert (em.outcome(row) is Outcome.PASS, em.answer_index[row]) == (matched, match_index)
    assert f1.values is not None
    assert (f1.values[row], f1.answer_index[row]) == (best, best_index)
    assert (f1.outcome(row) is Outcome.PASS) == (best == 1.0)


def test_squad_equals_the_official_script(path: str) -> None:
    responses = [response for response, _, _ in ROWS_OF]
    answer_sets = [answers for _, answers, _ in ROWS_OF]
    em = squad.SQUAD_EM.score_rows(responses, answer_sets)  # type: ignore[misc]
    f1 = squad.SQUAD_F1.score_rows(responses, answer_sets)  # type: ignore[misc]
    for row, (response, answers) in enumerate(zip(responses, answer_sets)):
        want = expected(official.squad_exact_match_score, official.squad_f1_score, response, answers)
        check(em, f1, row, want)
    assert sum(em.outcomes) > ROWS // 5, "too few exact matches for the test to mean much"
    # The dataset's figures, summed in the script's order, are the script's to the last digit.
    dataset = [
        {"paragraphs": [{"qas": [{"id": str(row), "answers": [{"text": a} for a in answers]}]}]}
        for row, answers in enumerate(answer_sets)
    ]
    figures = official.squad_evaluate(dataset, {str(row): response for row, response in enumerate(responses)})
    assert f1.values is not None
    assert 100.0 * sum(f1.values) / len(responses) == figures["f1"]
    assert 100.0 * sum(em.outcomes) / len(responses) == figures["exact_match"]


def test_mlqa_equals_the_official_script(path: str) -> None:
    responses = [response for response, _, _ in ROWS_OF]
    answer_sets = [answers for _, answers, _ in ROWS_OF]
    langs = [lang for _, _, lang in ROWS_OF]
    em = squad.MLQA_EM.score_rows(responses, answer_sets, langs)  # type: ignore[misc]
    f1 = squad.MLQA_F1.score_rows(responses, answer_sets, langs)  # type: ignore[misc]
    for row, (response, answers, given) in enumerate(ROWS_OF):
        lang = given.strip().lower()
        if lang not in LANGS:
            assert em.outcome(row) is f1.outcome(row) is Outcome.UNSCORED
            assert "MLQA has no rules for the language" in em.reasons[row]
            assert f1.values is not None and f1.values[row] == 0.0
            continue
        want = expected(official.mlqa_exact_match_score, official.mlqa_f1_score, response, answers, lang)
        check(em, f1, row, want)
    assert sum(em.outcomes) > ROWS // 5


def test_a_long_text_is_scored_as_the_script_scores_it() -> None:
    """A response past LONG_TEXT (the Python path's, chunk by chunk) next to short rows (the
    accelerator's), in one batch."""
    long_response = " ".join(["the Nile, «river» of Egypt;"] * 20_000) + " 中国"
    responses = ["The Nile!", long_response, "黄河"]
    answer_sets = [("nile",), ("the Nile river", "Egypt"), ("黄 河",)]
    for metric_em, metric_f1, lang in (
        (squad.SQUAD_EM, squad.SQUAD_F1, None),
        (squad.MLQA_EM, squad.MLQA_F1, "zh"),
    ):
        extra = [[lang] * 3] if lang else []
        em = metric_em.score_rows(responses, answer_sets, *extra)  # type: ignore[misc]
        f1 = metric_f1.score_rows(responses, answer_sets, *extra)  # type: ignore[misc]
        for row, (response, answers) in enumerate(zip(responses, answer_sets)):
            if lang is None:
                want = expected(official.squad_exact_match_score, official.squad_f1_score, response, answers)
            else:
                want = expected(
                    official.mlqa_exact_match_score, official.mlqa_f1_score, response, answers, lang
                )
            check(em, f1, row, want)


def test_every_path_scores_a_row_without_golden_answers_alike(path: str) -> None:
    """No golden answer: 0.0 and no deciding answer on every path (the Python one raised on max())."""
    em = squad.SQUAD_EM.score_rows(["the Nile", "the nile"], [("Nile",), ()])  # type: ignore[misc]
    f1 = squad.SQUAD_F1.score_rows(["the Nile", "the nile"], [("Nile",), ()])  # type: ignore[misc]
    assert f1.values is not None
    assert (f1.values[0], em.outcome(0)) == (1.0, Outcome.PASS)
    assert (f1.values[1], f1.answer_index[1], em.answer_index[1]) == (0.0, -1, -1)
