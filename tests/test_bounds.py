"""Bounds no data file can break (issue 9): a row takes at most a second per megabyte of its text (and
at most a second under 10 KB), and the process at most three times its input's size plus 500 MB.

The worst cases: catastrophic patterns, huge repeat counts, a 50 MB cell, thousands of golden answers
against a long response. The limits are the bounds themselves, measured against a baseline run of the
same command on a tiny file (start-up, imports, the unicode tables) so that only the row's own cost
counts. Time is CPU time (the process's own, or its child's), counted in tests/support/budget.py's
reference units (SECOND of them are about a second on an idle machine), never in seconds: the machines
are shared, and other work on them stretches every time alike. Each bound has budget.LOADED's room.
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from budget import LOADED, SECOND, assert_within, check_units, cpu_timer
from cli_run import write_csv

from assay import Outcome, score
from assay.scorers._base import overlap_f1
from assay.text import unicode
from assay.text.seed import seed_words
from assay.trace import traces

PER_MB = LOADED * SECOND  # reference units a megabyte of a row's text may cost
SMALL_ROW = LOADED * SECOND  # and a row under 10 KB
MB = 1_000_000
# Run a command and print its exit code, CPU seconds and peak resident memory (KiB): this wrapper's
# only child is the command.
PEAK_OF = (
    "import resource, subprocess, sys; "
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode; "
    "used = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(code, used.ru_utime + used.ru_stime, used.ru_maxrss)"
)


def assay_peak(args: list[str]) -> tuple[int, float, float]:
    """(exit code, CPU seconds, peak resident MB) of `assay ARGS` in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF, sys.executable, "-m", "assay", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    code, seconds, peak_kib = done.stdout.split()
    return int(code), float(seconds), int(peak_kib) / 1024


CATASTROPHIC = [
    (r"(a|aa)+$", "a" * 40 + "!"),  # issue 9's: 52 s unbounded
    (r"(a|aa)+b", "a" * 80),
    (r"(\w|\w\w)+$", "abc" * 30 + "!"),
    (r"(\d|\d\d)+\s*$", "1" * 80 + "x"),
]


@pytest.mark.parametrize(("pattern", "response"), CATASTROPHIC)
def test_a_catastrophic_pattern_takes_under_a_second_with_its_trace(pattern: str, response: str) -> None:
    frame = pd.DataFrame(
        {
            "id": ["slow"],
            "question": ["q"],
            "answer": ["a"],
            "response": [response],
            "expected_regex": [pattern],
        }
    )
    score(frame.assign(expected_regex="a"))  # warm: imports and the unicode tables are not the row's
    scored: list[Any] = []

    def scored_with_traces() -> None:  # every metric, as `assay score` runs them, and the row's traces
        run = score(frame)
        scored.append((run, traces(run, 0)))

    assert_within(scored_with_traces, SMALL_ROW, "the row")
    run, row_traces = scored[0]
    assert run.metrics["hard_fact"].outcome(0) is Outcome.UNSCORED
    assert row_traces["hard_fact"].outcome == "unscored"


@pytest.mark.parametrize(
    "pattern", ["a{1000000000}", "(?:a{1000}){1000}", "((ab{100}){100}){100}", "x{2,4294967296}"]
)
def test_a_huge_repeat_is_refused_before_it_is_compiled(tmp_path: Path, pattern: str) -> None:
    path = write_csv(
        tmp_path / "huge.csv",
        [
            {"id": "r1", "question": "q", "answer": "a", "response": "aaaa", "expected_regex": "a"},
            {"id": "r2", "question": "q", "answer": "a", "response": "aaaa", "expected_regex": pattern},
        ],
    )
    code, seconds, peak = assay_peak(["score", "--responses", str(path), "--metric", "hard_fact"])
    assert code == 2
    assert peak < 500  # compiling a{1000000000} alone ran past 20 GB
    check_units(seconds, 30 * SECOND, "refusing it")  # start-up included


def test_a_huge_repeat_names_its_row_and_pattern(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "huge.csv",
        [{"id": "r9", "question": "q", "answer": "a", "response": "a", "expected_regex": "a{1000000000}"}],
    )
    done = subprocess.run(
        [sys.executable, "-m", "assay", "score", "--responses", str(path), "--metric", "hard_fact"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "row id r9: the expected_regex 'a{1000000000}' would compile too large" in lines[0]


def test_thousands_of_golden_answers_against_a_long_response() -> None:
    rng = random.Random(9)
    # No grouped number (1,24,000) in the long response: those send a text through the profile's
    # Python steps (about 1.1 s per MB here; see docs/speed.md), not the C path.
    vocabulary = ["Delhi", "river", "valley", "दिल्ली", "राजधानी", "3.5", "कण्णूर", "北京", "१९४७"]
    response = " ".join(rng.choice(vocabulary) for _ in range(150_000))  # about 1 MB
    goldens = [f"answer {i} {rng.choice(vocabulary)} number {i}" for i in range(5_000)] + ["valley दिल्ली"]
    frame = pd.DataFrame(
        {"question": ["q"], "answers": [goldens], "response": [response], "lang": ["hi"]}
        | {"expected_regex": ["राजधानी"]}
    )
    size = (len(response.encode()) + sum(len(g.encode()) for g in goldens)) / MB
    score(frame.assign(response="warm"))
    with cpu_timer() as took:
        run = score(frame)
        row_traces = traces(run, 0)
    check_units(took[0], PER_MB * size, f"{size:.2f} MB")
    assert row_traces["phrase_match"].outcome == "pass"
    assert run.metrics["exact_substring"].answer_index[0] == len(goldens) - 1


@pytest.fixture(scope="module")
def fifty_mb_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[float, float, float, Path, str]:
    """`assay score --out` on one 50 MB cell: (MB of input, CPU seconds past a tiny file's, peak MB,
    the --out file, the cell)."""
    folder = tmp_path_factory.mktemp("fifty")
    rng = random.Random(50)
    vocabulary = ["Delhi", "the", "capital,", "दिल्ली", "राजधानी।", "1947", "3.5", "valley."]
    cell = " ".join(rng.choice(vocabulary) for _ in range(7_500_000))[: 50 * MB // 2]
    cell += " " + " ".join(rng.choice(vocabulary[:3]) for _ in range(4_000_000))  # ASCII too
    header = {"question": "q", "answer": "Delhi", "expected_regex": "1947"}
    big = write_csv(folder / "big.csv", [{"id": "big", **header, "response": cell}])
    tiny = write_csv(folder / "tiny.csv", [{"id": "tiny", **header, "response": "in Delhi, 1947"}])
    _, baseline, _ = assay_peak(["score", "--responses", str(tiny), "--out", str(folder / "tiny_out.csv")])
    out = folder / "out.csv"
    code, seconds, peak = assay_peak(["score", "--responses", str(big), "--out", str(out), "--trace-col"])
    assert code == 0
    return big.stat().st_size / MB, seconds - baseline, peak, out, cell


def test_a_50_mb_cell_takes_under_a_second_per_megabyte(
    fifty_mb_run: tuple[float, float, float, Path, str],
) -> None:
    size, seconds, _, out, cell = fifty_mb_run
    assert size > 40
    check_units(seconds, PER_MB * size, f"{size:.0f} MB")
    with out.open(encoding="utf-8", newline="") as handle:
        csv.field_size_limit(sys.maxsize)
        (row,) = list(csv.DictReader(handle))
    assert row["response"] == cell
    trace = json.loads(row["trace"])
    assert trace["phrase_match"]["outcome"] == "pass"
    assert len(trace["phrase_match"]["response"]) < 3000  # the seen text is cut, not copied per metric


def test_a_50_mb_cell_stays_within_three_times_its_input_and_500_mb(
    fifty_mb_run: tuple[float, float, float, Path, str],
) -> None:
    size, _, peak, _, _ = fifty_mb_run
    assert peak < 3 * size + 500, f"peak {peak:.0f} MB for {size:.0f} MB of input"


@pytest.mark.parametrize("answers", [1, 3, 400])
def test_the_long_row_paths_give_the_definitions_numbers(answers: int) -> None:
    # Past 2**20 (answers x response characters) token_f1 counts the response's tokens once and
    # word_overlap puts its words in a set; both must give what one answer at a time gives.
    rng = random.Random(answers)
    vocabulary = ["Delhi", "river,", "valley.", "दिल्ली", "राजधानी।", "3.5", "北京"]
    response = " ".join(rng.choice(vocabulary) for _ in range(60_000))
    goldens = [" ".join(rng.sample(vocabulary, 3)) + f" x{i}" for i in range(answers - 1)]
    goldens.append("river 北京")
    frame = pd.DataFrame({"question": ["q"], "answers": [goldens], "response": [response]})
    run = score(frame, ["token_f1", "word_overlap"])
    seen = unicode.f1_tokens_by_regex(unicode.normalise(response))  # once: the definition is slow
    f1s = [overlap_f1(unicode.f1_tokens_by_regex(unicode.normalise(g)), seen) for g in goldens]
    values = run.metrics["token_f1"].values
    assert values is not None and values[0] == pytest.approx(max(f1s))
    words = seed_words(response.lower())
    found = [len(seed_words(g.lower()) & words) / len(seed_words(g.lower())) for g in goldens]
    overlap = run.metrics["word_overlap"]
    assert overlap.outcome(0) is (Outcome.PASS if max(found) == 1 else Outcome.FAIL)
    first_best = found.index(max(found))
    assert overlap.answer_index[0] == first_best
