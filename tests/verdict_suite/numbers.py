"""Replies to an item whose answer is a number: correct in several phrasings and formats; a wrong
number, a wrong unit, negated, hedged; the right value on a page that states it for another clause, on a
page that says nothing of it, in another document, with a made-up quote, beside an invented figure."""

from __future__ import annotations

from collections.abc import Sequence

import regex

from assay.values import Value, read_values, same_value

from . import forms
from .phrasing import STYLES, Cite, answer_statements, field_phrase, field_terms, sentence, without_source
from .refusals import refuse_answerable
from .writer import CORRECT, Writer, fill, with_marker

CORRECT_SHAPES: tuple[tuple[str, str], ...] = (
    ("answer-first", "{V}{m}. That is the {phrase} for {title}."),
    ("plain", "The {phrase} is {v}{m}."),
    ("lead-in", "According to the {title} document, the {phrase} is {v}{m}."),
    ("answer-last", "Looking at the section on the {phrase} in {title}, the figure given is {v}{m}."),
    ("bullets", "Here is what I found:\n- {Phrase}: {v}{m}\n- Document: {title}"),
    ("table", "| Item | Value |\n|---|---|\n| {Phrase} | {v} |\n\n(from the {title} document){m}"),
    ("context", "Based on the provided context, {title} sets the {phrase} at {v}{m}."),
)
STATEMENT_SHAPES: tuple[tuple[str, str], ...] = (
    ("statement", "{S}"),
    ("statement-lead-in", "Based on the {title} document: {S}"),
    ("statement-answer-first", "{V}. {S}"),
)
HEDGED = (  # the value offered with an alternative, or as a guess: no answer a reader can rely on
    "The {phrase} is usually {v}, but it can be {w} in some cases{m}.",
    "It is typically {v} or {w}, depending on the plan{m}.",
    "The {phrase} is probably {v}, though some sections suggest {w}{m}.",
    "It could be either {v} or {w}; the document is not clear{m}.",
)
NEGATED = (  # the value denied in words other than the statement's own negation
    "There is no {phrase} of {v}{m}.",
    "{Title} does not set the {phrase} at {v}{m}.",
)
HEDGES_PER_ITEM = 2
INVENTED = (  # a figure the page does not hold, beside a right answer
    ("It also comes with over {n} partner locations nationwide.", 9500),
    ("Requests under it are handled within {n} working days.", 11),
    ("It includes up to {n} free consultations a year.", 7),
)


class Numbers:
    """The replies to one item whose answer is a number: the field as a phrase, and the answer as a
    statement in the question's own words where the question's form allows."""

    def __init__(self, writer: Writer, q: forms.Quantity) -> None:
        self.writer, self.q = writer, q
        self.base = {"phrase": field_phrase(writer.item, writer.title), "title": writer.title}
        self.question = str(writer.item["question"])

    def statement(self, value: str, bare: str, *, negated: bool = False) -> str | None:
        made = answer_statements(self.question, value, bare)
        return None if made is None else made[1 if negated else 0]

    def said(
        self, value: str, bare: str, marker: str, *, negated: bool = False, phrase_first: bool = False
    ) -> str:
        """The value said in a sentence (the statement, or "The X is v"), with the marker."""
        made = None if phrase_first else self.statement(value, bare, negated=negated)
        if made is None or value not in made:  # "30 days of grace period" cannot say "30 months"
            shape = "The {phrase} is not {v}." if negated else "The {phrase} is {v}."
            made = fill(shape, v=value, **self.base)
        return with_marker(made, marker)

    def cited(self, cited: bool, style: str | None = None) -> tuple[list[Cite], str]:
        cites = [self.writer.cite(style)] if cited else []
        return cites, (self.writer.marker(cites[0]) if cites else "")


def quantity_replies(writer: Writer, q: forms.Quantity) -> None:
    """Every reply class for an item whose answer is a number."""
    page = writer.page_text()
    assert forms.states_quantity(page, q), (
        f"{writer.item['id']}: page {writer.page} does not state {q.plain()}"
    )
    numbers = Numbers(writer, q)
    _correct_numbers(numbers)
    _second_figure(numbers)
    _wrong_numbers(numbers)
    _ungrounded(numbers)
    refuse_answerable(writer, numbers.base)


def _correct_numbers(numbers: Numbers) -> None:
    writer, stated = numbers.writer, forms.stated_forms(numbers.q)
    offset = writer.rng.randrange(len(stated))  # which form goes with which shape differs by item
    for index, (name, shape) in enumerate(CORRECT_SHAPES):
        cite = writer.cite(STYLES[index % len(STYLES)])
        text = fill(
            shape, v=stated[(index + offset) % len(stated)].full, m=writer.marker(cite), **numbers.base
        )
        writer.add(f"correct/{name}/{cite.style}", CORRECT, text, [cite])
    for index, (name, shape) in enumerate(STATEMENT_SHAPES):
        _, value, bare = stated[(index + offset + 1) % len(stated)]
        cite = writer.cite(STYLES[(index + 3) % len(STYLES)])
        made = numbers.statement(value, bare)
        if made is not None:
            if "{title}" in shape:
                made = without_source(made, writer.title)
            said = with_marker(made, writer.marker(cite))
            text = shape.format(S=said, V=value[:1].upper() + value[1:], title=writer.title)
            writer.add(f"correct/{name}/{cite.style}", CORRECT, text, [cite])
    for form in stated[1:]:
        cite = writer.cite()
        text = numbers.said(form.full, form.bare, writer.marker(cite))
        writer.add(f"correct/form-{form.name}/{cite.style}", CORRECT, text, [cite])
    plain, bare = numbers.q.plain(), forms.western(numbers.q.number)
    for page in other_supporting_pages(writer, numbers.q)[:1]:
        cite = writer.cite(writer.rng.choice(("id", "source-tag", "title")), page=page)
        writer.add("correct/other-page", CORRECT, numbers.said(plain, bare, writer.marker(cite)), [cite])
    # The right page and its neighbour, which says nothing of it (a retrieved chunk that ran over a page
    # break): the claim is supported by what the reply cites, as citation recall reads it; the extra page
    # costs citation precision, not the answer's grounding.
    for page in silent_pages(writer, numbers.q)[:1]:
        cites = [writer.cite("id"), writer.cite("id", page=page)]
        writer.add("correct/two-pages", CORRECT, numbers.said(plain, bare, ""), cites)


def _second_figure(numbers: Numbers) -> None:
    """A right answer with a second true figure from the same page, in another clause: a sentence of the
    page with a number and a unit, neither the item's number nor any of the field's terms."""
    writer, q = numbers.writer, numbers.q
    terms = field_terms(writer.item)
    text = regex.sub(r"\s+", " ", writer.page_text())
    for line in regex.split(r"(?<=[.;])\s+(?=[A-Z(])", text):
        line = line.strip()
        if not 40 <= len(line) <= 220 or not regex.search(
            r"\d+\s*(?:%|days?|months?|years?|hours?)", line, regex.I
        ):
            continue
        if forms.has_number(line, q.number) or any(
            regex.search(rf"\b{term}", line.casefold()) for term in terms
        ):
            continue
        cite = writer.cite("id")
        said = numbers.said(q.plain(), forms.western(q.number), writer.marker(cite))
        writer.add("correct/second-figure", CORRECT, f"{said} The same page also says: {line}", [cite])
        return


def _wrong_numbers(numbers: Numbers) -> None:
    """A wrong number, the number in a wrong unit, the value negated, the value hedged."""
    writer, q = numbers.writer, numbers.q
    other = _wrong_number(writer, q)
    plain, bare = q.plain(), forms.western(q.number)
    for cited, phrase_first in ((True, False), (True, True), (False, False)):
        cites, marker = numbers.cited(cited)
        text = numbers.said(other[0], other[1], marker, phrase_first=phrase_first)
        writer.add("wrong-number", writer.wrong(cites), text, cites)
    wrong_unit = forms.wrong_unit_form(q)
    if wrong_unit is not None:
        cites, marker = numbers.cited(True)
        writer.add("wrong-unit", "wrong_cited", numbers.said(wrong_unit, bare, marker), cites)
    for cited, phrase_first in ((True, False), (False, False), (True, True)):
        cites, marker = numbers.cited(cited)
        text = numbers.said(plain, bare, marker, negated=True, phrase_first=phrase_first)
        writer.add("negated", writer.wrong(cites), text, cites)
    negated = NEGATED[writer.rng.randrange(len(NEGATED))]
    cites, marker = numbers.cited(writer.rng.random() < 0.5)
    writer.add("negated", writer.wrong(cites), fill(negated, v=plain, m=marker, **numbers.base), cites)
    start = writer.rng.randrange(len(HEDGED))
    for offset in range(HEDGES_PER_ITEM):
        shape = HEDGED[(start + offset) % len(HEDGED)]
        cites, marker = numbers.cited(offset == 0)
        writer.add(
            "hedged", writer.wrong(cites), fill(shape, v=plain, w=other[0], m=marker, **numbers.base), cites
        )


def _wrong_number(writer: Writer, q: forms.Quantity) -> tuple[str, str]:
    """Another number in the item's unit (with its bare number): one the page states for another clause
    when there is one, else twice the value."""
    for mention in read_values(writer.page_text()):
        number = mention.value.value
        same_unit = (
            mention.value.unit == q.unit and isinstance(number, (int, float)) and not isinstance(number, bool)
        )
        if same_unit and number != q.number and number > 0 and not _equivalent(q, number):
            return q.with_number(q.grouped(number)), q.grouped(number)
    number = _other_number(q)
    return q.with_number(q.grouped(number)), q.grouped(number)


def _other_number(q: forms.Quantity) -> int | float:
    """A plausible wrong number: twice a small one, a little less than a large share, 500 more."""
    if q.unit == "%" and q.number > 50:
        return round(q.number - 0.4, 1) if isinstance(q.number, float) else q.number - 10
    return q.number * 2 if q.number < 1000 else q.number + 500


def _equivalent(q: forms.Quantity, number: int | float) -> bool:
    return any(value == number for value, _ in forms.equivalent_numbers(q)[1:])


def _ungrounded(numbers: Numbers) -> None:
    """The right value with support a careful reader does not find: another clause's page, another
    document, a quote the page does not hold, an invented figure."""
    writer, q = numbers.writer, numbers.q
    plain, bare = q.plain(), forms.western(q.number)
    for index, page in enumerate(wrong_pages(writer, q)[:2]):
        cite = writer.cite(("id", "source-tag", "title")[index % 3], page=page)
        writer.add("wrong-page", "correct_ungrounded", numbers.said(plain, bare, writer.marker(cite)), [cite])
    for page in silent_pages(writer, q)[:1]:
        cite = writer.cite(writer.rng.choice(("id", "source-tag")), page=page)
        writer.add(
            "wrong-page/silent", "correct_ungrounded", numbers.said(plain, bare, writer.marker(cite)), [cite]
        )
    for document in [other for other in writer.corpus.sources if other != writer.document][:1]:
        pages = len(writer.corpus.pages(document))
        for style in ("title", "id"):
            cite = writer.cite(style, document=document, page=min(writer.page, pages))
            text = numbers.said(plain, bare, writer.marker(cite), phrase_first=style == "id")
            writer.add("wrong-document", "correct_ungrounded", text, [cite])
    fake = sentence(f"the {numbers.base['phrase']} shall be {plain} for every customer without exception")
    assert not forms.holds_quote(writer.page_text(), fake), (
        f"{writer.item['id']}: the made-up quote is on the page"
    )
    writer.add(
        "fabricated-quote",
        "correct_ungrounded",
        numbers.said(plain, bare, ""),
        [writer.cite("quote", quote=fake)],
    )
    cite = writer.cite("id")
    text = f'{numbers.said(plain, bare, "")} The document says: "{fake}"{writer.marker(cite)}'
    writer.add("fabricated-quote/in-text", "correct_ungrounded", text, [cite])
    shape, start = INVENTED[writer.rng.randrange(len(INVENTED))]
    number = _absent_number(writer.page_text(), start, q.number)
    cite = writer.cite(writer.rng.choice(("id", "source-tag")))
    text = f"{numbers.said(plain, bare, writer.marker(cite))} {shape.format(n=forms.western(number))}"
    writer.add("invented-figure", "correct_ungrounded", text, [cite])


def _absent_number(page: str, start: int, avoid: int | float) -> int:
    """The first number from `start` up (by ones, or by hundreds from 1,000) that the page does not hold."""
    step = 100 if start >= 1000 else 1
    number = start
    while number == avoid or forms.has_number(page, number):
        number += step
    return number


def silent_pages(writer: Writer, q: forms.Quantity) -> list[int]:
    """Pages of the item's document that do not hold the item's number at all (in any unit), the
    gold page's neighbours first: the page a system cites when it gets the page number wrong."""
    pages = writer.corpus.pages(writer.document)
    near = sorted(range(1, len(pages) + 1), key=lambda number: (abs(number - writer.page), number))
    numbers = [value for value, _ in forms.equivalent_numbers(q)]
    return [
        number
        for number in near
        if number != writer.page
        and pages[number - 1].strip()
        and not any(forms.has_number(pages[number - 1], n) for n in numbers)
    ]


def other_supporting_pages(writer: Writer, q: forms.Quantity) -> list[int]:
    """Pages other than the gold page with a sentence that states the value, and no other value of its
    unit, together with every one of the field's terms and no negation: another place the document states
    the asked value (a definition, a benefit table, the schedule)."""
    terms = field_terms(writer.item)
    found = []
    for number, text in enumerate(writer.corpus.pages(writer.document), start=1):
        if number == writer.page or not terms:
            continue
        if any(_supports(piece, q, terms) for piece in regex.split(r"(?<=[.;])\s+", forms.flat(text))):
            found.append(number)
    return found


def _supports(piece: str, q: forms.Quantity, terms: Sequence[str]) -> bool:
    """A short sentence that names the field and states the value as the only one of its unit."""
    if len(piece) > 300 or regex.search(r"\b(?:not|no|except|excluding)\b", piece):
        return False
    if not all(regex.search(rf"\b{term}", piece) for term in terms):
        return False
    return forms.states_quantity(piece, q) and forms.values_of_unit(piece, q.unit) == {q.number}


def wrong_pages(writer: Writer, q: forms.Quantity) -> list[int]:
    """Pages of the item's document, other than the gold page, that state the same value (assay's value
    reader finds it, and so does the suite's own check) but not near any of the field's terms: a page
    that states the number for another clause."""
    expected = Value(str(writer.item["answer_type"]), q.number, q.unit)
    terms = field_terms(writer.item)
    found = []
    for number, text in enumerate(writer.corpus.pages(writer.document), start=1):
        if number == writer.page or not any(
            same_value(expected, mention.value) for mention in read_values(text)
        ):
            continue
        folded = forms.flat(text)
        spans = [
            span
            for value, unit in forms.equivalent_numbers(q)
            for span in forms.number_spans(folded, value, unit)
        ]
        if spans and terms and not forms.terms_near(folded, spans, terms):
            found.append(number)
    return found
