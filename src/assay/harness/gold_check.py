"""Every problem a run refuses a gold set for, found by one function that `assay run` and `assay lint`
both call, so that the two say the same words by construction (issue 22, item 6).

A run stops at the first problem (``GoldCheck.first``); lint lists them all. A file that cannot be read
at all (empty, invalid JSON on a line, not UTF-8, a header hiding a BOM) has one problem, the reader's;
a file that reads has one problem for each item that is wrong (its id, question, scope, category or
gold keys), for each duplicate id, and, when its items are sound, whatever loading them as records
still refuses. The id, the scope, the category and the question are bounded in length here, as the file
is read: a 40,000-character id made every report that prints it crawl (issue 22, item 1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cells import has_invisible, visible
from ..errors import AssayError, InputError, UsageError
from ..parts import PartError, gold_of_item
from ..readers import Table, read_table
from ..records import ColumnMap, Dataset, is_gold_set, load_table

# Longer than any id, scope or category `assay gold build` writes (a scope is a document's path with
# "__" for "/"), short enough that every report prints them at once.
MAX_ID_CHARS = 1000
MAX_SCOPE_CHARS = 1000
MAX_CATEGORY_CHARS = 1000
# A question is sent to the system and printed in reports: a question of many pages is a document (gold
# build writes at most 5,000 characters; a reading-comprehension passage fits too).
MAX_QUESTION_CHARS = 20_000
_BOUNDED = (
    ("id", MAX_ID_CHARS),
    ("scope", MAX_SCOPE_CHARS),
    ("category", MAX_CATEGORY_CHARS),
    ("question", MAX_QUESTION_CHARS),
)

_GOLD_FIXES = {  # the readers' fixes name assay score's flags, which a run has not: by their first words
    "the file is ": "give a file with items (for a run: a gold set, the output of `assay gold build`)",
    "duplicate id": "give each item of the gold set an id of its own (a run asks and journals items by id)",
}


@dataclass(frozen=True)
class GoldProblem:
    """One reason a run refuses the gold set: a short name for lint's finding, and the error a run raises."""

    check: str  # unreadable, not-a-gold-set, bad-id, duplicate-id, no-question, bad-field, too-long, bad-item
    error: AssayError


@dataclass(frozen=True)
class GoldCheck:
    """A gold file checked: every problem in file order, its items (each with its line) and their
    records when they load (duplicate ids allowed, for lint: they are among the problems), its sha256."""

    problems: tuple[GoldProblem, ...]
    items: tuple[tuple[int, dict[str, Any]], ...] = ()
    dataset: Dataset | None = None
    sha256: str = ""
    gold_shaped: bool = True  # False: the file reads, but is no gold set (lint checks it as plain rows)

    def first(self) -> None:
        """Raise the first problem, as a run does."""
        if self.problems:
            raise self.problems[0].error


def check_gold_file(gold_path: str | Path, content: bytes | None, sha256: str = "") -> GoldCheck:
    """Every problem a run would refuse the gold file for (`content`: its bytes, read already, or None
    when it could not be read, which the reader then says in its own words)."""
    try:
        table = read_table(gold_path, content=content)
        shaped = is_gold_set(table, ColumnMap())  # known by its columns: expected_answer, no answer
        if not shaped or "id" not in table.columns:
            return GoldCheck((GoldProblem("not-a-gold-set", _not_a_gold_set(gold_path)),), gold_shaped=shaped)
        blocks = list(table.blocks)
    except InputError as exc:
        return GoldCheck((GoldProblem("unreadable", _gold_words(exc)),), sha256=sha256)
    items = tuple(_items(table, blocks))
    problems = [*_item_problems(items, f"{table.source} {table.location_kind}")]
    dataset = None
    try:
        dataset = load_table(
            dataclasses.replace(table, blocks=iter(blocks)), need_responses=False, allow_duplicate_ids=True
        )
    except InputError as exc:
        if not any(_same_place(exc, problem.error) for problem in problems):
            problems.append(GoldProblem("bad-item", _gold_words(exc)))
    return GoldCheck(tuple(problems), items, dataset, sha256)


def _not_a_gold_set(gold_path: str | Path) -> UsageError:
    return UsageError(
        "this is not a gold set: its items need an id, a question and expected_answer",
        where=str(gold_path),
        fix="give the output of `assay gold build` (docs/gold.md)",
    )


def _gold_words(exc: InputError) -> InputError:
    """The reader's error with a fix for a gold set (theirs name assay score's flags)."""
    return InputError(exc.what, where=exc.where, fix=_GOLD_FIXES.get(exc.what[:12], exc.fix))


def _same_place(exc: AssayError, other: AssayError) -> bool:
    """Whether two errors are about one line (one item): the loader's after an item check's is no news."""
    return exc.where.split(" (id ")[0] == other.where.split(" (id ")[0]


def _items(
    table: Table, blocks: Sequence[tuple[Sequence[int], Sequence[Any]]]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each item with its line (or row) number in the file."""
    for numbers, rows in blocks:
        for number, row in zip(numbers, rows):
            yield number, row if isinstance(row, dict) else dict(zip(table.columns, row))


# --- one item ------------------------------------------------------------------------------------------


def _item_problems(items: Sequence[tuple[int, Mapping[str, Any]]], where: str) -> Iterator[GoldProblem]:
    """Each item's problems, in file order, and each id seen before."""
    first_seen: dict[str, int] = {}
    for number, item in items:
        at = f"{where} {number}"
        found = list(_one_item(item, at))
        yield from found
        item_id = _id_text(item.get("id"))
        if found or item_id is None:
            continue
        earlier = first_seen.setdefault(item_id, number)
        if earlier != number:
            yield GoldProblem(
                "duplicate-id",
                InputError(
                    f"duplicate id '{item_id}' (first at {where.rsplit(' ', 1)[-1]} {earlier})",
                    where=at,
                    fix=_GOLD_FIXES["duplicate id"],
                ),
            )


def _one_item(item: Mapping[str, Any], at: str) -> Iterator[GoldProblem]:
    bad_id = _id_problem(item.get("id"), at)
    if bad_id is not None:
        yield bad_id
        return
    shown_id = f"(id {_id_text(item.get('id'))})"
    yield from _question_problem(item, at)
    for name in ("scope", "category", "expected_answer"):
        if isinstance(item.get(name), (list, dict)):
            yield GoldProblem(
                "bad-field",
                InputError(
                    f"the item's {name} is a {type(item[name]).__name__}, not text",
                    where=f"{at} {shown_id}",
                    fix=f"write the {name} as a text",
                ),
            )
    yield from _too_long(item, f"{at} {shown_id}")
    try:
        gold_of_item(item)
    except PartError as exc:
        yield GoldProblem(
            "bad-item",
            InputError(
                f"the gold item {exc}",
                where=f"{at} {shown_id}",
                fix="write the item as `assay gold build` does (docs/gold.md)",
            ),
        )


def _id_text(value: Any) -> str | None:
    """The id as a run names the item (a number is its text), None when it is no text at all."""
    if value is None or isinstance(value, (list, dict)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def _id_problem(value: Any, at: str) -> GoldProblem | None:
    text = _id_text(value)
    if isinstance(value, (list, dict)):
        what = f"the item's id is a {type(value).__name__}, not text"
        fix = "write the id as a text"
    elif text is None or not text.strip():
        what, fix = (
            "the item has no id",
            "give every item an id of its own (a run asks and journals items by id)",
        )
    elif has_invisible(text):
        what = f"the id {text[:80]!r} holds an invisible character (a BOM, a zero-width or direction mark)"
        fix = f"write the id as {visible(text[:80])!r}"
    elif len(text) > MAX_ID_CHARS:
        what = f"the id is {len(text)} characters long ({text[:40]!r}...), over the limit of {MAX_ID_CHARS}"
        fix = f"give the item an id of at most {MAX_ID_CHARS} characters"
    else:
        return None
    return GoldProblem("bad-id", InputError(what, where=at, fix=fix))


def _question_problem(item: Mapping[str, Any], at: str) -> Iterator[GoldProblem]:
    """Every item asks a question: a missing one would be asked as the text "None"."""
    question = item.get("question")
    if isinstance(question, str) and question.strip():
        return
    shown = "no question" if question is None else f"the question {_short(question)}"
    yield GoldProblem(
        "no-question",
        InputError(
            f"item {_id_text(item.get('id'))!r} has {shown}, and a run asks each item's question",
            where=at,
            fix="give every item its question as a text",
        ),
    )


def _too_long(item: Mapping[str, Any], at: str) -> Iterator[GoldProblem]:
    for name, limit in _BOUNDED[1:]:
        value = item.get(name)
        if isinstance(value, str) and len(value) > limit:
            yield GoldProblem(
                "too-long",
                InputError(
                    f"the item's {name} is {len(value)} characters long ({value[:40]!r}...), over the "
                    f"limit of {limit}",
                    where=at,
                    fix=f"give the item a {name} of at most {limit} characters",
                ),
            )


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else f"{shown[:80]}..."


__all__ = [
    "MAX_CATEGORY_CHARS",
    "MAX_ID_CHARS",
    "MAX_QUESTION_CHARS",
    "MAX_SCOPE_CHARS",
    "GoldCheck",
    "GoldProblem",
    "check_gold_file",
]
