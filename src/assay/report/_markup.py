"""Small pieces of HTML shared by the report's sections, each escaping whatever it is given.

Every number a reader may want back is written twice: as the text a person reads (rounded, as the text
report prints it) and as ``data-value``, the exact JSON literal, on an element that also names it with
``data-field``. Rows of numbers say what they are with ``data-section``, ``data-metric``, ``data-scope``
(``combined``, ``overall`` or ``domain``) and ``data-domain``. Tests read numbers back from these.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
from typing import Any


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
