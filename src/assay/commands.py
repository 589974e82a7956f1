"""The report commands of the command line: compare two runs, agree with human labels, plot a summary;
and what ``assay score`` adds for them (Markdown and HTML reports, the CI gate)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import stats
from .agree import DEFAULT_POSITIVE, MetricAgreement, agree
from .compare import compare, load_scored
from .errors import EXIT_FINDINGS, EXIT_OK, UsageError
from .gate import MAX_UNSCORED, ON, SCOPES, Gate, check_gates, parse_share
from .outputs import check_outputs, write_text
from .records import ColumnMap
from .report.html import write_html
from .report.json import summary_dict
from .report.markdown import render_comparison_markdown, write_markdown
from .report.model import build_report
from .report.plot import summary_problem, write_plot
from .report.rows import check_out_path, verdict_rows
from .report.text import render_agreement, render_comparison
from .scorers import JUDGE, SCORERS
from .scoring import ScoreRun
from .summary import IntervalMethod, Summary
from .terminal import one_line

# The gate's settings and their defaults (None on the command line means "not given").
GATE_SETTINGS: dict[str, object] = {
    "gate_scope": "all",
    "max_unscored": str(MAX_UNSCORED),
    "gate_on": "point",
    "min_n": 1,
}


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """assay score's reports of every row, and its gate."""
    reports = parser.add_argument_group("reports and the CI gate")
    reports.add_argument("--markdown", metavar="FILE", help="write the Markdown report (results.md)")
    reports.add_argument("--html", metavar="FILE", help="write the self-contained HTML report")
    reports.add_argument(
        "--gate",
        action="append",
        metavar="EXPR",
        help="fail (exit 1) unless the metric's accuracy (for token_f1: the rows scoring 1) meets the "
        "bar overall and in every domain (see --gate-scope), e.g. 'phrase_match>=0.90' or "
        "'exact_substring>=85%%'; repeatable",
    )
    reports.add_argument(
        "--gate-scope",
        choices=SCOPES,
        help="what each gate checks: the whole and every domain (all), the whole only (overall), or "
        f"every domain only (domains) (default: {GATE_SETTINGS['gate_scope']})",
    )
    reports.add_argument(
        "--max-unscored",
        metavar="SHARE",
        help="a scope with more than this share of its rows unscored fails the gate, whatever its "
        f"accuracy on the rest: a fraction or a percentage (default: {GATE_SETTINGS['max_unscored']})",
    )
    reports.add_argument(
        "--gate-on",
        choices=ON,
        help="gate on the accuracy (point) or the conservative end of its 95%% interval: the lower end "
        f"for >=, the upper for <= (default: {GATE_SETTINGS['gate_on']})",
    )
    reports.add_argument(
        "--min-n",
        type=int,
        metavar="N",
        help="a scope with fewer scored rows cannot pass the gate (default: 1)",
    )


def report_writer(args: argparse.Namespace) -> Callable[[ScoreRun], None] | None:
    """What assay score writes from the whole run (every row), or None when nothing is asked (the
    paths were checked with the others: check_score_outputs)."""
    if not (args.markdown or args.html):
        return None

    def write(run: ScoreRun) -> None:
        report = build_report(run)
        if args.markdown:
            written = write_markdown(args.markdown, report)
            print(f"assay: wrote the Markdown report to {one_line(str(written))}", file=sys.stderr)
        if args.html:
            written = write_html(args.html, report)
            print(f"assay: wrote the HTML report to {one_line(str(written))}", file=sys.stderr)

    return write


def check_score_outputs(args: argparse.Namespace) -> None:
    """Every file assay score (or agree) will write, checked together before the work: none may be
    an input or another output, and each must be writable."""
    flags = ("out", "json", "trace", "markdown", "html")
    outputs = {f"--{flag}": getattr(args, flag, None) for flag in flags}
    check_outputs(outputs, {"--responses": args.responses, "--config": args.config, "--cache": args.cache})
    if args.out:
        check_out_path(args.out)


def gates(args: argparse.Namespace) -> list[Gate]:
    """The gates of the command line, read before any work: a typo, or a metric this run will not
    score, fails at once rather than after paying for a judge."""
    _settle_gate_settings(args)
    if args.min_n < 1:
        raise UsageError(f"--min-n must be at least 1, got {args.min_n}", fix="give a positive number")
    parse_share(args.max_unscored)  # a bad share fails here, before any work
    found = [Gate.parse(text) for text in args.gate or ()]
    for gate in found:
        if args.metric and gate.metric not in args.metric:
            raise UsageError(
                f"the gate {gate.text!r} names a metric this run does not score",
                fix=f"add --metric {gate.metric}, or gate on one of: {', '.join(args.metric)}",
            )
    return found


def _settle_gate_settings(args: argparse.Namespace) -> None:
    """A gate's settings without a gate would change nothing, so they are a mistake, not a no-op;
    settings not given take their defaults."""
    given = [f"--{name.replace('_', '-')}" for name in GATE_SETTINGS if getattr(args, name) is not None]
    if given and not args.gate:
        raise UsageError(f"{', '.join(given)} only apply to a gate", fix="add --gate EXPR, or drop them")
    for name, default in GATE_SETTINGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)


def apply_gates(summary: Summary, found: Sequence[Gate], args: argparse.Namespace) -> int:
    """Print every check; exit 1 when any fails."""
    if not found:
        return EXIT_OK
    checks = check_gates(
        summary,
        found,
        on=args.gate_on,
        min_n=args.min_n,
        max_unscored=parse_share(args.max_unscored),
        scope=args.gate_scope,
    )
    for result in checks:
        print(
            f"assay: gate {'passed' if result.passed else 'FAILED'}: {one_line(result.why)}", file=sys.stderr
        )
    failed = [result for result in checks if not result.passed]
    verdict = (
        f"{len(failed)} of {len(checks)} checks failed" if failed else f"all {len(checks)} checks passed"
    )
    print(f"assay: gate: {verdict}", file=sys.stderr)
    return EXIT_FINDINGS if failed else EXIT_OK


def add_commands(
    commands: Any,
    add_columns: Callable[[argparse.ArgumentParser], None],
    columns_of: Callable[[argparse.Namespace], ColumnMap],
) -> None:
    """assay compare and assay plot. `add_columns` adds the column-name flags (and --debug), and
    `columns_of` reads them, as for every command that reads a file."""
    comparer = commands.add_parser("compare", help="compare two scored runs (--out files) row by row")
    comparer.add_argument("a", metavar="A", help="the first scored file (assay score --out)")
    comparer.add_argument("b", metavar="B", help="the second scored file, compared as B - A")
    comparer.add_argument("--json", metavar="FILE", help="write the comparison as JSON")
    comparer.add_argument("--markdown", metavar="FILE", help="write the comparison as Markdown")
    comparer.add_argument("--html", metavar="FILE", help="write B's HTML report with the comparison")
    comparer.add_argument(
        "--ci-seed", type=seed, default=stats.DEFAULT_SEED, metavar="N", help="the bootstrap's seed"
    )
    comparer.add_argument(
        "--allow-changed-questions",
        action="store_true",
        help="compare rows joined by id even when their question or golden answers differ between the "
        "files (refused otherwise), with a warning that counts them",
    )
    add_columns(comparer)
    comparer.set_defaults(run=_run_compare, columns_of=columns_of)

    plotter = commands.add_parser("plot", help="draw per-domain accuracy with 95%% intervals (SVG, PNG)")
    plotter.add_argument("--summary", required=True, metavar="FILE", help="a summary written by --json")
    plotter.add_argument(
        "--out", required=True, metavar="FILE", help="the chart: .svg, or .png/.pdf (assay[plot])"
    )
    plotter.add_argument("--metric", action="append", help="a metric to draw; repeatable (default: all)")
    plotter.add_argument("--debug", action="store_true", help="show a traceback on error")
    plotter.set_defaults(run=_run_plot)


def _run_compare(args: argparse.Namespace) -> int:
    outputs = {"--json": args.json, "--markdown": args.markdown, "--html": args.html}
    check_outputs(outputs, {"A": args.a, "B": args.b})
    intervals, columns = IntervalMethod(seed=args.ci_seed), args.columns_of(args)
    a, b = load_scored(args.a, intervals, columns), load_scored(args.b, intervals, columns)
    comparison = compare(a, b, args.ci_seed, allow_changed=args.allow_changed_questions).as_dict()
    for warning in comparison["warnings"]:
        print(f"assay: warning: {one_line(warning)}", file=sys.stderr)
    sys.stdout.write(render_comparison(comparison))
    if args.json:
        write_text(args.json, json.dumps(comparison, ensure_ascii=False, indent=2) + "\n")
    if args.markdown:
        write_text(args.markdown, render_comparison_markdown(comparison))
    if args.html:
        write_html(
            args.html, summary_dict(b.summary), list(verdict_rows(b)), comparison, fields=b.dataset.fields
        )
    return EXIT_OK


def agree_pair(text: str) -> tuple[str, str]:
    """An argparse type: two different metric names, A,B."""
    names = tuple(name.strip() for name in text.split(","))
    known = [*SCORERS, JUDGE]
    if len(names) != 2 or names[0] == names[1] or not all(names):
        raise argparse.ArgumentTypeError(f"'{text}' is not two different metrics A,B")
    unknown = [name for name in names if name not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown metric '{unknown[0]}' (metrics: {', '.join(known)})")
    return (names[0], names[1])


def check_agree_pair(pair: tuple[str, str] | None, metrics: Sequence[str] | None) -> None:
    """An agreement pair naming a metric the run will not score fails before the work."""
    if pair is None or metrics is None:
        return  # with the default metrics, the summary says which is missing (a clear UsageError)
    missing = [name for name in pair if name not in metrics]
    if missing:
        raise UsageError(
            f"the agreement pair names {', '.join(missing)}, which this run does not score",
            where="--agree-pair",
            fix=f"add --metric {missing[0]}, or name two of: {', '.join(metrics)}",
        )


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


def _run_plot(args: argparse.Namespace) -> int:
    check_outputs({"--out": args.out}, {"--summary": args.summary})
    try:
        summary = json.loads(Path(args.summary).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot read the summary ({exc})",
            where=args.summary,
            fix="give a file written by assay score --json",
        ) from None
    problem = summary_problem(summary)
    if problem is not None:
        raise UsageError(
            f"not a summary of assay score: {problem}",
            where=args.summary,
            fix="give a file written by assay score --json",
        )
    print(f"assay: wrote {one_line(str(write_plot(args.out, summary, args.metric)))}", file=sys.stderr)
    return EXIT_OK


def add_agree_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--human", required=True, metavar="COLUMN", help="the column of human labels")
    parser.add_argument(
        "--positive",
        action="append",
        metavar="VALUE",
        help=f"a label meaning correct; repeatable (default: {', '.join(DEFAULT_POSITIVE)})",
    )
    parser.add_argument(
        "--negative",
        action="append",
        metavar="VALUE",
        help="a label meaning incorrect; repeatable (default: every other label; "
        "when given, other labels are reported apart)",
    )


def report_agreement(run: ScoreRun, args: argparse.Namespace) -> list[MetricAgreement]:
    found = agree(run, args.human, args.positive or DEFAULT_POSITIVE, args.negative or ())
    signatures = {name: metric.signature for name, metric in run.summary.metrics.items()}
    sys.stdout.write(render_agreement(found, args.human, signatures))
    if args.json:
        metrics = {m.metric: {"signature": signatures[m.metric], **m.as_dict()} for m in found}
        document = {"source": run.dataset.source, "human": args.human, "metrics": metrics}
        write_text(args.json, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    return found
