"""One item's replies in the making: the labelled reply, and the writer that makes an item's replies with
their citations (its rng seeded by the corpus and the item, so every build is the same)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .corpora import Corpus
from .phrasing import STYLES, Cite, citation_objects, cite_marker

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


def fill(shape: str, **values: str) -> str:
    capitals = {key[:1].upper() + key[1:]: value[:1].upper() + value[1:] for key, value in values.items()}
    return shape.format(**values, **capitals)


def with_marker(said: str, marker: str) -> str:
    """A sentence with a citation written before its full stop."""
    return f"{said[:-1]}{marker}." if said.endswith(".") else f"{said}{marker}"
