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

numbers.py, yesno.py and refusals.py write the replies of each kind of item; this module picks the writer
by the item's answer type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import forms
from .corpora import Corpus
from .numbers import quantity_replies, wrong_pages
from .refusals import refusal_item_replies
from .writer import CORRECT, FAULT_LABELS, LabelledReply, Writer
from .yesno import bool_replies, text_replies

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


__all__ = ["CORRECT", "FAULT_LABELS", "LabelledReply", "corpus_replies", "item_replies", "wrong_pages"]
