"""The ``grounded`` metric's checks: whether a reply is grounded in the documents it cites
(``check``, with every figure of the reply in ``figures`` and what a row gathers in ``row``), what a
citation names (``citations``), what a reply's contexts point to in the documents (``retrieved``: never
their own text), what a reply's text is read for (``text``), which words of a page a value belongs to
(``page_values``), the documents of a run (``run_sources``), and the quote cascade that finds a quote in
a document's pages (``quotes``, with ``folding`` and ``curation``).
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
from .page_values import values_on_page
from .run_sources import load_run_sources, sources_signature
from .text import (
    QUOTED_MIN_CHARS,
    Stated,
    quote_on_page,
    quoted_spans,
    stated_figures,
    stated_numbers,
    states,
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
