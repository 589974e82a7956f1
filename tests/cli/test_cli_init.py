"""Starting assay costs what it should: ``import assay`` and ``assay --help`` load no scoring stack, the
light --help (each command's line from ``assay.cli.HELP``) says what the commands' own parsers say, and
the public names load on first use without a module hiding a function of the same name."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay import cli

HEAVY = ("assay.scorers", "assay.records", "assay.scoring", "assay.report.html", "httpx", "pypdf")


def loaded_after(code: str) -> list[str]:
    """The heavy modules loaded in a fresh interpreter after `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import assay",
        "from assay.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
    ],
    ids=["import", "help"],
)
def test_starting_loads_no_scoring_stack(code: str) -> None:
    assert loaded_after(code) == []


def help_of(parser: argparse.ArgumentParser) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parser.parse_args(["--help"])
    return out.getvalue()


def test_the_light_help_is_the_full_parsers_help() -> None:
    assert help_of(cli.build_parser(["--help"])) == help_of(cli.build_parser())


def test_each_commands_line_is_its_own_parsers() -> None:
    full = cli.build_parser()
    (commands,) = [a for a in full._actions if isinstance(a, argparse._SubParsersAction)]
    assert {choice.dest: choice.help for choice in commands._choices_actions} == cli.HELP


def test_no_public_name_is_also_a_module_of_the_package() -> None:
    # Importing a submodule sets it as its package's attribute: a module named like a public function
    # (assay.agree) would hide the function once anything imported the module.
    package = Path(assay.__file__).parent
    modules = {path.stem for path in package.iterdir() if path.suffix == ".py"}
    modules |= {path.name for path in package.iterdir() if (path / "__init__.py").exists()}
    assert sorted(set(assay.__all__) & modules) == []


def test_a_commands_module_is_an_attribute_of_the_cli() -> None:
    assert cli.score.__name__ == "assay.cli.score"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        cli.nothing  # noqa: B018
