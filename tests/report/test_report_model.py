"""The one report model: every format says the same numbers, for any metric and whatever the input
columns are called; the agreement of any named pair; the rows to review; the default text report."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from cli_run import NEEDS_MORE_INPUTS, run
from test_html import read_html_numbers

import assay
from assay.judges.metric import JudgeSetup
from assay.report.model import build_report
from assay.report.text import render_text
from assay.scorers import SCORERS, MetricScores
from assay.summary import summarize

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
RENAMED = {"answer": "gold", "response": "reply"}


def renamed_copy(folder: Path) -> Path:
    """The bundled example with its golden and response columns renamed (gold, reply)."""
    path = folder / "renamed.csv"
    with EXAMPLE.open(encoding="utf-8") as source, path.open("w", newline="", encoding="utf-8") as out:
        rows = list(csv.reader(source))
        writer = csv.writer(out)
        writer.writerow([RENAMED.get(name, name) for name in rows[0]])
        writer.writerows(rows[1:])
    return path


RENAMED_FLAGS = ["--answer-col", "gold", "--response-col", "reply"]


def test_markdown_misses_show_the_golden_and_response_of_renamed_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "results.md"
    argv = ["score", "--responses", str(renamed_copy(tmp_path)), *RENAMED_FLAGS, "--markdown", str(report)]
    assert run(argv, capsys)[0] == 0
    text = report.read_text(encoding="utf-8")
    with EXAMPLE.open(encoding="utf-8") as source:
        by_id = {row["id"]: row for row in csv.DictReader(source)}
    misses = re.findall(r"^### (\S+)\n\n- golden: (.*)\n- response: (.*)$", text, re.M)
    assert misses  # the example has misses
    for ident, golden, response in misses:
        assert golden.strip() and response.strip(), ident
        assert golden == assay.report.markdown.cell(by_id[ident.replace("\\", "")]["answer"])


def _text_row(printed: str, metric: str) -> list[str]:
    """The cells of `metric`'s row in the default report's table across metrics."""
    for line in printed.splitlines():
        cells = line.split()
        if cells and cells[0] == metric:
            return cells
    raise AssertionError(f"no row for {metric} in the table across metrics")


def check_same_numbers(
    folder: Path, capsys: pytest.CaptureFixture[str], metrics: Sequence[str], data: Path, flags: Sequence[str]
) -> None:
    """The same n, accuracy and interval of each metric in the text, JSON, Markdown and HTML reports."""
    paths = {kind: folder / f"report.{kind}" for kind in ("json", "md", "html")}
    named = [flag for metric in metrics for flag in ("--metric", metric)]
    argv = ["score", "--responses", str(data), *flags, *named, "--json", str(paths["json"])]
    code, printed, err = run([*argv, "--markdown", str(paths["md"]), "--html", str(paths["html"])], capsys)
    assert code == 0, err
    document = json.loads(paths["json"].read_text(encoding="utf-8"))
    markdown = paths["md"].read_text(encoding="utf-8")
    html, _ = read_html_numbers(paths["html"].read_text(encoding="utf-8"))
    assert list(document["metrics"]) == list(metrics)
    for metric in metrics:
        combined = document["metrics"][metric]["combined"]
        accuracy = f"{combined['accuracy']:.1%}"
        low, high = combined["interval"]["low"], combined["interval"]["high"]
        interval = f"{low * 100:.1f}–{high:.1%}"
        assert _text_row(printed, metric)[1:4] == [str(combined["n"]), accuracy, interval]
        assert (
            f"| `{metric}` | {combined['n']} | {combined['passed']} | {accuracy} | {interval} |" in markdown
        )
        shown = html["overview", metric, "combined", None]
        assert (shown["n"], shown["accuracy"], shown["interval"]) == (
            combined["n"],
            combined["accuracy"],
            combined["interval"],
        )


@pytest.mark.parametrize(
    "metrics", [["exact_substring", "word_overlap", "phrase_match"], ["squad_f1", "token_f1"]]
)
def test_every_format_gives_the_same_numbers_for_renamed_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metrics: list[str]
) -> None:
    check_same_numbers(tmp_path, capsys, metrics, renamed_copy(tmp_path), RENAMED_FLAGS)


@pytest.mark.parametrize("metric", [name for name in SCORERS if name not in NEEDS_MORE_INPUTS])
def test_every_format_gives_the_same_numbers_for_each_registered_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metric: str
) -> None:
    """Any registered metric (a plugin's too, once registered) reports the same numbers everywhere."""
    check_same_numbers(tmp_path, capsys, [metric], renamed_copy(tmp_path), RENAMED_FLAGS)


# --- the agreement of a named pair --------------------------------------------------------------------


def test_agree_pair_names_its_buckets_and_counts_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "s.json"
    argv = ["score", "--responses", str(EXAMPLE), "--agree-pair", "exact_substring,phrase_match"]
    code, printed, err = run([*argv, "--json", str(summary)], capsys)
    assert code == 0, err
    agreement = json.loads(summary.read_text(encoding="utf-8"))["agreement"]
    assert agreement["pair"] == ["exact_substring", "phrase_match"]
    buckets = ["both_pass", "both_fail", "exact_substring only", "phrase_match only"]
    assert agreement["buckets"] == buckets and list(agreement["overall"]) == buckets
    assert sum(agreement["overall"].values()) == 56
    assert "agreement: exact_substring vs phrase_match" in printed
    run_ = assay.score(assay.load_records(EXAMPLE), ["exact_substring", "phrase_match"])
    exact, phrase = (run_.metrics[name].outcomes for name in ("exact_substring", "phrase_match"))
    assert agreement["overall"]["phrase_match only"] == sum(e != 1 and p == 1 for e, p in zip(exact, phrase))


def test_the_default_pair_keeps_its_bucket_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = tmp_path / "s.json"
    assert run(["score", "--responses", str(EXAMPLE), "--json", str(summary)], capsys)[0] == 0
    agreement = json.loads(summary.read_text(encoding="utf-8"))["agreement"]
    assert list(agreement["overall"]) == ["both_pass", "both_fail", "exact_only", "overlap_only"]
    assert agreement["pair"] == ["exact_substring", "word_overlap"]


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--agree-pair", "exact_substring,squad_f1"], "which this run does not score"),
        (["--metric", "exact_substring", "--agree-pair", "exact_substring,word_overlap"], "add --metric"),
        (["--agree-pair", "exact_substring,bleu"], "unknown metric 'bleu'"),
        (["--agree-pair", "exact_substring"], "not two different metrics"),
    ],
)
def test_an_agree_pair_the_run_does_not_score_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    code, out, err = run(["score", "--responses", str(EXAMPLE), *flags], capsys)
    assert code == 2 and out == ""
    assert says in err and err.count("\n") == 1


# --- the rows to review ------------------------------------------------------------------------------


def test_rows_to_review_name_the_split_rows_the_cue_rows_and_the_judge_disagreements(tmp_path: Path) -> None:
    path = tmp_path / "few.csv"
    path.write_text(
        "id,question,answer,response\n"
        'split,q,Pablo Picasso,"Picasso, Pablo"\n'
        'cue,q,Delhi,"It is not Delhi"\n'
        "plain,q,Agra,Agra\n"
        "judged,q,Agra,Agra\n",
        encoding="utf-8",
    )
    dataset = assay.load_records(path)
    scored = assay.score(dataset, ["exact_substring", "word_overlap"])
    judge = MetricScores.all_failing("judge", len(dataset.records))  # fails every row
    results = {**scored.metrics, "judge": judge}
    signatures = {name: name for name in results}
    review = summarize(
        dataset, results, scored.blank, signatures, "", scorers={"judge": JudgeSetup(()).scorer()}
    ).review
    assert review is not None
    why = {row.id: row.why for row in review.rows}
    assert "overlap only" in why["split"]
    assert "the negation cue 'not'" in why["cue"]
    assert "the judge fails, exact_substring passes" in why["judged"]
    assert review.total == 4 and review.counts["cue"] == 1


def test_the_default_text_report_has_one_table_across_metrics_and_a_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, printed, _ = run(["score", "--responses", str(EXAMPLE)], capsys)
    assert code == 0
    assert "accuracy by domain" in printed and "accuracy by language (lang)" in printed
    assert "rows to review (" in printed and "… and " in printed
    assert "--metric squad_f1" in printed and "assay agree" in printed
    assert "exact_substring   [" not in printed  # the per-metric tables are --detail's
    assert len(printed.splitlines()) < 60


def test_a_file_without_a_lang_column_has_no_language_table(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("question,answer,response\nq1,a,a\nq2,b,c\n", encoding="utf-8")
    printed = render_text(build_report(assay.score(assay.load_records(path)).summary))
    assert "accuracy by domain" in printed and "accuracy by language" not in printed


def test_the_report_model_is_the_json_summary() -> None:
    scored = assay.score(assay.load_records(EXAMPLE))
    report = build_report(scored)
    assert report.as_dict() == assay.summary_dict(scored.summary)
    assert len(report.rows) == 56 and report.rows[0].golden == ("Vincent van Gogh",)


@pytest.mark.parametrize("workers", [2, 3])
def test_rows_to_review_are_the_same_from_several_processes(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    import assay.parallel

    monkeypatch.setattr(assay.parallel, "MIN_BYTES_PER_WORKER", 1)  # several processes even for 56 rows
    alone = assay.summary_dict(assay.parallel.score_file(EXAMPLE, workers=1).summary)["review"]
    shared = assay.summary_dict(assay.parallel.score_file(EXAMPLE, workers=workers).summary)["review"]
    assert shared == alone
    assert [row["priority"] for row in alone["rows"]][:4] == [0, 0, 0, 0]  # the cue rows first


def test_the_out_agreement_column_follows_the_named_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, summary = tmp_path / "x.csv", tmp_path / "s.json"
    argv = ["score", "--responses", str(EXAMPLE), "--metric", "phrase_match", "--metric", "word_overlap"]
    argv += ["--agree-pair", "phrase_match,word_overlap", "--out", str(out), "--json", str(summary)]
    assert run(argv, capsys)[0] == 0
    with out.open(encoding="utf-8") as handle:
        buckets = Counter(row["agreement"] for row in csv.DictReader(handle))
    overall = json.loads(summary.read_text(encoding="utf-8"))["agreement"]["overall"]
    assert set(buckets) <= {"both_pass", "both_fail", "phrase_match only", "word_overlap only"}
    assert buckets == Counter({bucket: count for bucket, count in overall.items() if count})
