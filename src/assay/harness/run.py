"""A harness run from end to end: a gold set's items (those of the scopes asked for, the first N) read
once as records (``gold_set``), asked of a system through the journal (each record given its response
and Reply), scored in memory and summarised once with each item's outcome, and ``DIR/run.jsonl``
written once, with every metric's verdicts and the outcome beside each row.

``DIR/run.jsonl`` holds one row per item, in gold order: the gold item's keys as they are, ``response``,
``reply``, then the verdict columns as ``assay score --out x.jsonl`` writes them. It loads with
``assay.load_records`` as records with their Gold and Reply, so ``assay score DIR/run.jsonl
--on-conflict replace --metric ...`` scores it again without asking the system.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..judges._base import JudgeDown
from ..judges.metric import JUDGE, with_judge
from ..judges.run import preflight
from ..net import display_url
from ..outputs import check_outputs, replacing
from ..records import Dataset, Record
from ..scoring import ScoreOptions, ScoreRun, score
from .earlier import KeptRun, keep_earlier
from .gold_set import GoldSet, load_gold_set, run_dataset, run_row
from .journal import JOURNAL_NAME, Journal, JournalHeader, open_journal
from .outcomes import GRADED_BY, UNDECIDED_ONLY, outcome_metrics
from .results import RunInfo, write_results
from .run_gate import GateSettings as RunGateSettings
from .run_gate import check_run
from .runner import Progress, RunOptions, ask_all, run_to_end
from .systems.probe import SystemDown, probe_system

if TYPE_CHECKING:
    from ..judges._base import Judge
    from ..judges.metric import JudgeSetup
    from .run_gate import GateSettings, RunGate
    from .systems.base import System

RUN_NAME = "run.jsonl"
RAG_RUBRIC = "rag-answer"  # the judge's rubric in a harness run unless another is named
# The metrics of every run, those the outcome class reads: grounded reads the documents with --sources and
# checks the citations' names against the gold set's without (its reduced mode, never silently off).
RUN_METRICS = GRADED_BY


@dataclass(frozen=True)
class HarnessRun:
    """A finished run: the scored rows (with the derived metrics and outcomes), where they are, the
    reports written, the gate's checks, and how the items came by their answers (asked now, or found in
    the journal)."""

    run: ScoreRun
    rows_path: Path
    reports: Mapping[str, Path]  # results.json/.md/.html by name
    gate: RunGate | None  # None without gates
    asked: int  # items the system was asked in this run
    resumed: int  # items whose answers came from the journal
    elapsed: float  # seconds spent asking
    kept: KeptRun | None = None  # the earlier run's rows and reports in the folder, renamed (earlier.py)

    @property
    def passed(self) -> bool:
        """The gate passed (or there was none)."""
        return self.gate is None or self.gate.passed


def run_gold(
    gold_path: str | Path,
    system: System,
    out_dir: str | Path,
    *,
    scopes: Sequence[str] = (),
    limit: int | None = None,
    options: RunOptions | None = None,
    judge: JudgeSetup | None = None,
    judge_all: bool = False,
    rubric: str | None = RAG_RUBRIC,
    sources: str | Path | None = None,
    metrics: Sequence[str] | None = None,
    score_options: ScoreOptions | None = None,
    gate: GateSettings | None = None,
    fresh: bool = False,
    progress: Progress | None = None,
) -> HarnessRun:
    """Ask `system` the gold set's items (of `scopes`, the first `limit`), resuming from the journal in
    `out_dir` (unless `fresh`); score the answered records, write ``run.jsonl`` there (with verdicts and
    outcomes), write the reports (results.json/.md/.html) and check `gate` (``run_gate.GateSettings``).

    `metrics` default to ``run_metrics``; `rubric` replaces the judge's (None keeps the setup's). The
    judge is asked only the items the deterministic metrics leave unscored (``outcomes.UNDECIDED_ONLY``:
    the setup's own cascade is replaced), or every item with `judge_all`. `sources` is the documents'
    folder grounded reads (without it, grounded checks citations' names only). The system is closed
    (``aclose``) when asked."""
    try:  # everything that can be wrong with the call, before the system is asked anything
        out = _out_folder(out_dir)
        rows_path = out / RUN_NAME
        check_outputs({"run.jsonl": rows_path, JOURNAL_NAME: out / JOURNAL_NAME}, {"--gold": gold_path})
        names = tuple(metrics) if metrics is not None else run_metrics(sources=sources, judge=bool(judge))
        judge = _with_cascade(_with_rubric(judge, rubric), judge_all) if JUDGE in names else None
        score_options = _with_sources(score_options or ScoreOptions(), sources)
        options = options or RunOptions()
        gold = load_gold_set(gold_path, scopes=scopes, limit=limit)
        check_judges(judge)
        header = JournalHeader(system.signature(), gold.sha256)
        journal = _checked_journal(out, header, gold, system, fresh)  # locked until the reports are written
    except BaseException:
        run_to_end(system.aclose())  # asked nothing, and is closed all the same
        raise
    with journal:
        kept = keep_earlier(out)  # before anything is asked: a run stopped midway leaves no stale report
        started, clock = datetime.now(UTC), time.monotonic()
        answered, resumed = run_to_end(_ask(gold, system, journal, options, progress))
        elapsed = time.monotonic() - clock
        rows = [run_row(item, record) for item, record in zip(gold.items, answered)]
        judge = _with_system_model(judge, answered)
        dataset = run_dataset(gold, answered, rows, str(rows_path))
        scored = _scored(dataset, names, score_options, judge, rows_path, rows, progress)
        write_rows(rows_path, rows, scored)
        info = RunInfo(
            system=display_url(system.spec),  # as reported, never with a URL's userinfo
            system_signature=header.system,
            gold_path=str(gold_path),
            gold_sha256=header.gold_sha256,
            judges=tuple(display_url(one.label) for one in judge.chain) if judge else (),
            rubric=judge.rubric.name if judge else None,
            options={**dataclasses.asdict(options), "scopes": list(scopes), "limit": limit},
            started=started.isoformat(timespec="seconds"),
            elapsed=round(elapsed, 3),
            sources=None if sources is None else str(sources),
            gate=gate,
        )
        checked = gate_checked(scored, gate)
        reports = write_results(scored, out, info, checked)
    return HarnessRun(scored, rows_path, reports, checked, len(answered) - resumed, resumed, elapsed, kept)


def _scored(
    dataset: Dataset,
    names: Sequence[str],
    options: ScoreOptions,
    judge: JudgeSetup | None,
    rows_path: Path,
    rows: Sequence[Mapping[str, Any]],
    progress: Progress | None = None,
) -> ScoreRun:
    """The run scored and summarised, once, with its outcomes: what run.jsonl, the reports and the gate
    all read. A scoring that fails (a judge down) leaves the answers in run.jsonl without verdicts, as
    well as in the journal, and raises."""
    try:
        # factual and citation ask for the rest (their needs): one scoring, one summary
        metrics = outcome_metrics(with_judge(names, judge) or [])
        return score(dataset, metrics, options=options, progress=progress)  # its passes told by name
    except BaseException:
        write_rows(rows_path, rows)
        raise


def run_metrics(*, sources: str | Path | None = None, judge: bool = False) -> tuple[str, ...]:
    """The metrics of a run: hard_fact, value_match, refusal and grounded (with the documents of
    `sources`, or in its reduced mode without them: ``scorers.grounded``); the judge with a chain."""
    del sources  # grounded runs either way; the sources only choose its mode (ScoreOptions.sources)
    return (*RUN_METRICS, *([JUDGE] if judge else []))


async def _ask(
    gold: GoldSet,
    system: System,
    journal: Journal,
    options: RunOptions,
    progress: Progress | None,
) -> tuple[list[Record], int]:
    """Every gold record answered through the journal, and how many answers came from it; the system is
    closed after, and the working folder is the one before (a system may move it, and the run's paths
    may be relative)."""
    here = os.getcwd()
    try:
        resumed = sum(journal.finished_row(record.id) is not None for record in gold.records)
        return await ask_all(gold, system, journal, options, progress), resumed
    finally:
        await system.aclose()
        os.chdir(here)


def gate_checked(scored: ScoreRun, gate: GateSettings | None) -> RunGate | None:
    """The run's gate: the gates given, and the share of system errors, which every run is held to
    (``run_gate.MAX_SYSTEM_ERRORS`` when `gate` is None). Without gates it is reported only when the
    share is past its limit: a run whose system failed too often does not pass silently."""
    checked = check_run(scored, gate or RunGateSettings())
    return checked if (gate is not None and gate.gates) or not checked.passed else None


def check_judges(judge: JudgeSetup | None) -> None:
    """The judge chain's preflight, before the system is asked anything: a chain with no judge up (or a
    judge set up wrongly) stops the run now, not after every item was asked (issue 22). The judges are
    closed after: the scoring opens them again in its own event loop."""
    if judge is not None and judge.chain:
        run_to_end(_preflight(judge.chain))


async def _preflight(chain: Sequence[Judge]) -> None:
    try:
        await preflight(chain)
    except JudgeDown as exc:
        raise JudgeDown(
            f"{exc.what}; the judge chain is checked before the system is asked anything, and no judge of "
            "it answers",
            where=exc.where,
            fix=exc.fix,
        ) from None
    finally:
        for judge in chain:
            await judge.close()


def check_system(system: System) -> None:
    """The system's check (``systems.probe``), before it is asked anything: a system that is down stops
    the run now (SystemDown, exit 2) rather than making every item a system_error. Its HTTP client is
    the probe's own: the items are asked in another event loop."""
    try:
        run_to_end(probe_system(system))
    except SystemDown as exc:
        raise SystemDown(
            f"{exc.what}; nothing was asked (checked before the first item)", fix=exc.fix
        ) from None


def _checked_journal(out: Path, header: JournalHeader, gold: GoldSet, system: System, fresh: bool) -> Journal:
    """The run's journal, the system checked first when it will be asked anything: before a --fresh
    journal is discarded (a system that is down must not cost the answers kept), after a kept one is
    read (a run the journal answers whole asks nothing: re-grading needs no system up)."""
    if fresh or not (out / JOURNAL_NAME).exists():
        check_system(system)
        return open_journal(out, header, fresh=fresh)
    journal = open_journal(out, header)
    try:
        if any(journal.finished_row(record.id) is None for record in gold.records):
            check_system(system)
    except BaseException:
        journal.close()
        raise
    return journal


# --- the rows ------------------------------------------------------------------------------------------


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]], scored: ScoreRun | None = None) -> Path:
    """The run's rows as JSON lines, whole or not at all; with `scored`, each with the columns
    ``assay score --out`` adds (verdicts, answers, extras, outcome) after its own."""
    from ..report.rows import verdict_table

    added = verdict_table(scored, inputs=False) if scored is not None else {}
    columns = list(added)
    encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
    with replacing(path) as temp, temp.open("w", encoding="utf-8") as handle:
        for index, row in enumerate(rows):
            handle.write(encode({**row, **{name: added[name][index] for name in columns}}))
            handle.write("\n")
    return path


def _out_folder(out_dir: str | Path) -> Path:
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError("this is a file; a run writes a folder", where=str(out), fix="give --out a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)  # runs/v2/ci as a user names it, made whole
    except OSError as exc:
        raise UsageError(
            f"cannot make the folder ({exc.strerror})", where=str(out), fix="give --out one you can write"
        ) from None
    return out


def _with_system_model(judge: JudgeSetup | None, records: Sequence[Record]) -> JudgeSetup | None:
    """The judge told the model under test (for the cross-family rule) from the replies, when
    --system-model did not name it: the model most of them name."""
    if judge is None or judge.system_model is not None:
        return judge
    models = Counter(
        record.reply.model
        for record in records
        if record.reply is not None and record.reply.model is not None
    )
    return dataclasses.replace(judge, system_model=models.most_common(1)[0][0]) if models else judge


def _with_rubric(judge: JudgeSetup | None, rubric: str | None) -> JudgeSetup | None:
    if judge is None or rubric is None:
        return judge
    from ..judges.rubric import get_rubric

    return dataclasses.replace(judge, rubric=get_rubric(rubric))


def _with_cascade(judge: JudgeSetup | None, judge_all: bool) -> JudgeSetup | None:
    """The judge behind the run's cascade (only the undecided items), or asked every item."""
    if judge is None:
        return None
    return dataclasses.replace(judge, cascade=False if judge_all else UNDECIDED_ONLY)


def _with_sources(options: ScoreOptions, sources: str | Path | None) -> ScoreOptions:
    return options if sources is None else dataclasses.replace(options, sources=str(sources))


__all__ = ["RAG_RUBRIC", "RUN_NAME", "HarnessRun", "check_judges", "run_gold", "run_metrics", "write_rows"]
