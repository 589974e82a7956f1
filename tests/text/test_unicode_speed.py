"""The unicode profile's fast paths equal its definitions: the C table pass equals the twelve steps,
the C tokeniser equals the `regex` module's \\w+ runs, and the batch scorers equal their one-row,
one-answer definitions.

Every character of the Basic Multilingual Plane is tried in several neighbourhoods, and Hypothesis
mixes the characters whose neighbours matter (combining marks, precomposed letters, Indic vowel letters
and signs, nuktas, joiners, the separators str.strip() knows but regex's \\s does not).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay import Outcome
from assay.scorers._base import AnswerSets, overlap_f1
from assay.scorers.unicode import _phrase_match, _token_em, _token_f1
from assay.text import search, unicode
from assay.text.seed import lowercase

speedups = unicode._speedups
needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built here")

EVERY_BMP_CHARACTER = [chr(code) for code in range(0x10000) if not 0xD800 <= code < 0xE000]
NEIGHBOURHOODS = [
    "{}",
    "a{}b",
    "\u0915{}",
    "{}{}",
    "e\u0301{}",
    "\u0905{}",
    " {}.",
    "\x1c{}\x1f",
    "1{}2",
    "\u0967{}\u0968",
]

# Characters whose neighbours can change them, or that end the fast path; and plain ones around them.
TRICKY = (
    "aAzZ09 \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x00\x7f`'\".,;:!?-_$+<=>^|~\u00a0\u0085\u00b4\u00ad"
    "İıßςΣσé\u00e9\u0301\u0323\u0327\u0308\u0345ﬁＡ１"
    "\u0905\u090f\u093e\u0945\u0946\u0947\u0949\u094a\u094b\u094c\u0915\u0928\u093c\u094d\u0902\u0964"
    "\u0958\u0966\u096f\u0a05\u0a72\u0a73\u0a3e\u0a3f\u0a40\u0a41\u0a3c\u0a48\u09a4\u09cd\u09bc\u09be"
    "\u09c7\u09cb\u0d15\u0d30\u0d4d\u0bc6\u0bbe\u0b47\u0b3e\u200b\u200c\u200d\u2060\ufeff"
    "\u066b\u066c\uff0e\uff0c\ufe52\u0967\u0661123,.,.,"
    "\u2018\u2019\u201c\u201d\u201e\u2026\u3000北京ひカไทย\u0e31\u0e48가\u1161\u11a8\U0001f600\U00020000"
)
MIXED = st.text(st.sampled_from(TRICKY), max_size=30) | st.text(
    st.characters(exclude_categories=("Cs",)), max_size=30
)


@needs_speedups
@pytest.mark.parametrize("neighbourhood", NEIGHBOURHOODS)
def test_every_bmp_character_folds_as_the_steps_fold_it(neighbourhood: str) -> None:
    texts = [neighbourhood.format(character, character) for character in EVERY_BMP_CHARACTER]
    differing = [text for text in texts if unicode.normalise(text) != unicode.normalise_in_steps(text)]
    assert differing == []


@needs_speedups
@settings(max_examples=3000, deadline=None)
@given(MIXED)
def test_the_fast_path_equals_the_steps(text: str) -> None:
    assert unicode.normalise(text) == unicode.normalise_in_steps(text)


@needs_speedups
def test_common_scripts_take_the_fast_path() -> None:
    mapping, flags = unicode._fold_tables()
    common = ["The Narmada, in 1947!", "राजधानी दिल्ली है।", "কলকাতা", "北京大学", "café ÉTÉ", "Straße"]
    # precomposed nukta letters (NFC splits them) after vowel signs; full-width punctuation; an ellipsis
    common += ["मेरी \u095bिंदगी की \u0958िताब", "北京，上海？", "wait… what"]
    for text in common:
        assert speedups.unicode_fold(text, mapping, flags) is not None, text


@needs_speedups
@settings(max_examples=2000, deadline=None)
@given(MIXED)
def test_c_tokens_equal_regex_tokens(text: str) -> None:
    normalised = unicode.normalise(text)
    for raw in (text, normalised):
        assert unicode.words(raw) == unicode.words_by_regex(raw)
        assert unicode.f1_tokens(raw) == unicode.f1_tokens_by_regex(raw)
        assert unicode.spaced_words(raw) == f" {' '.join(unicode.words_by_regex(raw))} "


@needs_speedups
@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "ab", "b", "北", "京", "दि", "ल्ली", "\U0001f600", ""]), max_size=5), MIXED
)
def test_c_token_overlap_equals_the_multiset_definition(golden: list[str], text: str) -> None:
    for haystack in (text, f"{text} {' '.join(golden)} b"):  # the second holds every golden token
        tokens = unicode.f1_tokens_by_regex(haystack)
        common = sum((Counter(golden) & Counter(tokens)).values())
        assert unicode.token_overlap(golden, haystack) == (common, len(tokens))


@needs_speedups
def test_c_tokens_equal_regex_tokens_for_every_bmp_character() -> None:
    texts = [f"ab{character}北c{character}" for character in EVERY_BMP_CHARACTER]
    assert [unicode.words(text) for text in texts] == list(map(unicode.words_by_regex, texts))
    assert [unicode.f1_tokens(text) for text in texts] == list(map(unicode.f1_tokens_by_regex, texts))


@needs_speedups
def test_tables_of_the_wrong_size_are_refused() -> None:
    assert speedups is not None
    with pytest.raises(ValueError, match="Basic Multilingual Plane"):
        speedups.unicode_fold("text", b"", b"")
    with pytest.raises(ValueError, match="Basic Multilingual Plane"):
        speedups.unicode_tokens("text", b"\x00", False)
    with pytest.raises(TypeError, match="must be str"):
        speedups.unicode_token_overlap([None], "text", unicode._fold_tables()[1])  # type: ignore[list-item]


def test_second_characters_of_pairs_above_the_scanned_bound_do_not_exist() -> None:
    import unicodedata

    for code in range(0x20000, 0x110000):
        decomposition = unicodedata.decomposition(chr(code)).split()
        assert not (len(decomposition) == 2 and not decomposition[0].startswith("<")), hex(code)


# The batch scorers against their definitions, one row and one answer at a time.


def phrase_match_by_definition(golden: str, response: str) -> bool:
    golden_words, response_words = unicode.words_by_regex(golden), unicode.words_by_regex(response)
    return f" {' '.join(golden_words)} " in f" {' '.join(response_words)} "


def token_f1_by_definition(golden: str, response: str) -> float:
    return overlap_f1(unicode.f1_tokens_by_regex(golden), unicode.f1_tokens_by_regex(response))


WORDY = st.text(st.sampled_from("ab 北京 दिल्ली ,.\u0964$\U0001f600"), max_size=12)
ROWS = st.lists(st.tuples(st.lists(WORDY, max_size=3), WORDY), min_size=1, max_size=8)


@settings(max_examples=500, deadline=None)
@given(ROWS, st.booleans())
def test_batch_scorers_equal_their_definitions(rows: list[tuple[list[str], str]], one_answer: bool) -> None:
    if one_answer:
        rows = [(answers[:1] or [""], response) for answers, response in rows]
    answer_sets = AnswerSets.of([tuple(map(unicode.normalise, answers)) for answers, _ in rows])
    responses = [unicode.normalise(response) for _, response in rows]
    phrase, f1, em = (scorer(responses, answer_sets) for scorer in (_phrase_match, _token_f1, _token_em))
    for row, (answers, response) in enumerate(zip(answer_sets, responses)):
        scorable = [index for index, answer in enumerate(answers) if unicode.words_by_regex(answer)]
        if not scorable:
            assert phrase.outcome(row) == f1.outcome(row) == em.outcome(row) == Outcome.UNSCORED
            continue
        passing = [i for i in scorable if phrase_match_by_definition(answers[i], response)]
        assert phrase.answer_index[row] == (passing[0] if passing else -1)
        values = [token_f1_by_definition(answers[i], response) for i in scorable]
        assert f1.values is not None and f1.values[row] == max(values)
        assert f1.answer_index[row] == scorable[values.index(max(values))]
        tokens = unicode.f1_tokens_by_regex
        exact = [i for i in scorable if tokens(answers[i]) == tokens(response)]
        assert em.answer_index[row] == (exact[0] if exact else -1)


@settings(max_examples=300, deadline=None)
@given(st.lists(MIXED, min_size=1, max_size=6))
def test_a_long_text_normalised_a_chunk_at_a_time_equals_it_normalised_whole(parts: list[str]) -> None:
    # Chunks of a few characters: every whitespace may end one.
    text = " ".join(parts)
    whole = (unicode.normalise(text), unicode.fold(text), lowercase(text), unicode.spaced_words(text))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "LONG", 0)
        patch.setattr(unicode, "LONG", 0)
        patch.setattr(search, "CHUNK", 3)
        assert (
            unicode.normalise(text),
            unicode.fold(text),
            lowercase(text),
            unicode.spaced_words(text),
        ) == whole
