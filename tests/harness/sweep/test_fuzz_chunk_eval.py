"""Fuzzing the chunk_eval questions CSV: no CSV makes the loader raise anything but an AssayError, and
one that loads keeps every row, each reference inside its corpus and equal to the text at its offsets.

Hypothesis writes CSVs with right and wrong headers (missing, extra, repeated, BOM'd columns), rows short
and long, and references cells that are valid (offsets drawn from the real corpus), subtly wrong (the
content off by one, negative offsets, offsets past the end, booleans, floats, strings, huge numbers),
nested thousands deep, huge, or not JSON at all, with odd Unicode (format characters, lone surrogates,
Devanagari, NUL) in every cell; and a quarter as many CSVs damaged byte by byte. Each is loaded with the
real loader (``load_chunk_eval``) against a small corpus of two files, in process, and must take under a
second.

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 200 locally. The seed is printed;
``ASSAY_FUZZ_SEED=N`` replays a run.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fuzzing import SEED, examples, fuzz_settings, one_example
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from assay.errors import AssayError
from assay.harness.sweep import load_chunk_eval

EXAMPLES = examples()
FUZZ = fuzz_settings(EXAMPLES)
DAMAGED = settings(FUZZ, max_examples=max(EXAMPLES // 4, 50))

CORPORA = {
    "notes": "The grace period is thirty days.\r\nRenewal is yearly; the premium is ₹12,000.\n",
    "other": "प्रतीक्षा अवधि दो वर्ष है। A second line\u200b with a zero-width space.\n",
}
COLUMNS = ["question", "references", "corpus_id", "category", "\ufeffquestion", "Question", "", "extra"]
AWKWARD = [*",\"'\n\r\t ;|\\", "\ufeff", "\u200b", "\u200d", "\xad", "\ud800", "\x00", "\x85", "न", "्", "😀"]
characters = st.sampled_from(AWKWARD + list("ab 19")) | st.characters()
text = st.text(characters, max_size=8)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Path]:
    folder = tmp_path_factory.mktemp("fuzz_chunk_eval")
    paths = []
    for name, body in CORPORA.items():
        path = folder / f"{name}.md"
        path.write_bytes(body.encode("utf-8"))
        paths.append(path)
    return paths, folder / "questions.csv"


# --- references ------------------------------------------------------------------------------------


@st.composite
def true_reference(draw: st.DrawFn, name: str) -> dict[str, Any]:
    body = CORPORA.get(name, CORPORA["notes"])
    start = draw(st.integers(0, len(body)))
    end = draw(st.integers(start, len(body)))
    return {"content": body[start:end], "start_index": start, "end_index": end}


offsets = st.one_of(
    st.integers(-5, 200),
    st.integers(),
    st.sampled_from([10**30, -(10**30), 10**4000, 2**63, True, False, None, 1.5, float("inf"), "3", [1], {}]),
)


@st.composite
def false_reference(draw: st.DrawFn, name: str) -> Any:
    kind = draw(st.sampled_from(["off by one", "offsets", "keys", "type"]))
    if kind == "off by one":
        reference = draw(true_reference(name))
        return reference | {"end_index": reference["end_index"] + draw(st.sampled_from([-1, 1]))}
    if kind == "offsets":
        return {"content": draw(text), "start_index": draw(offsets), "end_index": draw(offsets)}
    if kind == "keys":
        keys = draw(st.lists(st.sampled_from(["content", "start_index", "end_index", "x", ""]), max_size=4))
        return {key: draw(offsets | text) for key in keys}
    return draw(st.sampled_from([None, 1, "x", [], [1, 2], True]))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(text, children, max_size=3),
    max_leaves=8,
)


@st.composite
def references_cell(draw: st.DrawFn, name: str) -> str:
    kind = draw(st.sampled_from(["true", "mixed", "nested", "json", "text", "huge", "empty"]))
    if kind == "true":
        return json.dumps(draw(st.lists(true_reference(name), max_size=3)), ensure_ascii=draw(st.booleans()))
    if kind == "mixed":
        mixed = st.lists(true_reference(name) | false_reference(name), min_size=1, max_size=3)
        return json.dumps(draw(mixed), allow_nan=True)
    if kind == "nested":
        depth = draw(st.sampled_from([2, 50, 1000, 5000, 100_000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return (
            opener * depth
            + draw(st.sampled_from(["1", "[]", ""]))
            + closer * draw(st.sampled_from([depth, 0]))
        )
    if kind == "json":
        return json.dumps(draw(json_values))
    if kind == "huge":
        return "[" + "9" * draw(st.sampled_from([100, 4000, 5000])) + "]"
    if kind == "empty":
        return draw(st.sampled_from(["", "[]", "null", " "]))
    return draw(text)


# --- whole CSVs ------------------------------------------------------------------------------------


@st.composite
def question_rows(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    right = ["question", "references", "corpus_id"]
    header = right if draw(st.booleans()) else draw(st.lists(st.sampled_from(COLUMNS), max_size=5))
    if draw(st.booleans()) and header == right:
        header = [*header, draw(st.sampled_from(COLUMNS))]
    rows = []
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from([*CORPORA, *CORPORA, "missing", "", "notes\u200b", "NOTES"]))
        cells = {"question": draw(text), "references": draw(references_cell(name)), "corpus_id": name}
        row = [cells.get(column.lstrip("\ufeff"), draw(text)) for column in header]
        cut = draw(st.sampled_from([len(row), len(row), max(len(row) - 1, 0), len(row) + 1]))
        rows.append([*row, draw(text)][:cut])
    return header, rows


def _csv(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _load(paths: list[Path], questions: Path) -> Any:
    """The loader's result, or None when it refused the input; any other exception fails the example.
    Its cost is held to the fuzzers' PER_EXAMPLE_UNITS of CPU (``fuzzing.one_example``)."""
    with one_example("one CSV"):
        try:
            return load_chunk_eval(paths, questions)
        except AssayError as exc:
            assert exc.message.strip()
            return None


def _check_loaded(loaded: Any, rows: int) -> None:
    assert len(loaded.questions) == rows  # every row is a question, none lost
    texts = {document.name: document.text for document in loaded.documents}
    for question in loaded.questions:
        for span in question.spans:
            assert 0 <= span.start <= span.end <= len(texts[span.document])


@seed(SEED)
@FUZZ
@given(question_rows())
def test_any_questions_csv_loads_or_is_an_assay_error(
    corpus: tuple[list[Path], Path], drawn: tuple[list[str], list[list[str]]]
) -> None:
    paths, questions = corpus
    header, rows = drawn
    try:
        questions.write_text(_csv(header, rows), encoding="utf-8", errors="surrogatepass")
    except UnicodeEncodeError:
        return
    loaded = _load(paths, questions)
    if loaded is not None:
        _check_loaded(loaded, len(rows))


@seed(SEED)
@DAMAGED
@given(question_rows(), st.lists(st.tuples(st.integers(0, 10_000), st.binary(max_size=3)), max_size=4))
def test_a_damaged_questions_csv_loads_or_is_an_assay_error(
    corpus: tuple[list[Path], Path], drawn: tuple[list[str], list[list[str]]], damage: list[tuple[int, bytes]]
) -> None:
    paths, questions = corpus
    data = bytearray(_csv(*drawn).encode("utf-8", "surrogatepass"))
    for at, junk in damage:
        spot = at % (len(data) + 1)
        data[spot : spot + len(junk)] = junk
    questions.write_bytes(bytes(data))
    _load(paths, questions)
