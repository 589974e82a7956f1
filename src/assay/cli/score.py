"""assay score, and the seed scripts' commands (exact-substring, word-overlap, llm-judge): score a file,
print the report, write what the flags ask, and gate CI on the numbers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import EXIT_FINDINGS, EXIT_OK, UsageError
from ..gate import GateSettings, check_labels_named
from ..outputs import check_outputs
from ..parallel import ScoredFile, score_file
from ..records import HINT_ROWS, load_records
from ..report.gate import gate_lines
from ..report.json import write_summary_json
from ..report.model import build_report
from ..report.rows import check_out_path
from ..report.text import render_text, warnings
from ..scoring import ScoreRun
from ..summary import Summary
from ..terminal import one_line
from . import flags
from .judging import judge_setup, with_judge
from .labels import add_labels, calibration_of, check_labels, wants_labels
from .progress import CountProgress, ProgressLine, beneath, progress_line

if TYPE_CHECKING:
    from ..calibration import MetricCalibration
    from ..report.calibrated import CalibratedSection

# The seed's one-script-per-protocol commands, kept so its documented commands translate one to one.
SHORTHANDS = {"exact-substring": "exact_substring", "word-overlap": "word_overlap"}


def add_parsers(commands: flags.Commands) -> None:
    scorer = commands.add_parser("score", help="score a responses file with one or more metrics")
    flags.add_scoring_run(scorer)
    flags.add_metric(scorer)
    flags.add_reports_and_gates(scorer)
    add_labels(scorer)
    scorer.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="score on a Ray cluster through Ray Data, with the report of a local run: 'local' starts one "
        "for the run, 'auto' joins the one started here (ray start), or ray://HOST:PORT "
        "(pip install 'assay[ray]'; docs/scale.md)",
    )
    scorer.set_defaults(run=run_score)


def add_shorthand_parsers(commands: flags.Commands) -> None:
    for command, metric in SHORTHANDS.items():
        shorthand = commands.add_parser(
            command, help=f"score with {metric} only (the original evaluation script's command)"
        )
        flags.add_scoring_run(shorthand)
        flags.add_reports_and_gates(shorthand)
        add_labels(shorthand)
        shorthand.set_defaults(run=run_score, metric=[metric])
    judge = commands.add_parser(
        "llm-judge", help="score with the LLM judge chain only (the original evaluation script's command)"
    )
    flags.add_scoring_run(judge)
    flags.add_reports_and_gates(judge)
    add_labels(judge)
    judge.set_defaults(run=run_score, metric=["judge"])


def run_score(args: argparse.Namespace) -> int:
    settings = gates(args, GateSettings)  # fail before the work, not after it
    check_labels(args)
    check_labels_named(settings.on, wants_labels(args))
    scored, calibration = score_from_flags(args, whole=bool(args.markdown or args.html or wants_labels(args)))
    if scored.run is not None:
        write_reports(scored.run, args, calibration)
    return apply_gates(scored.summary, settings, None if calibration is None else calibration.by_metric)


def score_from_flags(
    args: argparse.Namespace, *, whole: bool, report: bool = True
) -> tuple[ScoredFile, CalibratedSection | None]:
    """Score the file as the flags say and write --out and --trace; with `whole`, in one process, for
    the whole run back; with `report`, print the report and write the summary to --json (assay
    agree reports, and writes, its own), with each metric's accuracy calibrated on the human labels the
    flags name: a section of the report, given back for a calibrated gate."""
    check_score_outputs(args)
    check_agree_pair(args.agree_pair, args.metric)
    judge = judge_setup(args)  # before the progress line: it may say which config file it read
    on_ray = getattr(args, "ray", None)  # (only assay score has --ray)
    scored = _score_on_ray(args, judge) if on_ray else _score_here(args, judge, whole=whole)
    _column_hints(args, scored)
    labelled = report and wants_labels(args)
    calibration = calibration_of(scored.run, args) if labelled and scored.run is not None else None
    _report(args, scored, calibration, report=report)
    return scored, calibration


def _score_here(args: argparse.Namespace, judge: Any, *, whole: bool) -> ScoredFile:
    progress = _progress(args.responses)
    try:
        scored = score_file(
            args.responses,
            with_judge(args.metric, judge),
            options=flags.score_options(args),
            columns=flags.column_map(args),
            limit=args.limit,
            allow_duplicate_ids=args.allow_duplicate_ids,
            out=args.out,
            trace=args.trace,
            trace_col=args.trace_col,
            workers=args.workers,
            progress=progress,
            whole=whole,
            sheet=args.sheet,
        )
    finally:
        if progress is not None:
            progress.close()  # end the progress line, also before an error's message
    return scored


# What --ray cannot do: each needs every row's verdict in one process, or runs in one (a judge).
NOT_ON_RAY = {
    "trace": "--trace", "trace_col": "--trace-col", "markdown": "--markdown", "html": "--html",
    "human": "--human", "labels": "--labels",
}  # fmt: skip


def _score_on_ray(args: argparse.Namespace, judge: Any) -> ScoredFile:
    """The file scored on a Ray cluster (assay.scale.on_ray), imported only when --ray is given. A
    judge's chain reads the whole run in one process: it scales by its server (docs/scale.md)."""
    given = [flag for name, flag in NOT_ON_RAY.items() if getattr(args, name, None)]
    if judge is not None or args.workers:
        given.append("--judge (or a config's [judge])" if judge is not None else "--workers")
    if given:
        raise UsageError(
            f"{given[0]} cannot be used with --ray",
            fix="drop it, or score without --ray (--out, --json and the gates work with --ray)",
        )
    from ..scale.on_ray import score_on_ray

    scored = score_on_ray(
        args.responses,
        args.metric,
        address=args.ray,
        options=flags.score_options(args),
        columns=flags.column_map(args),
        limit=args.limit,
        allow_duplicate_ids=args.allow_duplicate_ids,
        out=args.out,
        sheet=args.sheet,
    )
    return ScoredFile(scored.summary, None)


def _report(
    args: argparse.Namespace, scored: ScoredFile, calibration: CalibratedSection | None, *, report: bool
) -> None:
    model = build_report(scored.summary)  # the printed report and the JSON: no rows needed
    if calibration is not None:
        model = model.with_sections(calibration)
    for warning in warnings(model):
        print(f"assay: warning: {one_line(warning)}", file=sys.stderr)
    if report:
        sys.stdout.write(render_text(model, detail=args.detail))
    if args.out:
        print(f"assay: wrote per-question verdicts to {one_line(args.out)}", file=sys.stderr)
        if args.on_conflict:
            done = "kept as input:NAME" if args.on_conflict == "rename" else "replaced by fresh ones"
            print(f"assay: input columns named like its own are {done} (--on-conflict)", file=sys.stderr)
    if args.trace:
        print(f"assay: wrote every verdict's trace to {one_line(args.trace)}", file=sys.stderr)
    if args.json and report:
        written = write_summary_json(model, args.json)
        print(f"assay: wrote the summary to {one_line(str(written))}", file=sys.stderr)


def _column_hints(args: argparse.Namespace, scored: ScoredFile) -> None:
    """Hint at the optional columns left unused (a run scored in parts: from the file's first rows)."""
    if scored.run is not None:
        flags.print_column_hints(scored.run.dataset, args)
        return
    head = load_records(
        args.responses,
        columns=flags.column_map(args),
        limit=HINT_ROWS,
        allow_duplicate_ids=True,
        sheet=args.sheet,
    )
    flags.print_column_hints(head, args)


def _progress(path: str) -> ProgressLine | CountProgress:
    """A progress line when stderr is a terminal, written beneath the escaping stream: it rewrites
    itself with carriage returns, which the escaping would show. Elsewhere (a log, a pipe) a line every
    PROGRESS_EVERY seconds while a pass is under way (a judge's may take minutes)."""
    if not sys.stderr.isatty():
        return CountProgress(sys.stderr, verb="scoring", noun="rows", time_left=True)
    return progress_line(one_line(path), beneath(sys.stderr))


def check_score_outputs(args: argparse.Namespace) -> None:
    """Every file assay score (or agree) will write, checked together before the work: none may be
    an input or another output, and each must be writable."""
    flags = ("out", "json", "trace", "markdown", "html")
    outputs = {f"--{flag}": getattr(args, flag, None) for flag in flags}
    check_outputs(outputs, {"--responses": args.responses, "--config": args.config, "--cache": args.cache})
    if args.out:
        check_out_path(args.out)
    if args.trace_col and not args.out:
        raise UsageError("--trace-col adds a column to --out, and there is no --out", fix="add --out FILE")


def write_reports(
    run: ScoreRun, args: argparse.Namespace, calibration: CalibratedSection | None = None
) -> None:
    """The reports assay score writes from the whole run (every row), when asked (the paths were
    checked with the others: check_score_outputs), with the calibration on human labels when named."""
    if not (args.markdown or args.html):
        return
    report = build_report(run)
    if calibration is not None:
        report = report.with_sections(calibration)
    if args.markdown:
        from ..report.markdown import write_markdown  # here, as the HTML's: only a run that asks loads it

        written = write_markdown(args.markdown, report)
        print(f"assay: wrote the Markdown report to {one_line(str(written))}", file=sys.stderr)
    if args.html:
        from ..report.html import write_html

        written = write_html(args.html, report)
        print(f"assay: wrote the HTML report to {one_line(str(written))}", file=sys.stderr)


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


def gates(args: argparse.Namespace, kind: type[flags.Settings]) -> flags.Settings:
    """The gates of the command line (`kind`: a scored file's GateSettings, or a run's), read before any
    work: a typo, or a metric this run will not score, fails at once rather than after paying for a judge."""
    settings = flags.gate_settings(args, kind)
    for gate in settings.gates:
        if args.metric and gate.metric not in args.metric:
            raise UsageError(
                f"the gate {gate.text!r} names a metric this run does not score",
                fix=f"add --metric {gate.metric}, or gate on one of: {', '.join(args.metric)}",
            )
    return settings


def apply_gates(
    summary: Summary, settings: GateSettings, calibration: Mapping[str, MetricCalibration] | None = None
) -> int:
    """Print every check; exit 1 when any fails."""
    if not settings.gates:
        return EXIT_OK
    checks = settings.check(summary, calibration)
    for line in gate_lines(checks):
        print(f"assay: {one_line(line)}", file=sys.stderr)
    failed = any(not check.passed for check in checks)
    return EXIT_FINDINGS if failed else EXIT_OK
