"""assay run end to end against a system written to fail in known ways (issue 12's "Done when"): a gold set
built by `assay gold build` from synthetic PDFs of two policies of one insurer (tests/support/pdfgen.py),
asked of an in-process system file, graded, and the outcome of every item and the counts of results.json
checked.

The system: answers a "24 months" item with a sentence holding only "2024"; answers Yes/No items right
(Yes and No) and wrong (Yes for No, No for Yes); cites the other policy of the same insurer, or the insurer
alone, for a right value; states a right number on a page that does not hold it; declines an answerable
item; answers an item that should be refused. Then the same run with a judge asked every item
(--judge-all) whose replies are no verdicts (tests/support/fault_proxy.py in front of the real llama.cpp
server): every item unscored, decided by the judge, and so it stays, though the matchers would pass some.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
from cli_run import run
from fault_proxy import Faults, fault_proxy

from conftest import Server

TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
BASIC, PLUS = "acme__basic-plan", "acme__basic-plan-plus"
BASIC_PAGES = (
    ("Acme Basic Shield policy wording.", "This policy wording was revised in 2024."),
    ("A grace period of 30 days is allowed for renewal.",
     "AYUSH treatment is covered up to the sum insured."),
    ("Pre-existing diseases are covered after 24 months of continuous coverage.",
     "Maternity expenses are not covered."),
)  # fmt: skip
PLUS_PAGES = (
    ("Acme Basic Shield Plus policy wording.",),
    ("A grace period of 15 days is allowed for renewal.", "AYUSH treatment is not covered."),
    ("Pre-existing diseases are covered after 36 months of continuous coverage.",
     "Maternity expenses are covered."),
)  # fmt: skip


def _claim(field: str, value: Any, quote: str, path: str, **more: Any) -> dict[str, Any]:
    return {"field": field, "value": value, "source": {"path": path, "quote": quote}, **more}


def _covered(yes: bool) -> str:
    return "covered" if yes else "not covered"


def _facts(document: str, title: str, path: str, values: tuple[int, int, bool, bool]) -> dict[str, Any]:
    grace, waiting, ayush, maternity = values
    return {
        "document": document,
        "title": title,
        "claims": [
            _claim("grace_period", grace, f"A grace period of {grace} days", path, unit="days"),
            _claim(
                "pre_existing_disease_waiting_months",
                waiting,
                f"Pre-existing diseases are covered after {waiting} months",
                path,
                unit="months",
            ),
            _claim("ayush_coverage", ayush, f"AYUSH treatment is {_covered(ayush)}", path),
            _claim("maternity_coverage", maternity, f"Maternity expenses are {_covered(maternity)}", path),
        ],
    }  # fmt: skip


# The system under test, a file of its own. Keyed by the question's words (each field has two question
# variants in the templates; both get the same treatment unless said).
SYSTEM = '''
DECLINE = "I cannot find that in the policy documents."


def answer(question, scope=None):
    plus = "Basic Shield Plus" in question
    if "grace" in question:
        if plus:  # an answerable item declined
            return DECLINE
        # the right value, citing the insurer alone, or the other policy of the same insurer
        cited = "Acme" if question.startswith("How many days") else "Acme Basic Shield Plus"
        return f"The grace period is 30 days. [Source: {cited}, p.2]"
    if "pre-existing" in question:
        if plus:  # the right value, on a cited page that does not hold it (p.3 does)
            return "Pre-existing diseases are covered after 36 months. [Source: acme__basic-plan-plus, p.2]"
        return "This policy wording was revised in 2024. [Source: acme__basic-plan, p.1]"  # "24 months"
    if "AYUSH" in question or "Ayurveda" in question:  # Yes: right for Basic, wrong (cited) for Plus
        return {"text": "Yes, AYUSH treatment is covered.", "citations": [{"document": scope, "page": 2}]}
    if "maternity" in question or "childbirth" in question:  # No: right for Basic, wrong (uncited) for Plus
        if plus:
            return "No."
        return "No, maternity expenses are not covered. [Source: acme__basic-plan, p.3]"
    # the refusal items: declined for Plus, answered (an invented figure) for Basic
    return DECLINE if plus else "It is 98 per cent, as the insurer's brochure says."
'''

# (scope, field) -> (outcome, hard_fact, value_match, refusal, grounded); None for unscored / no column.
EXPECTED = {
    (BASIC, "grace_period"): ("correct_ungrounded", True, True, True, False),
    (BASIC, "pre_existing_disease_waiting_months"): ("wrong_cited", False, False, True, False),
    (BASIC, "ayush_coverage"): ("correct", True, True, True, True),
    (BASIC, "maternity_coverage"): ("correct", True, True, True, True),
    (BASIC, None): ("answered_refusal", None, None, False, None),
    (PLUS, "grace_period"): ("refused_answerable", False, False, False, False),
    (PLUS, "pre_existing_disease_waiting_months"): ("correct_ungrounded", True, True, True, False),
    (PLUS, "ayush_coverage"): ("wrong_cited", False, False, True, True),
    (PLUS, "maternity_coverage"): ("wrong_uncited", False, False, True, False),
    (PLUS, None): ("correct", None, None, True, None),
}
COUNTS = {"correct": 7, "wrong_uncited": 2, "wrong_cited": 4, "correct_ungrounded": 4,
          "refused_answerable": 2, "answered_refusal": 3, "blocked": 0, "unscored": 0,
          "system_error": 0}  # fmt: skip


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sources/ (the two PDFs), facts/, gold.jsonl (of assay gold build) and bot.py."""
    root = tmp_path_factory.mktemp("known")
    pdfgen.pages_pdf(root / "sources" / "acme", "basic-plan.pdf", BASIC_PAGES)
    pdfgen.pages_pdf(root / "sources" / "acme", "basic-plan-plus.pdf", PLUS_PAGES)
    (root / "facts").mkdir()
    facts = {
        "basic": _facts(BASIC, "Basic Shield", "acme/basic-plan.pdf", (30, 24, True, False)),
        "plus": _facts(PLUS, "Basic Shield Plus", "acme/basic-plan-plus.pdf", (15, 36, False, True)),
    }
    for name, data in facts.items():
        (root / "facts" / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    (root / "bot.py").write_text(SYSTEM, encoding="utf-8")
    return root


def _build_gold(corpus: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    gold = corpus / "gold.jsonl"
    argv = ["gold", "build", "--facts", str(corpus / "facts"), "--sources", str(corpus / "sources")]
    code, _, stderr = run([*argv, "--templates", str(TEMPLATES), "--refusals", "--out", str(gold)], capsys)
    assert code == 0, stderr
    return gold


def _run(corpus: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    gold = _build_gold(corpus, capsys)
    argv = ["run", "--gold", str(gold), "--system", f"{corpus / 'bot.py'}:answer", "--out", str(out)]
    code, _, stderr = run([*argv, "--sources", str(corpus / "sources"), *extra], capsys)
    return code, stderr


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]


def test_each_known_failure_lands_in_its_class_with_its_verdicts(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stderr = _run(corpus, tmp_path / "run", capsys)
    assert code == 0, stderr
    rows = _rows(tmp_path / "run")
    assert len(rows) == 22  # 4 fields x 2 variants and 3 refusals, for each of the two policies
    metrics = ("hard_fact", "value_match", "refusal", "grounded")
    found = {(row["id"], row["outcome"], *(row.get(m) for m in metrics)) for row in rows}
    wanted = {(row["id"], *EXPECTED[row["scope"], row["field"]]) for row in rows}
    assert found == wanted
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["outcomes"] == COUNTS
    refusal = results["headline"]["refusal"]
    assert (refusal["declined_answerable_items"], refusal["answered_refusal_items"]) == (2, 3)
    assert (refusal["precision"], refusal["recall"]) == (3 / 5, 3 / 6)
    assert results["headline"]["factual"]["correct"] == 11  # correct and correct_ungrounded


def test_the_reasons_say_which_check_failed(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(corpus, tmp_path / "run", capsys)[0] == 0
    rows = _rows(tmp_path / "run")

    def problems(scope: str, field: str) -> set[str]:
        return {row["grounded_problems"] for row in rows if (row["scope"], row["field"]) == (scope, field)}

    wrong_policy = f"cites {PLUS}, outside the item's scope ({BASIC})"
    insurer_only = "'Acme' names only a company, none of its documents"
    assert problems(BASIC, "grace_period") == {wrong_policy, insurer_only}
    (absent,) = problems(PLUS, "pre_existing_disease_waiting_months")
    assert "'36 months' is not in the cited or retrieved text" in absent
    declined = {row["outcome_reason"] for row in rows if row["outcome"] == "refused_answerable"}
    assert declined == {"hard_fact FAIL; value_match FAIL; refusal: the reply declined an answerable item"}


def test_a_judge_reply_that_is_no_verdict_leaves_every_item_unscored_and_it_stays_so(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], llama_server: Server
) -> None:
    out = tmp_path / "run"
    with fault_proxy(llama_server.base_url, Faults(garbage="lorem ipsum")) as proxy:
        judge = ["--judge", f"openai:{llama_server.model}@{proxy}", "--no-cache", "--judge-all"]
        code, stderr = _run(corpus, out, capsys, *judge, "--gate", "factual>=0.5")
    assert code == 1, stderr  # the gate: too many unscored
    rows = _rows(out)
    assert {row["outcome"] for row in rows} == {"unscored"}
    assert all(row["judge"] is None and "lorem ipsum" in row["outcome_reason"] for row in rows)
    assert {row["decided_by"] for row in rows} == {"judge"}
    assert any(row["hard_fact"] is True for row in rows)  # a matcher would have passed these: it does not
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["outcomes"]["unscored"] == 22 and results["headline"]["factual"]["scored"] == 0
    # and so it stays: the same command again (the journal answers, the judge is asked again) changes nothing
    with fault_proxy(llama_server.base_url, Faults(garbage="still no verdict")) as proxy:
        judge = ["--judge", f"openai:{llama_server.model}@{proxy}", "--no-cache", "--judge-all"]
        code, stderr = _run(corpus, out, capsys, *judge)
    assert code == 0, stderr
    assert {row["outcome"] for row in _rows(out)} == {"unscored"}
