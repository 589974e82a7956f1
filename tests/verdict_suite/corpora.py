"""The suite's two corpora, each built into a gold set with assay's own library as ``assay gold build``
does: the shared insurance documents (read in place) and the generated software SLA and price list."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.harness import (
    Sources,
    Templates,
    build_gold,
    load_facts,
    load_sources,
    load_templates,
    verify_claims,
)

from . import software

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ASSAY_SHARED_DATA", REPO.parent / "shared" / "data"))
INSURANCE = SHARED / "insurance"
INSURANCE_TEMPLATES = REPO / "examples" / "insurance_templates.toml"
CORPORA = ("insurance", "software")


@dataclass(frozen=True)
class Corpus:
    """A corpus built into a gold set: its documents (the sources folder as assay reads it), items and
    templates, and how people name each document (title, file name)."""

    name: str
    root: Path  # the sources folder: replies cite documents in it, and grounded reads it
    sources: Sources
    items: tuple[Mapping[str, Any], ...]
    templates: Templates
    titles: Mapping[str, str] = field(default_factory=dict)  # document id -> its title in the facts

    def pages(self, document: str) -> Sequence[str]:
        return self.sources[document].pages

    def file_name(self, document: str) -> str:
        return Path(self.sources[document].path).name

    def title(self, document: str) -> str:
        return self.titles.get(document, document)


def insurance_available() -> bool:
    return (INSURANCE / "facts").is_dir() and (INSURANCE / "pdfs").is_dir()


def insurance_corpus() -> Corpus:
    """The shared insurance facts and PDFs (read where they are, never copied)."""
    return _built("insurance", INSURANCE / "pdfs", INSURANCE / "facts", INSURANCE_TEMPLATES, cache=True)


def software_corpus(folder: Path) -> Corpus:
    """The software SLA and price list, generated as PDFs under `folder`."""
    pdfs, facts, templates = software.write_corpus(folder)
    return _built("software", pdfs, facts, templates, cache=False)


def _built(name: str, pdfs: Path, facts: Path, templates_path: Path, *, cache: bool) -> Corpus:
    templates = load_templates(templates_path)
    sources = load_sources(pdfs) if cache else load_sources(pdfs, cache_dir=None)
    gold = build_gold(
        verify_claims(load_facts(facts), sources, templates=templates), templates, refusals=True
    )
    titles = {
        str(item["source"]["document"]): str(item["source"]["title"])
        for item in gold.items
        if item.get("source") and item["source"].get("title")
    }
    return Corpus(name, pdfs, sources, tuple(gold.items), templates, titles)
