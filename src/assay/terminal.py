"""What assay prints on a terminal: text from the data can show there, but never drive it.

A cell can hold an ANSI escape (``\\x1b[2J`` clears the screen, ``\\x1b]8;;`` makes a link), a carriage
return that overwrites the line before it, or a bidirectional override that shows ``txt.exe`` as
``exe.txt`` (the "Trojan Source" trick, CVE-2021-42574). Every such character is shown as its Python
escape instead (``\\x1b``, ``\\u202e``), so what a user reads is what the file holds. Joiners (ZWJ,
ZWNJ) stay: Indic words need them, and they drive nothing.
"""

from __future__ import annotations

import functools
import io
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import regex

# What could drive a terminal: controls (Cc, the C1 CSI and NEL among them), lone surrogates (Cs, which
# no terminal encoding can write), line and paragraph separators (each would split one message into
# two), and the bidirectional marks, embeddings, overrides and isolates that can reorder a line.
_UNSAFE = r"[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"


@functools.cache
def _unsafe(keep: str) -> regex.Pattern[str]:
    import regex  # here: `assay --help` prints before anything is escaped, and needs no regex

    return regex.compile(f"(?![{regex.escape(keep)}]){_UNSAFE}" if keep else _UNSAFE)


def _escaped(found: regex.Match[str]) -> str:
    return str(found[0]).encode("unicode_escape").decode("ascii")


def printable(text: str, keep: str = "") -> str:
    """`text` with every control, line-breaking and bidi-control character escaped, but those in `keep`."""
    return str(_unsafe(keep).sub(_escaped, text))


def one_line(text: str) -> str:
    """A message for one line of the terminal: a newline from the data shows as ``\\n``."""
    return printable(text)


class EscapingStream(io.TextIOBase):
    """A text stream that escapes what could drive a terminal, keeping the report's own line breaks and
    tabs. The CLI writes its reports through it; a progress line, which rewrites itself with a carriage
    return on purpose, writes to the stream beneath."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text, keep="\n\t"))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()
