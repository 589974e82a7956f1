"""The gold linter: problems in golden answers that would make any score of them misleading.

Errors make a row unscorable or its verdicts wrong under every protocol; warnings are worth a look.
Each finding names the row (where it is and its id), what is wrong, and the fix.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import regex

from .errors import InputError
from .metric import AnswerSets, Outcome
from .records import Dataset, Record
from .registry import load_named
from .scorer_registry import SCORERS
from .text import unicode
from .text.pattern_size import shown

ERROR, WARNING = "error", "warning"

# Scripts a word of one language is written in; Han and the kana count as one (Japanese mixes them).
_SCRIPTS = {
    "Latin": r"\p{Latin}",
    "Cyrillic": r"\p{Cyrillic}",
    "Greek": r"\p{Greek}",
    "Arabic": r"\p{Arabic}",
    "Hebrew": r"\p{Hebrew}",
    "Devanagari": r"\p{Devanagari}",
    "Bengali": r"\p{Bengali}",
    "Gurmukhi": r"\p{Gurmukhi}",
    "Gujarati": r"\p{Gujarati}",
    "Oriya": r"\p{Oriya}",
    "Tamil": r"\p{Tamil}",
    "Telugu": r"\p{Telugu}",
    "Kannada": r"\p{Kannada}",
    "Malayalam": r"\p{Malayalam}",
    "Thai": r"\p{Thai}",
    "Hangul": r"\p{Hangul}",
    "Han or kana": r"[\p{Han}\p{Hiragana}\p{Katakana}]",
}
_SCRIPT_PATTERNS = {name: regex.compile(pattern) for name, pattern in _SCRIPTS.items()}
_WORDS = regex.compile(r"\w+")


@dataclass(frozen=True)
class Finding:
    severity: str  # ERROR or WARNING
    check: str  # a short name: empty-golden, whitespace, not-nfc, conflicting-answers, mixed-script, ...
    where: str  # file, line or row, and id
    message: str  # what is wrong, and the fix

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


# Where a gold set keeps each answer's evidence: seed 002's verbatim `source_quote`, SQuAD's `context`.
SOURCE_COLUMNS = ("source_quote", "context")


def lint(dataset: Dataset, regex_column: str = "expected_regex") -> list[Finding]:
    """Every finding, row by row in input order, then those that compare rows."""
    source_column = next((c for c in SOURCE_COLUMNS if c in dataset.columns), None)
    unsupported = _not_in_source(dataset.records, source_column) if source_column else set()
    findings: list[Finding] = []
    for index, record in enumerate(dataset.records):
        where = f"{dataset.source} {dataset.location_kind} {record.row} (id {record.id})"
        pattern = record.gold.expected_regex if record.gold else record.meta.get(regex_column)
        refusal = bool(record.gold and record.gold.expected_refusal)
        problems = [*(_refusal(record) if refusal else _row(record)), *_own_pattern(record, pattern)]
        if index in unsupported:
            problems.append(_unsupported(record, str(source_column)))
        findings += [Finding(severity, check, where, message) for severity, check, message in problems]
    findings += _conflicting_answers(dataset)
    return findings


def _not_in_source(records: Sequence[Record], column: str) -> set[int]:
    """Rows whose quoted source holds none of their golden answers under phrase_match (the answer, put
    as the response's evidence, fails the scorer that will grade responses)."""
    quoted = [(i, r) for i, r in enumerate(records) if isinstance(r.meta.get(column), str) and r.meta[column]]
    sources = [unicode.normalise(str(record.meta[column])) for _, record in quoted]
    answers = AnswerSets.of([tuple(map(unicode.normalise, record.answers)) for _, record in quoted])
    scores = SCORERS["phrase_match"].score_rows(sources, answers)  # type: ignore[misc]  # a row scorer
    return {index for (index, _), outcome in zip(quoted, scores.outcomes) if outcome == Outcome.FAIL}


def _unsupported(record: Record, column: str) -> tuple[str, str, str]:
    return (
        ERROR,
        "golden-not-in-source",
        f"none of the golden answers {list(record.answers)!r} occurs in the row's {column} under "
        "phrase_match, so the gold fact is not backed by its own quote. Fix: quote the passage that "
        "states the answer, or correct the answer",
    )


# hard_fact's own compiling and searching of a pattern (a scorer's code: named, not imported, by the core)
_PATTERN_OF, _SEARCH = "assay.scorers.hard_fact:pattern_of", "assay.scorers.hard_fact:search"


def _own_pattern(record: Record, pattern: object) -> Iterable[tuple[str, str, str]]:
    """A row's hard_fact pattern must compile, and find one of the row's own golden answers."""
    if not isinstance(pattern, str) or not pattern.strip():
        return
    try:
        compiled = load_named(_PATTERN_OF)(pattern, "")
    except InputError as exc:
        yield ERROR, "bad-pattern", f"{exc.what}. Fix: {exc.fix}"
        return
    try:
        search = load_named(_SEARCH)
        found = any(search(compiled, unicode.fold(answer)) for answer in record.answers)
    except TimeoutError:
        slow = f"the expected_regex {shown(pattern)} ran past its time budget on a golden answer"
        yield ERROR, "slow-pattern", f"{slow}. Fix: simplify it (nested or overlapping repeats)"
        return
    if not found:
        yield (
            ERROR,
            "pattern-misses-golden",
            (
                f"the expected_regex {shown(pattern)} finds none of the golden answers "
                f"{list(record.answers)!r}, "
                "so hard_fact would fail even a perfect response. Fix: correct the pattern or the answer"
            ),
        )


def _refusal(record: Record) -> Iterable[tuple[str, str, str]]:
    """A refusal item (the documents cannot answer it) has no answer to find: a source, a value or a
    pattern on it means the item is not the refusal it says it is."""
    gold = record.gold
    assert gold is not None
    held = (("a source", gold.source_document or gold.quote), ("an expected value", gold.value))
    named = [name for name, value in held if value is not None]
    if gold.expected_regex:
        named.append("an expected_regex")
    if named:
        yield (
            ERROR,
            "refusal-with-source",
            f"the item expects a refusal but has {' and '.join(named)}, so a system that answers from the "
            "source would count as wrong. Fix: drop them, or make it an answerable item",
        )


def _row(record: Record) -> Iterable[tuple[str, str, str]]:
    for answer in record.answers:
        shown = repr(answer)
        if not unicode.words(unicode.normalise(answer)):
            yield (
                ERROR,
                "empty-golden",
                (
                    f"golden answer {shown} has no words (empty or punctuation only): every protocol's "
                    "verdict on it is meaningless (the original evaluation scripts score it correct). Fix: "
                    "write the answer, or drop the row"
                ),
            )
            continue
        if answer != answer.strip():
            yield (
                WARNING,
                "whitespace",
                (
                    f"golden answer {shown} has leading or trailing whitespace, which breaks exact_substring "
                    "(a caveat of the original evaluation scripts). Fix: strip it"
                ),
            )
        if not unicodedata.is_normalized("NFC", answer):
            yield (
                WARNING,
                "not-nfc",
                (
                    f"golden answer {shown} is not in Unicode NFC, so it differs from the same word typed "
                    "elsewhere. Fix: normalise the file to NFC, or score with --nfc"
                ),
            )
        for word in _WORDS.findall(answer):
            scripts = [name for name, pattern in _SCRIPT_PATTERNS.items() if pattern.search(word)]
            if len(scripts) > 1:
                yield (
                    WARNING,
                    "mixed-script",
                    (
                        f"golden answer {shown} has the word {word!r} in {' and '.join(scripts)} at once "
                        "(a look-alike letter from another script, or two words run together). Fix: retype it"
                    ),
                )
    if record.question and not unicodedata.is_normalized("NFC", record.question):
        yield WARNING, "not-nfc", "the question is not in Unicode NFC. Fix: normalise the file to NFC"


def _conflicting_answers(dataset: Dataset) -> list[Finding]:
    """The same question (after normalisation) with different golden answers in different rows."""
    first: dict[str, tuple[Record, set[str]]] = {}  # question -> its first row, and that row's goldens
    findings = []
    for record in dataset.records:
        question = unicode.normalise(record.question)
        if not question:
            continue
        key = f"{record.scope}\n{question}"  # one question may ask of several documents (scopes)
        golden = {unicode.normalise(answer) for answer in record.answers}
        earlier, earlier_golden = first.setdefault(key, (record, golden))
        if earlier is not record and golden != earlier_golden:
            # In a gold set the same question with two answers is a contradiction: one of them is wrong.
            severity = ERROR if record.gold is not None and earlier.gold is not None else WARNING
            findings.append(
                Finding(
                    severity,
                    "conflicting-answers",
                    f"{dataset.source} {dataset.location_kind} {record.row} (id {record.id})",
                    f"the question {record.question!r} also stands at {dataset.location_kind} {earlier.row} "
                    f"(id {earlier.id}) with other golden answers (there {list(earlier.answers)!r}, here "
                    f"{list(record.answers)!r}). Fix: give both rows every acceptable answer",
                )
            )
    return findings
