"""Parity of lint and run (issue 22, item 6): every problem `assay run` refuses a gold set for, `assay
lint` reports in the same words, so that lint in CI catches it before a run asks a system anything."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from test_gold_records import ITEM, REFUSAL

from assay.errors import AssayError
from assay.harness.gold_check import MAX_CATEGORY_CHARS, MAX_ID_CHARS, MAX_QUESTION_CHARS, MAX_SCOPE_CHARS
from assay.harness.gold_set import load_gold_set

COUNTING_SYSTEM = """
from pathlib import Path

def answer(question, scope=None):
    with open(Path(__file__).with_suffix(".asked"), "a") as handle:
        handle.write("asked\\n")
    return "30 days"
"""


def lines(*items: Any) -> bytes:
    """Items as JSON lines (a str is written as it is: a line that is not JSON)."""
    return "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in items).encode()


OTHER = {**ITEM, "id": "b3"}

# name -> the gold file's bytes, and words of the refusal
CASES: dict[str, tuple[bytes, str]] = {
    "duplicate-id": (lines(ITEM, OTHER, ITEM), "duplicate id 'b2' (first at line 1)"),
    "duplicate-number-id": (lines({**ITEM, "id": 7}, {**OTHER, "id": "7"}), "duplicate id '7'"),
    "missing-question": (lines(ITEM, {k: v for k, v in OTHER.items() if k != "question"}), "no question"),
    "null-question": (lines(ITEM, {**OTHER, "question": None}), "no question"),
    "empty-question": (lines(ITEM, {**OTHER, "question": ""}), "the question ''"),
    "blank-question": (lines(ITEM, {**OTHER, "question": " \t"}), "the question ' \\t'"),
    "number-question": (lines(ITEM, {**OTHER, "question": 42}), "the question 42"),
    "list-question": (lines(ITEM, {**OTHER, "question": ["a"]}), "the question ['a']"),
    "object-question": (lines(ITEM, {**OTHER, "question": {"q": 1}}), "the question {'q': 1}"),
    "missing-id": (lines(ITEM, {k: v for k, v in OTHER.items() if k != "id"}), "the item has no id"),
    "empty-id": (lines(ITEM, {**OTHER, "id": "  "}), "the item has no id"),
    "list-id": (lines(ITEM, {**OTHER, "id": ["b3"]}), "the item's id is a list, not text"),
    "invisible-id": (lines(ITEM, {**OTHER, "id": "b\u200b3"}), "holds an invisible character"),
    "long-id": (lines(ITEM, {**OTHER, "id": "i" * (MAX_ID_CHARS + 1)}), f"over the limit of {MAX_ID_CHARS}"),
    "long-scope": (
        lines({**ITEM, "scope": "s" * (MAX_SCOPE_CHARS + 1)}),
        "the item's scope is 1001 characters",
    ),
    "long-category": (
        lines({**ITEM, "category": "c" * (MAX_CATEGORY_CHARS + 1)}),
        "the item's category is 1001 characters",
    ),
    "long-question": (
        lines({**ITEM, "question": "q " * MAX_QUESTION_CHARS}),
        f"the item's question is {2 * MAX_QUESTION_CHARS} characters",
    ),
    "list-scope": (lines({**ITEM, "scope": ["a", "b"]}), "the item's scope is a list, not text"),
    "object-category": (lines({**ITEM, "category": {"a": 1}}), "the item's category is a dict, not text"),
    "list-answer": (lines({**ITEM, "expected_answer": ["30 days"]}), "expected_answer is a list, not text"),
    "bad-source-key": (lines({**ITEM, "source": {**ITEM["source"], "pages": 3}}), "has no key 'pages'"),  # type: ignore[dict-item]
    "bad-value-key": (lines({**ITEM, "expected_value": {"value": 30, "units": "d"}}), "has no key 'units'"),
    "source-not-object": (lines({**ITEM, "source": 3}), "the gold item"),
    "refusal-flag-text": (lines({**REFUSAL, "expected_refusal": "maybe"}), "the gold item"),
    "no-id-column": (lines({k: v for k, v in ITEM.items() if k != "id"}), "this is not a gold set"),
    "bad-json-line": (lines(ITEM, '{"id": "b3", "question": '), "invalid JSON"),
    "not-an-object": (lines(ITEM, "[1, 2]"), "expected a JSON object, found list"),
    "empty-file": (b"", "the file is empty"),
    "blank-lines-only": (b"\n \n\n", "the file is empty"),
    "bom-only": (codecs.BOM_UTF8 + b"\n", "the file is empty"),
    "not-utf8": (lines(ITEM) + b'{"id": "\xff"}\n', "not valid UTF-8"),
    "utf16": ("\n".join(json.dumps(i) for i in (ITEM,)).encode("utf-16-le"), "NUL byte"),
}


def refusal(path: Path) -> AssayError:
    """What a run refuses the gold file for (load_gold_set: the run's own reading of it)."""
    with pytest.raises(AssayError) as caught:
        load_gold_set(path)
    return caught.value


@pytest.mark.parametrize("name", list(CASES))
def test_lint_reports_what_run_refuses_in_the_same_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    content, said = CASES[name]
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(content)
    refused = refusal(gold)
    assert said in refused.what
    code, stdout, stderr = run(["lint", str(gold)], capsys)
    if code == 2:  # a file that cannot be read at all: the same line as run's, exit 2 as there
        assert stderr.strip() == f"assay: error: {refused.message}"
    else:
        assert code == 1
        assert f"{refused.where}: error: {refused.what}. Fix: {refused.fix}" in stdout.splitlines()


@pytest.mark.parametrize(
    "name", ["duplicate-id", "missing-question", "long-id", "bad-json-line", "empty-file"]
)
def test_run_refuses_with_those_words_before_asking_the_system(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    gold, bot = tmp_path / "gold.jsonl", tmp_path / "bot.py"
    gold.write_bytes(CASES[name][0])
    bot.write_text(COUNTING_SYSTEM, encoding="utf-8")
    code, _, stderr = run(
        ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(tmp_path / "r")], capsys
    )
    assert code == 2
    assert stderr.strip() == f"assay: error: {refusal(gold).message}"
    assert not bot.with_suffix(".asked").exists()


def test_lint_lists_every_problem_where_run_names_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    broken = [
        {**OTHER, "question": ""},
        ITEM,
        {**OTHER, "id": "b4", "scope": "s" * 5000},
        {**ITEM, "id": "b2"},
    ]
    gold.write_bytes(lines(ITEM, *broken))
    code, stdout, _ = run(["lint", str(gold)], capsys)
    refused = [line for line in stdout.splitlines() if ": error: " in line]
    assert code == 1
    assert [line.split(":", 1)[0].split(" (id")[0] for line in refused[:4]] == [
        f"{gold} line {n}" for n in (2, 3, 4, 5)
    ]
    assert refused[0] == f"{gold} line 2: error: {refusal(gold).what}. Fix: {refusal(gold).fix}"


def test_a_sound_gold_set_has_no_refusal_and_loads_for_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(lines(ITEM, REFUSAL, {**ITEM, "id": "i" * MAX_ID_CHARS, "scope": "s" * MAX_SCOPE_CHARS}))
    assert len(load_gold_set(gold).records) == 3
    code, stdout, _ = run(["lint", str(gold)], capsys)
    assert code == 0, stdout
