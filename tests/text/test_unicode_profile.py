"""The `unicode` profile and the scorers built on it (`phrase_match`, `token_em`).

The Indic test vectors (../shared/data/indic/vectors_public.json) give the verdict a careful matcher
should reach; every uncontested one must come out that way, and each contested one is pinned here with
the reason assay decides it as it does.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay import Outcome, score, summary_dict
from assay.scorers.unicode import NO_WORDS
from assay.text import unicode

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "data" / "indic" / "vectors_public.json"


def vectors() -> list[dict[str, object]]:
    if not VECTORS.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{VECTORS} is missing, and CI must have ../shared")
        pytest.skip(f"{VECTORS} is absent (a clone without ../shared)")
    return list(json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"])


def phrase_match(goldens: list[str], responses: list[str]) -> list[Outcome]:
    frame = pd.DataFrame({"question": "q", "answer": goldens, "response": responses})
    return [Outcome(o) for o in score(frame, ["phrase_match"]).metrics["phrase_match"].outcomes]


def test_every_uncontested_vector_gets_the_careful_verdict() -> None:
    cases = [v for v in vectors() if not v["contested"]]
    outcomes = phrase_match([str(v["golden"]) for v in cases], [str(v["response"]) for v in cases])
    wrong = [v["id"] for v, o in zip(cases, outcomes) if (o is Outcome.PASS) != v["expect_normalized_match"]]
    assert len(cases) == 34
    assert wrong == []


STEMMING = "needs stemming: soft credit behind --inflection, never the default (test_inflection.py)"
TRANSLITERATION = "needs transliteration between scripts, which no deterministic profile does"
NEGATION = "a mention is not an assertion; telling them apart is the judge's work, not a matcher's"
# Contested vectors: id -> (does phrase_match pass?, why)
CONTESTED = {
    "digits-hi-09": (True, "grouping commas, Indian (1,00,000) or Western, are dropped: 100000 either way"),
    "nukta_variant-hi-01": (
        False,
        "ज़ and ज are different letters; folding the nukta away is a variant table",
    ),
    "nukta_variant-hi-02": (False, "हिन्दी / हिंदी (virama+न vs anusvara) spellings are not unified"),
    "nukta_variant-hi-03": (False, "चाँद / चांद (candrabindu vs anusvara) spellings are not unified"),
    "word_boundary-en-02": (True, "'no' is a whole word here; yes/no polarity is the judge's work"),
    "word_boundary-en-03": (False, "amalak is a prefix of Amalaka, not the word: " + STEMMING),
    "word_boundary-hi-08": (False, "भारत is a prefix of भारतीय, not the word"),
    "negation-en-01": (True, NEGATION),
    "negation-hi-02": (True, NEGATION),
    "negation-mr-03": (True, NEGATION),
    "negation-ta-04": (True, NEGATION),
    "negation-bn-05": (True, NEGATION),
    "negation-en-06": (True, "a hedge names the answer; " + NEGATION),
    "inflection-hi-02": (False, STEMMING),
    "inflection-mr-05": (False, STEMMING),
    "inflection-gu-06": (False, STEMMING),
    "inflection-gu-07": (False, "૨૦૦૧માં is one word (digits with a suffix): " + STEMMING),
    "inflection-ta-08": (False, STEMMING),
    "inflection-ta-09": (False, STEMMING),
    "inflection-ta-10": (False, STEMMING),
    "inflection-ta-11": (False, "தமிழ் is a prefix of the compound தமிழ்நாடு, not a word of it"),
    "inflection-ml-12": (False, STEMMING),
    "inflection-te-13": (False, STEMMING),
    "inflection-en-14": (False, STEMMING),
    "whitespace-ta-06": (False, "a compound written with and without a space is not folded"),
    "mixed_script-hi-03": (False, "Delhiमें is one token: word characters run across the script change"),
    "mixed_script-en-04": (False, "a Cyrillic е inside Latin Dеlhi is a different letter (a confusable)"),
    "mixed_script-pt-05": (False, "accents are letters, not noise: São is not Sao"),
    "transliteration-hi-01": (False, TRANSLITERATION),
    "transliteration-hi-02": (False, TRANSLITERATION),
    "transliteration-ta-03": (False, TRANSLITERATION),
    "transliteration-hi-04": (False, TRANSLITERATION),
    "transliteration-hi-05": (False, "Varanasi / Banaras are aliases: an alias table, not normalisation"),
}


def test_every_contested_vector_is_pinned_with_its_reason() -> None:
    cases = [v for v in vectors() if v["contested"]]
    assert {str(v["id"]) for v in cases} == set(CONTESTED)
    outcomes = phrase_match([str(v["golden"]) for v in cases], [str(v["response"]) for v in cases])
    got = {str(v["id"]): o is Outcome.PASS for v, o in zip(cases, outcomes)}
    assert got == {id_: passes for id_, (passes, _) in CONTESTED.items()}


@pytest.mark.parametrize(
    ("golden", "response", "passes"),
    [
        ("Straße", "STRASSE", True),  # casefold, not lower
        ("New Delhi", "New\u00a0Delhi", True),  # NBSP, by NFKC
        ("New Delhi", "New\u200bDelhi", True),  # zero-width space: a space
        ("Bangalore", "Banga\u00adlore", True),  # soft hyphen dropped
        ("दिल्ली", "उत्तर: दिल्ली।", True),  # danda is punctuation
        ("1947", "भारत १९४७ में", True),  # Indic digits folded
        ("കണ്ണൂർ", "കണ്ണൂര്\u200d ജില്ല", True),  # legacy chillu with ZWJ
        ("İstanbul", "istanbul", True),  # İ folds to plain i
        ("Delhi", "“Delhi”", True),
        ("No", "I don't know", False),  # no word boundary inside 'know'
        ("47", "It happened in 1947", False),  # a number inside a number
        ("Narmada valley", "the Narmada river valley", False),  # not contiguous
    ],
)
def test_phrase_match_cases(golden: str, response: str, passes: bool) -> None:
    assert (phrase_match([golden], [response])[0] is Outcome.PASS) is passes


@pytest.mark.parametrize("golden", ["", "   ", "?", "—", "।"])
def test_a_golden_answer_without_words_is_unscored_never_a_pass(golden: str) -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": [golden], "response": ["anything at all"]})
    run = score(frame, ["phrase_match", "token_em"])
    for metric in ("phrase_match", "token_em"):
        scores = run.metrics[metric]
        assert scores.outcome(0) is Outcome.UNSCORED
        assert scores.reasons[0] == NO_WORDS
        tally = summary_dict(run.summary)["metrics"][metric]["combined"]
        assert (tally["unscored"], tally["passed"], tally["accuracy"]) == (1, 0, None)


@pytest.mark.parametrize(
    ("golden", "response", "passes"),
    [
        ("the Eiffel Tower", "The Eiffel  Tower.", True),
        ("Eiffel Tower", "the Eiffel Tower", False),  # exact match, not containment
        ("北京", "北京", True),
        ("北京大学", "北京", False),  # character tokens for Chinese
    ],
)
def test_token_em_cases(golden: str, response: str, passes: bool) -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": [golden], "response": [response]})
    assert (score(frame, ["token_em"]).metrics["token_em"].outcome(0) is Outcome.PASS) is passes


def test_signature_names_the_profile() -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": ["a"], "response": ["a"]})
    signatures = summary_dict(score(frame, ["phrase_match"]).summary)["signature"]["protocols"]
    assert signatures["phrase_match"].startswith("phrase_match@1|profile:unicode@2|inflection:off|nfc:off|")


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40) | st.text(
    "aAİıßς Σ१२৩\u0915\u093c\u093e\u093f\u094d\u0905\u09a4\u09cd\u09bc\u09be\u0a05\u0a3c\u0a3e"
    "\u0d30\u0d4d\u200d\u200c\u200b\u00ad\u0964\u0301\uff21.,'’“”-  \u00a0",
    max_size=40,
)


@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_normalise_never_raises_is_idempotent_and_returns_nfc(text: str) -> None:
    once = unicode.normalise(text)
    assert unicode.normalise(once) == once
    assert unicodedata.is_normalized("NFC", once)


@pytest.mark.parametrize(
    ("golden", "response", "passes"),
    [
        ("3", "about 3.5 km", False),  # a decimal is one token
        ("5", "about 3.5 km", False),
        ("3.5", "about 3.5 km", True),
        ("3.5", "about 35 km", False),  # the point is kept: 3.5 is not 35
        ("24", "population 1,24,000", False),  # Indian grouping is one number
        ("1,24,000", "population 1,24,000", True),
        ("1,24,000", "population 124000", True),  # grouping commas dropped: the same number
        ("124000", "population १,२४,०००", True),  # in Devanagari digits
        ("1,240,000", "about 1240000 people", True),  # Western grouping
        ("240", "about 1,240,000 people", False),
        ("3.5", "लगभग ३.५ किमी", True),  # a decimal in Devanagari digits
        ("12.5", "\u0661\u0662\u066b\u0665", True),  # Arabic digits and decimal separator
        ("1240000", "\u0661\u066c\u0662\u0664\u0660\u066c\u0660\u0660\u0660", True),  # Arabic group
        ("3", "3,5", False),  # a comma that groups nothing stays in the number
        ("2024", "in 2024. Then", True),  # a full stop after a number is punctuation
        ("2024", "in 2024, then", True),
        ("1240.5", "it cost 1,240.5 in all", True),
    ],
)
def test_numbers_are_whole_tokens(golden: str, response: str, passes: bool) -> None:
    assert (phrase_match([golden], [response])[0] is Outcome.PASS) is passes


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("about 3.5 km", ["about", "3.5", "km"]),
        ("1,24,000 and 12,34,56,789", ["124000", "and", "123456789"]),
        ("1,240,000.25", ["1240000.25"]),
        ("v1.2.3, or 3,5", ["v1.2.3", "or", "3,5"]),
        ("\u0663\u066b\u0665", ["3.5"]),
        ("3\uff0e5", ["3.5"]),  # a full-width full stop is a full stop
        ("1947.", ["1947"]),
        ("a.b, 3 .5", ["a", "b", "3", "5"]),  # only between two digits
    ],
)
def test_number_tokens_under_the_profile(text: str, tokens: list[str]) -> None:
    normalised = unicode.normalise(text)
    assert unicode.words(normalised) == unicode.words_by_regex(normalised) == tokens
    assert unicode.normalise_in_steps(text) == normalised


@pytest.mark.parametrize(("golden", "response"), [("3", "about 3.5 km"), ("24", "1,24,000")])
def test_token_f1_and_em_see_whole_numbers(golden: str, response: str) -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": [golden], "response": [response]})
    run = score(frame, ["token_f1", "token_em"])
    assert run.metrics["token_em"].outcome(0) is Outcome.FAIL
    values = run.metrics["token_f1"].values
    assert values is not None and values[0] == 0.0


# Legacy spellings the profile promises to map (docs/scoring.md, "Careful matching"), a vector of our own for
# each: (legacy, modern), inside a word of the script where one reads naturally.
LEGACY = {
    "malayalam chillu nn": ("\u0d15\u0d23\u0d4d\u200d", "\u0d15\u0d7a"),
    "malayalam chillu n": ("\u0d05\u0d35\u0d28\u0d4d\u200d", "\u0d05\u0d35\u0d7b"),
    "malayalam chillu rr": (
        "\u0d15\u0d23\u0d4d\u0d23\u0d42\u0d30\u0d4d\u200d",
        "\u0d15\u0d23\u0d4d\u0d23\u0d42\u0d7c",
    ),
    "malayalam chillu l": ("\u0d2a\u0d3e\u0d32\u0d4d\u200d", "\u0d2a\u0d3e\u0d7d"),
    "malayalam chillu ll": ("\u0d35\u0d33\u0d4d\u200d", "\u0d35\u0d7e"),
    "malayalam chillu k": ("\u0d35\u0d15\u0d4d\u200d", "\u0d35\u0d7f"),
    "malayalam chillu m": ("\u0d05\u0d2e\u0d4d\u200d", "\u0d05\u0d54"),
    "malayalam chillu y": ("\u0d05\u0d2f\u0d4d\u200d", "\u0d05\u0d55"),
    "malayalam chillu lll": ("\u0d05\u0d34\u0d4d\u200d", "\u0d05\u0d56"),
    "bengali khanda-ta": ("\u09b8\u09c0\u09ae\u09be\u09a4\u09cd\u200d", "\u09b8\u09c0\u09ae\u09be\u09ce"),
    "devanagari eyelash ra": ("\u0915\u0930\u094d\u200d\u092f", "\u0915\u0931\u094d\u092f"),
    "devanagari nukta after a sign": ("\u092a\u0921\u093f\u093c", "\u092a\u0921\u093c\u093f"),
    "bengali nukta after a sign": ("\u09aa\u09a1\u09bf\u09bc", "\u09aa\u09a1\u09bc\u09bf"),
    "devanagari aa": ("\u0905\u093e\u092e", "\u0906\u092e"),
    "devanagari o": ("\u0905\u094b\u092e", "\u0913\u092e"),
    "devanagari ai": ("\u090f\u0947\u0938\u093e", "\u0910\u0938\u093e"),
    "devanagari uu": ("\u0909\u0941\u0928", "\u090a\u0928"),
    "devanagari vocalic rr": ("\u090b\u0943", "\u0960"),
    "devanagari candra a": ("\u0905\u0945", "\u0972"),
    "devanagari short e kashmiri": ("\u0905\u0946", "\u0904"),
    "devanagari kashmiri aw": ("\u0905\u094f", "\u0975"),
    "bengali aa": ("\u0985\u09be\u09ae", "\u0986\u09ae"),
    "bengali vocalic rr": ("\u098b\u09c3", "\u09e0"),
    "gurmukhi aa": ("\u0a05\u0a3e\u0a2a", "\u0a06\u0a2a"),
    "gurmukhi i": ("\u0a72\u0a3f\u0a15", "\u0a07\u0a15"),
    "gurmukhi u": ("\u0a73\u0a41\u0a38", "\u0a09\u0a38"),
    "gujarati aa": ("\u0a85\u0abe\u0a9c", "\u0a86\u0a9c"),
    "gujarati e": ("\u0a85\u0ac7\u0a95", "\u0a8f\u0a95"),
    "gujarati o": ("\u0a85\u0acb\u0aae", "\u0a93\u0aae"),
    "gujarati candra e": ("\u0a85\u0ac5", "\u0a8d"),
    "oriya aa": ("\u0b05\u0b3e\u0b2e", "\u0b06\u0b2e"),
    "oriya ai": ("\u0b0f\u0b57", "\u0b10"),
    "oriya au": ("\u0b13\u0b57", "\u0b14"),
    "tamil uu": ("\u0b89\u0bd7\u0bb0\u0bcd", "\u0b8a\u0bb0\u0bcd"),
    "tamil au": ("\u0b92\u0bd7\u0bb5\u0bc8", "\u0b94\u0bb5\u0bc8"),
    "telugu oo": ("\u0c12\u0c55\u0c1f\u0c41", "\u0c13\u0c1f\u0c41"),
    "telugu au": ("\u0c12\u0c4c", "\u0c14"),
    "kannada uu": ("\u0c89\u0cbe\u0cb0\u0cc1", "\u0c8a\u0cb0\u0cc1"),
    "kannada au": ("\u0c92\u0ccc", "\u0c94"),
    "malayalam ii": ("\u0d07\u0d57\u0d1a", "\u0d08\u0d1a"),
    "malayalam uu": ("\u0d09\u0d57\u0d24", "\u0d0a\u0d24"),
    "malayalam ai": ("\u0d0e\u0d46\u0d36", "\u0d10\u0d36"),
    "malayalam oo": ("\u0d12\u0d3e\u0d23\u0d02", "\u0d13\u0d23\u0d02"),
    "malayalam au": ("\u0d12\u0d57", "\u0d14"),
}


@pytest.mark.parametrize(("legacy", "modern"), LEGACY.values(), ids=list(LEGACY))
def test_every_legacy_sequence_the_profile_promises_is_mapped(legacy: str, modern: str) -> None:
    assert unicode.normalise(legacy) == unicode.normalise(modern) == unicodedata.normalize("NFC", modern)
    assert unicode.normalise(legacy) == unicode.normalise_in_steps(legacy)  # the C path agrees
    outcomes = phrase_match([modern, legacy], [f"x {legacy} y", f"x {modern}। y"])
    assert outcomes == [Outcome.PASS, Outcome.PASS]
