"""Reading a file for URLs a line at a time: decoded as UTF-8 line by line, so an undecodable byte is
named by its line; a JSONL line over MAX_RECORD_BYTES refused, a text line over PIECE_BYTES given in pieces
cut after a space (no URL split); UTF-16 and UTF-32 named by their byte-order marks, NUL bytes refused."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ...errors import InputError

MAX_RECORD_BYTES = 16 << 20  # one JSONL line is parsed whole
PIECE_BYTES = 1 << 20  # a text line longer than this is scanned in pieces


def unreadable(shown: str, exc: OSError) -> InputError:
    return InputError(
        f"cannot read it ({exc.strerror or exc})", where=shown, fix="check the path and its permissions"
    )


def lines_of(path: Path, shown: str, *, whole_lines: bool) -> Iterator[tuple[int, str]]:
    """The file's lines (1-based numbers), decoded as UTF-8 a line at a time, so an undecodable byte is
    named by its line. A JSONL line (`whole_lines`) over MAX_RECORD_BYTES is an error; a text line over
    PIECE_BYTES comes in pieces, each cut after a space so no URL is split."""
    try:
        with path.open("rb") as stream:
            refuse_utf16_and_utf32(stream.peek(4)[:4], shown)
            yield from _decoded_lines(stream, shown, whole_lines)
    except OSError as exc:
        raise unreadable(shown, exc) from None


# The byte-order marks of the Unicode encodings that are not UTF-8, longest first (UTF-32 LE's starts
# with UTF-16 LE's): a file saved so (Windows' "Unicode") would otherwise be "byte 0xff cannot be decoded".
_OTHER_UNICODE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def refuse_utf16_and_utf32(head: bytes, shown: str) -> None:
    for bom, encoding in _OTHER_UNICODE_BOMS:
        if head.startswith(bom):
            raise InputError(
                f"{encoding} text (its byte-order mark says so); URLs are read from UTF-8 files",
                where=shown,
                fix=f"save the file as UTF-8 (iconv -f {encoding} -t UTF-8), or leave it out",
            )


def _decoded_lines(stream: BinaryIO, shown: str, whole_lines: bool) -> Iterator[tuple[int, str]]:
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    limit = MAX_RECORD_BYTES + 1 if whole_lines else PIECE_BYTES
    number, carry = 1, ""
    while piece := stream.readline(limit):
        ends = piece.endswith(b"\n")
        text = carry + _decoded(decoder, piece, ends, f"{shown}:{number}")
        if ends or len(piece) < limit:
            yield number, text
            number, carry = number + 1, ""
        elif whole_lines:
            raise InputError(
                f"the line is longer than {MAX_RECORD_BYTES:,} bytes",
                where=f"{shown}:{number}",
                fix="split the record, or give the file as a text corpus (.txt) to have its URLs scanned",
            )
        else:  # a piece of a long line: scan up to its last space, keep the rest for the next piece
            cut = max(text.rfind(" "), text.rfind("\t")) + 1
            if cut > 0 and len(text) - cut < PIECE_BYTES:
                yield number, text[:cut]
                carry = text[cut:]
            else:
                yield number, text
                carry = ""
    last = number if carry else max(number - 1, 1)
    _decoded(decoder, b"", True, f"{shown}:{last}")  # a file cut inside a character
    if carry:
        yield number, carry


def _decoded(decoder: codecs.IncrementalDecoder, piece: bytes, final: bool, where: str) -> str:
    """`piece` decoded; a NUL byte is refused too: it is valid UTF-8, but UTF-16 text without its
    byte-order mark ("h\0t\0t\0p\0") or a binary file would otherwise be read as text holding no URL."""
    if b"\0" in piece:
        raise InputError(
            "a NUL byte: not UTF-8 text (UTF-16 without its byte-order mark, or a binary file)",
            where=where,
            fix="save the file as UTF-8, or leave it out",
        )
    try:
        return decoder.decode(piece, final=final)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.object[exc.start : exc.start + 1]!r} cannot be decoded)",
            where=where,
            fix="save the file as UTF-8, or leave it out",
        ) from None
