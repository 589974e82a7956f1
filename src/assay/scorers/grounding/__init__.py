"""The ``grounded`` metric's checks: whether a reply is grounded in the documents it cites
(``check``), what a citation names (``citations``), what a reply's text is read for (``text``), and the
quote cascade that finds a quote in a document's pages (``quotes``, with ``folding`` and ``curation``).
"""

from __future__ import annotations

from .check import Grounding, ground
from .citations import (
    Item,
    Library,
    LooseName,
    Printed,
    Resolution,
    insurer_of,
    loose_name,
    name_key,
    names_checked,
    printed_names,
    resolve,
)
from .text import (
    QUOTED_MIN_CHARS,
    Stated,
    load_run_sources,
    quote_on_page,
    quoted_spans,
    sources_signature,
    stated_figures,
    stated_numbers,
    states,
    values_on_page,
)

__all__ = [
    "QUOTED_MIN_CHARS",
    "Grounding",
    "Item",
    "Library",
    "LooseName",
    "Printed",
    "Resolution",
    "Stated",
    "ground",
    "insurer_of",
    "load_run_sources",
    "loose_name",
    "name_key",
    "names_checked",
    "printed_names",
    "quote_on_page",
    "quoted_spans",
    "resolve",
    "sources_signature",
    "stated_figures",
    "stated_numbers",
    "states",
    "values_on_page",
]
