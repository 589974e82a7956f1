"""grounded trusts only the documents (issue 22, item 3): a reply's contexts say what the system retrieved,
never what the documents say. A figure the reply states is grounded only in the documents' text as assay
extracted it: the page a context names, the span where a context's text is, the words where a quote of
the reply was found; a context's own text (or the reply's own quote) grounds nothing.

Through the real scorer (``assay.score`` with ``--sources``) on a real PDF made with tests/support/pdfgen.py,
and once through ``assay run`` with a system that returns its contexts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
from cli_run import run

from assay.scorers import Outcome
from assay.scorers.grounding.check import MAX_QUOTED
from assay.scorers.grounding.retrieved import MAX_CONTEXTS
from assay.scoring import ScoreOptions, score
from assay.trace import trace

POLICY = "acme__shield"
GRACE_QUOTE = "A grace period of thirty days is allowed for the renewal of every policy."
PAGES = (
    ("Acme Shield policy wording.", "This wording was revised in 2024."),
    ("Section 2.", GRACE_QUOTE, "Premiums are payable in advance."),
    (
        "Section 3. Pre-existing diseases are covered after 36 months of continuous coverage.",
        "A co-payment of 20% applies to each claim.",
        "The sum insured is Rs. 5,00,000 per policy year.",
    ),
    ("Section 4. Renewal notices are sent before the policy year ends.",),
)
TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
GRACE = "The grace period is 30 days"  # the answer, which the cited p.2 states
SIXTY = "A grace period of sixty days is allowed for the renewal of every policy."  # p.2, one word changed


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sources")
    pdfgen.pages_pdf(root / "acme", "shield.pdf", PAGES)
    return root


def _context(page: int | None, text: str | None, document: str = POLICY) -> dict[str, Any]:
    return {"document": document, "page": page, "text": text}


def _graded(
    sources: Path | None,
    tmp_path: Path,
    response: str,
    contexts: list[dict[str, Any]],
    cites: bool = True,
    quote: str | None = None,
) -> tuple[Outcome, str, str]:
    """grounded's verdict on one row citing p.2 (the gold quote's page; with the citation's `quote`),
    its problems and its trace."""
    citation = {"document": POLICY, "page": 2, **({"quote": quote} if quote else {})}
    row = {
        "id": "grace",
        "scope": POLICY,
        "question": "What is the grace period for renewing an Acme Shield policy?",
        "expected_answer": "30 days",
        "source": {"document": POLICY, "title": "Acme Shield", "page": 2, "quote": GRACE_QUOTE},
        "response": response,
        "reply": {"citations": [citation] if cites else [], "contexts": contexts},
    }
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    options = ScoreOptions(sources=None if sources is None else str(sources))
    result = score(path, ["grounded"], options=options)
    scores = result.metrics["grounded"]
    problems = scores.texts["grounded_problems"][0] or ""
    return scores.outcome(0), problems, trace(result, "grounded", 0).rule


# --- a context that invents what the documents do not say grounds nothing ----------------------------


@pytest.mark.parametrize(
    ("claim", "context", "problem"),
    [
        # a number no page states, in a context naming a real page
        (", at any of 9,500 network hospitals.", _context(3, "Cashless at 9,500 network hospitals."),
         "'9,500 network hospitals' is not in the cited or retrieved text (only context 1's own text "
         "states it, and that text is not in acme__shield p.3)"),
        # the same, in a context naming no page: its text is in no page, so nothing of it is read
        (", at any of 9,500 network hospitals.", _context(None, "Cashless at 9,500 network hospitals."),
         "'9,500 network hospitals' is not in the cited or retrieved text (only context 1's own text "
         "states it, and that text is not in acme__shield)"),
        # a date (its day, a bare number no page states)
        ("; renewals fall due on 17 March.", _context(4, "Renewals fall due on 17 March of each year."),
         "'17 march' is not in the cited or retrieved text"),
        # a percentage
        ("; a co-payment of 35% applies.", _context(None, "A co-payment of 35% applies to each claim."),
         "'35%' is not in the cited or retrieved text"),
        # a page the document does not have
        ("; the sum insured is ₹7 lakh.", _context(9, "The sum insured is Rs. 7,00,000 per policy year."),
         "'₹7 lakh' is not in the cited or retrieved text (only context 1's own text states it, and "
         "acme__shield has no p.9)"),
        # the document's own sentence, copied with one number changed, on its real page and on none
        ("; pre-existing diseases after 48 months.",
         _context(3, "Section 3. Pre-existing diseases are covered after 48 months of continuous coverage."),
         "'48 months' is not in the cited or retrieved text"),
        ("; pre-existing diseases after 48 months.",
         _context(None, "Pre-existing diseases are covered after 48 months of continuous coverage."),
         "'48 months' is not in the cited or retrieved text"),
        # named by its title, not its id: the same
        ("; pre-existing diseases after 48 months.",
         _context(3, "Pre-existing diseases are covered after 48 months.", document="Acme Shield"),
         "'48 months' is not in the cited or retrieved text"),
        # a figure in words
        ("; claims are settled within ninety days.", _context(3, "Claims are settled within ninety days."),
         "'90 days' is not in the cited or retrieved text"),
    ],
)  # fmt: skip
def test_a_figure_only_a_context_states_is_not_grounded(
    sources: Path, tmp_path: Path, claim: str, context: dict[str, Any], problem: str
) -> None:
    outcome, problems, _ = _graded(sources, tmp_path, GRACE + claim, [context])
    assert outcome == Outcome.FAIL, problems
    assert problem in problems


@pytest.mark.parametrize(
    ("response", "context", "problem"),
    [
        # the reply quotes the document's sentence with one number word changed: before, the fuzzy level
        # found it (a curator's slip) and the reply's own words grounded "60 days"; now the quote is not
        # the page's (a fuzzy match never differs in a number) and a quote grounds only the page's words
        (f'{GRACE}. The wording says "A grace period of sixty days is allowed for the renewal of every '
         'policy."', _context(None, SIXTY), "'60 days' is not in the cited or retrieved text"),
        (f'{GRACE}. The wording says "A grace period of sixty days is allowed for the renewal of every '
         'policy."', None, "'60 days' is not in the cited or retrieved text"),
        # a sentence only the context holds, quoted by the reply
        (f'{GRACE}. The wording says "Cashless claims are settled within one hour of discharge."',
         _context(2, "Cashless claims are settled within one hour of discharge."),
         "the quoted 'Cashless claims are settled within one hour of discharge.' is in none of the cited "
         "documents"),
    ],
)  # fmt: skip
def test_a_quote_is_grounded_in_the_document_s_words_not_the_reply_s(
    sources: Path, tmp_path: Path, response: str, context: dict[str, Any] | None, problem: str
) -> None:
    outcome, problems, _ = _graded(sources, tmp_path, response, [] if context is None else [context])
    assert outcome == Outcome.FAIL, problems
    assert problem in problems


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        (SIXTY, None),  # one number word changed: another number, not a curator's slip
        ("A grace period of ninety days is allowed for the renewal of every policy.", None),
        ("A grace period of thirty dayz is allowed for the renewal of every policy.", "fuzzy"),  # a slip
        ("A grace period of thirty days is alowed for the renewal of every policy.", "fuzzy"),
        # an article is no number: "a year" of a stray word is wording
        ("Section 4. Renewal notices are sent before the policy a year ends.", "fuzzy"),
    ],
)
def test_a_fuzzy_quote_may_differ_in_wording_never_in_a_number_written_in_words(
    sources: Path, quote: str, found: str | None
) -> None:
    from assay.documents import load_sources
    from assay.scorers.grounding.quotes import find_quote

    pages = load_sources(sources, cache_dir=None)[POLICY].pages
    match = find_quote(quote, pages)
    assert (match and match.level) == found


def test_a_citation_quoting_the_page_with_another_number_word_is_caught(
    sources: Path, tmp_path: Path
) -> None:
    outcome, problems, _ = _graded(sources, tmp_path, GRACE + ".", [], quote=SIXTY)
    assert outcome == Outcome.FAIL
    assert problems.startswith("the citation's quote 'A grace period of sixty days is allowed for the")


# --- a claim the documents make is grounded, whatever the context holds -------------------------------


@pytest.mark.parametrize(
    ("claim", "contexts", "found"),
    [
        ("; the sum insured is ₹5 lakh.", [_context(3, None)],
         "'₹5 lakh' is in acme__shield p.3 (retrieved: context 1)"),
        # the page the context names is read even when its own text is wrong: the document states it
        ("; the sum insured is ₹5 lakh.", [_context(3, "The sum insured is Rs. 9,00,000 per policy year.")],
         "'₹5 lakh' is in acme__shield p.3 (retrieved: context 1)"),
        # a context naming no page: the document's span where its text is (normalised: case, spacing)
        ("; the sum insured is ₹5 lakh.", [_context(None, "the SUM insured is  Rs. 5,00,000 per policy")],
         "'₹5 lakh' is in acme__shield p.3 (retrieved: context 1)"),
        # a context numbering pages from 0 (p.2 for the third page): its text is the document's, on p.3
        ("; the sum insured is ₹5 lakh.", [_context(2, "The sum insured is Rs. 5,00,000 per policy year.")],
         "'₹5 lakh' is in acme__shield p.3 (retrieved: context 1)"),
        # a page the document lacks, but the document's own text: read where it is
        ("; the sum insured is ₹5 lakh.", [_context(9, "The sum insured is Rs. 5,00,000 per policy year.")],
         "'₹5 lakh' is in acme__shield p.3 (retrieved: context 1)"),
        # the cited page states it: no context needed, and one that says otherwise changes nothing
        (".", [], "'30 days' is in acme__shield p.2"),
        (".", [_context(2, "A grace period of 45 days is allowed.")], "'30 days' is in acme__shield p.2"),
    ],
)  # fmt: skip
def test_a_figure_the_documents_state_is_grounded_whatever_the_context(
    sources: Path, tmp_path: Path, claim: str, contexts: list[dict[str, Any]], found: str
) -> None:
    outcome, problems, rule = _graded(sources, tmp_path, GRACE + claim, contexts)
    assert outcome == Outcome.PASS, problems
    assert found in rule


@pytest.mark.parametrize(
    ("context", "noted"),
    [
        (_context(3, "The sum insured is Rs. 9,00,000 per policy year."),
         "context 1's text is not in acme__shield p.3 as assay extracted it"),
        (_context(3, "The sum insured is Rs. 5,00,000 per policy year."),
         "context 1's text is in acme__shield p.3"),
        (_context(9, "anything"), "context 1 names p.9, beyond acme__shield's 4 pages: not read"),
        (_context(2, "The sum insured is Rs. 5,00,000 per policy year."),
         "context 1's text is in acme__shield p.3 (exact), not on the p.2 it names"),
        (_context(None, "Nothing like this is in the policy at all."),
         "context 1's text is not in acme__shield as assay extracted it: not read"),
        (_context(3, "The sum insured is ₹5 lakh.", document="zeta__care"),
         "context 1 ('zeta__care') is not of the scope: not read"),
    ],
)  # fmt: skip
def test_the_trace_says_whether_a_context_s_text_is_its_document_s(
    sources: Path, tmp_path: Path, context: dict[str, Any], noted: str
) -> None:
    _, _, rule = _graded(sources, tmp_path, GRACE + ".", [context])
    assert noted in rule


def test_contexts_past_the_bound_are_not_read(sources: Path, tmp_path: Path) -> None:
    """Only the first MAX_CONTEXTS contexts are read: a figure only a later one's page states is not
    grounded by it, and the trace says how many were left."""
    contexts = [_context(2, None)] * MAX_CONTEXTS + [_context(3, None)]
    outcome, problems, rule = _graded(sources, tmp_path, GRACE + "; the sum insured is ₹5 lakh.", contexts)
    assert outcome == Outcome.FAIL and "'₹5 lakh' is not in the cited or retrieved text" in problems
    assert f"the reply has {MAX_CONTEXTS + 1} contexts; the first {MAX_CONTEXTS} were read" in rule


def test_quoted_spans_past_the_bound_are_not_vouched_for(sources: Path, tmp_path: Path) -> None:
    """A reply quoting more than MAX_QUOTED spans has the first checked (each costs a fuzzy search of
    every cited document) and is not grounded: the rest cannot be."""
    quotes = " ".join(
        f'"Clause {n} of the wording says nothing of this at all."' for n in range(MAX_QUOTED * 50)
    )
    outcome, problems, _ = _graded(sources, tmp_path, f"{GRACE}. {quotes}", [])
    assert outcome == Outcome.FAIL
    assert f"the reply quotes {MAX_QUOTED * 50:,} spans; the first {MAX_QUOTED} were checked" in problems


def test_without_sources_a_context_grounds_nothing(tmp_path: Path) -> None:
    """The reduced mode (no --sources) checks the citations' names only, never the contexts: a reply
    that cites nothing is not grounded by a context of the item's document, and the trace says what was
    not checked."""
    outcome, problems, _ = _graded(None, tmp_path, GRACE + ".", [_context(2, GRACE_QUOTE)], cites=False)
    assert (outcome, problems) == (Outcome.FAIL, "cites nothing")
    outcome, _, rule = _graded(None, tmp_path, GRACE + "; 9,500 hospitals.", [_context(2, "9,500 hospitals")])
    assert outcome == Outcome.PASS and "pages, quotes and numbers not checked (no --sources)" in rule


# --- assay run: a system whose context invents a figure --------------------------------------------------

SYSTEM = """
def answer(question, scope=None):
    return {
        "text": "The grace period is 30 days; the sum insured is Rs 7 lakh. [Source: acme__shield, p.2]",
        "contexts": [{"document": "acme__shield", "page": 3,
                      "text": "The sum insured is Rs. 7,00,000 per policy year."}],
    }
"""


def test_assay_run_grades_a_figure_only_the_context_states_ungrounded(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = {"field": "grace_period", "value": 30, "unit": "days",
             "source": {"path": "acme/shield.pdf", "quote": GRACE_QUOTE}}  # fmt: skip
    (tmp_path / "facts").mkdir()
    facts = {"document": POLICY, "title": "Acme Shield", "claims": [claim]}
    (tmp_path / "facts" / "acme.json").write_text(json.dumps(facts), encoding="utf-8")
    (tmp_path / "bot.py").write_text(SYSTEM, encoding="utf-8")
    gold, out = tmp_path / "gold.jsonl", tmp_path / "run"
    build = ["gold", "build", "--facts", str(tmp_path / "facts"), "--sources", str(sources)]
    assert run([*build, "--templates", str(TEMPLATES), "--out", str(gold)], capsys)[0] == 0
    argv = ["run", "--gold", str(gold), "--system", f"{tmp_path / 'bot.py'}:answer", "--out", str(out)]
    code, _, stderr = run([*argv, "--sources", str(sources)], capsys)
    assert code == 0, stderr
    rows = [json.loads(line) for line in (out / "run.jsonl").read_text().splitlines()]
    assert rows and {row["outcome"] for row in rows} == {"correct_ungrounded"}, rows[0]["outcome_reason"]
    assert "'₹7 lakh' is not in the cited or retrieved text" in rows[0]["outcome_reason"]
