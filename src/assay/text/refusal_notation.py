"""The notation the refusal lexicon is written in (``text.refusals.PHRASES``, ``text.refusal_roles.ROLES``),
compiled to patterns, and what a match of a phrase is. The lexicon is written as phrases a reviewer can
read and check against replies in each language, not as regular expressions: a phrase is matched as
whole words on text under the ``unicode`` profile (``text.unicode.normalise``: casefolded, NFC,
punctuation to spaces, so ``can't`` is ``can t`` and ``n'est`` is ``n est``; each literal of a phrase is
normalised the same way, so a phrase typed with a nukta or a legacy spelling still matches):

- words separated by spaces must follow one another;
- ``{a|b c|d}`` is one of the alternatives (each a sequence); ``[a b|c]`` the same, or nothing;
- ``…`` is a gap of up to three words (``…1``, ``…2``: up to that many), so "in the … documents" is
  "in the documents", "in the provided documents", "in the given policy documents";
- ``*`` inside a word is any run of letters, for the Dravidian languages, which fuse the negation into
  the verb (Tamil ``குறிப்பிட*வில்லை``: குறிப்பிடவில்லை, குறிப்பிடப்படவில்லை, "is not mentioned");
- ``^`` first: only at the start of the reply ("Unable to find ..." declines; "if you are unable to
  find your policy number, ..." is advice);
- ``!{a|b c}``: not followed by any of the alternatives ("is not mentioned" declines, "is not
  mentioned in the table above" is a policy's own wording);
- ``=>`` (``ROLES`` only): what comes before it is the subject, which must stand right before the
  phrase's own words in the same clause but is not among them ("the brochure => doesn't name" matches
  "doesn't name", the words a trace shows).

A match (``Refusal``) names the phrase as written, so a trace shows the rule that fired, and is placed
back in the original reply (``locate``) where the normalised text can be aligned with it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import regex

from . import align, unicode

GAP = 3  # words a bare "…" may skip
SUBJECT = "=>"  # in a phrase: the subject before it, the phrase's own words after
_TOKEN = regex.compile(r"=>|[{}\[\]|^!]|…\d?|[^\s{}\[\]|…^!]+")


@dataclass(frozen=True)
class Refusal:
    """Where a reply declines: the lexicon's phrase (as written there) and its language, the words it
    matched (normalised), and where: `seen_span` in the normalised text, `span` in the original (None
    when the two cannot be aligned: a trace then shows no span rather than a wrong one)."""

    phrase: str
    lang: str
    matched: str
    seen_span: tuple[int, int]
    span: tuple[int, int] | None = None


_PIECE = functools.lru_cache(1 << 16)(unicode.normalise_keeping_spaces)


def locate(original: str, seen: str, start: int, end: int) -> tuple[int, int] | None:
    """The original's offsets of the normalised text's [start, end) (see ``text.align``)."""
    if end <= start:
        return None
    return align.locate(original, _PIECE, seen, start, end, collapse=True)


def compile_lexicon(
    lexicon: Mapping[str, tuple[str, ...]],
) -> tuple[regex.Pattern[str], dict[str, tuple[str, str]]]:
    """One pattern for every phrase of `lexicon`, a named group each, and each group's (language, phrase)."""
    groups, owners = [], {}
    for lang, phrases in lexicon.items():
        for number, phrase in enumerate(phrases):
            name = f"{lang}_{number}"
            groups.append(f"(?P<{name}>{compile_phrase(phrase)})")
            owners[name] = (lang, phrase)
    return regex.compile("|".join(groups)), owners


def compile_phrase(phrase: str) -> str:
    """A phrase of the notation as a pattern over " " + normalised text: each word with the space before
    it, the whole ending at a word's end. A malformed phrase is a ValueError naming it."""
    tokens = list(_TOKEN.findall(phrase))
    anchored = bool(tokens) and tokens[0] == "^"
    tokens = tokens[1:] if anchored else tokens
    subject = tokens[: tokens.index(SUBJECT)] if SUBJECT in tokens else []
    body = _compiled_sequence(tokens[len(subject) + 1 :] if subject else tokens, phrase)
    if subject:
        # after the phrase's own words, looking back over the subject and them: cheap (tried only where
        # the words matched), and the match (what a trace shows) is the words alone
        body += f"(?<={_compiled_sequence(subject, phrase)}{body})"
    return ("^" if anchored else "") + body + r"(?!\S)"


def _compiled_sequence(tokens: list[str], phrase: str) -> str:
    body, closer = _sequence(iter(tokens), phrase)
    if closer is not None or not body:
        raise ValueError(f"the refusal phrase {phrase!r} is malformed (unbalanced {closer or 'nothing'})")
    return body


def _sequence(tokens: Iterator[str], phrase: str) -> tuple[str, str | None]:
    """The pattern of the items up to a closing token (returned with it; None at the end)."""
    parts: list[str] = []
    for token in tokens:
        if token in ("}", "]", "|"):
            return "".join(parts), token
        if token in ("{", "["):
            options = _alternatives(tokens, phrase, "}" if token == "{" else "]")
            parts.append(options if token == "{" else f"{options}?")
        elif token == "!":
            if next(tokens, None) != "{":
                raise ValueError(f"the refusal phrase {phrase!r} has ! without {{...}} after it")
            parts.append(f"(?!{_alternatives(tokens, phrase, '}')})")
        elif token.startswith("…"):
            parts.append(rf"(?: \S+){{0,{int(token[1:] or GAP)}}}")
        elif token == "^":
            raise ValueError(f"the refusal phrase {phrase!r} has ^ past its start")
        else:
            parts.append(_word(token))
    return "".join(parts), None


def _alternatives(tokens: Iterator[str], phrase: str, closing: str) -> str:
    """``{a|b c}`` (or ``[a|b c]``) after its opening token: a group of the alternatives."""
    options = []
    while True:
        inner, closer = _sequence(tokens, phrase)
        options.append(inner)
        if closer == closing:
            return f"(?:{'|'.join(options)})"
        if closer != "|":
            opening = "{" if closing == "}" else "["
            raise ValueError(f"the refusal phrase {phrase!r} has an unclosed {opening}")


def _word(literal: str) -> str:
    """A literal as the words the unicode profile makes of it (``can't`` is two), each after a space;
    a ``*`` inside is any run of non-space characters within the word."""
    pieces = [unicode.normalise(piece) for piece in literal.split("*")]
    written = r"\S*".join(regex.escape(piece, special_only=True) for piece in pieces)
    return " " + written.replace(r"\ ", " ")


__all__ = ["GAP", "SUBJECT", "Refusal", "compile_lexicon", "compile_phrase", "locate"]
