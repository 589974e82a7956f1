"""The refusal lexicon (per language; negations that answer are no refusals), the ``refusal`` metric
(the blocked flag, blank replies, unscored items), refusal precision and recall, and the core's rules
for a row whose system failed (unscored under every metric) and for a scorer that decides blank rows."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import regex
from cli_run import run

from assay import InputError, MetricScores, Outcome, Scorer, load_records, score
from assay.documents import load_sources
from assay.scorers import SCORERS
from assay.scorers.refusal import REFUSAL, Rate, RefusalCounts, refusal_rates
from assay.scoring import ScoreOptions, available_metrics
from assay.stats import wilson
from assay.text import refusal_notation, refusals, unicode
from assay.trace import traces
from conftest import skip_or_fail

ROOT = Path(__file__).resolve().parents[2]

# (language, a reply that declines, the words that decide it, as the reply writes them)
DECLINES = [
    ("en", "I'm sorry, but I can't find that in the documents.", "sorry, but I can't"),
    ("en", "I cannot answer that question from the policy wording.", "I cannot answer"),
    ("en", "We were unable to locate this.", "We were unable to locate"),
    ("en", "Unable to determine this from the sources.", "Unable to determine"),
    ("en", "The sum insured for dental is not mentioned in the policy document.", "is not mentioned"),
    ("en", "That detail is not specified in the provided documents.", "is not specified"),
    ("en", "The claim settlement ratio isn't stated.", "isn't stated"),
    ("en", "It's not stated anywhere in the context given.", "not stated anywhere in the context"),
    ("en", "I don't have that information.", "I don't have that information"),
    ("en", "I do not have access to premium tables.", "I do not have access"),
    ("en", "There is no information about the claim ratio.", "no information"),
    ("en", "There is no mention of a co-payment.", "no mention"),
    ("en", "The document does not specify a limit for this.", "does not specify"),
    ("en", "The policy does not list network hospitals.", "does not list"),
    ("en", "The passages do not contain any information.", "passages do not contain any information"),
    ("en", "This question is outside the scope of the documents I have.", "question is outside the scope"),
    ("en", "That is beyond my scope.", "beyond my scope"),
    ("en", "I don't know.", "I don't know"),
    ("en", "That is not in the documents I was given.", "not in the documents"),
    ("en", "This cannot be determined from the documents.", "cannot be determined from"),
    ("en", "The policy wording is silent on this.", "wording is silent"),
    ("en", "The documents are silent on the claim settlement ratio.", "documents are silent"),
    ("en", "This information is not available.", "information is not available"),
    ("en", "That information isn't available in the policy.", "information isn't available"),
    ("en", "Information not available.", "Information not available"),
    ("en", "No details on premiums are in the documents.", "No details on premiums are in the documents"),
    ("en", "Based on the sources, it cannot be determined.", "Based on the sources, it cannot be determined"),
    ("en", "I'm not sure.", "I'm not sure"),
    ("en", "Not mentioned.", "Not mentioned"),
    ("hi", "दस्तावेज़ों में यह नहीं बताया गया है।", "दस्तावेज़ों में यह नहीं बताया गया"),
    ("hi", "इसका उत्तर दस्तावेज़ों में नहीं है।", "उत्तर दस्तावेज़ों में नहीं"),
    ("bn", "নথিতে এ বিষয়ে কিছু বলা নেই।", "নথিতে এ বিষয়ে কিছু বলা নেই"),
    ("hi", "दस्तावेज़ में इसकी जानकारी नहीं है।", "जानकारी नहीं"),
    ("hi", "यह जानकारी उपलब्ध नहीं है।", "जानकारी उपलब्ध नहीं"),
    ("hi", "मैं यह नहीं बता सकता।", "नहीं बता सकता"),
    ("hi", "मैं यह नहीं बता सकती।", "नहीं बता सकती"),
    ("hi", "पॉलिसी में इसका उल्लेख नहीं है।", "उल्लेख नहीं"),
    ("hi", "मुझे नहीं पता।", "मुझे नहीं पता"),
    ("mr", "याबद्दल माहिती उपलब्ध नाही.", "माहिती उपलब्ध नाही"),
    ("mr", "मी हे सांगू शकत नाही.", "सांगू शकत नाही"),
    ("mr", "पॉलिसीमध्ये याचा उल्लेख केलेला नाही.", "उल्लेख केलेला नाही"),
    ("bn", "এই বিষয়ে কোনো তথ্য পাওয়া যায়নি।", "তথ্য পাওয়া যায়নি"),
    ("bn", "নথিতে এর উল্লেখ নেই।", "উল্লেখ নেই"),
    ("bn", "আমি এটা বলতে পারছি না।", "বলতে পারছি না"),
    ("ta", "ஆவணங்களில் இந்த தகவல் குறிப்பிடப்படவில்லை.", "தகவல் குறிப்பிடப்படவில்லை"),
    ("ta", "இது பற்றிய தகவல் இல்லை.", "தகவல் இல்லை"),
    ("ta", "என்னால் சொல்ல முடியாது.", "சொல்ல முடியாது"),
    ("te", "ఈ సమాచారం అందుబాటులో లేదు.", "సమాచారం అందుబాటులో లేదు"),
    ("te", "పాలసీలో ఇది పేర్కొనబడలేదు.", "పేర్కొనబడలేదు"),
    ("te", "నాకు తెలియదు.", "నాకు తెలియదు"),
    ("kn", "ಈ ಬಗ್ಗೆ ಮಾಹಿತಿ ಲಭ್ಯವಿಲ್ಲ.", "ಮಾಹಿತಿ ಲಭ್ಯವಿಲ್ಲ"),
    ("kn", "ಪಾಲಿಸಿಯಲ್ಲಿ ಇದನ್ನು ಉಲ್ಲೇಖಿಸಲಾಗಿಲ್ಲ.", "ಉಲ್ಲೇಖಿಸಲಾಗಿಲ್ಲ"),
    ("kn", "ನನಗೆ ಗೊತ್ತಿಲ್ಲ.", "ನನಗೆ ಗೊತ್ತಿಲ್ಲ"),
    ("ml", "ഈ വിവരം ലഭ്യമല്ല.", "വിവരം ലഭ്യമല്ല"),
    ("ml", "പോളിസിയിൽ ഇത് പരാമർശിച്ചിട്ടില്ല.", "പരാമർശിച്ചിട്ടില്ല"),
    ("ml", "എനിക്കറിയില്ല.", "എനിക്കറിയില്ല"),
    ("gu", "આ માહિતી ઉપલબ્ધ નથી.", "માહિતી ઉપલબ્ધ નથી"),
    ("gu", "પોલિસીમાં તેનો ઉલ્લેખ કરવામાં આવ્યો નથી.", "ઉલ્લેખ કરવામાં આવ્યો નથી"),
    ("gu", "મને ખબર નથી.", "મને ખબર નથી"),
    ("fr", "Je ne peux pas répondre à cette question.", "Je ne peux pas répondre"),
    ("fr", "Le document ne précise pas ce délai.", "ne précise pas"),
    ("fr", "Je n'ai pas cette information.", "Je n'ai pas cette information"),
    ("es", "No puedo responder a esa pregunta.", "No puedo responder"),
    ("es", "No hay información sobre eso en los documentos.", "No hay información"),
    ("es", "El plazo no se especifica.", "no se especifica"),
    ("de", "Ich kann diese Frage nicht beantworten.", "Ich kann diese Frage nicht beantworten"),
    ("de", "Ich weiß es nicht.", "Ich weiß es nicht"),
    ("de", "Dazu gibt es keine Informationen.", "keine Informationen"),
    ("pt", "Não posso responder a isso.", "Não posso responder"),
    ("pt", "Não há informações sobre isso.", "Não há informações"),
    ("it", "Non posso rispondere a questa domanda.", "Non posso rispondere"),
    ("it", "Non ho informazioni su questo.", "Non ho informazioni"),
]


@pytest.mark.parametrize(("lang", "reply", "deciding"), DECLINES)
def test_a_decline_is_found_in_its_language_with_its_span(lang: str, reply: str, deciding: str) -> None:
    found = refusals.find_refusal(reply)
    assert found is not None, reply
    assert found.lang == lang
    assert found.span is not None and reply[found.span[0] : found.span[1]] == deciding
    assert unicode.normalise(deciding) == found.matched


ANSWERS = [  # replies that say "not" (or its word) and answer all the same
    "Pre-existing diseases are not covered for 36 months.",
    # a cited answer: the citation's "Source" is no word of the reply's ("... in this Benefit. [Source")
    "No. Ayush treatment is not covered in this Benefit. [Source: acme__basic-plan, p.4]",
    "Maternity is not covered in the policy document.",  # "covered" in a policy is cover, not discussion
    "The policy does not cover cosmetic surgery.",
    "The policy does not include maternity cover.",
    "No, dental treatment is not covered.",
    "Cover is not provided for dental treatment in the policy.",
    "This add-on is not available in the policy.",
    "The policy documents do not provide cover for obesity treatment.",
    "We cannot pay claims filed after 30 days.",
    "You cannot claim for treatment taken outside India.",
    "Cosmetic treatment falls outside the scope of cover.",
    "If you are unable to find your policy number, call the helpline.",
    "The free-look period is 15 days; the premium is not refundable after it.",
    "Claims are not payable during the first 30 days, except for accidents.",
    "Yes. It does not apply to accidents.",
    "There is no waiting period for accidents.",
    "पूर्व-मौजूदा बीमारियाँ 36 महीने तक कवर नहीं हैं।",
    "नहीं, दांतों का इलाज कवर नहीं है।",
    "आप 30 दिन के बाद दावा नहीं कर सकते।",
    "पूर्वीचे आजार ३६ महिने कव्हर होत नाहीत.",
    "முன்பே இருக்கும் நோய்கள் 36 மாதங்களுக்கு காப்பீடு செய்யப்படவில்லை.",
    "ముందుగా ఉన్న వ్యాధులు 36 నెలల వరకు కవర్ కావు.",
    "দাঁতের চিকিৎসা কভার করা হয় না।",
    "La police ne couvre pas la chirurgie esthétique.",
    "El tratamiento dental no está cubierto.",
    "Zahnbehandlungen sind nicht versichert.",
    "If a loss is not mentioned in the table above, then we will assess the degree of disability.",
    "Any kit with no details mentioned [delivery kit, orthokit]: not payable.",
    "Where insufficient information is provided to the Company, the claim may be denied.",
    "The room rent is mentioned in the schedule.",
    "The grace period is 30 days.",
    "No information is required from the insured for claims under Rs 5,000.",
    "Claims are not payable if no information is given within 48 hours.",
    "Claims may be rejected if no information is provided by the insured.",
    "Not covered.",
    "Not available for members above 65 years.",
    "The premium cannot be determined until the proposal is underwritten.",
    "दावा 30 दिन के बाद नहीं दिया जाता।",
    "এই তথ্যের জন্য ফর্ম পূরণ করতে হবে।",
    "",
]


@pytest.mark.parametrize("reply", ANSWERS)
def test_a_negation_that_answers_is_no_refusal(reply: str) -> None:
    assert refusals.find_refusal(reply) is None


SHARED_PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "insurance" / "pdfs"
SENTENCE_END = regex.compile(r"(?<=[.;:])\s+|\n\s*\n")


def test_no_sentence_of_real_policy_wordings_reads_as_a_refusal() -> None:
    """An extractive system answers with the policy's own sentences ("not payable", "shall not be
    covered", "if a loss is not mentioned in the table above"): thousands of them, none a decline."""
    if not SHARED_PDFS.is_dir():
        skip_or_fail(f"the shared insurance PDFs are not at {SHARED_PDFS}")
    sources = load_sources(SHARED_PDFS, cache_dir=None)
    sentences = [
        " ".join(piece.split())
        for document in sources.values()
        for page in document.pages
        for piece in SENTENCE_END.split(page)
    ]
    assert len(sources) == 5 and len(sentences) > 3000
    flagged = [(found.matched, text) for text in sentences if (found := refusals.find_refusal(text))]
    assert flagged == []


def test_a_gold_sets_own_refusal_answers_decline() -> None:
    """The example templates' refusal items say how a decline reads: the lexicon reads them so."""
    templates = tomllib.loads((ROOT / "examples" / "insurance_templates.toml").read_text(encoding="utf-8"))
    answers = [refusal["answer"] for refusal in templates["refusals"]]
    assert answers and all(refusals.is_refusal(answer) for answer in answers)


def test_a_phrase_typed_in_another_normal_form_still_matches() -> None:
    decomposed = "दस्तावेज़ में जानकारी नहीं".replace("ज़", "ज\u093c")  # a nukta typed apart
    assert refusals.find_refusal(decomposed) is not None
    assert refusals.find_refusal("I CAN\u2019T FIND THAT") is not None  # a curly apostrophe, capitals


@pytest.mark.parametrize("phrase", ["{a|b", "[a b", "a } b", "a ^ b", "a ! b", ""])
def test_a_malformed_phrase_is_refused(phrase: str) -> None:
    with pytest.raises(ValueError, match="refusal phrase"):
        refusal_notation.compile_phrase(phrase)


def test_every_phrase_of_the_lexicon_compiles() -> None:
    assert set(refusals.LANGUAGES) >= {"en", "hi", "mr", "bn", "ta", "te", "kn", "ml", "gu", "fr", "de"}
    for phrases in refusals.PHRASES.values():
        for phrase in phrases:
            refusal_notation.compile_phrase(phrase)


# --- the refusal metric ---------------------------------------------------------------------------------


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    base = {"question": "What is the grace period?", "answer": "30 days"}
    path.write_text("".join(json.dumps(base | row) + "\n" for row in rows), encoding="utf-8")
    return path


# (expected_refusal, response, reply) -> (outcome, declined, what the trace's rule says)
CASES = [
    (True, "I cannot find that in the documents.", {}, Outcome.PASS, 1, "declined: the reply says"),
    (True, "The grace period is 30 days.", {}, Outcome.FAIL, 0, "answered: no refusal phrase"),
    (False, "The grace period is 30 days.", {}, Outcome.PASS, 0, "answered: no refusal phrase"),
    (False, "The policy document does not mention it.", {}, Outcome.FAIL, 1, "declined: the reply says"),
    (True, "", {"blocked": True}, Outcome.PASS, 1, "the system's guard blocked the reply"),
    (False, "", {"blocked": True}, Outcome.FAIL, 1, "the system's guard blocked the reply"),
    (True, "Some text the guard stopped", {"blocked": True}, Outcome.PASS, 1, "guard blocked"),
    (True, "", {}, Outcome.FAIL, 0, "neither answers nor declines"),
    (False, "", {}, Outcome.FAIL, 0, "neither answers nor declines"),
    (None, "I cannot find that.", {}, Outcome.UNSCORED, 1, "does not say whether it should be refused"),
    (True, "", {"error": "timed out after 60 s"}, Outcome.UNSCORED, 0, "the system failed: timed out"),
    # an answer first, then a caveat: answered (the value comes before the phrase)
    (False, "30 days. Note that the document does not mention the renewal bonus.", {}, Outcome.PASS, 0,
     "answered: it states 30 days before"),
    (False, "The sum insured is ₹5 lakh; the policy does not specify a sub-limit.", {}, Outcome.PASS, 0,
     "answered: it states ₹5 lakh before"),
    (True, "It is 98%, though the documents do not mention it.", {}, Outcome.FAIL, 0, "answered: it states"),
    (False, "Yes, AYUSH is covered. The document does not mention a sub-limit.", {}, Outcome.PASS, 0,
     "answered: it opens with 'yes' before"),
    (False, "हाँ, आयुष कवर है। उप-सीमा का उल्लेख नहीं है।", {}, Outcome.PASS, 0, "answered: it opens with"),
    (False, "Yes. I cannot find a sub-limit in the documents.", {}, Outcome.PASS, 0, "answered: it opens"),
    (True, "Yes, I cannot answer that from the documents.", {}, Outcome.PASS, 1, "declined"),  # 1 sentence
    (True, "No, I cannot find that in the documents.", {}, Outcome.PASS, 1, "declined"),  # "no" opens both
    (True, "Yesterday's documents do not mention it.", {}, Outcome.PASS, 1, "declined"),
    # a decline first, a number after it: declined
    (True, "The documents do not mention it; they give a grace period of 30 days.", {}, Outcome.PASS, 1,
     "declined: the reply says"),
    (True, "Sorry, I cannot find the claim settlement ratio for 2024.", {}, Outcome.PASS, 1, "declined"),
]


@pytest.mark.parametrize(("should", "response", "reply", "outcome", "declined", "rule"), CASES)
def test_refusal_passes_when_the_reply_declined_exactly_when_it_should(
    tmp_path: Path,
    should: bool | None,
    response: str,
    reply: dict[str, Any],
    outcome: Outcome,
    declined: int,
    rule: str,
) -> None:
    rows = [{"id": "r", "response": response, "gold": {"expected_refusal": should}, "reply": reply}]
    run = score(write_rows(tmp_path / "rows.jsonl", rows), ["refusal"])
    scores = run.metrics["refusal"]
    assert (scores.outcome(0), scores.extras["declined"][0]) == (outcome, declined)
    assert rule in traces(run, 0)["refusal"].rule


def test_the_trace_shows_the_deciding_phrase_in_the_original_reply(tmp_path: Path) -> None:
    reply = "Sorry — the policy document doesn't mention it."
    rows = [{"id": "r", "response": reply, "gold": {"expected_refusal": True}}]
    found = traces(score(write_rows(tmp_path / "rows.jsonl", rows), ["refusal"]), 0)["refusal"]
    assert found.span is not None and reply[found.span[0] : found.span[1]] == "doesn't mention"
    assert "doesn t mention" in found.rule and "(the en refusal phrase" in found.rule


def test_refusal_runs_by_default_only_where_items_say_whether_to_refuse(tmp_path: Path) -> None:
    plain = load_records(write_rows(tmp_path / "plain.jsonl", [{"id": "a", "response": "30 days"}]))
    assert "refusal" not in available_metrics(plain, ScoreOptions())
    with pytest.raises(InputError, match="refusal needs each row's gold expected_refusal"):
        score(plain, ["refusal"])
    flagged = write_rows(tmp_path / "flagged.jsonl", [{"id": "a", "response": "x", "expected_refusal": 0}])
    assert "refusal" in available_metrics(load_records(flagged), ScoreOptions())


@pytest.mark.parametrize(
    ("cell", "outcome"), [("true", Outcome.PASS), ("False", Outcome.FAIL), ("", Outcome.UNSCORED)]
)
def test_a_flat_csv_column_says_it_too(tmp_path: Path, cell: str, outcome: Outcome) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(f"id,question,answer,response,expected_refusal\na,q,x,I don't know.,{cell}\n", "utf-8")
    assert score(path, ["refusal"]).metrics["refusal"].outcome(0) == outcome


def test_an_unreadable_expected_refusal_names_the_row(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("id,question,answer,response,expected_refusal\nr7,q,x,y,perhaps\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected_refusal must be true or false, found 'perhaps'") as caught:
        score(path, ["refusal"])
    assert "row id r7" in str(caught.value)


def test_the_declined_column_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "a", "response": "I don't know.", "gold": {"expected_refusal": True}},
        {"id": "b", "response": "30 days.", "gold": {"expected_refusal": True}},
    ]
    source, out = write_rows(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    code, _, err = run(["score", "--responses", str(source), "--out", str(out), "--metric=refusal"], capsys)
    assert code == 0, err
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(row["refusal"], row["declined"]) for row in written] == [(True, 1), (False, 0)]


# --- refusal precision and recall -----------------------------------------------------------------------


def test_precision_and_recall_count_what_they_say(tmp_path: Path) -> None:
    rows = [  # 3 should be refused (2 declined, 1 answered), 3 should be answered (1 declined)
        {"id": "1", "response": "I cannot find that.", "gold": {"expected_refusal": True}},
        {"id": "2", "response": "", "gold": {"expected_refusal": True}, "reply": {"blocked": True}},
        {"id": "3", "response": "It is 30 days.", "gold": {"expected_refusal": True}},
        {"id": "4", "response": "It is not in the documents.", "gold": {"expected_refusal": False}},
        {"id": "5", "response": "It is 30 days.", "gold": {"expected_refusal": False}},
        {"id": "6", "response": "It is 15 days.", "gold": {"expected_refusal": False}},
        {"id": "7", "response": "", "gold": {"expected_refusal": True}, "reply": {"error": "HTTP 500"}},
        {"id": "8", "response": "I don't know.", "gold": {}},
    ]
    run = score(write_rows(tmp_path / "rows.jsonl", rows), ["refusal"])
    precision, recall, counts = refusal_rates(run.records, run.metrics["refusal"])
    assert counts == RefusalCounts(
        declined_refusal=2, declined_answerable=1, answered_refusal=1, answered_answerable=2, unscored=2
    )
    assert (precision, recall) == (Rate(2, 3), Rate(2, 3))
    assert precision.value == pytest.approx(2 / 3) and precision.interval == wilson(2, 3)


def test_rates_of_no_rows_have_no_value() -> None:
    precision, recall, counts = refusal_rates([], MetricScores.all_failing("refusal", 0, ("declined",)))
    assert (precision.value, precision.interval, recall.value, counts.unscored) == (None, None, None, 0)


# --- the core: a system's failure, and blank rows -------------------------------------------------------


def test_a_row_whose_system_failed_is_unscored_under_every_metric_and_no_blank(tmp_path: Path) -> None:
    rows = [
        {"id": "ok", "response": "The grace period is 30 days.", "expected_regex": "30 days"},
        {"id": "down", "response": "", "expected_regex": "30 days", "reply": {"error": "connection refused"}},
        {"id": "empty", "response": "", "expected_regex": "30 days"},
    ]
    run = score(write_rows(tmp_path / "rows.jsonl", rows))
    assert len(run.metrics) >= 4  # the seed pair, phrase_match, hard_fact
    for name, scores in run.metrics.items():
        assert scores.outcome(1) is Outcome.UNSCORED, name
        assert scores.reasons[1] == "the system failed: connection refused"
        assert scores.outcome(2) is Outcome.FAIL, name  # blank, the system did not fail: incorrect
        assert traces(run, 1)[name].rule == "the system failed: connection refused"
    assert list(run.blank) == [0, 0, 1] and run.summary.blank == 1
    tally = run.summary.metrics["hard_fact"].combined
    assert (tally.n, tally.passed, tally.unscored, tally.blank) == (3, 1, 1, 1)


def test_a_scorer_that_decides_blank_rows_keeps_its_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def passes_all(responses, answer_sets):  # type: ignore[no-untyped-def]
        scores = MetricScores.all_failing("lenient", len(responses))
        scores.outcomes[:] = bytes([Outcome.PASS]) * len(responses)
        return scores

    for name, decides in (("lenient", True), ("strict", False)):
        monkeypatch.setitem(
            SCORERS._added,
            name,
            Scorer(name=name, description="passes", view=str, score_rows=passes_all, decides_blank=decides),
        )
    run = score(write_rows(tmp_path / "rows.jsonl", [{"id": "a", "response": ""}]), ["lenient", "strict"])
    assert run.metrics["lenient"].outcome(0) is Outcome.PASS
    assert run.metrics["strict"].outcome(0) is Outcome.FAIL
    assert "blank" not in traces(run, 0)["lenient"].rule and "blank" in traces(run, 0)["strict"].rule
    assert REFUSAL.decides_blank


def test_a_scored_run_is_scored_again_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run's rows already hold refusal and declined: --on-conflict replace writes fresh ones."""
    rows = [{"id": "a", "response": "I don't know.", "gold": {"expected_refusal": False}}]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    source = write_rows(tmp_path / "in.jsonl", rows)
    assert run(["score", "--responses", str(source), "--out", str(first), "--metric=refusal"], capsys)[0] == 0
    stale = [json.loads(first.read_text(encoding="utf-8")) | {"refusal": True, "declined": 0}]
    first.write_text(json.dumps(stale[0]) + "\n", encoding="utf-8")
    argv = ["score", "--responses", str(first), "--out", str(second), "--metric=refusal"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "declined" in err  # the old columns would be overwritten: said, not done
    code, _, err = run([*argv, "--on-conflict", "replace"], capsys)
    assert code == 0, err
    again = json.loads(second.read_text(encoding="utf-8"))
    assert (again["refusal"], again["declined"]) == (False, 1)
