"""Outputs are written safely (issue 9, item 2): every writer of every command goes through a temporary
file renamed into place, so a crash, a full disk or a second writer never leaves a partial or mixed
file; outputs that would destroy an input or each other, and targets that cannot be written, are
refused before the work; a parallel run leaves no workers and no parts behind, however it ends.

The full disk is a real one: a tmpfs of a few pages, mounted by the test (root only; CI runs as root).
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

import assay.outputs
import assay.parallel as parallel
import assay.report.rows as rows_module
from assay.cli import main
from conftest import skip_or_fail

SRC = Path(assay.outputs.__file__).resolve().parents[1]
OLD = "the old contents, which must survive\n"

INPUT = """\
id,question,answer,Domain,response,human
1,Capital of India?,New Delhi,Geography,The capital is New Delhi.,correct
2,Who painted Guernica?,Pablo Picasso,Art,"Guernica was painted by Picasso, Pablo.",correct
3,Who founded the Maurya Empire?,Chandragupta,History,Chandragupta's empire,incorrect
4,Largest planet?,Jupiter,Science,Saturn,incorrect
5,भारत की राजधानी?,नई दिल्ली,Geography,राजधानी नई दिल्ली है।,correct
"""


# --- the files every command reads --------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    responses: Path
    a: Path  # scored files, for assay compare
    b: Path
    summary: Path  # a --json summary, for assay plot


@pytest.fixture
def inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Inputs:
    folder = tmp_path / "in"
    folder.mkdir()
    responses = folder / "responses.csv"
    responses.write_text(INPUT, encoding="utf-8")
    worse = folder / "worse.csv"
    worse.write_text(INPUT.replace("New Delhi.", "Mumbai."), encoding="utf-8")
    a, b, summary = folder / "a.csv", folder / "b.csv", folder / "summary.json"
    for source, argv in ((worse, ["--out", str(a)]), (responses, ["--out", str(b), "--json", str(summary)])):
        code, _, err = run(["score", "--responses", str(source), *argv], capsys)
        assert code == 0, err
    return Inputs(responses, a, b, summary)


# Every writer of every command: (name, the command line writing `target`, the target's suffix).
Command = Callable[[Inputs, Path], list[str]]


def _score(flag: str) -> Command:
    return lambda i, target: ["score", "--responses", str(i.responses), flag, str(target)]


def _compare(flag: str) -> Command:
    return lambda i, target: ["compare", str(i.a), str(i.b), flag, str(target)]


def _agree(i: Inputs, target: Path) -> list[str]:
    return ["agree", "--responses", str(i.responses), "--human", "human", "--json", str(target)]


def _plot(i: Inputs, target: Path) -> list[str]:
    return ["plot", "--summary", str(i.summary), "--out", str(target)]


WRITERS: dict[str, tuple[Command, str]] = {
    "score --out csv": (_score("--out"), ".csv"),
    "score --out jsonl": (_score("--out"), ".jsonl"),
    "score --out parquet": (_score("--out"), ".parquet"),
    "score --json": (_score("--json"), ".json"),
    "score --markdown": (_score("--markdown"), ".md"),
    "score --html": (_score("--html"), ".html"),
    "score --trace": (_score("--trace"), ".jsonl"),
    "compare --json": (_compare("--json"), ".json"),
    "compare --markdown": (_compare("--markdown"), ".md"),
    "compare --html": (_compare("--html"), ".html"),
    "agree --json": (_agree, ".json"),
    "plot --out svg": (_plot, ".svg"),
    "plot --out png": (_plot, ".png"),
}


def leftovers(folder: Path) -> list[str]:
    """Hidden files and folders an interrupted writer could leave."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def one_error_line(err: str) -> str:
    """The one error line, the last on stderr (warnings about the inputs may come before it)."""
    lines = err.splitlines(keepends=True)
    assert lines and all(line.startswith("assay: warning: ") for line in lines[:-1]), err
    assert lines[-1].startswith("assay: error: ") and lines[-1].endswith("\n"), err
    assert "Traceback" not in err
    return lines[-1]


def main_crashing(argv: list[str]) -> None:
    """The CLI, with a bug injected: it raises (or, where the CLI turns bugs into exit 3, returns 3)."""
    try:
        code = main(argv)
    except RuntimeError as exc:
        assert "injected" in str(exc)
        return
    assert code == 3


# --- a crash while writing ----------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_a_crash_before_the_file_is_complete_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path, inputs: Inputs, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    command, suffix = WRITERS[writer]
    target = tmp_path / f"report{suffix}"
    target.write_text(OLD, encoding="utf-8")
    written: list[int] = []

    def crash(path: Path) -> None:  # the whole output is in the temporary file: crash before the rename
        written.append(path.stat().st_size)
        raise RuntimeError("injected crash")

    monkeypatch.setattr(assay.outputs, "_fsync", crash)
    main_crashing(command(inputs, target))
    assert written and written[0] > 0  # the new output was written (to the temporary file) ...
    assert target.read_text(encoding="utf-8") == OLD  # ... and never reached the target
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("writer", "step"),
    [
        ("score --out csv", "row_trace"),
        ("score --out jsonl", "row_trace"),
        ("score --out parquet", "row_trace"),
        ("score --trace", "row_trace"),
        ("score --html", "row_trace"),
    ],
)
@pytest.mark.parametrize("crash_at_row", [1, 3])
def test_a_crash_in_the_middle_of_the_rows_leaves_the_old_file_and_no_temporary_file(
    tmp_path: Path,
    inputs: Inputs,
    monkeypatch: pytest.MonkeyPatch,
    writer: str,
    step: str,
    crash_at_row: int,
) -> None:
    command, suffix = WRITERS[writer]
    target = tmp_path / f"report{suffix}"
    target.write_text(OLD, encoding="utf-8")
    real, calls = getattr(rows_module, step), [0]
    argv = command(inputs, target) + (["--trace-col"] if writer.startswith("score --out") else [])

    def flaky(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] > crash_at_row:
            raise RuntimeError("injected crash in a row")
        return real(*args)

    monkeypatch.setattr(rows_module, step, flaky)
    main_crashing(argv)
    assert calls[0] == crash_at_row + 1
    assert target.read_text(encoding="utf-8") == OLD
    assert leftovers(tmp_path) == []


def test_an_output_that_did_not_exist_is_not_created_by_a_crash(
    tmp_path: Path, inputs: Inputs, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*_: Any) -> str:
        raise RuntimeError("injected crash")

    monkeypatch.setattr(rows_module, "row_trace", crash)
    main_crashing([*_score("--out")(inputs, tmp_path / "new.csv"), "--trace-col"])
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


# --- outputs that would destroy an input or each other -----------------------------------------------


def _link(kind: str, source: Path, folder: Path) -> Path:
    """`source` itself, or a new symbolic or hard link to it."""
    if kind == "same path":
        return source
    link = folder / f"link-to-{source.name}"
    (link.symlink_to if kind == "symlink" else link.hardlink_to)(source)
    return link


ON_INPUT = [
    ("score", "--out", "responses"),
    ("score", "--json", "responses"),
    ("score", "--html", "responses"),
    ("score", "--markdown", "responses"),
    ("score", "--trace", "responses"),
    ("compare", "--json", "a"),
    ("compare", "--markdown", "b"),
    ("compare", "--html", "b"),
    ("agree", "--json", "responses"),
    ("plot", "--out", "summary"),
]
INPUT_FLAG = {"responses": "--responses", "a": "A", "b": "B", "summary": "--summary"}


def _argv(command: str, i: Inputs, outputs: list[tuple[str, Path]]) -> list[str]:
    head = {
        "score": ["score", "--responses", str(i.responses)],
        "compare": ["compare", str(i.a), str(i.b)],
        "agree": ["agree", "--responses", str(i.responses), "--human", "human"],
        "plot": ["plot", "--summary", str(i.summary)],
    }[command]
    return head + [part for flag, path in outputs for part in (flag, str(path))]


@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize(("command", "flag", "which"), ON_INPUT)
def test_an_output_on_an_input_is_refused_before_the_work(
    tmp_path: Path,
    inputs: Inputs,
    capsys: pytest.CaptureFixture[str],
    command: str,
    flag: str,
    which: str,
    kind: str,
) -> None:
    source: Path = getattr(inputs, which)
    before = source.read_bytes()
    target = _link(kind, source, tmp_path)
    code, stdout, err = run(_argv(command, inputs, [(flag, target)]), capsys)
    assert (code, stdout) == (2, "")  # stdout is empty: refused before any scoring or report
    assert f"{flag} would overwrite the input file given as {INPUT_FLAG[which]}" in one_error_line(err)
    assert f"Fix: give {flag} another file name" in err
    assert source.read_bytes() == before


@pytest.mark.parametrize(
    ("flag", "given_as"), [("--json", "--cache"), ("--markdown", "--config"), ("--out", "--cache")]
)
def test_an_output_on_the_judge_cache_or_config_is_refused(
    tmp_path: Path, inputs: Inputs, capsys: pytest.CaptureFixture[str], flag: str, given_as: str
) -> None:
    precious = tmp_path / "precious.csv"
    precious.write_text(OLD, encoding="utf-8")
    argv = [*_argv("score", inputs, [(flag, precious)]), given_as, str(precious)]
    code, stdout, err = run(argv, capsys)
    assert (code, stdout) == (2, "")
    assert f"{flag} would overwrite the input file given as {given_as}" in one_error_line(err)
    assert precious.read_text(encoding="utf-8") == OLD


@pytest.mark.parametrize(
    ("command", "first", "second", "name"),
    [
        ("score", "--json", "--markdown", "same.json"),
        ("score", "--out", "--trace", "same.jsonl"),
        ("score", "--html", "--markdown", "same.html"),
        ("score", "--out", "--json", "same.csv"),
        ("compare", "--json", "--markdown", "same.md"),
        ("compare", "--markdown", "--html", "same.html"),
        ("agree", "--out", "--json", "same.csv"),
    ],
)
@pytest.mark.parametrize("kind", ["same path", "symlink", "relative path"])
def test_two_outputs_on_one_file_are_refused_before_the_work(
    tmp_path: Path,
    inputs: Inputs,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    first: str,
    second: str,
    name: str,
    kind: str,
) -> None:
    target = tmp_path / name
    other = target
    if kind == "symlink":
        other = tmp_path / f"link-{name}"
        other.symlink_to(target)
    elif kind == "relative path":
        monkeypatch.chdir(tmp_path / "in")
        other = Path("..") / name
    code, stdout, err = run(_argv(command, inputs, [(first, target), (second, other)]), capsys)
    assert (code, stdout) == (2, "")
    one_error_line(err)
    named = [
        f"{x} and {y} name the same file. Fix: give {x} and {y} different file names"
        for x, y in ((first, second), (second, first))
    ]
    assert any(text in err for text in named), err
    assert not target.exists()


# --- targets that cannot be written ------------------------------------------------------------------


def _mount_tmpfs(folder: Path, options: str) -> None:
    if os.geteuid() != 0:
        skip_or_fail("mounting a small file system needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        skip_or_fail(f"cannot mount a tmpfs here ({done.stderr.strip()})")


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mount a tmpfs with the given options on a new folder; unmounted after the test."""
    folders: list[Path] = []

    def mount(options: str) -> Path:
        folder = tmp_path / f"mount{len(folders)}"
        folder.mkdir()
        _mount_tmpfs(folder, options)
        folders.append(folder)
        return folder

    yield mount
    for folder in folders:
        subprocess.run(["umount", "-l", str(folder)], check=True)


UNWRITABLE = {
    "folder missing": (
        lambda tmp, mount: tmp / "no-such-folder" / "x{suffix}",
        "folder to write into does not exist",
    ),
    "a folder": (lambda tmp, mount: tmp, "this is a folder, not a file"),
    "read-only mount": (lambda tmp, mount: mount("ro,size=64k") / "x{suffix}", "Read-only file system"),
    "/proc": (lambda tmp, mount: Path("/proc/x{suffix}"), "cannot create a file in /proc"),
    "/sys": (lambda tmp, mount: Path("/sys/x{suffix}"), "cannot create a file in /sys"),
    "/dev/full": (lambda tmp, mount: Path("/dev/full"), "not a regular file"),
    "/dev/null": (lambda tmp, mount: Path("/dev/null"), "not a regular file"),
}


@pytest.mark.parametrize("case", UNWRITABLE)
@pytest.mark.parametrize(
    ("command", "flag", "suffix"),
    [
        ("score", "--out", ".csv"),
        ("score", "--json", ".json"),
        ("score", "--trace", ".jsonl"),
        ("score", "--html", ".html"),
        ("compare", "--markdown", ".md"),
        ("agree", "--json", ".json"),
        ("plot", "--out", ".svg"),
    ],
)
def test_an_unwritable_target_is_refused_before_the_work(
    tmp_path: Path,
    inputs: Inputs,
    capsys: pytest.CaptureFixture[str],
    mounted: Callable[[str], Path],
    command: str,
    flag: str,
    suffix: str,
    case: str,
) -> None:
    where, message = UNWRITABLE[case]
    target = Path(str(where(tmp_path, mounted)).format(suffix=suffix))
    code, stdout, err = run(_argv(command, inputs, [(flag, target)]), capsys)
    assert (code, stdout) == (2, "")
    assert f"assay: error: {flag} {target}: " in one_error_line(err)
    assert message in err
    assert Path("/dev/full").is_char_device()  # never replaced by a plain file


# --- a full disk --------------------------------------------------------------------------------------


def fill(folder: Path) -> None:
    """Write to `folder` until its file system is full (a real ENOSPC)."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_full_disk_is_one_line_exit_2_and_leaves_the_old_file_and_no_partial_file(
    inputs: Inputs, capsys: pytest.CaptureFixture[str], mounted: Callable[[str], Path], writer: str
) -> None:
    disk = mounted("size=64k")
    command, suffix = WRITERS[writer]
    target = disk / f"report{suffix}"
    target.write_text(OLD, encoding="utf-8")
    fill(disk)
    code, _, err = run(command(inputs, target), capsys)
    assert code == 2
    assert f"{target}: could not write this file (No space left on device)" in one_error_line(err)
    assert "Fix: free some space on that disk, or write the file elsewhere" in err
    assert target.read_text(encoding="utf-8") == OLD
    assert leftovers(disk) == []


@pytest.mark.parametrize("out", ["scored.csv", "scored.jsonl"])
def test_a_full_disk_under_a_parallel_run_removes_its_parts(
    inputs: Inputs,
    capsys: pytest.CaptureFixture[str],
    mounted: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    out: str,
) -> None:
    monkeypatch.setattr(parallel, "MIN_BYTES_PER_WORKER", 1)  # shard even this small file
    disk = mounted("size=64k")
    big = inputs.responses.with_name("big.csv")
    big.write_text(_rows_text(400, "The capital is New Delhi"), encoding="utf-8")
    target = disk / out
    target.write_text(OLD, encoding="utf-8")
    fill(disk)
    code, _, err = run(["score", "--responses", str(big), "--out", str(target), "--workers", "2"], capsys)
    assert code == 2
    assert "could not write this file (No space left on device)" in one_error_line(err)
    assert target.read_text(encoding="utf-8") == OLD
    assert leftovers(disk) == []


def test_an_io_error_while_writing_names_the_file(
    tmp_path: Path, inputs: Inputs, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """EIO and friends: a real one needs a failing disk, so the flush to the disk fails here."""
    target = tmp_path / "summary.json"
    for number, fix in [
        (errno.EIO, "check the disk and the path"),
        (errno.EROFS, "the file system is read-only"),
        (errno.EACCES, "a folder you may write to"),
        (errno.EDQUOT, "free some of your disk quota"),
    ]:

        def fail(_: Path, number: int = number) -> None:
            raise OSError(number, os.strerror(number))

        monkeypatch.setattr(assay.outputs, "_fsync", fail)
        code, _, err = run(_score("--json")(inputs, target), capsys)
        assert code == 2
        assert f"{target}: could not write this file ({os.strerror(number)})" in one_error_line(err)
        assert fix in err
        assert leftovers(tmp_path) == [] and not target.exists()


# --- two writers of one file --------------------------------------------------------------------------

# Each process slows its rows down (each row's traces) so that the writes surely overlap, says it is
# ready, and waits for the signal to start together: with writes in place, the files would interleave.
CONCURRENT = """
import os, sys, time
from pathlib import Path
import assay.report.rows as rows
from assay.cli import main
real = rows.row_trace
def slow(run, index):
    time.sleep(0.002)
    return real(run, index)
rows.row_trace = slow
folder = Path(sys.argv[1])
(folder / f"ready-{os.getpid()}").touch()
while not (folder / "go").exists():
    time.sleep(0.01)
sys.exit(main(sys.argv[2:]))
"""


def _rows_text(count: int, response: str) -> str:
    header = "id,question,answer,Domain,response\n"
    return header + "".join(f"q{i},Question {i}?,New Delhi,Geo,{response} {i}\n" for i in range(count))


@pytest.mark.parametrize(
    ("flag", "name"), [("--out", "same.csv"), ("--out", "same.jsonl"), ("--trace", "same.jsonl")]
)
def test_two_processes_writing_one_file_leave_one_whole_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, name: str
) -> None:
    slowed = ["--trace-col"] if flag == "--out" else []  # the traces, which CONCURRENT slows down
    sources = []
    for label, response in (("a", "The capital is New Delhi"), ("b", "It is Mumbai surely said the model")):
        source = tmp_path / f"{label}.csv"
        source.write_text(_rows_text(300, response), encoding="utf-8")
        sources.append(source)
    expected = set()
    for source in sources:  # each alone, for what a whole file from each looks like
        alone = tmp_path / f"alone-{source.stem}{Path(name).suffix}"
        assert (
            run(
                [
                    "score",
                    "--responses",
                    str(source),
                    flag,
                    str(alone),
                    "--metric",
                    "exact_substring",
                    *slowed,
                ],
                capsys,
            )[0]
            == 0
        )
        expected.add(alone.read_bytes())
    target, signals = tmp_path / name, tmp_path / "signals"
    signals.mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    argvs = [
        ["score", "--responses", str(s), flag, str(target), "--metric", "exact_substring", *slowed]
        for s in sources
    ]
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(signals), *argv],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for argv in argvs * 2
    ]
    _wait_for(lambda: len(list(signals.glob("ready-*"))) == len(processes), 60, "every writer ready")
    (signals / "go").touch()
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    assert target.read_bytes() in expected
    assert leftovers(tmp_path) == []


# --- a parallel run killed --------------------------------------------------------------------------

# A real multi-process run: the file is sharded from 64 KB a worker, so a few thousand rows make two.
PARALLEL = """
import sys
import assay.parallel as parallel
parallel.MIN_BYTES_PER_WORKER = 64 << 10
from assay.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _workers(pid: int) -> list[int] | None:
    found = [child for child in _children(pid) if _alive(child)]
    return found if len(found) >= 2 else None


def _alive(pid: int) -> bool:
    """Running: in /proc and not a zombie (a dead worker whose new parent has not reaped it)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _part_files(folder: Path) -> list[Path]:
    return [f for d in folder.glob(".*.assay-parts-*") for f in d.iterdir()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("moment", ["while scoring", "while writing parts"])
@pytest.mark.parametrize(
    "how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["kill-9", "term", "int"]
)
def test_a_killed_parallel_run_leaves_no_workers_and_no_partial_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: signal.Signals, moment: str
) -> None:
    source = tmp_path / "big.csv"
    source.write_text(_rows_text(6000, "The capital of India is New Delhi of course"), encoding="utf-8")
    out = tmp_path / "scored.csv"
    out.write_text(OLD, encoding="utf-8")
    argv = [
        "score",
        "--responses",
        str(source),
        "--out",
        str(out),
        "--trace",
        str(tmp_path / "t.jsonl"),
        "--workers",
        "2",
    ]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    errors = tmp_path / "stderr.txt"  # a file, not a pipe: a surviving worker would hold a pipe open
    with errors.open("wb") as stderr:
        parent = subprocess.Popen(
            [sys.executable, "-c", PARALLEL, *argv], env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
    workers: list[int] = []
    try:
        workers = _wait_for(lambda: _workers(parent.pid), 30, "two workers")
        if moment == "while writing parts":
            _wait_for(lambda: _part_files(tmp_path), 60, "a worker writing its part")
        assert parent.poll() is None, "the run ended before it could be killed"
        parent.send_signal(how)
        parent.wait(timeout=30)
        _wait_for(lambda: not any(_alive(w) for w in workers), 10, "the workers to die with their parent")
    finally:
        for pid in [parent.pid, *workers]:  # only where the test fails: leave nothing running
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        parent.wait()
    parent_err = errors.read_text(encoding="utf-8")
    errors.unlink()
    assert parent.returncode == {signal.SIGKILL: -9, signal.SIGTERM: 143, signal.SIGINT: 130}[how], parent_err
    assert out.read_text(encoding="utf-8") == OLD, parent_err
    assert not (tmp_path / "t.jsonl").exists()
    if how == signal.SIGKILL:  # only the folders of parts, named for the dead parent
        marks = (f".assay-parts-{parent.pid}-", f".assay-tmp-{parent.pid}-")
        assert all(any(mark in name for mark in marks) for name in leftovers(tmp_path))
    else:  # the parent removed its parts on the way out
        assert leftovers(tmp_path) == [], parent_err
    # What kill -9 leaves (a parts folder named for the dead process) the next writer of the output removes.
    small = tmp_path / "small.csv"
    small.write_text(_rows_text(5, "New Delhi"), encoding="utf-8")
    code, _, err = run(
        ["score", "--responses", str(small), "--out", str(out), "--trace", str(tmp_path / "t.jsonl")], capsys
    )
    assert code == 0, err
    assert leftovers(tmp_path) == []
    assert len(list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))) == 6


def test_a_live_writers_temporary_files_are_not_removed(tmp_path: Path) -> None:
    """Only leftovers of processes that are gone are stale: a running writer's are its own."""
    target = tmp_path / "x.json"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(dead.stdout)
    names = {
        f".x.json.assay-tmp-{dead_pid}-00aa.json": False,
        f".x.json.assay-parts-{dead_pid}-00bb": False,
        f".x.json.assay-tmp-{os.getpid()}-00cc.json": True,  # this process: alive
        ".x.json.assay-tmp-1-00dd.json": True,  # init: alive
        ".x.json.assay-tmp-nopid.json": True,  # not ours to judge
        ".y.json.assay-tmp-12345-00ee.json": True,  # another output's
        "x.json.bak": True,
    }
    for name in names:
        (tmp_path / name).mkdir() if "parts" in name else (tmp_path / name).write_text("")
    assay.outputs.write_text(target, json.dumps({"ok": True}))
    assert {n: (tmp_path / n).exists() for n in names} == names
    assert json.loads(target.read_text()) == {"ok": True}


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644])
def test_a_replaced_file_keeps_its_mode_and_a_link_keeps_pointing_at_it(tmp_path: Path, mode: int) -> None:
    real, link = tmp_path / "real.md", tmp_path / "link.md"
    real.write_text(OLD, encoding="utf-8")
    real.chmod(mode)
    link.symlink_to(real)
    assay.outputs.write_text(link, "new\n")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8") == "new\n"
    assert real.stat().st_mode & 0o777 == mode
    assert leftovers(tmp_path) == []
