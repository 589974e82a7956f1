"""An example system under test for `assay run`: a small retrieval-augmented bot over a folder of PDFs.

    answer(question, scope=None, **options) -> {text, citations, contexts, blocked, route, model}

What it does, step by step (each step a small function, so a team can swap one for their own; retrieval.py
holds steps 1 and 2, extract.py step 4, this file the rest):

1. Index. The documents of a sources folder (PDFs, and .txt/.md files) are read with assay's own extractor
   (`assay.harness.load_sources`, which caches extracted pages). Each page is cut into chunks of about
   CHUNK_CHARS characters that overlap by OVERLAP_CHARS, their ends snapped to whitespace; every chunk keeps
   its document id, page and character offsets into the page text. Each document gets its own BM25 index
   (`bm25s`): a scope is a document id, as the seed's `policy_filter_ids` was a policy id. The indexes are
   built once per process and shared by every thread.
2. Retrieve. The question's words (lower-cased, stop words dropped, Snowball-stemmed) are scored against the
   scope's index (or every document's, when there is no scope). A chunk's retrieval score is its BM25 score
   divided by the most the question could score (every term's idf): the share of the question's weight the
   chunk covers, from 0 to 1, comparable across documents and questions. Ties go to the earlier chunk.
3. Guard. When the best chunk's score is below the floor, the reply is blocked: no text, route "guard".
4. Answer. The sentences of the top chunks' pages that overlap those chunks are scored (BM25 over the
   sentence, with the document's idf; a sentence with a number wins more when the question asks for a
   quantity); the best one is the answer, as written, with `[Source: <document>, p.N]`. A yes/no question is
   answered "Yes."/"No." first only when the sentence plainly says so (a negation, or a word of cover and no
   negation); otherwise the sentence stands alone.
5. Optionally generate: with `llm=BASE_URL` an OpenAI-compatible chat endpoint writes the answer from the
   top contexts (route "generative"); the citations stay those of the passages it was given.

Options (strings, as `assay run --system-option KEY=VALUE` passes them): `sources` (a folder; default the
ASSAY_EXAMPLE_SOURCES environment variable, else the repository's examples/gold/sources), `page_cache` (the
extracted pages' folder; assay's default, .assay-cache/pages), `chunk` and `overlap` (characters), `floor`
(0 to 1), `top` (chunks read for the answer), `llm` (a base URL ending in /v1), `model`, `llm_timeout`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

# The modules beside this file (retrieval.py, extract.py), however it is loaded: by `assay run` from its
# path, by serve.py, or by a test.
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)

from extract import asked_quantity, best_sentence, source_tag, yes_or_no  # noqa: E402
from retrieval import (  # noqa: E402
    CHUNK_CHARS,
    OVERLAP_CHARS,
    Chunk,
    DocumentIndex,
    as_written,
    indexes,
    retrieve,
)

from assay.harness import DEFAULT_PAGE_CACHE  # noqa: E402

SOURCES_ENV = "ASSAY_EXAMPLE_SOURCES"
BUNDLED_SOURCES = Path(__file__).resolve().parent.parent / "gold" / "sources"
TOP_CHUNKS = 8
DEFAULT_FLOOR = 0.08  # measured on the shared insurance gold set and the bundled example: see docs/run.md
EXTRACTIVE_MODEL = "bm25s-extractive"
OPTIONS = frozenset(
    {"sources", "page_cache", "chunk", "overlap", "floor", "top", "llm", "model", "llm_timeout"}
)


# --- the reply ---------------------------------------------------------------------------------------


def answer(question: str, scope: str | None = None, **options: Any) -> dict[str, Any]:
    """The bot's reply to one question: text, citations, contexts, blocked, route, model."""
    found = prepare(**options)
    hits = retrieve(question, scope, found, int(options.get("top", TOP_CHUNKS)))
    contexts = [context_of(hit.chunk) for hit in hits]
    if not hits or hits[0].score < float(options.get("floor", DEFAULT_FLOOR)):
        return reply("", [], contexts, blocked=True, route="guard", model=EXTRACTIVE_MODEL)
    chosen = best_sentence(question, scope, hits, found)
    page_text = found[chosen.chunk.document].pages[chosen.chunk.page - 1]
    sentence = page_text[chosen.span.start : chosen.span.end]
    citation = {
        "document": chosen.chunk.document,
        "page": chosen.chunk.page,
        "start": chosen.span.start,
        "end": chosen.span.end,
        "quote": sentence,
    }
    if options.get("llm"):
        passages = [chosen.chunk, *(hit.chunk for hit in hits if hit.chunk != chosen.chunk)]
        text, model = generated_answer(question, passages[:GENERATION_PASSAGES], citation, options)
        return reply(text, [citation], contexts, blocked=False, route="generative", model=model)
    lead = yes_or_no(question, sentence) or asked_quantity(question, scope, sentence)
    text = " ".join(part for part in (f"{lead}." if lead else "", as_written(sentence)) if part)
    text = f"{text} {source_tag(chosen.chunk.document, chosen.chunk.page)}"
    return reply(text, [citation], contexts, blocked=False, route="extractive", model=EXTRACTIVE_MODEL)


def prepare(**options: Any) -> dict[str, DocumentIndex]:
    """The indexes the options name (built now, if not yet); ValueError for an option the bot lacks."""
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        known = ", ".join(sorted(OPTIONS))
        raise ValueError(f"unknown option(s) {', '.join(unknown)}: the bot takes {known}")
    return indexes(
        sources_folder(options.get("sources")),
        int(options.get("chunk", CHUNK_CHARS)),
        int(options.get("overlap", OVERLAP_CHARS)),
        Path(str(options.get("page_cache") or DEFAULT_PAGE_CACHE)),
    )


def sources_folder(given: object) -> Path:
    """The `sources` option, else $ASSAY_EXAMPLE_SOURCES, else the repository's bundled example."""
    return Path(str(given or os.environ.get(SOURCES_ENV) or BUNDLED_SOURCES))


def context_of(chunk: Chunk) -> dict[str, Any]:
    return {"document": chunk.document, "page": chunk.page, "start": chunk.start, "end": chunk.end,
            "text": chunk.text}


def reply(
    text: str, citations: Iterable[Mapping[str, Any]], contexts: Iterable[Mapping[str, Any]], *,
    blocked: bool, route: str, model: str,
) -> dict[str, Any]:
    return {"text": text, "citations": list(citations), "contexts": list(contexts), "blocked": blocked,
            "route": route, "model": model}


# --- optional generation -----------------------------------------------------------------------------

GENERATION_PASSAGES = 3  # a small model's context holds three chunks and the answer
GENERATION_PROMPT = (
    "Answer the question from the numbered passages only, in one or two sentences, keeping numbers as the "
    "passages write them. Say 'Yes' or 'No' first when the question asks for one. When the passages do "
    "not answer it, say that the documents do not say."
)


def generated_answer(question: str, passages: Sequence[Chunk], citation: Mapping[str, Any],
                     options: Mapping[str, Any]) -> tuple[str, str]:
    """The answer an OpenAI-compatible chat endpoint writes from the passages (the best sentence's chunk
    first), and its model; the best sentence's source tag is added when the model wrote none, so the
    citation stays checkable."""
    import httpx  # only a generating bot needs it

    base = str(options["llm"]).rstrip("/")
    timeout = float(options.get("llm_timeout", 60))
    with httpx.Client(timeout=timeout) as client:
        model = str(options.get("model") or client.get(f"{base}/models").json()["data"][0]["id"])
        numbered = "\n\n".join(
            f"[{n}] {source_tag(chunk.document, chunk.page)} {as_written(chunk.text)}"
            for n, chunk in enumerate(passages, 1)
        )
        body = {
            "model": model,
            "temperature": 0,
            "max_tokens": 200,
            "messages": [
                {"role": "system", "content": GENERATION_PROMPT},
                {"role": "user", "content": f"Passages:\n{numbered}\n\nQuestion: {question}"},
            ],
        }
        response = client.post(f"{base}/chat/completions", json=body)
        response.raise_for_status()
        text = str(response.json()["choices"][0]["message"]["content"]).strip()
    if "[Source:" not in text:
        text = f"{text} {source_tag(str(citation['document']), int(citation['page']))}"
    return text, model
