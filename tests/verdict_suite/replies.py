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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from assay.values import Value, read_values, same_value

from . import forms
from .corpora import Corpus
from .phrasing import (
    STYLES,
    Cite,
    citation_objects,
    cite_marker,
    field_phrase,
    field_terms,
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
    ("answer-first", "{V}{m}. That is the {phrase} stated for {title}."),
    ("plain", "The {phrase} is {v}{m}."),
    ("lead-in", "According to the {title} document, the {phrase} is {v}{m}."),
    ("answer-last", "Looking at the section on the {phrase} in {title}, the figure given is {v}{m}."),
    ("bullets", "Here is what I found:\n- {Phrase}: {v}{m}\n- Document: {title}"),
    ("table", "| Item | Value |\n|---|---|\n| {Phrase} | {v} |\n\n{Title}{m}"),
    ("context", "Based on the provided context, {title} sets the {phrase} at {v}{m}."),
)
NEGATED = (
    "The {phrase} is not {v}{m}.",
    "{Title} does not set the {phrase} at {v}{m}.",
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
)
INVENTED = (  # a figure the page does not hold, beside a right answer
    ("It also comes with over {n} partner locations nationwide.", (9500, 12400, 7350)),
    ("Requests under it are handled within {n} working days.", (11, 13, 17)),
    ("It includes up to {n} free consultations a year.", (7, 9, 23)),
)


def _fill(shape: str, **values: str) -> str:
    capitals = {key[:1].upper() + key[1:]: value[:1].upper() + value[1:] for key, value in values.items()}
    return shape.format(**values, **capitals)


def quantity_replies(writer: Writer, q: forms.Quantity) -> None:
    """Every reply class for an item whose answer is a number."""
    page = writer.page_text()
    assert forms.states_quantity(page, q), (
        f"{writer.item['id']}: page {writer.page} does not state {q.plain()}"
    )
    phrase = field_phrase(writer.item, writer.title)
    stated = forms.stated_forms(q)
    base = {"phrase": phrase, "title": writer.title}
    for index, (name, shape) in enumerate(CORRECT_SHAPES):
        cite = writer.cite(STYLES[index % len(STYLES)])
        writer.add(
            f"correct/{name}/{cite.style}",
            CORRECT,
            _fill(shape, v=stated[index % len(stated)], m=writer.marker(cite), **base),
            [cite],
        )
    for form in stated[1:]:
        cite = writer.cite()
        writer.add(
            f"correct/form/{cite.style}",
            CORRECT,
            _fill("The {phrase} is {v}{m}.", v=form, m=writer.marker(cite), **base),
            [cite],
        )
    _second_figure(writer, q, base)
    other = _wrong_number(writer, q)
    for cited in (True, False):
        cites = [writer.cite()] if cited else []
        marker = writer.marker(cites[0]) if cites else ""
        writer.add(
            "wrong-number",
            writer.wrong(cites),
            _fill("The {phrase} is {v}{m}.", v=other, m=marker, **base),
            cites,
        )
    wrong_unit = forms.wrong_unit_form(q)
    if wrong_unit is not None:
        cite = writer.cite()
        writer.add(
            "wrong-unit",
            "wrong_cited",
            _fill("The {phrase} is {v}{m}.", v=wrong_unit, m=writer.marker(cite), **base),
            [cite],
        )
    for index, shape in enumerate(NEGATED):
        cites = [writer.cite()] if index == 0 else []
        marker = writer.marker(cites[0]) if cites else ""
        writer.add("negated", writer.wrong(cites), _fill(shape, v=q.plain(), m=marker, **base), cites)
    for index, shape in enumerate(HEDGED):
        cites = [writer.cite()] if index == 0 else []
        marker = writer.marker(cites[0]) if cites else ""
        writer.add("hedged", writer.wrong(cites), _fill(shape, v=q.plain(), w=other, m=marker, **base), cites)
    _ungrounded(writer, q, base)
    _refusals(writer, base)


def _second_figure(writer: Writer, q: forms.Quantity, base: dict[str, str]) -> None:
    """A right answer with a second true figure from the same page, in another clause."""
    terms = field_terms(writer.item)
    for line in writer.page_text().splitlines():
        line = line.strip()
        if not 40 <= len(line) <= 160 or not regex.search(
            r"\d+\s*(?:%|days?|months?|years?|hours?)", line, regex.I
        ):
            continue
        if forms.has_number(line, q.number) or any(
            regex.search(rf"\b{term}", line.casefold()) for term in terms
        ):
            continue
        cite = writer.cite("id")
        text = _fill(
            "The {phrase} is {v}{m}. The same page also says: {line}",
            v=q.plain(),
            m=writer.marker(cite),
            line=line,
            **base,
        )
        writer.add("correct/second-figure", CORRECT, text, [cite])
        return


def _wrong_number(writer: Writer, q: forms.Quantity) -> str:
    """Another number in the item's unit: one the page states for another clause when there is one."""
    for mention in read_values(writer.page_text()):
        number = mention.value.value
        if (
            mention.value.unit == q.unit
            and isinstance(number, (int, float))
            and not isinstance(number, bool)
            and number != q.number
            and number > 0
        ):
            return q.with_number(forms.western(number))
    number = q.number * 2 if q.number < 1000 else q.number + 500
    return q.with_number(forms.western(number))


def _ungrounded(writer: Writer, q: forms.Quantity, base: dict[str, str]) -> None:
    """The right value with support a careful reader does not find: another clause's page, another
    document, a quote the page does not hold, an invented figure."""
    plain = q.plain()
    for page in wrong_pages(writer, q)[:2]:
        cite = writer.cite(writer.rng.choice(("id", "source-tag", "title")), page=page)
        writer.add(
            "wrong-page",
            "correct_ungrounded",
            _fill("The {phrase} is {v}{m}.", v=plain, m=writer.marker(cite), **base),
            [cite],
        )
    for document in [other for other in writer.corpus.sources if other != writer.document][:1]:
        pages = len(writer.corpus.pages(document))
        cite = writer.cite("title", document=document, page=min(writer.page, pages))
        writer.add(
            "wrong-document",
            "correct_ungrounded",
            _fill("The {phrase} is {v}{m}.", v=plain, m=writer.marker(cite), **base),
            [cite],
        )
    fake = sentence(f"the {base['phrase']} shall be {plain} for every customer without exception")
    assert not forms.holds_quote(writer.page_text(), fake), (
        f"{writer.item['id']}: the made-up quote is on the page"
    )
    cite = writer.cite("quote", quote=fake)
    writer.add(
        "fabricated-quote", "correct_ungrounded", _fill("The {phrase} is {v}.", v=plain, **base), [cite]
    )
    cite = writer.cite("id")
    writer.add(
        "fabricated-quote/in-text",
        "correct_ungrounded",
        _fill(
            'The {phrase} is {v}. The document says: "{fake}"{m}',
            v=plain,
            fake=fake,
            m=writer.marker(cite),
            **base,
        ),
        [cite],
    )
    shape, numbers = INVENTED[writer.rng.randrange(len(INVENTED))]
    number = next(n for n in numbers if n != q.number and not forms.has_number(writer.page_text(), n))
    cite = writer.cite(writer.rng.choice(("id", "source-tag")))
    text = _fill(
        "The {phrase} is {v}{m}. " + shape, v=plain, m=writer.marker(cite), n=forms.western(number), **base
    )
    writer.add("invented-figure", "correct_ungrounded", text, [cite])


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
    for shape in REFUSALS:
        writer.add("refusal", "refused_answerable", _fill(shape, **base))


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
        shapes = [sentence(answers[answer]), f"{'Yes' if answer else 'No'}."]
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
    _refusals(writer, {"phrase": field_phrase(writer.item, writer.title), "title": writer.title})


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


_ = Callable  # typing helper kept for the label functions above
