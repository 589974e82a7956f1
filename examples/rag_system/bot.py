"""An example system under test for `assay run`: a small retrieval-augmented bot over a folder of PDFs.

    answer(question, scope=None, **options) -> {text, citations, contexts, blocked, route, model}

What it does, step by step (each step a small function below, so a team can swap one for their own):

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
ASSAY_EXAMPLE_SOURCES environment variable, else the repository's examples/gold/sources), `floor` (0 to 1),
`top` (chunks read for the answer), `llm` (a base URL ending in /v1), `model` and `llm_timeout` (seconds).
"""

from __future__ import annotations

import math
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import bm25s
import numpy as np
import regex
import Stemmer
from bm25s.stopwords import STOPWORDS_EN

from assay.harness import load_sources

SOURCES_ENV = "ASSAY_EXAMPLE_SOURCES"
BUNDLED_SOURCES = Path(__file__).resolve().parent.parent / "gold" / "sources"
CHUNK_CHARS = 600
OVERLAP_CHARS = 150
TOP_CHUNKS = 3
DEFAULT_FLOOR = 0.08  # measured on the shared insurance gold set and the bundled example: see README.md
EXTRACTIVE_MODEL = "bm25s-extractive"
OPTIONS = frozenset({"sources", "chunk", "overlap", "floor", "top", "llm", "model", "llm_timeout"})

WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
# British -ise/-isation spelt as -ize/-ization, so "hospitalisation" meets "hospitalization" (Snowball
# stems the two apart).
BRITISH_ISE = regex.compile(r"(?<=\p{L}{3})is(?=e|ed|es|ing|ation|ations)$")
# Lucene's English stop words, and the words a question is asked with, which say nothing of its subject.
QUESTION_WORDS = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did",
                  "can", "could", "would", "should", "may", "might", "shall", "has", "have", "had", "its",
                  "many", "much", "under", "any", "i", "my", "me", "we", "our", "you", "your")  # fmt: skip
STOP = frozenset(STOPWORDS_EN) | frozenset(QUESTION_WORDS)
_stemmer = Stemmer.Stemmer("english")
_stem_lock = threading.Lock()  # a PyStemmer object is not documented as safe across threads


class Chunk(NamedTuple):
    document: str
    page: int  # 1-based
    start: int  # offsets into the page text, [start, end)
    end: int
    text: str


class Hit(NamedTuple):
    score: float  # the share of the question's weight the chunk covers, 0..1
    order: int  # the chunk's position in its document (ties go to the earlier)
    chunk: Chunk


# --- words -----------------------------------------------------------------------------------------


def terms(text: str) -> list[str]:
    """The words BM25 counts: lower-cased, stop words dropped, stemmed. pdfium's U+FFFE (a hyphen at a
    line's end) separates words, as the printed hyphen does."""
    words = [
        BRITISH_ISE.sub("iz", word)
        for word in WORD.findall(text.replace("\ufffe", " ").lower())
        if word not in STOP
    ]
    with _stem_lock:
        return list(_stemmer.stemWords(words))


# --- chunks and sentences ----------------------------------------------------------------------------


def chunk_spans(text: str, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[tuple[int, int]]:
    """[start, end) spans of about `size` characters overlapping by about `overlap`, every end moved back
    to whitespace (a word is never cut) and every start forward past it. The last span ends the text."""
    spans: list[tuple[int, int]] = []
    start = _skip_space(text, 0)
    while start < len(text):
        end = len(text) if len(text) - start <= size else _snap_back(text, start + size, start)
        spans.append((start, end))
        if end >= len(text):
            break
        next_start = _skip_space(text, _snap_back(text, end - overlap, start))
        start = next_start if next_start > start else end  # always move on
    return spans


def _snap_back(text: str, at: int, floor: int) -> int:
    """The last whitespace at or before `at` (after `floor`), else `at` itself (one very long word)."""
    cut = at
    while cut > floor and not text[cut - 1].isspace():
        cut -= 1
    return cut if cut > floor else at


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


# A sentence ends at . ! ? or ; before whitespace, or where a line starts a list item or a numbered clause
# ("•", "a.", "iv)", "4.1.3."): policy wordings run their clauses as lists more than as sentences.
SENTENCE_END = regex.compile(
    r"(?<=[.!?;])\s+|\n(?=\s*(?:[\u2022\u25cf\u25aa\u2013\-*]|\(?[0-9ivxIVX]{1,4}[.)]|\(?[a-z][.)]\s))"
)
LINE = regex.compile(r"[^\n]+")
RUNNING_SHARE = 0.5  # a line on half the pages or more (digits aside) is a running header or footer


class Span(NamedTuple):
    start: int
    end: int
    running: bool  # a running header or footer ("UIN: ... 29"), not the body's text


def running_lines(pages: Sequence[str]) -> frozenset[str]:
    """The lines that repeat on RUNNING_SHARE of the pages or more, page numbers aside: the headers and
    footers a printed document runs, which would otherwise glue themselves to the body's sentences."""
    counts = Counter(key for page in pages for key in {line_key(line) for line in page.split("\n")} if key)
    least = max(3, RUNNING_SHARE * len(pages))
    return frozenset(key for key, count in counts.items() if count >= least)


def line_key(line: str) -> str:
    return " ".join(regex.sub(r"\d+", "#", line).lower().split()) if regex.search(r"\p{L}", line) else ""


def sentence_spans(text: str, running: frozenset[str] = frozenset()) -> list[Span]:
    """The page's sentences, whitespace trimmed; a running line is a sentence of its own."""
    spans: list[Span] = []
    body_start = 0
    for line in [*LINE.finditer(text), None]:
        if line is not None and line_key(line.group()) not in running:
            continue
        body_end = line.start() if line else len(text)
        spans += _body_sentences(text, body_start, body_end)
        if line is not None:
            spans += [Span(*_trimmed(text, line.start(), line.end()), running=True)]
            body_start = line.end()
    return [span for span in spans if span.end > span.start]


def _body_sentences(text: str, start: int, end: int) -> list[Span]:
    spans, at = [], start
    for boundary in [*SENTENCE_END.finditer(text, start, end), None]:
        stop = boundary.start() if boundary else end
        spans.append(Span(*_trimmed(text, at, stop), running=False))
        at = boundary.end() if boundary else end
    return spans


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def as_written(text: str) -> str:
    """A passage as a reply shows it: lines joined, runs of whitespace one space, U+FFFE a hyphen."""
    return " ".join(text.replace("\ufffe", "-").split())


# --- the index ---------------------------------------------------------------------------------------


class DocumentIndex:
    """One document's chunks, its BM25 index, and each term's idf (the weights sentences are scored by)."""

    def __init__(self, document: str, pages: Sequence[str], size: int, overlap: int) -> None:
        self.document = document
        self.pages = tuple(pages)
        self.chunks = tuple(
            Chunk(document, number, start, end, page[start:end])
            for number, page in enumerate(pages, 1)
            for start, end in chunk_spans(page, size, overlap)
        )
        running = running_lines(pages)
        self.sentences = tuple(tuple(sentence_spans(page, running)) for page in pages)
        tokens = [terms(chunk.text) for chunk in self.chunks]
        self.document_frequency = Counter(term for chunk_terms in tokens for term in set(chunk_terms))
        self.retriever = bm25s.BM25()  # Lucene's BM25 (k1 1.5, b 0.75); a term's weight tops out at its idf
        if self.chunks:
            self.retriever.index(tokens, show_progress=False)

    def idf(self, term: str) -> float:
        """Lucene's idf, as bm25s computes it; a term in no chunk weighs the most."""
        count, total = self.document_frequency.get(term, 0), len(self.chunks)
        return math.log(1 + (total - count + 0.5) / (count + 0.5))

    def search(self, query: Sequence[str], k: int) -> list[Hit]:
        """The k best chunks, scored 0..1 (BM25 over the question's whole weight), ties by position."""
        weight = sum(self.idf(term) for term in query)
        known = [term for term in query if term in self.document_frequency]
        if not self.chunks or not known or weight <= 0:
            return []
        scores = np.asarray(self.retriever.get_scores(known), dtype=np.float64) / weight
        order = np.lexsort((np.arange(len(scores)), -scores))[:k]  # by score, then by position
        return [Hit(float(scores[i]), int(i), self.chunks[i]) for i in order if scores[i] > 0]


_indexes: dict[tuple[Path, int, int], dict[str, DocumentIndex]] = {}
_indexes_lock = threading.Lock()


def indexes(sources: Path, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> dict[str, DocumentIndex]:
    """Every document's index for a sources folder, built on first use and then shared (a lock makes
    threads that ask at once wait for one build rather than each building its own)."""
    key = (sources.resolve(), size, overlap)
    with _indexes_lock:
        if key not in _indexes:
            documents = load_sources(key[0])
            _indexes[key] = {
                doc_id: DocumentIndex(doc_id, doc.pages, size, overlap) for doc_id, doc in documents.items()
            }
        return _indexes[key]


def question_terms(question: str, scope: str | None) -> list[str]:
    """The question's terms; with a scope, less the words of its name: the scope already says which
    document, and its name in the question ("... under RISE") selects nothing inside it."""
    query = terms(question)
    if scope is None:
        return query
    name = set(terms(scope.replace("_", " ").replace("-", " ")))
    return [term for term in query if term not in name] or query


def retrieve(question: str, scope: str | None, found: Mapping[str, DocumentIndex], k: int) -> list[Hit]:
    """The k best chunks of the scope's document (of every document without a scope)."""
    if scope is not None and scope not in found:
        known = ", ".join(sorted(found)) or "none"
        raise ValueError(f"unknown scope {scope!r}: the sources hold the documents {known}")
    query = question_terms(question, scope)
    chosen = [found[scope]] if scope is not None else list(found.values())
    hits = [hit for index in chosen for hit in index.search(query, k)]
    return sorted(hits, key=lambda hit: (-hit.score, hit.chunk.document, hit.order))[:k]


# --- the extractive answer ---------------------------------------------------------------------------

QUANTITY = regex.compile(
    r"\b(?:how\s+(?:many|much|long|old|soon|often)|percent(?:age)?|proportion|period|duration|amount|limit"
    r"|ratio|minimum|maximum|age|number\s+of|up\s+to\s+what)\b",
    regex.IGNORECASE,
)
YES_NO = regex.compile(
    r"^\s*(?:is|are|does|do|did|can|could|will|would|shall|should|may|has|have|was|were)\b", regex.IGNORECASE
)
# Words that grant cover, and the same words negated ("not covered", "shall not be liable", "we do NOT
# pay") or an exclusion. A negation elsewhere in the sentence ("not result in recovery") says nothing
# about the cover asked for, so it is no answer. "no" counts lower-case only: "No Claim Bonus" names a
# benefit and negates nothing.
GRANTING = (
    r"(?:cover(?:s|ed|age)?|pays?|payable|paid|includ(?:es?|ed)|available|avail(?:s|ed)?|reimburs\w*"
    r"|indemnif\w*|eligible|entitled|allowed|admissible|provided|offer(?:s|ed)?|liable)"
)
AFFIRMATION = regex.compile(rf"(?i)\b{GRANTING}\b")
NEGATION = regex.compile(
    rf"\b(?:(?i:not|never|cannot|nor|\w+n't)|no)\s+(?:\w+\s+){{0,3}}?(?i:{GRANTING})\b"
    r"|(?i)\bexclu(?:ded|des?|sions?)\b"
)
# A quantity as written: a number that is not part of a code or a clause number ("Excl03", "4.1.3."),
# or a number word before a unit ("thirty days"; "the two waiting periods" is no quantity).
UNITS = r"(?:days?|weeks?|months?|years?|hours?|minutes?|%|percent|per\s?cent|times|lakhs?|crores?)"
QUANTITY_IN_TEXT = regex.compile(
    r"(?<![\p{L}\p{N}.])\d+(?:,\d{2,3})*(?:\.\d+)?(?![\p{L}\p{N}]|\.\d)"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|forty|fifty"
    rf"|sixty|ninety|hundred|thousand)(?:\s*\(\d+\))?[\s-]+{UNITS}(?!\p{{L}})",
    regex.IGNORECASE,
)
# A sentence that holds what the question asks for (a quantity; a yes or a no) counts half as much again.
CUE_BONUS = 1.5
HEADING_WORDS = 4


def wanted_cue(question: str) -> Callable[[str], bool] | None:
    """What a sentence answering the question should hold, as a test of the sentence; None for other
    questions."""
    if QUANTITY.search(question):
        return lambda sentence: bool(quantities(sentence))
    if YES_NO.search(question):
        return says_yes_or_no
    return None


class Sentence(NamedTuple):
    score: float
    hit_rank: int
    span: Span
    chunk: Chunk
    heading: bool


def best_sentence(question: str, scope: str | None, hits: Sequence[Hit],
                  index_of: Mapping[str, DocumentIndex]) -> Sentence:
    """The best sentence of the pages of `hits` that overlaps one of them (see `sentence_score`); ties go
    to the better chunk, then to the earlier sentence."""
    query = set(question_terms(question, scope))
    wants = wanted_cue(question)
    candidates: list[Sentence] = []
    seen: set[tuple[str, int, int]] = set()
    for rank, hit in enumerate(hits):
        index = index_of[hit.chunk.document]
        page = index.pages[hit.chunk.page - 1]
        for span in index.sentences[hit.chunk.page - 1]:
            key = (hit.chunk.document, hit.chunk.page, span.start)
            if span.end <= hit.chunk.start or span.start >= hit.chunk.end or key in seen:
                continue
            seen.add(key)
            text = page[span.start : span.end]
            score = sentence_score(text, query, index)
            if wants is not None and not span.running and wants(text):
                score *= CUE_BONUS
            candidates.append(Sentence(score + 0.1 * hit.score, rank, span, hit.chunk, is_heading(text)))
    answers = [candidate for candidate in candidates if not candidate.heading] or candidates
    return max(answers, key=lambda s: (s.score, -s.hit_rank, -s.span.start))


def is_heading(sentence: str) -> bool:
    """A title or a label ("Waiting periods"): too short to answer, though it tells what follows."""
    return len(WORD.findall(sentence)) < HEADING_WORDS and not any(ch.isdigit() for ch in sentence)


def sentence_score(sentence: str, query: set[str], index: DocumentIndex) -> float:
    """BM25 of the question's terms over the sentence, with the document's idf and its length against a
    25-word sentence, as a share of the question's weight (0..1)."""
    counts = Counter(terms(sentence))
    norm = 1.5 * (0.25 + 0.75 * sum(counts.values()) / 25)
    weight = sum(index.idf(term) for term in query) or 1.0
    return sum(index.idf(t) * counts[t] / (counts[t] + norm) for t in query if counts[t]) / weight


def yes_or_no(question: str, sentence: str) -> str | None:
    """"Yes" or "No" when the question is a yes/no one and the sentence plainly says which, else None."""
    if not YES_NO.search(question):
        return None
    if NEGATION.search(sentence):
        return "No"
    return "Yes" if AFFIRMATION.search(sentence) else None


def says_yes_or_no(sentence: str) -> bool:
    return bool(NEGATION.search(sentence) or AFFIRMATION.search(sentence))


def quantities(sentence: str) -> list[regex.Match[str]]:
    """The sentence's quantities, less a bare number that opens it: a clause number ("2.1 Expenses ...")."""
    found = list(QUANTITY_IN_TEXT.finditer(sentence))
    opening = sentence[: found[0].start()].strip(" (") if found else "x"
    if not opening and sentence[found[0].start()].isdigit() and not _has_unit(sentence, found[0]):
        found.pop(0)
    return found


def _has_unit(text: str, number: regex.Match[str]) -> bool:
    return bool(UNIT_AFTER.match(text, number.end()) or MONEY_BEFORE.search(text, 0, number.start()))


CLAUSE_END = regex.compile(r"[,;:()\[\]]|\s(?:and|or|but|while|whereas)\s", regex.IGNORECASE)
MONEY_BEFORE = regex.compile(r"(?:₹|rs\.?|inr|usd|\$|€|£)\s?$", regex.IGNORECASE)
UNIT_AFTER = regex.compile(rf"\s?{UNITS}(?!\p{{L}})", regex.IGNORECASE)


def asked_quantity(question: str, scope: str | None, sentence: str) -> str | None:
    """For a question asking for a quantity, the quantity of the sentence it asks for, as written: of
    the sentence's quantities, the one whose clause shares the most of the question's weight ("60 days
    before the date of admission" for "how many days before admission"); the first of equals."""
    if not QUANTITY.search(question):
        return None
    query = set(question_terms(question, scope))
    best: tuple[float, str] | None = None
    for found in quantities(sentence):
        clause = _clause(sentence, found.start(), found.end())
        weight = float(len(query & set(terms(clause))))
        if best is None or weight > best[0]:
            best = (weight, _with_unit(sentence, found.start(), found.end()))
    return None if best is None else as_written(best[1])


def _clause(text: str, start: int, end: int) -> str:
    before = [m.end() for m in CLAUSE_END.finditer(text, 0, start)]
    after = CLAUSE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def _with_unit(text: str, start: int, end: int) -> str:
    """The number with its unit after it ("30 days", "20%") or its currency before it ("INR 50,000")."""
    unit = UNIT_AFTER.match(text, end)
    money = MONEY_BEFORE.search(text, 0, start)
    return text[money.start() if money else start : unit.end() if unit else end]


def source_tag(document: str, page: int) -> str:
    return f"[Source: {document}, p.{page}]"


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
        text, model = generated_answer(question, hits, citation, options)
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

GENERATION_PROMPT = (
    "Answer the question from the numbered passages only, in one or two sentences, keeping numbers as the "
    "passages write them. Say 'Yes' or 'No' first when the question asks for one. When the passages do "
    "not answer it, say that the documents do not say."
)


def generated_answer(question: str, hits: Sequence[Hit], citation: Mapping[str, Any],
                     options: Mapping[str, Any]) -> tuple[str, str]:
    """The answer an OpenAI-compatible chat endpoint writes from the top passages, and its model; the
    best sentence's source tag is added when the model wrote none, so the citation stays checkable."""
    import httpx  # only a generating bot needs it

    base = str(options["llm"]).rstrip("/")
    timeout = float(options.get("llm_timeout", 60))
    with httpx.Client(timeout=timeout) as client:
        model = str(options.get("model") or client.get(f"{base}/models").json()["data"][0]["id"])
        passages = "\n\n".join(
            f"[{n}] {source_tag(hit.chunk.document, hit.chunk.page)} {as_written(hit.chunk.text)}"
            for n, hit in enumerate(hits, 1)
        )
        body = {
            "model": model,
            "temperature": 0,
            "max_tokens": 200,
            "messages": [
                {"role": "system", "content": GENERATION_PROMPT},
                {"role": "user", "content": f"Passages:\n{passages}\n\nQuestion: {question}"},
            ],
        }
        response = client.post(f"{base}/chat/completions", json=body)
        response.raise_for_status()
        text = str(response.json()["choices"][0]["message"]["content"]).strip()
    if "[Source:" not in text:
        text = f"{text} {source_tag(str(citation['document']), int(citation['page']))}"
    return text, model
