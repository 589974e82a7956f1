"""Fuzzing gold sets: hand-edited gold.jsonl files through the run's reader and `assay lint`.

Each example is a gold file of a few items as `assay gold build` writes them, each edited at random
(a field dropped, or given another JSON value: null, a number, a list, an object, odd or long text), with
ids from a small pool (so duplicates happen) and junk lines among them. Whatever happens, the reader
(``load_gold_set``) raises only an ``AssayError``; the check both commands share refuses exactly when
the reader does, with the same first error (parity as a property, issue 22 item 6); and `assay lint`
raises no exception but an AssayError (exit 2), exits non-zero whenever the reader refuses, naming the
place, and never exits 2 on a file the reader accepts. Every example takes under a second.

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 200 locally. The seed is printed;
``ASSAY_FUZZ_SEED=N`` replays a run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fuzzing import SEED, examples, fuzz_settings, one_example
from hypothesis import given, seed
from hypothesis import strategies as st
from test_gold_records import ITEM, REFUSAL

from assay.cli import build_parser
from assay.errors import AssayError
from assay.harness.gold_check import check_gold_file
from assay.harness.gold_set import load_gold_set
from assay.terminal import one_line

EXAMPLES = examples()
FUZZ = fuzz_settings(EXAMPLES)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each example's gold file goes; lint is run once on a sound one first, so that the imports
    its scorers make on first use are not counted against the first example's second."""
    found = tmp_path_factory.mktemp("fuzz_gold")
    lint_exit(written(found / "gold.jsonl", [json.dumps(ITEM), json.dumps(REFUSAL)]))
    return found


# --- gold files ----------------------------------------------------------------------------------------

ODD = [
    "\ufeff",
    "\u200b",
    "\u200d",
    "\u202e",
    "\ud800",
    "\x00",
    "\x85",
    "\u2028",
    "न",
    "्",
    "😀",
    "é",
    " ",
    "\n",
]
DROP = object()  # the field is left out
KEYS = [
    "id", "question", "scope", "category", "expected_answer", "expected_value", "expected_regex",
    "answer_type", "expected_refusal", "source", "field", "answer", "extra",
]  # fmt: skip
short_text = st.text(st.sampled_from(ODD) | st.characters(), max_size=8)
long_text = st.sampled_from([999, 1000, 1001, 5000]).map(lambda n: "x" * n)
scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | short_text
values = st.recursive(scalars | long_text, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["value", "unit", "page", "quote", "document", "span", "x"]), inner, max_size=3
), max_leaves=6)  # fmt: skip
edits = st.lists(st.tuples(st.sampled_from(KEYS), st.just(DROP) | values), max_size=3)
ids = st.sampled_from(["a", "b", "c", "d", "e", "f"]) | values
JUNK = ["{", "[1, 2]", "null", '"text"', "\ufeff", "   ", '{"id": "z"', "{}", '{"id": NaN}', "1e999999"]


@st.composite
def gold_lines(draw: st.DrawFn) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        item: dict[str, Any] = dict(draw(st.sampled_from([ITEM, REFUSAL])))
        item["id"] = draw(ids)
        for key, value in draw(edits):
            if value is DROP:
                item.pop(key, None)
            else:
                item[key] = value
        lines.append(json.dumps(item, ensure_ascii=draw(st.booleans())))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(JUNK)))
    return lines


def written(path: Path, lines: list[str]) -> Path:
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n")
    return path


@functools.cache
def lint_command(path: Path) -> argparse.Namespace:
    """`assay lint PATH` parsed once (building the parser costs more than linting a small file)."""
    argv = ["lint", str(path)]
    return build_parser(argv).parse_args(argv)


def lint_exit(path: Path) -> tuple[int, str]:
    """`assay lint` in process, its exceptions as main turns them into exit codes (an AssayError is 2;
    any other fails the test, where main would exit 3): its exit code and everything it printed."""
    out, err = io.StringIO(), io.StringIO()
    args = lint_command(path)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = int(args.run(args))
        except AssayError as exc:
            code = 2
            print(f"assay: error: {exc.message}", file=sys.stderr)
    return code, out.getvalue() + err.getvalue()


@seed(SEED)
@FUZZ
@given(lines=gold_lines())
def test_a_gold_file_is_read_or_refused_and_lint_flags_exactly_what_run_refuses(
    folder: Path, lines: list[str]
) -> None:
    with one_example():
        gold = written(folder / "gold.jsonl", lines)
        refused: AssayError | None = None
        try:
            load_gold_set(gold)
        except AssayError as exc:  # anything else fails the test: a crash
            refused = exc
        checked = check_gold_file(gold, gold.read_bytes())
        assert bool(checked.problems) == (refused is not None)
        if refused is not None:
            assert checked.problems[0].error.message == refused.message
        code, printed = lint_exit(gold)
        if refused is not None and checked.gold_shaped:  # a file of other columns lint reads as plain rows
            assert code in (1, 2) and one_line(refused.where.split(" (id ")[0]) in printed
            if code == 1:  # the run's first refusal is among lint's errors, in its words
                assert one_line(f"{refused.where}: error: {refused.what}. Fix: {refused.fix}") in printed
        elif refused is None:
            assert code in (0, 1), printed
