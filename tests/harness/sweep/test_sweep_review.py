"""The sweep probed again on its review: the cost of a high overlap, gold sets of real PDFs of one's own
(a quote across a page break, a page without text, dozens of pages, two documents and an unrelated one in
the sources folder, refusals only, an empty file) and the house's intervals behind the rollup."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import regex

from assay.errors import InputError, UsageError
from assay.harness.sweep import (
    CellConfig,
    CellResult,
    GoldSpan,
    SpanDocument,
    SpanQuestion,
    SpanSet,
    run_cell,
)
from assay.harness.sweep.cell import MAX_CHUNKED_CHARACTERS, chunked_characters
from assay.harness.sweep.sweep import run_sweep

# --- what a high overlap costs ---------------------------------------------------------------------------

BIG = "claims are paid within thirty days of the bill " * 45_000  # 2.1 million characters


def big_spans() -> SpanSet:
    question = SpanQuestion("q1", "when are claims paid?", "big", None, (GoldSpan("big", 0, 40),))
    return SpanSet((SpanDocument("big", "big", BIG),), (question,))


@pytest.mark.parametrize(
    ("overlap", "repeats", "refused"),
    [
        (0.99, 100, True),  # a step of 16 characters: 210 million of them
        (0.98, 50, True),  # a step of 32: 105 million
        (0.95, 20, False),  # a step of 80: 42 million
        (0.15, 1600 / 1360, False),
    ],
)
def test_a_cell_that_would_repeat_the_text_past_the_limit_is_refused(overlap, repeats, refused):
    spans, config = big_spans(), CellConfig(1600, overlap, k=5, budget=3200)
    estimate = chunked_characters(spans, config)
    assert estimate == pytest.approx(len(BIG) * repeats, rel=1e-6)
    assert (estimate > MAX_CHUNKED_CHARACTERS) is refused
    if refused:  # at once: before this, 0.99 took minutes and gigabytes
        with pytest.raises(UsageError, match=r"repeated \d+ times by the overlap") as raised:
            run_cell(spans, config)
        assert "smaller overlap" in str(raised.value.fix)


def test_a_sweep_refuses_a_costly_cell_before_it_runs_any():
    ran: list[CellConfig] = []

    def counting(spans: SpanSet, config: CellConfig) -> CellResult:
        ran.append(config)
        return run_cell(spans, config)

    with pytest.raises(UsageError, match=r"size 400 overlap 0\.99"):
        run_sweep(big_spans(), [400, 1600], [0.0, 0.99], cell=counting)
    assert ran == []


def test_a_short_document_is_one_chunk_whatever_the_overlap():
    spans = SpanSet((SpanDocument("d", "d", "short text"),), ())
    assert chunked_characters(spans, CellConfig(1600, 0.99, k=5, budget=3200)) == len("short text")


# --- gold sets of one's own, over real PDFs ----------------------------------------------------------------

FILLER = tuple(f"Clause {i}. The insured keeps records of item {i} for audit." for i in range(6))
CLAIMS = "Claims must be intimated within 48 hours of admission."
NOTICE = "The notice period is 60 days for cancellation by the insurer."
GRACE = "The grace period for renewal is thirty days from the due date of the premium"


def acme_pages() -> list[tuple[str, ...]]:
    """40 pages: the grace period quote runs from page 5 onto page 6, page 11 has no text (a scan),
    page 21 holds the claims clause; the others are filler."""
    pages = [(f"Page {number} of the Acme policy wording.", *FILLER) for number in range(1, 41)]
    pages[4] = ("Section 5. The grace period for renewal is thirty days from the due",)
    pages[5] = ("date of the premium, without loss of continuity.", "More text here.")
    pages[10] = ()
    pages[20] = ("Section 21. Claims must be intimated within 48 hours of admission.",)
    return pages


def claim(field: str, value: int, path: str, quote: str) -> dict[str, object]:
    return {"field": field, "value": value, "source": {"path": path, "quote": quote}}


TEMPLATES = """
[fields.grace_period_days]
questions = ["What is the grace period for renewal?"]
answer_type = "number_unit"
unit = "day"
category = "renewal"
[fields.claim_notice_hours]
questions = ["Within how many hours must claims be intimated after admission?"]
answer_type = "number_unit"
unit = "hour"
category = "claims"
[fields.notice_period_days]
questions = ["What is the notice period for cancellation by the insurer?"]
answer_type = "number_unit"
unit = "day"
category = "renewal"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two policies and an unrelated brochure as real PDFs, facts and templates, and the gold set that
    ``assay gold build`` makes of them (gold.jsonl)."""
    from pdfgen import pages_pdf

    from assay.cli import main

    root = tmp_path_factory.mktemp("own")
    pages_pdf(root / "pdfs" / "acme", "policy.pdf", acme_pages())
    pages_pdf(root / "pdfs" / "beta", "terms.pdf", [(NOTICE,), ("Co-payment of 20 percent applies.",)])
    brochure = "This travel brochure mentions the grace period, claims, and notice often."
    pages_pdf(root / "pdfs" / "other", "brochure.pdf", [(brochure,)] * 3)
    facts = root / "facts"
    facts.mkdir()
    acme = [claim("grace_period_days", 30, "acme/policy.pdf", GRACE),
            claim("claim_notice_hours", 48, "acme/policy.pdf", CLAIMS)]  # fmt: skip
    (facts / "acme.json").write_text(json.dumps({"document": "acme__policy", "claims": acme}))
    beta = [claim("notice_period_days", 60, "beta/terms.pdf", NOTICE)]
    (facts / "beta.json").write_text(json.dumps({"document": "beta__terms", "claims": beta}))
    (root / "templates.toml").write_text(TEMPLATES)
    argv = ["gold", "build", "--facts", str(facts), "--sources", str(root / "pdfs"), "--templates",
            str(root / "templates.toml"), "--out", str(root / "gold.jsonl"), "--no-cache"]  # fmt: skip
    assert main(argv) == 0
    return root




def test_forty_pages_a_scanned_page_and_a_page_break_give_the_quotes_characters(built: Path) -> None:
    from assay.harness.sweep.gold_spans import read_gold_spans

    found = read_gold_spans(built / "gold.jsonl", built / "pdfs", cache_dir=None)
    texts = {document.name: document.text for document in found.spans.documents}
    assert set(texts) == {"acme__policy", "beta__terms", "other__brochure"}  # the unrelated one too
    quoted = sorted(
        texts[span.document][span.start : span.end]
        for question in found.spans.questions
        for span in question.spans
    )
    # the grace period runs from page 5 onto page 6, so the pages' separator is inside its span; the
    # claims clause is on page 21, past the page without text, whose offsets still count its separator
    assert quoted == [CLAIMS, GRACE.replace("due date", "due\n\ndate"), NOTICE]
    assert found.accounting() == {"rows": 3, "questions": 3, "skipped": {"refusal": [], "no_quote_span": []}}


def sweep_command(built: Path, out: Path, gold: Path | None = None, *more: str) -> int:
    from assay.cli import main

    questions = gold or built / "gold.jsonl"
    argv = ["sweep", "--corpus", str(built / "pdfs"), "--questions", str(questions), "--out", str(out)]
    return main([*argv, "--no-cache", "--sizes", "200,400", *more])


def test_the_unrelated_pdf_is_searched_only_in_the_pooled_scope(built: Path, tmp_path: Path) -> None:
    assert sweep_command(built, tmp_path / "per", None) == 0
    assert sweep_command(built, tmp_path / "pooled", None, "--scope", "pooled") == 0
    per = json.loads((tmp_path / "per" / "sweep.json").read_text(encoding="utf-8"))
    pooled = json.loads((tmp_path / "pooled" / "sweep.json").read_text(encoding="utf-8"))
    # per document, every question finds its quote in the top 5 of its own document's chunks; pooled, the
    # brochure's chunks (grace period, claims, notice) compete with them and precision falls
    assert all(cell["overall"]["recall_at_k"] > 0.95 for cell in per)
    assert all(p["overall"]["precision_at_k"] < d["overall"]["precision_at_k"] for p, d in zip(pooled, per))
    assert set(per[0]["corpora"]) == {"acme__policy", "beta__terms"}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("refusals", r"no answerable item with a quote span among its 3 items \(3 refusal, 0 no_quote_span"),
        ("none", r"the gold set has no items"),
    ],
)
def test_a_gold_set_with_nothing_to_retrieve_is_refused_clearly(built, tmp_path, capsys, rows, message):
    items = [json.loads(line) for line in (built / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    for item in items:
        item["expected_refusal"] = True
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(item) + "\n" for item in items) if rows == "refusals" else "\n")
    assert sweep_command(built, tmp_path / "out", gold) == 2
    err = capsys.readouterr().err
    assert regex.search(message, err) and "--responses" not in err
    assert not (tmp_path / "out" / "sweep.json").exists()  # no 0-cell winner, no output


# --- the rollup's intervals are the house's --------------------------------------------------------------


def test_the_rollup_bootstraps_its_means_with_stats_and_its_intervals_are_unchanged():
    import numpy as np

    from assay.harness.sweep.cell import QuestionScore
    from assay.harness.sweep.rollup import METRICS, group_rollup
    from assay.stats import bootstrap_mean_intervals

    def score(i: int) -> QuestionScore:
        fractions = ((i % 7) / 6, (i % 5) / 4, (i % 3) / 2, (i % 11) / 10)
        return QuestionScore(f"q{i}", "c", None, *fractions, i % 2 == 0, 1 / (1 + i % 4))

    scores = [score(i) for i in range(37)]
    rolled = group_rollup(scores)
    # pinned before the bootstrap moved from rollup.py to stats.py: the move changed no number
    assert (rolled.intervals["recall_at_k"].low, rolled.intervals["recall_at_k"].high) == (
        0.3693693693693694, 0.5855855855855855
    )  # fmt: skip
    assert rolled.intervals["mrr"].high == 0.6351914414414412
    values = np.array([[getattr(score, name) for name in (
        "recall_at_k", "recall_at_budget", "precision_at_k", "iou", "hit_at_k", "reciprocal_rank")]
        for score in scores], dtype=np.float64)  # fmt: skip
    intervals = bootstrap_mean_intervals(values, resamples=2_000)
    for column, metric in enumerate(METRICS):
        if metric != "hit_at_k":  # a proportion: Wilson's interval
            assert rolled.intervals[metric] == intervals[column]
    assert bootstrap_mean_intervals(values[:0]) == []


# --- one set of rules for a cell, whoever runs it --------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"size": 0}, "chunk size 0 is not a positive whole number"),
        ({"overlap": 1.0}, "overlap 1 is not a fraction of the size in [0, 1)"),
        ({"k": 0}, "k 0 is below 1"),
        ({"budget": 0}, "budget 0 is below 1"),
        ({"chunker": "words"}, "unknown chunker 'words'"),
        ({"scope": "global"}, "unknown scope 'global'"),
        ({"retriever": "tfidf"}, "unknown retriever 'tfidf'"),
    ],
)
def test_a_bad_cell_gets_one_message_from_run_cell_and_from_run_sweep(change, said):
    spans = SpanSet((SpanDocument("d", "d", "some text here"),), ())
    settings: dict[str, Any] = {"size": 200, "overlap": 0.0, "k": 5, "budget": 3200, "chunker": "chars",
                                "scope": "per-document", "retriever": "bm25"} | change  # fmt: skip
    with pytest.raises(UsageError) as by_cell:
        run_cell(spans, CellConfig(**settings))
    size, overlap = settings.pop("size"), settings.pop("overlap")
    with pytest.raises(UsageError) as by_sweep:
        run_sweep(spans, [size], [overlap], **settings)
    assert str(by_cell.value) == str(by_sweep.value) and str(by_cell.value).startswith(said)


@pytest.mark.parametrize("chunker", ["chars", "tokens"])
def test_sweep_json_says_how_many_chunks_the_budget_read(chunker):
    text = " ".join(f"word{i}" for i in range(3000))
    question = SpanQuestion("q1", "word7 word8", "d", None, (GoldSpan("d", 30, 50),))
    spans = SpanSet((SpanDocument("d", "d", text),), (question,))
    (cell,) = run_sweep(spans, [40], [0.0], k=2, budget=1000, chunker=chunker).to_json()
    chunks = run_cell(spans, CellConfig(40, 0.0, 2, 1000, chunker=chunker))
    # 40 characters: 25 chunks in 1,000; 40 tokens: the budget over their mean length (was None)
    mean = len(text) / chunks.chunks
    assert cell["config"]["k_at_budget"] == (25 if chunker == "chars" else 1000 // round(mean))
    assert cell["config"]["k_at_budget"] == chunks.k_at_budget


def test_an_earlier_sweeps_files_do_not_survive_a_later_one(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert sweep_command(built, out) == 0  # sizes 200, 400: 4 cells
    (out / "notes.txt").write_text("mine")
    assert sweep_command(built, out, None, "--sizes", "300") == 0
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["cells"] == 2 and 'data-size="200"' not in (out / "sweep.html").read_text(encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert sweep_command(built, out, empty) == 2  # fails after --out is known: none of the old four stay
    assert sorted(path.name for path in out.iterdir()) == ["notes.txt"]


def test_a_page_whose_text_moved_under_a_gold_set_without_hashes_is_refused(built: Path, tmp_path: Path):
    from pdfgen import pages_pdf

    from assay.harness.sweep.gold_spans import read_gold_spans

    # The same document with a line added at the top of page 21: the claims clause moves down the page,
    # and a gold set that kept no sha256 (hand-made, or older) cannot tell by the file.
    pages = acme_pages()
    pages[20] = ("An added note.", *pages[20])
    shutil.copytree(built / "pdfs", tmp_path / "pdfs")
    pages_pdf(tmp_path / "pdfs" / "acme", "policy.pdf", pages)
    items = [json.loads(line) for line in (built / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    for item in items:
        item["source"].pop("sha256")
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(item) + "\n" for item in items))
    assert len(read_gold_spans(gold, built / "pdfs", cache_dir=None).spans.questions) == 3  # unchanged: fine
    moved = r"its quote is found in acme/policy\.pdf's text on page 21, span \[\d+, \d+\], where the gold"
    with pytest.raises(InputError, match=moved) as raised:
        read_gold_spans(gold, tmp_path / "pdfs", cache_dir=None)
    assert "rebuild the gold set" in str(raised.value.fix)


def test_a_questions_csv_of_only_its_header_is_refused_not_a_crash(tmp_path: Path, capsys) -> None:
    from assay.cli import main

    (tmp_path / "notes.md").write_text("The waiting period is thirty days.", encoding="utf-8")
    (tmp_path / "questions.csv").write_text("question,references,corpus_id\n", encoding="utf-8")
    argv = ["sweep", "--corpus", str(tmp_path / "notes.md"), "--questions", str(tmp_path / "questions.csv")]
    assert main([*argv, "--out", str(tmp_path / "out"), "--sizes", "200"]) == 2  # it was 3, a TypeError
    assert "no question rows under the header" in capsys.readouterr().err
    with pytest.raises(InputError, match="no questions to sweep"):
        run_sweep(SpanSet((SpanDocument("d", "d", "text"),), ()), [200], [0.0])


def test_progress_on_stderr_starts_before_the_documents_are_read(built: Path, tmp_path: Path, capsys) -> None:
    assert sweep_command(built, tmp_path / "out") == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("assay sweep: reading ")
    assert lines[1] == "assay sweep: 3 questions, 3 documents"
    cells = [line.split(":")[1].split(" size")[0] for line in lines[2:]]
    assert cells == [f" cell {n}/4" for n in (1, 2, 3, 4)]


def test_a_sweep_in_which_no_cell_found_anything_has_no_winner(tmp_path: Path, capsys) -> None:
    from assay.cli import main

    # German questions on an English note share no word with it: every cell scores 0 everywhere, and the
    # tie rule alone made the smallest size "the winner"
    notes = "The waiting period is thirty days. Claims need a hospital bill. " * 40
    (tmp_path / "notes.md").write_text(notes, encoding="utf-8")
    start = notes.index("thirty days")
    reference = json.dumps([{"content": "thirty days", "start_index": start, "end_index": start + 11}])
    rows = [["question", "references", "corpus_id"], ["Wie lange dauert die Wartezeit?", reference, "notes"]]
    with open(tmp_path / "questions.csv", "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    argv = ["sweep", "--corpus", str(tmp_path / "notes.md"), "--questions", str(tmp_path / "questions.csv")]
    assert main([*argv, "--out", str(tmp_path / "out"), "--sizes", "200,400"]) == 0
    stdout = capsys.readouterr().out
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["winner"] is None and not any(cell["winner"] for cell in board["leaderboard"])
    assert "winner (at a budget of 3200 characters): none: no cell retrieved" in stdout
    assert "**Winner** (at the budget): none:" in (tmp_path / "out" / "sweep.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("more", "cells"),
    [
        (["--chunker", "tokens", "--sizes", "20,60", "--scope", "pooled"], 4),
        (["--k", "1000000000", "--budget", "1000000000"], 4),  # every chunk with a query word, no more
        (["--sizes", "400", "--overlaps", "0"], 1),  # one cell: the winner, never broken
    ],
)
def test_odd_grids_over_real_pdfs_give_bounded_scores_and_a_winner(built, tmp_path, more, cells) -> None:
    assert sweep_command(built, tmp_path / "out", None, *more) == 0
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["cells"] == cells and board["broken"] is None and board["winner"] is not None
    for cell in json.loads((tmp_path / "out" / "sweep.json").read_text(encoding="utf-8")):
        assert all(0.0 <= cell["overall"][name] <= 1.0 for name in ("recall_at_k", "precision_at_k", "mrr"))
        assert cell["config"]["k_at_budget"] >= 1 and cell["overall"]["n"] == 3
