"""`--inflection`: soft passes for inflected forms, counted apart from passes in every report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_unicode_profile import TEXT, vectors

from assay import Outcome, score, summary_dict
from assay.scoring import ScoreOptions
from assay.text.inflection import latin_stem, soft_key

INFLECTED = ScoreOptions(inflection=True)


def phrase_match(goldens: list[str], responses: list[str], options: ScoreOptions) -> list[Outcome]:
    frame = pd.DataFrame({"question": "q", "answer": goldens, "response": responses})
    outcomes = score(frame, ["phrase_match"], options=options).metrics["phrase_match"].outcomes
    return [Outcome(o) for o in outcomes]


# Vectors whose verdict --inflection changes from FAIL to SOFT_PASS; every other vector keeps its verdict.
SOFT_PASSES = {
    "word_boundary-en-03": "amalak ~ Amalaka: the Latin trailing vowel",
    "inflection-en-14": "temple ~ temples: the Latin plural",
    "inflection-hi-02": "लड़का ~ लड़के: Snowball Hindi stems both to लड़क",
    "inflection-ta-08": "சென்னை ~ சென்னையில்: Snowball Tamil over-stems both to சென்",
    "inflection-ta-09": "மரம் ~ மரத்தில்: Snowball Tamil stems both to மரம்",
    "inflection-ta-10": "புத்தகம் ~ புத்தகங்கள்: Snowball Tamil stems both to புத்தகம்",
    # A collision, and why soft passes are counted apart: कमल (lotus) and कमला (Kamala) share a stem.
    "inflection-hi-04": "कमल ~ कमला: a false soft pass, the stemmer's collision",
}


def test_inflection_turns_exactly_the_pinned_vectors_into_soft_passes() -> None:
    cases = vectors()
    goldens, responses = [str(v["golden"]) for v in cases], [str(v["response"]) for v in cases]
    strict = phrase_match(goldens, responses, ScoreOptions())
    soft = phrase_match(goldens, responses, INFLECTED)
    changed = {str(v["id"]): (s, t) for v, s, t in zip(cases, strict, soft) if s is not t}
    assert changed == {id_: (Outcome.FAIL, Outcome.SOFT_PASS) for id_ in SOFT_PASSES}


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("temples", "templ"),
        ("temple", "templ"),
        ("paintings", "painting"),
        ("amalaka", "amalak"),
        ("amalak", "amalak"),
        ("boxes", "box"),
        ("class", "class"),  # a double s is not a plural
        ("classes", "class"),
        ("bus", "bus"),  # three letters are always kept
        ("sea", "sea"),
    ],
)
def test_latin_stem(word: str, stem: str) -> None:
    assert latin_stem(word) == stem


def test_scripts_without_a_snowball_stemmer_keep_their_words() -> None:
    assert soft_key("കേരളത്തിൽ") == "കേരളത്തിൽ"  # Malayalam
    assert soft_key("2001માં") == "2001માં"  # Gujarati


@pytest.mark.parametrize(
    ("golden", "response", "outcome"),
    [
        ("scroll painting", "Scroll paintings of the Edo period", Outcome.SOFT_PASS),  # the seed's example
        ("scroll painting", "a painting on a scroll", Outcome.FAIL),  # still contiguous, in order
        ("temple", "The temple stands", Outcome.PASS),  # a strict pass stays a pass
        ("", "anything", Outcome.UNSCORED),  # and a golden without words stays unscored
        ("temple", "", Outcome.FAIL),  # a blank response is incorrect, whatever the tolerance
    ],
)
def test_soft_pass_cases(golden: str, response: str, outcome: Outcome) -> None:
    assert phrase_match([golden], [response], INFLECTED) == [outcome]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=5))
def test_inflection_only_turns_failures_into_soft_passes(pairs: list[tuple[str, str]]) -> None:
    goldens, responses = [g for g, _ in pairs], [r for _, r in pairs]
    strict = phrase_match(goldens, responses, ScoreOptions())
    soft = phrase_match(goldens, responses, INFLECTED)
    for before, after in zip(strict, soft):
        assert after is before or (before, after) == (Outcome.FAIL, Outcome.SOFT_PASS)


def test_soft_passes_are_counted_apart_and_the_accuracy_stays_strict() -> None:
    frame = pd.DataFrame(
        {
            "question": "q",
            "answer": ["temple", "temple", "temple", "temple"],
            "response": ["a temple", "two temples", "a mosque", ""],
        }
    )
    strict = summary_dict(score(frame, ["phrase_match"]).summary)["metrics"]["phrase_match"]
    soft = summary_dict(score(frame, ["phrase_match"], options=INFLECTED).summary)["metrics"]["phrase_match"]
    assert strict["combined"]["accuracy"] == soft["combined"]["accuracy"] == 0.25
    assert (soft["combined"]["passed"], soft["combined"]["soft"], soft["combined"]["failed"]) == (1, 1, 2)
    assert soft["combined"]["accuracy_with_soft"] == 0.5
    assert "|inflection:on@1|" in soft["signature"]
    assert "|inflection:off|" in strict["signature"]


def test_every_report_shows_the_soft_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "in.csv"
    pd.DataFrame(
        {
            "id": ["a", "b"],
            "question": "q",
            "answer": ["temple", "temple"],
            "response": ["a temple", "temples"],
        }
    ).to_csv(data, index=False)
    out, summary = tmp_path / "out.csv", tmp_path / "summary.json"
    argv = ["score", "--responses", str(data), "--metric", "phrase_match", "--inflection", "--detail"]
    code, printed, _ = run([*argv, "--out", str(out), "--json", str(summary)], capsys)
    assert code == 0
    header, combined = printed.splitlines()[3], printed.splitlines()[-1]
    assert header.split() == [
        "domain",
        "n",
        "passed",
        "accuracy",
        "95%",
        "CI",
        "soft",
        "with",
        "soft",
        "blank",
        "unscored",
    ]
    assert combined.split() == ["combined", "2", "1", "50.0%", "9.5–90.5%", "1", "100.0%", "0", "0"]
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["phrase_match"], r["phrase_match_soft"]) for r in rows] == [
        ("True", "False"),
        ("False", "True"),
    ]
    assert json.loads(summary.read_text())["metrics"]["phrase_match"]["combined"]["soft"] == 1
