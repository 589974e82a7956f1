"""Replies to a corpus's gold items, as capable RAG assistants write them, each labelled with the outcome
a careful reader gives after reading the cited page, and each label checked against the page's text as
it is made (forms.py: plain checks of the suite's own, not assay's grader).

For an answerable item with a number: correct replies in several phrasings and formats, citing the gold
page by document id, file name, title, in the text, or with its true quote (``correct``); a wrong number,
the number in a wrong unit, the value negated, the value hedged (``wrong_cited`` when the reply cites,
else ``wrong_uncited``); the right value cited to a page that states the same number for another clause,
to another document, with a quote the page does not hold, or with an invented figure beside it
(``correct_ungrounded``); refusals (``refused_answerable``). A yes/no item: the right answer with the
question's own predicate and the opposite answer. A refusal item: refusals (``correct``) and fabricated
answers (``answered_refusal``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from assay.values import Value, read_values, same_value

from . import forms
from .corpora import Corpus
from .phrasing import (
    STYLES,
    Cite,
    answer_statements,
    citation_objects,
    cite_marker,
    field_phrase,
    field_terms,
    lower_first,
    predicate_statements,
    refusal_topic,
    sentence,
)

CORRECT = "correct"
FAULT_LABELS = (
    "wrong_uncited",
    "wrong_cited",
    "correct_ungrounded",
    "refused_answerable",
    "answered_refusal",
)


@dataclass(frozen=True)
class LabelledReply:
    """One reply to one gold item, with the outcome a careful reader gives and the kind of reply."""

    corpus: str
    item: Mapping[str, Any]
    kind: str  # what the reply is: "correct/bullets", "wrong-page", "refusal/couldnt-find", ...
    label: str  # the careful reader's outcome
    text: str
    citations: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)

    @property
    def is_fault(self) -> bool:
        """A reply a grader must not pass: every label but ``correct``."""
        return self.label != CORRECT


class Writer:
    """Writes the replies of one item of a corpus (its rng seeded by the corpus and the item's id)."""

    def __init__(self, corpus: Corpus, item: Mapping[str, Any]) -> None:
        self.corpus, self.item = corpus, item
        self.rng = random.Random(f"{corpus.name}:{item['id']}")
        source = item.get("source") or {}
        self.document: str = source.get("document") or str(item.get("scope") or "")
        self.page: int = int(source.get("page") or 1)
        self.quote: str = str(source.get("quote") or "")
        self.title = (
            corpus.title(self.document) if self.document in corpus.sources else str(item.get("scope"))
        )
        self.names = {
            key: value
            for document in corpus.sources
            for key, value in (
                (f"file:{document}", corpus.file_name(document)),
                (f"title:{document}", corpus.title(document)),
            )
        }
        self.made: list[LabelledReply] = []

    def page_text(self, page: int | None = None) -> str:
        return self.corpus.pages(self.document)[(page or self.page) - 1]

    def add(self, kind: str, label: str, text: str, cites: Sequence[Cite] = ()) -> None:
        citations = citation_objects(text, cites, self.names)
        self.made.append(LabelledReply(self.corpus.name, self.item, kind, label, text, tuple(citations)))

    def style(self) -> str:
        return self.rng.choice(STYLES)

    def cite(
        self,
        style: str | None = None,
        *,
        page: int | None = None,
        document: str | None = None,
        quote: str | None = None,
    ) -> Cite:
        chosen = style or self.style()
        if chosen == "quote" and quote is None:
            quote = self.quote if self.quote else None
            chosen = "quote" if quote else "id"
        return Cite(
            chosen, document or self.document, page or self.page, quote if chosen == "quote" else None
        )

    def marker(self, cite: Cite) -> str:
        return cite_marker(cite, self.corpus.title(cite.document))

    def wrong(self, cites: Sequence[Cite]) -> str:
        return "wrong_cited" if cites else "wrong_uncited"


# --- numbers ------------------------------------------------------------------------------------------


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
HEDGED = (
    "The {phrase} is usually {v}, but it can be {w} in some cases{m}.",
    "It is typically {v} or {w}, depending on the plan{m}.",
)
REFUSALS = (
    "The document doesn't state the {phrase}.",
    "I couldn't find the {phrase} in the provided documents.",
    "There is no information about the {phrase} in the {title} documents.",
    "The documents don't specify the {phrase}.",
    "I'm sorry, but the provided context does not mention the {phrase} for {title}.",
    "Unfortunately, that isn't stated in the documents I have access to.",
    "The {title} brochure doesn't give the {phrase}.",
)
WHETHER_REFUSALS = (  # a yes/no item declined, in the question's own words
    "The documents don't say whether {clause}.",
    "I couldn't find whether {clause} in the provided documents.",
    "There is no information on whether {clause}.",
    "The {title} document doesn't specify whether {clause}.",
)
REFUSALS_PER_ITEM = 2  # the pool rotates over the items: every phrasing is used, no item is padded
INVENTED = (  # a figure the page does not hold, beside a right answer
    ("It also comes with over {n} partner locations nationwide.", 9500),
    ("Requests under it are handled within {n} working days.", 11),
    ("It includes up to {n} free consultations a year.", 7),
)


def _fill(shape: str, **values: str) -> str:
    capitals = {key[:1].upper() + key[1:]: value[:1].upper() + value[1:] for key, value in values.items()}
    return shape.format(**values, **capitals)


def with_marker(said: str, marker: str) -> str:
    """A sentence with a citation written before its full stop."""
    return f"{said[:-1]}{marker}." if said.endswith(".") else f"{said}{marker}"


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
            made = _fill(shape, v=value, **self.base)
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
    _refusals(writer, numbers.base)


def _correct_numbers(numbers: Numbers) -> None:
    writer, stated = numbers.writer, forms.stated_forms(numbers.q)
    for index, (name, shape) in enumerate(CORRECT_SHAPES):
        cite = writer.cite(STYLES[index % len(STYLES)])
        text = _fill(shape, v=stated[index % len(stated)][0], m=writer.marker(cite), **numbers.base)
        writer.add(f"correct/{name}/{cite.style}", CORRECT, text, [cite])
    for index, (name, shape) in enumerate(STATEMENT_SHAPES):
        value, bare = stated[(index + 1) % len(stated)]
        cite = writer.cite(STYLES[(index + 3) % len(STYLES)])
        made = numbers.statement(value, bare)
        if made is not None:
            said = with_marker(made, writer.marker(cite))
            text = shape.format(S=said, V=value[:1].upper() + value[1:], title=writer.title)
            writer.add(f"correct/{name}/{cite.style}", CORRECT, text, [cite])
    for value, bare in stated[1:]:
        cite = writer.cite()
        writer.add(
            f"correct/form/{cite.style}", CORRECT, numbers.said(value, bare, writer.marker(cite)), [cite]
        )
    plain, bare = numbers.q.plain(), forms.western(numbers.q.number)
    for page in other_supporting_pages(writer, numbers.q)[:1]:
        cite = writer.cite(writer.rng.choice(("id", "source-tag", "title")), page=page)
        writer.add("correct/other-page", CORRECT, numbers.said(plain, bare, writer.marker(cite)), [cite])
    for page in silent_pages(writer, numbers.q)[:1]:  # the right page and a page that says nothing of it
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
    for index, shape in enumerate(HEDGED):
        cites, marker = numbers.cited(index == 0)
        writer.add(
            "hedged", writer.wrong(cites), _fill(shape, v=plain, w=other[0], m=marker, **numbers.base), cites
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


def _refusals(writer: Writer, base: dict[str, str]) -> None:
    """Refusals of an answerable item, REFUSALS_PER_ITEM of the pool from where the rng starts."""
    start = writer.rng.randrange(len(REFUSALS))
    for offset in range(REFUSALS_PER_ITEM):
        writer.add("refusal", "refused_answerable", _fill(REFUSALS[(start + offset) % len(REFUSALS)], **base))


# --- yes/no ---------------------------------------------------------------------------------------------


def bool_replies(writer: Writer) -> None:
    """The right answer with the question's own predicate, and the opposite one."""
    assert writer.quote and forms.holds_quote(writer.page_text(), writer.quote), (
        f"{writer.item['id']}: quote not on page {writer.page}"
    )
    expected = bool(writer.item["expected_value"]["value"])
    template = writer.corpus.templates.for_field(str(writer.item["field"]))
    answers = {True: template.yes if template else "Yes", False: template.no if template else "No"}
    statements = predicate_statements(str(writer.item["question"]), writer.title)
    for answer, label_of in ((expected, lambda cites: CORRECT), (not expected, writer.wrong)):
        kind = "correct" if answer == expected else "opposite"
        bare = regex.sub(r"^(?:yes|no)\s*[,.;:\u2014-]\s*", "", answers[answer], flags=regex.I)
        shapes = [sentence(answers[answer]), f"{'Yes' if answer else 'No'}.", sentence(bare)]
        if statements:
            said = statements[0] if answer else statements[1]
            shapes += [
                said,
                f"{'Yes' if answer else 'No'} — {said[:1].lower()}{said[1:]}",
                f"According to the {writer.title} document, {said[:1].lower()}{said[1:]}",
            ]
        for index, shape in enumerate(shapes):
            cites = [writer.cite(STYLES[index % len(STYLES)])] if kind == "correct" or index % 2 == 0 else []
            marker = writer.marker(cites[0]) if cites else ""
            text = shape[:-1] + marker + "." if shape.endswith(".") else shape + marker
            writer.add(f"{kind}/{index}", label_of(cites), text, cites)
    said = (
        sentence(statements[0] if expected else statements[1]) if statements else sentence(answers[expected])
    )
    for document in [other for other in writer.corpus.sources if other != writer.document][:1]:
        cite = writer.cite(
            "title", document=document, page=min(writer.page, len(writer.corpus.pages(document)))
        )
        writer.add("wrong-document", "correct_ungrounded", said[:-1] + writer.marker(cite) + ".", [cite])
    fake = f"{said[:-1]} in every case, with no exceptions of any kind."
    assert not forms.holds_quote(writer.page_text(), fake)
    writer.add("fabricated-quote", "correct_ungrounded", said, [writer.cite("quote", quote=fake)])
    clause = lower_first(statements[0][:-1]) if statements else None
    if clause is None:
        _refusals(writer, {"phrase": field_phrase(writer.item, writer.title), "title": writer.title})
        return
    start = writer.rng.randrange(len(WHETHER_REFUSALS))
    for offset in range(REFUSALS_PER_ITEM):
        shape = WHETHER_REFUSALS[(start + offset) % len(WHETHER_REFUSALS)]
        writer.add("refusal", "refused_answerable", shape.format(clause=clause, title=writer.title))


# --- text and enum values -------------------------------------------------------------------------------


def text_replies(writer: Writer) -> None:
    """A text or enum value (a product code, a kind): right, altered, refused."""
    answer = str(writer.item["expected_answer"])
    phrase = field_phrase(writer.item, writer.title)
    shown = answer.split(":")[0]  # "Pan India: treatment within India only" -> "Pan India"
    assert forms.alnum(shown) in forms.alnum(writer.page_text()) or forms.holds_quote(
        writer.page_text(), writer.quote
    ), writer.item["id"]
    for index, shape in enumerate(
        ("The {phrase} is {v}{m}.", "{V}{m}.", "According to {title}, the {phrase} is {v}{m}.")
    ):
        cite = writer.cite(STYLES[index % len(STYLES)])
        writer.add(
            f"correct/{index}",
            CORRECT,
            _fill(shape, v=shown, m=writer.marker(cite), phrase=phrase, title=writer.title),
            [cite],
        )
    altered = _altered(writer, shown)
    if altered:
        cite = writer.cite()
        writer.add(
            "wrong-value",
            "wrong_cited",
            _fill(
                "The {phrase} is {v}{m}.", v=altered, m=writer.marker(cite), phrase=phrase, title=writer.title
            ),
            [cite],
        )
    _refusals(writer, {"phrase": phrase, "title": writer.title})


def _altered(writer: Writer, shown: str) -> str | None:
    """The value with one digit changed (a code), or another label of the field (a kind)."""
    digits = [index for index, char in enumerate(shown) if char.isdigit()]
    if digits:
        at = digits[len(digits) // 2]
        changed = shown[:at] + str((int(shown[at]) + 3) % 10) + shown[at + 1 :]
        return None if forms.alnum(changed) in forms.alnum(writer.page_text()) else changed
    template = writer.corpus.templates.for_field(str(writer.item["field"]))
    others = [
        label
        for value, label in (template.labels if template else {}).items()
        if value != writer.item["expected_value"]["value"]
    ]
    return others[0].split(":")[0] if others else None


# --- refusal items ----------------------------------------------------------------------------------------


REFUSAL_ITEM_REPLIES = (
    "The {kind} doesn't name {topic}.",
    "I couldn't find {topic} in the {title} documents.",
    "The documents don't specify {topic}.",
    "There is no information about {topic} in the provided documents.",
    "{Topic} isn't stated in the {title} document.",
    "I'm sorry, but the documents provided do not mention {topic}.",
    "That information is not available in the documents I was given.",
)
FABRICATED = (
    "According to {title}, it is 92.4%{m}.",
    "The {title} document puts it at 4,250{m}.",
    "Based on page 3 of {title}, the answer is City Care Centre and Lakeside Clinic.",
    "Regarding {topic}: the figure given is 12,500{m}.",
)


def refusal_item_replies(writer: Writer) -> None:
    """Refusals in several phrasings (correct) and fabricated answers (answered_refusal)."""
    topic = refusal_topic(writer.item) or "this"
    documents = [
        document for document in writer.corpus.sources if document.startswith(str(writer.item.get("scope")))
    ]
    document = documents[0] if documents else next(iter(writer.corpus.sources))
    writer.document = document
    title = writer.corpus.title(document)
    writer.add("refusal/expected", CORRECT, str(writer.item["expected_answer"]))
    for index, shape in enumerate(REFUSAL_ITEM_REPLIES):
        kind = ("document", "brochure", "context")[index % 3]
        writer.add(f"refusal/{index}", CORRECT, _fill(shape, topic=topic, title=title, kind=kind))
    for index, shape in enumerate(FABRICATED):
        cite = writer.cite(
            ("id", "source-tag", "title")[index % 3], page=min(3, len(writer.corpus.pages(document)))
        )
        writer.add(
            f"fabricated/{index}",
            "answered_refusal",
            _fill(shape, topic=topic, title=title, m=writer.marker(cite)),
            [cite],
        )


# --- all of a corpus ----------------------------------------------------------------------------------------


def item_replies(corpus: Corpus, item: Mapping[str, Any]) -> list[LabelledReply]:
    """Every labelled reply to one gold item."""
    writer = Writer(corpus, item)
    answer_type = item.get("answer_type")
    if item.get("expected_refusal"):
        refusal_item_replies(writer)
    elif answer_type == "bool":
        bool_replies(writer)
    elif answer_type in ("text", "enum"):
        text_replies(writer)
    else:
        q = forms.quantity(str(item["expected_answer"]), item["expected_value"])
        if q is not None:
            quantity_replies(writer, q)
    return writer.made


def corpus_replies(corpus: Corpus) -> list[LabelledReply]:
    """Every labelled reply to every item of the corpus, in the gold set's order."""
    return [reply for item in corpus.items for reply in item_replies(corpus, item)]


def by_kind(replies: Sequence[LabelledReply]) -> Iterator[tuple[str, list[LabelledReply]]]:
    """The replies grouped by the first part of their kind."""
    groups: dict[str, list[LabelledReply]] = {}
    for reply in replies:
        groups.setdefault(reply.kind.split("/")[0], []).append(reply)
    yield from groups.items()
