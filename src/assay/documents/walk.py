"""One way to walk a folder that assay reads (a sources folder, a corpus, a folder of facts or of files
cited for URLs), so that no folder can hang, loop or crash a command.

The rules, the same for every command:

- **Links to folders are not followed.** A link inside the folder to a folder is skipped with a reason:
  a link back up (``a -> ..``) would loop, one to elsewhere would read files outside the folder given
  (a source outside its sources folder is never read), and one to a sibling would read it twice. A
  folder met twice all the same (a bind mount) is skipped as a loop, by its (device, inode).
- **A link to a file is read as that file** when it leads to a regular file; with ``inside=True`` only
  when that file is inside the folder (the sources' rule: nothing outside the sources folder is read).
- **Only regular files are returned**, and none through a link into /proc, /sys or /dev, whose files
  look regular and may block or never end (/proc/kmsg). A FIFO, a socket or a device named ``x.txt``
  would block or never end when read: each is skipped with a reason, as is a link that leads nowhere
  (its target gone, or a loop of links), an entry that vanished while the folder was read, a subfolder
  that cannot be listed (permissions), and a name that is not UTF-8 (no report could print it).
- **Bounds.** At most ``MAX_ENTRIES`` entries are looked at and at most ``MAX_DEPTH`` folders deep:
  past either, the walk is an ``InputError`` naming the folder and the bound (a partial corpus would
  give quietly wrong numbers). Hidden entries (``.git``) are left out unless asked for, and are neither
  counted nor walked.

A skipped entry is never an error of the walk: each is kept in ``FolderWalk.skipped`` as (relative path,
reason), for the command to report the way its contract says (a problem listed, a warning, or an exit 2).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, UsageError

MAX_ENTRIES = 200_000  # entries looked at in one walk: a sources folder holds hundreds, a corpus thousands
MAX_DEPTH = 32  # folders below the one given
# The kernel's own files look regular and may never end or block (/proc/kmsg, /dev/zero's cousins in /sys):
# a link into them, in any folder, is not read.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


class FolderWarning(UserWarning):
    """Entries of a folder that a walk skipped (see ``FolderWalk.skipped``), named with their reasons."""


@dataclass(frozen=True)
class WalkedFile:
    """A regular file found by the walk: its path (under the folder given), relative posix path, size
    and modification time (nanoseconds), read by the walk's own stat."""

    path: Path
    relative: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class FolderWalk:
    """What a walk found: the regular files (a folder's files by name, then its subfolders' the same way:
    os.walk's order), and the entries skipped, each with its reason (sorted by path)."""

    root: Path
    files: tuple[WalkedFile, ...]
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def paths(self) -> list[Path]:
        return [found.path for found in self.files]


@dataclass
class _Walker:
    root: Path
    hidden: bool
    inside: bool
    recursive: bool
    max_entries: int
    max_depth: int
    real_root: str = ""
    files: list[WalkedFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    visited: set[tuple[int, int]] = field(default_factory=set)
    entries: int = 0

    def walk(self, folder: Path, relative: str, depth: int) -> None:
        status = os.stat(folder)
        if (status.st_dev, status.st_ino) in self.visited:
            self.skipped.append(
                (relative, "a loop: this folder was already read (a bind mount?); not read again")
            )
            return
        self.visited.add((status.st_dev, status.st_ino))
        try:
            # a folder's files before its subfolders', each by name: the order os.walk gave before
            listed = sorted(self._entries(folder), key=lambda entry: (_is_folder(entry), entry.name))
        except OSError as exc:
            if not relative:
                raise _unlistable(self.root, exc) from None
            self.skipped.append((relative, f"the folder could not be listed ({_why(exc)})"))
            return
        for entry in listed:
            self._entry(entry, f"{relative}/{entry.name}" if relative else entry.name, depth)

    def _entries(self, folder: Path) -> Iterator[os.DirEntry[str]]:
        with os.scandir(folder) as found:
            for entry in found:
                if self.hidden or not entry.name.startswith("."):
                    self._count()
                    yield entry

    def _count(self) -> None:
        self.entries += 1
        if self.entries > self.max_entries:
            raise InputError(
                f"the folder holds more than {self.max_entries:,} entries, more than one walk reads",
                where=str(self.root),
                fix="give a folder of the files to read (not a home folder or a whole disk)",
            )

    def _entry(self, entry: os.DirEntry[str], relative: str, depth: int) -> None:
        if not _utf8(entry.name):
            shown = entry.name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            self.skipped.append((shown, "its name is not UTF-8 text: rename it"))
            return
        try:
            if entry.is_symlink():
                self._link(entry, relative, depth)
            elif entry.is_dir(follow_symlinks=False):
                self._folder(Path(entry.path), relative, depth)
            else:
                self._file(Path(entry.path), relative, entry.stat(follow_symlinks=False))
        except FileNotFoundError:
            self.skipped.append((relative, "it vanished while the folder was read"))
        except OSError as exc:
            self.skipped.append((relative, f"it could not be read ({_why(exc)})"))

    def _folder(self, path: Path, relative: str, depth: int) -> None:
        if not self.recursive:
            return  # a subfolder of a folder read flat is no entry of it
        if depth + 1 > self.max_depth:
            raise InputError(
                f"a folder more than {self.max_depth} levels deep",
                where=str(path),
                fix=f"give a folder whose files are at most {self.max_depth} folders down",
            )
        self.walk(path, relative, depth + 1)

    def _link(self, entry: os.DirEntry[str], relative: str, depth: int) -> None:
        try:
            target = os.stat(entry.path)  # follows the link
        except FileNotFoundError:
            self.skipped.append((relative, "a symbolic link whose target is gone"))
            return
        except OSError as exc:
            loop = exc.errno == errno.ELOOP
            said = "a loop of symbolic links" if loop else f"a symbolic link to no file ({_why(exc)})"
            self.skipped.append((relative, said))
            return
        if stat.S_ISDIR(target.st_mode):
            if self.recursive:
                self.skipped.append(
                    (relative, "a symbolic link to a folder: links to folders are not followed")
                )
            return
        real = os.path.realpath(entry.path)
        if any(_is_inside(real, system) for system in SYSTEM_FOLDERS):  # /proc/kmsg is "regular", and blocks
            self.skipped.append((relative, f"a symbolic link into /{real.split(os.sep)[1]}: not read"))
            return
        if self.inside and not _is_inside(real, self.real_root):
            self.skipped.append((relative, "a symbolic link to a file outside the folder: not read"))
            return
        self._file(Path(entry.path), relative, target)

    def _file(self, path: Path, relative: str, status: os.stat_result) -> None:
        if not stat.S_ISREG(status.st_mode):
            self.skipped.append((relative, f"not a regular file (a {_kind(status.st_mode)}): not read"))
            return
        self.files.append(WalkedFile(path, relative, status.st_size, status.st_mtime_ns))


def walk_folder(
    root: Path,
    *,
    hidden: bool = False,
    inside: bool = True,
    recursive: bool = True,
    max_entries: int | None = None,
    max_depth: int | None = None,
) -> FolderWalk:
    """The regular files under `root` and the entries skipped, by the rules of the module's docstring.
    `root` itself may be a link to a folder (it was given). UsageError when `root` is no folder;
    InputError when it cannot be listed or passes a bound."""
    check_folder(root, "folder")
    entries = MAX_ENTRIES if max_entries is None else max_entries  # read now: a test may lower them
    depth = MAX_DEPTH if max_depth is None else max_depth
    walker = _Walker(root, hidden, inside, recursive, entries, depth, os.path.realpath(root))
    walker.walk(root, "", 0)
    return FolderWalk(root, tuple(walker.files), tuple(sorted(walker.skipped)))


def check_folder(root: Path, what: str) -> None:
    """UsageError naming `root` when it is no folder: missing, a file, or a link that leads nowhere."""
    try:
        status = os.stat(root)
    except FileNotFoundError:
        kind = "is a symbolic link whose target is gone" if os.path.islink(root) else "does not exist"
        raise UsageError(f"the {what} {kind}", where=str(root), fix=f"give the {what}") from None
    except OSError as exc:
        raise UsageError(
            f"the {what} cannot be read ({_why(exc)})", where=str(root), fix=f"give the {what}"
        ) from None
    if not stat.S_ISDIR(status.st_mode):
        raise UsageError(f"the {what} is not a folder", where=str(root), fix=f"give the {what}")


def skipped_summary(walk: FolderWalk, what: str = "folder", shown: int = 3) -> str:
    """One line naming the folder (as `what`) and the entries skipped (the first `shown`, and how many
    more), for a warning."""
    named = "; ".join(f"{path} ({reason})" for path, reason in walk.skipped[:shown])
    more = f"; and {len(walk.skipped) - shown} more" if len(walk.skipped) > shown else ""
    count = len(walk.skipped)
    return f"the {what} {walk.root}: {count} entr{'y' if count == 1 else 'ies'} skipped: {named}{more}"


def refuse_skipped(walk: FolderWalk, suffixes: tuple[str, ...], what: str) -> None:
    """InputError naming the first entry skipped whose name ends with one of `suffixes` (any case): for
    a command whose every such file is an input (a facts folder), a skipped one is no warning."""
    for relative, reason in walk.skipped:
        if relative.casefold().endswith(suffixes):
            raise InputError(
                f"a {what} that cannot be read: {reason}",
                where=str(walk.root / relative),
                fix="mend or remove it (a link must lead to a regular file)",
            )


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.fsdecode's surrogate escapes of bytes that are not UTF-8
        return False
    return True


def _is_inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
    ):
        if test(mode):
            return name
    return "block device" if stat.S_ISBLK(mode) else "special file"


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _unlistable(root: Path, exc: OSError) -> InputError:
    return InputError(
        f"the folder cannot be listed ({_why(exc)})",
        where=str(root),
        fix="check the folder and its permissions",
    )


__all__ = [
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "FolderWalk",
    "FolderWarning",
    "WalkedFile",
    "check_folder",
    "refuse_skipped",
    "skipped_summary",
    "walk_folder",
]
