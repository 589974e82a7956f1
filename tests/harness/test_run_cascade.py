"""Where the deterministic grader cannot decide, it says so and the judge decides (issue 20, item 6).

Without a judge an item the metrics cannot decide is ``unscored`` with its reason. With ``--judge``,
``assay run`` asks the judge only those items (the run's cascade, ``outcomes.UNDECIDED_ONLY``) and every
other item keeps its deterministic verdict; ``--judge-all`` (or ``cascade = false`` in the config's
[judge]) asks it every item. Each outcome records who decided it (``decided_by``: matchers, judge, guard,
system), in run.jsonl, results.json (per item, and counted) and results.md.

The runs are real: a gold set, an in-process system file answering each item as the table says, the real
llama.cpp judge of tests/conftest.py behind tests/support/fault_proxy.py, which records every request: the
questions in the requests are the items the judge was asked. Which items the metrics cannot decide is
read from a run without a judge, so the tests hold the cascade to the outcome rule, whatever its matchers
learn to read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import run
from fault_proxy import Faults, fault_proxy
from test_judge_uncounted import Reported, judge_server
from test_outcomes import item

from conftest import Server

FAILED = "FAILED"  # the system raises on this item
# id -> (reply, what the deterministic grader makes of it: the outcome, who decided it); None: not asserted,
# an undecided kind of reply the matchers may learn to read (the run without a judge says what it is).
ITEMS: dict[str, tuple[Any, tuple[str, str] | None]] = {
    "right": ("It is 15 days. [Source: acme__gold-plan__wordings, p.2]", ("correct", "matchers")),
    "wrong": ("The free-look period is 45 days.", ("wrong_uncited", "matchers")),
    "declined": ("The documents don't say how long it is.", ("refused_answerable", "matchers")),
    "blank": ("", ("wrong_uncited", "matchers")),
    "blocked": ({"text": "I can't help with that.", "blocked": True}, ("blocked", "guard")),
    "failed": (FAILED, ("system_error", "system")),
    "hedged": ("It is usually 15 days, but it can be 30.", None),
    "declined-yet-stated": ("I cannot find that in the documents; the free-look period is 15 days.", None),
    "two-figures": ("15 days for most policies, or 30 days for policies sold at a distance.", None),
    "refusal-declined": ("The documents do not say.", ("correct", "matchers")),
    "refusal-answered": ("It is 98 per cent, as the brochure says.", ("answered_refusal", "matchers")),
    "refusal-blocked": ({"text": "", "blocked": True}, ("correct", "guard")),
}  # fmt: skip

SYSTEM = """
import json

REPLIES = json.loads({replies!r})


def answer(question, scope=None):
    reply = REPLIES[question.split(":")[0].removeprefix("Question ")]
    if reply == {failed!r}:
        raise RuntimeError("the system failed on this item")
    return reply
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """gold.jsonl (an item per ITEMS key, the refusal-* ones refusal items) and bot.py answering them."""
    items = [item(ident, refusal=ident.startswith("refusal")) for ident in ITEMS]
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    replies = json.dumps({ident: reply for ident, (reply, _) in ITEMS.items()})
    (tmp_path / "bot.py").write_text(SYSTEM.format(replies=replies, failed=FAILED), encoding="utf-8")
    return tmp_path


def assay_run(corpus: Path, out: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    argv = ["run", "--gold", str(corpus / "gold.jsonl"), "--system", f"{corpus / 'bot.py'}:answer"]
    code, _, stderr = run([*argv, "--out", str(corpus / out), *extra], capsys)
    return code, stderr


def rows_of(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in rows}


def results_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def deterministic(corpus: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    """The rows of a run without a judge."""
    code, stderr = assay_run(corpus, "plain", capsys)
    assert code == 0, stderr
    return rows_of(corpus / "plain")


# --- without a judge -----------------------------------------------------------------------------------


def test_without_a_judge_each_outcome_says_who_decided_and_the_undecided_are_unscored_with_a_reason(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = deterministic(corpus, capsys)
    for ident, (_, expected) in ITEMS.items():
        row = rows[ident]
        assert row["decided_by"] in ("matchers", "guard", "system")
        if expected is not None:
            assert (row["outcome"], row["decided_by"]) == expected, ident
        if row["outcome"] == "unscored":
            assert row["outcome_reason"] and "judge" not in row["outcome_reason"]
    assert any(row["outcome"] == "unscored" for row in rows.values())  # the cascade has work below
    results = results_of(corpus / "plain")
    deciders = {ident: row["decided_by"] for ident, row in rows.items()}
    counts = {by: list(deciders.values()).count(by) for by in ("matchers", "guard", "system")}
    assert results["headline"]["decided_by"] == {**counts, "judge": 0}
    assert results["headline"]["judge_asked"] is None
    assert {one["id"]: one["decided_by"] for one in results["items"]} == deciders
    markdown = (corpus / "plain" / "results.md").read_text(encoding="utf-8")
    assert (
        f"- decided by: the matchers {counts['matchers']}, the judge 0, the guard 2, the system 1" in markdown
    )


def test_a_run_whose_metrics_decide_every_item_never_contacts_the_judge(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = deterministic(corpus, capsys)
    decided = [ident for ident, row in plain.items() if row["outcome"] != "unscored"]
    lines = (corpus / "gold.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["id"] in decided]
    (corpus / "decided.jsonl").write_text("".join(kept), encoding="utf-8")
    # the judge is up (its chain is checked before the system is asked) and is asked nothing
    argv = ["run", "--gold", str(corpus / "decided.jsonl"), "--system", f"{corpus / 'bot.py'}:answer"]
    with judge_server(asked := Reported(None)) as url:
        judge = ["--judge", f"openai:m@{url}", "--no-cache"]
        code, _, stderr = run([*argv, "--out", str(corpus / "judged"), *judge], capsys)
    assert code == 0, stderr
    assert asked.chats == 0
    rows = rows_of(corpus / "judged")
    assert {i: (r["outcome"], r["decided_by"]) for i, r in rows.items()} == {
        i: (plain[i]["outcome"], plain[i]["decided_by"]) for i in decided
    }
    for ident, row in rows.items():
        assert row["outcome_reason"].startswith(plain[ident]["outcome_reason"])
        if row["decided_by"] == "matchers":
            assert row["outcome_reason"].endswith("the judge was not asked: the matchers decided")
    headline = results_of(corpus / "judged")["headline"]
    assert (
        headline["judge_asked"] == {"items": 0, "which": "undecided"} and headline["decided_by"]["judge"] == 0
    )


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (["--judge-all"], "--judge-all only apply to a judge. Fix: add --judge SPEC, or drop them"),
        (["--cascade"], "--cascade only apply to a judge. Fix: add --judge SPEC, or drop them"),
        (["--judge", "openai:m@http://127.0.0.1:9/v1", "--cascade", "--judge-all"], "not allowed with"),
    ],
)
def test_the_judge_s_selection_flags_are_refused_where_they_mean_nothing(
    corpus: Path, capsys: pytest.CaptureFixture[str], flags: list[str], error: str
) -> None:
    code, stderr = assay_run(corpus, "run", capsys, *flags)
    assert code == 2 and error in stderr
    assert not (corpus / "run" / "run.jsonl").exists()


def test_help_says_which_items_the_judge_is_asked(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["run", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0
    assert "--cascade ask the judge only the items the deterministic metrics cannot decide" in text
    assert "(the default; cascade = false under [judge] in the config asks every item)" in text
    assert "--judge-all ask the judge every item, its verdict replacing the deterministic metrics'" in text


# --- with the real judge -------------------------------------------------------------------------------


def asked_items(faults: Faults) -> set[str]:
    """The items whose questions reached the judge (the proxy's chat requests)."""
    found = set()
    for request in faults.requests:
        if request["body"] and "messages" in request["body"]:
            text = " ".join(str(message.get("content")) for message in request["body"]["messages"])
            found |= {ident for ident in ITEMS if f"Question {ident}:" in text}
    return found


def judged_run(
    corpus: Path, server: Server, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The rows of a run with the judge behind the recording proxy, one short request at a time (the
    small server answers one at a time; the tests check which items are asked and who decided, not the
    verdicts), and the items it was asked."""
    faults = Faults()  # none: it forwards every request, and records it
    with fault_proxy(server.base_url, faults) as proxy:
        spec = f"openai:{server.model}@{proxy},max_tokens=32"
        judge = ["--judge", spec, "--no-cache", "--config", str(corpus / "assay.toml")]
        code, stderr = assay_run(corpus, "judged", capsys, *judge, *extra)
    assert code == 0, stderr
    return rows_of(corpus / "judged"), asked_items(faults)


def test_with_a_judge_only_the_items_the_metrics_leave_unscored_reach_it(
    corpus: Path, capsys: pytest.CaptureFixture[str], llama_server: Server
) -> None:
    plain = deterministic(corpus, capsys)
    undecided = {ident for ident, row in plain.items() if row["outcome"] == "unscored"}
    (corpus / "assay.toml").write_text("[judge]\nconcurrency = 1\n", encoding="utf-8")
    rows, asked = judged_run(corpus, llama_server, capsys)
    assert asked == undecided
    for ident, row in rows.items():
        if ident in undecided:  # the judge's verdict, in its own words (or why it gave none)
            assert row["decided_by"] == "judge" and row["outcome_reason"].startswith("judge: ")
        else:  # the matchers' (the guard's, the system's) verdict, kept
            before = plain[ident]
            assert (row["outcome"], row["decided_by"]) == (before["outcome"], before["decided_by"])
            assert row["outcome_reason"].startswith(plain[ident]["outcome_reason"])
    results = results_of(corpus / "judged")
    assert results["headline"]["judge_asked"] == {"items": len(undecided), "which": "undecided"}
    assert results["headline"]["decided_by"]["judge"] == len(undecided)
    markdown = (corpus / "judged" / "results.md").read_text(encoding="utf-8")
    assert f"the judge {len(undecided)} (asked {len(undecided)} item" in markdown
    assert "only the items the matchers left unscored" in markdown


@pytest.mark.parametrize("how", ["--judge-all", "cascade = false"])
def test_judge_all_asks_every_item_that_has_a_reply(
    corpus: Path, capsys: pytest.CaptureFixture[str], llama_server: Server, how: str
) -> None:
    extra = ["--judge-all"] if how == "--judge-all" else []
    (corpus / "assay.toml").write_text(
        f"[judge]\nconcurrency = 1\n{'' if extra else how}\n", encoding="utf-8"
    )
    rows, asked = judged_run(corpus, llama_server, capsys, *extra)
    # every item but those without a reply to judge: the blank ones, and the system's failure
    unasked = {"blank", "failed", "refusal-blocked"}
    assert asked == set(ITEMS) - unasked
    deciders = {ident: row["decided_by"] for ident, row in rows.items()}
    by_others = {"blank": "matchers", "failed": "system", "blocked": "guard", "refusal-blocked": "guard"}
    assert deciders == {ident: by_others.get(ident, "judge") for ident in ITEMS}
    headline = results_of(corpus / "judged")["headline"]
    assert headline["judge_asked"] == {"items": len(asked), "which": "all"}
