"""Chunkers: a document's text cut into overlapping windows, each chunk kept as (document, start, end)
so that every metric reads characters, never chunk ids.

``char_chunks`` is a window of ``size`` characters stepping by ``size - overlap``, its boundaries moved
to the nearest whitespace so that a chunk neither starts nor ends inside a word. ``token_chunks`` is a
window of ``size`` word tokens stepping by ``size - overlap`` tokens, its offsets in characters. Both
cover the whole text, never make an empty chunk, and are pure functions of their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from ...errors import UsageError
from .spans import SpanDocument

WHITESPACE = regex.compile(r"\s")
WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")


@dataclass(frozen=True)
class Chunk:
    """A chunk: the characters [start, end) of one document's text."""

    document: str
    start: int
    end: int


def check_window(size: int, overlap: int, unit: str) -> None:
    if size < 1:
        raise UsageError(f"chunk size {size} {unit} is too small", fix="give a size of at least 1")
    if not 0 <= overlap < size:
        raise UsageError(
            f"overlap {overlap} {unit} does not fit chunk size {size}",
            fix="give an overlap of at least 0 and smaller than the size",
        )


def snapped(text: str, position: int, reach: int) -> int:
    """``position`` moved to the nearest whitespace boundary within ``reach`` characters either way (the
    earlier one on a tie); unmoved when there is none, or at either end of the text."""
    if position <= 0 or position >= len(text):
        return max(0, min(position, len(text)))
    for distance in range(reach + 1):
        for candidate in (position - distance, position + distance):
            if 0 < candidate < len(text) and is_boundary(text, candidate):
                return candidate
    return position


def is_boundary(text: str, position: int) -> bool:
    """Whether a cut before ``position`` falls between a space and a non-space (never inside a word)."""
    return text[position - 1].isspace() != text[position].isspace()


def char_chunks(doc: SpanDocument, size: int, overlap: int) -> list[Chunk]:
    """Windows of ``size`` characters stepping by ``size - overlap``, boundaries snapped to whitespace."""
    check_window(size, overlap, "characters")
    text = doc.text
    reach = max(1, (size - overlap) // 4)  # never so far that a snap could swallow the step
    chunks: list[Chunk] = []
    start = 0
    while start < len(text):
        end = len(text) if start + size >= len(text) else snapped(text, start + size, reach)
        if end <= start:
            end = min(len(text), start + size)
        chunks.append(Chunk(doc.name, start, end))
        if end >= len(text):
            break
        following = snapped(text, start + size - overlap, reach)
        start = following if start < following < end else start + size - overlap
    return chunks


def token_chunks(doc: SpanDocument, size: int, overlap: int) -> list[Chunk]:
    """Windows of ``size`` word tokens stepping by ``size - overlap`` tokens; a chunk runs from its first
    token's start to the start of the token after its last (the first chunk from 0, the last to the
    text's end), so the chunks cover every character and punctuation stays with the word before it."""
    check_window(size, overlap, "tokens")
    text = doc.text
    spans = [match.span() for match in WORD.finditer(text)]
    if not spans:
        return [Chunk(doc.name, 0, len(text))] if text else []
    step = size - overlap
    chunks: list[Chunk] = []
    for first in range(0, len(spans), step):
        last = min(first + size, len(spans)) - 1
        start = 0 if first == 0 else spans[first][0]
        end = len(text) if last == len(spans) - 1 else spans[last + 1][0]
        chunks.append(Chunk(doc.name, start, end))
        if last == len(spans) - 1:
            break
    return chunks
