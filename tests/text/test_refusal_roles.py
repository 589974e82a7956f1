"""Refusals in the phrasings people use (issue 20, item 5): a reply declines when a negated verb of saying,
showing or finding has the source or the speaker as its subject ("the brochure doesn't name ...", "it isn't
stated in the CIS", "I couldn't find ..."), or says there is no information; a negated predicate about the
world, or an agreement's negated grant, answers ("monthly subscriptions are not refundable", "the policy
does not cover dental"). Tables in the lexicon's languages; the ``refusal`` metric on refusal and answerable
items (a decline that also answers, a guess after a decline); the outcomes of a yes/no item whose "No" is a
decline's; and ``assay run`` end to end on real PDFs (tests/support/pdfgen.py), with an in-process system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
import regex
from cli_run import run

from assay import Outcome, score
from assay.harness.outcomes import outcomes
from assay.scorers.refusal import declines_only, reading
from assay.text import refusal_notation, refusal_roles, refusals, unicode

# (language, a reply that declines, the words that decide it, as the reply writes them)
DECLINES = [
    # a text (never a party) with a negated verb of saying or conveying
    ("en", "The brochure doesn't name network hospitals in Pune.", "doesn't name"),
    ("en", "The brochure doesn't give a UIN.", "doesn't give"),
    ("en", "The Silver Health CIS does not list the network hospitals.", "does not list"),
    ("en", "The documents you shared do not explicitly state the UIN.", "do not explicitly state"),
    ("en", "The leaflet does not indicate a dose for children under 6.", "does not indicate"),
    ("en", "The price list does not show a price for the Enterprise tier.", "does not show"),
    ("en", "The FAQ never mentions refunds for annual plans.", "never mentions"),
    ("en", "The website says nothing about weekend support.", "says nothing"),
    ("en", "The CIS makes no mention of a co-payment.", "no mention"),
    ("en", "The context doesn't contain the premium for a 35-year-old.", "doesn't contain"),
    ("en", "The brochure, unfortunately, doesn't name them.", "doesn't name"),
    ("en", "The documents do not give the UIN, but the policy number is 12345.", "do not give"),
    # an agreement as a source: a verb of saying, or information as the object
    ("en", "The SLA does not specify a response time for P4 tickets.", "does not specify"),
    ("en", "The policy hasn't defined 'day care' anywhere.", "hasn't defined"),
    ("en", "The agreement doesn't say which regions are included.", "doesn't say"),
    ("en", "The policy does not provide any information on network hospitals.", "does not provide"),
    # it / they with a verb of saying: the documents
    ("en", "It doesn't say how many hospitals are in the network.", "doesn't say"),
    ("en", "They do not mention a claim settlement ratio.", "do not mention"),
    # passives
    ("en", "It isn't stated in the CIS.", "isn't stated"),
    (
        "en",
        "The premium for age 35 isn't given anywhere in the documents.",
        "isn't given anywhere in the documents",
    ),
    ("en", "The claim ratio is not specified in the policy.", "is not specified"),
    ("en", "The uptime credit is not provided in the pricing page.", "is not provided in the pricing page"),
    ("en", "No, the answer is not provided.", "is not provided"),
    ("en", "The UIN does not appear in the brochure.", "does not appear in the brochure"),
    # no information
    ("en", "There is no mention of Pune hospitals.", "no mention"),
    ("en", "Nothing in the documents mentions the UIN.", "Nothing in the documents mentions"),
    ("en", "None of the documents list the hospitals.", "None of the documents list"),
    # the speaker
    ("en", "I couldn't find the UIN.", "I couldn't find"),
    ("en", "I did not find any mention of a UIN.", "did not find"),
    ("en", "We could not locate the UIN in the brochure.", "We could not locate"),
    ("en", "I found no information on this.", "no information"),
    ("en", "I have not been able to find a premium table.", "have not been able to find"),
    ("en", "I don't see any information about this.", "don't see any information"),
    ("en", "- Network hospitals in Pune: not listed in the brochure", "not listed in the brochure"),
    ("en", "Claim settlement ratio: not mentioned in the policy wording.", "not mentioned in the policy"),
    ("en", "The provided text is about AYUSH and does not address maternity.", "does not address"),
    ("en", "I do not see it in the documents.", "do not see it in the documents"),
    ("en", "Unfortunately, the documents don't cover network hospitals in Pune.", "don't cover"),
    ("en", "This isn't covered in the documents.", "isn't covered in the documents"),
    ("en", "I wasn't able to find the UIN.", "wasn't able to find"),
    ("en", "Sorry, that information isn't in the documents provided.", "isn't in the documents"),
    ("en", "No UIN is mentioned in the brochure.", "is mentioned in the brochure"),
    ("en", "Information on this is not available.", "is not available"),
    ("en", "The brochure lacks this detail.", "lacks this detail"),
    # Indian languages of the lexicon
    ("hi", "ब्रोशर में पुणे के नेटवर्क अस्पतालों के नाम नहीं दिए गए हैं।", "नहीं दिए"),
    ("hi", "पॉलिसी में इसके बारे में कुछ नहीं बताया गया है।", "नहीं बताया"),
    ("hi", "दस्तावेज़ इसके बारे में कुछ नहीं कहता।", "नहीं कहता"),
    ("hi", "मुझे यह संख्या दस्तावेज़ों में नहीं मिली।", "नहीं मिली"),
    ("hi", "मैं इसे ढूंढ नहीं पाया।", "ढूंढ नहीं पाया"),
    ("mr", "माहितीपत्रकात पुण्यातील रुग्णालयांची नावे नमूद केलेली नाहीत.", "नमूद केलेली नाहीत"),
    ("mr", "मला हा क्रमांक सापडला नाही.", "सापडला नाही"),
    ("bn", "ব্রোশারে পুনের হাসপাতালগুলির নাম বলা নেই।", "বলা নেই"),
    ("bn", "আমি এটি খুঁজে পাইনি।", "খুঁজে পাইনি"),
    ("ta", "ஆவணத்தில் இது கூறப்படவில்லை.", "கூறப்படவில்லை"),
    ("ta", "இதை கண்டுபிடிக்க முடியவில்லை.", "கண்டுபிடிக்க முடியவில்லை"),
    ("te", "పత్రంలో ఈ సంఖ్య చెప్పలేదు.", "చెప్పలేదు"),
    ("kn", "ದಾಖಲೆಯಲ್ಲಿ ಇದನ್ನು ಹೇಳಲಾಗಿಲ್ಲ.", "ಹೇಳಲಾಗಿಲ್ಲ"),
    ("ml", "രേഖയിൽ ഇത് പറഞ്ഞിട്ടില്ല.", "പറഞ്ഞിട്ടില്ല"),
    ("gu", "દસ્તાવેજમાં આ વિશે કંઈ જણાવ્યું નથી.", "જણાવ્યું નથી"),
    ("gu", "મને આ નંબર મળ્યો નથી.", "મળ્યો નથી"),
    # European languages of the lexicon
    ("fr", "La brochure ne mentionne pas les hôpitaux de Pune.", "ne mentionne pas"),
    ("fr", "Je n'ai pas trouvé ce numéro.", "n'ai pas trouvé"),
    ("es", "El folleto no menciona los hospitales de Pune.", "no menciona"),
    ("es", "No encontré ese número.", "No encontré"),
    ("de", "Die Broschüre nennt keine Krankenhäuser in Pune.", "nennt keine"),
    ("de", "Ich habe dazu nichts gefunden.", "Ich habe dazu nichts gefunden"),
    ("pt", "O folheto não menciona os hospitais de Pune.", "não menciona"),
    ("it", "Il documento non elenca gli ospedali di Pune.", "non elenca"),
]


@pytest.mark.parametrize(("lang", "reply", "deciding"), DECLINES)
def test_a_source_or_speaker_that_does_not_say_declines(lang: str, reply: str, deciding: str) -> None:
    found = refusals.find_refusal(reply)
    assert found is not None, reply
    assert found.lang == lang
    assert found.span is not None and deciding in reply[found.span[0] : found.span[1]]


ANSWERS = [  # a negated predicate about the world, or an agreement's negated grant: answers
    "Maternity is not covered.",
    "Monthly subscriptions are not refundable.",
    "The policy does not cover dental.",
    "SSO is not included in the Basic plan.",
    "The plan doesn't include SSO.",
    "It does not include dental treatment.",  # "it" with a verb of granting: the plan
    "The Basic plan does not offer phone support.",
    "The SLA does not guarantee uptime on weekends.",
    "Refunds are not available for annual plans.",
    "Dental treatment is not listed in the plan.",
    "The policy documents do not provide cover for obesity treatment.",
    "The brochure does not provide cover for dental.",
    "The policy does not give any benefit for OPD.",
    "There is no waiting period for accidents.",
    "The policy wording does not cover dental.",  # a policy's own text covers as a grant
    "The policy documents don't cover maternity.",
    "Maternity is not covered in the policy document.",
    "The plan lacks SSO.",
    "Dental is not in the plan.",
    "If no nominee is mentioned, the claim is paid to the legal heir.",
    "Any treatment not specified in the policy wording shall not be payable.",
    "The insured must notify us and does not need to state the reason.",
    "The CIS does not cover outpatient treatment.",  # a product's document: its "cover" is the grant
    "The brochure does not cover dental treatment.",
    "I don't see an exclusion for AYUSH; it is covered up to the sum insured.",  # no information asked
    "We don't cover pre-existing conditions in the first 2 years.",
    "We do not pay for cosmetic surgery.",
    "No, the grace period is not 60 days.",
    "The medicine is not recommended for children under 6.",
    "Support tickets are not answered on public holidays.",
    # a policy's own sentence: the subject is a party, not a source
    "If the insured does not disclose a disease, the claim is rejected.",
    "As per the policy document, the insured does not disclose it.",
    "The policy holder does not disclose the illness.",
    "If the information is not provided within 30 days, the claim is closed.",
    "पॉलिसी में दांतों का इलाज कवर नहीं है।",
    "पॉलिसी में मातृत्व शामिल नहीं है।",
    "मासिक सदस्यता वापसी योग्य नहीं है।",
    "La police ne couvre pas la chirurgie esthétique.",
    "El plan no incluye SSO.",
    "Die Police deckt keine Zahnbehandlung.",
    "Il piano non include il supporto telefonico.",
    "O plano não inclui suporte por telefone.",
]


@pytest.mark.parametrize("reply", ANSWERS)
def test_a_negated_answer_is_no_refusal(reply: str) -> None:
    assert refusals.find_refusal(reply) is None


def test_every_role_compiles() -> None:
    assert set(refusal_roles.ROLES) <= set(refusals.LANGUAGES)
    for phrases in refusal_roles.ROLES.values():
        for phrase in phrases:
            refusal_notation.compile_phrase(phrase)


def test_every_role_says_not() -> None:
    """A clause is searched for roles only when it says "not" (``NEGATORS``): each role holds a negator."""
    for phrases in refusal_roles.ROLES.values():
        for phrase in phrases:
            literals = regex.findall(r"[^\s{}\[\]|…^!*]+", phrase)
            words = [word for literal in literals for word in unicode.normalise(literal).split()]
            assert any(
                word in refusal_roles.NEGATORS or word.endswith(refusal_roles.NEGATIVE_ENDINGS)
                for word in words
            ), phrase


def test_a_long_reply_without_a_negation_is_read_quickly() -> None:
    from budget import SECOND, assert_within

    reply = "The grace period is 30 days, and the policy covers AYUSH treatment; see page 4. " * 20_000
    assert refusal_roles.find_role(reply) is None
    # About 0.6 s: no clause says "not", none is searched (budget.py's units: a loaded machine too).
    assert_within(lambda: refusal_roles.find_role(reply), 10 * SECOND, "a long reply")


# --- declined: a decline of the asked thing, with no answer to it -------------------------------------

# (reply, declined, what reading says it answered with, only a decline)
READINGS = [
    ("The brochure doesn't name network hospitals in Pune.", True, None, True),
    ("No, the answer is not provided.", True, None, True),
    ("The brochure doesn't say. Please contact the insurer.", True, None, True),
    ("पॉलिसी दस्तावेज़ में इसकी जानकारी नहीं है", True, None, True),
    # other facts after the decline: still a decline of the asked thing, but not only a decline
    ("The brochure doesn't give a UIN, but the policy number is 12345.", True, None, False),
    ("I couldn't find the UIN. However, the grace period is 30 days.", True, None, False),
    ("No. The document does not say.", True, None, False),
    # a guess at the asked thing after the decline: an answer
    ("I couldn't find it in the brochure, but it is usually 30 days.", False, "guesses 30 days", False),
    ("The brochure doesn't say; typically around 50 hospitals are in the network.", False, "guesses", False),
    # an answer before the decline: a caveat
    ("30 days. The document does not mention the renewal bonus.", False, "30 days", False),
    # a conclusion drawn from the silence answers; one that declines again does not
    ("It does not say anything about dental, so dental is not covered.", False, "concludes", False),
    ("I couldn't find it, so I can't say.", True, None, True),
]


@pytest.mark.parametrize(("reply", "declined", "answered", "only"), READINGS)
def test_what_declined_means(reply: str, declined: bool, answered: str | None, only: bool) -> None:
    found, said = reading(reply)
    assert (found is not None) == declined
    assert (said is None) if answered is None else (said is not None and answered in said)
    assert declines_only(reply, "What is the UIN of Acme Basic Shield?") == only


# --- outcomes: the refusal metric and the matchers together ------------------------------------------


def _item(ident: str, refusal: bool, answer: str = "No", value: Any = False) -> dict[str, Any]:
    scope = "acme__basic-plan"
    if refusal:
        return {"id": ident, "scope": scope, "question": "Which hospitals in Pune are in the network?",
                "expected_answer": "The documents do not list them.", "expected_value": None,
                "expected_regex": None, "answer_type": None, "category": "refusal",
                "expected_refusal": True, "source": None}  # fmt: skip
    return {"id": ident, "scope": scope, "field": "refundable",
            "question": "Are monthly subscriptions refundable?", "expected_answer": answer,
            "expected_value": {"value": value, "unit": None}, "expected_regex": r"(?<!\w)no(?!\w)",
            "answer_type": "bool", "category": "billing", "expected_refusal": False,
            "source": {"document": scope, "title": "Acme pricing", "page": 1}}  # fmt: skip


DECLINING = [reply for _, reply, _ in DECLINES]


@pytest.mark.parametrize("reply", DECLINING)
def test_a_decline_is_correct_on_a_refusal_item_and_refused_on_an_answerable_one(
    tmp_path: Path, reply: str
) -> None:
    rows = [{**_item("r", True), "response": reply}, {**_item("a", False), "response": reply}]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    run_ = score(path, ["hard_fact", "value_match", "refusal"])
    assert list(run_.metrics["refusal"].extras["declined"]) == [1, 1]
    # (a "No" item: the matchers pass the "no" of "No, the answer is not provided" or "there is no
    # mention"; the reply says nothing besides its decline, so it refused all the same)
    assert [outcome for outcome, _ in outcomes(run_)] == ["correct", "refused_answerable"]


@pytest.mark.parametrize("reply", ANSWERS)
def test_a_negated_answer_is_an_answer_on_either_item(tmp_path: Path, reply: str) -> None:
    rows = [{**_item("r", True), "response": reply}, {**_item("a", False), "response": reply}]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    run_ = score(path, ["hard_fact", "value_match", "refusal"])
    assert list(run_.metrics["refusal"].extras["declined"]) == [0, 0]
    assert run_.metrics["refusal"].outcome(0) is Outcome.FAIL  # it answered what should be refused
    found = [outcome for outcome, _ in outcomes(run_)]
    assert found[0] == "answered_refusal" and found[1] != "refused_answerable"


def _grace(ident: str, refusal: bool) -> dict[str, Any]:
    if refusal:
        return _item(ident, True)
    return {**_item(ident, False), "field": "grace_period", "question": "What is the grace period?",
            "expected_answer": "30 days", "expected_value": {"value": 30, "unit": "day"},
            "expected_regex": r"(?<!\d)30\s?days?\b", "answer_type": "number_unit"}  # fmt: skip


# (reply, declined, the refusal item's outcome, the answerable "30 days" item's outcome; None: not refused)
MIXED = [
    ("The brochure doesn't mention the grace period.", 1, "correct", "refused_answerable"),
    # other facts after the decline: a decline of the asked thing; on the answerable item the matchers
    # pass the figure the reply also states, so a judge must weigh the two
    ("I couldn't find the UIN. However, the grace period is 30 days.", 1, "correct", "unscored"),
    ("The documents do not give the UIN, but the policy number is 1234.", 1, "correct", "refused_answerable"),
    # an answer before the decline, or a guess after it: answered
    ("30 days. The document does not mention the renewal bonus.", 0, "answered_refusal", "correct"),
    ("I couldn't find it in the brochure, but it is usually 30 days.", 0, "answered_refusal", None),
    ("The brochure doesn't say; typically it is around 30 days.", 0, "answered_refusal", None),
    # a conclusion drawn from the silence: an answer ("so I cannot say" is none)
    ("The brochure doesn't list it, so the grace period must be 30 days.", 0, "answered_refusal", None),
    ("I couldn't find it in the documents, so I can't say.", 1, "correct", "refused_answerable"),
]


@pytest.mark.parametrize(("reply", "declined", "on_refusal", "on_answerable"), MIXED)
def test_a_decline_with_more_is_read_by_what_the_more_is(
    tmp_path: Path, reply: str, declined: int, on_refusal: str, on_answerable: str | None
) -> None:
    rows = [{**_grace("r", True), "response": reply}, {**_grace("a", False), "response": reply}]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    run_ = score(path, ["hard_fact", "value_match", "refusal"])
    assert list(run_.metrics["refusal"].extras["declined"]) == [declined, declined]
    found = [outcome for outcome, _ in outcomes(run_)]
    assert found[0] == on_refusal
    if on_answerable is None:
        assert found[1] not in ("refused_answerable", "answered_refusal")
    else:
        assert found[1] == on_answerable


# --- assay run, end to end -----------------------------------------------------------------------------

TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
PAGES = (
    ("Zeta Care policy wording.",),
    ("A grace period of 30 days is allowed for renewal.",
     "AYUSH treatment is covered up to the sum insured."),
    ("Pre-existing diseases are covered after 24 months of continuous coverage.",
     "Maternity expenses are not covered."),
)  # fmt: skip
FACTS = {
    "document": "zeta__care",
    "title": "Zeta Care",
    "claims": [
        {"field": "grace_period", "value": 30, "unit": "days",
         "source": {"path": "zeta/care.pdf", "quote": "A grace period of 30 days"}},
        {"field": "pre_existing_disease_waiting_months", "value": 24, "unit": "months",
         "source": {"path": "zeta/care.pdf", "quote": "Pre-existing diseases are covered after 24 months"}},
        {"field": "ayush_coverage", "value": True,
         "source": {"path": "zeta/care.pdf", "quote": "AYUSH treatment is covered"}},
        {"field": "maternity_coverage", "value": False,
         "source": {"path": "zeta/care.pdf", "quote": "Maternity expenses are not covered"}},
    ],
}  # fmt: skip
# The system: the reply for each question is the phrasing at the question's place among the gold set's
# questions (so every phrasing is asked, of refusal and answerable items alike).
SYSTEM = """
import json

GOLD = {gold!r}
REPLIES = {replies!r}
QUESTIONS = sorted(json.loads(line)["question"] for line in open(GOLD, encoding="utf-8"))


def answer(question, scope=None):
    return REPLIES[QUESTIONS.index(question) % len(REPLIES)]
"""
RUN_DECLINES = [
    "The brochure doesn't name network hospitals in Pune.",
    "The policy wording does not specify this.",
    "I couldn't find that in the documents.",
    "It isn't stated in the policy wording.",
    "There is no information about this in the context.",
    "No, the answer is not provided.",
    "The documents do not give this figure.",
    "पॉलिसी में इसके बारे में कुछ नहीं बताया गया है।",
    "La brochure ne mentionne pas cela.",
    "Die Unterlagen nennen dazu keine Angaben.",
    "El documento no especifica este dato.",
]
RUN_ANSWERS = [  # negated answers: none declines
    "Maternity expenses are not covered.",
    "The policy does not cover that.",
    "That is not included in the plan.",
    "Refunds are not available.",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("roles")
    pdfgen.pages_pdf(root / "sources" / "zeta", "care.pdf", PAGES)
    (root / "facts").mkdir()
    (root / "facts" / "care.json").write_text(json.dumps(FACTS), encoding="utf-8")
    return root


def _run(
    corpus: Path, replies: list[str], out: Path, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, Any]]:
    gold = corpus / "gold.jsonl"
    if not gold.exists():
        argv = ["gold", "build", "--facts", str(corpus / "facts"), "--sources", str(corpus / "sources")]
        code, _, err = run([*argv, "--templates", str(TEMPLATES), "--refusals", "--out", str(gold)], capsys)
        assert code == 0, err
    bot = out.parent / f"{out.name}_bot.py"
    bot.write_text(SYSTEM.format(gold=str(gold), replies=replies), encoding="utf-8")
    argv = ["run", "--gold", str(gold), "--system", f"{bot}:answer", "--out", str(out)]
    code, _, err = run([*argv, "--sources", str(corpus / "sources")], capsys)
    assert code == 0, err
    return [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]


def test_assay_run_grades_declines_as_declines_on_either_item(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _run(corpus, RUN_DECLINES, tmp_path / "declines", capsys)
    assert len(rows) >= len(RUN_DECLINES)  # every phrasing asked at least once
    assert {row["response"] for row in rows} == set(RUN_DECLINES)
    for row in rows:
        wanted = "correct" if row["expected_refusal"] else "refused_answerable"
        assert (row["outcome"], row["declined"]) == (wanted, 1), (row["response"], row["outcome_reason"])
    results = json.loads((tmp_path / "declines" / "results.json").read_text(encoding="utf-8"))
    refusal = results["headline"]["refusal"]
    assert refusal["recall"] == 1.0 and refusal["answered_refusal_items"] == 0


def test_assay_run_grades_negated_answers_as_answers(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _run(corpus, RUN_ANSWERS, tmp_path / "answers", capsys)
    for row in rows:
        assert row["declined"] == 0, row["response"]
        if row["expected_refusal"]:
            assert row["outcome"] == "answered_refusal"
        else:
            assert row["outcome"] != "refused_answerable"
    maternity = [row for row in rows if row["field"] == "maternity_coverage"
                 and row["response"] == "Maternity expenses are not covered."]  # fmt: skip
    assert all(row["outcome"] in ("correct", "correct_ungrounded") for row in maternity)
