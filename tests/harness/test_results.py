"""A harness run's reports (harness.results) and its gate (harness.run_gate): results.json holds the
headline, the breakdown, the rollups, the items and the signatures; results.md shows them in tables, safe
for hostile text; the gate passes and fails as the bar says, and names how many more correct items the bar
needs. The runs are real gold items answered in a JSONL file and scored (see test_outcomes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_markdown_escape import HOSTILE, live_markup, table_rows_are_whole
from test_outcomes import CITED, DECLINE, OTHER_SCOPE, SCOPE, Case, item, scored_run

from assay import stats
from assay.errors import UsageError
from assay.gate import Gate
from assay.harness.outcomes import OUTCOMES, with_outcomes
from assay.harness.results import RESULTS_FILES, RunInfo, results_dict, write_results
from assay.harness.run_gate import GateSettings, check_run, more_needed
from assay.scorers import Outcome
from assay.summary import IntervalMethod, Tally

RIGHT, WRONG = "The free-look period is 15 days.", "The free-look period is 45 days."


def info(**more: Any) -> RunInfo:
    found: dict[str, Any] = {"options": {"concurrency": 4, "timeout": 60.0}, "elapsed": 12.5, **more}
    return RunInfo(
        system=found.pop("system", "examples/bot.py:answer"),
        system_signature="examples/bot.py:answer|top_k=3",
        gold_path="gold.jsonl",
        gold_sha256="ab" * 32,
        **found,
    )


def cases(right: int, wrong: int, scope: str = SCOPE, route: str = "bm25") -> list[Case]:
    found = [Case(item(f"{scope}-r{i}", scope=scope), RIGHT, {**CITED, "route": route}) for i in range(right)]
    return found + [Case(item(f"{scope}-w{i}", scope=scope), WRONG, {"route": route}) for i in range(wrong)]


@pytest.fixture
def mixed(tmp_path: Path) -> list[Case]:
    """Two scopes and two routes, every breakdown class but unscored, and refusal items."""
    found = cases(6, 2) + cases(3, 1, OTHER_SCOPE, "llm")
    found += [
        Case(item("blocked-1"), "", {"blocked": True}),
        Case(item("error-1"), "", {"error": "HTTP 500 from the system"}),
        Case(item("refused-1"), DECLINE, {}, refusal=(Outcome.FAIL, 1)),
        Case(item("ungrounded-1"), RIGHT, CITED, grounded=(Outcome.FAIL, "page 2 lacks '15 days'")),
        Case(item("wrongcited-1", category="claims"), "It is 2024 days.", CITED),
        Case(item("ref-ok", refusal=True), DECLINE, {}, refusal=(Outcome.PASS, 1)),
        Case(item("ref-ok-2", refusal=True), "", {"blocked": True}, refusal=(Outcome.PASS, 1)),
        Case(item("ref-bad", refusal=True), "It is 30 days.", {}, refusal=(Outcome.FAIL, 0)),
    ]
    return found


def test_results_json_holds_the_headline_breakdown_and_rollups(tmp_path: Path, mixed: list[Case]) -> None:
    run = with_outcomes(scored_run(tmp_path, mixed, ["refusal", "grounded"]))
    paths = write_results(run, tmp_path / "out", info())
    assert sorted(paths) == sorted(RESULTS_FILES) and all(path.is_file() for path in paths.values())
    found = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    counts = found["outcomes"]
    assert list(counts) == list(OUTCOMES)
    expected = {"correct": 9 + 2, "wrong_uncited": 3, "wrong_cited": 1, "correct_ungrounded": 1, "blocked": 1,
                "refused_answerable": 1, "answered_refusal": 1, "system_error": 1, "unscored": 0}  # fmt: skip
    assert counts == expected
    headline = found["headline"]
    assert headline["questions"] == len(mixed) == 20
    factual = headline["factual"]
    assert (factual["correct"], factual["scored"]) == (12, 20)  # correct and correct_ungrounded pass
    wilson = stats.wilson(12, 20)
    assert wilson is not None and factual["interval"] == wilson.as_dict()
    # citation: grounded over the answerable items answered: 9 right, 3 wrong, 1 ungrounded, 1 wrong cited
    assert (headline["citation"]["correct"], headline["citation"]["scored"]) == (13, 14)
    refusal = headline["refusal"]
    # declined: refused-1 (answerable), ref-ok, ref-ok-2; refusal items: ref-ok, ref-ok-2, ref-bad
    assert (refusal["precision"], refusal["recall"]) == (2 / 3, 2 / 3)
    assert (refusal["declined"], refusal["refusal_items"]) == (3, 3)
    assert (headline["blocked"], headline["system_errors"], headline["judged"]) == (2, 1, False)
    scopes = found["rollups"]["scope"]
    assert (scopes[OTHER_SCOPE]["n"], scopes[OTHER_SCOPE]["correct"]) == (4, 3)
    assert (scopes[SCOPE]["n"], scopes[SCOPE]["correct"]) == (16, 9)
    routes = found["rollups"]["route"]
    assert {name: (r["n"], r["correct"]) for name, r in routes.items()} == {
        "(none)": (8, 3), "bm25": (8, 6), "llm": (4, 3)}  # fmt: skip
    assert found["rollups"]["category"]["claims"]["n"] == 1
    by_id = {row["id"]: row for row in found["items"]}
    assert by_id["ungrounded-1"]["outcome"] == "correct_ungrounded"
    assert "page 2 lacks '15 days'" in by_id["ungrounded-1"]["reason"]
    assert by_id["error-1"]["error"] == "HTTP 500 from the system"
    assert "traces" in by_id["wrongcited-1"] and "traces" not in by_id[f"{SCOPE}-r0"]
    assert by_id["wrongcited-1"]["traces"]["hard_fact"]["outcome"] == "fail"
    signatures = found["signatures"]
    assert signatures["gold_sha256"] == "ab" * 32 and signatures["system"] == "examples/bot.py:answer"
    assert set(signatures["metrics"]) == {"hard_fact", "value_match", "refusal", "grounded", "factual",
                                          "citation"}  # fmt: skip


def markdown_table(markdown: str, heading: str) -> list[list[str]]:
    """The rows of the first table after `heading`, each a list of its cells."""
    lines = markdown.split("\n")
    start = lines.index(heading) + 2
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_results_md_has_the_seed_headline_and_tables(tmp_path: Path, mixed: list[Case]) -> None:
    write_results(with_outcomes(scored_run(tmp_path, mixed, ["refusal", "grounded"])), tmp_path, info())
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "- questions run: 20" in markdown
    factual = "- factual accuracy: 60.0% (95% CI 38.7\u201378.1%), 12 of 20 scored correct, 0 unscored"
    assert factual in markdown
    assert "- citation accuracy: 92.9%" in markdown
    assert "refusal precision: 66.7% (2 of 3 declined items were refusal items)" in markdown
    assert "refusal recall: 66.7% (2 of 3 refusal items declined)" in markdown
    assert "- blocked: 2" in markdown and "- elapsed: 12.5 s" in markdown
    assert "graded deterministically only (no --judge)" in markdown
    breakdown = {row[0]: row[1] for row in markdown_table(markdown, "## Hallucination breakdown")}
    assert breakdown["`wrong_cited`"] == "1" and breakdown["`correct`"] == "11" and len(breakdown) == 9
    scopes = {row[0]: row[1:] for row in markdown_table(markdown, "## Per scope (factual)")}
    assert scopes[OTHER_SCOPE.replace("_", "\\_")][:3] == ["4", "3", "4"]
    routes = {row[0]: row[1:] for row in markdown_table(markdown, "## Per route (factual)")}
    assert routes["llm"][:4] == ["4", "3", "4", "75.0%"]
    assert "## Per category (factual)" in markdown
    assert "## Misses (9 of 9)" in markdown and "### wrongcited-1: `wrong_cited`" in markdown
    assert "- trace `hard_fact` **fail**" in markdown
    assert "## Signatures" in markdown and "ab" * 32 in markdown


def test_results_md_says_when_a_judge_graded(tmp_path: Path) -> None:
    judged = [Case(item("j1"), RIGHT, CITED, judge=(Outcome.PASS, "states 15 days"))]
    judges = info(judges=("openai:m",), rubric="rag-answer")
    write_results(with_outcomes(scored_run(tmp_path, judged, ["judge"])), tmp_path, judges)
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "judged by `openai:m` with the rubric `rag-answer`" in markdown
    assert "deterministically" not in markdown
    html = (tmp_path / "results.html").read_text(encoding="utf-8")
    assert 'data-field="graded">judged by openai:m with the rubric rag-answer</p>' in html


def test_hostile_text_stays_inert_in_results_md(tmp_path: Path) -> None:
    found = []
    for number, text in enumerate(HOSTILE):
        hostile = item(f"h{number}", scope=f"scope {text}", category=text)
        hostile["question"] = text
        found.append(Case(hostile, f"{text} 45 days", {"route": text, "citations": [{"document": text}]}))
    hostile_info = info(system=HOSTILE[1], options={"note": HOSTILE[0]}, judges=tuple(HOSTILE[4:6]))
    write_results(with_outcomes(scored_run(tmp_path, found)), tmp_path, hostile_info)
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "evil.example" in markdown and "onerror" in markdown  # there, and inert
    assert live_markup(markdown) == []
    assert table_rows_are_whole(markdown)


# --- the gate ------------------------------------------------------------------------------------------


def gate_of(tmp_path: Path, right: int, wrong: int, text: str, on: str, **more: Any) -> Any:
    run = with_outcomes(scored_run(tmp_path, cases(right, wrong)))
    return check_run(run, GateSettings.parse([text], on=on, **more))


@pytest.mark.parametrize(
    ("right", "wrong", "text", "on", "passed", "more"),
    [
        (36, 4, "factual>=0.90", "point", True, None),
        (34, 6, "factual>=0.90", "point", False, 2),  # 36 of 40 is 90%
        (34, 6, "factual>=80%", "lower", False, 3),  # Wilson's lower end at 37 of 40 is 80.1%
        (37, 3, "factual>=80%", "lower", True, None),
        (30, 10, "factual>0.75", "point", False, 1),  # strictly above: 31 of 40
        (20, 20, "factual>=0.95", "lower", False, -1),  # 40 of 40 has a lower end of 91.2%: none would do
    ],
)
def test_the_gate_and_how_many_more_correct_it_needs(
    tmp_path: Path, right: int, wrong: int, text: str, on: str, passed: bool, more: int | None
) -> None:
    gate = gate_of(tmp_path, right, wrong, text, on)
    assert gate.passed is passed
    if passed:
        assert gate.needed == ()
        return
    (needed,) = gate.needed
    assert needed.more == (None if more == -1 else more)
    if needed.more is not None:  # the smallest: one fewer would not do
        bar = needed.check.gate.bar
        for k, meets in ((needed.more, True), (needed.more - 1, False)):
            value = (right + k) / 40 if on == "point" else stats.wilson(right + k, 40).low  # type: ignore[union-attr]
            assert (value >= bar if ">=" in text else value > bar) is meets
        assert f"needs {needed.more} more correct ({right + needed.more} of 40)" in "\n".join(gate.lines())
    else:
        assert "even all 40 correct would not meet" in "\n".join(gate.lines())


def test_the_gate_fails_on_too_many_unscored_and_says_so(tmp_path: Path) -> None:
    # 2 of 20 unscored: yes/no items whose replies say neither, which the rules leave to a judge
    neither = item("u", "Yes", True, None, r"\byes\b", answer_type="bool")
    undecided = [Case({**neither, "id": f"u{i}"}, "It depends on the plan.", CITED) for i in range(2)]
    found = cases(18, 0) + undecided
    run = with_outcomes(scored_run(tmp_path, found))
    gate = check_run(run, GateSettings.parse(["factual>=0.80"]))
    assert not gate.passed and gate.needed == ()
    assert any("2 of 20 items unscored, at most 1 may be" in line for line in gate.lines())
    assert check_run(run, GateSettings.parse(["factual>=0.80"], max_unscored=0.10)).passed


def test_the_gate_by_scope(tmp_path: Path) -> None:
    run = with_outcomes(scored_run(tmp_path, cases(10, 0) + cases(5, 5, OTHER_SCOPE)))
    overall = check_run(run, GateSettings.parse(["factual>=0.70"]))
    assert overall.passed and [c.scope for c in overall.checks] == ["combined"]
    each = check_run(run, GateSettings.parse(["factual>=0.70"], scope="all"))
    assert {c.scope: c.passed for c in each.checks} == {"combined": True, SCOPE: True, OTHER_SCOPE: False}
    (needed,) = each.needed
    assert (needed.check.scope, needed.more) == (OTHER_SCOPE, 2)


def test_the_gate_is_in_the_reports(tmp_path: Path) -> None:
    settings = GateSettings.parse(["factual>=0.90"], on="point")
    run = with_outcomes(scored_run(tmp_path, cases(16, 4)))
    write_results(run, tmp_path, info(gate=settings), check_run(run, settings))
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "## Gate: FAILED" in markdown
    assert "factual&gt;=0.90 needs 2 more correct (18 of 20)" in markdown
    found = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert found["gate"]["passed"] is False and found["gate"]["needed"][0]["more"] == 2


@pytest.mark.parametrize("settings", [{"on": "upper"}, {"scope": "domains"}])
def test_unknown_gate_settings_are_refused(settings: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        GateSettings.parse(["factual>=0.9"], **settings)  # type: ignore[arg-type]


def test_more_needed_for_a_ceiling_is_not_a_count() -> None:
    tally = Tally(40, 10)
    assert more_needed(tally, Gate.parse("factual<=0.10"), "point", IntervalMethod().of) is None


def test_results_dict_is_the_written_json(tmp_path: Path) -> None:
    run = with_outcomes(scored_run(tmp_path, cases(2, 1)))
    write_results(run, tmp_path, info())
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(results_dict(run, info())))


def test_a_citation_gate_is_over_the_items_it_applies_to(tmp_path: Path) -> None:
    """Refusal items and blocked replies have no citation verdict and never will: they are not the
    unscored rows the unscored rule is about, so a citation gate is over the answered answerable items."""
    refusals = [Case(item(f"ref-{i}", refusal=True), DECLINE, {}, (Outcome.PASS, 1)) for i in range(3)]
    found = cases(18, 0) + refusals
    found += [Case(item("blocked-1"), "", {"blocked": True})]
    run = with_outcomes(scored_run(tmp_path, found, ["refusal", "grounded"]))
    gate = check_run(run, GateSettings.parse(["citation>=0.90"]))
    assert gate.passed, gate.lines()
    (check,) = gate.checks
    assert (check.tally.n, check.tally.passed, check.tally.unscored) == (18, 18, 0)
    assert not any("need a verdict" in line for line in gate.lines())
    by_scope = check_run(run, GateSettings.parse(["citation>=0.90"], scope="scopes"))
    assert [(c.scope, c.tally.n, c.passed) for c in by_scope.checks] == [(SCOPE, 18, True)]


@pytest.mark.parametrize(
    ("text", "on", "words"),
    [
        ("factual>1.0", "point", "no run can meet factual>1.0"),  # no accuracy is above 100%
        ("factual>=1.0", "lower", "no run can meet factual>=1.0"),  # a lower end is below 100% at any n
        ("factual>=0.99", "lower", "even all 20 correct would not meet factual>=0.99 (more items needed)"),
    ],
)
def test_a_bar_no_run_can_meet_is_not_said_to_need_more_items(
    tmp_path: Path, text: str, on: str, words: str
) -> None:
    gate = gate_of(tmp_path, 20, 0, text, on)
    (needed,) = gate.needed
    assert needed.more is None
    assert words in needed.words()


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        ({"scopes": [], "limit": None}, "scopes=all; limit=none"),  # no --scope runs every scope
        ({"scopes": ["a__x", "b__y"], "limit": 10}, "scopes=a__x, b__y; limit=10"),
    ],
)
def test_the_run_options_read_as_the_command_line_gave_them(
    tmp_path: Path, options: dict[str, Any], shown: str
) -> None:
    """Not Python's reprs: 'scopes=[]' reads as no scope at all, 'limit=None' as a program's value."""
    write_results(with_outcomes(scored_run(tmp_path, cases(1, 0))), tmp_path, info(options=options))
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    (row,) = [row for row in markdown_table(markdown, "## Signatures") if row[0] == "options"]
    assert row[1] == shown.replace("_", "\\_")
    html = (tmp_path / "results.html").read_text(encoding="utf-8")
    assert f'data-key="options"><th scope="row">options</th><td>{shown}</td>' in html


def test_a_scope_with_no_answered_item_fails_its_citation_gate(tmp_path: Path) -> None:
    """A system that blocks every answer of a scope has no citation verdict there: that scope's check
    fails for want of scored rows, never drops out of the gate."""
    blocked = [Case(item(f"b{i}", scope=OTHER_SCOPE), "", {"blocked": True}) for i in range(3)]
    refusals = [Case(item("r0", scope="refusals-only", refusal=True), DECLINE, {}, (Outcome.PASS, 1))]
    run = with_outcomes(scored_run(tmp_path, cases(5, 0) + blocked + refusals, ["refusal", "grounded"]))
    gate = check_run(run, GateSettings.parse(["citation>=0.50"], scope="scopes"))
    assert {check.scope: check.passed for check in gate.checks} == {SCOPE: True, OTHER_SCOPE: False}
    assert not gate.passed
    assert any(f"citation {OTHER_SCOPE}" in line and "cannot pass" in line for line in gate.lines())
