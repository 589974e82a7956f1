"""docs/cli.md is the commands' own --help, current, and the same whatever terminal generated it."""

from __future__ import annotations

import argparse
import difflib
import io
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from assay.cli import build_parser
from assay.cli.help_docs import REGENERATE, WIDTH, command_parsers, main, render

CLI_MD = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_cli_md_is_current() -> None:
    expected, actual = render(), CLI_MD.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            actual.splitlines(), expected.splitlines(), "docs/cli.md", "--help", lineterm=""
        )
        shown = "\n".join(list(diff)[:40])
        pytest.fail(f"docs/cli.md is out of date with the commands' --help. Fix: run `{REGENERATE}`\n{shown}")


@pytest.mark.parametrize(
    "command",
    [
        "assay",
        "assay score",
        "assay agree",
        "assay compare",
        "assay plot",
        "assay explain",
        "assay lint",
        "assay gold build",
        "assay run",
        "assay sources map",
        "assay urls check",
        "assay sweep",
        "assay exact-substring",
        "assay word-overlap",
        "assay llm-judge",
    ],
)
def test_every_command_has_a_section_holding_its_help(command: str) -> None:
    parser = {each.prog: each for each in command_parsers(build_parser())}[command]
    text = render()
    section = text.split(f"## `{command}`\n\n```text\n", 1)[1].split("\n```", 1)[0]
    assert section.startswith(f"usage: {command} ")
    flat = " ".join(section.split())
    assert all(" ".join(str(action.help).split()) in flat for action in _documented(parser))


def test_every_parser_is_listed_once_with_a_working_link() -> None:
    text = render()
    progs = [each.prog for each in command_parsers(build_parser())]
    assert len(progs) == len(set(progs))
    for prog in progs:
        assert text.count(f"\n## `{prog}`\n") == 1
        assert f"- [`{prog}`](#{prog.replace(' ', '-')})" in text


@pytest.mark.parametrize("columns", ["20", "80", str(WIDTH), "400"])
def test_the_terminal_width_does_not_change_the_file(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    baseline = render()
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("FORCE_COLOR", "1")  # Python 3.14's argparse colours help on request
    assert render() == baseline
    assert "\x1b" not in baseline


@pytest.mark.parametrize(("argv", "code"), [([], 0), (["OUT"], 0), (["a", "b"], 2), (["--help"], 2)])
def test_main_prints_or_writes_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) == code
    if argv == ["OUT"]:
        assert (tmp_path / "OUT").read_text(encoding="utf-8") == render()
    elif code == 0:
        assert out.getvalue() == render()
    else:
        assert REGENERATE.split(" docs/")[0] in capsys.readouterr().err


def _documented(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The actions whose help argparse prints as written (no %-formatting, not suppressed)."""
    return [
        a
        for a in parser._actions
        if a.help and "%" not in a.help and a.help != argparse.SUPPRESS and a.dest != "help"
    ]


def test_runs_as_a_module(tmp_path: Path) -> None:
    out = tmp_path / "cli.md"
    subprocess.run([sys.executable, "-m", "assay.cli.help_docs", str(out)], check=True, cwd=tmp_path)
    assert out.read_text(encoding="utf-8") == render()
