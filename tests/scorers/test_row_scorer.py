"""row_scorer: a plug-in scorer written as a per-row check, in a package of its own installed for real
(pip, into a target directory on PYTHONPATH), and run through --out, traces, Markdown, HTML, compare,
agree, the gate and `assay run`; and the check's verdicts, reasons and spans in process."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from test_plugins import ROWS, assay, install_plugin, responses
from test_run_cli import write_gold

from assay import RowVerdict, Scorer, load_records, row_scorer, score, traces
from assay.errors import UsageError
from assay.scorers import SCORERS, Outcome

# The whole plug-in: ten lines of check.
PLUGIN_MODULE = '''
from assay import RowVerdict, row_scorer


@row_scorer(inputs=("question",))
def first_word(response, answers, question):
    """the response's first word is a golden answer's first word (lowercased)"""
    first = response.lower().split()[:1]
    if not question or not first:
        return None if not question else False
    for index, answer in enumerate(answers):
        if first == answer.lower().split()[:1]:
            return RowVerdict(True, f"both begin with {first[0]!r}", answer=index, span=(0, len(first[0])))
    return RowVerdict(False, f"{first[0]!r} begins no golden answer")
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(
        tmp_path_factory.mktemp("rowplugin"), "rowplugin", PLUGIN_MODULE, "first_word = rowplugin:first_word"
    )


def test_a_row_scorer_plugin_runs_through_every_output(site: Path, tmp_path: Path) -> None:
    responses(tmp_path / "r.csv")
    argv = ["score", "--responses", "r.csv", "--metric", "first_word", "--out", "x.csv", "--json", "s.json"]
    argv += ["--markdown", "m.md", "--html", "h.html", "--trace", "t.jsonl"]
    done = assay(site, *argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "x.csv").open(encoding="utf-8") as handle:
        assert [row["first_word"] for row in csv.DictReader(handle)] == ["True", "False", "True", "False"]
    combined = json.loads((tmp_path / "s.json").read_text())["metrics"]["first_word"]["combined"]
    assert (combined["n"], combined["passed"]) == (4, 2)
    assert "| `first_word` | 4 | 2 | 50.0% |" in (tmp_path / "m.md").read_text(encoding="utf-8")
    assert "first_word" in (tmp_path / "h.html").read_text(encoding="utf-8")
    lines = (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    found = [json.loads(line)["traces"]["first_word"] for line in lines]
    assert found[0]["rule"] == "both begin with 'new'"  # the check's own reason, from the deciding call
    assert found[0]["span"] == [0, 3] and found[0]["golden"] == "New Delhi"
    assert found[1]["rule"] == "'the' begins no golden answer" and found[1]["outcome"] == "fail"


def test_compare_agree_and_gate_carry_a_row_scorer(site: Path, tmp_path: Path) -> None:
    responses(tmp_path / "a.csv")
    responses(tmp_path / "b.csv", [(*row[:3], row[2], row[4]) for row in ROWS])  # every response right
    for name in ("a", "b"):
        argv = ["score", "--responses", f"{name}.csv", "--metric", "first_word", "--out", f"{name}.out.csv"]
        assert assay(site, *argv, cwd=tmp_path).returncode == 0
    compared = assay(site, "compare", "a.out.csv", "b.out.csv", cwd=tmp_path)
    assert compared.returncode == 0 and "first_word" in compared.stdout, compared.stderr
    agreed = assay(
        site, "agree", "--responses", "a.csv", "--human", "human", "--metric", "first_word", cwd=tmp_path
    )
    assert agreed.returncode == 0 and "first_word" in agreed.stdout, agreed.stderr
    gated = ["score", "--responses", "a.csv", "--metric", "first_word", "--gate", "first_word>=0.9"]
    failed = assay(site, *gated, cwd=tmp_path)
    assert failed.returncode == 1 and "first_word" in failed.stderr


def test_assay_run_scores_a_row_scorer_as_an_extra_metric(site: Path, tmp_path: Path) -> None:
    write_gold(tmp_path / "gold.jsonl", 4)
    script = {"How many days is waiting period 0?": "10 days", "How many days is waiting period 1?": "Twenty"}
    (tmp_path / "replies.json").write_text(json.dumps(script), encoding="utf-8")
    argv = ["run", "--gold", "gold.jsonl", "--system", "scripted:replies.json", "--out", "run"]
    argv += ["--system-option", "default=no idea", "--metric", "first_word", "--gate", "first_word>=0.1"]
    done = assay(site, *argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "run.jsonl").read_text().splitlines()]
    assert [row["first_word"] for row in rows] == [True, False, False, False]
    assert "first_word" in (tmp_path / "run" / "results.md").read_text(encoding="utf-8")


# --- in process ---------------------------------------------------------------------------------------


@row_scorer(name="says_yes", version=2)
def _says_yes(response: str, answers: tuple[str, ...]) -> RowVerdict | bool | None:
    """the response says yes"""
    if "maybe" in response:
        return RowVerdict(None, "a maybe is no answer")
    return "yes" in response


def test_a_row_scorer_is_a_scorer_named_and_described_by_its_check() -> None:
    assert isinstance(_says_yes, Scorer)
    assert (_says_yes.name, _says_yes.description, _says_yes.version) == (
        "says_yes",
        "the response says yes",
        2,
    )


@pytest.mark.parametrize(
    ("response", "outcome", "rule"),
    [
        ("yes indeed", Outcome.PASS, "the response says yes: the row passes the check"),
        ("no", Outcome.FAIL, "the response says yes: the row fails the check"),
        ("maybe", Outcome.UNSCORED, "a maybe is no answer"),
    ],
)
def test_its_verdicts_and_evidence_in_process(
    tmp_path: Path, response: str, outcome: Outcome, rule: str
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(f"id,question,answer,response\n1,q,yes,{response}\n", encoding="utf-8")
    before = dict.fromkeys(SCORERS)
    run = score(load_records(path), [_register(_says_yes)])
    try:
        assert run.metrics["says_yes"].outcome(0) == outcome
        assert traces(run, 0)["says_yes"].rule == rule
    finally:
        _forget("says_yes")
    assert dict.fromkeys(SCORERS) == before


def test_a_check_returning_something_else_is_a_usage_error(tmp_path: Path) -> None:
    wrong = row_scorer(lambda response, answers: "yes", name="wrong")
    path = tmp_path / "r.csv"
    path.write_text("id,question,answer,response\n1,q,yes,yes\n", encoding="utf-8")
    try:
        with pytest.raises(UsageError, match="wrong's check returned a str"):
            score(load_records(path), [_register(wrong)])
    finally:
        _forget("wrong")


def _register(scorer: Scorer) -> str:
    """In-process registration, where the registry of this branch allows it (else the built-in dict)."""
    register = getattr(SCORERS, "register", None)
    if register is not None:
        register(scorer)
    else:
        SCORERS._scorers()[scorer.name] = scorer  # type: ignore[attr-defined]
    return scorer.name


def _forget(name: str) -> None:
    forget = getattr(SCORERS, "forget", None)
    if forget is not None:
        forget(name)
    else:
        SCORERS._scorers().pop(name, None)  # type: ignore[attr-defined]


# --- the judge's cascade (Scorer.cascade: the engine's declaration; skipped where Scorer has none) ---------

CASCADE_MODULE = PLUGIN_MODULE.replace(
    '@row_scorer(inputs=("question",))', '@row_scorer(inputs=("question",), cascade=True)'
)


@pytest.mark.skipif("cascade" not in Scorer.__dataclass_fields__, reason="Scorer declares no cascade here")
def test_a_row_scorer_declaring_cascade_feeds_the_judges_cascade(tmp_path: Path) -> None:
    site = install_plugin(tmp_path, "rowplugin", CASCADE_MODULE, "first_word = rowplugin:first_word")
    rows = [
        ("a", "Capital of India?", "New Delhi", "New Delhi", "yes"),
        ("b", "Capital?", "New Delhi", "the answer is New Delhi", "yes"),
    ]
    responses(tmp_path / "r.csv", rows)
    (tmp_path / "judge.json").write_text(json.dumps({}), encoding="utf-8")
    argv = ["score", "--responses", "r.csv", "--metric", "judge", "--metric", "first_word", "--cascade"]
    argv += ["--judge", "scripted:judge.json,default=INCORRECT", "--no-cache", "--out", "x.csv"]
    done = assay(site, *argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "x.csv").open(encoding="utf-8") as handle:
        judged = [row["judge"] for row in csv.DictReader(handle)]
    # Row a: every cascade matcher passes, first_word too: decided without a judge. Row b: the built-in
    # matchers pass but first_word fails ('the' begins no golden answer): sent to the judge, which says no.
    assert judged == ["True", "False"]
