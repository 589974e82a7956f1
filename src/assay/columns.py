"""Which input column is which field, when the file's headers are not assay's own names.

Two questions, answered the way a careful reader of the file would:

- A required field (question, golden answer, response) that no column feeds: which column is nearest,
  by its name (its words, case, spaces and underscores aside) and, where the name says nothing, by its
  values. Every missing field is named in ONE error, each with the flag that maps it.
- An optional field (domain, lang, id, scope) that no column feeds, while a column looks like it: one
  hint line naming the flag, rather than the column going unused without a word.

Nothing here maps a column by itself: a guess is only ever said, with its flag. Why not take an
optional column that matches by name? Each one changes what a run measures and gates: a domain splits
every accuracy and every gate by its labels, a lang column turns on language-specific matching, an id
column changes which rows compare joins and makes a repeated value an error. A CI gate that passed
yesterday must not fail today because assay began reading a column nobody named. The hint costs one
line; the ``[columns]`` table of assay.toml (or ``--columns FILE``) then says the mapping once for
every command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import UsageError

# The words a header uses for each field. General vocabulary of QA datasets (SQuAD, MLQA, TyDi, RAG
# evaluation sheets), matched as whole words of the normalised name, never as substrings.
_QUESTION = frozenset({"question", "questions", "query", "prompt"})
_ANSWER = frozenset({"answer", "answers", "gold", "golden", "reference", "references", "expected", "target",
                     "truth", "label"})  # fmt: skip
_RESPONSE = frozenset({"response", "responses", "output", "outputs", "prediction", "predictions", "predicted",
                       "completion", "generated", "generation", "reply", "hypothesis"})  # fmt: skip
_PRODUCER = frozenset({"model", "system", "bot", "llm"})  # "Model Answer" is a response; "Model" alone is not
_DOMAIN = frozenset({"domain", "category", "topic", "subject"})
# Words that say a column holds a field's text, after the word that names the field ('Question Text',
# 'answer_str'): left off before the head word is read.
_TEXT_WORDS = frozenset({"text", "texts", "str", "string", "col", "column", "field", "value", "values"})

# The fields a hint or a suggestion is about, in the order they are said.
REQUIRED = ("question", "answer", "response")
OPTIONAL = ("id", "domain", "lang", "scope")
_WHAT = {"id": "an id", "domain": "a domain", "lang": "a language", "scope": "a scope"}


def words(name: str) -> tuple[str, ...]:
    """A header's words, lower case: 'Golden Answer', 'golden_answer', 'goldenAnswer' and 'GOLDEN-ANSWER'
    are all ('golden', 'answer')."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)  # camelCase
    return tuple(re.findall(r"[^\W_]+", spaced.lower()))


def _is_id_name(found: tuple[str, ...]) -> bool:
    """'id', 'Question ID', 'qid', 'uid': a name whose last word is an id."""
    return bool(found) and (found[-1] in ("id", "ids") or (len(found[-1]) == 3 and found[-1].endswith("id")))


def name_fits(field: str, name: str) -> bool:
    """Whether a column's name says it is `field`, by its head: the last word of a noun phrase says what
    it is, the words before only which one ('Question Type' is a type, 'Response Time (ms)' a time,
    'Language Model' a model). An id-like name ('Question ID') is the id only. The words before the head
    decide between a golden answer and a response: 'Model Answer' is what a model answered, 'Expected
    Output' and 'Gold Response' are what it should have."""
    found = words(name)
    if field == "id":
        return _is_id_name(found)
    while len(found) > 1 and found[-1] in _TEXT_WORDS:
        found = found[:-1]
    if not found or _is_id_name(found):
        return False
    head, before = found[-1], set(found[:-1])
    made = bool(before & (_PRODUCER | _RESPONSE))  # 'Model Answer', 'predicted_answer': what was answered
    golden = (head in _ANSWER and not made) or (head in _RESPONSE and bool(before & _ANSWER))
    if field == "question":
        return head in _QUESTION
    if field in ("answer", "answers"):
        return golden
    if field == "response":
        return (head in _RESPONSE or head in _ANSWER) and not golden
    if field == "lang":  # 'Language', 'Locale'; 'Lang Code' and 'language_tag' are a language's name too
        coded = head in ("code", "tag") and any(word.startswith("lang") for word in before)
        return head.startswith("lang") or head == "locale" or coded
    if field == "domain":
        return head in _DOMAIN
    if field == "scope":
        return head == "scope"
    return False


# --- by values ------------------------------------------------------------------------------------------

# A BCP 47 tag with an ISO 639-1 language (two letters): en, hi, pt-BR, zh-Hant. Three-letter codes are
# left out: too many three-letter words ("yes", "low") would pass for one.
_LANGUAGE_CODE = re.compile(r"[a-z]{2}(?:[-_][a-z0-9]{2,8})*", re.IGNORECASE)
_QUESTION_MARKS = ("?", "\uff1f", "\u061f")  # and the fullwidth (Chinese, Japanese) and Arabic marks
_LABEL_CHARS = 40  # a label is short: a few words, not a sentence
_LABEL_WORDS = 4


def content_fits(field: str, values: Sequence[str]) -> bool:
    """Whether a column's values (its first rows, as text, blanks left out) look like `field`'s:
    language codes for lang; short labels, each used more than once on average, for domain; values all
    different, short and without spaces for id; mostly questions (ending in '?') for question."""
    if len(values) < 2:
        return False  # one value says nothing about repetition or uniqueness
    distinct = set(values)
    if field == "lang":
        return all(_LANGUAGE_CODE.fullmatch(value) for value in distinct)
    if field == "domain":
        short = all(len(v) <= _LABEL_CHARS and len(v.split()) <= _LABEL_WORDS for v in distinct)
        # two labels at least: one value in every row (a model's name) splits nothing
        return (
            short
            and len(distinct) >= 2
            and len(distinct) * 2 <= len(values)
            and not content_fits("lang", values)
        )
    if field == "id":
        return len(distinct) == len(values) and all(_id_like(value) for value in distinct)
    if field == "question":
        return sum(value.rstrip().endswith(_QUESTION_MARKS) for value in values) * 2 > len(values)
    return False


def _id_like(value: str) -> bool:
    """A value that could be an id: short, no spaces, and not a measurement (a number with a fraction,
    12.5 ms, is a reading that happens to differ from row to row)."""
    return len(value) <= _LABEL_CHARS and " " not in value and not _MEASURED.fullmatch(value)


_MEASURED = re.compile(r"[-+]?\d*[.,]\d+(?:e[-+]?\d+)?", re.IGNORECASE)


# --- what is said ---------------------------------------------------------------------------------------


def flag(field: str, column: str) -> str:
    """The flag that maps `column` to `field`, quoted for a shell where it needs to be."""
    import shlex  # here: only a message about columns says a flag

    return f"--{field}-col {shlex.quote(column)}"


@dataclass(frozen=True)
class Guess:
    column: str
    by: str  # "name", "values", "name and values", or "a similar name"


def nearest(field: str, columns: Sequence[str], samples: Mapping[str, Sequence[str]]) -> list[Guess]:
    """The columns that may be `field`: those whose name fits (with their values agreeing, or not
    known), else those whose values fit. Empty when nothing does."""
    by_name = [column for column in columns if name_fits(field, column)]
    if field == "id":  # ids are unique: a repeated value ('Doc ID' of several questions) says no
        by_name = [column for column in by_name if len(set(values := samples.get(column, ()))) == len(values)]
    if by_name:
        return [
            Guess(c, "name and values" if content_fits(field, samples.get(c, ())) else "name")
            for c in by_name
        ]
    # By values, only a column whose name says nothing of any field ('Language' holding two codes is no
    # id, though its values are all different)
    unnamed = [
        column for column in columns if not any(name_fits(other, column) for other in (*REQUIRED, *OPTIONAL))
    ]
    return [Guess(column, "values") for column in unnamed if content_fits(field, samples.get(column, ()))]


Row = Sequence[Any] | Mapping[str, Any]


def samples_of(columns: Sequence[str], rows: Iterable[Row]) -> dict[str, list[str]]:
    """Each column's non-blank values of `rows` (lists aligned with `columns`, or dicts), as text."""
    found: dict[str, list[str]] = {column: [] for column in columns}
    for row in rows:
        cells = row.items() if isinstance(row, dict) else zip(columns, row)
        for column, cell in cells:
            if column in found and _plain(cell) and str(cell).strip():
                found[column].append(str(cell).strip())
    return found


def _plain(cell: Any) -> bool:
    """A cell a label or an id could be: text or a number, not a list, an object, a NaN or a None."""
    if isinstance(cell, float):
        return cell == cell
    return isinstance(cell, (str, int))


def missing_report(
    missing: Sequence[tuple[str, str]], columns: Sequence[str], samples: Mapping[str, Sequence[str]]
) -> tuple[str, str]:
    """The one error for every required field no column feeds: (what, fix). `missing` holds each field
    with the column name looked for."""
    parts, flags = [], []
    free = list(columns)
    for field, looked_for in missing:
        guesses = nearest(field, free, samples) or _similar(looked_for, free)
        if len(guesses) == 1:
            guess = guesses[0]
            parts.append(f"{field} (no column '{looked_for}'; nearest: '{guess.column}', by its {guess.by})")
            flags.append(flag(field, guess.column))
            free.remove(guess.column)  # one column feeds one field
        elif guesses:
            named = " or ".join(f"'{guess.column}'" for guess in guesses)
            parts.append(f"{field} (no column '{looked_for}'; {named} by name: say which)")
            flags.append(f"--{field}-col NAME")
        else:
            parts.append(f"{field} (no column '{looked_for}', and none looks like one)")
            flags.append(f"--{field}-col NAME")
    what = f"missing {'columns' if len(missing) > 1 else 'column'}: {'; '.join(parts)}"
    what += f" (columns found: {', '.join(columns) or 'none'})"
    fix = (
        f"pass {' '.join(flags)}, or write them once in assay.toml's [columns] table "
        "(or a --columns FILE), or rename the columns"
    )
    return what, fix


def _similar(looked_for: str, columns: Sequence[str]) -> list[Guess]:
    """A column spelled like the name looked for ('respnse' for 'response'), when nothing else fits."""
    import difflib  # here: only a column not found looks for a similar name

    lower = {column.lower(): column for column in columns}
    close = lower.get(looked_for.lower()) or next(
        iter(difflib.get_close_matches(looked_for, columns, 1)), None
    )
    return [Guess(close, "similar name")] if close else []


def unmapped_hints(
    resolved: Mapping[str, str], columns: Sequence[str], samples: Mapping[str, Sequence[str]]
) -> list[str]:
    """One line per optional field that no column feeds while exactly one unused column looks like it
    (by name, or failing that by values); nothing when two could be, as neither is then a good guess."""
    used = set(resolved.values())
    free = [column for column in columns if column not in used]
    hints: list[str] = []
    for field in OPTIONAL:
        if field in resolved:
            continue
        guesses = nearest(field, free, samples)
        if len(guesses) == 1:
            guess = guesses[0]
            said = f"'{guess.column}' looks like {_WHAT[field]} (by its {guess.by})"
            hints.append(f"{said}, unused: {flag(field, guess.column)}")
            free.remove(guess.column)
    return hints


# --- the [columns] table of assay.toml ----------------------------------------------------------------


def columns_table(document: Mapping[str, Any], where: str, known: Sequence[str]) -> dict[str, str]:
    """The ``[columns]`` table of a config document: field -> input column name, each key one of
    `known` (ColumnMap's fields) and each value a non-empty string; {} when there is no such table."""
    table = document.get("columns", {})
    if not isinstance(table, dict):
        raise UsageError(
            "'columns' must be a table",
            where=where,
            fix='write [columns] and lines like question = "Question"',
        )
    found: dict[str, str] = {}
    for key, value in table.items():
        if key not in known:
            raise UsageError(
                f"[columns] has an unknown field '{key}'",
                where=where,
                fix=f"use the fields {', '.join(known)}",
            )
        if not isinstance(value, str) or not value:
            raise UsageError(
                f"[columns] {key} must be a column name (a non-empty string), found {value!r}",
                where=where,
                fix=f'write {key} = "Column Name"',
            )
        found[key] = value
    return found
