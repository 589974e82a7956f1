"""``grounded``: the reply is grounded in the source documents it cites, checked deterministically.

Every citation resolves to exactly one document the item's scope allows (by id, path or normalised
title, never by substring: a citation naming only the insurer passes for none of its policies), a cited
page supports the answer (it states the asked value for the asked field, ``gold.field`` and the question,
wherever the page is; else it holds a quote), every quoted span is found in a cited document (the quote
cascade, with its level), and every figure of the reply (bare counts too) occurs in the cited or
retrieved text: always the documents' text as assay extracted it (a context is read as the page it names
and the span where its text is, never as its own text; a quote as the document's words where it was
found).
``scorers.grounding.check`` states each rule. A reply that cites nothing fails ("cites nothing"); a refusal
item and a blank reply are unscored ("nothing to ground"). The documents come from
``ScoreOptions.sources`` (``--sources DIR``), whose documents' hashes are in the signature. The extra
text column ``grounded_problems`` says why a row failed, ``grounded_contradicts`` which figures a cited page
states otherwise (``assay run`` grades those ``wrong_cited``); its trace lists every problem and what was
checked.

Without sources the metric runs in a reduced mode (``WITHOUT_DOCUMENTS``, "sources:none" in its signature):
each citation must name the item's document by what the gold set records of it (``source.document``,
the file name of ``source.path``, ``source.title``, as ``grounding.citations`` reads names) and be in the
item's scope; pages, quotes and numbers are not checked, contexts are not read, and each trace says so.
A reply citing another document is not grounded in either mode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..values.types import VALUES_VERSION
from ._base import PASS, UNSCORED, ExplainRows, MetricScores, Scorer, SeenRows, Span

if TYPE_CHECKING:
    from ..documents import Sources
    from ..values.types import Value
    from .grounding import Grounding, Library

NAME = "grounded"
PROBLEMS_COLUMN = "grounded_problems"
CONTRADICTS_COLUMN = "grounded_contradicts"  # figures a cited page states otherwise: wrong_cited in assay run
INPUTS = (
    "sources?",  # without them, the reduced mode
    "gold.source_path?",
    "scope?",
    "reply.citations",  # a plain file of responses has none: grounded is not for it
    "reply.contexts?",
    "gold.source_document?",
    "gold.source_title?",
    "gold.quote?",
    "gold.page?",
    "gold.expected_refusal?",
    # what is asked: a cited page supports the answer when it states this value for this field
    "gold.field?",
    "question",
    "gold.value?",
    "gold.unit?",
    "gold.value_type?",
)
# The rules' version: a change to what a citation may name, what supports a page or how a number is
# found bumps it (the value reader's own version is in the signature too).
# 2: a path or URL names the document its trailing parts name; 3: "30 (thirty) days"; 4: a span the
# reply quotes supports the cited page it is on; 5: a cited page supports a typed answer when it states
# the value for the asked field (the value's label on the page names it), not any number of the reply;
# a yes/no answer when a clause names the field; every figure of the reply, bare counts too ("9,500
# network hospitals"), must be in the cited text, and one a cited page states otherwise is named in
# grounded_contradicts; 6: printed titles, titles with and without the kind word, and the reduced mode
# without sources; 7: a context's own text and a reply's own quote ground no figure (the documents' text
# where they point does), and a fuzzy quote never differs in a number written in words (issue 22)
VERSION = 7
# What the metric checks in each mode, as a run's results say it.
WITH_DOCUMENTS = (
    "citations resolved to the sources' documents (id, file name, printed title, title, with and without "
    "the kind word) within the item's scope; cited pages, quotes and numbers checked against the "
    "documents' text (--sources)"
)
WITHOUT_DOCUMENTS = (
    "citations resolved against the gold set's document names (id, file name, title) within the item's "
    "scope; pages, quotes and numbers not checked (no --sources)"
)


def checks_ran(with_documents: bool) -> str:
    """The grounding checks a run made, in words: with the documents or without (the reduced mode)."""
    return WITH_DOCUMENTS if with_documents else WITHOUT_DOCUMENTS


# The quote cascade's fuzzy threshold (``grounding.quotes.FUZZY_THRESHOLD``, which a test holds equal):
# written here because reading it would load rapidfuzz with every scorer.
QUOTES_SIGNATURE = "quotes:fuzzy90"


def _library(sources: Sources | None, cache: dict[int, Library]) -> Library:
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


def _asked_value(raw: Any, unit: Any, value_type: Any, answers: Sequence[str]) -> Value | None:
    """The row's expected value as value_match types it (its gold value, else a golden answer that is
    one value), or None."""
    from .value_match import expected_of

    return expected_of(raw, unit, value_type, answers).value


def _groundings(
    responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], inputs: Sequence[Sequence[Any]]
) -> list[Grounding]:
    """Each row's Grounding; `inputs` are the scorer's INPUTS, a sequence each, in order."""
    from .grounding import Item, ground

    sources, paths, scopes, citations, contexts, documents, titles, quotes, pages, refusals = inputs[:10]
    fields, questions, values, units, value_types = inputs[10:15]
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
            source_path=paths[row],
            field=fields[row] if isinstance(fields[row], str) else None,
            question=questions[row],
            value=_asked_value(values[row], units[row], value_types[row], answer_sets[row]),
        )
        library = _library(sources[row], libraries)
        if library.reads_text:
            found.append(ground(text, citations[row] or (), contexts[row] or (), item, library, others))
        else:
            found.append(_ground_names(text, citations[row] or (), item, library, others))
    return found


def _ground_names(
    text: str, citations: Sequence[Any], item: Any, library: Library, others: Mapping[str, str]
) -> Grounding:
    """The reduced mode: the citations' names against what the gold set records (no documents to read)."""
    from .grounding import Grounding, names_checked

    if item.expected_refusal:
        return Grounding(unscored="a refusal item: nothing to ground")
    if not text.strip():
        return Grounding(unscored="a blank reply: nothing to ground")
    if not item.allowed():
        return Grounding(unscored="nothing to check against: the item names no document, and no --sources")
    if not citations:
        return Grounding(problems=("cites nothing",))
    problems, checked = names_checked((c.document for c in citations), library, item, others)
    not_checked = "pages, quotes and numbers not checked (no --sources)"
    return Grounding(tuple(dict.fromkeys(problems)), (*dict.fromkeys(checked), not_checked))


def _grounded(
    responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *inputs: Sequence[Any]
) -> MetricScores:
    return _scored(_groundings(responses, answer_sets, inputs), len(responses))


def _decide_rows(
    responses: Sequence[str], answer_sets: Sequence[tuple[str, ...]], *inputs: Sequence[Any]
) -> tuple[MetricScores, ExplainRows]:
    """The verdicts, and the rules of the groundings that decided them: each reply grounded once."""
    groundings = _groundings(responses, answer_sets, inputs)

    def explain_rows(rows: SeenRows) -> tuple[list[str], list[Span | None]]:
        rules = [groundings[at].rule() for at in rows.positions]
        return rules, [None] * len(rules)

    return _scored(groundings, len(responses)), explain_rows


def _scored(groundings: Sequence[Grounding], rows: int) -> MetricScores:
    """The verdicts of a batch's groundings, with their problems and contradictions as text columns."""
    scores = MetricScores.all_failing(NAME, rows)
    problems: list[str | None] = []
    contradicts: list[str | None] = []
    for row, grounding in enumerate(groundings):
        if grounding.unscored is not None:
            scores.outcomes[row], scores.reasons[row] = UNSCORED, grounding.unscored
        elif grounding.passed:
            scores.outcomes[row] = PASS
        problems.append("; ".join(grounding.problems) or None)
        contradicts.append("; ".join(grounding.contradicts) or None)
    scores.texts = {PROBLEMS_COLUMN: problems, CONTRADICTS_COLUMN: contradicts}
    return scores


def _explain_rows(seen: SeenRows) -> tuple[list[str], list[Span | None]]:
    """Stored verdicts' rules (a run not scored with its evidence): the replies grounded again."""
    inputs = [[row.get(name) for row in seen.inputs] for name in INPUTS]
    answers = [() if golden is None else (golden,) for golden in seen.goldens]
    rules = [grounding.rule() for grounding in _groundings(seen.responses, answers, inputs)]
    return rules, [None] * len(rules)


def _blank_decided() -> Mapping[str, Any]:
    """A blank reply is unscored here ("nothing to ground"), not failed: said once the core can hear it
    (``Scorer.decides_blank``); before, the core fails blank replies under every metric."""
    fields = {spec.name for spec in dataclasses.fields(Scorer)}
    return {"decides_blank": True} if "decides_blank" in fields else {}


GROUNDED = Scorer(
    name=NAME,
    description="every citation resolves to one document the item's scope allows, a cited page states the "
    "asked value for the asked field, quoted spans are in the cited documents, and every figure of the "
    "reply is in the cited or retrieved text",
    view=str,  # quotes and numbers are read from the reply as written
    score_rows=_grounded,
    extra_columns=(),
    version=VERSION,
    signature_parts=(f"values:{VALUES_VERSION}", QUOTES_SIGNATURE),
    inputs=INPUTS,
    explain_rows=_explain_rows,
    decide_rows=_decide_rows,
    # Not by default: assay run asks for it (with the documents of --sources, or in the reduced mode).
    default=False,
    **_blank_decided(),
)

__all__ = [
    "CONTRADICTS_COLUMN",
    "GROUNDED",
    "PROBLEMS_COLUMN",
    "WITHOUT_DOCUMENTS",
    "WITH_DOCUMENTS",
    "checks_ran",
]
