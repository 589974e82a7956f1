"""Replies to a yes/no item (the right answer with the question's own predicate, the opposite one) and
to a text or enum item (the value, an altered value)."""

from __future__ import annotations

import regex

from . import forms
from .phrasing import STYLES, field_phrase, lower_first, predicate_statements, sentence, without_source
from .refusals import REFUSALS_PER_ITEM, WHETHER_REFUSALS, refuse_answerable
from .writer import CORRECT, Writer, fill

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
        word = "Yes" if answer else "No"
        shapes = [
            ("template", sentence(answers[answer])),
            ("word", f"{word}."),
            ("template-bare", sentence(bare)),
        ]
        if statements:
            said = statements[0] if answer else statements[1]
            unsourced = without_source(said, writer.title)
            shapes += [
                ("predicate", said),
                ("word-predicate", f"{word} — {lower_first(said, writer.title)}"),
                (
                    "lead-in-predicate",
                    f"According to the {writer.title} document, {lower_first(unsourced, writer.title)}",
                ),
            ]
        for index, (name, shape) in enumerate(shapes):
            cites = [writer.cite(STYLES[index % len(STYLES)])] if kind == "correct" or index % 2 == 0 else []
            marker = writer.marker(cites[0]) if cites else ""
            text = shape[:-1] + marker + "." if shape.endswith(".") else shape + marker
            writer.add(f"{kind}/{name}", label_of(cites), text, cites)
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
    clause = lower_first(statements[0][:-1], writer.title) if statements else None
    if clause is None:
        refuse_answerable(writer, {"phrase": field_phrase(writer.item, writer.title), "title": writer.title})
        return
    start = writer.rng.randrange(len(WHETHER_REFUSALS))
    for offset in range(REFUSALS_PER_ITEM):
        shape = WHETHER_REFUSALS[(start + offset) % len(WHETHER_REFUSALS)]
        writer.add("refusal", "refused_answerable", shape.format(clause=clause, title=writer.title))


# --- text and enum values -------------------------------------------------------------------------------


TEXT_SHAPES = (
    ("plain", "The {phrase} is {v}{m}."),
    ("answer-only", "{V}{m}."),
    ("lead-in", "According to {title}, the {phrase} is {v}{m}."),
)


def text_replies(writer: Writer) -> None:
    """A text or enum value (a product code, a kind): right, altered, refused."""
    answer = str(writer.item["expected_answer"])
    phrase = field_phrase(writer.item, writer.title)
    shown = answer.split(":")[0]  # "Pan India: treatment within India only" -> "Pan India"
    assert forms.alnum(shown) in forms.alnum(writer.page_text()) or forms.holds_quote(
        writer.page_text(), writer.quote
    ), writer.item["id"]
    for index, (name, shape) in enumerate(TEXT_SHAPES):
        cite = writer.cite(STYLES[index % len(STYLES)])
        text = fill(shape, v=shown, m=writer.marker(cite), phrase=phrase, title=writer.title)
        writer.add(f"correct/{name}", CORRECT, text, [cite])
    altered = _altered(writer, shown)
    if altered:
        cite = writer.cite()
        writer.add(
            "wrong-value",
            "wrong_cited",
            fill(
                "The {phrase} is {v}{m}.", v=altered, m=writer.marker(cite), phrase=phrase, title=writer.title
            ),
            [cite],
        )
    refuse_answerable(writer, {"phrase": phrase, "title": writer.title})


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
