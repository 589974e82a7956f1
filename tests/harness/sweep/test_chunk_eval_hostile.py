"""A hand-edited chunk_eval questions CSV is refused with exit 2 naming its file and row, never a traceback:
references nested 100,000 deep (a RecursionError, exit 3, before issue 22), offsets that are booleans, past
the corpus's end or thousands of digits long, a key written twice, a cell of megabytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run

from assay.errors import InputError
from assay.harness.sweep import load_chunk_eval
from assay.harness.sweep.chunk_eval import MAX_REFERENCES_CHARS

TEXT = "The grace period is thirty days. Renewal is yearly."


def _reference(start: object, end: object, content: object = "thirty days") -> str:
    return json.dumps([{"content": content, "start_index": start, "end_index": end}])


GOOD = _reference(TEXT.index("thirty"), TEXT.index("thirty") + len("thirty days"))
CASES = {
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "nesting 100000 levels deep"),
    "nested objects": ('{"a":' * 50_000 + "1" + "}" * 50_000, "levels deep"),
    "a boolean offset": (_reference(True, 11, "h"), "True..11 are not whole numbers"),
    "a float offset": (_reference(1.0, 2.0, "h"), "1.0..2.0 are not whole numbers"),
    "negative offsets": (_reference(-5, -1, "x"), "-5..-1 are not whole numbers"),
    "an empty span past the end": (_reference(10**12, 10**12, ""), "beyond the end of 'notes'"),
    "an offset of 4,000 digits": (_reference(0, 10**4000, ""), "0..a 4001-digit number are beyond the end"),
    "a number of 5,000 digits": ("[" + "9" * 5000 + "]", "more than 4300 digits"),
    "a key written twice": ('[{"content": "x", "content": "y"}]', "appears twice"),
    "not a list": ('{"content": "x"}', "not a JSON list"),
    "a string offset": (_reference("0", "5", "The g"), "'0'..'5' are not whole numbers"),
    "a reference that is a list": ("[[1, 2]]", "not an object with content"),
    "NaN": ('[{"content": "x", "start_index": NaN, "end_index": 1}]', "nan..1 are not whole"),
    "a huge cell": ('["' + "x" * (MAX_REFERENCES_CHARS + 1) + '"]', "more than the 1,000,000 read"),
}


def _files(tmp_path: Path, references: str) -> tuple[Path, Path]:
    corpus = tmp_path / "notes.md"
    corpus.write_text(TEXT, encoding="utf-8")
    questions = tmp_path / "q.csv"
    cell = references.replace('"', '""')
    questions.write_text(f'question,references,corpus_id\nOk?,"{GOOD.replace(chr(34), 2 * chr(34))}",notes\n'
                         f'How long?,"{cell}",notes\n', encoding="utf-8")  # fmt: skip
    return corpus, questions


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_references_cell_is_an_input_error_naming_the_row(tmp_path: Path, case: str) -> None:
    references, words = CASES[case]
    corpus, questions = _files(tmp_path, references)
    with pytest.raises(InputError) as raised:
        load_chunk_eval([corpus], questions)
    assert raised.value.where == f"{questions} row 2" and words in raised.value.what, raised.value.message
    assert raised.value.fix


@pytest.mark.parametrize("case", ["nested 100,000 deep", "a boolean offset", "an empty span past the end"])
def test_through_the_command_it_is_exit_2_naming_file_and_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    corpus, questions = _files(tmp_path, CASES[case][0])
    argv = ["sweep", "--corpus", str(corpus), "--questions", str(questions), "--out", str(tmp_path / "out")]
    code, _, err = run(argv, capsys)
    assert code == 2 and f"{questions} row 2: " in err and "internal error" not in err, err


def test_a_corpus_path_that_is_a_folder_is_an_input_error(tmp_path: Path) -> None:
    corpus, questions = _files(tmp_path, GOOD)
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(InputError, match="cannot be read"):
        load_chunk_eval([corpus, folder], questions)
