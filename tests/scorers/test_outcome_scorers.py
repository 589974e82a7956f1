"""The outcome metrics as Scorers (scorers/outcomes.py): asked for with the others in one ``score`` call, as
``assay run`` asks for them, they give what ``with_outcomes`` gives a run scored without them -- the same
classes, reasons, verdicts and signatures -- decide the rows whose system failed themselves, and read a
referee (any run scorer declared as one, here a scripted one) where it was asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_outcomes import CITED, TABLE, Case, item, run_rows, write_rows

from assay import score
from assay.harness.outcomes import CITATION_SCORER, FACTUAL_SCORER, outcome_metrics, with_outcomes
from assay.scorers import MetricScores, Outcome, RunView, Scorer
from assay.scorers.outcome_rule import Referee
from assay.scorers.outcomes import CITATION, FACTUAL, NOT_APPLICABLE, OUTCOME_COLUMN, outcome_scorers

CASES = [row[0] for row in TABLE]
MATCHERS = ["hard_fact", "value_match"]


def rows_file(tmp_path: Path, cases: list[Case]) -> Path:
    return write_rows(tmp_path / "run.jsonl", run_rows(cases))


def test_asked_for_with_the_others_they_give_what_with_outcomes_gives(tmp_path: Path) -> None:
    path = rows_file(tmp_path, CASES)
    together = score(path, outcome_metrics(MATCHERS))
    after = with_outcomes(score(path, MATCHERS))
    assert list(together.metrics) == [*MATCHERS, FACTUAL]
    for name in (OUTCOME_COLUMN, "outcome_reason", "decided_by"):
        assert together.metrics[FACTUAL].texts[name] == after.metrics[FACTUAL].texts[name]
    assert together.metrics[FACTUAL].outcomes == after.metrics[FACTUAL].outcomes
    assert together.summary.metrics[FACTUAL].signature == after.summary.metrics[FACTUAL].signature
    assert together.summary.metrics[FACTUAL].signature.startswith("factual@6|hard_fact:(hard_fact@")


@pytest.mark.parametrize(
    ("metric", "outcome", "reason"),
    [(FACTUAL, Outcome.FAIL, None), (CITATION, Outcome.UNSCORED, NOT_APPLICABLE)],
)
def test_a_row_whose_system_failed_is_theirs_to_decide(
    tmp_path: Path, metric: str, outcome: Outcome, reason: str | None
) -> None:
    """A system error counts against the system under factual, and citation does not apply to it."""
    case = Case(item("e1"), "", {"error": "HTTP 500"})
    run = score(rows_file(tmp_path, [case]), outcome_metrics([*MATCHERS, "grounded"]))
    assert run.metrics[metric].outcome(0) is outcome
    assert run.metrics[metric].reasons.get(0) == reason


def test_citation_needs_grounded_and_the_classes_of_factual() -> None:
    assert FACTUAL_SCORER.needs[0] == "judge?"  # the referee the harness declares, read when it runs
    assert set(CITATION_SCORER.needs) == {FACTUAL, "grounded", "refusal?"}
    assert outcome_metrics(MATCHERS) == [*MATCHERS, FACTUAL_SCORER]


def _scripted_referee(view: RunView) -> MetricScores:
    """A referee that fails every row and is asked only the first."""
    scores = MetricScores.all_failing("second_reader", len(view.records))
    scores.texts["second_reader_asked"] = ["yes"] + ["no"] * (len(view.records) - 1)
    return scores


@pytest.mark.parametrize(
    ("index", "outcome", "decided_by", "words"),
    [
        (0, "wrong_cited", "second_reader", "second_reader: it says FAIL"),
        (1, "correct", "matchers", "the second_reader was not asked: the matchers decided"),
    ],
)
def test_a_declared_referee_decides_the_rows_it_was_asked(
    tmp_path: Path, index: int, outcome: str, decided_by: str, words: str
) -> None:
    referee = Referee(
        "second_reader",
        rule=lambda scores, row: f"it says {Outcome(scores.outcomes[row]).name}",
        asked=lambda scores, row: scores.texts["second_reader_asked"][row] == "yes",
    )
    reader = Scorer("second_reader", "a scripted referee", score_run=_scripted_referee, default=False)
    factual, _ = outcome_scorers(referee)
    right = "The free-look period is 15 days."
    cases = [Case(item("x1"), right, CITED), Case(item("x2"), right, CITED)]
    run = score(rows_file(tmp_path, cases), [*MATCHERS, reader, factual])
    texts = run.metrics[FACTUAL].texts
    assert (texts[OUTCOME_COLUMN][index], texts["decided_by"][index]) == (outcome, decided_by)
    assert words in str(texts["outcome_reason"][index])
    assert "second_reader:(" in run.summary.metrics[FACTUAL].signature


@pytest.mark.parametrize("module", ["outcome_rule.py", "outcomes.py"])
def test_the_scorers_name_no_referee(module: str) -> None:
    """The rule reads the referee a caller declares: it names none itself."""
    source = Path(__file__).resolve().parents[2] / "src" / "assay" / "scorers" / module
    assert "judge" not in source.read_text(encoding="utf-8").lower()
