"""Every figure of a reply, in the documents' text a row gathered (``grounding.check`` states the rule):
each is looked for as a value in the cited pages, the documents' words where a quote of the reply was found,
and the documents' text a context points to; one that is nowhere is a problem, and one a cited page states
otherwise for the same words is a contradiction."""

from __future__ import annotations

from collections.abc import Sequence

from ...text.clauses import FieldTerms, field_terms
from ...values.types import COUNT, NUMBER_UNIT, Value, comparable_units, render_answer
from .page_values import folded_page, names_field, values_on_page
from .row import Row
from .text import MARKER, Stated, same_figure, states

# Figures of one reply checked one by one: each is looked for on every cited page, so a megabyte of
# distinct figures would take minutes. A reply stating more is not vouched for (a problem says so).
MAX_FIGURES = 200
# A reply's labels are read as a page's (``values_on_page``), whose cost grows with the square of a
# text's values: a reply longer than this is no answer a contradiction is read from.
LABELLED_REPLY_CHARS = 20_000


def check_figures(row: Row, text: str, figures: Sequence[Stated]) -> None:
    """Each figure of the reply (the first MAX_FIGURES) in the row's texts, else a problem naming it, with
    the contradiction a cited page gives it and the context whose own text alone states it."""
    if len(figures) > MAX_FIGURES:
        row.problems.append(
            f"the reply states {len(figures):,} figures; the first {MAX_FIGURES} were checked, "
            "the rest cannot be"
        )
    for figure in figures[:MAX_FIGURES]:
        where = next((where for where, page in row.texts if states(page, figure)), None)
        if where is not None:
            row.checked.append(f"{figure.shown()!r} is in {where}")
            continue
        problem = f"{figure.shown()!r} is not in the cited or retrieved text{_unmatched_hint(row, figure)}"
        contradiction = _contradiction(row, text, figure)
        if contradiction is not None:
            row.contradicts.append(f"{figure.shown()!r}: {contradiction}")
            problem = f"{problem}; {contradiction}"
        row.problems.append(problem)


def _unmatched_hint(row: Row, figure: Stated) -> str:
    """Where only a context's own text states the figure, the text that is not its document's: said,
    so that a context inventing a figure is seen for what it is."""
    for index, why, context in row.unmatched:
        if len(context) <= LABELLED_REPLY_CHARS and states(context, figure):
            return f" (only context {index}'s own text states it, and {why})"
    return ""


def _contradiction(row: Row, text: str, figure: Stated) -> str | None:
    """Where a cited page states another value for what the reply says `figure` of, in words; None
    when no cited page does. What the reply says it of is the figure's label in the reply, read as a
    page's (``page_values.values_on_page``: "the free look period is 15 days" -> free look; "30 days (15 days
    for monthly premiums)" -> monthly premiums, not the grace period of the 30 days before it); a page
    value's label must name every one of those words (a contradiction is a strong verdict: the page says
    the same thing with another figure)."""
    terms = _figure_terms(row, text, figure)
    if not terms:
        return None
    for where, page in row.cited_pages():
        for found in values_on_page(page):
            if _rival(figure, found.value) and names_field(terms, found.label, every=True):
                stated = render_answer(found.value)
                return f"{where} states {stated} for it: {found.evidence(folded_page(page))}"
    return None


def _figure_terms(row: Row, text: str, figure: Stated) -> FieldTerms:
    """The words the reply says `figure` of: its label in the reply, as field terms (none in a reply
    longer than ``LABELLED_REPLY_CHARS``: its labels are not read, and no figure of it contradicts)."""
    if len(text) > LABELLED_REPLY_CHARS:
        return FieldTerms()
    own = next(
        (found for found in values_on_page(MARKER.sub(" ", text)) if same_figure(figure, found.value)), None
    )
    if own is None:
        return FieldTerms()
    return field_terms(None, own.label, row.item.source_title)


def _rival(figure: Stated, value: Value) -> bool:
    """Whether a page's `value` is another value of the same kind as the figure (a rival reading)."""
    if same_figure(figure, value):
        return False
    if figure.bare:
        return value.type == NUMBER_UNIT and value.unit in (None, COUNT)
    if figure.value.type != value.type:
        return False
    return value.type != NUMBER_UNIT or value.unit in comparable_units(figure.value.unit)


__all__ = ["LABELLED_REPLY_CHARS", "MAX_FIGURES", "check_figures"]
