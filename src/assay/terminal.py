"""What assay prints on a terminal: text from the data can show there, but never drive it.

A cell can hold an ANSI escape (``\\x1b[2J`` clears the screen, ``\\x1b]8;;`` makes a link), a carriage
return that overwrites the line before it, or a bidirectional override that shows ``txt.exe`` as
``exe.txt`` (the "Trojan Source" trick, CVE-2021-42574). Every such character is shown as its Python
escape instead (``\\x1b``, ``\\u202e``), so what a user reads is what the file holds. Joiners (ZWJ,
ZWNJ) stay: Indic words need them, and they drive nothing.
"""

from __future__ import annotations

import io
import unicodedata
from typing import TextIO

# Bidirectional embeddings, overrides and isolates, and the marks that can reorder a line.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Characters that end a line without being "\n": each would split one message into two.
_LINE_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def _unsafe(char: str, keep: str) -> bool:
    if char in keep:
        return False
    # Cs: a lone surrogate, which no terminal encoding can write at all.
    return unicodedata.category(char) in ("Cc", "Cs") or char in _BIDI or char in _LINE_BREAKS


def printable(text: str, keep: str = "") -> str:
    """`text` with every control, line-breaking and bidi-control character escaped, but those in `keep`."""
    if text.isprintable() and not any(char in _BIDI for char in text):
        return text  # the common case, at C speed
    return "".join(_escape(char) if _unsafe(char, keep) else char for char in text)


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
