"""The command line: parse, call the library, render. Typed errors become exit code 2 and one line."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ._version import __version__
from .agree import DEFAULT_POSITIVE, label_sets
from .commands import (
    add_agree_arguments,
    add_commands,
    add_report_arguments,
    agree_pair,
    apply_gates,
    check_agree_pair,
    check_score_outputs,
    gates,
    positive,
    report_agreement,
    report_writer,
    seed,
)
from .errors import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, AssayError, UsageError
from .judges.cache import DEFAULT_PATH
from .judges.run import JudgeOptions
from .lint import ERROR, lint
from .parallel import score_file
from .records import ColumnMap, load_records
from .report.json import write_summary_json
from .report.text import render_explanation, render_text, warnings
from .scorers import SCORERS
from .scoring import ScoreOptions, ScoreRun
from .summary import IntervalMethod, Summary
from .terminal import EscapingStream, one_line

if TYPE_CHECKING:
    from .judges._base import Judge
    from .judges.metric import JudgeSetup
from .trace import explain

# The seed's one-script-per-protocol commands, kept so its documented commands translate one to one.
SHORTHANDS = {"exact-substring": "exact_substring", "word-overlap": "word_overlap"}


BUG_REPORT = (
    "this is a bug in assay, not in your input. Fix: please report it with the command you ran "
    "(and the input, if you can share it); rerun with --debug to see the traceback"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Exit 0 when done, 1 on findings (a failed gate, lint errors), 2 on bad input
    or usage (one line: what, where, the fix), 3 on a bug in assay itself (one line, and --debug)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    terminal = sys.stdout, sys.stderr
    # Text from the data reaches the terminal through escaping streams: it can show, never drive it.
    sys.stdout, sys.stderr = EscapingStream(sys.stdout), EscapingStream(sys.stderr)
    try:
        return int(args.run(args))
    except AssayError as exc:
        if args.debug:
            raise
        print(f"assay: error: {one_line(exc.message)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # anything else is assay's own mistake: say so, apart from bad input
        if args.debug:
            raise
        what = one_line(f"{type(exc).__name__}: {exc}")
        print(f"assay: internal error: {what}; {BUG_REPORT}", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = terminal


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in assay's one-line form (and the same exit code, 2)."""

    def error(self, message: str) -> NoReturn:
        # An unknown argument is quoted as given: escaped, so it can neither split the line nor drive
        # the terminal (argparse writes before main() puts its escaping streams in place).
        self.exit(EXIT_USAGE, f"assay: error: {one_line(message)}. Fix: see '{self.prog} --help'\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="assay",
        description="Score answers to questions against golden answers, "
        "and say how far each number can be trusted.",
    )
    parser.add_argument("--version", action="version", version=f"assay {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True, parser_class=_Parser)

    scorer = commands.add_parser("score", help="score a responses file with one or more metrics")
    _add_scoring_arguments(scorer)
    _add_metric_argument(scorer)
    add_report_arguments(scorer)
    scorer.set_defaults(run=_run_score)

    agreer = commands.add_parser("agree", help="measure each metric's agreement with human labels")
    _add_scoring_arguments(agreer)
    _add_metric_argument(agreer)
    add_agree_arguments(agreer)
    agreer.set_defaults(run=_run_agree)
    add_commands(commands, _add_shared_arguments, _column_map)

    explainer = commands.add_parser("explain", help="show how each metric decided one row, with traces")
    explainer.add_argument(
        "--responses", required=True, metavar="FILE", help="CSV, JSONL, JSON array or Parquet"
    )
    explainer.add_argument("--id", required=True, dest="row_id", metavar="ID", help="the row's id")
    _add_metric_argument(explainer)
    _add_option_arguments(explainer)
    _add_shared_arguments(explainer)
    explainer.set_defaults(run=_run_explain)

    linter = commands.add_parser("lint", help="check the golden answers of a file for problems")
    linter.add_argument(
        "file", metavar="FILE", help="CSV, JSONL, JSON array or Parquet (responses not needed)"
    )
    _add_shared_arguments(linter)
    linter.set_defaults(run=_run_lint)

    for command, metric in SHORTHANDS.items():
        shorthand = commands.add_parser(
            command, help=f"score with {metric} only (the original evaluation script's command)"
        )
        _add_scoring_arguments(shorthand)
        add_report_arguments(shorthand)
        shorthand.set_defaults(run=_run_score, metric=[metric])
    judge = commands.add_parser(
        "llm-judge", help="score with the LLM judge chain only (the original evaluation script's command)"
    )
    _add_scoring_arguments(judge)
    add_report_arguments(judge)
    judge.set_defaults(run=_run_score, metric=["judge"])
    return parser


def _add_metric_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metric",
        action="append",
        choices=[*sorted(SCORERS), "judge"],
        help="a metric to run; repeatable (default: every metric whose inputs the file has among "
        "exact_substring, word_overlap, phrase_match, mlqa_em and mlqa_f1 (a lang column) and hard_fact "
        "(a pattern column); squad_em, squad_f1, token_f1 and token_em run when named)",
    )


def _add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    judging = parser.add_argument_group("the judge metric (--metric judge)")
    judging.add_argument(
        "--judge",
        action="append",
        metavar="SPEC",
        help="a judge, tried in order; repeatable: openai:MODEL@BASE_URL or llama:PATH.gguf, then "
        ",key=value settings (api_key_env=NAME, timeout, retries, rps, max_tokens, seed, "
        "price_prompt, price_completion per million tokens)",
    )
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
        "--cascade", action="store_true", help="ask the judges only where the matchers cannot decide"
    )
    judging.add_argument("--concurrency", type=int, metavar="N", help="requests in flight (default 8)")
    judging.add_argument(
        "--cache", metavar="FILE", help=f"the verdict cache, SQLite (default {DEFAULT_PATH})"
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
        help="cut longer responses, with a marker, before judging (default 8000)",
    )
    judging.add_argument(
        "--system-model",
        metavar="NAME",
        help="the model under test: warn when a judge is of its family (a judge should be of another)",
    )


def _add_option_arguments(parser: argparse.ArgumentParser) -> None:
    """What changes the numbers, and so goes into the signature."""
    parser.add_argument(
        "--ci",
        choices=("wilson", "bootstrap"),
        default=IntervalMethod.name,
        help="how each accuracy's 95%% interval is computed (default: %(default)s)",
    )
    parser.add_argument(
        "--ci-seed",
        type=seed,
        default=IntervalMethod.seed,
        metavar="N",
        help="the bootstrap's seed (default: %(default)s); equal seeds give equal intervals",
    )
    parser.add_argument(
        "--nfc", action="store_true", help="normalise both sides to Unicode NFC before scoring"
    )
    parser.add_argument(
        "--inflection",
        action="store_true",
        help="phrase_match: count inflected forms (temple/temples, amalak/Amalaka, Hindi and Tamil "
        "stems) as soft passes, reported apart from passes",
    )


def _add_scoring_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--responses", required=True, metavar="FILE", help="CSV, JSONL, JSON array or Parquet"
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write per-question verdicts (.csv, .jsonl or .parquet)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON, with its signature")
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="write every verdict's trace as JSON lines (also in --out's trace column)",
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
    _add_option_arguments(parser)
    _add_judge_arguments(parser)
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
    _add_shared_arguments(parser)


def _add_shared_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true", help="show a traceback on error")
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
    ):
        columns.add_argument(f"--{field}-col", dest=f"{field}_col", metavar="NAME", help=f"({default})")


def _run_explain(args: argparse.Namespace) -> int:
    dataset = load_records(args.responses, columns=_column_map(args), allow_duplicate_ids=True)
    record, traces = explain(dataset, args.row_id, args.metric, _options(args))
    sys.stdout.write(render_explanation(record, traces))
    return EXIT_OK


def _options(args: argparse.Namespace) -> ScoreOptions:
    return ScoreOptions(
        nfc=args.nfc,
        regex_column=args.regex_col,
        inflection=args.inflection,
        intervals=IntervalMethod(args.ci, args.ci_seed),
        on_conflict=getattr(args, "on_conflict", None) or "error",
        agree_pair=getattr(args, "agree_pair", None),
    )


def _run_lint(args: argparse.Namespace) -> int:
    """Print every finding; exit 1 when any is an error (so CI can gate on it), else 0."""
    dataset = load_records(
        args.file, columns=_column_map(args), allow_duplicate_ids=True, need_responses=False
    )
    findings = lint(dataset, args.regex_col)
    for finding in findings:
        print(one_line(str(finding)))
    errors = sum(finding.severity == ERROR for finding in findings)
    warnings_found = len(findings) - errors
    counts = f"{errors} errors, {warnings_found} warnings in {len(dataset)} rows"
    print(f"assay lint: {counts} of {one_line(args.file)}")
    return EXIT_FINDINGS if errors else EXIT_OK


def _progress_line(path: str, stream: TextIO) -> Callable[[int, int], None]:
    """A progress line on the terminal: rows done (in one process), the rate and the time left,
    rewritten in place. A new pass (the judge's, after the matchers') starts its clock afresh."""
    print(f"assay: scoring {path} ...", end="", file=stream, flush=True)
    started, last_done = time.monotonic(), 0

    def show(done: int, total: int) -> None:
        nonlocal started, last_done
        if done < last_done:
            started = time.monotonic()
        last_done = done
        elapsed = max(time.monotonic() - started, 1e-9)
        left = (total - done) * elapsed / done if done else 0.0
        bar = "#" * (20 * done // max(total, 1))
        print(
            f"\rassay: {path} [{bar:<20}] {done:,}/{total:,} rows, {done / elapsed:,.1f}/s, "
            f"{left:,.0f} s left   ",
            end="",
            file=stream,
            flush=True,
        )

    return show


DEFAULT_CONFIG = Path("assay.toml")  # read for the judge metric when there and no --config is given
_JUDGE_FLAGS = ("judge", "config", "judge_after_config", "cascade", "concurrency", "cache", "no_cache",
                "refresh", "max_cost", "max_response_chars", "system_model")  # fmt: skip


def _judge_setup(args: argparse.Namespace) -> JudgeSetup | None:
    """The chain of judges from --judge, or from --config (or ./assay.toml), with the run's settings;
    None when the judge metric is not asked for (then a judge flag is a mistake, not a no-op)."""
    from .judges.metric import JudgeSetup  # HTTP clients load only when a judge is asked for

    if "judge" not in (args.metric or ()):
        given = [  # given at all: `--concurrency 0` is a judge flag too, not a no-op
            f"--{name.replace('_', '-')}"
            for name in _JUDGE_FLAGS
            if getattr(args, name, None) is not None and getattr(args, name) is not False
        ]
        if given:
            raise UsageError(f"{', '.join(given)} only apply to the judge metric", fix="add --metric judge")
        return None
    for flag in (
        "config",
        "cache",
    ):  # `--config ""` would fall back to ./assay.toml, `--cache ""` to the default
        if getattr(args, flag) == "":
            raise UsageError(
                "an empty file name", where=f"--{flag}", fix=f"give --{flag} a file name, or leave it out"
            )
    if args.no_cache and args.refresh:
        raise UsageError(
            "--no-cache and --refresh contradict each other (--refresh overwrites the cache)",
            fix="give one of them",
        )
    chain, settings = _judge_chain(args)
    if not chain:
        return None  # scoring says what is missing
    cache = None if args.no_cache else Path(args.cache or settings.get("cache") or DEFAULT_PATH)
    options = JudgeOptions(
        concurrency=_given(args.concurrency, settings.get("concurrency"), 8),
        max_response_chars=_given(args.max_response_chars, settings.get("max_response_chars"), 8000),
        max_cost=args.max_cost if args.max_cost is not None else settings.get("max_cost"),
        cache_path=cache,
        refresh=args.refresh,
    )
    cascade = args.cascade or bool(settings.get("cascade"))
    return JudgeSetup(tuple(chain), options, cascade, args.system_model or settings.get("system_model"))


def _judge_chain(args: argparse.Namespace) -> tuple[list[Judge], dict[str, Any]]:
    """The chain and the config's other settings. A config file is never read in silence (issue 9: a
    ./assay.toml in the working folder must not slip its own judge, which would receive the user's
    key, ahead of --judge): --judge replaces the file's chain unless --judge-after-config, and stderr
    says which file was read and what came of its chain."""
    from .judges.spec import load_config, parse_spec

    given = [parse_spec(spec) for spec in args.judge or ()]
    if args.judge_after_config and not given:
        raise UsageError("--judge-after-config needs --judge", fix="give --judge SPEC, or leave it out")
    config = args.config or (DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else None)
    if config is None:
        if args.judge_after_config:
            raise UsageError(
                "--judge-after-config needs a config file, and there is none",
                fix=f"give --config FILE, or put an {DEFAULT_CONFIG} here",
            )
        return given, {}
    chain, settings = load_config(config)
    shown = config if args.config else f"./{DEFAULT_CONFIG}"
    its_chain = f"its chain ({len(chain)} judge{'' if len(chain) == 1 else 's'})"
    if not given:
        used, fate = chain, its_chain
    elif args.judge_after_config:
        used, fate = [*chain, *given], f"{its_chain}, then --judge"
    else:
        used, fate = given, f"{its_chain} replaced by --judge (--judge-after-config keeps it)"
    print(f"assay: read judge settings from {one_line(str(shown))}: {fate}", file=sys.stderr)
    return used, settings


def _given(flag: int | None, configured: int | None, default: int) -> int:
    """A flag's value if given (0 too, which the options refuse), else the config's, else the default."""
    return flag if flag is not None else configured if configured is not None else default


def _column_map(args: argparse.Namespace) -> ColumnMap:
    return ColumnMap(
        id=args.id_col,
        question=args.question_col,
        answer=args.answer_col,
        answers=args.answers_col,
        response=args.response_col,
        domain=args.domain_col,
        lang=args.lang_col,
    )


def _run_score(args: argparse.Namespace) -> int:
    found_gates = gates(args)  # fail before the work, not after it
    summary = _score(args, report_writer(args))
    return apply_gates(summary, found_gates, args)


def _run_agree(args: argparse.Namespace) -> int:
    label_sets(args.positive or DEFAULT_POSITIVE, args.negative or ())  # a mistake fails before the work
    runs: list[ScoreRun] = []
    _score(args, runs.append, report=False)  # --json here is the agreement, written below
    report_agreement(runs[0], args)
    if args.json:
        print(f"assay: wrote the agreement to {one_line(args.json)}", file=sys.stderr)
    return EXIT_OK


def _score(
    args: argparse.Namespace, on_run: Callable[[ScoreRun], None] | None, report: bool = True
) -> Summary:
    """Score the file as the flags say and write what they ask; with `report`, print the report and
    write the summary to --json (assay agree reports, and writes, its own)."""
    check_score_outputs(args)
    check_agree_pair(args.agree_pair, args.metric)
    beneath = sys.stderr.stream if isinstance(sys.stderr, EscapingStream) else sys.stderr
    progress = _progress_line(one_line(args.responses), beneath) if sys.stderr.isatty() else None
    scored = score_file(
        args.responses,
        args.metric,
        options=_options(args),
        columns=_column_map(args),
        limit=args.limit,
        allow_duplicate_ids=args.allow_duplicate_ids,
        out=args.out,
        trace=args.trace,
        workers=args.workers,
        progress=progress,
        judge=_judge_setup(args),
        on_run=on_run,
    )
    if progress is not None:
        print(file=sys.stderr)  # end the progress line
    for warning in warnings(scored):
        print(f"assay: warning: {one_line(warning)}", file=sys.stderr)
    if report:
        sys.stdout.write(render_text(scored, detail=args.detail))
    if args.out:
        print(f"assay: wrote per-question verdicts to {one_line(args.out)}", file=sys.stderr)
        if args.on_conflict:
            done = "kept as input:NAME" if args.on_conflict == "rename" else "replaced by fresh ones"
            print(f"assay: input columns named like its own are {done} (--on-conflict)", file=sys.stderr)
    if args.trace:
        print(f"assay: wrote every verdict's trace to {one_line(args.trace)}", file=sys.stderr)
    if args.json and report:
        written = write_summary_json(scored, args.json)
        print(f"assay: wrote the summary to {one_line(str(written))}", file=sys.stderr)
    return scored
