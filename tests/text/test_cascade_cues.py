"""The cascade asks the judge where matchers are blind (issue 9, item 8): the lexicon of negation,
contrast and hedge cues matched as whole words under the unicode profile, the rule for responses that
name several candidates, and the cascade sending such rows to a real judge (llama.cpp on 127.0.0.1)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from assay import build_report, load_records, score, summary_dict
from assay.judges.accounting import judge_summary
from assay.judges.metric import CASCADE, JudgeSetup, with_judge
from assay.judges.spec import parse_spec
from assay.report.html import render_html
from assay.report.text import render_text
from assay.scorer_registry import declared
from assay.text import cues, unicode
from conftest import Server


@pytest.mark.parametrize(
    ("response", "cue"),
    [
        ("The answer is not Delhi, but Ganga", "not"),
        ("No, it is Agra", "no"),
        ("It was never Delhi", "never"),
        ("I don't think it is Delhi", "n't"),  # don't -> "don t" once the apostrophe is a space
        ("It isn\u2019t Delhi", "n't"),  # a typographic apostrophe too
        ("Delhi, however the seat moved", "however"),
        ("Agra instead of Delhi", "instead"),
        ("Maybe Delhi", "maybe"),
        ("PERHAPS DELHI", "perhaps"),  # casefolded
        ("दिल्ली नहीं, आगरा", "नहीं"),  # Hindi
        ("शायद दिल्ली", "शायद"),
        ("दिल्ली मत कहो", "मत"),
        ("दिल्ली लेकिन पुरानी", "लेकिन"),
        ("दिल्ली बल्कि आगरा", "बल्कि"),
        ("அது டெல்லி இல்லை", "இல்லை"),  # Tamil
        ("ஆனால் டெல்லி", "ஆனால்"),
        ("எனக்குத் தெரியவில்லை", "தெரியவில்லை"),  # negation fused into the verb: counted by its ending
        ("এটা দিল্লি না", "না"),  # Bengali
        ("দিল্লি নয়", unicode.normalise("নয়")),  # য় typed precomposed; NFC decomposes it
        ("কিন্তু দিল্লি", "কিন্তু"),
        ("হয়তো দিল্লি", unicode.normalise("হয়তো")),
        ("అది ఢిల్లీ కాదు", "కాదు"),  # Telugu
        ("ಅದು ದೆಹಲಿ ಅಲ್ಲ", "ಅಲ್ಲ"),  # Kannada
        ("അത് ഡൽഹി അല്ല", "അല്ല"),  # Malayalam
        ("ते दिल्ली नाही", "नाही"),  # Marathi
        ("તે દિલ્હી નથી", "નથી"),  # Gujarati
        ("ਸ਼ਾਇਦ ਦਿੱਲੀ", unicode.normalise("ਸ਼ਾਇਦ")),  # Punjabi, the nukta letter as typed
        ("یہ دہلی نہیں", "نہیں"),  # Urdu
    ],
)
def test_a_cue_is_found_as_a_whole_word(response: str, cue: str) -> None:
    assert cues.cue_in(response) == cue
    assert cues.cue_in(unicodedata.normalize("NFD", response)) == cue  # the profile's NFC first


@pytest.mark.parametrize(
    "response",
    [
        "Note the capital: Delhi",  # note is not no/not
        "Nothing else comes close: Delhi",  # nothing is not no
        "I know it is Delhi",  # know is not no
        "Notable people of Delhi",  # notable is not not
        "Butter chicken comes from Delhi",  # butter is not but
        "Nobel laureates gathered in Delhi",
        "Cannon fire was heard in Delhi",  # a word ending in n, then no lone t
        "The Delhi Metro runs on time",
        "दिल्ली यमुना नदी पर स्थित है",  # Hindi पर here is "on", left out of the lexicon
        "नयी दिल्ली",  # न inside a word is not the word न
        "நல்ல டெல்லி",  # Tamil நல்ல "good": no Tamil negative ending
        "ಎಲ್ಲ ದೆಹಲಿ",  # Kannada ಎಲ್ಲ "all" ends in ಲ್ಲ, not a negative ending
        "നല്ല ഡൽഹി",  # Malayalam നല്ല "good"
        "",
    ],
)
def test_no_cue_inside_other_words(response: str) -> None:
    assert cues.cue_in(response) is None


@pytest.mark.parametrize(
    ("response", "answers", "several"),
    [
        ("Delhi or Mumbai", ["Delhi"], True),  # alternatives
        ("Either Delhi, maybe", ["Delhi"], True),
        ("दिल्ली या मुंबई", ["दिल्ली"], True),
        ("டெல்லி அல்லது மும்பை", ["டெல்லி"], True),
        ("Delhi, Mumbai, Kolkata", ["Delhi"], True),  # a list of answer-shaped pieces
        ("Delhi and Mumbai", ["Delhi"], True),
        ("Delhi; Agra", ["Delhi"], True),
        ("Vincent van Gogh / Paul Gauguin", ["Vincent van Gogh"], True),
        ("Delhi", ["Delhi"], False),
        ("New Delhi", ["Delhi"], False),
        ("Delhi, India", ["Delhi, India"], False),  # every piece holds a golden word
        ("Painted by Vincent van Gogh in 1889, while he was at the asylum", ["Vincent van Gogh"], False),
        ("The capital of India is Delhi, a city on the Yamuna", ["Delhi"], False),  # clauses, not a list
        ("Salt and pepper", ["Salt and pepper"], False),  # the golden answer itself holds "and"
    ],
)  # fmt: skip
def test_several_candidates(response: str, answers: list[str], several: bool) -> None:
    assert cues.names_several_candidates(response, answers) is several


def test_every_cue_is_one_word_of_the_profile() -> None:
    """A cue the profile would split (or empty) could never match as a whole word."""
    listed = [w for kinds in cues.CUES.values() for words in kinds.values() for w in words]
    for word in [*listed, *cues.ALTERNATIVES, *cues.CONJUNCTIONS]:
        assert len(unicode.words(unicode.normalise(word))) == 1, word
    assert f"cues:{cues.VERSION}" == cues.SIGNATURE


ROWS = [  # id, golden, response, why the cascade decides or sends it
    ("deny", "Delhi", "The answer is not Delhi, but Ganga", "sent_for_a_cue"),
    ("clear", "Delhi", "Delhi", "all_matchers_passed"),
    ("wrong", "Delhi", "Mumbai", "all_matchers_failed_no_golden_word"),
    ("either", "Delhi", "Delhi or Mumbai", "sent_for_several_candidates"),
    ("hindi", "दिल्ली", "दिल्ली नहीं, मुंबई", "sent_for_a_cue"),
    ("list", "Delhi", "Delhi, Mumbai, Kolkata", "sent_for_several_candidates"),
    ("unsure", "Delhi", "I am not sure", "sent_for_a_cue"),  # all fail, no golden word, but a cue
    ("partial", "New Delhi", "Delhi", "sent_matchers_undecided"),
]


def test_the_cascade_sends_rows_with_cues_to_the_judge(llama_server: Server, tmp_path: Path) -> None:
    data = tmp_path / "cues.csv"
    lines = ["id,question,answer,response"] + [f'{i},Capital of India?,{g},"{r}"' for i, g, r, _ in ROWS]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    setup = JudgeSetup((parse_spec(llama_server.spec()),), cascade=True)
    run = score(load_records(data), with_judge(["judge", *declared("cascade")], setup))
    judge = judge_summary(run.summary)
    assert judge is not None
    expected = {reason: sum(row[3] == reason for row in ROWS) for reason in {row[3] for row in ROWS}}
    assert {k: v for k, v in judge.cascade.items() if v} == expected
    by = dict(zip((row[0] for row in ROWS), run.metrics["judge"].texts["judge_by"]))
    decided = {row[0] for row in ROWS if row[3].startswith("all_")}
    assert {i for i, label in by.items() if label == CASCADE} == decided
    assert all(by[i] == llama_server.label for i in by if i not in decided)  # the judge saw each of them
    assert judge.sent_to_judges == len(ROWS) - len(decided) and judge.decided_by_cascade == len(decided)
    assert "|cascade:on|cues:1|" in run.summary.metrics["judge"].signature
    assert summary_dict(run.summary)["judge"]["cascade"] == judge.cascade
    said = (
        "cascade: 2 rows decided (1 all matchers passed, 1 all failed with no golden word); 6 sent to the "
        "judges (3 for a negation, contrast or hedge cue, 2 for naming several candidates, 1 where the "
        "matchers disagreed or a golden word was there)"
    )
    assert said in render_text(build_report(run.summary))
    assert said in render_html(build_report(run))


def test_without_the_cascade_no_cue_is_looked_at() -> None:
    setup = JudgeSetup((), cascade=False)
    assert "cues:" not in setup.signature() and "cascade:off" in setup.signature()
