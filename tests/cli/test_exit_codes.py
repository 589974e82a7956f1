"""Exit codes (0 done, 1 findings, 2 bad input or usage, 3 a bug in assay), nonsense options refused,
and text from the data shown on the terminal without driving it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import ROWS, run, write_csv

from assay import cli
from assay.terminal import one_line, printable

# --- exit codes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [ZeroDivisionError("division by zero"), KeyError("ta"), RuntimeError("a worker died\nwith two lines")],
    ids=["zero-division", "key-error", "multi-line-message"],
)
def test_a_bug_exits_3_with_one_line_that_asks_for_a_report(
    good: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fault: Exception
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise fault  # a fault no real input produces on demand: assay's own mistake

    monkeypatch.setattr(cli.score, "score_file", broken)  # the score command's library call
    code, out, err = run(["score", "--responses", str(good)], capsys)
    assert code == 3
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"assay: internal error: {type(fault).__name__}: ")
    assert "this is a bug in assay" in err and "--debug" in err
    assert "Traceback" not in err


def test_debug_shows_the_traceback_of_a_bug(
    good: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(cli.score, "score_file", broken)  # the score command's library call
    with pytest.raises(ZeroDivisionError):
        cli.main(["score", "--responses", str(good), "--debug"])


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["score", "--responses", "good.csv"], 0),
        (["score", "--responses", "good.csv", "--gate", "exact_substring>=0.9"], 1),
        (["score", "--responses", "missing.csv"], 2),
        (["score", "--responses", "good.csv", "--metric", "no_such_metric"], 2),
    ],
    ids=["done", "failed-gate", "bad-input", "bad-usage"],
)
def test_exit_codes_tell_findings_from_errors(
    good: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: int
) -> None:
    code, _, err = run(argv, capsys)
    assert code == expected, err


def test_the_installed_command_exits_3_on_a_bug_without_a_traceback(tmp_path: Path) -> None:
    """The same through `python -m assay`, in its own process: the exit code CI sees."""
    write_csv(tmp_path / "good.csv", ROWS)
    script = (
        "import sys, assay.cli as cli\n"
        "def broken(*a, **k):\n    raise MemoryError('simulated')\n"
        "cli.score.score_file = broken\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "score", "--responses", "good.csv"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 3
    assert result.stderr.startswith("assay: internal error: MemoryError: simulated; this is a bug")
    assert "Traceback" not in result.stderr


# --- nonsense options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "--responses", "good.csv", "--workers", "0"], "argument --workers: give 1 or more, got 0"),
        (
            ["score", "--responses", "good.csv", "--workers", "-3"],
            "argument --workers: give 1 or more, got -3",
        ),
        (
            ["score", "--responses", "good.csv", "--workers", "two"],
            "argument --workers: 'two' is not a whole",
        ),
        (
            [
                "agree",
                "--responses",
                "good.csv",
                "--human",
                "answer",
                "--positive",
                "yes",
                "--negative",
                "Yes ",
            ],
            "'yes' given as both a positive and a negative label",
        ),
        (
            [
                "agree",
                "--responses",
                "good.csv",
                "--human",
                "answer",
                "--positive",
                "a",
                "--positive",
                "b",
                "--negative",
                "B",
            ],
            "'b' given as both a positive and a negative label",
        ),
        (["score", "--responses", "good.csv", "--min-n", "20"], "--min-n only apply to a gate"),
        (
            ["score", "--responses", "good.csv", "--gate-scope", "overall", "--max-unscored", "0"],
            "--gate-scope, --max-unscored only apply to a gate",
        ),
        (
            ["exact-substring", "--responses", "good.csv", "--gate-on", "lower"],
            "--gate-on only apply to a gate",
        ),
    ],
    ids=[
        "workers-0",
        "workers-negative",
        "workers-not-a-number",
        "label-both-ways",
        "one-of-several-both",
        "min-n-without-gate",
        "gate-settings-without-gate",
        "gate-on-without-gate",
    ],
)
def test_nonsense_options_are_refused_before_the_work(
    good: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"assay: error: {message}"), err
    assert err.count("\n") == 1


# --- the terminal --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, नमस्ते", "plain text, नमस्ते"),
        ("clear\x1b[2Jscreen", "clear\\x1b[2Jscreen"),
        ("csi \x9b31m in C1", "csi \\x9b31m in C1"),
        ("two\nlines\r\n", "two\\nlines\\r\\n"),
        ("para\u2028graph\x85next", "para\\u2028graph\\x85next"),
        ("txt.\u202eexe", "txt.\\u202eexe"),  # Trojan Source: an override that reverses what follows
        ("isolate \u2066x\u2069", "isolate \\u2066x\\u2069"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("ന്\u200d chillu, क्\u200cष", "ന്\u200d chillu, क्\u200cष"),  # joiners carry meaning: kept
        ("bell\x07 and del\x7f", "bell\\x07 and del\\x7f"),
    ],
    ids=[
        "plain",
        "ansi",
        "c1-csi",
        "newlines",
        "line-separators",
        "bidi-override",
        "bidi-isolate",
        "surrogate",
        "joiners-kept",
        "bell-del",
    ],
)
def test_one_line_escapes_what_could_drive_a_terminal(text: str, shown: str) -> None:
    assert one_line(text) == shown
    assert one_line(shown) == shown  # escaping is stable: what is shown is plain text


def test_report_text_keeps_its_own_line_breaks_and_tabs() -> None:
    assert printable("a\tb\nc\x1b[0m", keep="\n\t") == "a\tb\nc\\x1b[0m"


@pytest.mark.parametrize(
    "hostile",
    ["x\x1b[31mred", "x\ny", "x\r", "x\u202etxt", "x\x07"],
    ids=["ansi", "newline", "carriage-return", "bidi", "bell"],
)
def test_an_error_naming_a_hostile_id_stays_one_inert_line(
    good: Path, capsys: pytest.CaptureFixture[str], hostile: str
) -> None:
    rows = [dict(ROWS[0], id=hostile), dict(ROWS[1], id=hostile)]  # a duplicate id: the error names it
    write_csv(good.parent / "dup.csv", rows)
    code, _, err = run(["score", "--responses", "dup.csv"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("assay: error: dup.csv line ")
    assert ": duplicate id " in err or "holds an invisible character" in err  # a bidi mark is refused
    assert not any(char in err[:-1] for char in "\x1b\r\u202e\x07\n")
    assert one_line(hostile) in err


def test_the_report_shows_hostile_domains_and_warnings_as_text(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        dict(ROWS[0], Domain="Geo\x1b[2J\u202e"),
        dict(ROWS[1], id="b\x1b]8;;http://x\x07", answer=""),  # an empty golden: warned, with its id
    ]
    write_csv(good.parent / "hostile.csv", rows)
    code, out, err = run(["score", "--responses", "hostile.csv", "--metric", "exact_substring"], capsys)
    assert code == 0, err
    for stream in (out, err):
        assert not any(char in stream for char in "\x1b\x07\u202e"), stream
    assert "Geo\\x1b[2J\\u202e" in out
    warning = next(line for line in err.splitlines() if "empty" in line)
    assert "b\\x1b]8;;http://x\\x07" in warning
