"""``grounded``: the reply is grounded in the source documents it cites, checked deterministically.

Every citation resolves to exactly one document the item's scope allows (by id, path or normalised
title, never by substring: a citation naming only the insurer passes for none of its policies), a cited
page holds the supporting text, every quoted span is found in a cited document (the quote cascade, with
its level), and every number with its unit occurs as number and unit in the cited or retrieved text.
``scorers.grounding.check`` states each rule. A reply that cites nothing fails ("cites nothing"); a refusal
item and a blank reply are unscored ("nothing to ground"). The documents come from
``ScoreOptions.sources`` (``--sources DIR``), whose documents' hashes are in the signature. The extra
text column ``grounded_problems`` says why a row failed; its trace lists every problem and what was checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..values.types import VALUES_VERSION
from ._base import PASS, UNSCORED, MetricScores, Scorer, SeenRows, Span

if TYPE_CHECKING:
    from ..documents import Sources
    from .grounding import Grounding, Library

NAME = "grounded"
PROBLEMS_COLUMN = "grounded_problems"
INPUTS = (
    "sources",
    "scope?",
    "reply.citations?",
    "reply.contexts?",
    "gold.source_document?",
    "gold.source_title?",
    "gold.quote?",
    "gold.page?",
    "gold.expected_refusal?",
)
# The rules' version: a change to what a citation may name, what supports a page or how a number is
# found bumps it (the value reader's own version is in the signature too).
# 2: a path or URL names the document its trailing parts name; 3: "30 (thirty) days"; 4: a span the
# reply quotes supports the cited page it is on
VERSION = 4
# The quote cascade's fuzzy threshold (``grounding.quotes.FUZZY_THRESHOLD``, which a test holds equal):
# written here because reading it would load rapidfuzz with every scorer.
QUOTES_SIGNATURE = "quotes:fuzzy90"


def _library(sources: Sources, cache: dict[int, Library]) -> Library:
    from .grounding import Library

    key = id(sources)
    if key not in cache:
        cache[key] = Library(sources)
    return cache[key]


def _other_titles(documents: Sequence[Any], titles: Sequence[Any]) -> dict[str, str]:
    """Each source document's title as the rows scored together give it (the first, when several)."""
    found: dict[str, str] = {}
    for document, title in zip(documents, titles):
        if isinstance(document, str) and isinstance(title, str) and document and title:
            found.setdefault(document, title)
    return found


def _groundings(responses: Sequence[str], inputs: Sequence[Sequence[Any]]) -> list[Grounding]:
    """Each row's Grounding; `inputs` are the scorer's INPUTS, a sequence each, in order."""
    from .grounding import Item, ground

    sources, scopes, citations, contexts, documents, titles, quotes, pages, refusals = inputs
    others = _other_titles(documents, titles)
    libraries: dict[int, Library] = {}  # one per Sources (every row of a run reads the same)
    found = []
    for row, text in enumerate(responses):
        item = Item(
            scope=scopes[row] or "",
            source_document=documents[row],
            source_title=titles[row],
            quote=quotes[row],
            page=pages[row],
            expected_refusal=refusals[row],
        )
        library = _library(sources[row], libraries)
        found.append(ground(text, citations[row] or (), contexts[row] or (), item, library, others))
    return found


def _grounded(
    responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *inputs: Sequence[Any]
) -> MetricScores:
    scores = MetricScores.all_failing(NAME, len(responses))
    problems: list[str | None] = []
    for row, grounding in enumerate(_groundings(responses, inputs)):
        if grounding.unscored is not None:
            scores.outcomes[row], scores.reasons[row] = UNSCORED, grounding.unscored
        elif grounding.passed:
            scores.outcomes[row] = PASS
        problems.append("; ".join(grounding.problems) or None)
    scores.texts = {PROBLEMS_COLUMN: problems}
    return scores


def _explain_rows(seen: SeenRows) -> tuple[list[str], list[Span | None]]:
    inputs = [[row.get(name) for row in seen.inputs] for name in INPUTS]
    rules = [grounding.rule() for grounding in _groundings(seen.responses, inputs)]
    return rules, [None] * len(rules)


def _blank_decided() -> Mapping[str, Any]:
    """A blank reply is unscored here ("nothing to ground"), not failed: said once the core can hear it
    (``Scorer.decides_blank``); before, the core fails blank replies under every metric."""
    fields = {spec.name for spec in dataclasses.fields(Scorer)}
    return {"decides_blank": True} if "decides_blank" in fields else {}


GROUNDED = Scorer(
    name=NAME,
    description="every citation resolves to one document the item's scope allows, cited pages hold the "
    "supporting text, quoted spans are in the cited documents, and every number with its unit is in "
    "the cited or retrieved text",
    view=str,  # quotes and numbers are read from the reply as written
    score_rows=_grounded,
    extra_columns=(),
    version=VERSION,
    signature_parts=(f"values:{VALUES_VERSION}", QUOTES_SIGNATURE),
    inputs=INPUTS,
    explain_rows=_explain_rows,
    # Not by default: it needs the documents (--sources); assay run asks for it.
    default=False,
    **_blank_decided(),
)

__all__ = ["GROUNDED", "PROBLEMS_COLUMN"]
