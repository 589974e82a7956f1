"""assay run: ask a system under test every item of a gold set (through the journal, so that a stopped
run resumes), score the replies, write DIR/run.jsonl and the reports, and gate CI on the numbers."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..config_file import read_config
from ..errors import EXIT_FINDINGS, EXIT_OK, UsageError
from ..gate import MAX_SYSTEM_ERRORS, RUN_SCOPES, parse_share
from ..harness.runner import RunOptions
from ..harness.systems.adapters import spec_forms
from ..judges.accounting import judge_summary
from ..terminal import one_line
from . import flags
from .flags import DEFAULT_CONFIG
from .judging import judge_setup
from .progress import CountProgress, beneath

if TYPE_CHECKING:
    from ..harness.run import HarnessRun
    from ..harness.systems import System

RAG_RUBRIC = "rag-answer"  # harness.run.RAG_RUBRIC (not imported here: `assay --help` loads no harness)
JUDGE_GROUP = "the judge metric (--metric judge)"  # flags.add_judge's, retitled for a run


def add_parsers(commands: flags.Commands) -> None:
    # "resolve": the judge's flags come from flags.add_judge, but --concurrency here is the system's
    parser = commands.add_parser(
        "run",
        help="ask a system every gold item, score the replies, report and gate",
        description="Ask a system under test every item of a gold set, score its replies (hard_fact, "
        "value_match, refusal, grounded: against the documents with --sources, the citations' names only "
        "without; with --judge, the judge decides the items those leave unscored), write DIR/run.jsonl and "
        "DIR/results.json/.md/.html, and gate. Stopped and started again, it asks only what is unanswered; "
        "an earlier run's files in DIR are kept, numbered (run.1.jsonl, results.1.md, ...).",
        conflict_handler="resolve",
    )
    parser.add_argument("--gold", required=True, metavar="FILE", help="the gold set (of assay gold build)")
    parser.add_argument(
        "--system",
        metavar="SPEC",
        help=f"the system under test: {spec_forms()} (an http system is mapped by [system] in the config "
        "file, whose spec it may also be given as; other packages add adapters by prefix, entry point group "
        "assay.systems)",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the run's folder (made when missing)")
    parser.add_argument(
        "--scope",
        "--policy",
        dest="scopes",
        action="append",
        metavar="ID",
        help="ask only the items of this scope (the policy's document id); repeatable",
    )
    parser.add_argument("--limit", type=flags.positive, metavar="N", help="ask only the first N items")
    parser.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help="a metric to score beside the run's own (a plugin's, or one more built-in); repeatable",
    )
    _add_judge(parser)
    _add_asking(parser)
    flags.add_sources(parser)
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="human labels of the replies (the human_labels.jsonl assay view saves, of this folder's "
        "earlier run, say): each metric's accuracy is calibrated on the labels of replies unchanged "
        "since they were marked",
    )
    # The labels' meaning: view's words; and labels of items this run does not ask are noted, not refused.
    parser.set_defaults(human=None, positive=None, negative=None, some_rows_labelled=True)
    gates = parser.add_argument_group("the CI gate")
    flags.add_gates(gates)
    gates.add_argument(  # a run's own words for assay score's --gate, which speaks of domains
        "--gate",
        action="append",
        metavar="EXPR",
        help="fail (exit 1) unless the metric's accuracy meets the bar, e.g. 'factual>=0.90' (factual: the "
        "outcome correct or correct_ungrounded); any metric of the run: hard_fact, value_match, refusal, "
        "grounded, citation, judge; repeatable",
    )
    gates.add_argument(
        "--gate-scope",
        choices=RUN_SCOPES,
        help="what each gate checks: the whole run (overall), every scope alone (scopes), or both (all) "
        f"(default: {RUN_SCOPES[0]})",
    )
    _add_max_system_errors(gates)
    flags.add_debug(parser)
    parser.set_defaults(run=run_run, concurrency=None)  # the judge's concurrency: its config's, or 8


def _add_max_system_errors(group: argparse._ActionsContainer) -> None:
    """The share of items that may be system errors: checked with or without --gate (issue 23)."""
    group.add_argument(
        "--max-system-errors",
        type=_share,
        metavar="SHARE",
        help="fail the gate (exit 1) when more than this share of the items are system errors (the system "
        "raised, timed out or sent no reply), with or without --gate: a fraction or a percentage (default: "
        f"{MAX_SYSTEM_ERRORS}); a run whose every item is one stops with exit 2",
    )


def _share(text: str) -> float:
    try:
        return parse_share(text)
    except UsageError:
        raise argparse.ArgumentTypeError(f"give a share from 0 to 1 (0.2 or 20%), got {text!r}") from None


def _add_judge(parser: argparse.ArgumentParser) -> None:
    """assay score's judge flags, in a run's words: the judge is optional, its rubric rag-answer."""
    flags.add_judge(parser)
    groups = [group for group in parser._action_groups if group.title == JUDGE_GROUP]
    judging = groups[0] if groups else parser.add_argument_group()
    judging.title = "the judge (optional: without one, the grading is deterministic only)"
    judging.add_argument(
        "--config",
        metavar="FILE",
        help="an assay.toml: [system] (the system's spec, options, HTTP mapping) and [judge] (a chain and "
        "its settings) (default ./assay.toml, when there); --judge replaces its chain",
    )
    judging.add_argument(
        "--judge-rubric",
        metavar="NAME",
        help=f"what the judges are asked: a rubric by name (default {RAG_RUBRIC}: does the reply answer "
        "with the expected value and cite the expected source; a refusal item is correct only declined)",
    )
    asked = judging.add_mutually_exclusive_group()
    asked.add_argument(
        "--cascade",
        action="store_true",
        help="ask the judge only the items the deterministic metrics cannot decide (those they leave "
        "unscored: hard_fact and value_match disagree or cannot read the reply, a match that reads as a "
        "refusal); every other item keeps their verdict (the default; cascade = false under [judge] in "
        "the config asks every item)",
    )
    asked.add_argument(
        "--judge-all",
        action="store_true",
        help="ask the judge every item, its verdict replacing the deterministic metrics' (default: only "
        "the items they leave unscored)",
    )


def _add_asking(parser: argparse.ArgumentParser) -> None:
    asking = parser.add_argument_group("asking the system")
    asking.add_argument(
        "--concurrency",
        dest="system_concurrency",
        type=flags.positive,
        default=RunOptions.concurrency,
        metavar="N",
        help="questions in flight (default: %(default)s)",
    )
    asking.add_argument(
        "--timeout",
        type=_seconds,
        default=RunOptions.timeout,
        metavar="S",
        help="seconds each call may take; a call past it is that item's system_error (default: %(default)s)",
    )
    asking.add_argument(
        "--retries",
        type=flags.whole_number(0, "give 0 or more"),
        default=RunOptions.retries,
        metavar="N",
        help="retries of a call whose transport failed (refused, reset, 429, 502-504), with backoff; the "
        "system's own failures are never retried (default: %(default)s)",
    )
    asking.add_argument(
        "--system-option",
        action="append",
        type=_option,
        metavar="KEY=VALUE",
        help="passed to the system (the callable's keyword arguments, the endpoint's model, ...); repeatable",
    )
    asking.add_argument(
        "--fresh",
        action="store_true",
        help="discard the journal of an earlier run in DIR and ask every item again",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"give a number of seconds above 0, got {text}")
    return value


def _option(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not KEY=VALUE")
    return key.strip(), value


def run_run(args: argparse.Namespace) -> int:
    from ..harness.run import run_gold, run_metrics
    from ..harness.run_gate import GateSettings
    from .labels import calibration_of, check_labels, print_section
    from .score import gates

    check_labels(args)  # before the system is asked, not after
    config = _config(args)
    judged = bool(args.judge) or bool(_table(config, "judge").get("chain"))
    extra = [name for name in args.metric or () if name not in run_metrics(judge=True)]
    metrics = [*run_metrics(sources=args.sources, judge=judged), *extra]
    args.metric = [*metrics, *_derived(args.sources)]
    gate = gates(args, GateSettings)  # a typo in a gate fails before any work
    if args.max_system_errors is not None:
        gate = dataclasses.replace(gate, max_system_errors=args.max_system_errors)
    if not judged:
        _no_judge_flags(args)
    judge = judge_setup(args) if judged else None
    progress = RunProgress(beneath(sys.stderr))
    # stdout is the headline's (a CI step may keep it as the run's summary): what an in-process system
    # prints as it is imported and asked (a debug line, a library's banner) goes to stderr instead
    try:
        with contextlib.redirect_stdout(sys.stderr):
            system = _system(args, _table(config, "system"))
            done = run_gold(
                args.gold,
                system,
                args.out,
                scopes=tuple(args.scopes or ()),
                limit=args.limit,
                options=RunOptions(args.system_concurrency, args.timeout, args.retries),
                judge=judge,
                judge_all=_judge_all(args, _table(config, "judge")),
                rubric=args.judge_rubric or _table(config, "judge").get("rubric") or RAG_RUBRIC,
                sources=args.sources,
                metrics=metrics,
                gate=gate if gate.gates or args.max_system_errors is not None else None,
                fresh=args.fresh,
                progress=progress,
            )
    finally:
        progress.close()
    _say_done(done, args)
    if args.labels:
        print_section(calibration_of(done.run, args))
    _refuse_all_failed(done)
    return EXIT_OK if done.passed else EXIT_FINDINGS


def _refuse_all_failed(done: HarnessRun) -> None:
    """A run whose every item is a system error graded nothing: exit 2 with the first reason, as a run
    that could not be made, never 0 (nor the gate's 1) on reports of 0%."""
    from ..harness.systems.probe import SystemDown
    from ..metric import system_failures

    records = done.run.records
    errors = system_failures(records)
    if not records or len(errors) < len(records):
        return
    raise SystemDown(
        f"every one of the {len(records)} items is a system error, so nothing was graded ({errors[0]})",
        where=one_line(str(done.rows_path.parent)),
        fix="make the system answer (results.md gives each item's reason), then give the same command "
        "with --fresh: the journal keeps a reply that failed (a timeout, an error raised or returned) as "
        "the system's answer, and asks again only the items whose request got no reply",
    )


def _say_done(done: HarnessRun, args: argparse.Namespace) -> None:
    from ..report.model import build_report
    from ..report.text import render_text, warnings

    report = build_report(done.run.summary)
    for warning in warnings(report):
        print(f"assay: warning: {one_line(warning)}", file=sys.stderr)
    sys.stdout.write(_headline(done.reports.get("results.md")) or render_text(report))
    if judge_summary(done.run.summary) is None and not done.reports:  # else results.md's headline says so
        print("assay: no judge: graded by the deterministic metrics only", file=sys.stderr)
    asked = f"asked {done.asked} item{'s' if done.asked != 1 else ''} in {done.elapsed:.1f} s"
    print(f"assay: {asked}, {done.resumed} answered before (the journal)", file=sys.stderr)
    _say_kept(done)
    for path in [done.rows_path, *done.reports.values()]:
        print(f"assay: wrote {one_line(str(path))}", file=sys.stderr)
    if done.gate is not None:
        for line in done.gate.lines():
            print(f"assay: {one_line(line)}", file=sys.stderr)


def _say_kept(done: HarnessRun) -> None:
    """The earlier run's rows and reports this one did not write over, and where they are now."""
    if done.kept is not None:
        print(f"assay: {one_line(done.kept.line())}", file=sys.stderr)


def _headline(markdown: Path | None) -> str:
    """The run's headline: results.md up to its first section (questions run, accuracies, elapsed)."""
    if markdown is None:
        return ""
    from ..report.markdown import plain

    text = markdown.read_text(encoding="utf-8")
    return plain(text.split("\n## ", 1)[0].rstrip()) + "\n"


def _derived(sources: str | None) -> list[str]:
    """The derived metrics a gate may name: factual, and citation (grounded runs with or without
    `sources`)."""
    from ..harness.outcomes import CITATION, FACTUAL

    del sources
    return [FACTUAL, CITATION]


def _judge_all(args: argparse.Namespace, settings: Mapping[str, Any]) -> bool:
    """Whether the judge is asked every item: --judge-all, or cascade = false in the config's [judge]
    without --cascade (by default it is asked only the items the deterministic metrics leave unscored)."""
    return bool(args.judge_all) or (settings.get("cascade") is False and not args.cascade)


def _no_judge_flags(args: argparse.Namespace) -> None:
    """Without a judge a judge's setting changes nothing: a mistake, not a no-op."""
    given = [
        f"--{name.replace('_', '-')}"
        for name in flags.JUDGE_FLAGS
        if name != "config" and getattr(args, name, None) not in (None, False)
    ]
    if given:
        raise UsageError(f"{', '.join(given)} only apply to a judge", fix="add --judge SPEC, or drop them")


def _config(args: argparse.Namespace) -> Mapping[str, Any]:
    """The config file (--config, else ./assay.toml when there) as a mapping; {} without one."""
    if args.config == "":
        raise UsageError("an empty file name", where="--config", fix="give it a file name, or leave it out")
    path = Path(args.config) if args.config else DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else None
    if path is None:
        return {}
    return read_config(path)


def _table(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    found = config.get(name, {})
    if not isinstance(found, Mapping):
        raise UsageError(f"{name} is not a [{name}] table", where="the config file", fix="write it as one")
    return found


def _system(args: argparse.Namespace, config: Mapping[str, Any]) -> System:
    """The system of --system (else the config's [system] spec), with --system-option's options."""
    from ..harness.systems import load_system

    spec = args.system if args.system is not None else config.get("spec")
    if not isinstance(spec, str):
        raise UsageError(
            "no system to ask", fix='give --system SPEC, or spec = "..." under [system] in the config file'
        )
    return load_system(spec, dict(args.system_option or ()), config or None)


class RunProgress(CountProgress):
    """Items done of all (resumed ones count as done, and are said once), with the time left at the
    rate of this run's items."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream, verb="asking", noun="items", time_left=True)

    def _start(self, done: int, total: int) -> None:
        if done:
            before = f"{done} of {total} items answered before (the journal): not asked again"
            if done == total:  # a re-grading: say how to ask a changed system instead
                before += "; their replies are graded anew (give --fresh to ask the system again)"
            print(f"assay: {before}", file=self._stream)
