"""The sweep's core: chunkers (coverage, snapping, offsets, overlap), the BM25 retriever (ties by position,
stopwords, Indic scripts), the span metrics on hand-made spans, and one cell (scopes, freshness)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from assay.errors import InputError, UsageError
from assay.harness.sweep import (
    CellConfig,
    Chunk,
    GoldSpan,
    SpanDocument,
    SpanQuestion,
    SpanSet,
    bm25_retriever,
    budget_k,
    char_chunks,
    run_cell,
    score_spans,
    token_chunks,
)
from assay.harness.sweep.cell import interleaved
from assay.harness.sweep.retrievers import words

PROSE = (
    "The quick brown fox jumps over the lazy dog. Policy wordings name a waiting period of thirty days, "
    "and a cooling-off period of fifteen days follows the purchase.\n\nA second paragraph talks about "
    "claims, co-payments and the room rent limit of one percent of the sum insured per day.\n"
) * 7
UNBROKEN = "x" * 1000
HINDI = "प्रतीक्षा अवधि तीस दिन की है। दावा करने के लिए अस्पताल में भर्ती होना आवश्यक है। " * 20
TEXTS = {"prose": PROSE, "unbroken": UNBROKEN, "hindi": HINDI, "short": "Only a few words.", "one": "a"}
WINDOWS = [(50, 0), (50, 10), (200, 30), (400, 60), (100, 99), (7, 3)]


def doc(text: str, name: str = "d") -> SpanDocument:
    return SpanDocument(name=name, corpus=name, text=text)


def covered(chunks: list[Chunk], size: int) -> bool:
    """Whether the chunks, in order, leave no character of [0, size) out."""
    reach = 0
    for chunk in chunks:
        if chunk.start > reach:
            return False
        reach = max(reach, chunk.end)
    return reach == size


# --- chunkers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunker", [char_chunks, token_chunks])
@pytest.mark.parametrize("name", sorted(TEXTS))
@pytest.mark.parametrize(("size", "overlap"), WINDOWS)
def test_chunks_cover_the_text_in_order_and_are_never_empty(chunker, name, size, overlap):
    text = TEXTS[name]
    chunks = chunker(doc(text), size, overlap)
    assert covered(chunks, len(text))
    assert all(0 <= chunk.start < chunk.end <= len(text) and chunk.document == "d" for chunk in chunks)
    assert [chunk.start for chunk in chunks] == sorted({chunk.start for chunk in chunks})  # strictly rising
    assert chunker(doc(text), size, overlap) == chunks


@pytest.mark.parametrize(("size", "overlap"), [(50, 0), (200, 30), (400, 60)])
def test_char_chunk_boundaries_fall_beside_whitespace_near_the_grid(size, overlap):
    chunks = char_chunks(doc(PROSE), size, overlap)
    step = size - overlap
    moved = 0
    for number, chunk in enumerate(chunks):
        for cut, grid in ((chunk.start, number * step), (chunk.end, number * step + size)):
            if 0 < cut < len(PROSE):
                assert PROSE[cut - 1].isspace() or PROSE[cut].isspace()  # never inside a word
                assert abs(cut - grid) < step / 2
                moved += cut != grid
    assert moved > 0


@pytest.mark.parametrize(
    ("text", "cuts"),
    [
        # size 6: each cut may move 2 characters
        ("aaaaa bbbbb ccccc", [(0, 6), (6, 12), (12, 17)]),  # cuts already between words stay
        ("aaaaaaa bbbbbbb", [(0, 7), (7, 12), (12, 15)]),  # 6 moves to the space; 12 has none near
        ("aaaa  bbbb  cccc", [(0, 6), (6, 12), (12, 16)]),
    ],
)
def test_a_cut_moves_to_the_nearest_place_outside_a_word(text, cuts):
    assert [(chunk.start, chunk.end) for chunk in char_chunks(doc(text), 6, 0)] == cuts


def test_char_chunks_without_overlap_tile_the_text():
    chunks = char_chunks(doc(PROSE), 120, 0)
    assert all(first.end == second.start for first, second in itertools.pairwise(chunks))


def test_char_chunks_overlap_by_about_the_overlap():
    chunks = char_chunks(doc(PROSE), 400, 60)
    overlaps = [first.end - second.start for first, second in itertools.pairwise(chunks)]
    assert all(overlap > 0 for overlap in overlaps)
    assert 40 <= sum(overlaps) / len(overlaps) <= 80


def test_text_without_whitespace_is_cut_on_the_grid():
    assert [(chunk.start, chunk.end) for chunk in char_chunks(doc(UNBROKEN), 300, 0)] == [
        (0, 300), (300, 600), (600, 900), (900, 1000)
    ]  # fmt: skip


@pytest.mark.parametrize("chunker", [char_chunks, token_chunks])
def test_a_document_shorter_than_one_chunk_is_one_chunk(chunker):
    assert chunker(doc("Only a few words."), 400, 60) == [Chunk("d", 0, 17)]


@pytest.mark.parametrize("chunker", [char_chunks, token_chunks])
@pytest.mark.parametrize("text", ["", "   \n "])
def test_an_empty_document_has_no_chunks_or_one_blank(chunker, text):
    assert chunker(doc(text), 10, 0) == ([] if not text else [Chunk("d", 0, len(text))])


@pytest.mark.parametrize("chunker", [char_chunks, token_chunks])
@pytest.mark.parametrize(("size", "overlap"), [(100, 100), (100, 150), (0, 0), (10, -1)])
def test_a_window_that_cannot_step_is_a_usage_error(chunker, size, overlap):
    with pytest.raises(UsageError, match=r"overlap|size"):
        chunker(doc(PROSE), size, overlap)


def test_token_chunks_count_words_and_keep_character_offsets():
    text = "alpha beta, gamma delta. epsilon zeta eta"
    chunks = token_chunks(doc(text), 3, 1)
    assert [text[chunk.start : chunk.end] for chunk in chunks] == [
        "alpha beta, gamma ", "gamma delta. epsilon ", "epsilon zeta eta"
    ]  # fmt: skip


def test_token_chunks_count_devanagari_words_whole():
    chunks = token_chunks(doc("प्रतीक्षा अवधि तीस दिन"), 2, 0)
    assert [(chunk.start, chunk.end) for chunk in chunks] == [(0, 15), (15, 22)]


# --- the BM25 retriever ------------------------------------------------------------------------------


def test_equal_scores_rank_by_chunk_position():
    texts = ["banana bread", "apple pie recipe", "cherry tart", "apple pie recipe", "apple pie recipe"]
    assert bm25_retriever(texts).search(["apple pie"], 5) == [[1, 3, 4]]
    assert bm25_retriever(list(reversed(texts))).search(["apple pie"], 5) == [[0, 1, 3]]


def test_rankings_are_the_same_on_every_build():
    texts = [chunk_text for chunk_text in PROSE.split(". ")]
    queries = ["waiting period days", "room rent limit", "fox dog"]
    assert len({str(bm25_retriever(texts).search(queries, 4)) for _ in range(3)}) == 1


def test_the_better_match_ranks_first_and_k_caps_the_list():
    texts = ["the cat sat", "a dog barked at the cat", "dog dog dog", "nothing here"]
    assert bm25_retriever(texts).search(["dog"], 1) == [[2]]
    assert bm25_retriever(texts).search(["dog"], 10) == [[2, 1]]  # k past the chunks: only the scored


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("the of and is", []),  # only stopwords: nothing to match
        ("zebra quokka", []),  # no chunk has the words
        ("", []),
        ("中文", []),  # another script, no chunk has it
        ("cat", [0, 1]),
    ],
)
def test_a_query_without_known_words_retrieves_nothing(query, expected):
    texts = ["the cat sat", "a dog barked at the cat", "dog dog dog"]
    assert bm25_retriever(texts).search([query], 3) == [expected]


def test_no_chunks_or_no_words_retrieve_nothing():
    assert bm25_retriever([]).search(["cat"], 3) == [[]]
    assert bm25_retriever(["the of", "and"]).search(["the cat"], 3) == [[]]


def test_k_below_one_is_a_usage_error():
    with pytest.raises(UsageError, match="k 0"):
        bm25_retriever(["cat"]).search(["cat"], 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("हिन्दी में लिखा", ["हिन्दी", "में", "लिखा"]),  # vowel signs and viramas stay in the word
        ("தமிழ் மொழி", ["தமிழ்", "மொழி"]),
        ("Waiting-period: 30 days", ["waiting", "period", "30", "days"]),
        ("a I x", []),  # words of one character are not words (as in bm25s)
    ],
)
def test_words_keep_indic_words_whole(text, expected):
    assert words(text) == expected


def test_indic_queries_find_their_chunks():
    texts = ["प्रतीक्षा अवधि तीस दिन की है", "दावा करने के लिए अस्पताल", "காத்திருப்பு காலம் முப்பது நாட்கள்"]
    retriever = bm25_retriever(texts)
    assert retriever.search(["अस्पताल में दावा", "காத்திருப்பு காலம்", "अवधि"], 3) == [[1], [2], [0]]


# --- span metrics ------------------------------------------------------------------------------------


def spans(*triples: tuple[str, int, int]) -> list[GoldSpan]:
    return [GoldSpan(document, start, end) for document, start, end in triples]


def chunks(*triples: tuple[str, int, int]) -> list[Chunk]:
    return [Chunk(document, start, end) for document, start, end in triples]


@pytest.mark.parametrize(
    ("gold", "ranked", "expected"),
    [
        # (recall, precision, iou, hit, reciprocal rank)
        (spans(("a", 10, 20)), chunks(("a", 0, 15)), (0.5, 5 / 15, 5 / 20, False, 1.0)),
        (spans(("a", 10, 20)), chunks(("a", 0, 15), ("a", 10, 30)), (1.0, 10 / 30, 10 / 30, True, 1.0)),
        # overlapping chunks are one union: the overlap counts once in precision
        (spans(("a", 0, 10)), chunks(("a", 0, 10), ("a", 0, 10)), (1.0, 1.0, 1.0, True, 1.0)),
        (spans(("a", 10, 20)), chunks(("a", 50, 60), ("a", 15, 25)), (0.5, 5 / 20, 5 / 25, False, 0.5)),
        (spans(("a", 10, 20)), chunks(("b", 10, 20)), (0.0, 0.0, 0.0, False, 0.0)),  # another document
        (spans(("a", 10, 20)), [], (0.0, 0.0, 0.0, False, 0.0)),
        # two gold spans, one found: recall over the gold characters, hit needs both
        (spans(("a", 0, 10), ("a", 100, 130)), chunks(("a", 95, 140)), (0.75, 30 / 45, 30 / 55, False, 1.0)),
        # overlapping gold spans are asked for once
        (spans(("a", 0, 10), ("a", 5, 20)), chunks(("a", 0, 20)), (1.0, 1.0, 1.0, True, 1.0)),
        # touching chunks contain a span across their border; a gap between them does not
        (spans(("a", 5, 15)), chunks(("a", 0, 10), ("a", 10, 20)), (1.0, 0.5, 0.5, True, 1.0)),
        (spans(("a", 5, 15)), chunks(("a", 0, 9), ("a", 10, 20)), (0.9, 9 / 19, 9 / 20, False, 1.0)),
        (spans(("a", 0, 10), ("b", 0, 10)), chunks(("a", 0, 10), ("b", 0, 10)), (1.0, 1.0, 1.0, True, 1.0)),
        (spans(("a", 5, 5)), chunks(("a", 0, 10)), (0.0, 0.0, 0.0, False, 0.0)),  # no gold characters
    ],
)
def test_span_metrics(gold, ranked, expected):
    score = score_spans(gold, ranked)
    measured = (score.recall, score.precision, score.iou, score.hit, score.reciprocal_rank)
    assert measured == pytest.approx(expected)


@pytest.mark.parametrize(
    ("budget", "size", "k"), [(3200, 400, 8), (3200, 800, 4), (3200, 1600, 2), (3200, 5000, 1), (100, 400, 1)]
)
def test_a_budget_buys_budget_over_size_chunks(budget, size, k):
    assert budget_k(budget, size) == k


# --- one cell ----------------------------------------------------------------------------------------

ANIMALS = (
    "Cats purr when they are content and warm. Dogs bark at strangers near the gate. Horses gallop "
    "across the open field. The owl hunts mice at night in the barn. Goats climb the steep rocky hills."
)
PLANTS = (
    "Ferns grow in deep shade under trees. Roses need full sun and rich soil. The owl statue stands in "
    "the garden. Cacti store water in their thick stems. Moss covers the north side of stones."
)
OWL = ANIMALS.index("The owl hunts"), ANIMALS.index(" Goats")
FERNS = 0, PLANTS.index(" Roses")


def animal_set() -> SpanSet:
    documents = (doc(ANIMALS, "animals"), doc(PLANTS, "plants"))
    questions = (
        SpanQuestion("q1", "Which owl stands in the garden?", "animals", None, (GoldSpan("animals", *OWL),)),
        SpanQuestion("q2", "Where do ferns grow?", "plants", "botany", (GoldSpan("plants", *FERNS),)),
        SpanQuestion("q3", "the of and", "plants", None, (GoldSpan("plants", *FERNS),)),
    )
    return SpanSet(documents=documents, questions=questions, sha256={})


def test_per_document_scope_searches_only_the_gold_documents():
    config = CellConfig(size=200, overlap=0.0, k=1, budget=200)  # each document one chunk
    per_document = run_cell(animal_set(), config)
    pooled = run_cell(animal_set(), replace(config, scope="pooled"))
    assert per_document.scores[0].recall_at_k == 1.0  # its own document: the hunting owl
    assert pooled.scores[0].recall_at_k == 0.0  # pooled, the owl statue of the plants outranks it
    assert [score.id for score in pooled.scores] == ["q1", "q2", "q3"]


def test_a_cell_scores_every_question_with_its_groups():
    result = run_cell(animal_set(), CellConfig(size=60, overlap=0.15, k=2, budget=120))
    assert [(score.id, score.corpus, score.category) for score in result.scores] == [
        ("q1", "animals", None), ("q2", "plants", "botany"), ("q3", "plants", None)
    ]  # fmt: skip
    assert result.scores[1].hit_at_k and result.scores[1].reciprocal_rank == 1.0
    assert result.scores[2].recall_at_k == 0.0  # only stopwords: nothing retrieved, still scored
    assert result.chunks == len(char_chunks(doc(ANIMALS), 60, 9)) + len(char_chunks(doc(PLANTS), 60, 9))
    assert set(result.timings) == {"chunk", "index", "search", "score"}


def test_cells_are_computed_fresh():
    spans_set = animal_set()
    small, large = (run_cell(spans_set, CellConfig(size, 0.0, 1, 200)) for size in (30, 200))
    assert small.scores != large.scores and small.chunks != large.chunks
    assert run_cell(spans_set, CellConfig(30, 0.0, 1, 200)).scores == small.scores


def test_the_token_chunker_runs_a_cell():
    result = run_cell(animal_set(), CellConfig(size=12, overlap=0.25, k=2, budget=120, chunker="tokens"))
    assert result.scores[1].recall_at_k == 1.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"chunker": "sentences"}, "unknown chunker"),
        ({"scope": "global"}, "unknown scope"),
        ({"retriever": "dense"}, "unknown retriever"),
        ({"overlap": 1.0}, "overlap"),
        ({"k": 0}, "k 0"),
    ],
)
def test_a_bad_cell_config_is_a_usage_error(changes, message):
    with pytest.raises(UsageError, match=message):
        run_cell(animal_set(), replace(CellConfig(size=60, overlap=0.0, k=1, budget=60), **changes))


@pytest.mark.parametrize(
    ("size", "overlap", "units"), [(400, 0.15, 60), (800, 0.15, 120), (200, 0.0, 0), (1600, 0.15, 240)]
)
def test_the_overlap_fraction_in_characters(size, overlap, units):
    assert CellConfig(size, overlap, 5, 3200).overlap_units == units


def test_a_gold_span_in_an_unknown_document_is_an_input_error():
    stray = SpanQuestion("q9", "owl", "animals", None, (GoldSpan("insects", 0, 5),))
    spans_set = replace(animal_set(), questions=(stray,))
    with pytest.raises(InputError, match="question q9: a gold span is in 'insects', none of the 2 documents"):
        run_cell(spans_set, CellConfig(size=60, overlap=0.0, k=1, budget=60))


def test_rankings_of_several_documents_interleave_rank_by_rank():
    first, second = chunks(("a", 0, 1), ("a", 1, 2), ("a", 2, 3)), chunks(("b", 0, 1))
    assert interleaved([first, second]) == [first[0], second[0], first[1], first[2]]


def test_a_question_in_two_documents_is_searched_in_both():
    spans_set = animal_set()
    both = SpanQuestion(
        "q4", "owl hunts ferns shade", "mixed", None, (GoldSpan("animals", *OWL), GoldSpan("plants", *FERNS))
    )
    config = CellConfig(size=60, overlap=0.0, k=2, budget=120)
    result = run_cell(replace(spans_set, questions=(both,)), config)
    assert result.scores[0].recall_at_k > 0.9  # the owl's chunk of one, the ferns' of the other
