"""The one public markup module: small pieces of HTML and of Markdown, each making whatever it is given
inert, shared by every report (assay's own, the harness run's, the sweep's, the URL check's, the gold set's
and the source map's), so that a report outside ``report/`` never reaches for a renderer's private helper.

HTML: every number a reader may want back is written twice: as the text a person reads (rounded, as the text
report prints it) and as ``data-value``, the exact JSON literal, on an element that also names it with
``data-field``. Rows of numbers say what they are with ``data-section``, ``data-metric``, ``data-scope``
(``combined``, ``overall`` or ``domain``) and ``data-domain``. Tests read numbers back from these.

Markdown: text from the data goes in a table cell or a line through ``cell`` (or ``code``), so a `|` or a
line break cannot break a table and no link, image, raw HTML, emphasis or code span can be made from it
(issue 9); ``markdown_table`` lays out a GFM table of such cells.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from typing import Any

import regex

from .._version import __version__
from ..terminal import printable


def attrs(**values: object) -> str:
    """Attributes from keywords (``data_field`` becomes ``data-field``); None leaves one out."""
    return "".join(
        f' {name.rstrip("_").replace("_", "-")}="{escape(str(value))}"'
        for name, value in values.items()
        if value is not None
    )


def element(tag: str, text: str, **values: object) -> str:
    return f"<{tag}{attrs(**values)}>{escape(text)}</{tag}>"


def number_cell(field: str, value: Any, shown: str, tag: str = "td") -> str:
    """A number as people read it, with its exact value for machines (an interval as {"low", "high"})."""
    return f"<{tag}{attrs(data_field=field, data_value=json.dumps(value))}>{escape(shown)}</{tag}>"


def row_attrs(section: str, scope: str, metric: str | None = None, domain: str | None = None) -> str:
    return attrs(data_section=section, data_metric=metric, data_scope=scope, data_domain=domain)


def table(header: Iterable[str], rows: Iterable[str], **values: object) -> str:
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    return f"<table{attrs(**values)}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def template(name: str) -> str:
    """One of the report's template files (``report/templates``: the page, its CSS and its script)."""
    return (resources.files("assay.report") / "templates" / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    """A Content-Security-Policy source allowing exactly this inline script or style."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def static_page(title: str, body: str, styles: Sequence[str]) -> str:
    """A self-contained page with no script at all: the `styles` (template names) inline, allowed by
    hash, and nothing fetched (the sweep's page)."""
    css = "".join(template(name) for name in styles)
    policy = f"default-src 'none'; style-src {csp_hash(css)}"  # no script at all; nothing fetched
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="assay {escape(__version__)}">\n'
        f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def json_script(element_id: str, data: Any) -> str:
    """Data for scripts (and readers), never executed: inside a <script> element nothing is escaped by
    the parser, so the characters that could end it or start markup are written as JSON escapes."""
    text = json_text(data, separators=None)
    return f'<script type="application/json" id="{escape(element_id)}">{text}</script>'


def json_text(data: Any, separators: tuple[str, str] | None = (",", ":")) -> str:
    """JSON with no character that could end an element or start markup (``<``, ``>``, ``&`` as JSON
    escapes): the same text whether an HTML parser reads it as text or a script's content."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=False, separators=separators)
    for char, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escaped)
    # U+2028 and U+2029 end a line in older JavaScript parsers, though JSON allows them raw.
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# The characters that make inline syntax (escapes, code, emphasis, strike-through, links and images,
# GFM tables, GitHub's math). A cell never starts a line, so block syntax (#, -, 1.) cannot begin there.
_MARKUP = regex.compile(r"[\\`*_\[\]!~|$]")
_ESCAPED = regex.compile(r"\\([\\`*_\[\]!~|$])")
_TICKS = regex.compile(r"`+")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# A word that GFM (and most renderers) would link by itself, without any markup. Anchored at the word's
# start: unanchored, a search for a leading `\S*` tries again from every position of a word without a
# match, each try running to its end, so one 40,000-character word took a minute (issue 22).
_AUTOLINKED = regex.compile(r"(?<!\S)\S*(?:://|www\.|@|mailto:|xmpp:)\S*", regex.IGNORECASE)


def cell(value: object) -> str:
    """Text from the data made inert for one table cell or line: runs of space and line breaks folded,
    Markdown's characters escaped, self-linking words shown as code, and controls shown as escapes
    (``\x1b``: `cat results.md` must not let a reply drive the terminal)."""
    text = printable(" ".join(str(value).split()))
    pieces, start = [], 0
    for found in _AUTOLINKED.finditer(text):
        pieces += [_escaped(text[start : found.start()]), _fenced(found.group())]
        start = found.end()
    return "".join([*pieces, _escaped(text[start:])])


def _escaped(text: str) -> str:
    for char, entity in _ENTITIES.items():  # "&" first: the entities' own ampersands stay
        text = text.replace(char, entity)
    escaped: str = _MARKUP.sub(r"\\\g<0>", text)
    return escaped


def plain(markdown: str) -> str:
    """Text `cell` wrote, read back as plain text (for a terminal): its escapes and entities undone."""
    unescaped: str = _ESCAPED.sub(r"\1", markdown)
    return unescaped.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")  # &amp; last


def code(value: object) -> str:
    """Text as inline code, literal in every renderer: fenced by more backticks than any run inside it
    (CommonMark 6.1), padded when it starts or ends with one, and its pipes escaped for a GFM table."""
    return _fenced(printable(" ".join(str(value).split())))


def _fenced(text: str) -> str:
    """Folded, printable text as a code span (``code``)."""
    text = text.replace("|", "\\|")
    longest = max(map(len, _TICKS.findall(text)), default=0) if "`" in text else 0
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or not text.strip() else text
    return f"{fence}{padded}{fence}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows] + [""]
