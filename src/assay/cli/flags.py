"""The flag groups that several commands share, each added by one function and read by one: the page
cache, the file's column names, the metrics, the scoring options (which go into the signature), the
judge, the outputs of a scoring run, the reports of every row and the CI gate. A command module adds the
groups it needs."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

from ..documents.page_cache import DEFAULT_PAGE_CACHE
from ..errors import UsageError
from ..gate import ON, SCOPES, GateSettings, parse_share
from ..judges._base import CONCURRENCY, DEFAULT_CACHE_PATH, DEFAULT_RUBRIC, MAX_RESPONSE_CHARS
from ..judges.backends import judge_forms
from ..judges.jury import DEFAULT_JURY, rules_said
from ..records import ColumnMap, Dataset, column_hints
from ..scorers import SCORERS
from ..scoring import ScoreOptions
from ..summary import IntervalMethod

DEFAULT_CONFIG = Path("assay.toml")  # read for its [columns] (and, by judging, its [judge]) when there

# What `add_subparsers` returns: each command module adds its parsers to it.
Commands: TypeAlias = "argparse._SubParsersAction[Any]"


def whole_number(minimum: int, rule: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`; `rule` says so in the error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{rule}, got {value}")
        return value

    return parse


seed = whole_number(0, "a seed is 0 or more")  # a bootstrap seed (numpy's rule)
positive = whole_number(1, "give 1 or more")  # a count of processes: 0 is no run


# --- the file's columns, and --debug (every command that reads a file) ---------------------------------


def add_debug(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true", help="show a traceback on error")


def add_page_cache(parser: argparse.ArgumentParser) -> None:
    """--cache DIR and --no-cache: where the documents' extracted pages are kept between runs."""
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache",
        metavar="DIR",
        type=Path,
        default=DEFAULT_PAGE_CACHE,
        help="extracted pages' cache (%(default)s)",
    )
    cache.add_argument("--no-cache", action="store_true", help="extract every document afresh, cache nothing")


def page_cache(args: argparse.Namespace) -> Path | None:
    """The page cache's folder, or None with --no-cache."""
    cached: Path | None = None if args.no_cache else args.cache
    return cached


def add_columns(parser: argparse.ArgumentParser) -> None:
    """--debug and the column-name flags, read by `column_map` (and --regex-col by `score_options`)."""
    add_debug(parser)
    columns = parser.add_argument_group("column names (defaults in parentheses)")
    columns.add_argument(
        "--regex-col",
        metavar="NAME",
        default=ScoreOptions.regex_column,
        help="(%(default)s: hard_fact's pattern)",
    )
    for field, default in (
        ("id", "id; else the 1-based row number"),
        ("question", "question"),
        ("answer", "answer"),
        ("answers", "answers: several golden answers, a list or a JSON-array string"),
        ("response", "response"),
        ("domain", "Domain or domain"),
        ("lang", "lang"),
        ("scope", "scope: the documents a question is about, for grounded"),
    ):
        columns.add_argument(f"--{field}-col", dest=f"{field}_col", metavar="NAME", help=f"({default})")
    columns.add_argument("--sheet", metavar="NAME", help="the sheet of an Excel workbook to read (its first)")
    columns.add_argument(
        "--columns",
        metavar="FILE",
        help='a TOML file whose [columns] table names the columns once (question = "Question", ...); '
        "default: the [columns] table of ./assay.toml, when there; a --*-col flag wins over either",
    )


COLUMN_FLAGS = ("id", "question", "answer", "answers", "response", "domain", "lang", "scope")


def column_map(args: argparse.Namespace) -> ColumnMap:
    """The columns of the flags, over those of --columns FILE (or --config, or ./assay.toml)."""
    named = columns_config(args)
    for field in COLUMN_FLAGS:
        if getattr(args, f"{field}_col", None) is not None:
            named[field] = getattr(args, f"{field}_col")
            # answer and answers are one source of golden answers: a flag for either wins over the table's
            other = {"answer": "answers", "answers": "answer"}.get(field)
            if other is not None and getattr(args, f"{other}_col", None) is None:
                named.pop(other, None)
    return ColumnMap(**named)


def columns_config(args: argparse.Namespace) -> dict[str, str]:
    """The [columns] table of --columns FILE, else of --config FILE (an assay.toml, for the judge too),
    else of ./assay.toml when there; said on stderr when read, as no config file is read in silence."""
    given = getattr(args, "columns", None) or getattr(args, "config", None)
    path = Path(given) if given else DEFAULT_CONFIG
    if not given and not path.is_file():
        return {}
    from ..columns import columns_table
    from ..config_file import read_config  # here: only a run with a config file loads a TOML parser

    known = [spec.name for spec in dataclasses.fields(ColumnMap)]
    found = columns_table(read_config(path), str(path), known)
    if found and not getattr(args, "_columns_said", False):
        mapping = ", ".join(f"{field}={column!r}" for field, column in found.items())
        print(f"assay: columns from {path} [columns]: {mapping}", file=sys.stderr)
        args._columns_said = True  # compare reads two files with one map: said once
    elif getattr(args, "columns", None) and not found:
        raise UsageError(
            "the file has no [columns] table", where=str(path), fix='add [columns] with question = "..."'
        )
    return found


def print_column_hints(dataset: Dataset, args: argparse.Namespace) -> None:
    """The optional columns that look like a field but feed none: one line each, with the flag (the
    columns the command reads for itself, agree's --human and the --regex-col, left out)."""
    in_use = [getattr(args, name, None) for name in ("human", "regex_col")]
    for hint in column_hints(dataset, [column for column in in_use if column]):
        print(f"assay: hint: {hint}", file=sys.stderr)


# --- the metrics and what changes their numbers ---------------------------------------------------------


def help_when_shown(make_help: Callable[[], str]) -> type[argparse.Action]:
    """An append action whose help text is made when --help shows it, not when the parser is built: a
    help read from the registries loads every scorer or judge backend, which a run that uses one of
    them must not pay for."""

    class AppendWithHelpWhenShown(argparse._AppendAction):
        @property
        def help(self) -> str:
            return make_help()

        @help.setter
        def help(self, given: str | None) -> None:
            pass  # argparse sets the help it was given; the made one stands

    return AppendWithHelpWhenShown


def add_metric(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric", action=help_when_shown(metric_help), choices=[*sorted(SCORERS), "judge"])


# Inputs every file has: not worth naming in the help.
_ALWAYS_THERE = ("id", "question")


def metric_help() -> str:
    """--metric's help, from the registry: which metrics run by default, with the inputs they need."""
    defaults: list[str] = []
    named: list[str] = []
    for name in SCORERS:
        scorer = SCORERS[name]
        needed = [field for field in scorer.inputs if not field.endswith("?") and field not in _ALWAYS_THERE]
        (defaults if scorer.default else named).append(f"{name} ({', '.join(needed)})" if needed else name)
    return (
        f"a metric to run; repeatable (default: every metric whose inputs the file has among "
        f"{', '.join(defaults)}; {', '.join(named)} and judge run when named)"
    )


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """What changes the numbers, and so goes into the signature; read by `score_options`."""
    parser.add_argument(
        "--ci",
        choices=("wilson", "bootstrap"),
        default=IntervalMethod.name,
        help="how each accuracy's 95%% interval is computed (default: %(default)s)",
    )
    add_ci_seed(parser)
    parser.add_argument(
        "--nfc", action="store_true", help="normalise both sides to Unicode NFC before scoring"
    )
    parser.add_argument(
        "--inflection",
        action="store_true",
        help="phrase_match: count inflected forms (temple/temples, amalak/Amalaka, Hindi and Tamil "
        "stems) as soft passes, reported apart from passes",
    )
    add_sources(parser)


def add_ci_seed(parser: argparse.ArgumentParser) -> None:
    """--ci-seed N: the bootstrap's seed, of score's intervals and compare's alike (one library default)."""
    parser.add_argument(
        "--ci-seed",
        type=seed,
        default=IntervalMethod.seed,
        metavar="N",
        help="the bootstrap's seed (default: %(default)s); equal seeds give equal intervals",
    )


def add_sources(parser: argparse._ActionsContainer) -> None:
    """--sources DIR: the documents the replies cite, for the metrics that read them (grounded)."""
    parser.add_argument(
        "--sources",
        metavar="DIR",
        help="the folder of source documents (PDF, .txt, .md; as for assay gold build --sources) that "
        "grounded checks citations, pages, quotes and numbers against",
    )


def score_options(args: argparse.Namespace) -> ScoreOptions:
    return ScoreOptions(
        nfc=args.nfc,
        regex_column=args.regex_col,
        inflection=args.inflection,
        intervals=IntervalMethod(args.ci, args.ci_seed),
        on_conflict=getattr(args, "on_conflict", None) or "error",
        agree_pair=getattr(args, "agree_pair", None),
        sources=getattr(args, "sources", None),
    )


def agree_pair(text: str) -> tuple[str, str]:
    """An argparse type: two different metric names, A,B."""
    names = tuple(name.strip() for name in text.split(","))
    known = [*SCORERS, "judge"]
    if len(names) != 2 or names[0] == names[1] or not all(names):
        raise argparse.ArgumentTypeError(f"'{text}' is not two different metrics A,B")
    unknown = [name for name in names if name not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown metric '{unknown[0]}' (metrics: {', '.join(known)})")
    return (names[0], names[1])


# --- the judge metric (read by judging.judge_setup) -----------------------------------------------------

JUDGE_FLAGS = ("judge", "config", "judge_after_config", "judge_rubric", "cascade", "judge_all", "concurrency",
               "cache", "no_cache", "refresh", "max_cost", "max_response_chars", "system_model",
               "jury")  # fmt: skip


def judge_help() -> str:
    """--judge's help, from the registry of judge backends."""
    return (
        f"a judge, tried in order; repeatable: {judge_forms()} (the kinds of judge backends, more by "
        "entry point group assay.judges), then ,key=value settings (api_key_env=NAME, timeout, retries, "
        "rps, max_tokens, seed, price_prompt, price_completion per million tokens)"
    )


def add_judge(parser: argparse.ArgumentParser) -> None:
    judging = parser.add_argument_group("the judge metric (--metric judge)")
    judging.add_argument("--judge", action=help_when_shown(judge_help), metavar="SPEC")
    judging.add_argument(
        "--config",
        metavar="FILE",
        help="an assay.toml with [judge] settings and its chain (default ./assay.toml, when there); "
        "--judge replaces its chain",
    )
    judging.add_argument(
        "--judge-after-config",
        action="store_true",
        help="try the --judge judges after the config file's chain, instead of in its place",
    )
    judging.add_argument(
        "--judge-rubric",
        metavar="NAME",
        help="what the judges are asked, and how their replies are read: a rubric by name, built in or "
        f"a plugin's (default {DEFAULT_RUBRIC}: is the response's answer one of the golden answers?)",
    )
    judging.add_argument(
        "--cascade", action="store_true", help="ask the judges only where the matchers cannot decide"
    )
    judging.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help=f"requests in flight at most (default {CONCURRENCY}); fewer to a server that "
        "reports fewer slots (llama.cpp's), or turns requests away (429, 503, its deadline passed)",
    )
    judging.add_argument(
        "--cache", metavar="FILE", help=f"the verdict cache, SQLite (default {DEFAULT_CACHE_PATH})"
    )
    judging.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    judging.add_argument("--refresh", action="store_true", help="ask again, and overwrite cached replies")
    judging.add_argument(
        "--max-cost", type=float, metavar="USD", help="stop sending requests once this much is spent"
    )
    judging.add_argument(
        "--max-response-chars",
        type=int,
        metavar="N",
        help=f"cut longer responses, with a marker, before judging (default {MAX_RESPONSE_CHARS})",
    )
    judging.add_argument(
        "--system-model",
        metavar="NAME",
        help="the model under test: warn when a judge is of its family (a judge should be of another)",
    )
    judging.add_argument(
        "--jury",
        nargs="?",
        const=DEFAULT_JURY,
        metavar="RULE",
        help="ask every judge of the chain (two or more) every row, instead of the first that answers, and "
        f"decide by RULE (default {DEFAULT_JURY}): {rules_said()}; a missing vote is never made up",
    )


# --- a scoring run: its input, its outputs, and everything above --------------------------------------


def add_scoring_run(parser: argparse.ArgumentParser) -> None:
    """Every flag of a command that scores a file (score, agree and the shorthands), but --metric."""
    parser.add_argument(
        "--responses",
        required=True,
        metavar="FILE",
        help="CSV, TSV, JSONL, JSON array, Parquet or Excel (.xlsx)",
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write per-question verdicts (.csv, .jsonl or .parquet)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON, with its signature")
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="write every verdict's trace as JSON lines (--trace-col puts them in --out too)",
    )
    parser.add_argument(
        "--trace-col",
        action="store_true",
        help="add each row's traces to --out, as a JSON column 'trace' (slower, and a far larger file)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="score only the first N rows")
    parser.add_argument(
        "--detail",
        action="store_true",
        help="print each metric's own table per domain (counts, interval, blank, unscored) instead of "
        "the one table across metrics",
    )
    parser.add_argument(
        "--agree-pair",
        type=agree_pair,
        metavar="A,B",
        help="the two metrics whose agreement is reported, e.g. exact_substring,phrase_match "
        "(default: exact_substring,word_overlap, when both run)",
    )
    add_scoring_options(parser)
    add_judge(parser)
    parser.add_argument(
        "--allow-duplicate-ids", action="store_true", help="accept rows that share an id instead of stopping"
    )
    parser.add_argument(
        "--workers", type=positive, metavar="N", help="processes for a large CSV file (default: one per CPU)"
    )
    parser.add_argument(
        "--on-conflict",
        choices=("rename", "replace"),
        help="an input column named like one --out adds (exact_substring, trace, ...): 'rename' keeps "
        "it as input:NAME, 'replace' writes fresh verdicts in its place (a re-scored file); "
        "without this flag such a column stops the run",
    )
    add_columns(parser)


# --- assay score's reports of every row, and its gate ---------------------------------------------------

Settings = TypeVar("Settings", bound=GateSettings)
# The gate's settings: the flag of each field of GateSettings (whose defaults are the only ones).
GATE_FLAGS = {"scope": "gate_scope", "max_unscored": "max_unscored", "on": "gate_on", "min_n": "min_n"}


def gate_settings(args: argparse.Namespace, kind: type[Settings]) -> Settings:
    """The gates and their settings of the command line (`kind`: a scored file's, or a run's), read before
    any work. A setting without a gate would change nothing, so it is a mistake, not a no-op; a setting
    not given takes GateSettings' default."""
    given = {field: getattr(args, flag) for field, flag in GATE_FLAGS.items()}
    given = {field: value for field, value in given.items() if value is not None}
    if given and not args.gate:
        named = ", ".join(f"--{GATE_FLAGS[field].replace('_', '-')}" for field in given)
        raise UsageError(f"{named} only apply to a gate", fix="add --gate EXPR, or drop them")
    if "max_unscored" in given:
        given["max_unscored"] = parse_share(given["max_unscored"])
    return kind.parse(args.gate or (), **given)


def add_reports_and_gates(parser: argparse.ArgumentParser) -> None:
    """--markdown and --html (written from every row), and the CI gate with its settings."""
    reports = parser.add_argument_group("reports and the CI gate")
    reports.add_argument("--markdown", metavar="FILE", help="write the Markdown report (results.md)")
    reports.add_argument("--html", metavar="FILE", help="write the self-contained HTML report")
    add_gates(reports)


def add_gates(group: argparse._ActionsContainer) -> None:
    group.add_argument(
        "--gate",
        action="append",
        metavar="EXPR",
        help="fail (exit 1) unless the metric's accuracy (for token_f1: the rows scoring 1) meets the "
        "bar overall and in every domain (see --gate-scope), e.g. 'phrase_match>=0.90' or "
        "'exact_substring>=85%%'; repeatable",
    )
    group.add_argument(
        "--gate-scope",
        choices=SCOPES,
        help="what each gate checks: the whole and every domain (all), the whole only (overall), or "
        f"every domain only (domains) (default: {GateSettings().scope})",
    )
    group.add_argument(
        "--max-unscored",
        metavar="SHARE",
        help="a scope with more than this share of its rows unscored fails the gate, whatever its "
        f"accuracy on the rest: a fraction or a percentage (default: {GateSettings.max_unscored})",
    )
    group.add_argument(
        "--gate-on",
        choices=ON,
        help="gate on the accuracy (point) or the conservative end of its 95%% interval: the lower end "
        f"for >=, the upper for <= (default: {GateSettings.on})",
    )
    group.add_argument(
        "--min-n",
        type=int,
        metavar="N",
        help=f"a scope with fewer scored rows cannot pass the gate (default: {GateSettings.min_n})",
    )
