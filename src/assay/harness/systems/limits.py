"""The bounds on what a system replies: each field, each count, the whole body. A reply past one is the
item's ``system_error`` with a reason naming the field, its size and the limit (``SystemFailure``);
every other item goes on. Each bound is checked before the field is read further (a body is cut as it
streams in, a count is checked before its items are parsed, a text's length before it is cleaned or
searched), so that no reply costs more than its bounds in time or memory.

The limits sit far above any real reply (a RAG answer is a few kilobytes, with tens of citations and
contexts) and low enough that a reply at every limit at once is read, journaled and scored in about a
second. docs/limits.md ("System replies") lists them with the reasons.

A reply past a bound fails whole rather than being cut: scoring the first 1,000 of 200,000 citations
would report a citation precision the system never had, and a cut text is not what it said.
"""

from __future__ import annotations

from ...parts import Citation, Context, Reply

MAX_BODY_BYTES = 5_000_000  # an HTTP reply's body, as read (after any content encoding is undone)
MAX_REPLY_CHARS = 200_000  # the reply's text: far beyond any answer (metrics read it in well under 1 s)
MAX_TOTAL_CHARS = 5_000_000  # every text of one reply together: its text, contexts, quotes, ids
MAX_LABEL_CHARS = 500  # the route, the model: a name, not a log
MAX_CITATIONS = 1_000  # citations of one reply, given or written in its text
MAX_CONTEXTS = 1_000  # retrieved passages of one reply
MAX_CITATION_CHARS = 1_000  # one citation given as a text ("doc, p.3"), before it is parsed
MAX_DOCUMENT_CHARS = 1_000  # a citation's or a context's document (an id, a file name, a title)
MAX_QUOTE_CHARS = 20_000  # the quote a citation carries
MAX_CONTEXT_CHARS = 200_000  # one context's text (a chunk, a page; a whole document is not a context)
MAX_PAGE = 1_000_000  # a page number
MAX_OFFSET = 10**10  # a character offset into a document's extracted text
RAW_LIMIT = 20_000  # characters of a reply kept as its raw text (a trace, cut, not refused: it is not graded)


class OverLimit(ValueError):
    """A field of a reply past its bound; ``answer_from`` makes it the item's SystemFailure."""


def over(what: str, size: int, limit: int, unit: str = "characters") -> OverLimit:
    """The failure of `what` (as a reason names it: "the reply's route") of `size` past `limit`."""
    return OverLimit(f"{what} is {size:,} {unit}, more than the {limit:,} a reply may have")


def check_length(text: str, what: str, limit: int) -> None:
    if len(text) > limit:
        raise over(what, len(text), limit)


def check_count(count: int, what: str, limit: int) -> None:
    """A list's length, checked before any of its items is read."""
    if count > limit:
        raise OverLimit(f"the reply has {count:,} {what}, more than the {limit:,} a reply may have")


class Budget:
    """The characters one reply's texts may hold together (MAX_TOTAL_CHARS), taken field by field as
    they are read, each field first held to its own limit."""

    def __init__(self, limit: int = MAX_TOTAL_CHARS) -> None:
        self.limit, self.taken = limit, 0

    def take(self, text: str, what: str, limit: int) -> None:
        check_length(text, what, limit)
        self.taken += len(text)
        if self.taken > self.limit:
            raise OverLimit(
                f"the reply's texts come to more than the {self.limit:,} characters a reply may hold "
                f"together (at {what})"
            )


def check_reply(reply: Reply) -> None:
    """Every bound of a Reply as a system built it (a Python system may return one): OverLimit past
    one, TypeError naming the field for a part that is not what the Reply's type says."""
    budget = Budget()
    if reply.text is not None:
        budget.take(_text(reply.text, "the Reply's text"), "the reply's text", MAX_REPLY_CHARS)
    for name in ("route", "model"):
        label = getattr(reply, name)
        if label is not None:
            budget.take(_text(label, f"the Reply's {name}"), f"the reply's {name}", MAX_LABEL_CHARS)
    if reply.blocked is not None and not isinstance(reply.blocked, bool):
        raise TypeError(f"the Reply's blocked is a {type(reply.blocked).__name__}, not true or false")
    citations, contexts = _parts(reply.citations, "citations"), _parts(reply.contexts, "contexts")
    check_count(len(citations), "citations", MAX_CITATIONS)
    check_count(len(contexts), "contexts", MAX_CONTEXTS)
    for at, citation in enumerate(citations):
        _check_part(citation, f"citation {at}", budget)
    for at, context in enumerate(contexts):
        _check_part(context, f"context {at}", budget)


def _parts(parts: object, name: str) -> tuple[object, ...]:
    if not isinstance(parts, (tuple, list)):
        raise TypeError(f"the Reply's {name} is a {type(parts).__name__}, not a tuple")
    return tuple(parts)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} is a {type(value).__name__}, not a text")
    return value


def _check_part(part: object, where: str, budget: Budget) -> None:
    """A Citation's or a Context's texts and numbers, each within its bound."""
    kind = Citation if where.startswith("citation") else Context
    if not isinstance(part, kind):
        raise TypeError(f"the Reply's {where} is a {type(part).__name__}, not a {kind.__name__}")
    document = _text(part.document, f"the Reply's {where}'s document")
    budget.take(document, f"the reply's {where}'s document", MAX_DOCUMENT_CHARS)
    name, extra, limit = (
        ("quote", part.quote, MAX_QUOTE_CHARS) if isinstance(part, Citation)
        else ("text", part.text, MAX_CONTEXT_CHARS)
    )  # fmt: skip
    if extra is not None:
        budget.take(_text(extra, f"the Reply's {where}'s {name}"), f"the reply's {where}'s {name}", limit)
    for field, least, most in (("page", 1, MAX_PAGE), ("start", 0, MAX_OFFSET), ("end", 0, MAX_OFFSET)):
        number = getattr(part, field)
        if number is not None and (type(number) is not int or not least <= number <= most):
            raise TypeError(
                f"the Reply's {where}'s {field} is {shown_number(number)}, not a whole number "
                f"from {least} to {most:,}"
            )


def shown_number(value: object) -> str:
    """A number as a reason shows it: never all the digits of a huge one (``repr`` refuses past 4,300)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of {value.bit_length():,} bits"
    return repr(value)[:40] if isinstance(value, (int, float)) else f"a {type(value).__name__}"


def cut_raw(raw: str | None) -> str | None:
    """A reply's raw text as a run row keeps it: at most RAW_LIMIT characters, the cut said."""
    if raw is None or len(raw) <= RAW_LIMIT:
        return raw
    return raw[:RAW_LIMIT] + " [...]"


__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CITATIONS",
    "MAX_CITATION_CHARS",
    "MAX_CONTEXTS",
    "MAX_CONTEXT_CHARS",
    "MAX_DOCUMENT_CHARS",
    "MAX_LABEL_CHARS",
    "MAX_OFFSET",
    "MAX_PAGE",
    "MAX_QUOTE_CHARS",
    "MAX_REPLY_CHARS",
    "MAX_TOTAL_CHARS",
    "RAW_LIMIT",
    "Budget",
    "OverLimit",
    "check_count",
    "check_length",
    "check_reply",
    "cut_raw",
    "over",
    "shown_number",
]
