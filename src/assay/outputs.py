"""Writing output files safely: every writer in assay goes through here.

An output is written to a hidden temporary file beside its target, flushed to the disk, and only then
renamed over the target (``os.replace``, atomic on one file system). So a crash, a full disk or a
second writer never leaves a partial or mixed file: the old target stays whole until the new one is
complete, and of two processes writing one path the last rename wins, whole.

Before any work the command line checks every output of a command together (``check_outputs``): none
may be an input or another output (after resolving links), and each must be a file that can be
created in a folder that takes files. A write that fails anyway (a full disk, an I/O error) is an
``OutputError`` naming the file, one line, exit 2, and the temporary file is removed.

A temporary file carries its writer's process id, so a later writer of the same target removes one
left by a process that was killed (``remove_stale``).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from .errors import OutputError, UsageError

# What a failed write can be fixed with, by its errno; anything else: OTHER_FIX.
FIXES = {
    errno.ENOSPC: "free some space on that disk, or write the file elsewhere",
    errno.EDQUOT: "free some of your disk quota, or write the file elsewhere",
    errno.EROFS: "the file system is read-only: write the file elsewhere",
    errno.EACCES: "write the file in a folder you may write to",
    errno.EPERM: "write the file in a folder you may write to",
    errno.ENAMETOOLONG: "give a shorter file name (assay writes a hidden temporary file beside it, "
    "whose name is the file's and some 35 characters more)",
}
OTHER_FIX = "check the disk and the path, or write the file elsewhere"
TEMP_MARK = ".assay-tmp-"  # in every temporary name: .<target name>.assay-tmp-<pid>-<random><suffix>


def temp_name(target: Path, kind: str = TEMP_MARK) -> Path:
    """A hidden name beside `target`, unique to this process and call; it keeps the target's suffix,
    for writers that choose a format by the name (matplotlib)."""
    return target.with_name(f".{target.name}{kind}{os.getpid()}-{os.urandom(4).hex()}{target.suffix}")


def write_failed(path: Path, exc: OSError) -> OutputError:
    """An OSError while writing `path`, as one line with its cause and a fix."""
    # The system's words for the cause, without the file name (the temporary one) or a library's prose.
    cause = os.strerror(exc.errno) if exc.errno else exc.strerror or str(exc) or type(exc).__name__
    fix = FIXES.get(exc.errno or 0, OTHER_FIX)
    return OutputError(f"could not write this file ({cause})", where=str(path), fix=fix)


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path` to write the whole output to; when the block ends without
    an error, the file is flushed to the disk and renamed over `path`. On any error it is removed and
    `path` is left as it was; an OSError becomes an OutputError naming `path`.

    A link is written through: the file it points to is replaced, the link stays."""
    target = Path(os.path.realpath(path))
    _refuse_special(target)
    remove_stale(target)
    temp = temp_name(target)
    try:
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask's mode, not 0600
        _keep_mode(target, temp)
        yield temp
        _fsync(temp)
        os.replace(temp, target)
        _fsync_folder(target.parent)
    except OSError as exc:
        raise write_failed(target, exc) from None
    finally:
        with suppress(OSError):  # gone already when renamed (or never made: a name too long)
            temp.unlink()


def json_document(data: Any) -> str:
    """A JSON file's text as assay writes every one: indented, non-ASCII text as it is, a final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def write_text(path: str | Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path` through a temporary file; return `path`."""
    with replacing(path) as temp:
        temp.write_text(text, encoding="utf-8")
    return Path(path)


def _keep_mode(target: Path, temp: Path) -> None:
    """A file the user made private (0600) stays private when it is replaced."""
    if target.exists():
        os.chmod(temp, stat.S_IMODE(target.stat().st_mode))


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable; some file systems cannot sync a folder, which costs only that."""
    with suppress(OSError):
        _fsync(folder)


def _refuse_special(target: Path) -> None:
    """Renaming over a device or a pipe would replace it with a plain file, which is never meant."""
    if target.exists() and not target.is_file():
        kind = "a folder" if target.is_dir() else "not a regular file (a device, pipe or socket)"
        raise OutputError(f"cannot write output over {kind}", where=str(target), fix="give a file name")


def remove_stale(target: Path) -> None:
    """Remove what a killed writer of `target` left beside it: temporary files and part folders whose
    process is no longer running. A live process's files, and every other file, are left alone."""
    try:
        found = list(target.parent.glob(f".{_glob_escape(target.name)}.assay-*"))
    except OSError:
        return
    for leftover in found:
        pid = _writer_pid(leftover.name, target.name)
        if pid is None or _running(pid):
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            import shutil  # here: only a dead writer's leftover folder needs it

            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _writer_pid(leftover: str, target: str) -> int | None:
    """The process id in a leftover's name (`.<target>.assay-<kind>-<pid>-...`), or None."""
    rest = leftover[len(target) + 1 :].split("-")
    if len(rest) < 3 or not rest[0].startswith(".assay") or not rest[2].isdigit():
        return None
    return int(rest[2])


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: running
    return True


# --- the checks before any work --------------------------------------------------------------------


def check_outputs(outputs: Mapping[str, str | Path | None], inputs: Mapping[str, str | Path | None]) -> None:
    """Refuse, before any work, outputs that would destroy an input or each other, or cannot be
    written. Both maps go from a flag (``--out``) to its path; None is a flag not given."""
    given_inputs = {flag: Path(path) for flag, path in inputs.items() if path}
    for flag, path in outputs.items():
        if path is not None and not str(path):  # `--json ""`: an unset variable in a script
            raise UsageError(
                "an empty file name", where=flag, fix=f"give {flag} a file name, or leave it out"
            )
    given = {flag: check_writable(path, flag) for flag, path in outputs.items() if path}
    seen: dict[str, Path] = {}
    for flag, path in given.items():
        for input_flag, source in given_inputs.items():
            if _same_file(path, source):
                raise UsageError(
                    f"{flag} would overwrite the input file given as {input_flag}",
                    where=f"{flag} {path}",
                    fix=f"give {flag} another file name",
                )
        for other_flag, other in seen.items():
            if _same_file(path, other):
                raise UsageError(
                    f"{flag} and {other_flag} name the same file",
                    where=f"{flag} {path}",
                    fix=f"give {flag} and {other_flag} different file names",
                )
        seen[flag] = path


def _same_file(a: Path, b: Path) -> bool:
    """One file by any name: the same path after resolving links, or the same inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):  # resolve() raises on a link loop, realpath does not
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return False


def check_writable(path: str | Path, flag: str = "") -> Path:
    """A path an output can be written to: in a folder that exists and takes new files, and not a
    folder, device or pipe itself. `flag` names the option in the message."""
    path = Path(path)
    where = f"{flag} {path}" if flag else str(path)
    try:
        target = _checked_target(path, where)
    except OSError as exc:  # a name too long for the file system (ENAMETOOLONG), a link loop, ...
        raise UsageError(
            f"cannot write here ({exc.strerror or type(exc).__name__})",
            where=where,
            fix="give a shorter name, in an ordinary folder you may write to",
        ) from None
    _probe(target, where)
    return path


def _checked_target(path: Path, where: str) -> Path:
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # realpath leaves a link only where links lead round in a loop
        raise UsageError(
            "this is a link that leads back to itself (a loop)",
            where=where,
            fix="remove the link, or give another name",
        )
    if not target.parent.is_dir():
        raise UsageError("the folder to write into does not exist", where=where, fix="create it first")
    if target.is_dir():
        raise UsageError("this is a folder, not a file", where=where, fix="give a file name")
    if target.exists() and not target.is_file():
        raise UsageError(
            "this is not a regular file (a device, pipe or socket), which assay does not write over",
            where=where,
            fix="give a file name in an ordinary folder",
        )
    return target


def _probe(target: Path, where: str) -> None:
    """Create and remove a file beside `target`: the one sure test that its folder takes files
    (permission bits say nothing to root, nor about a read-only mount or /proc). The probe's name is
    as long as the temporary file's will be, so a name the file system finds too long fails here,
    before the work, not when the output is written."""
    folder = target.parent
    probe = temp_name(target, ".assay-probe-")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        probe.unlink()
    except OSError as exc:
        cause = exc.strerror or type(exc).__name__
        raise UsageError(
            f"cannot create a file in {folder} ({cause})",
            where=where,
            fix=FIXES.get(exc.errno or 0, "write the file in an ordinary folder you may write to"),
        ) from None
