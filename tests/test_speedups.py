"""The C accelerator: built where CI runs, and equal to the pure-Python path it stands in for.

Row-by-row equality with the seed's one-liners, on both paths, is in test_properties.py; these are the
accelerator's own edges.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay.scorers.seed as seed
from assay.text.search import first_occurring_by_definition
from assay.text.seed import punctuation_bitmap

speedups = seed._speedups


def test_the_accelerator_is_built_in_ci() -> None:
    if speedups is None and os.environ.get("CI", "").lower() != "true":
        pytest.skip("no C compiler was used at install; the pure-Python path serves")
    assert speedups is not None, "assay._speedups did not build; `pip install -e .` needs gcc"


needs_speedups = pytest.mark.skipif(speedups is None, reason="the C accelerator is not built here")

CASES = [
    # (lowercased response, lowercased golden answer)
    ("the narmada river valley", "narmada valley"),
    ("valley narmada", "narmada valley"),
    ("राजधानी दिल्ली।", "दिल्ली"),
    ("“delhi”, then mumbai", "delhi"),
    ("$100 in all", "100"),
    ("it was 1947", "1947 to 1947"),
    ("", "anything"),
    ("anything", ""),
    ("anything", " . , "),
    ("a\u00a0b", "b"),  # no-break space is whitespace to str.split
    ("x\U0001d400y \U00010100z", "z"),  # astral letters; U+10100 is punctuation
    ("amalaka", "amalak"),
    ("no no no", "no"),
    ("word" * 10_000, "word"),
]


@needs_speedups
@pytest.mark.parametrize(("response", "answer"), CASES, ids=[f"case-{i}" for i in range(len(CASES))])
def test_c_and_python_paths_agree(response: str, answer: str) -> None:
    in_c = seed._word_overlap_single([response], [answer])
    in_python = seed._word_overlap_single_python([response], [answer])
    assert in_c.outcomes == in_python.outcomes
    assert in_c.extras == in_python.extras


@needs_speedups
def test_rejects_what_is_not_text() -> None:
    assert speedups is not None
    with pytest.raises(TypeError, match="must be str"):
        speedups.word_overlap(["text"], [None], punctuation_bitmap())  # type: ignore[list-item]
    with pytest.raises(ValueError, match="differ in length"):
        speedups.word_overlap(["a", "b"], ["a"], punctuation_bitmap())


FIRST_FOUND_CASES = [
    # (needles, text): the first needle that occurs, as `needle in text` finds it
    (["b", "a"], "abc"),
    (["zz", "bc", "ab"], "abc"),
    (["", "x"], "abc"),  # the empty needle occurs in every text
    (["x", ""], ""),
    (["abcd", "bcd", "cd"], "abcx bcd"),
    (["she", "he", "hers"], "ushers"),  # Aho and Corasick's own example
    (["aab", "ab"], "aaab"),  # a failure link in the middle of a needle
    ([" दिल्ली ", " दिल "], " राजधानी दिल्ली "),
    (["\U0001f600b", "a\U0001f600"], "xa\U0001f600"),  # astral characters
    (["no", "match"], ""),
    ([], "anything"),
    ([f"golden {i}" for i in range(5000)] + ["word 4999"], " ".join(f"word {i}" for i in range(5000))),
]


@needs_speedups
@pytest.mark.parametrize(("needles", "text"), FIRST_FOUND_CASES, ids=[f"case-{i}" for i in range(12)])
def test_first_found_equals_the_definition(needles: list[str], text: str) -> None:
    assert speedups is not None
    assert speedups.first_found(needles, text) == first_occurring_by_definition(needles, text)


@needs_speedups
@settings(max_examples=3000, deadline=None)
@given(
    st.lists(st.text("abc दि\U0001f600", max_size=5), max_size=8), st.text("abc दि\U0001f600", max_size=40)
)
def test_first_found_equals_the_definition_on_any_text(needles: list[str], text: str) -> None:
    assert speedups is not None
    assert speedups.first_found(needles, text) == first_occurring_by_definition(needles, text)


@needs_speedups
def test_first_found_rejects_what_is_not_text() -> None:
    assert speedups is not None
    with pytest.raises(TypeError, match="needles must be str"):
        speedups.first_found(["a", None], "text")  # type: ignore[list-item]
