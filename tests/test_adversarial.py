"""Issue 9's promises checked again on inputs nobody had tried: each case is a hostile input or situation
that once broke a promise (a bug's exit 3, a silent wrong value, a message split over lines), in a table
of named cases per class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import ROWS, run, write_csv


def _one_error_line(code: int, out: str, err: str, *, expected: str) -> None:
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("assay: error: "), err
    assert expected in err, err
    assert "Traceback" not in err and "internal error" not in err


# --- assay plot: a JSON file that is not a summary is bad input (exit 2), not a bug (exit 3) -------------


NOT_SUMMARIES = [
    pytest.param({}, "no 'metrics' object", id="empty-object"),
    pytest.param([], "no 'metrics' object", id="array"),
    pytest.param(None, "no 'metrics' object", id="null"),
    pytest.param("a string", "no 'metrics' object", id="string"),
    pytest.param({"metrics": 5}, "no 'metrics' object", id="metrics-a-number"),
    pytest.param({"metrics": {}}, "no 'metrics' object", id="no-metric"),
    pytest.param({"metrics": {"x": {}}}, "metrics.x has no 'domains' object", id="metric-without-domains"),
    pytest.param({"metrics": {"x": {"domains": 3}}}, "metrics.x has no 'domains'", id="domains-a-number"),
    pytest.param(
        {"metrics": {"x": {"domains": {}, "combined": {"n": 1, "accuracy": "0.5"}}}},
        "metrics.x.combined",
        id="accuracy-a-string",
    ),
    pytest.param(
        {"metrics": {"x": {"domains": {}, "combined": {"n": 1, "accuracy": 1.5}}}},
        "metrics.x.combined",
        id="accuracy-past-1",
    ),
    pytest.param(
        {"metrics": {"x": {"domains": {"Geo": {"n": True}}, "combined": {"n": 1}}}},
        "metrics.x.domains.Geo",
        id="n-a-boolean",
    ),
    pytest.param(
        {"metrics": {"x": {"domains": {}, "combined": {"n": 1, "accuracy": 0.5, "interval": [0, 1]}}}},
        "metrics.x.combined",
        id="interval-a-list",
    ),
]


@pytest.mark.parametrize(("document", "expected"), NOT_SUMMARIES)
def test_plot_refuses_a_json_file_that_is_not_a_summary(
    good: Path, capsys: pytest.CaptureFixture[str], document: object, expected: str
) -> None:
    summary = good.with_name("summary.json")
    summary.write_text(json.dumps(document), encoding="utf-8")
    code, out, err = run(["plot", "--summary", str(summary), "--out", "chart.svg"], capsys)
    _one_error_line(code, out, err, expected=expected)
    assert "not a summary of assay score" in err
    assert not good.with_name("chart.svg").exists()


def test_plot_still_draws_a_summary_assay_wrote(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["score", "--responses", str(good), "--json", "summary.json"], capsys)[0] == 0
    code, _, err = run(["plot", "--summary", "summary.json", "--out", "chart.svg"], capsys)
    assert code == 0, err
    assert good.with_name("chart.svg").read_text(encoding="utf-8").startswith("<svg")


# --- the terminal: a newline or an escape from the data, or from a path, never starts a line of its own -

FORGED = "\nFAKE: gate passed\x1b[2J"  # would print a line assay never wrote, then clear the screen
HOSTILE_ROWS = [
    {**ROWS[0], "Domain": f"Geo{FORGED}", "human": f"correct{FORGED}"},
    {**ROWS[1], "id": f"b{FORGED}", "answer": "", "human": "incorrect"},
]


def _hostile(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "hostile.csv", HOSTILE_ROWS)


def _forges_nothing(out: str, err: str) -> None:
    for line in (out + err).splitlines():
        assert not line.lower().startswith("fake"), out + err
    assert "\x1b" not in out + err


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["score", "--responses", "hostile.csv", "--metric", "word_overlap"], id="score-report"),
        pytest.param(
            ["score", "--responses", "hostile.csv", "--metric", "word_overlap", "--gate", "word_overlap>=.1"],
            id="gate-lines",
        ),
        pytest.param(["explain", "--responses", "hostile.csv", "--id", "a"], id="explain-header"),
        pytest.param(
            ["agree", "--responses", "hostile.csv", "--human", "human", "--negative", "x"], id="agree"
        ),
        pytest.param(["compare", "scored.csv", "scored.csv"], id="compare"),
        pytest.param(["lint", f"hostile{FORGED}.csv"], id="lint-summary-line"),
        pytest.param(
            ["score", "--responses", "hostile.csv", "--out", f"o{FORGED}.csv", "--json", f"s{FORGED}.json",
             "--trace", f"t{FORGED}.jsonl", "--markdown", f"m{FORGED}.md", "--html", f"h{FORGED}.html"],
            id="wrote-paths",
        ),
        pytest.param(["plot", "--summary", "summary.json", "--out", f"p{FORGED}.svg"], id="plot-wrote-path"),
        pytest.param(["score", "--responses", "hostile.csv", f"--bogus{FORGED}"], id="unknown-argument"),
    ],
)  # fmt: skip
def test_text_from_the_data_or_a_path_stays_on_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    hostile = _hostile(tmp_path)
    write_csv(tmp_path / f"hostile{FORGED}.csv", HOSTILE_ROWS)
    setup = ["score", "--responses", str(hostile), "--out", "scored.csv", "--json", "summary.json"]
    assert run(setup, capsys)[0] == 0
    code, out, err = run(argv, capsys)
    assert code in (0, 1, 2), err
    _forges_nothing(out, err)
    assert "\\n" in out + err  # the newline is there, shown as what it is


# --- infinities: `1e400` is `Infinity` in disguise, and Parquet floats can hold one -------------------


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("line", "literal"),
    [
        pytest.param('{"id": 1e400, "question": "q", "answer": "inf", "response": "inf"}', "1e400", id="id"),
        pytest.param('{"id": 1, "question": "q", "answer": 1e400, "response": "inf"}', "1e400", id="answer"),
        pytest.param(
            '{"id": 1, "question": "q", "answer": "a", "response": "a", "x": [1, -2.5E+999]}',
            "-2.5E+999",
            id="negative-in-a-list",
        ),
        pytest.param(
            '{"id": 1, "question": "1e400", "answer": "a", "response": "a", "x": {"y": 1e400}}',
            "1e400",
            id="a-string-holding-it-first",
        ),
    ],
)
def test_a_json_number_past_a_floats_range_is_refused_where_it_stands(
    good: Path, capsys: pytest.CaptureFixture[str], line: str, literal: str
) -> None:
    source = good.with_name("huge.jsonl")
    source.write_text(line + "\n", encoding="utf-8")
    code, out, err = run(["score", "--responses", str(source), "--out", "o.jsonl"], capsys)
    column = line.rindex(literal) + 1  # the number itself, not the text in a string before it
    _one_error_line(code, out, err, expected=f"huge.jsonl line 1 column {column}: the number {literal} ")
    assert "past a float's range" in err and "Fix: write the number as a string" in err
    assert not good.with_name("o.jsonl").exists()


def test_a_json_array_names_the_row_of_a_number_past_a_floats_range(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [dict(ROWS[0]), dict(ROWS[1])]
    text = json.dumps(rows).replace('"Ganga"', "1e999")
    good.with_name("huge.json").write_text(text, encoding="utf-8")
    code, out, err = run(["score", "--responses", "huge.json"], capsys)
    _one_error_line(code, out, err, expected="huge.json line 1 column ")
    assert "the number 1e999 is past a float's range" in err


@pytest.mark.parametrize(
    ("values", "kind", "where"),
    [
        pytest.param([1.0, float("inf")], "float64", "row 2: column 'x' holds the number inf", id="float"),
        pytest.param([float("-inf"), 2.0], "float32", "row 1: column 'x' holds the number -inf", id="f32"),
        pytest.param([[1.0], [2.0, float("inf")]], None, "row 2: column 'x' holds the number inf", id="list"),
        pytest.param([{"a": 1.0}, {"a": float("inf")}], None, "(at a)", id="struct"),
    ],
)
def test_a_parquet_infinity_is_refused_naming_column_and_row(
    good: Path, capsys: pytest.CaptureFixture[str], values: list[object], kind: str | None, where: str
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    columns = {key: [row[key] for row in ROWS] for key in ROWS[0]}
    pq.write_table(pa.table({**columns, "x": pa.array(values, kind)}), good.with_name("inf.parquet"))
    code, out, err = run(["score", "--responses", "inf.parquet", "--out", "o.jsonl"], capsys)
    _one_error_line(code, out, err, expected=where)
    assert not good.with_name("o.jsonl").exists()


@pytest.mark.parametrize(
    "values",
    [
        pytest.param([1.0, float("nan")], id="nan-is-a-missing-value"),
        pytest.param([1e308, -1e308], id="the-largest-floats"),
        pytest.param([None, 0.0], id="null"),
    ],
)
def test_finite_parquet_floats_and_nan_are_still_read(
    good: Path, capsys: pytest.CaptureFixture[str], values: list[object]
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    columns = {key: [row[key] for row in ROWS] for key in ROWS[0]}
    pq.write_table(pa.table({**columns, "x": pa.array(values, "float64")}), good.with_name("ok.parquet"))
    code, _, err = run(["score", "--responses", "ok.parquet", "--out", "o.jsonl"], capsys)
    assert code == 0, err
    assert len(good.with_name("o.jsonl").read_text(encoding="utf-8").splitlines()) == 2


# --- a key given twice in one JSON object: json keeps the last in silence, a golden answer lost ---------


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        pytest.param(
            "rows.jsonl",
            '{"id": "a", "question": "q", "answer": "Delhi", "answer": "Paris", "response": "Delhi"}\n',
            "rows.jsonl line 1 column 49: the key 'answer' appears twice",
            id="jsonl-answer",
        ),
        pytest.param(
            "rows.jsonl",
            '{"id": "a", "question": "q", "answer": "x", "response": "x"}\n'
            '{"id": "b", "id": "c", "question": "q", "answer": "x", "response": "x"}\n',
            "rows.jsonl line 2 column 13: the key 'id' appears twice",
            id="jsonl-id-on-line-2",
        ),
        pytest.param(
            "rows.json",
            '[{"id": "a", "question": "q", "answer": "x", "response": "x"},\n'
            ' {"id": "b", "question": "q", "answer": "x", "response": "x", "meta": {"k": 1, "k": 2}}]',
            "rows.json line 2 column 80: the key 'k' appears twice",
            id="json-nested-object",
        ),
        pytest.param(
            "rows.jsonl",
            '{"id": "a", "question": "q", "answer": "x", "response": "x", "r\\u00e9": 1, "ré": 2}\n',
            "the key 'ré' appears twice",
            id="one-key-spelled-two-ways",
        ),
    ],
)
def test_a_key_given_twice_in_one_object_is_refused(
    good: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expected: str
) -> None:
    good.with_name(name).write_text(text, encoding="utf-8")
    code, out, err = run(["score", "--responses", name, "--out", "o.jsonl"], capsys)
    _one_error_line(code, out, err, expected=expected)
    assert "Fix: keep one of the two" in err
    assert not good.with_name("o.jsonl").exists()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            '{"id": "a", "question": "q", "answer": "x", "response": "x", "Answer": "y"}\n', id="case"
        ),
        pytest.param(
            '{"id": "a", "question": "q", "answer": "x", "response": "x", "m": {"answer": 1}}\n', id="nest"
        ),
        pytest.param(
            '{"id": "a", "question": "q", "answer": "x", "response": "x", "q": "\\"answer\\": 1"}\n', id="str"
        ),
    ],
)
def test_keys_that_only_look_alike_are_still_read(
    good: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    good.with_name("rows.jsonl").write_text(text, encoding="utf-8")
    code, _, err = run(["score", "--responses", "rows.jsonl", "--metric", "exact_substring"], capsys)
    assert code == 0, err


# --- assay agree: labels that cannot be labels ------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        pytest.param(["--human", "answer"], "'answer' is the file's answer column", id="golden-answers"),
        pytest.param(["--human", "id"], "'id' is the file's id column", id="ids"),
        pytest.param(["--human", "Domain"], "'Domain' is the file's domain column", id="domains"),
        pytest.param(["--human", "human", "--positive", ""], "an empty label", id="empty-positive"),
        pytest.param(["--human", "human", "--negative", "  "], "an empty label", id="blank-negative"),
    ],
)
def test_agree_refuses_labels_that_cannot_be_labels(
    good: Path, capsys: pytest.CaptureFixture[str], flags: list[str], expected: str
) -> None:
    rows = [{**ROWS[0], "human": "correct"}, {**ROWS[1], "human": ""}]  # the second row has no label
    write_csv(good.with_name("labelled.csv"), rows)
    argv = ["agree", "--responses", "labelled.csv", "--metric", "exact_substring", "--json", "a.json"]
    code, out, err = run([*argv, *flags], capsys)
    _one_error_line(code, out, err, expected=expected)
    assert not good.with_name("a.json").exists()


def test_agree_reports_a_row_without_a_label_apart(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{**ROWS[0], "human": "correct"}, {**ROWS[1], "human": ""}]
    write_csv(good.with_name("labelled.csv"), rows)
    argv = ["agree", "--responses", "labelled.csv", "--metric", "exact_substring", "--human", "human"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "other labels, apart: (no label) 1 row," in out


def test_agree_warns_when_no_label_is_a_positive_one(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Labels written 'ok' match no positive: every row would count incorrect without a word."""
    rows = [{**ROWS[0], "human": "ok"}, {**ROWS[1], "human": "ok"}]
    write_csv(good.with_name("labelled.csv"), rows)
    argv = ["agree", "--responses", "labelled.csv", "--metric", "exact_substring", "--human", "human"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert "no label in 'human' is a positive one ('1', 'correct', 'true', 'yes')" in err
    assert "if some of its labels ('ok' (2)) mean correct, name them with --positive VALUE" in err
    assert "hint: 'human'" not in err  # the column agree reads for itself is no unused column
    code, _, err = run([*argv, "--positive", "ok"], capsys)
    assert code == 0 and "warning" not in err


# --- assay compare: a fix it can follow ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "where"),
    [
        pytest.param(["a", "a"], "line 3: duplicate id 'a' (first at line 2)", id="two-rows"),
        pytest.param(["x", " x"], None, id="a-space-makes-another-id"),
    ],
)
def test_compare_refuses_duplicate_ids_with_a_fix_compare_has(
    good: Path, capsys: pytest.CaptureFixture[str], ids: list[str], where: str | None
) -> None:
    write_csv(good, [{**row, "id": row_id} for row, row_id in zip(ROWS, ids)])
    score = ["score", "--responses", str(good), "--metric", "exact_substring", "--allow-duplicate-ids"]
    assert run([*score, "--out", "a.csv"], capsys)[0] == 0
    code, out, err = run(["compare", "a.csv", "a.csv"], capsys)
    if where is None:
        assert code == 0, err
        return
    _one_error_line(code, out, err, expected=f"a.csv {where}: rows are joined by id")
    assert "--allow-duplicate-ids" not in err  # compare has no such flag


# --- options given a value that reads as "not given": an empty file name, a zero -------------------------


NEVER = "openai:m@http://127.0.0.1:9/v1"  # a judge nothing answers for: the run must stop before it


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["score", "--responses", "good.csv", "--json", ""], id="score-json"),
        pytest.param(["score", "--responses", "good.csv", "--markdown", ""], id="score-markdown"),
        pytest.param(["score", "--responses", "good.csv", "--html", ""], id="score-html"),
        pytest.param(["score", "--responses", "good.csv", "--trace", ""], id="score-trace"),
        pytest.param(["score", "--responses", "good.csv", "--out", ""], id="score-out"),
        pytest.param(["agree", "--responses", "good.csv", "--human", "id", "--json", ""], id="agree-json"),
        pytest.param(["compare", "a.csv", "a.csv", "--json", ""], id="compare-json"),
        pytest.param(["plot", "--summary", "s.json", "--out", ""], id="plot-out"),
        pytest.param(["llm-judge", "--responses", "good.csv", "--judge", NEVER, "--cache", ""], id="cache"),
        pytest.param(["llm-judge", "--responses", "good.csv", "--judge", NEVER, "--config", ""], id="config"),
    ],
)
def test_an_empty_output_name_is_refused_not_ignored(
    good: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert run(["score", "--responses", str(good), "--out", "a.csv", "--json", "s.json"], capsys)[0] == 0
    code, out, err = run(argv, capsys)
    flag = argv[argv.index("") - 1]
    _one_error_line(code, out, err, expected=f"{flag}: an empty file name. Fix: give {flag} a file name")


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        pytest.param("--concurrency", "0", id="concurrency"),
        pytest.param("--max-response-chars", "0", id="max-response-chars"),
        pytest.param("--max-cost", "0", id="max-cost"),
        pytest.param("--cache", "", id="cache"),
    ],
)
def test_a_judge_flag_given_zero_without_the_judge_is_refused(
    good: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    argv = ["score", "--responses", str(good), "--metric", "exact_substring", flag, value]
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected=f"{flag} only apply to the judge metric")


# --- CSV headers: a repeated name shown so it can be seen, even when it is empty -------------------


@pytest.mark.parametrize(
    ("header", "shown"),
    [
        pytest.param("id,question,answer,response,,", "''", id="two-empty-names"),
        pytest.param("id,question,answer,response,x,x", "'x'", id="a-name-twice"),
        pytest.param("id,question,answer,response, , ", "' '", id="two-spaces"),
    ],
)
def test_a_repeated_header_name_is_shown_quoted(
    good: Path, capsys: pytest.CaptureFixture[str], header: str, shown: str
) -> None:
    good.write_text(f"{header}\na,q,Delhi,Delhi,1,2\n", encoding="utf-8")
    code, out, err = run(["score", "--responses", "good.csv"], capsys)
    _one_error_line(code, out, err, expected=f"good.csv header: column names appear more than once: {shown}.")


# --- --out .parquet: a value Parquet cannot hold is bad input (exit 2), not a bug (exit 3) ------------


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param(
            "18446744073709551616", "column 'x' holds a whole number past the signed 64-bit", id="2**64"
        ),
        pytest.param(
            "-9223372036854775809", "column 'x' holds a whole number past the signed 64-bit", id="-2**63-1"
        ),
        pytest.param("{}", "Parquet cannot hold a column of this file", id="empty-object"),
        pytest.param('"a"', "a column mixes kinds of value", id="mixed-kinds"),
    ],
)
def test_a_value_parquet_cannot_hold_is_refused_and_nothing_written(
    good: Path, capsys: pytest.CaptureFixture[str], extra: str, expected: str
) -> None:
    first = json.dumps({**ROWS[0], "x": 1 if extra == '"a"' else json.loads(extra)})
    second = json.dumps({**ROWS[1], "x": json.loads(extra)})
    good.with_name("rows.jsonl").write_text(f"{first}\n{second}\n", encoding="utf-8")
    score = ["score", "--responses", "rows.jsonl", "--metric", "exact_substring", "--out"]
    code, _, err = run([*score, "o.parquet"], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and expected in err, err
    assert "internal error" not in err
    assert [p.name for p in good.parent.iterdir() if p.name.startswith(("o.", ".o"))] == []
    code, _, err = run([*score, "o.jsonl"], capsys)
    assert code == 0, err  # JSON Lines holds it as it is
    assert len(good.with_name("o.jsonl").read_text(encoding="utf-8").splitlines()) == 2


# --- judge settings that would have been taken at face value -------------------------------------------


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        pytest.param(["--max-cost", "nan"], "max_cost is not a number (nan)", id="max-cost-nan"),
        pytest.param(["--max-cost", "-0.01"], "max_cost must not be negative", id="max-cost-negative"),
        pytest.param(
            ["--judge-spec-suffix", ",api_key_env="], "judge setting api_key_env is empty", id="key-env"
        ),
        pytest.param(
            ["--judge-spec-suffix", ",api_key_env= "], "judge setting api_key_env is empty", id="key-sp"
        ),
    ],
)
def test_judge_settings_that_make_no_sense_are_refused_before_any_request(
    good: Path, capsys: pytest.CaptureFixture[str], flags: list[str], expected: str
) -> None:
    from conftest import free_port

    never = f"openai:m@http://127.0.0.1:{free_port()}/v1"  # nothing listens: nothing may be asked
    if flags[0] == "--judge-spec-suffix":
        never, flags = never + flags[1], []
    argv = ["llm-judge", "--responses", str(good), "--judge", never, "--no-cache", *flags]
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected=expected)


# --- judge configuration: a file or spec assay cannot use is bad input, and a URL's password stays hidden -


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        pytest.param(b"judge = 5\n", "judge is not a [judge] table", id="judge-a-number"),
        pytest.param(b"judge = [1]\n", "judge is not a [judge] table", id="judge-a-list"),
        pytest.param(b"[judge]\nchain = 5\n", "judge.chain is not a list of tables", id="chain-a-number"),
        pytest.param(b"[judge]\nchain = [5]\n", "judge.chain is not a list of tables", id="chain-of-numbers"),
        pytest.param(
            b'[judge]\nchain = ["openai:m@http://127.0.0.1:9/v1"]\n',
            "judge.chain is not a list of tables",
            id="chain-of-specs",
        ),
        pytest.param(
            b"\xff\xfe[judge]\n", "the config file is not UTF-8 text (byte offset 0)", id="not-utf8"
        ),
        pytest.param(
            b'[[judge.chain]]\nkind = "openai"\nmodel = "m"\nbase_url = "http://[::1"\n',
            "the base URL cannot be read (Invalid IPv6 URL)",
            id="bad-ipv6",
        ),
    ],
)
def test_a_config_file_assay_cannot_use_is_bad_input(
    good: Path, capsys: pytest.CaptureFixture[str], config: bytes, expected: str
) -> None:
    good.with_name("c.toml").write_bytes(config)
    argv = ["llm-judge", "--responses", str(good), "--config", "c.toml", "--no-cache"]
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected=expected)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("http://[::1/v1", "the base URL cannot be read (Invalid IPv6 URL)", id="bad-ipv6"),
        pytest.param("http://127.0.0.1:99999/v1", "cannot be read (Port out of range", id="port-past-65535"),
        pytest.param("ftp://127.0.0.1/v1", "is not an http:// or https:// address", id="ftp"),
        pytest.param("127.0.0.1:8080/v1", "is not an http:// or https:// address", id="no-scheme"),
        pytest.param("http:///v1", "is not an http:// or https:// address", id="no-host"),
    ],
)
def test_a_base_url_the_client_cannot_ask_is_refused_before_the_work(
    good: Path, capsys: pytest.CaptureFixture[str], url: str, expected: str
) -> None:
    argv = ["llm-judge", "--responses", str(good), "--judge", f"openai:m@{url}", "--no-cache"]
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected=expected)


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param("openai:m@http://user:s3cret-pw@127.0.0.1:9/v1,bogus=1", id="unknown-setting"),
        pytest.param("openai:m@http://user:s3cret-pw@127.0.0.1:9/v1,timeout", id="not-key-value"),
        pytest.param("openai:m@http://user:s3cret-pw@127.0.0.1:99999/v1", id="bad-port"),
        pytest.param("openai:m@http://s3cret-pw@127.0.0.1:9/v1,retries=-1", id="token-as-user"),
    ],
)
def test_a_spec_error_does_not_print_the_urls_password(
    good: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    code, out, err = run(["llm-judge", "--responses", str(good), "--judge", spec, "--no-cache"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "s3cret" not in out + err
    assert "127.0.0.1" in err  # the endpoint is still named


# --- names too long for the file system: refused before the work, whatever the flag --------------------

NAME_MAX = 255  # bytes in one name, on Linux's file systems


@pytest.mark.parametrize("flag", ["--out", "--json", "--trace", "--markdown", "--html"])
@pytest.mark.parametrize(
    "length",
    [
        pytest.param(NAME_MAX + 45, id="past-the-limit"),
        pytest.param(NAME_MAX - 1, id="fits-but-its-temporary-file-would-not"),
        pytest.param(NAME_MAX - 25, id="a-little-short-of-the-limit"),
    ],
)
def test_an_output_name_too_long_is_refused_before_the_work(
    good: Path, capsys: pytest.CaptureFixture[str], flag: str, length: int
) -> None:
    suffix = {"--out": ".csv", "--json": ".json", "--trace": ".jsonl", "--markdown": ".md", "--html": ".html"}
    name = "b" * (length - len(suffix[flag])) + suffix[flag]
    code, out, err = run(["score", "--responses", str(good), flag, name], capsys)
    _one_error_line(code, out, err, expected="(File name too long). Fix: give a shorter")
    assert sorted(p.name for p in good.parent.iterdir()) == ["good.csv"]  # nothing left behind


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["score", "--responses", "LONG.csv"], id="score"),
        pytest.param(["lint", "LONG.csv"], id="lint"),
        pytest.param(["compare", "LONG.csv", "good.csv"], id="compare"),
        pytest.param(["explain", "--responses", "LONG.csv", "--id", "a"], id="explain"),
    ],
)
def test_an_input_name_too_long_is_bad_input(
    good: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    argv = [arg.replace("LONG", "c" * (NAME_MAX + 1)) for arg in argv]
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected="cannot read it (File name too long)")


def test_a_name_that_leaves_room_for_the_temporary_file_is_written(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "b" * (NAME_MAX - 60) + ".csv"
    code, _, err = run(["score", "--responses", str(good), "--out", name], capsys)
    assert code == 0, err
    assert good.with_name(name).is_file()


# --- a link loop: an output on it is refused, not a crash of Path.resolve() ------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["score", "--responses", "good.csv", "--out", "loop1.csv"], id="score-out"),
        pytest.param(["score", "--responses", "good.csv", "--json", "loop2.json"], id="score-json"),
        pytest.param(["compare", "a.csv", "a.csv", "--markdown", "loop1.csv"], id="compare-markdown"),
        pytest.param(["plot", "--summary", "s.json", "--out", "loop3.svg"], id="plot-out"),
    ],
)
def test_an_output_on_a_link_loop_is_refused(
    good: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert run(["score", "--responses", str(good), "--out", "a.csv", "--json", "s.json"], capsys)[0] == 0
    folder = good.parent
    for name, other in (("loop1.csv", "loop2.json"), ("loop2.json", "loop1.csv"), ("loop3.svg", "loop3.svg")):
        (folder / name).symlink_to(other)
    code, out, err = run(argv, capsys)
    _one_error_line(code, out, err, expected="this is a link that leads back to itself (a loop)")
    assert all((folder / name).is_symlink() for name in ("loop1.csv", "loop2.json", "loop3.svg"))


# --- --limit past sys.maxsize: more rows than any file holds, not a crash in itertools.islice ----------


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.json", "rows.csv"])
@pytest.mark.parametrize("limit", [str(2**63), "99999999999999999999999"])
def test_a_limit_past_sys_maxsize_reads_every_row(
    good: Path, capsys: pytest.CaptureFixture[str], name: str, limit: str
) -> None:
    if name.endswith(".csv"):
        write_csv(good.with_name(name), ROWS)
    elif name.endswith(".jsonl"):
        _jsonl(good.with_name(name), list(ROWS))
    else:
        good.with_name(name).write_text(json.dumps(ROWS), encoding="utf-8")
    argv = ["score", "--responses", name, "--limit", limit, "--metric", "exact_substring", "--out", "o.jsonl"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert f"{name}: 2 rows" in out
    assert len(good.with_name("o.jsonl").read_text(encoding="utf-8").splitlines()) == 2
