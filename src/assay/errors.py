"""Errors that assay raises on purpose.

Every message says what was wrong, where (file, line, row id) and how to fix it, on one line,
so the CLI can print it as it is and exit 2 without a traceback.
"""

from __future__ import annotations

# The command line's exit codes: done; findings (lint errors, a failed gate); bad input or usage; a bug
# in assay itself. CI tells a failed bar (1) from a run that could not be made (2, 3) by them.
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class AssayError(Exception):
    """Base class: a problem the user can fix, described in one line."""

    def __init__(self, what: str, *, where: str = "", fix: str = "") -> None:
        self.what = what
        self.where = where
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.where}: {self.what}" if self.where else self.what
        return f"{text}. Fix: {self.fix}" if self.fix else text


class InputError(AssayError):
    """The input data is unreadable or malformed: encoding, shape, columns, cells, ids."""


class UsageError(AssayError):
    """The call itself is wrong: an unknown metric, an unsupported file type, a bad option value."""


class OutputError(AssayError):
    """An output could not be written: a full disk, an I/O error, a file system that refuses files."""
