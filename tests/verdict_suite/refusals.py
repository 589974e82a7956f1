"""Refusals: of an answerable item (``refused_answerable``), and on a refusal item, refusals in several
phrasings (``correct``) and fabricated answers (``answered_refusal``)."""

from __future__ import annotations

from .phrasing import refusal_topic
from .writer import CORRECT, Writer, fill

REFUSALS = (
    "The document doesn't state the {phrase}.",
    "I couldn't find the {phrase} in the provided documents.",
    "There is no information about the {phrase} in the {title} documents.",
    "The documents don't specify the {phrase}.",
    "I'm sorry, but the provided context does not mention the {phrase} for {title}.",
    "Unfortunately, that isn't stated in the documents I have access to.",
    "The {title} brochure doesn't give the {phrase}.",
    "दस्तावेज़ों में इसकी जानकारी नहीं दी गई है।",  # Hindi: "the documents do not give this information"
)
WHETHER_REFUSALS = (  # a yes/no item declined, in the question's own words
    "The documents don't say whether {clause}.",
    "I couldn't find whether {clause} in the provided documents.",
    "There is no information on whether {clause}.",
    "The {title} document doesn't specify whether {clause}.",
    "No, the answer is not provided in the documents.",  # a decline that opens with "No"
)
REFUSALS_PER_ITEM = 2  # the pool rotates over the items: every phrasing is used, no item is padded


def refuse_answerable(writer: Writer, base: dict[str, str]) -> None:
    """Refusals of an answerable item, REFUSALS_PER_ITEM of the pool from where the rng starts."""
    start = writer.rng.randrange(len(REFUSALS))
    for offset in range(REFUSALS_PER_ITEM):
        writer.add("refusal", "refused_answerable", fill(REFUSALS[(start + offset) % len(REFUSALS)], **base))


# --- refusal items ----------------------------------------------------------------------------------------


REFUSAL_ITEM_REPLIES = (
    "The {kind} doesn't name {topic}.",
    "I couldn't find {topic} in the {title} documents.",
    "The documents don't specify {topic}.",
    "There is no information about {topic} in the provided documents.",
    "{Topic} isn't stated in the {title} document.",
    "I'm sorry, but the documents provided do not mention {topic}.",
    "That information is not available in the documents I was given.",
    "दस्तावेज़ों में {title} के लिए यह जानकारी नहीं दी गई है।",  # Hindi: "the documents do not give this"
)
FABRICATED = (
    "According to {title}, it is 92.4%{m}.",
    "The {title} document puts it at 4,250{m}.",
    "Based on page 3 of {title}, the answer is the Riverside and Lakeside sites.",
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
        writer.add(f"refusal/{index}", CORRECT, fill(shape, topic=topic, title=title, kind=kind))
    for index, shape in enumerate(FABRICATED):
        cite = writer.cite(
            ("id", "source-tag", "title")[index % 3], page=min(3, len(writer.corpus.pages(document)))
        )
        writer.add(
            f"fabricated/{index}",
            "answered_refusal",
            fill(shape, topic=topic, title=title, m=writer.marker(cite)),
            [cite],
        )
