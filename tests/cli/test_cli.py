"""The command line: the seed's commands translate one to one, the report's shape, errors and warnings.

Exit codes: 0 done; 2 bad usage or bad input, with one line on stderr starting `assay: error:` that says
what, where and the fix, and no traceback unless `--debug` (then the exception propagates).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import NEEDS_MORE_INPUTS, run

import assay
from assay import InputError, UsageError
from assay.cli import main
from assay.scorers import DEFAULT_METRICS

RESPONSES = """\
id,question,answer,Domain,response
geo-1,Capital of India?,New Delhi,Geography,The capital is New Delhi.
art-1,Who painted Guernica?,Pablo Picasso,Art,"Guernica was painted by Picasso, Pablo."
hist-1,Who founded the Maurya Empire?,Chandragupta,History,Chandragupta's empire
sci-1,Largest planet?,Jupiter,Science,
geo-hi-1,भारत की राजधानी?,नई दिल्ली,Geography,राजधानी नई दिल्ली है।
art-2,Who wrote Hamlet?,Shakespeare,Art,Marlowe
"""


def table(report: str, title: str) -> dict[str, list[str]]:
    """The rows of the report's table under the line starting with `title`: label -> the other cells."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = {}
    for line in lines[start + 2 :]:  # skip the title and the column header
        if not line.strip():
            break
        label, *cells = re.split(r" {2,}", line.strip())  # cells are set two or more spaces apart
        rows[label] = cells
    return rows


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the seed's file name, made the current directory so commands read as the seed's."""
    (tmp_path / "my_model_english.csv").write_text(RESPONSES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- the seed's commands -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shorthand", "longhand"),
    [
        (
            "exact-substring --responses my_model_english.csv",
            "score --metric exact_substring --responses my_model_english.csv",
        ),
        (
            "word-overlap --responses my_model_english.csv --out scored.csv",
            "score --metric word_overlap --responses my_model_english.csv --out scored.csv",
        ),
        (
            "word-overlap --responses my_model_english.csv --out scored.jsonl --limit 3 --nfc",
            "score --metric word_overlap --responses my_model_english.csv --out scored.jsonl --limit 3 --nfc",
        ),
    ],
    ids=["exact_substring.py", "word_overlap.py --out", "word_overlap.py --out --limit --nfc"],
)
def test_seed_commands_translate_one_to_one(
    workdir: Path, capsys: pytest.CaptureFixture[str], shorthand: str, longhand: str
) -> None:
    outputs = []
    for argv in (shorthand.split(), longhand.split()):
        code, out, err = run(argv, capsys)
        assert code == 0, err
        written = [p.read_bytes() for p in sorted(workdir.glob("scored.*"))]
        outputs.append((out, written))
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(
    ("command", "metric", "other"),
    [
        ("exact-substring", "exact_substring", "word_overlap"),
        ("word-overlap", "word_overlap", "exact_substring"),
    ],
)
def test_shorthand_runs_only_its_protocol(
    workdir: Path, capsys: pytest.CaptureFixture[str], command: str, metric: str, other: str
) -> None:
    code, out, _ = run([command, "--responses", "my_model_english.csv", "--detail"], capsys)
    assert code == 0
    assert f"{metric}   [{metric}@1|nfc:off|ci:wilson95|assay:{assay.__version__}]" in out
    assert other not in out
    assert "agreement:" not in out


def test_seed_command_writes_the_scored_csv(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        ["word-overlap", "--responses", "my_model_english.csv", "--out", "scored.csv", "--trace-col"], capsys
    )
    assert code == 0
    header = (workdir / "scored.csv").read_text(encoding="utf-8").splitlines()[0]
    assert (
        header == "id,question,answer,Domain,response,"
        "word_overlap,word_overlap_answer,matching_words,total_golden_words,trace"
    )
    assert err.endswith("assay: wrote per-question verdicts to scored.csv\n")


# --- the printed report --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "rows"),
    [
        (
            "exact_substring",
            {
                "Art": ["2", "0"],
                "Geography": ["2", "2"],
                "History": ["1", "1"],
                "Science": ["1", "0"],
                "combined": ["6", "3"],
            },
        ),
        (
            "word_overlap",
            {
                "Art": ["2", "1"],
                "Geography": ["2", "2"],
                "History": ["1", "0"],
                "Science": ["1", "0"],
                "combined": ["6", "3"],
            },
        ),
    ],
)
def test_report_has_per_domain_and_combined_rows_for_each_metric(
    workdir: Path, capsys: pytest.CaptureFixture[str], metric: str, rows: dict[str, list[str]]
) -> None:
    _, out, _ = run(["score", "--responses", "my_model_english.csv", "--detail"], capsys)
    found = table(out, f"{metric}   [{metric}@1|nfc:off|ci:wilson95|assay:{assay.__version__}]")
    assert {label: cells[:2] for label, cells in found.items()} == rows  # n, passed
    assert list(found) == ["Art", "Geography", "History", "Science", "combined"]


def test_report_has_the_agreement_section(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["score", "--responses", "my_model_english.csv", "--detail"], capsys)
    found = table(out, "agreement: exact_substring vs word_overlap")
    assert found == {
        "Art": ["0", "1", "0", "1"],
        "Geography": ["2", "0", "0", "0"],
        "History": ["0", "0", "1", "0"],
        "Science": ["0", "1", "0", "0"],
        "overall": ["2", "2", "1", "1"],  # both_pass, both_fail, exact_only, overlap_only
    }
    assert "    overlap_only  art-1: golden 'Pablo Picasso'" in out
    assert "review: 1 overlap-only rows" in out


def test_report_headline_counts_rows_and_blank_responses(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(["score", "--responses", "my_model_english.csv", "--limit", "4"], capsys)
    assert out.splitlines()[0] == (
        f"assay {assay.__version__} · my_model_english.csv: 4 rows (--limit 4: the first 4 rows only), "
        "1 blank response (scored incorrect)"
    )


def test_report_without_a_domain_column_says_no_domain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("question,answer,response\nq1,a,a\nq2,b,c\n", encoding="utf-8")
    _, out, _ = run(["score", "--responses", str(path), "--detail"], capsys)
    assert table(out, "exact_substring") == {
        "(no domain)": ["2", "1", "50.0%", "9.5–90.5%", "0", "0"],  # Wilson's 95% interval of 1/2
        "combined": ["2", "1", "50.0%", "9.5–90.5%", "0", "0"],  # ... blank 0, unscored 0
    }


def test_report_matches_render_text(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["score", "--responses", "my_model_english.csv"], capsys)
    scored = assay.score(assay.load_records("my_model_english.csv"))
    assert out == assay.render_text(assay.build_report(scored.summary))


# --- errors --------------------------------------------------------------------------------------------

BAD_FILES = {
    "ragged.csv": "question,answer,response\nq1,a,r\nq2,a,r,extra\n",
    "no-response.csv": "question,answer,Domain,respnse\nq,a,D,r\n",
    "dup.csv": "id,question,answer,response\nx,q,a,r\nx,q,a,r\n",
    "empty.csv": "",
    "notes.txt": "question,answer,response\nq,a,r\n",
    "good.csv": "question,answer,response\nq,a,r\n",
    "nested-answers.jsonl": '{"question": "q", "answers": [["a", "b"]], "response": "r"}\n',
    "list-id.jsonl": '{"id": [1], "question": "q", "answer": "a", "response": "r"}\n',
    "mixed.jsonl": '{"question": "q", "answer": "a", "response": "r", "x": 1}\n'
    '{"question": "q", "answer": "a", "response": "r", "x": "one"}\n',
}


@pytest.fixture
def bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in BAD_FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "latin1.csv").write_bytes(b"question,answer,response\nq,caf\xe9,r\n")
    (tmp_path / "a-folder.csv").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


ERRORS = [
    (["--responses", "missing.csv"], "missing.csv: no such file. Fix: check the path passed to --responses"),
    (
        ["--responses", "no-response.csv"],
        "no-response.csv: missing column: response (no column 'response'; nearest: 'respnse', by its "
        "similar name) (columns found: question, answer, Domain, respnse). Fix: pass --response-col respnse",
    ),
    (
        ["--responses", "good.csv", "--response-col", "reply"],
        "good.csv: missing column: response (no column 'reply'",
    ),
    (
        ["--responses", "ragged.csv"],
        "ragged.csv line 3: row has 4 fields but the header has 3. Fix: quote cells",
    ),
    (
        ["--responses", "good.csv", "--limit", "0"],
        "--limit must be at least 1, got 0. Fix: pass a positive number of rows",
    ),
    (["--responses", "good.csv", "--limit", "-5"], "--limit must be at least 1, got -5"),
    (
        ["--responses", "dup.csv"],
        "dup.csv line 3: duplicate id 'x' (first at line 2). "
        "Fix: make ids unique, or pass --allow-duplicate-ids",
    ),
    (["--responses", "empty.csv"], "empty.csv: the file is empty"),
    (["--responses", "latin1.csv"], "latin1.csv: not valid UTF-8 at byte offset 30 (line 2,"),
    (
        ["--responses", "notes.txt"],
        "notes.txt: cannot tell the format of 'notes.txt' from its extension. Fix: use one of",
    ),
    (
        ["--responses", "good.csv", "--out", "scored.xlsx"],
        "--out scored.xlsx: cannot write per-question verdicts as '.xlsx'",
    ),
    (
        ["--responses", "good.csv", "--out", "a-folder.csv"],
        "--out a-folder.csv: this is a folder, not a file",
    ),
    (
        ["--responses", "good.csv", "--json", "no-such-folder/summary.json"],
        "--json no-such-folder/summary.json: the folder to write into does not exist",
    ),
    (
        ["--responses", "nested-answers.jsonl"],
        "nested-answers.jsonl line 1 (id 1): column 'answers' holds a list, not text",
    ),
    (["--responses", "list-id.jsonl"], "list-id.jsonl line 1: column 'id' holds a list, not text"),
    (
        ["--responses", "mixed.jsonl", "--out", "mixed.parquet"],
        "mixed.parquet: a column mixes kinds of value that Parquet cannot hold in one column",
    ),
]
ERROR_IDS = [
    "missing-file",
    "bad-column",
    "bad-column-flag",
    "ragged-csv",
    "limit-0",
    "limit-negative",
    "duplicate-id",
    "empty-file",
    "not-utf8",
    "unknown-input-format",
    "unknown-out-format",
    "out-is-a-folder",
    "json-folder-missing",
    "answers-holding-lists",
    "id-holding-a-list",
    "parquet-mixed-column",
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=ERROR_IDS)
@pytest.mark.parametrize("command", ["score", "exact-substring"])
def test_bad_input_exits_2_with_one_line_and_no_traceback(
    bad_files: Path, capsys: pytest.CaptureFixture[str], command: str, args: list[str], message: str
) -> None:
    code, out, err = run([command, *args], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"assay: error: {message}")
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [["--metric", "bleu"], ["--limit", "ten"], ["--workers", "two"]],
    ids=["unknown-metric", "limit-not-a-number", "workers-not-a-number"],
)
def test_bad_usage_exits_2_without_traceback(
    bad_files: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(["score", "--responses", "good.csv", *args], capsys)
    assert (code, out) == (2, "")
    assert "Traceback" not in err
    assert args[1] in err


@pytest.mark.parametrize(
    "args", [["--metric", "bleu"], ["--limit", "ten"]], ids=["unknown-metric", "limit-not-a-number"]
)
def test_bad_usage_is_one_line_starting_assay_error(
    bad_files: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    _, _, err = run(["score", "--responses", "good.csv", *args], capsys)
    assert err.startswith("assay: error: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--responses", "missing.csv"], InputError),
        (["--responses", "no-response.csv"], InputError),
        (["--responses", "ragged.csv"], InputError),
        (["--responses", "good.csv", "--limit", "0"], InputError),
        (["--responses", "notes.txt"], UsageError),
        (["--responses", "good.csv", "--out", "scored.xlsx"], UsageError),
    ],
    ids=["missing-file", "bad-column", "ragged-csv", "limit-0", "unknown-input-format", "unknown-out-format"],
)
def test_debug_lets_the_exception_propagate(
    bad_files: Path, capsys: pytest.CaptureFixture[str], args: list[str], error: type[Exception]
) -> None:
    with pytest.raises(error) as caught:
        main(["score", *args, "--debug"])
    assert type(caught.value) is error
    assert capsys.readouterr().err == ""


# --- warnings ------------------------------------------------------------------------------------------


def test_empty_golden_answers_are_warned_about(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "golden.csv"
    path.write_text(
        'id,question,answer,response\nok,q,a,a\nnone,q,,r\nspace,q," ",r\ndanda,q,।,r\n', encoding="utf-8"
    )
    code, out, err = run(["score", "--responses", str(path)], capsys)
    assert code == 0
    warning = next(line for line in err.splitlines() if line.startswith("assay: warning: "))
    assert warning.startswith(
        "assay: warning: 3 rows with an empty (or whitespace/punctuation-only) golden answer"
    )
    assert "ids none, space, danda" in warning
    assert "4 rows" in out.splitlines()[0]  # still scored and counted


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_null_cells_are_warned_about(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    rows = [
        {"id": "a", "question": "q", "answer": "x", "response": "x"},
        {"id": "b", "question": "q", "answer": "x", "response": None},
        {"id": "c", "question": None, "answer": "x", "response": None},
    ]
    path = tmp_path / f"nulls.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    code, _, err = run(["score", "--responses", str(path)], capsys)
    assert code == 0
    assert (
        "assay: warning: column 'response' is empty (NaN/None) in 2 rows, treated as empty text: ids b, c"
        in err
    )
    assert (
        "assay: warning: column 'question' is empty (NaN/None) in 1 row, treated as empty text: ids c" in err
    )


def test_clean_input_prints_no_warning(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(["score", "--responses", "my_model_english.csv"], capsys)
    assert "warning" not in err


# --- help and version ----------------------------------------------------------------------------------

SCORING_FLAGS = [
    "--responses",
    "--out",
    "--json",
    "--limit",
    "--nfc",
    "--workers",
    "--allow-duplicate-ids",
    "--debug",
    "--question-col",
    "--answer-col",
    "--answers-col",
    "--response-col",
    "--domain-col",
    "--id-col",
    "--lang-col",
]


@pytest.mark.parametrize(
    ("command", "flags"),
    [
        ("score", [*SCORING_FLAGS, "--metric"]),
        ("exact-substring", SCORING_FLAGS),
        ("word-overlap", SCORING_FLAGS),
    ],
)
def test_help_mentions_every_flag(capsys: pytest.CaptureFixture[str], command: str, flags: list[str]) -> None:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    assert [flag for flag in flags if flag not in out] == []


def test_score_help_lists_the_metrics_and_their_default(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["score", "--help"], capsys)
    assert "{" + ",".join([*sorted(assay.SCORERS), "judge"]) + "}" in out
    assert "(default: every metric whose inputs the file has" in " ".join(out.split())


def _defaults(names: list[str]) -> list[str]:
    """The metrics of `names` that run by default (the SQuAD and token scores run when named), but
    refusal, which needs each row's expected_refusal (none of these files has it)."""
    return [name for name in names if name in DEFAULT_METRICS and name != "refusal"]


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (
            "question,answer,response",
            _defaults([m for m in assay.SCORERS if not m.startswith("mlqa") and m != "hard_fact"]),
        ),
        ("question,answer,response,lang", _defaults([m for m in assay.SCORERS if m != "hard_fact"])),
        (
            "question,answer,response,expected_regex",
            _defaults([m for m in assay.SCORERS if not m.startswith("mlqa")]),
        ),
        ("question,answer,response,lang,expected_regex", _defaults(list(assay.SCORERS))),
    ],
)
def test_with_no_metric_every_metric_whose_inputs_the_file_has_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], columns: str, expected: list[str]
) -> None:
    cells = {
        "question": "q",
        "answer": "Delhi",
        "response": "New Delhi",
        "lang": "en",
        "expected_regex": "Delhi",
    }
    path = tmp_path / "in.csv"
    path.write_text(columns + "\n" + ",".join(cells[c] for c in columns.split(",")) + "\n", encoding="utf-8")
    code, _, err = run(["score", "--responses", str(path), "--json", str(tmp_path / "s.json")], capsys)
    assert code == 0, err
    assert list(json.loads((tmp_path / "s.json").read_text())["metrics"]) == expected


def test_a_language_column_does_not_turn_the_mlqa_metrics_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MLQA's exact match is near 0% on sentence answers, like SQuAD's: with a `lang` column they are one
    --metric away (named in the hint), not run unasked."""
    path = tmp_path / "in.csv"
    path.write_text(
        "question,answer,response,lang\nq,Delhi,The capital of India is New Delhi.,en\n", encoding="utf-8"
    )
    code, out, err = run(["score", "--responses", str(path), "--json", str(tmp_path / "s.json")], capsys)
    assert code == 0, err
    ran = list(json.loads((tmp_path / "s.json").read_text())["metrics"])
    assert "phrase_match" in ran and not [name for name in ran if name.startswith("mlqa")]
    offered = out.split("one flag away:")[1].split("\n")[0]
    assert "mlqa_em" in offered and "mlqa_f1" in offered
    code, _, err = run(
        ["score", "--responses", str(path), "--metric", "mlqa_f1", "--json", str(tmp_path / "m.json")], capsys
    )
    assert code == 0, err
    assert list(json.loads((tmp_path / "m.json").read_text())["metrics"]) == ["mlqa_f1"]


def test_a_graded_metric_is_given_by_its_mean_in_every_table_of_the_terminal_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On sentence answers an F1's share of perfect scores is 0%: the tables by domain and by language
    give its mean (issue 23: mlqa_f1 showed 0.0% in every cell beside a mean of 0.249)."""
    path = tmp_path / "in.csv"
    rows = [
        "question,answer,response,Domain,lang",
        "q1,New Delhi,The capital of India is New Delhi.,geo,en",
        "q2,Paris,Paris is the capital of France.,geo,de",
        "q3,Tagore,It was Rabindranath Tagore.,lit,en",
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run(["score", "--responses", str(path), "--metric", "mlqa_f1"], capsys)
    assert code == 0, err
    by_domain = out.split("accuracy by domain (a graded metric: its mean score)")[1].split("\n\n")[0]
    by_lang = out.split("accuracy by language (lang) (a graded metric: its mean score)")[1].split("\n\n")[0]
    for table in (by_domain, by_lang):
        assert "0.0%" not in table and table.count("mean 0.") + table.count("mean 1.") == 3


def test_the_mlqa_metrics_are_not_offered_without_a_language_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.csv"
    path.write_text("question,answer,response\nq,Delhi,New Delhi\n", encoding="utf-8")
    code, out, err = run(["score", "--responses", str(path)], capsys)
    assert code == 0, err
    offered = out.split("one flag away:")[1].split("\n")[0]
    assert "squad_f1" in offered and "mlqa" not in offered  # they would need a --lang-col too


def test_the_other_metrics_run_when_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "in.csv"
    path.write_text("question,answer,response\nq,Delhi,New Delhi\n", encoding="utf-8")
    others = [
        name
        for name in assay.SCORERS
        if name not in DEFAULT_METRICS and not name.startswith("mlqa") and name not in NEEDS_MORE_INPUTS
    ]
    assert others and "squad_f1" in others
    named = [flag for name in others for flag in ("--metric", name)]
    argv = ["score", "--responses", str(path), *named, "--json", str(tmp_path / "s.json")]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert list(json.loads((tmp_path / "s.json").read_text())["metrics"]) == others
    assert "more metrics, one flag away" not in out or "squad_f1" not in out.split("one flag away")[1]


def test_top_level_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    assert all(command in out for command in ("score", "exact-substring", "word-overlap"))


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"], capsys) == (0, f"assay {assay.__version__}\n", "")


# --- a real process ------------------------------------------------------------------------------------


def _python_m_assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_python_m_assay_scores_a_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = _python_m_assay("score", "--responses", "my_model_english.csv", "--out", "scored.csv", cwd=workdir)
    assert done.returncode == 0, done.stderr
    _, in_process, _ = run(["score", "--responses", "my_model_english.csv"], capsys)
    assert done.stdout == in_process
    assert len((workdir / "scored.csv").read_text(encoding="utf-8").splitlines()) == 7


def test_python_m_assay_reports_bad_input_in_one_line(workdir: Path) -> None:
    done = _python_m_assay("word-overlap", "--responses", "missing.csv", cwd=workdir)
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        done.stderr == "assay: error: missing.csv: no such file. Fix: check the path passed to --responses\n"
    )


def test_the_progress_line_shows_rows_rate_and_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from assay.cli.progress import progress_line as _progress_line

    show = _progress_line("answers.csv", sys.stderr)
    show(50, 200)
    line = capsys.readouterr().err.rsplit("\r", 1)[-1]
    assert line.startswith("assay: answers.csv [#####               ] 50/200 rows, ")
    assert "/s, " in line and line.rstrip().endswith("s left")
