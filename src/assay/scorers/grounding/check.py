"""Whether a reply is grounded in its sources: what the ``grounded`` metric checks, as pure functions of
one row's reply (text, citations, retrieved contexts), its gold item and the source documents.

A row is grounded when it cites something and every check below finds no problem:

- **resolution**: each citation's ``document`` names exactly one document, by equality of names, never
  by substring or prefix: its id, its path (with or without the suffix), its file name, its title (the
  gold item's ``source.title``), or its insurer and title ("HDFC ERGO My Optima Secure" for
  ``hdfc-ergo__my-optima-secure__wordings`` titled "My Optima Secure"). Names are compared normalised
  (``name_key``: NFKC, casefolded, every run of characters other than letters, marks and digits one
  space). A name held by two documents is ambiguous; "HDFC ERGO" alone names no policy of that insurer.
  A name written as a path or URL of the system's own ("/srv/rag/acme/basic-plan.pdf",
  "C:\\corpus\\acme\\basic-plan.pdf", "https://host/docs/acme/basic-plan.pdf") names the document
  its trailing parts name (whole parts, the longest first; its query and fragment left out).
- **scope**: the document is one the item's scope allows: the document whose id is the scope, and the
  item's gold source document (without either, any document of the sources).
- **support**: a cited page exists (1 to the document's page count), and the cited text supports the
  answer, as a careful reader checks a citation, wherever the page is (the gold quote's page is one
  such page, not the only one):

  - an item with a typed value (a number with a unit, an amount, a percentage, a date): a cited page
    (every page of a document cited without one) holds the gold quote, or states the value *for the
    asked field*: the value, read by the value reader and compared through the equivalences, has a
    label that names the field (``page_values.values_on_page``: the words before it in its sentence, row or
    label line above, the words after it when no other value follows, and the heading of its item or
    section; the field is named by at least half the words of its name, else of its question,
    ``page_values.names_field``; a row with neither: the value anywhere on the page). A page
    that states the value only for another clause does not support it, and the problem shows that
    clause ("p.3 states 30 days, but for another clause: 'free look period … of 30 days…'"); "Tenure
    1/2/3 Years" states 24 months for the tenure, not for a waiting period;
  - a yes/no item: a cited page holds the gold quote, or a clause of it (its lines joined) names the
    field;
  - an item with no typed value (a text, an enum, a row without a gold value): each cited page holds
    the gold quote (its own document's), the citation's quote, a span the reply quotes, or a figure the
    reply states. A quote holds a page when the quote cascade (``quotes.find_quote``, any level) finds
    it on that page alone, or across its break with the page before or after.

  Once one cited page supports the answer, the cited text together supports it: another cited page
  that holds nothing the reply says (no figure of it, no quote it gives, no clause naming the field)
  is noted in what was checked, not a problem (it costs the citation's precision, not its grounding).
- **quotes**: every quoted span of the reply (straight or curly double quotes around at least
  ``QUOTED_MIN_CHARS`` characters) is found by the cascade in one of the cited documents, and every
  citation's quote in its document; the level is recorded. A reply quoting more than ``MAX_QUOTED``
  spans has the first checked and a problem saying the rest cannot be.
- **figures**: every figure the reply states (``text.stated_figures``: a number with a unit, ``30
  days``, ``thirty days``, ``₹5 lakh``, ``20%``, ``36 months``; and a bare count or amount in digits,
  ``9,500 network hospitals``, ``10 working days``, ``5 ultrasound scans``; not citation markers, page,
  section or clause numbers, a year alone, a list's numbering, ``24/7``) is stated in the cited text (a
  cited page, or every page of a document cited without one), the document's words where a quote of the
  reply was found in a cited document, or the document's text a retrieved context of an allowed document
  points to (``grounding.retrieved``: the page it names, and the document's span where its text is),
  always as assay extracted it and never the reply's own words or a context's own text, as a value read
  by the same reader: so "24 months" is never found in "124 months" nor "2024", the unit must be there,
  and equal forms count (``5,00,000`` = ``5 lakh``; ``2 years`` = ``24 months``; a bare amount in the
  text counts for an amount). A figure that is nowhere is named in the problem ("'9,500 network
  hospitals' is not in the cited or retrieved text", and, when only a context's own text states it, that
  the context's text is not in its document); when a cited page states *another* value of the same kind
  for what the reply says that figure of (the page value's label names every word of the figure's label
  in the reply, read as a page's), it is a **contradiction** (``Grounding.contradicts``: "'15 days':
  p.3 states 30 days for it: 'free look period …'"), which ``assay run`` grades ``wrong_cited``. A
  reply of more than ``MAX_FIGURES`` figures has the first checked and a problem saying the rest cannot
  be; one longer than ``LABELLED_REPLY_CHARS`` has no contradiction read (bounds on a megabyte of
  figures).

What a reply's text is read for, and how a number is found in a text, is ``scorers.grounding.text``;
the figures' check, ``grounding.figures``; what a context points to, ``grounding.retrieved``.
The verdict reads only the row and the sources, so a row's verdict never depends on which rows are
scored with it. Titles other rows carry (``other_titles``) only name, in a problem, the document a
citation outside the scope means ("cites hdfc-ergo__optima-secure, outside the item's scope").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...parts import Citation, Context
from ...text.clauses import FieldTerms, clause_spans
from ...values.types import BOOL, DATE, MONEY, NUMBER_UNIT, PERCENT, Value, render_answer, same_value
from .citations import Item, Library, resolve
from .figures import LABELLED_REPLY_CHARS, MAX_FIGURES, check_figures
from .page_values import PageValue, folded_page, names_field, values_on_page
from .retrieved import read_contexts
from .row import Row
from .text import (
    MARKER,
    Stated,
    find_in_pages,
    quote_on_page,
    quoted_spans,
    shown,
    shown_span,
    stated_figures,
    states,
)

if TYPE_CHECKING:
    from ...documents import Document

TYPED = (NUMBER_UNIT, MONEY, PERCENT, DATE)  # a value a page states in figures, found by the value reader

# --- one row ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grounding:
    """One row's result: `unscored` says why there was nothing to ground; else it passed when there
    are no `problems`. `checked` says what was looked at (for the trace); `contradicts` names each figure
    of the reply that a cited page states otherwise, for the same words (a wrong answer, not only an
    unsupported one)."""

    problems: tuple[str, ...] = ()
    checked: tuple[str, ...] = ()
    unscored: str | None = None
    contradicts: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.unscored is None and not self.problems

    def rule(self) -> str:
        """The verdict in words, for a trace."""
        if self.unscored is not None:
            return self.unscored
        checked = f"checked: {'; '.join(self.checked)}" if self.checked else "nothing checked"
        if not self.problems:
            return f"grounded; {checked}"
        return f"{len(self.problems)} problem(s): {'; '.join(self.problems)}; {checked}"


def ground(
    text: str,
    citations: Sequence[Citation],
    contexts: Sequence[Context],
    item: Item,
    library: Library,
    other_titles: Mapping[str, str] = {},
) -> Grounding:
    """Whether the reply `text` with its `citations` and `contexts` is grounded (see the module's note)."""
    if item.expected_refusal:
        return Grounding(unscored="a refusal item: nothing to ground")
    if not text.strip():
        return Grounding(unscored="a blank reply: nothing to ground")
    missing = _missing_sources(item, library)
    if missing:
        return Grounding(unscored=missing)
    if not citations:
        return Grounding(problems=("cites nothing",))
    row = Row(library, item)
    _read_quoted(row, text)
    figures = stated_figures(text)
    for citation in dict.fromkeys(citations):
        _check_citation(row, citation, other_titles)
    _check_support(row, figures)
    _gather_contexts(row, contexts)
    if row.texts:
        _check_quoted(row, row.quoted)
        check_figures(row, text, figures)
    else:  # the citations' problems say why: no text of the scope to look in
        row.checked.append("quotes and numbers not looked for: no cited or retrieved text of the scope")
    return Grounding(
        tuple(dict.fromkeys(row.problems)),
        tuple(dict.fromkeys(row.checked)),
        contradicts=tuple(dict.fromkeys(row.contradicts)),
    )


# Quoted spans of one reply checked: each is searched in every cited document, fuzzily (0.1 s a span over
# 130 pages), and on every other cited page; a reply quoting more is not vouched for (a problem says so).
MAX_QUOTED = 20


def _read_quoted(row: Row, text: str) -> None:
    """The spans the reply quotes, each once, the first MAX_QUOTED of them."""
    spans = tuple(dict.fromkeys(quoted_spans(MARKER.sub(" ", text))))
    if len(spans) > MAX_QUOTED:
        row.problems.append(
            f"the reply quotes {len(spans):,} spans; the first {MAX_QUOTED} were checked, the rest cannot be"
        )
    row.quoted = spans[:MAX_QUOTED]


def _missing_sources(item: Item, library: Library) -> str | None:
    """Why nothing can be checked: none of the documents the item allows is in the sources."""
    allowed = sorted(item.allowed())
    if not allowed or any(library.document(name) is not None for name in allowed):
        return None
    return f"nothing to check against: {', '.join(allowed)} is not among the sources"


def _check_citation(row: Row, citation: Citation, others: Mapping[str, str]) -> None:
    resolved = resolve(citation.document, row.library, row.item, others)
    if resolved.document_id is None:
        row.problems.append(resolved.problem)
        return
    name = resolved.document_id
    if not row.in_scope(name):
        scope = row.item.scope or row.item.source_document
        row.problems.append(f"cites {name}, outside the item's scope ({scope})")
        return
    document = row.library.document(name)
    if document is None:
        row.problems.append(f"cites {name}, which is not among the sources: its text cannot be checked")
        return
    row.cited[name] = document
    row.checked.append(f"{citation.document!r} is {name} (by {resolved.how})")
    if citation.quote:
        _check_citation_quote(row, document, citation.quote)
    if citation.page is None:
        row.whole.append(document)
        row.texts += [(f"{name} p.{number}", page) for number, page in enumerate(document.pages, 1)]
        return
    if not 1 <= citation.page <= len(document.pages):
        row.problems.append(f"p.{citation.page} is beyond {name}'s {len(document.pages)} pages")
        return
    row.pages.append((document, citation.page, citation))
    row.texts.append((f"{name} p.{citation.page}", document.pages[citation.page - 1]))


def _check_citation_quote(row: Row, document: Document, quote: str) -> None:
    found = find_in_pages(quote, document.pages)
    if found is None:
        row.problems.append(f"the citation's quote {shown(quote)} is not in {document.id}")
    else:
        row.checked.append(f"the citation's quote is in {document.id} p.{found.page} ({found.level})")


# --- the answer on the cited pages ---------------------------------------------------------------------


def _check_support(row: Row, figures: Sequence[Stated]) -> None:
    """The cited text supports the answer (see the module's note): a typed value stated for the field,
    a yes/no item's field named, else the quotes or figures of the old page check on each page."""
    if not row.pages and not row.whole:
        return
    value, terms = row.item.value, row.terms()
    if value is not None and value.type in TYPED:
        _check_value_support(row, value, terms, figures)
    elif value is not None and value.type == BOOL and terms:
        _check_named_support(row, terms, figures)
    else:
        for document, _page, citation in row.pages:
            _check_page(row, document, citation, figures)


def _check_value_support(row: Row, value: Value, terms: FieldTerms, figures: Sequence[Stated]) -> None:
    shown_value = render_answer(value)
    reasons: list[str] = []
    for where, text, gold in _support_candidates(row):
        if gold is not None:
            row.checked.append(f"{where} holds the gold quote ({gold})")
            return _check_other_pages(row, where, terms, figures)
        held = [found for found in values_on_page(text) if same_value(value, found.value)]
        named = next((found for found in held if not terms or names_field(terms, found.label)), None)
        if named is not None:
            row.checked.append(f"{where} states {shown_value} for the field: {_evidence(text, named)}")
            return _check_other_pages(row, where, terms, figures)
        if held:
            reasons.append(
                f"{where} states {shown_value}, but for another clause: {_evidence(text, held[0])}"
            )
        elif (where, text) in _explicit(row):
            reasons.append(f"{where} does not state {shown_value}{_gold_hint(row)}")
    if not reasons:  # only documents cited without a page, none of whose pages states it
        names = ", ".join(document.id for document in row.whole)
        reasons.append(f"{names} states {shown_value} for the field on no page{_gold_hint(row)}")
    row.problems += reasons


def _check_named_support(row: Row, terms: FieldTerms, figures: Sequence[Stated]) -> None:
    """A yes/no answer: a cited page holds the gold quote, or a clause of it names the field."""
    for where, text, gold in _support_candidates(row):
        if gold is not None:
            row.checked.append(f"{where} holds the gold quote ({gold})")
            return _check_other_pages(row, where, terms, figures)
        clause = _naming_clause(text, terms)
        if clause is not None:
            row.checked.append(f"{where} names the field: {clause}")
            return _check_other_pages(row, where, terms, figures)
    for where, _ in _explicit(row):
        row.problems.append(
            f"{where} holds neither the gold quote nor a clause naming the field{_gold_hint(row)}"
        )
    if not row.pages:
        names = ", ".join(document.id for document in row.whole)
        row.problems.append(f"{names} names the field on no page{_gold_hint(row)}")


def _support_candidates(row: Row) -> Iterable[tuple[str, str, str | None]]:
    """(where, text, the gold quote's level there or None) of each cited page, explicit pages first."""
    for document, page, _ in row.pages:
        quote = _gold_quote(row.item, document)
        found = quote_on_page(quote, document.pages, page) if quote else None
        yield f"{document.id} p.{page}", document.pages[page - 1], None if found is None else found.level
    for document in row.whole:
        for number, text in enumerate(document.pages, 1):
            yield f"{document.id} p.{number}", text, None


def _explicit(row: Row) -> list[tuple[str, str]]:
    return [(f"{d.id} p.{number}", d.pages[number - 1]) for d, number, _ in row.pages]


def _check_other_pages(row: Row, supporting: str, terms: FieldTerms, figures: Sequence[Stated]) -> None:
    """What every other cited page holds of what the reply says: a figure of it, a quote it gives, or a
    clause naming the field (a second citation for the same answer); one that holds none is noted."""
    for document, page, citation in row.pages:
        where = f"{document.id} p.{page}"
        if where == supporting:
            continue
        text = document.pages[page - 1]
        quotes = [q for q in (citation.quote, *row.quoted) if q]
        held = any(states(text, figure) for figure in figures)
        held = held or any(quote_on_page(q, document.pages, page) is not None for q in quotes)
        if held or (terms and _naming_clause(text, terms) is not None):
            row.checked.append(f"{where} holds what the reply says too")
        else:  # the cited text together supports the claim: an extra citation costs precision only
            row.checked.append(f"{where} adds nothing the reply says (an extra citation, not a problem)")


def _naming_clause(text: str, terms: FieldTerms) -> str | None:
    """A clause of the page (its lines joined: a sentence wraps) that names the field by its name's
    words or by its question's, shown; or None. (Either will do: a yes/no answer has no figure to tie
    to one clause, and a question names its thing as people do, "cashless at network hospitals".)"""
    joined = " ".join(folded_page(text).split())
    asked = FieldTerms(asked=terms.asked)
    for start, end in clause_spans(joined):
        clause = joined[start:end]
        if names_field(terms, clause) or names_field(asked, clause):
            return shown_span(joined, start, end)
    return None


def _evidence(text: str, found: PageValue) -> str:
    return found.evidence(folded_page(text))


def _gold_hint(row: Row) -> str:
    item = row.item
    return f" (the gold quote is on p.{item.page})" if item.quote and item.page else ""


def _check_page(row: Row, document: Document, citation: Citation, numbers: Sequence[Stated]) -> None:
    """An item with no typed value: the cited page holds the gold quote, a quote of the reply or the
    citation, or one of the reply's figures (see the module's note)."""
    page, where = citation.page or 0, f"{document.id} p.{citation.page}"
    quotes = [(q, who) for q, who in ((_gold_quote(row.item, document), "the gold quote"),
                                      (citation.quote, "the citation's quote")) if q]  # fmt: skip
    quotes += [(span, "the reply's quote") for span in row.quoted]
    for quote, who in quotes:
        found = quote_on_page(quote, document.pages, page)
        if found is not None:
            row.checked.append(f"{where} holds {who} ({found.level})")
            return
    held = [number for number in numbers if states(document.pages[page - 1], number)]
    if held:
        row.checked.append(f"{where} states {', '.join(n.shown() for n in held)}")
        return
    if not quotes and not numbers:
        row.checked.append(f"{where} exists (the reply states no number and no quote to look for there)")
        return
    sought = list(dict.fromkeys(who for _, who in quotes))
    sought += ["any of the reply's numbers"] if numbers else []
    gold_page = row.item.page if _gold_quote(row.item, document) else None
    hint = f" (the gold quote is on p.{gold_page})" if gold_page else ""
    row.problems.append(f"{where} holds neither {' nor '.join(sought)}{hint}")


def _gold_quote(item: Item, document: Document) -> str | None:
    return item.quote if item.quote and document.id == item.source_document else None


def _gather_contexts(row: Row, contexts: Sequence[Context]) -> None:
    """The documents' text the retrieved contexts point to joins the texts that may state the reply's
    figures; never a context's own text (``grounding.retrieved``)."""
    if not contexts:
        return
    retrieved = read_contexts(contexts, row.library, row.item, row.in_scope)
    row.texts += retrieved.texts
    row.checked += retrieved.checked
    row.unmatched = retrieved.unmatched


def _check_quoted(row: Row, spans: Sequence[str]) -> None:
    """Each quoted span is in a cited document; a span found there joins the texts that may state the
    reply's figures."""
    for span in spans:
        found = next(
            ((d.id, m) for d in row.cited.values() if (m := find_in_pages(span, d.pages)) is not None), None
        )
        if found is None:
            row.problems.append(f"the quoted {shown(span)} is in none of the cited documents")
        else:
            name, match = found
            row.checked.append(f"the quoted {shown(span)} is in {name} p.{match.page} ({match.level})")
            # the document's words where the quote was found, never the reply's: a quote found with a
            # word changed ("sixty days" for the page's "thirty days") grounds none of its figures
            row.texts.append((f"{name} p.{match.page} (the reply's quote)", match.text))


__all__ = ["LABELLED_REPLY_CHARS", "MAX_FIGURES", "MAX_QUOTED", "Grounding", "ground"]
