"""The one folder walk (assay.documents.walk) under hostile folders: links that loop (a -> ., a/b -> ..,
two folders linking to each other, two links to each other), links whose target is gone or lies outside
the folder, a FIFO named like a document, a name that is not UTF-8, and folders past the bounds. Each is
skipped with its reason (or, past a bound, an InputError naming the folder), never followed, never
opened; and through every command that walks a folder (gold build, sources map, run, lint, sweep, urls
check) it is exit 0/1 with the path named, never exit 3 or a hang.

The faults are ones root cannot bypass (the tests run as root, where chmod 000 stops no read): a loop of
links is ELOOP for everyone, a FIFO blocks any reader, a link's missing target is missing for root too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_run import run
from test_gold_build import write_corpus

from assay.documents import walk as walk_module
from assay.documents.walk import FolderWarning, walk_folder
from assay.errors import InputError, UsageError

TEMPLATES = '[fields.grace_period]\nquestions = ["What is the grace period of {title}?"]\n'
TEMPLATES += 'answer_type = "number_unit"\nunit = "day"\n'
SYSTEM = "def answer(question, scope=None):\n    return {'text': 'The grace period is 30 days.'}\n"


def _self_link(folder: Path) -> str:
    (folder / "here").symlink_to(".")
    return "here"


def _up_link(folder: Path) -> str:
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to("..")
    return "sub/up"


def _crossed_folders(folder: Path) -> str:
    for name, other in (("left", "right"), ("right", "left")):
        (folder / name).mkdir()
        (folder / name / f"to-{other}").symlink_to(f"../{other}")
    return "left/to-right"


def _crossed_files(folder: Path) -> str:
    (folder / "a.pdf").symlink_to("b.txt")
    (folder / "b.txt").symlink_to("a.pdf")
    return "a.pdf"


def _self_file(folder: Path) -> str:
    (folder / "loop.txt").symlink_to("loop.txt")
    return "loop.txt"


def _gone(folder: Path) -> str:
    (folder / "gone.md").symlink_to(folder / "deleted.md")
    return "gone.md"


def _fifo(folder: Path) -> str:
    os.mkfifo(folder / "pipe.txt")  # read, it would block for ever
    return "pipe.txt"


def _outside(folder: Path) -> str:
    outside = folder.parent / "outside.txt"
    outside.write_text("The grace period is 30 days.\n", encoding="utf-8")
    (folder / "outside.txt").symlink_to(outside)
    return "outside.txt"


def _not_utf8(folder: Path) -> str:
    os.close(os.open(os.fsencode(folder) + b"/bad\xff.txt", os.O_CREAT | os.O_WRONLY))
    return "bad\\xff.txt"


def _kernel_file(folder: Path) -> str:
    (folder / "kmsg.md").symlink_to("/proc/kmsg")  # "regular", and a read blocks until the kernel logs
    return "kmsg.md"


FAULTS: dict[str, Callable[[Path], str]] = {
    "a -> .": _self_link,
    "a/b -> ..": _up_link,
    "two folders linking to each other": _crossed_folders,
    "two links to each other": _crossed_files,
    "a link to itself": _self_file,
    "a link whose target is gone": _gone,
    "a FIFO": _fifo,
    "a link to a file outside": _outside,
    "a name that is not UTF-8": _not_utf8,
    "a link into /proc": _kernel_file,
}
REASONS = {
    "a -> .": "a symbolic link to a folder: links to folders are not followed",
    "a/b -> ..": "a symbolic link to a folder: links to folders are not followed",
    "two folders linking to each other": "a symbolic link to a folder: links to folders are not followed",
    "two links to each other": "a loop of symbolic links",
    "a link to itself": "a loop of symbolic links",
    "a link whose target is gone": "a symbolic link whose target is gone",
    "a FIFO": "not a regular file (a FIFO): not read",
    "a link to a file outside": "a symbolic link to a file outside the folder: not read",
    "a name that is not UTF-8": "its name is not UTF-8 text: rename it",
    "a link into /proc": "a symbolic link into /proc: not read",
}


# --- the walk itself -------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_fault_is_skipped_with_its_reason(tmp_path: Path, fault: str) -> None:
    folder = tmp_path / "folder"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "page.md").write_text("text", encoding="utf-8")
    name = FAULTS[fault](folder)
    walked = walk_folder(folder)
    assert (name, REASONS[fault]) in walked.skipped
    assert [found.relative for found in walked.files] == ["deep/page.md"]


def test_a_link_to_a_file_inside_is_read_and_one_outside_only_when_asked(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "real.txt").write_text("x", encoding="utf-8")
    (folder / "alias.txt").symlink_to("real.txt")
    _outside(folder)
    assert [found.relative for found in walk_folder(folder).files] == ["alias.txt", "real.txt"]
    anywhere = walk_folder(folder, inside=False)
    assert [found.relative for found in anywhere.files] == ["alias.txt", "outside.txt", "real.txt"]


def test_hidden_entries_are_left_out_unless_asked_and_a_flat_walk_reads_no_subfolder(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("x", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "y.md").write_text("y", encoding="utf-8")
    (tmp_path / "z.md").write_text("z", encoding="utf-8")
    assert [found.relative for found in walk_folder(tmp_path).files] == ["z.md", "sub/y.md"]
    assert [found.relative for found in walk_folder(tmp_path, hidden=True).files] == [
        "z.md",
        ".git/x.md",
        "sub/y.md",
    ]
    assert [found.relative for found in walk_folder(tmp_path, recursive=False).files] == ["z.md"]


@pytest.mark.parametrize(
    ("bound", "make", "words"),
    [
        ("MAX_ENTRIES", lambda root: [(root / f"{n}.md").touch() for n in range(6)], "more than 5 entries"),
        ("MAX_DEPTH", lambda root: root.joinpath(*"abcdef").mkdir(parents=True), "5 levels"),
    ],
)
def test_a_folder_past_a_bound_is_an_input_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: str, make: Callable[[Path], object], words: str
) -> None:
    monkeypatch.setattr(walk_module, bound, 5)
    make(tmp_path)
    with pytest.raises(InputError) as raised:
        walk_folder(tmp_path)
    assert words in raised.value.what and str(tmp_path) in raised.value.where and raised.value.fix


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda root: root, "does not exist"),
        (lambda root: (root.mkdir(), root.rmdir(), root.symlink_to(root))[-1], "cannot be read"),
        (lambda root: root.write_text("x", encoding="utf-8"), "is not a folder"),
    ],
)
def test_a_root_that_is_no_folder_is_a_usage_error(
    tmp_path: Path, make: Callable[[Path], object], words: str
) -> None:
    root = tmp_path / "root"
    make(root)
    with pytest.raises(UsageError, match=words):
        walk_folder(root)


# --- every command that walks a folder -------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A gold set built from a clean corpus, and a system file answering every question."""
    root = tmp_path_factory.mktemp("built")
    facts, sources = write_corpus(root)
    templates = root / "templates.toml"
    templates.write_text(TEMPLATES, encoding="utf-8")
    gold = root / "gold.jsonl"
    from assay.cli import main

    command = ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
    assert main([*command, "--templates", str(templates), "--out", str(gold)]) == 0
    system = root / "system.py"
    system.write_text(SYSTEM, encoding="utf-8")
    return gold, system


def _commands(root: Path, built: tuple[Path, Path]) -> dict[str, list[str]]:
    gold, system = built
    facts, sources = root / "facts", str(root / "sources")
    templates = root / "templates.toml"
    templates.write_text(TEMPLATES, encoding="utf-8")
    build = ["--facts", str(facts), "--sources", sources, "--no-cache"]
    asked = ["--gold", str(gold), "--system", f"{system}:answer", "--sources", sources]
    swept = ["--corpus", sources, "--questions", str(gold), "--sizes", "200", "--overlaps", "0"]
    return {
        "gold build": ["gold", "build", *build, "--templates", str(templates), "--out", str(root / "g")],
        "sources map": ["sources", "map", *build],
        "lint": ["lint", str(gold), "--sources", sources, "--no-cache"],
        "run": ["run", *asked, "--out", str(root / "run")],
        "sweep": ["sweep", *swept, "--no-cache", "--out", str(root / "sweep")],
    }


COMMANDS = ("gold build", "sources map", "lint", "run", "sweep")


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("command", COMMANDS)
def test_a_hostile_sources_folder_is_named_never_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], built: tuple[Path, Path], command: str, fault: str
) -> None:
    write_corpus(tmp_path)
    name = FAULTS[fault](tmp_path / "sources")
    argv = _commands(tmp_path, built)[command]
    code, _, err = run(argv, capsys)
    assert code in (0, 1), err  # never 2 for a folder that merely holds a bad entry, never 3
    assert f"warning: the sources folder {tmp_path / 'sources'}: " in err, err
    assert f"{name} ({REASONS[fault]})" in err, err


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_hostile_chunk_eval_corpus_folder_is_named_never_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = "The grace period is thirty days. " * 20
    (corpus / "notes.md").write_text(text, encoding="utf-8")
    name = FAULTS[fault](corpus)
    start = text.index("thirty days")
    reference = {"content": "thirty days", "start_index": start, "end_index": start + len("thirty days")}
    questions = tmp_path / "q.csv"
    row = json.dumps([reference]).replace('"', '""')
    questions.write_text(f'question,references,corpus_id\nHow long?,"{row}",notes\n', encoding="utf-8")
    argv = ["sweep", "--corpus", str(corpus), "--questions", str(questions), "--out", str(tmp_path / "out")]
    code, _, err = run([*argv, "--sizes", "100", "--overlaps", "0"], capsys)
    assert code == 0, err
    if fault != "a link to a file outside":  # a corpus file may be a link to anywhere: it is read
        assert f"{name} ({REASONS[fault]})" in err


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_hostile_folder_of_urls_is_named_never_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "page.md").write_text("nothing cited\n", encoding="utf-8")
    name = FAULTS[fault](folder)
    code, _, err = run(["urls", "check", str(folder)], capsys)
    assert code == 0, err
    if fault in ("two links to each other", "a link to itself", "a link whose target is gone"):
        assert "to no file: not read" in err
    elif fault in ("a FIFO", "a name that is not UTF-8", "a link into /proc"):
        assert f"{name} ({REASONS[fault]})" in err


def _json_loop(facts: Path) -> str:
    (facts / "loop.json").symlink_to("loop.json")
    return "loop.json"


def _json_fifo(facts: Path) -> str:
    os.mkfifo(facts / "pipe.json")
    return "pipe.json"


def _json_gone(facts: Path) -> str:
    (facts / "gone.json").symlink_to(facts / "deleted.json")
    return "gone.json"


@pytest.mark.parametrize("make", [_json_loop, _json_fifo, _json_gone])
def test_a_facts_file_that_cannot_be_read_is_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], str]
) -> None:
    facts, sources = write_corpus(tmp_path)
    name = make(facts)
    code, _, err = run(["sources", "map", "--facts", str(facts), "--sources", str(sources)], capsys)
    assert code == 2 and f"{facts / name}: a facts file that cannot be read" in err, err


def test_the_sources_loader_warns_once_naming_the_skipped_entries(tmp_path: Path) -> None:
    from assay.documents import load_sources

    (tmp_path / "a.txt").write_text("text", encoding="utf-8")
    _self_file(tmp_path)
    with pytest.warns(FolderWarning, match="loop.txt \\(a loop of symbolic links\\)"):
        sources = load_sources(tmp_path, cache_dir=None)
    assert list(sources) == ["a"] and sources.problems == (("loop.txt", "a loop of symbolic links"),)
