"""The chunking_evaluation data set as a SpanSet: its corpus files (one document each, named by the file's
stem, which is the questions' ``corpus_id``) and its ``questions_df.csv`` (columns ``question``,
``references``: a JSON list of ``{content, start_index, end_index}``, and ``corpus_id``).

Corpora are read as UTF-8 without newline translation (``newline=""``): the offsets count the file's own
characters, and a file with CRLF line ends read the default way would shift every offset after the first
line. Every reference is checked: its ``content`` must be ``text[start_index:end_index]``, or the load
fails naming the row. The data set has no categories, so a question's category is None (or the cell of
an optional ``category`` column, for a CSV of one's own in the same shape) and its rollup group is its
corpus. A question's id is its row number (the first question is ``q1``).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...cells import ValueProblem, parse_json
from ...errors import InputError
from .spans import GoldSpan, SpanDocument, SpanQuestion, SpanSet

COLUMNS = ("question", "references", "corpus_id")
MISMATCHES_SHOWN = 5
MAX_REFERENCES_CHARS = 1_000_000  # one row's references: excerpts with offsets (the shared set's are ~2 KB)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError("no such corpus file", where=str(path), fix="give an existing corpus file") from None
    except UnicodeDecodeError as error:
        raise InputError(
            f"not UTF-8 at byte {error.start}", where=str(path), fix="save the corpus as UTF-8"
        ) from None
    except OSError as error:  # a folder, no permission: the file named, not a traceback
        raise InputError(
            f"cannot be read ({error.strerror or error})", where=str(path), fix="give a readable corpus file"
        ) from None


def load_documents(corpus_paths: Sequence[Path]) -> tuple[SpanDocument, ...]:
    documents: dict[str, SpanDocument] = {}
    for path in corpus_paths:
        if path.stem in documents:
            raise InputError(
                f"two corpus files named {path.stem!r}",
                where=str(path),
                fix="give each corpus its own file name",
            )
        documents[path.stem] = SpanDocument(name=path.stem, corpus=path.stem, text=read_text(path))
    return tuple(documents.values())


def read_rows(questions: Path) -> list[dict[str, str]]:
    reader: Any = None
    try:
        with open(questions, encoding="utf-8-sig", newline="") as handle:  # Excel writes a BOM
            reader = csv.DictReader(handle)
            missing = [column for column in COLUMNS if column not in (reader.fieldnames or ())]
            if missing:
                raise InputError(
                    f"missing column(s) {', '.join(missing)}",
                    where=str(questions),
                    fix=f"give a CSV with the columns {', '.join(COLUMNS)}",
                )
            return list(reader)
    except FileNotFoundError:
        raise InputError("no such questions file", where=str(questions), fix="give an existing CSV") from None
    except UnicodeDecodeError as error:
        raise InputError(
            f"not UTF-8 at byte {error.start}", where=str(questions), fix="save the CSV as UTF-8"
        ) from None
    except csv.Error as error:  # a cell past the csv module's field limit, where no module raised it
        line = f":{reader.line_num}" if reader is not None and reader.line_num else ""
        raise InputError(
            f"not a CSV the reader can take ({error})",
            where=f"{questions}{line}",
            fix=f"save it as a CSV of the columns {', '.join(COLUMNS)}, each cell under "
            f"{MAX_REFERENCES_CHARS:,} characters",
        ) from None
    except OSError as error:
        raise InputError(
            f"cannot be read ({error.strerror or error})", where=str(questions), fix="give a readable CSV"
        ) from None


def reference_span(reference: Any, corpus: str, where: str) -> tuple[GoldSpan, str]:
    """One reference as a span and its claimed content; a malformed one is an InputError."""
    if not isinstance(reference, dict) or not {"content", "start_index", "end_index"} <= reference.keys():
        raise InputError(
            "a reference is not an object with content, start_index and end_index",
            where=where,
            fix='write references as [{"content": ..., "start_index": N, "end_index": M}]',
        )
    start, end, content = reference["start_index"], reference["end_index"], reference["content"]
    # true is an int to Python, and no offset; a number is shown cut, as a 4,000-digit one may be written
    well_typed = _offset(start) and _offset(end) and isinstance(content, str)
    if not well_typed or not 0 <= start <= end:
        raise InputError(
            f"reference offsets {_shown(start)}..{_shown(end)} are not whole numbers with 0 <= start <= end",
            where=where,
            fix="give start_index and end_index as character offsets, start first",
        )
    return GoldSpan(document=corpus, start=start, end=end), content


def _offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = (
        repr(value)
        if not isinstance(value, int) or abs(value) < 10**30
        else f"a {len(str(value))}-digit number"
    )
    return text if len(text) <= 40 else text[:40] + "..."


def parse_references(cell: str, where: str) -> Any:
    """A references cell as JSON (assay's one parser: nesting past its depth, a key written twice, a
    number past the digit limit are errors naming the row, never a RecursionError)."""
    try:
        return parse_json(cell)
    except json.JSONDecodeError as error:
        raise InputError(
            f"references are not JSON ({error.msg})", where=where, fix="write references as a JSON list"
        ) from None
    except ValueProblem as problem:
        raise InputError(f"references: {problem.what}", where=where, fix=problem.fix) from None


def row_question(
    row: dict[str, str], number: int, texts: dict[str, str], where: str
) -> tuple[SpanQuestion, list[str]]:
    """The question of one CSV row and the references whose content is not the text at their offsets."""
    corpus = row.get("corpus_id") or ""
    if corpus not in texts:
        raise InputError(
            f"corpus_id {corpus!r} is none of the corpus files ({', '.join(sorted(texts)) or 'none given'})",
            where=where,
            fix="give the corpus file named <corpus_id>.md (or .txt) with --corpus",
        )
    cell = row.get("references") or ""
    if len(cell) > MAX_REFERENCES_CHARS:
        raise InputError(
            f"the references cell is {len(cell):,} characters, more than the {MAX_REFERENCES_CHARS:,} read",
            where=where,
            fix="give each reference's excerpt and offsets, not whole documents",
        )
    references = parse_references(cell, where)
    if not isinstance(references, list):
        raise InputError("references are not a JSON list", where=where, fix="write references as a JSON list")
    spans: list[GoldSpan] = []
    mismatches: list[str] = []
    for reference in references:
        span, content = reference_span(reference, corpus, where)
        if span.end > len(texts[corpus]):
            raise InputError(
                f"reference offsets {_shown(span.start)}..{_shown(span.end)} are beyond the end of "
                f"{corpus!r} ({len(texts[corpus]):,} characters)",
                where=where,
                fix="give the corpus file the questions were written on, or correct the offsets",
            )
        if texts[corpus][span.start : span.end] != content:
            mismatches.append(f"{where} ({span.start}..{span.end})")
        spans.append(span)
    question = SpanQuestion(
        id=f"q{number}",
        question=row.get("question") or "",
        corpus=corpus,
        category=row.get("category") or None,
        spans=tuple(spans),
    )
    return question, mismatches


def load_chunk_eval(corpus_paths: Sequence[Path], questions: Path) -> SpanSet:
    """The corpora and questions as a SpanSet, every reference checked against its corpus's text."""
    documents = load_documents(corpus_paths)
    texts = {document.name: document.text for document in documents}
    found: list[SpanQuestion] = []
    mismatches: list[str] = []
    for number, row in enumerate(read_rows(questions), start=1):
        where = f"{questions} row {number}"  # data rows, the header not counted
        question, wrong = row_question(row, number, texts, where)
        found.append(question)
        mismatches.extend(wrong)
    if not found:
        raise InputError(
            "no question rows under the header: a sweep has nothing to measure",
            where=str(questions),
            fix="give a questions CSV with a row per question",
        )
    if mismatches:
        shown = "; ".join(mismatches[:MISMATCHES_SHOWN])
        more = f" and {len(mismatches) - MISMATCHES_SHOWN} more" if len(mismatches) > MISMATCHES_SHOWN else ""
        raise InputError(
            f"{len(mismatches)} reference(s) whose content is not the corpus text at their offsets: "
            f"{shown}{more}",
            fix="give the corpus files the questions were written on, unchanged (same bytes, same line ends)",
        )
    hashes = {path.stem: sha256_of(path) for path in corpus_paths}
    hashes[questions.name] = sha256_of(questions)
    return SpanSet(documents=documents, questions=tuple(found), sha256=hashes)
