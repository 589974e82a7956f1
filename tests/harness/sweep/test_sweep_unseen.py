"""The sweep checked again on inputs unlike chunk_eval's: scripts without spaces (Chinese), Hindi and
Chinese XQuAD read in place, grapheme clusters at a cut, malformed spans and documents, pathological
sizes, and the span metrics' invariants on generated retrievals."""

from __future__ import annotations

import csv
import itertools
import json
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.errors import InputError
from assay.harness.sweep import (
    CellConfig,
    CellResult,
    GoldSpan,
    SpanDocument,
    SpanQuestion,
    SpanSet,
    char_chunks,
    load_chunk_eval,
    run_cell,
    run_sweep,
    score_spans,
    token_chunks,
)
from assay.harness.sweep.cell import QuestionScore
from assay.harness.sweep.chunking import MAX_TOKEN
from assay.harness.sweep.retrievers import words
from assay.harness.sweep.rollup import group_rollup
from conftest import skip_or_fail

XQUAD = Path(__file__).resolve().parents[4] / "shared" / "data" / "xquad"


def doc(text: str, name: str = "d") -> SpanDocument:
    return SpanDocument(name=name, corpus=name, text=text)


def mean_recall(spans: SpanSet, config: CellConfig) -> float:
    scores = run_cell(spans, config).scores
    return sum(score.recall_at_k for score in scores) / len(scores)


# --- scripts written without spaces ------------------------------------------------------------------

CHINESE = [
    "等待期为三十天，期间发生的疾病不予赔付。",
    "住院费用按照合同约定的比例报销，床位费每日上限为保额的百分之一。",
    "犹豫期为十五天，投保人可以在犹豫期内无条件退保。",
    "理赔时需要提交医院出具的诊断证明和费用清单。",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("等待期", ["等待", "待期"]),  # a run of Han is its overlapping pairs of characters, as Lucene's CJK
        ("期", ["期"]),  # a lone Han character is a word (a Latin letter alone is not)
        ("保额为10万元 sum insured", ["保额", "额为", "10", "万元", "sum", "insured"]),
        ("ひらがなカタカナ", ["ひら", "らが", "がな", "なカ", "カタ", "タカ", "カナ"]),
        ("The waiting period", ["the", "waiting", "period"]),  # other scripts unchanged
    ],
)
def test_words_of_scripts_without_spaces_are_character_pairs(text, expected):
    assert words(text) == expected


def test_a_chinese_question_finds_its_paragraph():
    text = "\n".join(CHINESE)
    start = text.index("犹豫期为十五天")
    question = SpanQuestion("q", "犹豫期是多少天？", "d", None, (GoldSpan("d", start, start + 7),))
    spans = SpanSet((doc(text),), (question,))
    # one chunk per paragraph or so; without character words the question shares no word with any chunk
    assert mean_recall(spans, CellConfig(size=30, overlap=0.0, k=1, budget=30)) == 1.0


def test_token_chunks_count_each_han_character_as_a_token():
    text = "".join(CHINESE)
    han = sum(1 for character in text if "\u4e00" <= character <= "\u9fff")
    chunks = token_chunks(doc(text), 10, 0)
    assert len(chunks) == -(-han // 10)  # a clause of Han is not one token


# --- XQuAD (SQuAD-format contexts in English, Hindi, Chinese), read in place -------------------------


def xquad_as_chunk_eval(language: str, folder: Path) -> tuple[Path, Path]:
    """XQuAD's contexts joined into one corpus file, each answer's offsets shifted by its context's start,
    and its questions as a chunk_eval CSV; load_chunk_eval then checks every answer against the text."""
    source = XQUAD / f"xquad.{language}.json"
    if not source.is_file():
        skip_or_fail(f"{source} is missing")
    contexts: list[str] = []
    rows: list[dict[str, str]] = []
    offset = 0
    for article in json.loads(source.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                text, start = qa["answers"][0]["text"], offset + qa["answers"][0]["answer_start"]
                reference = {"content": text, "start_index": start, "end_index": start + len(text)}
                references = json.dumps([reference])
                rows.append({"question": qa["question"], "references": references, "corpus_id": language})
            contexts.append(paragraph["context"])
            offset += len(paragraph["context"]) + 2
    corpus = folder / f"{language}.md"
    corpus.write_text("\n\n".join(contexts), encoding="utf-8", newline="")
    questions = folder / f"{language}.csv"
    with open(questions, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["question", "references", "corpus_id"])
        writer.writeheader()
        writer.writerows(rows)
    return corpus, questions


@pytest.mark.parametrize("chunker", ["chars", "tokens"])
@pytest.mark.parametrize("language", ["en", "hi", "zh"])
def test_xquad_recall_is_high_in_every_script(tmp_path, language, chunker):
    corpus, questions = xquad_as_chunk_eval(language, tmp_path)
    spans = load_chunk_eval([corpus], questions)
    assert len(spans.questions) == 1190
    size = 800 if chunker == "chars" else 150
    # measured: 0.98 (en), 0.96 (hi), 0.99 (zh) at 800 characters; Chinese was 0.11 with clauses as words
    assert mean_recall(spans, CellConfig(size=size, overlap=0.15, k=5, budget=3200, chunker=chunker)) > 0.9


# --- grapheme clusters at a cut ----------------------------------------------------------------------

CLUSTERED = {
    "accents without spaces": "e\u0301" * 300,  # a base and its combining acute
    "hindi without spaces": "प्रतीक्षा" * 100,  # consonant, virama, vowel signs
    "zwj families": "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 200,  # one emoji of five code points
    "flags": "\U0001f1ee\U0001f1f3\U0001f1e9\U0001f1ea" * 200,  # regional indicator pairs
    "marks after spaces": "ab \u0301cd " * 60,  # a mark on a space is still the space's
    "crlf": "ab\r\n" * 200,
    "skin tones": "\U0001f44b\U0001f3fd" * 300,
    "prose with accents": "caf\u00e9 cre\u0300me bru\u0302le\u0301e " * 40,
}


def cluster_starts(text: str) -> set[int]:
    return {match.start() for match in regex.finditer(r"\X", text)} | {len(text)}


def test_the_clustered_texts_have_clusters_of_several_code_points():
    for name, text in CLUSTERED.items():
        assert len(cluster_starts(text)) < len(text), name


@pytest.mark.parametrize(("size", "overlap"), [(7, 0), (13, 3), (50, 0), (101, 15), (400, 60)])
@pytest.mark.parametrize("name", sorted(CLUSTERED))
def test_a_char_cut_never_splits_a_grapheme_cluster(name, size, overlap):
    text = CLUSTERED[name]
    chunks = char_chunks(doc(text), size, overlap)
    starts = cluster_starts(text)
    split = [cut for chunk in chunks for cut in (chunk.start, chunk.end) if cut not in starts]
    assert split == []
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(a.start < b.start and b.start <= a.end for a, b in itertools.pairwise(chunks))  # no gap


def test_a_cluster_longer_than_the_reach_is_cut_rather_than_make_an_empty_chunk():
    text = "a" + "\u0301" * 200 + "b"  # one cluster of 201 code points (zalgo)
    chunks = char_chunks(doc(text), 10, 0)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(chunk.start < chunk.end for chunk in chunks)


def test_flags_pair_from_the_start_of_a_long_run():
    text = "a" + "\U0001f1ee\U0001f1f3" * 1500 + "b"  # every flag starts at an odd offset
    chunks = char_chunks(doc(text), 101, 15)
    assert len(chunks) > 30
    assert all(cut % 2 == 1 for chunk in chunks for cut in (chunk.start, chunk.end) if 0 < cut < len(text))


# --- spans and documents a cell cannot measure honestly ----------------------------------------------


def one_question(text: str, *spans: GoldSpan, documents: tuple[SpanDocument, ...] = ()) -> SpanSet:
    question = SpanQuestion("q7", "alpha", "d", None, spans)
    return SpanSet(documents or (doc(text),), (question,))


@pytest.mark.parametrize(
    ("span", "message"),
    [
        (GoldSpan("d", 0, 1000), "past the end"),  # its missing characters would count as never found
        (GoldSpan("d", 20, 25), "past the end"),
        (GoldSpan("d", 10, 5), "ends before it starts"),  # silently no gold: recall 0
        (GoldSpan("d", -3, 4), "before the start"),  # a negative offset counts from the end in Python
    ],
)
def test_a_gold_span_outside_its_document_is_an_input_error_naming_the_question(span, message):
    with pytest.raises(InputError) as raised:
        run_cell(one_question("alpha beta gamma", span), CellConfig(size=400, overlap=0.0, k=5, budget=3200))
    assert message in str(raised.value) and "q7" in str(raised.value)


def test_two_documents_of_one_name_are_an_input_error():
    # one would silently replace the other in the per-document index, and be indexed twice when pooled
    documents = (doc("alpha beta"), doc("gamma delta"))
    spans = one_question("", GoldSpan("d", 0, 5), documents=documents)
    with pytest.raises(InputError, match="two documents named 'd'"):
        run_cell(spans, CellConfig(size=400, overlap=0.0, k=5, budget=3200))


def test_a_span_at_the_very_end_and_an_empty_span_are_measured():
    text = "alpha beta gamma"
    spans = one_question(text, GoldSpan("d", 11, 16), GoldSpan("d", 16, 16))
    score = run_cell(spans, CellConfig(size=6, overlap=0.0, k=5, budget=3200)).scores[0]
    assert score.recall_at_k == 0.0  # "alpha" is not in the chunk with "gamma"
    spans = SpanSet(spans.documents, (replace(spans.questions[0], question="gamma"),))
    score = run_cell(spans, CellConfig(size=6, overlap=0.0, k=5, budget=3200)).scores[0]
    assert (score.recall_at_k, score.hit_at_k) == (1.0, True)


# --- invariants on generated texts and retrievals ----------------------------------------------------

PIECES = ["alpha", "beta", " ", " ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "\u200b", "e\u0301", "等待期",
          "\U0001f1ee\U0001f1f3", "\U0001f468\u200d\U0001f469", "प्र", "x" * 30, ".", "9"]
texts = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)
windows = st.integers(min_value=1, max_value=60).flatmap(
    lambda size: st.tuples(st.just(size), st.integers(min_value=0, max_value=size - 1))
)


@settings(max_examples=150, deadline=None)
@given(text=texts, window=windows, chunker=st.sampled_from([char_chunks, token_chunks]))
def test_chunks_tile_any_text_in_order_without_gaps_or_empty_chunks(text, window, chunker):
    chunks = chunker(doc(text), *window)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(chunk.start < chunk.end for chunk in chunks)
    assert all(a.start < b.start <= a.end and a.end <= b.end for a, b in itertools.pairwise(chunks))


@settings(max_examples=100, deadline=None)
@given(text=texts, size=st.integers(min_value=8, max_value=60))
def test_char_cuts_fall_on_cluster_edges_when_a_cluster_is_within_reach(text, size):
    starts = cluster_starts(text)
    assert all(
        cut in starts for chunk in char_chunks(doc(text), size, 0) for cut in (chunk.start, chunk.end)
    )


def test_an_empty_chunk_inside_a_gold_span_is_not_a_relevant_rank():
    score = score_spans([GoldSpan("d", 0, 2)], [GoldSpan("d", 1, 1), GoldSpan("d", 0, 1)])
    assert (score.recall, score.reciprocal_rank) == (0.5, 0.5)


spans_in = st.tuples(st.integers(0, 200), st.integers(0, 60)).map(
    lambda pair: GoldSpan("d", pair[0], pair[0] + pair[1])
)


@settings(max_examples=300, deadline=None)
@given(gold=st.lists(spans_in, max_size=4), ranked=st.lists(spans_in, max_size=8))
def test_span_metrics_are_bounded_and_consistent(gold, ranked):
    score = score_spans(gold, ranked)
    assert 0 <= score.iou <= min(score.recall, score.precision) <= max(score.recall, score.precision) <= 1
    wanted = any(span.end > span.start for span in gold)
    assert score.hit == (wanted and score.recall == 1.0)  # full containment is all the gold characters
    assert 0 <= score.reciprocal_rank <= 1 and (score.reciprocal_rank > 0) == (score.recall > 0)
    recalls = [score_spans(gold, ranked[:k]).recall for k in range(len(ranked) + 1)]
    assert recalls == sorted(recalls)  # more chunks never find fewer characters


def test_recall_at_k_rises_with_k_for_one_chunking():
    words_ = ["waiting", "period", "thirty", "days", "claims", "room", "rent", "limit", "cooling"]
    words_ += ["off", "fifteen", "sum", "insured"]
    text = " ".join(words_[(i * 7) % len(words_)] for i in range(600))
    questions = tuple(
        SpanQuestion(f"q{i}", f"{words_[i]} {words_[-i]}", "d", None, (GoldSpan("d", i * 97, i * 97 + 120),))
        for i in range(1, len(words_))
    )
    spans = SpanSet((doc(text),), questions)
    means = [mean_recall(spans, CellConfig(size=120, overlap=0.15, k=k, budget=120)) for k in range(1, 9)]
    assert means == sorted(means) and means[-1] > means[0]


# --- questions files and sweeps of one's own ---------------------------------------------------------

NOTES = "The waiting period is thirty days. Claims need a hospital bill and a discharge summary. " * 40


def notes_questions(folder: Path, questions: list[str], encoding: str = "utf-8") -> tuple[Path, Path]:
    corpus = folder / "notes.md"
    corpus.write_text(NOTES, encoding="utf-8")
    start = NOTES.index("thirty days")
    reference = json.dumps([{"content": "thirty days", "start_index": start, "end_index": start + 11}])
    path = folder / "questions.csv"
    with open(path, "w", encoding=encoding, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["question", "references", "corpus_id"])
        writer.writeheader()
        writer.writerows({"question": q, "references": reference, "corpus_id": "notes"} for q in questions)
    return corpus, path


def test_a_questions_csv_saved_with_a_byte_order_mark_loads(tmp_path):
    # Excel's "CSV UTF-8" starts the file with U+FEFF, which made the first column "\ufeffquestion"
    corpus, questions = notes_questions(tmp_path, ["How long is the waiting period?"], encoding="utf-8-sig")
    spans = load_chunk_eval([corpus], questions)
    assert [question.question for question in spans.questions] == ["How long is the waiting period?"]


def test_a_sweep_whose_questions_find_nothing_is_not_flagged_broken(tmp_path):
    # German questions on an English corpus share no word with it: every cell retrieves nothing, so every
    # cell scores 0 for every question. That is a true result, not a stale one shared by the cells.
    corpus, questions = notes_questions(tmp_path, ["Wie lange dauert die Wartezeit?", "Welche Unterlagen?"])
    sweep = run_sweep(load_chunk_eval([corpus], questions), [200, 400], [0.0, 0.15])
    assert sweep.broken is None
    assert all(cell.result.scores[0].recall_at_k == 0.0 for cell in sweep.cells)


def test_a_sweep_of_documents_its_top_k_covers_whole_is_not_flagged_broken(tmp_path):
    # 3,520 characters are 5 chunks at 800/0.15 and 3 at 1600: k = 5 retrieves every chunk that has a
    # query word, so both cells return the whole document and score alike, truly.
    corpus, questions = notes_questions(tmp_path, ["waiting period thirty days", "the a of"])
    sweep = run_sweep(load_chunk_eval([corpus], questions), [800, 1600], [0.0, 0.15])
    assert sweep.cells[1].result.scores == sweep.cells[2].result.scores  # 800/0.15 and 1600/0
    assert sweep.broken is None


def test_a_stale_cell_on_short_documents_is_still_flagged_broken(tmp_path):
    corpus, questions = notes_questions(tmp_path, ["waiting period thirty days"])
    spans = load_chunk_eval([corpus], questions)
    first: list[CellResult] = []

    def stale(spans: SpanSet, config: CellConfig) -> CellResult:  # every cell re-reads the first's result
        first.extend([] if first else [run_cell(spans, config)])
        return replace(first[0], config=config)

    sweep = run_sweep(spans, [800, 1600], [0.0], cell=stale)
    assert sweep.broken is not None and "size 1600 overlap 0" in sweep.broken


def test_the_rollup_of_many_questions_bootstraps_in_bounded_memory():
    # 2,000 resamples of n questions were two (2,000 x n) arrays of int64: 640 MB at n = 20,000
    scores = [
        QuestionScore(f"q{i}", "c", None, (i % 7) / 7, (i % 5) / 5, 0.1, 0.05, i % 3 == 0, 1 / (1 + i % 4))
        for i in range(20_000)
    ]
    tracemalloc.start()
    try:
        rolled = group_rollup(scores)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20
    interval = rolled.intervals["recall_at_k"]
    assert interval is not None and interval.low < rolled.means["recall_at_k"] < interval.high


# --- pathological sizes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "overlap", "units"), [(2, 0.9, 1), (1, 0.99, 0), (10, 0.99, 9), (400, 0.15, 60)]
)
def test_an_overlap_fraction_below_1_is_always_fewer_characters_than_the_size(size, overlap, units):
    # round(2 * 0.9) is 2, the whole size: the cell failed after the cells before it had run
    config = CellConfig(size=size, overlap=overlap, k=5, budget=10)
    assert config.overlap_units == units
    run_cell(one_question(NOTES[:200], GoldSpan("d", 4, 11)), config)


@pytest.mark.parametrize(
    ("size", "k", "budget"), [(1, 1, 1), (10_000, 5, 3200), (50, 1000, 3200), (400, 5, 10), (3, 2, 2)]
)
def test_extreme_sizes_k_and_budgets_give_bounded_scores(size, k, budget):
    spans = one_question(NOTES[:500], GoldSpan("d", 4, 11), GoldSpan("d", 490, 500))
    score = run_cell(spans, CellConfig(size=size, overlap=0.0, k=k, budget=budget)).scores[0]
    for value in (score.recall_at_k, score.recall_at_budget, score.precision_at_k, score.iou):
        assert 0.0 <= value <= 1.0


# --- scopes, repeated and overlapping spans ----------------------------------------------------------


@pytest.mark.parametrize("chunker", ["chars", "tokens"])
def test_pooled_and_per_document_agree_on_a_single_document(chunker):
    questions = tuple(
        SpanQuestion(f"q{i}", query, "d", None, (GoldSpan("d", i * 90, i * 90 + 40),))
        for i, query in enumerate(["waiting period", "hospital bill", "discharge", "claims", "thirty"])
    )
    spans = SpanSet((doc(NOTES),), questions)
    size = 150 if chunker == "chars" else 25
    config = CellConfig(size=size, overlap=0.15, k=3, budget=600, chunker=chunker)
    assert run_cell(spans, config).scores == run_cell(spans, replace(config, scope="pooled")).scores


def test_repeated_and_overlapping_spans_count_each_character_once():
    config = CellConfig(size=100, overlap=0.0, k=2, budget=200)
    once = run_cell(one_question(NOTES, GoldSpan("d", 10, 60)), config).scores[0]
    repeated = run_cell(one_question(NOTES, *[GoldSpan("d", 10, 60)] * 3, GoldSpan("d", 20, 40)), config)
    assert repeated.scores[0] == once


def test_a_question_with_spans_in_two_documents_interleaves_their_rankings():
    unique = {"a": "The cooling-off period is fifteen days. ", "b": "Room rent is capped at one percent. "}
    documents = tuple(doc(NOTES[:900] + sentence + NOTES[:900], name) for name, sentence in unique.items())
    gold = tuple(GoldSpan(name, 900, 900 + len(sentence) - 1) for name, sentence in unique.items())
    spans = SpanSet(documents, (SpanQuestion("q", "cooling-off fifteen room rent capped", "a", None, gold),))
    score = run_cell(spans, CellConfig(size=100, overlap=0.0, k=2, budget=200)).scores[0]
    assert score.hit_at_k  # the top chunk of each document, one after the other
    alone = run_cell(spans, CellConfig(size=100, overlap=0.0, k=1, budget=100)).scores[0]
    lengths = [span.end - span.start for span in gold]
    assert alone.recall_at_k == lengths[0] / sum(lengths)  # k = 1: only document a's best chunk


def test_a_document_without_spaces_is_several_token_windows_not_one():
    # a run of 20,000 letters (a base64 blob, a script without spaces) was one token, so one chunk: the
    # whole document, found by any question about it at k = 1
    text = "aGVsbG8gd29ybGQ" * 1000 + " tail"
    chunks = token_chunks(doc(text), 10, 0)
    assert len(chunks) > 5
    assert max(chunk.end - chunk.start for chunk in chunks) <= 10 * MAX_TOKEN + 1


def test_a_long_token_is_never_cut_before_a_mark():
    text = "e\u0301" * 1000
    starts = cluster_starts(text)
    assert all(chunk.start in starts for chunk in token_chunks(doc(text), 3, 1))
