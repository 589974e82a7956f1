"""The example system under test (examples/rag_system): the bot in process and served over HTTP.

Real parts only: synthetic PDFs written with pdfgen, the bot's real BM25 indexes, its real HTTP server
(serve.py in a subprocess on 127.0.0.1, asked with httpx), the llama.cpp server for generation, and the
shared insurance PDFs where they are present.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pdfgen
import pytest

from conftest import Server, skip_or_fail

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "rag_system"
SHARED_PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance" / "pdfs"

# Two policies, three pages each; every line fits the page (pdfgen writes one line per baseline).
ALPHA = (
    ("Alpha Health Policy. Section 1. Definitions.", "A hospital means an institution for in-patient care."),
    ("Section 2. Renewal.", "The grace period for renewal of this policy is thirty days."),
    ("Section 3. Waiting periods.", "Cataract surgery is covered after a waiting period of 24 months."),
)
BETA = (
    ("Beta Travel Policy. Section 1. Definitions.", "A journey means a trip that starts and ends at home."),
    ("Section 2. Baggage.", "Baggage delay is covered after 12 hours of delay at the airport."),
    ("Section 3. Cancellation.", "Trip cancellation is not covered for a pre-existing illness."),
)


@pytest.fixture(scope="module")
def bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rag_system_bot", EXAMPLE / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("policies")
    pdfgen.pages_pdf(root / "sources" / "alpha", "policy.pdf", ALPHA)
    pdfgen.pages_pdf(root / "sources" / "beta", "policy.pdf", BETA)
    return {"sources": str(root / "sources"), "page_cache": str(root / "cache")}


def cited(reply: dict[str, Any]) -> set[tuple[str, int]]:
    return {(citation["document"], citation["page"]) for citation in reply["citations"]}


@pytest.mark.parametrize(
    ("question", "scope", "page", "says"),
    [
        ("How many days is the grace period for renewal?", "alpha__policy", 2, "thirty days."),
        ("After how many hours is baggage delay covered?", "beta__policy", 2, "12 hours."),
        ("Is cataract surgery covered?", "alpha__policy", 3, "Yes."),
        ("Is trip cancellation covered for a pre-existing illness?", "beta__policy", 3, "No."),
        ("After how many hours is baggage delay covered?", None, 2, "12 hours."),
    ],
)
def test_the_bot_answers_from_the_page_that_says_it(
    bot: ModuleType, options: dict[str, str], question: str, scope: str | None, page: int, says: str
) -> None:
    reply = bot.answer(question, scope=scope, **options)
    document = scope or "beta__policy"
    assert reply["blocked"] is False and reply["route"] == "extractive"
    assert reply["text"].startswith(says)
    assert reply["text"].endswith(f"[Source: {document}, p.{page}]")
    assert cited(reply) == {(document, page)}


def test_contexts_and_citations_are_offsets_into_the_page_text(
    bot: ModuleType, options: dict[str, str]
) -> None:
    reply = bot.answer("How many days is the grace period for renewal?", scope="alpha__policy", **options)
    pages = bot.prepare(**options)["alpha__policy"].pages
    parts = [(context, "text") for context in reply["contexts"]]
    parts += [(citation, "quote") for citation in reply["citations"]]
    for part, key in parts:
        assert pages[part["page"] - 1][part["start"] : part["end"]] == part[key]
    assert "thirty days" in reply["citations"][0]["quote"]


@pytest.mark.parametrize(
    ("question", "scope", "other"),
    [
        ("After how many hours is baggage delay covered?", "alpha__policy", "beta__policy"),
        ("How many days is the grace period for renewal?", "beta__policy", "alpha__policy"),
    ],
)
def test_a_scope_keeps_retrieval_inside_its_document(
    bot: ModuleType, options: dict[str, str], question: str, scope: str, other: str
) -> None:
    unscoped = bot.answer(question, scope=None, **options)
    assert {document for document, _ in cited(unscoped)} == {other}  # the answer is in the other policy
    scoped = bot.answer(question, scope=scope, floor="0", **options)
    assert {context["document"] for context in scoped["contexts"]} <= {scope}
    assert {document for document, _ in cited(scoped)} <= {scope}


@pytest.mark.parametrize("question", ["Who painted the Mona Lisa?", "What is the boiling point of mercury?"])
def test_the_floor_blocks_a_question_the_documents_do_not_touch(
    bot: ModuleType, options: dict[str, str], question: str
) -> None:
    reply = bot.answer(question, scope="alpha__policy", **options)
    assert reply == {**reply, "text": "", "citations": [], "blocked": True, "route": "guard"}


def test_without_a_floor_the_same_question_gets_an_answer(bot: ModuleType, options: dict[str, str]) -> None:
    # what blocks is the floor: a question sharing one word with a policy passes a floor of 0
    reply = bot.answer("Who painted the hospital?", scope="alpha__policy", floor="0", **options)
    assert reply["blocked"] is False and reply["citations"]
    assert bot.answer("Who painted the hospital?", scope="alpha__policy", floor="0.9", **options)["blocked"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"scope": "gamma__policy"}, "unknown scope 'gamma__policy'"),
        ({"scope": "alpha__policy", "flor": "0.1"}, "unknown option(s) flor"),
    ],
)
def test_a_wrong_scope_or_option_is_an_error_naming_it(
    bot: ModuleType, options: dict[str, str], call: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        bot.answer("How long is the grace period?", **{**options, **call})


QUESTIONS = [
    ("How many days is the grace period for renewal?", "alpha__policy"),
    ("After how many hours is baggage delay covered?", "beta__policy"),
    ("Is trip cancellation covered for a pre-existing illness?", None),
    ("Who painted the Mona Lisa?", "alpha__policy"),
]


def test_threads_asking_at_once_get_the_answers_of_one_thread(
    bot: ModuleType, options: dict[str, str]
) -> None:
    fresh = {**options, "chunk": "300", "overlap": "60"}  # an index not built yet: threads race to build it
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda qs: bot.answer(qs[0], scope=qs[1], **fresh), QUESTIONS * 6))
    alone = [bot.answer(question, scope=scope, **fresh) for question, scope in QUESTIONS]
    assert together == alone * 6
    assert bot.prepare(**fresh) is bot.prepare(**fresh)  # built once, then shared


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "word",
        "a " * 700,
        "x" * 1500,
        "Section 1. " + "cover " * 400 + "\n\nend",
        "é\u00a0ü " * 300,
    ],
)
def test_chunks_cover_the_text_overlap_and_never_cut_a_word(bot: ModuleType, text: str) -> None:
    spans = sys.modules["retrieval"].chunk_spans(text, 600, 150)  # loaded beside the bot
    covered = set().union(*(range(start, end) for start, end in spans)) if spans else set()
    assert covered >= {at for at, char in enumerate(text) if not char.isspace()}
    for (start, end), following in zip(spans, [*spans[1:], None]):
        assert end - start <= 600 and text[start:end].strip() == text[start:end]
        assert end == len(text) or text[end].isspace() or end - start == 600  # a word cut only when too long
        if following is not None:
            assert following[0] < end or text[end:following[0]].isspace()  # overlap, or only space between
            assert following[0] > start


# --- over HTTP ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(options: dict[str, str]) -> Iterator[str]:
    command = [sys.executable, str(EXAMPLE / "serve.py"), "--port", "0"]
    command += [argument for key, value in options.items() for argument in ("--option", f"{key}={value}")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/ask", line)
        assert found, f"serve.py printed {line!r}; stderr: {process.stderr.read() if process.stderr else ''}"
        yield found.group()
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.mark.parametrize(("question", "scope"), QUESTIONS)
def test_the_server_answers_as_the_bot_does_in_process(
    bot: ModuleType, options: dict[str, str], served: str, question: str, scope: str | None
) -> None:
    response = httpx.post(served, json={"question": question, "scope": scope}, timeout=30)
    assert response.status_code == 200
    assert response.json() == bot.answer(question, scope=scope, **options)


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"question": "How long?", "scope": "gamma__policy"}, 400, "unknown scope"),
        ({"scope": "alpha__policy"}, 400, '"question" must be a non-empty string'),
        ({"question": "How long?", "scope": 3}, 400, '"scope" must be a string'),
        ([1, 2], 400, "must be a JSON object"),
    ],
)
def test_the_server_refuses_a_bad_request_saying_why(
    served: str, body: object, status: int, error: str
) -> None:
    response = httpx.post(served, json=body, timeout=30)
    assert response.status_code == status
    assert error in response.json()["error"]


def test_the_server_answers_404_off_its_path(served: str) -> None:
    response = httpx.post(served.replace("/ask", "/query"), json={"question": "x"}, timeout=30)
    assert response.status_code == 404


# --- generation through an OpenAI-compatible endpoint --------------------------------------------------


def test_generation_keeps_the_retrieved_citation(
    bot: ModuleType, options: dict[str, str], llama_server: Server
) -> None:
    question = "How many days is the grace period for renewal?"
    extractive = bot.answer(question, scope="alpha__policy", **options)
    generated = bot.answer(question, scope="alpha__policy", llm=llama_server.base_url, **options)
    assert generated["route"] == "generative" and generated["model"] == llama_server.model
    assert generated["citations"] == extractive["citations"]
    assert generated["text"].strip() and "[Source:" in generated["text"]


# --- the shared insurance wordings -------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if not SHARED_PDFS.is_dir():
        skip_or_fail(f"the shared insurance PDFs are missing ({SHARED_PDFS})")
    return {"sources": str(SHARED_PDFS), "page_cache": str(tmp_path_factory.mktemp("shared-cache"))}


@pytest.mark.parametrize(
    ("question", "scope", "says", "page"),
    [
        (
            "For how many days after discharge are post-hospitalisation expenses covered?",
            "niva-bupa__rise__wordings",
            "180 days.",
            6,
        ),
        ("What is the free look period?", "aditya-birla__activ-assure-diamond__wordings", "15 days.", 17),
    ],
)
def test_the_bot_answers_from_the_shared_wordings(
    bot: ModuleType, shared: dict[str, str], question: str, scope: str, says: str, page: int
) -> None:
    reply = bot.answer(question, scope=scope, **shared)
    assert reply["text"].startswith(says)
    assert cited(reply) == {(scope, page)}
    assert {context["document"] for context in reply["contexts"]} == {scope}


# --- the answering sentence's lead -------------------------------------------------------------------

PRE_POST = (
    "We will pay expenses for 60 days before the date of admission and 180 days after date of discharge."
)


@pytest.fixture(scope="module")
def extract(bot: ModuleType) -> ModuleType:
    return sys.modules["extract"]  # loaded beside the bot


@pytest.mark.parametrize(
    ("question", "sentence", "lead"),
    [
        ("For how many days before admission are expenses covered?", PRE_POST, "60 days"),
        ("For how many days after discharge are expenses covered?", PRE_POST, "180 days"),
        ("What is the grace period?", "The grace period is thirty days.", "thirty days"),
        ("What is the waiting period?", "2.1 Claims within 30-day of the start are excluded.", "30-day"),
        ("What is the waiting period?", "a waiting period of up to 48 \nmonths applies", "48 \nmonths"),
        ("What co-payment percentage applies?", "A co-payment of 20% applies to each claim.", "20%"),
        ("What co-payment percentage applies?", "Each claim is settled within 30 days.", None),
        ("How many beds must a hospital have?", "Section 56(1) of the Act of 2010 applies.", None),
        ("What is the room rent limit?", "Room rent is payable up to INR 5,000 per day.", "INR 5,000"),
        ("Is maternity covered?", PRE_POST, None),
    ],
)
def test_a_quantity_question_is_answered_first_with_the_quantity_its_clause_asks_for(
    extract: ModuleType, question: str, sentence: str, lead: str | None
) -> None:
    assert extract.asked_quantity(question, None, sentence) == (lead and " ".join(lead.split()))


@pytest.mark.parametrize(
    ("question", "sentence", "verdict"),
    [
        ("Is cataract surgery covered?", "Cataract surgery is covered after two years.", "Yes"),
        ("Does the policy pay for an ambulance?", "We will pay for an ambulance up to INR 2,000.", "Yes"),
        ("Is maternity covered?", "Maternity expenses are not covered.", "No"),
        ("Is maternity covered?", "We shall not be liable for maternity expenses.", "No"),
        ("Is maternity covered?", "Maternity expenses are excluded.", "No"),
        ("Is the bonus payable?", "The No Claim Bonus is payable on renewal.", "Yes"),  # a name, no negation
        ("Is life support covered?", "Treatment that will not result in recovery.", None),  # no cover negated
        ("Is AYUSH covered?", "AYUSH treatment refers to Ayurveda, Yoga and Unani.", None),  # a definition
        ("How long is the grace period?", "The grace period is not available monthly.", None),  # not yes/no
    ],
)
def test_a_yes_no_answer_says_yes_or_no_only_when_the_sentence_plainly_does(
    extract: ModuleType, question: str, sentence: str, verdict: str | None
) -> None:
    assert extract.yes_or_no(question, sentence) == verdict


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        ("2.1 Expenses within 30 days are excluded.", ["30"]),
        ("Code- Excl03 under clause 4.1.3. of the policy", []),
        ("4.1 The limit is 50% of the sum insured.", ["50"]),
        ("the longer of the two waiting periods applies", []),
        ("a period of fifteen days, or thirty days in other cases", ["fifteen days", "thirty days"]),
    ],
)
def test_quantities_leave_out_codes_clause_numbers_and_bare_number_words(
    extract: ModuleType, sentence: str, found: list[str]
) -> None:
    assert [match.group() for match in extract.quantities(sentence)] == found
