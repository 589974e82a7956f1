"""The columnar entry point (assay.scale.columnar): Arrow batches in, verdict columns with a stable schema
and the signatures in its metadata out, and partial summaries that merge into the whole's summary."""

from __future__ import annotations

import itertools
import json

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import (
    BatchScorer,
    MetricScores,
    ScoreOptions,
    Scorer,
    UsageError,
    merge_summaries,
    score,
    summary_dict,
    summary_of,
)
from assay import review as review_module
from assay.records import load_records
from assay.scale.columnar import LINE, ROW_NUMBER, SUMMARY_COLUMN
from assay.signatures import PARQUET_KEY

# Responses that pass, fail, pass with a cue (a negation or hedge: the review lists them), or are blank.
WORDS = ["Delhi", "Paris", "not", "maybe", "but", "river", "New", "capital", "Ganga", ""]
ANSWERS = ["Delhi", "Paris", "New Delhi", "Ganga"]
DOMAINS = ["geo", "history", "science"]


def rows_strategy() -> st.SearchStrategy[list[dict[str, str]]]:
    row = st.tuples(
        st.sampled_from(ANSWERS),
        st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join),
        st.sampled_from(DOMAINS),
    )
    return st.lists(row, min_size=1, max_size=40).map(
        lambda found: [
            {"question": f"q{i}", "answer": answer, "Domain": domain, "response": response}
            for i, (answer, response, domain) in enumerate(found)
        ]
    )


def numbered(rows: list[dict[str, str]]) -> pa.Table:
    """The rows as an Arrow table placed in the whole input (row numbers: the ids of an id-less file)."""
    table = pa.Table.from_pylist(rows)
    return table.append_column(ROW_NUMBER, pa.array(range(1, len(rows) + 1), pa.int64()))


def whole_summary(rows: list[dict[str, str]]) -> dict[str, object]:
    pandas = pytest.importorskip("pandas")
    run = score(load_records(pandas.DataFrame(rows)))
    found = summary_dict(run.summary)
    found["source"] = "<batches>"
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=rows_strategy(), cuts=st.lists(st.integers(0, 40), max_size=6))
def test_merged_partial_summaries_of_any_split_equal_the_whole(
    rows: list[dict[str, str]], cuts: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small cue scan and review list, so that splits cut through both (as 20,000 rows do at a million).
    monkeypatch.setattr(review_module, "CUE_SCAN_ROWS", 3)
    monkeypatch.setattr(review_module, "REVIEW_ROWS", 2)
    table = numbered(rows)
    bounds = sorted({0, len(rows), *(cut for cut in cuts if cut < len(rows))})
    scorer = BatchScorer()
    parts = [scorer(table.slice(start, end - start)) for start, end in itertools.pairwise(bounds)]
    assert summary_dict(summary_of(parts)) == whole_summary(rows)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=rows_strategy(), cut=st.integers(1, 39))
def test_merging_is_associative(
    rows: list[dict[str, str]], cut: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Merged summaries merge again: a tree of merges (per worker, then per cluster) is the flat merge."""
    monkeypatch.setattr(review_module, "CUE_SCAN_ROWS", 3)
    monkeypatch.setattr(review_module, "REVIEW_ROWS", 2)
    table = numbered(rows)
    scorer = BatchScorer()
    parts = [scorer.run(table.slice(at, 1)).summary for at in range(len(rows))]
    cut = min(cut, len(parts))
    tree = merge_summaries([merge_summaries(parts[:cut]), *parts[cut:]])
    assert summary_dict(tree) == summary_dict(merge_summaries(parts))


def test_the_schema_is_the_same_for_an_empty_batch_and_for_any_values() -> None:
    rows = [
        {"id": "a", "question": "q", "answer": "Delhi", "response": "New Delhi", "domain": "geo"},
        {"id": "b", "question": "q", "answer": "Paris", "response": "", "domain": "geo"},
    ]
    table = pa.Table.from_pylist(rows)
    scorer = BatchScorer(("exact_substring", "word_overlap", "token_f1"), ScoreOptions(inflection=True))
    full, empty = scorer(table), scorer(table.slice(0, 0))
    assert empty.num_rows == 0 and empty.schema == full.schema
    assert scorer.schema(table.schema) == full.schema
    assert full.schema.names == [
        "id",
        "exact_substring",
        "exact_substring_answer",
        "word_overlap",
        "word_overlap_answer",
        "matching_words",
        "total_golden_words",
        "token_f1",
        "token_f1_answer",
        "agreement",
        SUMMARY_COLUMN,
    ]
    assert full.schema.field("exact_substring").type == pa.bool_()
    assert full.schema.field("token_f1").type == pa.float64()  # graded: the row's score
    assert full.column("exact_substring").to_pylist() == [True, False]
    # A batch comes back as it came: a RecordBatch for a RecordBatch (Spark's mapInArrow)
    batch = scorer(table.to_batches()[0])
    assert isinstance(batch, pa.RecordBatch) and batch.schema == full.schema


def test_the_signature_is_in_the_schema_metadata() -> None:
    table = pa.Table.from_pylist([{"question": "q", "answer": "Delhi", "response": "Delhi"}])
    options = ScoreOptions(nfc=True)
    out = BatchScorer(("exact_substring",), options)(table)
    signatures = json.loads(out.schema.metadata[PARQUET_KEY])
    expected = score(load_records_of(table), ["exact_substring"], options=options)
    assert signatures == {"exact_substring": dict(expected.summary.metrics["exact_substring"].signature.info)}
    assert signatures["exact_substring"]["nfc"] == "on"


def load_records_of(table: pa.Table):  # type: ignore[no-untyped-def]
    pandas = pytest.importorskip("pandas")
    return load_records(pandas.DataFrame(table.to_pylist()))


def test_rows_are_numbered_and_placed_in_the_whole_input() -> None:
    """An id-less batch takes its ids from assay:row, and its messages name the line of assay:line."""
    rows = [{"question": "q", "answers": '["Delhi"]', "response": "Delhi"}] * 2
    table = pa.Table.from_pylist(rows)
    table = table.append_column(ROW_NUMBER, pa.array([7, 8], pa.int64()))
    table = table.append_column(LINE, pa.array([9, 11], pa.int64()))
    out = BatchScorer(("exact_substring",), source="answers.csv")(table)
    assert out.column("row").to_pylist() == ["7", "8"]
    bad = table.set_column(1, "answers", pa.array(['["Delhi"]', "Delhi"]))
    with pytest.raises(Exception, match=r"answers\.csv line 11"):
        BatchScorer(("exact_substring",), source="answers.csv")(bad)


def test_a_run_metric_is_refused_with_a_reason() -> None:
    """A metric that reads the whole run (a judge's) cannot be scored batch by batch: said before work."""
    whole_run = Scorer(
        "whole_run", "reads every row at once", score_run=lambda view: MetricScores.all_failing("x", 0)
    )
    table = pa.Table.from_pylist([{"question": "q", "answer": "Delhi", "response": "Delhi"}])
    with pytest.raises(UsageError, match="reads the whole run"):
        BatchScorer((whole_run,))(table)


def test_a_scorer_given_as_an_object_is_scored_as_score_scores_it() -> None:
    """A configured Scorer the registry does not know by its name: its verdicts, signature and schema."""
    import dataclasses

    from assay import SCORERS

    renamed = dataclasses.replace(SCORERS["exact_substring"], name="my_exact")
    table = pa.Table.from_pylist([{"question": "q", "answer": "Delhi", "response": "New Delhi"}])
    out = BatchScorer((renamed,), summary=False)(table)
    assert out.column("my_exact").to_pylist() == [True]
    assert "my_exact" in json.loads(out.schema.metadata[PARQUET_KEY])


def test_what_a_merge_keeps_for_the_next_is_bounded_by_the_scan_not_by_the_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty one-row parts, each passing with a cue: the merged review keeps the cues the scan reaches
    (3 here), not one per part (a billion-row run merges millions of parts)."""
    monkeypatch.setattr(review_module, "CUE_SCAN_ROWS", 3)
    monkeypatch.setattr(review_module, "REVIEW_ROWS", 2)
    rows = [
        {"question": f"q{i}", "answer": "Delhi", "Domain": "geo", "response": "maybe Delhi"}
        for i in range(20)
    ]
    table = numbered(rows)
    parts = [BatchScorer().run(table.slice(at, 1)).summary for at in range(len(rows))]
    merged = merge_summaries(parts)
    assert merged.review is not None and merged.review.parts is not None
    assert merged.review.counts["cue"] == 3
    assert len(merged.review.parts.cues) == 3 and len(merged.review.parts.others) <= 2 * 2
