"""Reports people can trust: the Markdown report, assay compare, the CI gate, assay agree, assay plot;
and the same numbers in every format (text, JSON, Markdown, HTML)."""

from __future__ import annotations

import csv
import json
import os
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_html import read_html_numbers

from assay import stats
from assay.cli import main
from assay.comparison import compare, load_scored
from assay.gate import Gate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "qa_responses.csv"
NQ = Path(__file__).resolve().parents[3] / "shared" / "data" / "nq_human" / "nq_human_even.jsonl"
PERCENT = re.compile(r"(-?\d+\.\d)%")


def second_run(folder: Path) -> Path:
    """The example answered better in five rows (the golden answer put in front of the response), and
    without its last row: a second system to compare with."""
    with EXAMPLE.open(encoding="utf-8") as source:
        rows = list(csv.DictReader(source))
    for row in rows[:10:2]:
        row["response"] = f"{row['answer']}. {row['response']}"
    path = folder / "better.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows[:-1])
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two scored files and the comparison of them, in every format."""
    folder = tmp_path_factory.mktemp("runs")

    metrics = ["--metric", "exact_substring", "--metric", "phrase_match", "--metric", "token_f1"]
    assert main(["score", "--responses", str(EXAMPLE), "--out", str(folder / "a.csv"), *metrics]) == 0
    assert (
        main(["score", "--responses", str(second_run(folder)), "--out", str(folder / "b.jsonl"), *metrics])
        == 0
    )
    outputs = {kind: folder / f"compare.{kind}" for kind in ("json", "md", "html")}
    argv = ["compare", str(folder / "a.csv"), str(folder / "b.jsonl"), "--json", str(outputs["json"])]
    assert main([*argv, "--markdown", str(outputs["md"]), "--html", str(outputs["html"])]) == 0
    return {"a": folder / "a.csv", "b": folder / "b.jsonl", **outputs}


def test_compare_finds_the_better_run_and_the_row_only_in_one(runs: dict[str, Path]) -> None:
    comparison = json.loads(runs["json"].read_text(encoding="utf-8"))
    assert comparison["rows_in_both"] == 55 and comparison["only_in_a"] == ["sci-hi-05"]
    assert comparison["only_in_b"] == []
    exact = comparison["metrics"]["exact_substring"]["combined"]
    with runs["a"].open(encoding="utf-8") as scored:
        a_rows = list(csv.DictReader(scored))
    improved = [row for row in a_rows[:10:2] if row["exact_substring"] == "False"]  # see second_run
    assert (exact["n"], exact["b_only"], exact["a_only"]) == (55, len(improved), 0)
    assert exact["b_only"] >= 1 and exact["difference"] == pytest.approx(exact["b_only"] / 55)
    assert exact["p_value"] == pytest.approx(stats.mcnemar_exact(0, exact["b_only"]))
    assert exact["interval"]["low"] <= exact["difference"] <= exact["interval"]["high"]


def test_compare_repeats_exactly_for_a_seed(runs: dict[str, Path]) -> None:
    a, b = load_scored(runs["a"]), load_scored(runs["b"])
    first, again = (compare(a, b, seed=5).as_dict() for _ in range(2))
    assert first == again
    assert compare(a, b, seed=6).as_dict() != first  # the intervals move with the seed


def _markdown_differences(text: str) -> dict[tuple[str, str], list[str]]:
    """(metric, scope) -> the cells of a comparison row in the Markdown report."""
    found, metric = {}, ""
    for line in text.splitlines():
        if line.startswith("## `"):
            metric = line.split("`")[1]
        elif line.startswith("| ") and not line.startswith("| scope"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            found[metric, cells[0].strip("*")] = cells[1:]
    return found


def test_compare_gives_the_same_numbers_in_every_format(runs: dict[str, Path]) -> None:
    comparison = json.loads(runs["json"].read_text(encoding="utf-8"))
    markdown = _markdown_differences(runs["md"].read_text(encoding="utf-8"))
    html, _ = read_html_numbers(runs["html"].read_text(encoding="utf-8"))
    for metric, found in comparison["metrics"].items():
        for scope, expected in [("combined", found["combined"]), *found["domains"].items()]:
            cells = markdown[metric, scope]
            assert cells[0] == str(expected["n"])
            assert cells[1:3] == [f"{expected['a_accuracy']:.1%}", f"{expected['b_accuracy']:.1%}"]
            assert cells[3] == f"{expected['difference'] * 100:+.1f} pts"
            assert cells[5] == f"{expected['p_value']:.4g}"
            key = (
                ("comparison", metric, "combined", None)
                if scope == "combined"
                else ("comparison", metric, "domain", scope)
            )
            assert html[key] == expected  # exact: the HTML carries the values themselves


def test_score_reports_give_the_same_numbers_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html")}
    argv = [
        "score",
        "--responses",
        str(EXAMPLE),
        "--detail",
        "--json",
        str(paths["json"]),
        "--markdown",
        str(paths["md"]),
    ]
    code, printed, _ = run([*argv, "--html", str(paths["html"])], capsys)
    assert code == 0
    document = json.loads(paths["json"].read_text(encoding="utf-8"))
    markdown = paths["md"].read_text(encoding="utf-8")
    html, _ = read_html_numbers(paths["html"].read_text(encoding="utf-8"))
    for metric, found in document["metrics"].items():
        combined = found["combined"]
        expected = f"{combined['accuracy']:.1%}"
        low, high = combined["interval"]["low"], combined["interval"]["high"]
        counts = f"| {combined['n']} | {combined['passed']} | {expected} | {low * 100:.1f}–{high:.1%} |"
        assert f"| `{metric}` {counts}" in markdown
        assert re.search(
            rf"^  combined +{combined['n']} +{combined['passed']} +{re.escape(expected)} ", printed, re.M
        )
        shown = html["overview", metric, "combined", None]
        assert (shown["n"], shown["passed"], shown["accuracy"], shown["interval"]) == (
            combined["n"], combined["passed"], combined["accuracy"], combined["interval"],
        )  # fmt: skip
        for domain, tally in found["domains"].items():
            assert html["metric", metric, "domain", domain]["accuracy"] == tally["accuracy"]


def test_the_markdown_report_escapes_cells_and_lists_misses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "pipes.csv"
    data.write_text(
        'id,question,answer,response\nr1,q,Delhi,"It is | not\nMumbai"\nr2,q,Agra,Agra\n', encoding="utf-8"
    )
    report = tmp_path / "results.md"
    assert run(["score", "--responses", str(data), "--markdown", str(report)], capsys)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert "- response: It is \\| not Mumbai" in text  # one line, the pipe escaped
    assert "## Top misses of `exact_substring` (1 of 1)" in text and "### r1" in text and "### r2" not in text
    for section in (
        "## Headline",
        "## `phrase_match` by domain",
        "## Agreement of exact_substring and word_overlap",
    ):
        assert section in text


@pytest.mark.parametrize(
    ("gates", "flags", "code", "says"),
    [
        (["phrase_match>=0.20"], [], 0, "gate: all 5 checks passed"),
        (["phrase_match>=0.25"], [], 1, "phrase_match Science: accuracy 21.4% (95% CI 7.6%–47.6%, n=14)"),
        (["phrase_match>=25%"], ["--gate-on", "lower"], 1, "its interval's lower end 19.9% fails >= 25.0%"),
        (
            ["exact_substring>=0.4", "phrase_match>=0.2"],
            ["--min-n", "15"],
            1,
            "fewer than --min-n 15 scored rows",
        ),
        (["exact_substring<0.9"], [], 0, "gate: all 5 checks passed"),
        (["exact_substring<0.6"], ["--gate-on", "lower"], 1, "its interval's upper end 61.0% fails < 60.0%"),
    ],
)
def test_the_gate(
    gates: list[str], flags: list[str], code: int, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["score", "--responses", str(EXAMPLE), *[part for g in gates for part in ("--gate", g)], *flags]
    found, _, err = run(argv, capsys)
    assert found == code
    assert says in err


@pytest.mark.parametrize(
    ("gate", "message"),
    [("phrase_match=>0.9", "cannot read the gate"), ("phrase_match>=1.5", "a bar outside 0..1")],
)
def test_a_bad_gate_is_a_clear_error_before_any_work(
    gate: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["score", "--responses", str(EXAMPLE), "--gate", gate], capsys)
    assert code == 2 and message in err


def test_a_gate_on_a_metric_not_scored_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "score",
        "--responses",
        str(EXAMPLE),
        "--metric",
        "exact_substring",
        "--gate",
        "phrase_match>=0.5",
    ]
    code, _, err = run(argv, capsys)
    assert code == 2 and "names a metric this run does not score" in err


def test_gate_expressions() -> None:
    assert Gate.parse(" token_f1 >= 85% ") == Gate("token_f1", ">=", 0.85, "token_f1 >= 85%")


def nq() -> Path:
    if not NQ.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{NQ} is missing, and CI must have ../shared")
        pytest.skip(f"{NQ} is absent (a clone without ../shared)")
    return NQ


def test_agree_on_the_nq_human_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "agree.json"
    argv = ["agree", "--responses", str(nq()), "--human", "human_label", "--positive", "correct"]
    argv += [
        "--negative",
        "incorrect",
        "--metric",
        "exact_substring",
        "--allow-duplicate-ids",
        "--json",
        str(out),
    ]
    code, printed, _ = run(argv, capsys)
    assert code == 0
    exact = json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_substring"]
    overall = exact["overall"]
    assert (overall["tp"], overall["fp"], overall["fn"], overall["tn"]) == (75, 14, 313, 1981)
    kappa = stats.cohen_kappa(75, 14, 313, 1981)
    assert kappa is not None and overall["kappa"] == pytest.approx(kappa.kappa)
    assert exact["other_labels"] == {"possibly_correct": {"n": 513, "passes": 34}}
    assert "possibly_correct 513 rows, 34 passed" in printed


def test_agree_per_domain_and_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "labelled.csv"
    rows = [
        ("1", "Art", "en", "Delhi", "Delhi", "yes"),
        ("2", "Art", "en", "Delhi", "Mumbai", "no"),
        ("3", "Art", "hi", "दिल्ली", "दिल्ली", "no"),
        ("4", "Geo", "hi", "Agra", "Agra city", "yes"),
        ("5", "Geo", "en", "Agra", "Jaipur", "yes"),
        ("6", "Geo", "en", "Agra", "Agra", ""),
    ]
    data.write_text(
        "id,Domain,lang,answer,response,label,question\n" + "".join(",".join(r) + ",q\n" for r in rows)
    )
    argv = [
        "agree",
        "--responses",
        str(data),
        "--human",
        "label",
        "--positive",
        "yes",
        "--metric",
        "exact_substring",
    ]
    code, printed, _ = run([*argv, "--json", str(tmp_path / "a.json")], capsys)
    assert code == 0
    found = json.loads((tmp_path / "a.json").read_text())["metrics"]["exact_substring"]
    assert {k: found["overall"][k] for k in ("tp", "fp", "fn", "tn")} == {"tp": 2, "fp": 1, "fn": 1, "tn": 1}
    assert (found["domains"]["Art"]["tp"], found["domains"]["Geo"]["fn"]) == (1, 1)
    assert (found["langs"]["hi"]["fp"], found["langs"]["en"]["tn"]) == (1, 1)
    assert found["other_labels"] == {"(no label)": {"n": 1, "passes": 1}}
    assert "domain Art" in printed and "lang hi" in printed


def _agreed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Path, *flags: str
) -> tuple[dict[str, Any], str]:
    """`assay agree` of exact_substring against the file's `label` column: its JSON entry and its text."""
    argv = ["agree", "--responses", str(data), "--human", "label", "--metric", "exact_substring", *flags]
    code, printed, err = run([*argv, "--json", str(tmp_path / "a.json")], capsys)
    assert code == 0, err
    return json.loads((tmp_path / "a.json").read_text())["metrics"]["exact_substring"], printed


def test_agree_says_kappa_is_undefined_where_every_label_is_one_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """People marked every row correct (a rater with one class): kappa is 0 with a 0-0 interval by the
    formula whatever the metric does, so it is reported n/a with the reason, and raw agreement is kept."""
    data = tmp_path / "labelled.csv"
    rows = [("1", "Delhi", "Delhi"), ("2", "Agra", "Agra"), ("3", "Pune", "Mumbai"), ("4", "Goa", "Goa")]
    data.write_text(
        "id,answer,response,label,question\n" + "".join(f"{i},{a},{r},correct,q\n" for i, a, r in rows)
    )
    found, printed = _agreed(tmp_path, capsys, data)
    overall = found["overall"]
    assert overall["kappa"] is None and overall["kappa_interval"] is None
    assert overall["kappa_undefined"] == "every label is one class"
    assert overall["raw_agreement"] == pytest.approx(0.75)
    assert "0.000" not in printed
    assert "kappa n/a: every label is one class (all, " in printed
    line = next(line for line in printed.splitlines() if line.strip().startswith("all "))
    assert line.split()[-3:] == ["0.750", "n/a", "n/a"]  # raw agreement, kappa, its interval


def test_agree_keeps_kappa_where_both_raters_use_both_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "labelled.csv"
    rows = [("1", "Delhi", "Delhi", "yes"), ("2", "Agra", "Pune", "no"), ("3", "Goa", "Goa", "no")]
    data.write_text("id,answer,response,label,question\n" + "".join(",".join(r) + ",q\n" for r in rows))
    found, printed = _agreed(tmp_path, capsys, data, "--positive", "yes")
    overall = found["overall"]
    assert overall["kappa"] == pytest.approx(0.4) and "kappa_undefined" not in overall
    assert "kappa n/a" not in printed


def test_agree_names_a_missing_label_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["agree", "--responses", str(EXAMPLE), "--human", "Domian"], capsys)
    assert code == 2 and "no column 'Domian' of human labels" in err and "did you mean 'Domain'?" in err


def test_plot_writes_the_chart_from_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary, chart = tmp_path / "s.json", tmp_path / "chart.svg"
    assert run(["score", "--responses", str(EXAMPLE), "--json", str(summary)], capsys)[0] == 0
    assert (
        run(["plot", "--summary", str(summary), "--out", str(chart), "--metric", "phrase_match"], capsys)[0]
        == 0
    )
    root = ElementTree.parse(chart).getroot()
    assert root.tag.endswith("svg")
    code, _, err = run(["plot", "--summary", str(tmp_path / "none.json"), "--out", str(chart)], capsys)
    assert code == 2 and "cannot read the summary" in err


def test_compare_joins_by_a_named_id_column_with_or_without_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out writes the column named by --id-col as `id` (issue 23): compare joins by it with the flag
    (the name read as the scored file's `id`) and without."""
    rows = [("q1", "Delhi", "New Delhi"), ("q2", "Agra", "Jaipur"), ("q3", "Pune", "Pune")]
    for name, order in (("a", rows), ("b", rows[::-1])):  # B lists the same rows the other way round
        data = tmp_path / f"{name}.csv"
        data.write_text("qid,question,answer,response\n" + "".join(f"{i},q,{g},{r}\n" for i, g, r in order))
        argv = ["score", "--responses", str(data), "--id-col", "qid", "--metric", "exact_substring"]
        assert run([*argv, "--out", str(tmp_path / f"{name}.out.csv")], capsys)[0] == 0
    files = [str(tmp_path / "a.out.csv"), str(tmp_path / "b.out.csv")]
    for flag in (["--id-col", "qid"], []):
        code, printed, _ = run(["compare", *files, *flag], capsys)
        assert code == 0 and "3 rows in both; 0 only in A; 0 only in B" in printed
        assert re.search(
            r"combined +3 +66\.7% +66\.7% +\+0\.0 pts", printed
        )  # the same verdicts, row for row


@pytest.mark.parametrize(
    ("column", "cell", "message"),
    [
        (
            "exact_substring",
            "yes",
            "holds values that are not verdicts (true or false, or empty when unscored)",
        ),
        (
            "token_f1",
            "inf",
            "holds values that are not verdicts (a score from 0 to 1, or empty when unscored)",
        ),
        ("token_f1", "1.5", "holds values that are not verdicts (a score from 0 to 1"),
    ],
)
def test_a_scored_file_with_values_that_are_not_verdicts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, cell: str, message: str
) -> None:
    scored = tmp_path / "edited.csv"
    scored.write_text(f"id,question,answer,response,{column}\nr1,q,a,a,{cell}\nr2,q,a,b,\n", encoding="utf-8")
    code, _, err = run(["compare", str(scored), str(scored)], capsys)
    assert code == 2 and message in err and "ids r1" in err


def test_compare_names_what_it_cannot_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,Domain,question,answer,response,exact_substring,phrase_match\n"
                 "r1,Art,q,x,x,True,\nr2,Geo,q,x,y,False,False\n", encoding="utf-8")  # fmt: skip
    b.write_text("id,Domain,question,answer,response,exact_substring\nr1,Art,q,x,x,True\nr2,Geo,q,x,y,True\n")
    found = json.loads(
        (tmp_path / "c.json").read_text()
        if run(["compare", str(a), str(b), "--json", str(tmp_path / "c.json")], capsys)[0] == 0
        else "{}"
    )
    assert found["metrics_only_in_a"] == ["phrase_match"] and found["metrics_only_in_b"] == []
    assert list(found["metrics"]["exact_substring"]["domains"]) == ["Art", "Geo"]


def test_agree_reads_json_labels_of_every_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = [True, False, 1, 0, 1.0, None, "Correct"]
    data = tmp_path / "labels.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": str(i), "question": "q", "answer": "Delhi", "response": "Delhi", "ok": label})
            + "\n"
            for i, label in enumerate(labels)
        ),
        encoding="utf-8",
    )
    argv = ["agree", "--responses", str(data), "--human", "ok", "--metric", "exact_substring"]
    assert run([*argv, "--json", str(tmp_path / "a.json")], capsys)[0] == 0
    found = json.loads((tmp_path / "a.json").read_text())["metrics"]["exact_substring"]
    # Every response passes: true, 1, 1.0 and "Correct" are correct (tp 4); false and 0 incorrect (fp 2).
    assert (found["overall"]["tp"], found["overall"]["fp"]) == (4, 2)
    assert found["other_labels"] == {"(no label)": {"n": 1, "passes": 1}}
