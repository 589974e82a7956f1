"""``assay compare`` on two harness runs (``assay run --out DIR``; the folder or its run.jsonl): the same
gold set answered by two versions of a system.

What it gives, B against A over the items both runs hold (joined by id):

- the outcome classes: each class's count in A and in B, and the transition matrix A -> B (how many
  items moved from each class to each other);
- factual accuracy per scope and combined, with ``assay.compare``'s paired tests (a paired bootstrap
  interval of B - A and McNemar's exact p-value) on the derived metric ``factual``, read from each row's
  stored ``outcome`` (PASS for correct and correct_ungrounded, unscored for unscored, FAIL otherwise);
- the two runs' signatures side by side (system, gold file hash, judges, rubric, options, metrics).

Runs of different gold files (their hashes differ) are compared only as ``assay.compare`` joins any two
runs: by id, each joined item holding the same question and golden answers in both, else refused (or,
with ``allow_changed``, counted in a warning). A gold hash that differs is always warned about.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import stats
from ..comparison import compare
from ..errors import InputError, UsageError
from ..judges.metric import JUDGE
from ..records import load_records
from ..scorers import SCORERS, MetricScores, Outcome
from ..scoring import ScoreOptions, ScoreRun
from ..signatures import READ_FROM, Signature
from ..summary import IntervalMethod, summarize
from .earlier import results_beside
from .outcomes import FACTUAL, OUTCOME_COLUMN, OUTCOMES, PASSING

RUN_FILE = "run.jsonl"
SIGNATURE_KEYS = ("system", "system_signature", "gold_path", "gold_sha256", "judges", "rubric", "options")


@dataclasses.dataclass(frozen=True)
class HarnessRun:
    """A run read back: its rows as a ScoreRun holding ``factual`` (each item's scope as its domain), each
    row's outcome, and its signatures (from results.json beside run.jsonl, results.N.json beside a kept
    run.N.jsonl: ``earlier.results_beside``; {} without one)."""

    run: ScoreRun
    outcomes: tuple[str, ...]
    signatures: Mapping[str, Any]
    warnings: tuple[str, ...] = ()


def run_file(path: str | Path) -> Path | None:
    """The run.jsonl a path names (a run folder, or the file itself), when it is a harness run's: a JSONL
    file whose first row has an `outcome`. None for anything else (an `assay score --out` file)."""
    found = Path(path)
    try:
        if found.is_dir():
            found = found / RUN_FILE
        if not found.is_file() or found.suffix.lower() != ".jsonl":
            return None
        with found.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline(FIRST_ROW_LIMIT)
    except OSError:  # a name too long, a folder it may not read: not a run; the reader says what is wrong
        return None
    try:
        row = json.loads(first)
    except ValueError:
        return None
    return found if isinstance(row, dict) and OUTCOME_COLUMN in row else None


# The most of a file's first line read to tell a run from a scored file: a row longer than this (a reply
# of many megabytes) is read as no run's, rather than held whole in memory to find out.
FIRST_ROW_LIMIT = 64 << 20


def load_run(path: str | Path, intervals: IntervalMethod | None = None) -> HarnessRun:
    found = run_file(path)
    if found is None:
        raise UsageError(
            f"{path} is not a harness run (a folder with run.jsonl, or a run.jsonl with an 'outcome' column)",
            fix="give two folders written by assay run --out, or two files written by assay score --out",
        )
    dataset = load_records(found, need_responses=False)
    classes = tuple(str(record.meta.get(OUTCOME_COLUMN)) for record in dataset.records)
    wrong = [record.id for record, name in zip(dataset.records, classes) if name not in OUTCOMES]
    if wrong:
        raise InputError(
            f"{len(wrong)} rows have an outcome that is not one of {', '.join(OUTCOMES)}: "
            f"ids {', '.join(wrong[:5])}",
            where=str(found),
            fix="give the run.jsonl assay run wrote, unedited",
        )
    records = [dataclasses.replace(record, domain=record.scope) for record in dataset.records]
    dataset = dataclasses.replace(dataset, records=records)
    signatures = _signatures(results_beside(found))  # results.N.json beside a kept run.N.jsonl
    scores = factual_of(classes)
    info = (signatures.get("metric_info") or {}).get(FACTUAL)
    signature = Signature(info) if info else Signature({"metric": FACTUAL, READ_FROM: str(found)})
    options = ScoreOptions(intervals=intervals or IntervalMethod())
    blank = bytearray(not record.response.strip() for record in records)
    summary = summarize(dataset, {FACTUAL: scores}, blank, {FACTUAL: signature}, options.signature_parts())
    run = ScoreRun(dataset, options, {FACTUAL: scores}, blank, summary)
    return HarnessRun(run, classes, signatures, _rescored_warnings(found, dataset.columns, signatures))


def _rescored_warnings(path: Path, columns: Sequence[str], signatures: Mapping[str, Any]) -> tuple[str, ...]:
    """A run file scored again (``assay score --on-conflict replace --out``) keeps each row's outcome
    as the run made it: a metric added then (a judge) changed none. Said when the file holds verdicts
    its results.json does not name, and, without a results.json, that it cannot be told."""
    named = signatures.get("metrics")
    if not isinstance(named, Mapping):
        return (
            f"{path} has no results.json beside it: its gold file's hash is unknown (joined by id alone), "
            "and its outcomes are read as stored, which may predate a re-scoring (assay score keeps a "
            "run's outcome column as it was)",
        )
    added = [name for name in (*SCORERS, JUDGE) if name in columns and name not in named]
    if not added:
        return ()
    return (
        f"{path} was scored again after its run ({', '.join(added)}, which its results.json does not "
        "name): its outcomes are still the run's, made without them; re-make them with the run's own "
        "assay run command and the new metric (its journal asks the system nothing again)",
    )


def factual_of(classes: tuple[str, ...]) -> MetricScores:
    scores = MetricScores.all_failing(FACTUAL, len(classes))
    for index, name in enumerate(classes):
        if name in PASSING:
            scores.outcomes[index] = Outcome.PASS
        elif name == "unscored":
            scores.outcomes[index] = Outcome.UNSCORED
    return scores


def _signatures(path: Path) -> Mapping[str, Any]:
    if not path.is_file():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    signatures = found.get("signatures") if isinstance(found, dict) else None
    return signatures if isinstance(signatures, dict) else {}


def compare_runs(
    a_path: str | Path, b_path: str | Path, seed: int = stats.DEFAULT_SEED, allow_changed: bool = False
) -> dict[str, Any]:
    """Two harness runs compared, B against A (see this module's docstring), as a dict."""
    intervals = IntervalMethod(seed=seed)
    a, b = load_run(a_path, intervals), load_run(b_path, intervals)
    warnings = _gold_warnings(a, b)
    paired = compare(a.run, b.run, seed, allow_changed).as_dict()  # refuses a join of other questions
    b_row = {record.id: index for index, record in enumerate(b.run.records)}
    joined = [(a.outcomes[i], b.outcomes[b_row[r.id]]) for i, r in enumerate(a.run.records) if r.id in b_row]
    moves = Counter(joined)
    return {
        "kind": "assay run comparison",
        "a": {"source": str(a_path), **_side(a)},
        "b": {"source": str(b_path), **_side(b)},
        "items_in_both": len(joined),
        "outcomes": {
            name: {"a": sum(x == name for x, _ in joined), "b": sum(y == name for _, y in joined)}
            for name in OUTCOMES
        },
        "transitions": {x: {y: moves[x, y] for y in OUTCOMES} for x in OUTCOMES},
        "factual": paired,
        "signature_differences": _differences(a.signatures, b.signatures),
        "warnings": [*warnings, *a.warnings, *b.warnings, *paired["warnings"]],
    }


def _side(found: HarnessRun) -> dict[str, Any]:
    return {key: found.signatures.get(key) for key in SIGNATURE_KEYS}


def _gold_warnings(a: HarnessRun, b: HarnessRun) -> list[str]:
    hashes = (a.signatures.get("gold_sha256"), b.signatures.get("gold_sha256"))
    if None in hashes:
        return []  # said per run, by _rescored_warnings
    if hashes[0] != hashes[1]:
        return [
            f"A and B ran different gold files (sha256 {hashes[0]} and {hashes[1]}): compared only over the "
            "items whose ids join, each checked to hold the same question and golden answers"
        ]
    return []


def _differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Each signature that differs between the runs, as 'what: A -> B'."""
    found = [
        f"{key}: {_shown(a.get(key))} -> {_shown(b.get(key))}"
        for key in SIGNATURE_KEYS
        if a.get(key) != b.get(key)
    ]
    metrics_a, metrics_b = a.get("metrics") or {}, b.get("metrics") or {}
    for name in dict.fromkeys([*metrics_a, *metrics_b]):
        if metrics_a.get(name) != metrics_b.get(name):
            found.append(f"metric {name}: {metrics_a.get(name)} -> {metrics_b.get(name)}")
    return found


def _shown(value: Any) -> str:
    """A signature's value as the reports write it: options in words, a list of judges joined."""
    from .results_markdown import options_text

    if isinstance(value, Mapping):
        return options_text(value)
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)
