"""docs/cli.md, written from the command line's own `--help`, so the reference never drifts from the flags.

Regenerate it after changing a command, a flag or its help text:

    python -m assay.cli.help_docs docs/cli.md

(with no path it prints the Markdown). `tests/cli/test_cli_docs.py` fails while the file is out of date.
The help is formatted at a fixed width and without colour, whatever the terminal, so the file is the same
on every machine that runs the same Python minor version.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from . import build_parser

WIDTH = 100
REGENERATE = "python -m assay.cli.help_docs docs/cli.md"

PREAMBLE = f"""# Command-line reference

<!-- Generated from the commands' --help by `{REGENERATE}`. Do not edit by hand:
     tests/cli/test_cli_docs.py checks that this file is current. -->

Every command's and subcommand's `--help`, as `assay` prints it (at a width of {WIDTH} columns). The
guides say what the flags are for: [scoring](scoring.md), [the judge](judge.md), [reports](reports.md),
[gold sets](gold.md), [assay run](run.md), [sweeps](sweep.md), [URL checks](urls.md). The exit codes are
in the [README](../README.md#exit-codes).
"""


def command_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parser and every subcommand's, depth first in `--help`'s order; an alias is listed once."""
    yield parser
    seen: set[int] = set()
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for child in action.choices.values():
            if id(child) not in seen:
                seen.add(id(child))
                yield from command_parsers(child)


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """docs/cli.md's text: a contents list, then one section per command holding its `--help`."""
    parsers = list(command_parsers(parser or build_parser()))
    for each in parsers:
        _fix_format(each)
    contents = "\n".join(f"- [`{each.prog}`](#{_anchor(each.prog)})" for each in parsers)
    sections = "\n\n".join(_section(each) for each in parsers)
    return f"{PREAMBLE}\n{contents}\n\n{sections}\n"


def _fix_format(parser: argparse.ArgumentParser) -> None:
    """Format at WIDTH columns whatever $COLUMNS says, and without the colour Python 3.14 adds on a
    terminal: the file must not depend on the window it was generated in."""
    formatter: Callable[..., argparse.HelpFormatter] = parser.formatter_class
    parser.formatter_class = functools.partial(formatter, width=WIDTH)
    parser.color = False  # type: ignore[attr-defined]  # Python >= 3.14 reads it; older ones ignore it


def _section(parser: argparse.ArgumentParser) -> str:
    """One command: its name as a heading and its help as a preformatted block."""
    help_text = parser.format_help().rstrip()
    return f"## `{parser.prog}`\n\n```text\n{help_text}\n```"


def _anchor(prog: str) -> str:
    """The anchor GitHub gives the heading `prog` (`assay gold build` -> `assay-gold-build`)."""
    return prog.lower().replace(" ", "-")


def main(argv: Sequence[str] | None = None) -> int:
    """Write docs/cli.md to the path given, or print it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(f"usage: {REGENERATE.replace('docs/cli.md', '[PATH]')}", file=sys.stderr)
        return 2
    text = render()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
