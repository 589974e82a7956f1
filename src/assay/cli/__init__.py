"""The command line: parse, call the library, render. Typed errors become exit code 2 and one line.

One module per command (score.py also holds the seed scripts' commands; agree.py scores through it);
the flags several commands share are added and read in flags.py. A run loads only the module of the
command it names: the others are their line of ``--help`` (``HELP``), so that ``assay --help`` or
``assay lint`` costs no scoring stack."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from .._version import __version__
from ..errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, AssayError
from ..extras import MissingExtra
from ..terminal import EscapingStream, one_line

# Each command's line in --help, in --help's order (tests/cli/test_cli_init.py holds each to its own
# parser's).
HELP = {
    "score": "score a responses file with one or more metrics",
    "agree": "agreement with human labels, accuracy calibrated on them, rows to label next",
    "compare": "compare two scored runs (--out files) row by row",
    "plot": "draw per-domain accuracy with 95%% intervals (SVG, PNG)",
    "explain": "show how each metric decided one row, with traces",
    "lint": "check the golden answers of a file (or a gold set) for problems",
    "gold": "build gold sets from curated facts and their source documents",
    "run": "ask a system every gold item, score the replies, report and gate",
    "sources": "map curated claims to their sources",
    "urls": "check the URLs that facts, gold sets and corpora cite",
    "sweep": "sweep chunk size and overlap, scoring retrieval by gold character spans",
    "view": "browse runs and scored files: history, trends, comparisons, items, marks",
    "exact-substring": "score with exact_substring only (the original evaluation script's command)",
    "word-overlap": "score with word_overlap only (the original evaluation script's command)",
    "llm-judge": "score with the LLM judge chain only (the original evaluation script's command)",
}
# Who adds the commands' parsers, in --help's order: the module, its function, the commands it adds.
REGISTRARS = (
    ("score", "add_parsers", ("score",)),
    ("agree", "add_parsers", ("agree",)),
    ("compare", "add_parsers", ("compare",)),
    ("plot", "add_parsers", ("plot",)),
    ("explain", "add_parsers", ("explain",)),
    ("lint", "add_parsers", ("lint",)),
    ("gold", "add_parsers", ("gold",)),
    ("run", "add_parsers", ("run",)),
    ("sources", "add_parsers", ("sources",)),
    ("urls", "add_parsers", ("urls",)),
    ("sweep", "add_parsers", ("sweep",)),
    ("view", "add_parsers", ("view",)),
    ("score", "add_shorthand_parsers", ("exact-substring", "word-overlap", "llm-judge")),
)


def __getattr__(name: str) -> ModuleType:
    """A command's module as an attribute (``assay.cli.score``), loaded on first use (PEP 562)."""
    if name in {module for module, _, _ in REGISTRARS}:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


BUG_REPORT = (
    "this is a bug in assay, not in your input. Fix: please report it with the command you ran "
    "(and the input, if you can share it); rerun with --debug to see the traceback"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Exit 0 when done, 1 on findings (a failed gate, lint errors), 2 on bad input
    or usage (one line: what, where, the fix), 3 on a bug in assay itself (one line, and --debug)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    terminal = sys.stdout, sys.stderr
    # Text from the data reaches the terminal through escaping streams: it can show, never drive it.
    sys.stdout, sys.stderr = EscapingStream(sys.stdout), EscapingStream(sys.stderr)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        return int(args.run(args))
    except BrokenPipeError:  # `assay ... | head`: the reader has gone, which is no error of anyone's
        _silence_stdout()
        return EXIT_OK
    except AssayError as exc:
        if args.debug:
            raise
        if isinstance(exc, MissingExtra):  # said of the command that was run: "assay gold build needs pypdf"
            exc = exc.for_command(getattr(args, COMMAND, "assay"))
        print(f"assay: error: {one_line(_no_secrets(exc.message))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # anything else is assay's own mistake: say so, apart from bad input
        if args.debug:
            raise
        what = one_line(_no_secrets(f"{type(exc).__name__}: {exc}"))
        print(f"assay: internal error: {what}; {BUG_REPORT}", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        warnings.showwarning = shown
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        sys.stderr.flush()
        sys.stdout, sys.stderr = terminal


def _no_secrets(message: str) -> str:
    """A message as the terminal shows it: no URL's userinfo, no secret sent (an error may quote a spec
    or an exception's text, and with it a URL's password)."""
    from ..net import display_url, redact  # here: only an error pays for loading it

    return redact(display_url(message))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    """A warning from the library (a page cache entry that could not be used, ...) on one line, as the
    command's own: not Python's file, line number and source line, which say nothing to a user."""
    print(f"assay: warning: {one_line(_no_secrets(str(message)))}", file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at the null device: the pipe's reader is gone, and Python would otherwise complain
    once more on its way out when it flushes stdout again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)


# Where the parsed arguments keep the command line's command ("assay gold build"), for its errors.
COMMAND = "_assay_command"


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in assay's one-line form (and the same exit code, 2), and the command
    that was run kept in the parsed arguments (under COMMAND)."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, rest = super().parse_known_args(args, namespace)
        if getattr(parsed, COMMAND, None) is None:  # the innermost parser, the command itself, is first
            setattr(parsed, COMMAND, self.prog)
        return parsed, rest

    def error(self, message: str) -> NoReturn:
        # An unknown argument is quoted as given: escaped, so it can neither split the line nor drive
        # the terminal (argparse writes before main() puts its escaping streams in place).
        self.exit(EXIT_USAGE, f"assay: error: {one_line(message)}. Fix: see '{self.prog} --help'\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given the `argv` to parse, only the command it names is built in
    full (with its module loaded), the others being their line of --help."""
    named = next((arg for arg in argv if not arg.startswith("-")), None) if argv is not None else None
    parser = _Parser(
        prog="assay",
        description="Score answers to questions against golden answers, "
        "and say how far each number can be trusted.",
    )
    parser.add_argument("--version", action="version", version=f"assay {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True, parser_class=_Parser)
    for module, registrar, added in REGISTRARS:  # --help's order
        if argv is None or named in added:
            getattr(importlib.import_module(f".{module}", __name__), registrar)(commands)
        else:
            for command in added:
                commands.add_parser(command, help=HELP[command])
    return parser
