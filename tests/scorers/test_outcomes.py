"""A harness run row's outcome (harness.outcomes): every class reachable, and the precedence of issue 12 --
a system error first; a refusal item blocked is correct; a judge that could not decide stays unscored and
is never regraded by a matcher; hard_fact and value_match disagreeing is unscored; a wrong answer is a
refusal, cited or uncited; a right one ungrounded when grounded fails it. The runs are real: gold items
answered in a JSONL file, scored with hard_fact and value_match; the verdicts of refusal, grounded and the
judge are given as the columns a scored run holds (MetricScores), as a run read back would have them.

The builders here (``item``, ``Case``, ``scored_run``, ``run_rows``) serve the results and compare tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from assay import score
from assay.harness.outcomes import CITATION, FACTUAL, OUTCOMES, outcomes, with_outcomes
from assay.scorers import Evidence, MetricScores, Outcome
from assay.scoring import ScoreRun, finish

SCOPE, OTHER_SCOPE = "acme__gold-plan__wordings", "zenith__basic__wordings"


def item(
    ident: str,
    answer: str = "15 days",
    value: Any = 15,
    unit: str | None = "day",
    regex: str | None = r"(?<!\d)15\s?days?\b",
    *,
    refusal: bool = False,
    scope: str = SCOPE,
    category: str = "policy",
    answer_type: str = "number_unit",
) -> dict[str, Any]:
    """A gold item as `assay gold build` writes one (a refusal item has no value and no pattern)."""
    return {
        "id": ident,
        "scope": scope,
        "field": None if refusal else "free_look_days",
        "question": f"Question {ident}: how long is the free-look period?",
        "expected_answer": "The documents do not say." if refusal else answer,
        "expected_value": None if refusal else {"value": value, "unit": unit},
        "expected_regex": None if refusal else regex,
        "answer_type": None if refusal else answer_type,
        "category": "refusal" if refusal else category,
        "expected_refusal": refusal,
        "source": None if refusal else {"document": scope, "title": "Gold Plan", "page": 2},
    }


@dataclass
class Case:
    """One row: the item, the reply, and the verdicts given for the metrics not scored here."""

    item: dict[str, Any]
    response: str
    reply: dict[str, Any] = field(default_factory=dict)
    refusal: tuple[Outcome, int] | None = None  # (verdict, declined)
    grounded: tuple[Outcome, str | None] | None = None  # (verdict, problems)
    judge: tuple[Outcome, str] | None = None  # (verdict, rationale or the unscored reason)


def run_rows(cases: Sequence[Case]) -> list[dict[str, Any]]:
    return [{**case.item, "response": case.response, "reply": case.reply} for case in cases]


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def scored_run(tmp_path: Path, cases: Sequence[Case], given: Sequence[str] = ()) -> ScoreRun:
    """The cases answered in a run file, scored with hard_fact and value_match, plus the `given` metrics
    (refusal, grounded, judge) as their columns. A case without a verdict for a given metric: refusal
    PASS (declined 0), grounded PASS (UNSCORED for a refusal item), judge PASS."""
    run = score(write_rows(tmp_path / "run.jsonl", run_rows(cases)), ["hard_fact", "value_match"])
    metrics = dict(run.metrics)
    signatures = {name: run.summary.metrics[name].signature for name in metrics}
    for name in given:
        metrics[name] = _given(name, cases)
        signatures[name] = f"{name}@test"
    return finish(run.dataset, metrics, run.blank, run.options, signatures)


def _given(name: str, cases: Sequence[Case]) -> MetricScores:
    extras = ("declined",) if name == "refusal" else ()
    scores = MetricScores.all_failing(name, len(cases), extras)
    texts: list[str | None] = []
    for index, case in enumerate(cases):
        verdict, text = _verdict_of(name, case)
        scores.outcomes[index] = verdict
        if verdict is Outcome.UNSCORED:
            scores.reasons[index] = str(text)
        if name == "refusal":
            scores.extras["declined"][index] = int(text or 0)
        texts.append(text if isinstance(text, str) else None)
    # The evidence a trace reads, stored as scoring with evidence=True stores it: these verdicts are
    # given, so no scorer could rebuild it (grounded would need its documents).
    scores.evidence = [
        Evidence(str(text or Outcome(verdict).name), None, None, case.response)
        for case, verdict, text in zip(cases, scores.outcomes, texts)
    ]
    if name == "grounded":
        scores.texts["grounded_problems"] = texts
    if name == "judge":
        scores.texts["judge_by"] = ["openai:judge-model"] * len(cases)
        scores.texts["judge_rationale"] = texts
    return scores


def _verdict_of(name: str, case: Case) -> tuple[Outcome, Any]:
    found = getattr(case, name)
    if found is not None:
        return found  # type: ignore[no-any-return]
    if name == "grounded" and case.item["expected_refusal"]:
        return Outcome.UNSCORED, "a refusal item"
    return Outcome.PASS, 0 if name == "refusal" else None


CITED = {"citations": [{"document": SCOPE, "page": 2}]}
DECLINE = "I'm sorry, I cannot find that in the documents."

# (case, the metrics given beside hard_fact and value_match, the outcome, words its reason holds)
TABLE = [
    (Case(item("a1"), "The free-look period is 15 days.", CITED), (), "correct", "hard_fact PASS"),
    (Case(item("a2"), "It is 45 days.", {}), (), "wrong_uncited", "no citation"),
    (Case(item("a3"), "It is 2024 days.", CITED), (), "wrong_cited", f"cites {SCOPE}"),
    (
        Case(item("a4"), "It is 15 days.", CITED, grounded=(Outcome.FAIL, "p.2 does not hold 15 days")),
        ("grounded",),
        "correct_ungrounded",
        "p.2 does not hold 15 days",
    ),
    (
        Case(item("a5"), DECLINE, {}, refusal=(Outcome.FAIL, 1)),
        ("refusal",),
        "refused_answerable",
        "declined an answerable item",
    ),
    (
        Case(item("r1", refusal=True), "It is 30 days.", {}, refusal=(Outcome.FAIL, 0)),
        ("refusal",),
        "answered_refusal",
        "refusal FAIL",
    ),
    (Case(item("a6"), "", {"blocked": True}), (), "blocked", "guard blocked"),
    (Case(item("a7"), "", {"error": "timed out after 60s"}), (), "system_error", "timed out after 60s"),
    (  # a yes/no item whose reply says neither: the rules cannot decide, and say so
        Case(item("a8", "Yes", True, None, r"\byes\b", answer_type="bool"), "It depends on the plan.", CITED),
        (),
        "unscored",
        "says neither yes nor no of the question's terms: a judge decides",
    ),
]


@pytest.mark.parametrize(("case", "given", "expected", "words"), TABLE, ids=[row[2] for row in TABLE])
def test_each_outcome_class(
    tmp_path: Path, case: Case, given: Sequence[str], expected: str, words: str
) -> None:
    outcome, reason = outcomes(scored_run(tmp_path, [case], given))[0]
    assert outcome == expected
    assert words in reason


def test_every_class_is_reachable() -> None:
    assert sorted({row[2] for row in TABLE}) == sorted(OUTCOMES)


def test_a_refusal_item_blocked_is_correct_even_when_refusal_says_it_answered(tmp_path: Path) -> None:
    case = Case(item("r2", refusal=True), "", {"blocked": True}, refusal=(Outcome.FAIL, 0))
    assert outcomes(scored_run(tmp_path, [case], ["refusal"]))[0][0] == "correct"


def test_a_refusal_item_declined_is_correct(tmp_path: Path) -> None:
    case = Case(item("r3", refusal=True), DECLINE, {}, refusal=(Outcome.PASS, 1))
    assert outcomes(scored_run(tmp_path, [case], ["refusal"]))[0] == ("correct", "refusal PASS")


def test_a_judge_that_could_not_decide_is_unscored_though_the_matchers_pass(tmp_path: Path) -> None:
    reason = "the judge's reply is not a verdict"
    case = Case(item("j1"), "The free-look period is 15 days.", CITED, judge=(Outcome.UNSCORED, reason))
    run = scored_run(tmp_path, [case], ["judge"])
    assert run.metrics["hard_fact"].outcome(0) is Outcome.PASS  # a matcher would have passed it
    outcome, why = outcomes(run)[0]
    assert (outcome, why) == ("unscored", f"judge: {reason}")
    assert with_outcomes(run).metrics[FACTUAL].outcome(0) is Outcome.UNSCORED


def test_the_judge_decides_over_the_matchers_with_its_rationale(tmp_path: Path) -> None:
    verdict = (Outcome.FAIL, "names the wrong plan")
    case = Case(item("j2"), "The free-look period is 15 days.", {}, judge=verdict)
    outcome, why = outcomes(scored_run(tmp_path, [case], ["judge"]))[0]
    assert outcome == "wrong_uncited"
    assert "openai:judge-model: INCORRECT (names the wrong plan)" in why


def test_the_judge_decides_a_refusal_item_over_refusal(tmp_path: Path) -> None:
    judged = (Outcome.FAIL, "answers what it should decline")
    case = Case(item("r4", refusal=True), "It is 30 days.", refusal=(Outcome.PASS, 1), judge=judged)
    assert outcomes(scored_run(tmp_path, [case], ["refusal", "judge"]))[0][0] == "answered_refusal"


def test_one_matcher_unscored_leaves_the_other_to_decide(tmp_path: Path) -> None:
    case = Case(item("m1", regex=None), "It is 15 days.", CITED)  # no pattern: hard_fact unscored
    run = scored_run(tmp_path, [case])
    assert run.metrics["hard_fact"].outcome(0) is Outcome.UNSCORED
    assert outcomes(run)[0] == ("correct", "value_match PASS")


def test_a_wrong_answer_declined_is_a_refusal_not_a_citation_class(tmp_path: Path) -> None:
    case = Case(item("w1"), DECLINE, CITED, refusal=(Outcome.FAIL, 1))
    assert outcomes(scored_run(tmp_path, [case], ["refusal"]))[0][0] == "refused_answerable"


def test_a_system_error_comes_before_a_block(tmp_path: Path) -> None:
    case = Case(item("e1", refusal=True), "", {"error": "HTTP 500", "blocked": True})
    assert outcomes(scored_run(tmp_path, [case]))[0] == ("system_error", "the system failed: HTTP 500")


@pytest.mark.parametrize("error", ["   ", ""])
def test_an_error_of_no_words_is_no_system_error_as_the_core_scores_it(tmp_path: Path, error: str) -> None:
    """The metrics scored the row (the core's rule: an error of only spaces is none); so does its outcome."""
    run = scored_run(tmp_path, [Case(item("e2"), "The free-look period is 15 days.", {"error": error})])
    assert run.metrics["hard_fact"].outcome(0) is Outcome.PASS
    assert outcomes(run)[0] == ("correct", "hard_fact PASS; value_match PASS")


def test_factual_and_citation_are_metrics_of_the_summary(tmp_path: Path) -> None:
    cases = [row[0] for row in TABLE]
    run = with_outcomes(scored_run(tmp_path, cases, ["refusal", "grounded"]))
    factual = run.summary.metrics[FACTUAL].combined
    # correct and correct_ungrounded pass; unscored is left out; every other class fails
    assert (factual.n, factual.passed, factual.unscored) == (9, 2, 1)
    citation = run.summary.metrics[CITATION].combined
    # grounded over the answerable items answered: a1, a2, a3, a4, a8 (a4 fails); the rest do not apply
    assert (citation.n - citation.unscored, citation.passed) == (5, 4)
    assert run.metrics[FACTUAL].texts["outcome"] == [row[2] for row in TABLE]
    signature = run.summary.metrics[FACTUAL].signature
    assert signature.startswith("factual@6|hard_fact:(hard_fact@") and "refusal:(refusal@test)" in signature
    assert with_outcomes(run) is run  # once is enough


def test_a_trace_of_factual_gives_the_outcome_and_its_reason(tmp_path: Path) -> None:
    from assay.trace import traces, traces_json

    cases = [row[0] for row in TABLE]
    run = with_outcomes(scored_run(tmp_path, cases, ["refusal", "grounded"]))
    for index, row in enumerate(TABLE):
        expected = f"{row[2]}: {outcomes(run)[index][1]}"
        assert traces(run, index)[FACTUAL].rule == expected
        assert json.loads(traces_json(run, index, index + 1)[0])[FACTUAL]["rule"] == expected


@pytest.mark.parametrize(
    ("declines", "expected", "words"),
    [
        # a decline holding the नहीं / No a "No" item's pattern and value look for, and nothing else
        ("पॉलिसी दस्तावेज़ में इसकी जानकारी नहीं है", "refused_answerable", "says nothing besides a decline"),
        ("No, the answer is not provided.", "refused_answerable", "says nothing besides a decline"),
        ("No, the brochure does not say. Please call the insurer.", "refused_answerable", "nothing besides"),
        # a decline and something more: a reader must weigh the two
        ("No. The document does not say.", "unscored", "reads as a refusal"),
    ],
)
def test_a_refusal_holding_a_no_is_not_a_correct_no(
    tmp_path: Path, declines: str, expected: str, words: str
) -> None:
    """Scored by the real metrics, the matchers pass the No in a decline and refusal declines it: a reply
    that says nothing besides its decline refused an answerable item; one that says more is unscored."""
    no_item = item(
        "b1", "No", False, None, r"(?<!\w)(?:no|नहीं)(?!\w)", answer_type="bool", category="coverage"
    )
    path = write_rows(tmp_path / "run.jsonl", [{**no_item, "response": declines, "reply": {}}])
    run = score(path, ["hard_fact", "value_match", "refusal"])
    assert run.metrics["hard_fact"].outcome(0) is Outcome.PASS  # what the matchers alone would say
    assert run.metrics["refusal"].extras["declined"][0] == 1
    outcome, why = outcomes(run)[0]
    assert outcome == expected
    assert words in why
