"""Traces: every verdict says what the metric saw, the rule that decided, and where it matched."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
import regex
from cli_run import NEEDS_MORE_INPUTS, run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_unicode_profile import TEXT

from assay import SCORERS, ScoreOptions, score
from assay.scorers.hard_fact import pattern_of
from assay.text import align, unicode
from assay.trace import BLANK, traces
from assay.values import Value, expected_regex

# Every metric whose inputs the example has (it has a lang column, no pattern column), named.
EVERY_METRIC = [flag for name in SCORERS if name not in NEEDS_MORE_INPUTS for flag in ("--metric", name)]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "qa_responses.csv"


def traced(golden: str, response: str, metric: str, **extra: str) -> tuple[str, str, tuple[int, int] | None]:
    """(outcome, rule, matched text or None) of one row under one metric."""
    frame = pd.DataFrame(
        {"question": ["q"], "answer": [golden], "response": [response], **{k: [v] for k, v in extra.items()}}
    )
    found = traces(score(frame, [metric], options=ScoreOptions(inflection=True)), 0)[metric]
    return found.outcome, found.rule, found.span


@pytest.mark.parametrize(
    ("metric", "golden", "response", "matched"),
    [
        ("exact_substring", "Delhi", "New DELHI is the capital", "DELHI"),
        ("exact_substring", "हिमालय", "यह हिमालयी पर्वत", "हिमालय"),  # ends before a vowel sign
        ("exact_substring", "straße", "Die STRAẞE und die Straße", "STRAẞE"),  # ẞ lowercases to ß
        ("phrase_match", "New Delhi", "It is  new\u00a0delhi.", "new\u00a0delhi"),
        ("phrase_match", "Bangalore", "in Banga\u00adlore today", "Banga\u00adlore"),  # soft hyphen inside
        ("phrase_match", "1947", "भारत १९४७ में स्वतंत्र हुआ", "१९४७"),  # Indic digits
        ("phrase_match", "कण्णूर", "x कण्णूर।", "कण्णूर"),
        ("phrase_match", "കണ്ണൂർ", "ഇത് കണ്ണൂര്\u200d ജില്ല", "കണ്ണൂര്\u200d"),  # chillu spelled with a ZWJ
        ("phrase_match", "Strasse", "the STRAẞE", "STRAẞE"),  # ẞ casefolds to two letters
        ("phrase_match", "temple", "Two temples stand", "temples"),  # a soft pass has its span too
        ("phrase_match", "café", "Cafe\u0301 Coffee", "Cafe\u0301"),  # NFD in the response
        ("token_em", "the Eiffel Tower", "  The Eiffel  Tower. ", "The Eiffel  Tower"),
    ],
)
def test_the_span_is_where_the_golden_answer_stands_in_the_original(
    metric: str, golden: str, response: str, matched: str
) -> None:
    outcome, _, span = traced(golden, response, metric)
    assert outcome in ("pass", "soft_pass")
    assert span is not None
    assert response[span[0] : span[1]] == matched


def test_hard_fact_span_covers_the_pattern_match() -> None:
    response = "Claims are paid within ३० days, not 300."
    outcome, rule, span = traced("30 days", response, "hard_fact", expected_regex=r"30\s+days")
    assert (outcome, span and response[span[0] : span[1]]) == ("pass", "३० days")
    # What was expected and what matched, as the response wrote it; the pattern as the user wrote it:
    # one backslash (issue 10; it used to be shown doubled).
    assert rule == "expected '30 days' (golden answer); matched '३० days' at 23-30 (pattern '30\\s+days')"


@pytest.mark.parametrize(
    ("response", "rule_starts", "rule_has"),
    [
        ("The waiting period is 24 months.",
         "expected '24 months' (golden answer); matched '24 months' at 22-31", "characters)"),
        ("The waiting period is Two Years.",
         "expected '24 months' (golden answer); matched 'Two Years' at 22-31", "characters)"),
        ("It was set in 2024, not 24 months.", "no variant of '24 months' (golden answer) found as a whole",
         "characters)"),
    ],
)  # fmt: skip
def test_a_generated_pattern_is_traced_by_its_value_not_shown_whole(
    response: str, rule_starts: str, rule_has: str
) -> None:
    pattern = expected_regex(Value("number_unit", 24, "month"))
    assert pattern is not None and len(pattern) > 200
    _, rule, _ = traced("24 months", response, "hard_fact", expected_regex=pattern)
    assert rule.startswith(rule_starts) and rule_has in rule
    assert pattern not in rule and len(rule) < len(pattern)


def test_no_span_rather_than_a_wrong_one() -> None:
    # str.lower writes a final sigma at a word's end, which no code point lowercased alone gives.
    outcome, _, span = traced("ΟΔΟΣ", "Η ΟΔΟΣ", "exact_substring")
    assert (outcome, span) == ("pass", None)


@pytest.mark.parametrize(
    ("metric", "golden", "response", "outcome", "rule"),
    [
        (
            "exact_substring",
            "Delhi",
            "Mumbai",
            "fail",
            "no golden answer, lowercased, occurs in the lowercased response",
        ),
        (
            "word_overlap",
            "Chola dynasty",
            "the Chola kings",
            "fail",
            "1 of 2 golden words occur among the response's words; missing: dynasty",
        ),
        (
            "phrase_match",
            "Narmada valley",
            "the valley of the Narmada",
            "fail",
            "the golden words do not occur as a contiguous run of whole words "
            "(each occurs, but not together in this order)",
        ),
        (
            "phrase_match",
            "Narmada valley",
            "the Narmada river",
            "fail",
            "the golden words do not occur as a contiguous run of whole words (absent: valley)",
        ),
        (
            "phrase_match",
            "?",
            "anything",
            "unscored",
            "the golden answer has no words (empty or punctuation only)",
        ),
        (
            "phrase_match",
            "amalak",
            "an Amalaka on top",
            "soft_pass",
            "a soft pass: the golden words occur only with inflections tolerated "
            "(latin plural/trailing vowel: 'amalak' ~ 'amalaka')",
        ),
        (
            "token_f1",
            "Vincent van Gogh",
            "van Gogh",
            "fail",
            "token F1 0.800 with the best golden answer: 2 tokens in common; precision 2/2, recall 2/3",
        ),
        (
            "squad_em",
            "the Eiffel Tower",
            "Eiffel tower!",
            "pass",
            "the response's tokens equal the golden answer's",
        ),
        ("phrase_match", "Delhi", "   ", "fail", BLANK),
    ],
)
def test_the_rule_says_what_decided(metric: str, golden: str, response: str, outcome: str, rule: str) -> None:
    assert traced(golden, response, metric)[:2] == (outcome, rule)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, TEXT)
def test_a_phrase_match_span_normalises_to_the_golden_words(before: str, golden: str, after: str) -> None:
    response = f"{before} {golden} {after}"
    frame = pd.DataFrame({"question": ["q"], "answer": [golden], "response": [response]})
    run = score(frame, ["phrase_match", "exact_substring"])
    phrase, exact = (traces(run, 0)[m] for m in ("phrase_match", "exact_substring"))
    if response.isascii():  # no context rule can stop the alignment here: a pass must have its span
        assert phrase.outcome != "pass" or phrase.span is not None
        assert exact.outcome != "pass" or not golden or exact.span is not None  # "" matches nowhere
    if phrase.outcome == "pass" and phrase.span is not None:
        start, end = phrase.span
        assert unicode.words(unicode.normalise(response[start:end])) == unicode.words(
            unicode.normalise(golden)
        )
    if exact.outcome == "pass" and exact.span is not None:
        start, end = exact.span
        # The span covers the match; it can be more where the match ends inside one code point's
        # lowercase (İ lowercases to i and a combining dot, and "i" matches the first of them).
        assert golden.lower() in response[start:end].lower()


@settings(max_examples=200, deadline=None)
@given(TEXT, st.sampled_from(["30 days", "1947", "९०%", "Delhi"]))
def test_a_hard_fact_span_holds_a_match(text: str, fact: str) -> None:
    response = f"{text} {fact} {text}"
    frame = pd.DataFrame(
        {"question": ["q"], "answer": [fact], "response": [response], "expected_regex": [fact]}
    )
    found = traces(score(frame, ["hard_fact"]), 0)["hard_fact"]
    if found.span is not None:
        assert pattern_of(fact, "").search(unicode.fold(response[found.span[0] : found.span[1]]))


def test_out_has_a_trace_per_metric_that_agrees_with_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.csv"
    argv = [
        "score",
        "--responses",
        str(EXAMPLE),
        "--out",
        str(out),
        "--trace-col",
        "--inflection",
        *EVERY_METRIC,
    ]
    assert run(argv, capsys)[0] == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 56
    for row in rows:
        found = json.loads(row["trace"])
        assert (
            found["exact_substring"]["outcome"] == {"True": "pass", "False": "fail"}[row["exact_substring"]]
        )
        soft = row["phrase_match_soft"] == "True"
        expected = (
            "soft_pass" if soft else {"True": "pass", "False": "fail", "": "unscored"}[row["phrase_match"]]
        )
        assert found["phrase_match"]["outcome"] == expected
        assert float(row["token_f1"]) == found["token_f1"]["score"]
        for name, one in found.items():
            if one["span"] is not None:
                assert one["outcome"] in ("pass", "soft_pass"), name


@pytest.mark.parametrize("workers", [1, 2])
def test_trace_file_has_a_line_per_row_in_input_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    import assay.parallel

    monkeypatch.setattr(assay.parallel, "MIN_BYTES_PER_WORKER", 1)  # two processes even for 56 rows
    path = tmp_path / f"traces{workers}.jsonl"
    argv = [
        "score",
        "--responses",
        str(EXAMPLE),
        "--trace",
        str(path),
        "--workers",
        str(workers),
        *EVERY_METRIC,
    ]
    assert run(argv, capsys)[0] == 0
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ids = [row["id"] for row in csv.DictReader(EXAMPLE.open(encoding="utf-8"))]
    assert [line["id"] for line in lines] == ids
    assert set(lines[0]["traces"]) == {
        "exact_substring",
        "word_overlap",
        "phrase_match",
        "token_f1",
        "token_em",
        "squad_em",
        "squad_f1",
        "mlqa_em",
        "mlqa_f1",
        "value_match",
    }
    assert not list(tmp_path.glob(".*part*"))


def test_explain_prints_one_row(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "explain",
        "--responses",
        str(EXAMPLE),
        "--id",
        "geo-hi-04",
        "--metric",
        "phrase_match",
        "--inflection",
    ]
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert "phrase_match: soft_pass" in out
    assert "span:     [7, 14) 'हिमालयी'" in out
    assert "snowball hindi stem" in out


def test_explain_an_unknown_id_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["explain", "--responses", str(EXAMPLE), "--id", "nope"], capsys)
    assert code == 2
    assert "no row has the id 'nope' (the first ids are: art-01, " in err


SPAN_METRICS = ["exact_substring", "phrase_match", "token_em", "hard_fact"]


def spans(golden: str, response: str, nfc: bool = False) -> dict[str, tuple[int, int] | None]:
    frame = pd.DataFrame(
        {
            "question": ["q"],
            "answer": [golden],
            "response": [response],
            "expected_regex": [regex.escape(golden)],
        }
    )
    run = score(frame, SPAN_METRICS, options=ScoreOptions(nfc=nfc))
    return {metric: trace.span for metric, trace in traces(run, 0).items()}


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, TEXT, st.booleans())
def test_a_long_response_cut_into_chunks_has_the_spans_of_one_chunk(
    before: str, golden: str, after: str, nfc: bool
) -> None:
    # Chunks of one character: every place the aligner may cut is cut. Where the whole text aligns, the
    # chunks give its spans; they may give one where it does not (a final sigma in another chunk), and
    # then it holds the match.
    response = f"{before} {golden} {after}"
    whole = spans(golden, response, nfc)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(align, "CHUNK", 1)
        chunked = spans(golden, response, nfc)
    assert {m: s for m, s in chunked.items() if whole[m] is not None} == {m: s for m, s in whole.items() if s}
    if chunked["exact_substring"] is not None:
        start, end = chunked["exact_substring"]
        assert golden.lower() in response[start:end].lower()


@pytest.mark.parametrize(
    ("golden", "filler"),
    [
        ("Delhi", "the river valley, "),
        ("दिल्ली", "राजधानी नदी। "),
        ("കണ്ണൂർ", "ഇത് ജില്ല "),
        ("കണ്ണൂര്\u200d", "ഇത് ജില്ല "),  # a chillu spelled with a ZWJ
        ("北京", "上海和广州"),  # no spaces: cut between ideographs
    ],
)
def test_a_span_deep_in_a_long_response_is_where_it_stands(golden: str, filler: str) -> None:
    prefix = filler * (3 * align.CHUNK // len(filler))
    response = f"{prefix} {golden} {filler}"
    found = spans(golden, response)
    assert found.pop("token_em") is None  # the response is far more than the golden answer
    if "\u200d" in golden:  # hard_fact's pattern keeps the joiner the folded response has not
        assert found.pop("hard_fact") is None
    for metric, span in found.items():
        assert span is not None, metric
        assert unicode.normalise(response[span[0] : span[1]]) == unicode.normalise(golden), metric
        assert span[0] > len(prefix) - len(filler)


def test_a_long_text_in_a_written_trace_says_its_real_length(tmp_path: Path) -> None:
    """A response longer than a trace shows is cut once, and the note gives the whole text's length."""
    response = "the capital is New Delhi. " + "x" * 6_000
    frame = pd.DataFrame({"question": ["q"], "answer": ["New Delhi"], "response": [response]})
    run_ = score(frame, ["exact_substring", "word_overlap"])
    for name, found in traces(run_, 0).items():
        shown = found.as_dict()["response"]
        assert shown.endswith(f" [... {len(response):,} characters in all]"), name
        assert shown.count("characters in all") == 1
