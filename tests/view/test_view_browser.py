"""`assay view` in a real browser (Debian's Chromium, driven by Playwright) over a folder of three real
runs of the example system (`assay run` on the bundled gold set, the third with a guard so strict it
blocks most answers: a regression). The viewer runs as a user starts it, a subprocess on a free port."""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shutil
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from viewer import ENV, EXAMPLES, assay, open_item, own_headers, viewing

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

SOURCES = EXAMPLES / "gold" / "sources"
# Named so that their names' order is not the order they ran in; the second is graded by a judge (a
# scripted one: its verdicts and rationales come from SCRIPT), the last one regresses.
RUNS = (
    ("c-first", ()),
    ("a-second", ("--system-option", "top=3", "--judge", "scripted:{script}", "--judge-all")),
    ("b-third", ("--system-option", "floor=0.5")),
)
RATIONALE = "names the AYUSH systems the wordings cover"
SCRIPT = {
    "Ayurveda": json.dumps({"verdict": "CORRECT", "rationale": RATIONALE}),
    "": json.dumps({"verdict": "CORRECT", "rationale": "states the expected value"}),  # every other prompt
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("view")
    gold = work / "gold.jsonl"
    templates = EXAMPLES / "insurance_templates.toml"
    facts = EXAMPLES / "gold" / "facts"
    assay("gold", "build", "--facts", facts, "--sources", SOURCES, "--templates", templates, "--refusals",
          "--out", gold, cwd=work)  # fmt: skip
    system = f"{EXAMPLES / 'rag_system' / 'bot.py'}:answer"
    script = work / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    for name, options in RUNS:
        out = work / "runs" / name
        given = [option.format(script=script) for option in options]
        assay("run", "--gold", gold, "--system", system, *given, "--sources", SOURCES, "--out", out, cwd=work)
    return work / "runs"


@pytest.fixture(scope="module")
def viewer(folder: Path) -> Iterator[str]:
    with viewing(folder) as url:
        yield url


@pytest.fixture
def page(browser: Browser, viewer: str) -> Iterator[Page]:
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.on("dialog", lambda dialog: errors.append(f"a dialog opened: {dialog.message}"))
    opened.goto(viewer)
    opened.wait_for_selector("#runs tbody tr")
    yield opened
    opened.close()
    assert errors == []


def rows(folder: Path, run: str) -> list[dict[str, Any]]:
    lines = (folder / run / "run.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_the_runs_are_listed_in_the_order_they_ran(page: Page) -> None:
    shown = page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.run)")
    assert shown == [name for name, _ in RUNS]
    factual = page.eval_on_selector_all(
        "#runs tbody tr td:nth-child(5)", "cells => cells.map(c => c.textContent)"
    )
    assert factual[0].startswith(
        "94.7% (75.4%–99.1%), 18 of 19"
    )  # results.json's headline, with its interval


def test_each_trend_chart_has_a_point_per_run(page: Page) -> None:
    charts = page.eval_on_selector_all("#trends figure", "figures => figures.map(f => f.dataset.chart)")
    assert {"metric:factual", "metric:citation", "scope:suraksha__health-plus__wordings"} <= set(charts)
    for chart in charts:
        points = page.eval_on_selector_all(
            f'#trends figure[data-chart="{chart}"] circle.point', "dots => dots.map(d => d.dataset.run)"
        )
        assert points == [name for name, _ in RUNS], chart
    heights = page.eval_on_selector_all(
        '#trends figure[data-chart="metric:factual"] circle.point',
        "dots => dots.map(d => +d.getAttribute('cy'))",
    )
    assert heights[2] > heights[0]  # the third run's accuracy is lower: drawn lower


def compare(page: Page, a: str, b: str) -> None:
    page.select_option("#compare-a", a)
    page.select_option("#compare-b", b)
    page.click("#compare-go")
    page.wait_for_selector("#comparison table.paired")


def test_comparing_two_runs_flags_the_regression(page: Page, folder: Path) -> None:
    compare(page, "c-first", "b-third")
    assert "all" in page.text_content("#regression-flag")
    flagged = page.eval_on_selector_all("#moved tr.regression", "rows => rows.map(r => r.dataset.item)")
    before = {row["id"]: row["outcome"] for row in rows(folder, "c-first")}
    after = {row["id"]: row["outcome"] for row in rows(folder, "b-third")}
    passing = ("correct", "correct_ungrounded")
    expected = [i for i in before if before[i] in passing and after[i] not in passing]
    assert flagged == expected and len(expected) >= 5
    moves = Counter((before[i], after[i]) for i in before if before[i] != after[i])
    listed = page.eval_on_selector_all("#transitions li", "items => items.map(i => i.textContent)")
    assert sorted(listed) == sorted(f"{a} → {b}: {n}" for (a, b), n in moves.items())
    assert page.text_content("#paired tr.regression td") == "all"


def test_two_runs_alike_flag_nothing(page: Page) -> None:
    compare(page, "c-first", "a-second")
    assert page.query_selector("#regression-flag") is None
    assert page.query_selector("#moved tr.regression") is None


def test_an_items_evidence_is_highlighted_in_its_page(page: Page, folder: Path) -> None:
    row = next(row for row in rows(folder, "c-first") if row["reply"]["citations"])
    citation = row["reply"]["citations"][0]
    open_item(page, "c-first", row["id"])
    page.wait_for_selector("#evidence mark.citation")
    assert page.text_content("#item-outcome") == row["outcome"]
    cited = page.query_selector('#evidence section[data-kind="citation"]')
    assert cited is not None
    page_text = cited.eval_on_selector(".page", "p => p.textContent")
    assert cited.eval_on_selector("mark", "m => m.textContent") == citation["quote"]
    assert page_text.index(citation["quote"]) == citation["start"]  # the span where the citation says
    gold = page.eval_on_selector('#evidence section[data-kind="gold"] mark.gold', "m => m.textContent")
    assert " ".join(gold.split()) in " ".join(page_text.split())  # the gold quote, on the page it names


def test_the_judges_rationale_is_shown(page: Page, folder: Path) -> None:
    row = next(row for row in rows(folder, "a-second") if "Ayurveda" in row["question"])
    open_item(page, "a-second", row["id"])
    page.wait_for_selector("#item-reason")
    assert RATIONALE in (page.text_content("#item-reason") or "")  # the outcome's reason: the judge decided
    words = page.eval_on_selector_all("#item-metrics tr", "rows => rows.map(r => r.textContent)")
    assert [w for w in words if w.startswith("judge") and f"rationale: {RATIONALE}" in w]


SHOWN_ITEMS = "() => [...document.querySelectorAll('#items tbody tr')].map(r => r.dataset.item)"


def items_shown(page: Page, expected: list[str]) -> list[str]:
    """The items the table shows once it shows `expected`, or as it stands after 5 s: a filter's change
    is drawn after its event, so a read at once may still see the table before it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    wanted = f"want => JSON.stringify(({SHOWN_ITEMS})()) === JSON.stringify(want)"
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(wanted, arg=expected, timeout=5000)
    return list(page.evaluate(SHOWN_ITEMS))


def test_the_filters_show_only_the_items_asked_for(page: Page, folder: Path) -> None:
    page.select_option("#item-run", "b-third")
    page.wait_for_selector('#items[data-run="b-third"] tbody tr')
    page.select_option("#filter-outcome", "blocked")
    blocked = [row["id"] for row in rows(folder, "b-third") if row["outcome"] == "blocked"]
    assert items_shown(page, blocked) == blocked
    page.select_option("#filter-category", "refusal")
    blocked_refusals = [
        row["id"]
        for row in rows(folder, "b-third")
        if row["outcome"] == "blocked" and row["category"] == "refusal"
    ]
    assert items_shown(page, blocked_refusals) == blocked_refusals


def test_a_marked_verdict_is_a_human_label_assay_agree_reads(page: Page, folder: Path) -> None:
    first, second = [
        row for row in rows(folder, "c-first") if row["outcome"] == "correct" and row["hard_fact"]
    ][:2]
    for row, button in ((first, "#mark-wrong"), (second, "#mark-right")):
        open_item(page, "c-first", row["id"])
        page.click(button)
        page.wait_for_selector("#mark-status:has-text('saved')")
    labels_file = folder / "c-first" / "human_labels.jsonl"
    labels = [json.loads(line) for line in labels_file.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["human_mark"], r["human_label"]) for r in labels] == [
        (first["id"], "wrong", "incorrect"),
        (second["id"], "right", "correct"),
    ]
    out = folder.parent / "agreement.json"
    labels_flags = ("--responses", labels_file, "--human", "human_label")
    assay("agree", *labels_flags, "--metric", "hard_fact", "--json", out, cwd=folder.parent)
    overall = json.loads(out.read_text(encoding="utf-8"))["metrics"]["hard_fact"]["overall"]
    # hard_fact passes both; the person calls one of them incorrect
    assert (overall["n"], overall["tp"], overall["fp"]) == (2, 1, 1)


def test_a_mark_from_elsewhere_is_refused(viewer: str, folder: Path) -> None:
    item = rows(folder, "a-second")[0]["id"]
    body = {"run": "a-second", "item": item, "mark": "wrong", "started": started(viewer, "a-second")}
    assert httpx.post(viewer + "api/mark", json=body).status_code == 403  # no origin, no token
    other = {"Origin": "http://evil.example"}
    assert httpx.post(viewer + "api/mark", json=body, headers=other).status_code == 403
    token = re.search(r'name="assay-token" content="([^"]+)"', httpx.get(viewer).text)
    assert token is not None
    own = {"Origin": viewer.rstrip("/"), "X-Assay-Token": token.group(1)}
    rebound = {**own, "Host": "evil.example"}  # DNS rebinding: a page of another name reaching this server
    assert httpx.post(viewer + "api/mark", json=body, headers=rebound).status_code == 403
    too_large = httpx.post(
        viewer + "api/mark",
        content=b"{" + b" " * 10_000 + b"}",
        headers={**own, "Content-Type": "application/json"},
    )
    assert too_large.status_code == 403
    assert not (folder / "a-second" / "human_labels.jsonl").exists()
    assert httpx.post(viewer + "api/mark", json=body, headers=own).status_code == 200
    assert (folder / "a-second" / "human_labels.jsonl").exists()


@pytest.mark.parametrize("run", ["..", "../runs/c-first", "/etc", "c-first/../a-second"])
def test_only_the_runs_found_are_served(viewer: str, run: str) -> None:
    httpx.get(viewer + "api/runs")
    assert httpx.get(viewer + "api/items", params={"run": run}).status_code == 404


HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'


@pytest.fixture(scope="module")
def hostile_viewer(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of the first run whose first item's question, reply and category are markup, and whose
    folder's name is too: a run's text reaches the page as text."""
    root = tmp_path_factory.mktemp("hostile")
    copy = root / "<b>run</b>"
    shutil.copytree(folder / "c-first", copy)
    found = rows(copy, ".")
    found[0].update(question=HOSTILE, response=HOSTILE, category=HOSTILE)
    (copy / "run.jsonl").write_text("".join(json.dumps(row) + "\n" for row in found), encoding="utf-8")
    command = [sys.executable, "-m", "assay", "view", str(root), "--port", "0", "--no-open"]
    process = subprocess.Popen(command, cwd=root, env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        found_url = re.search(r"http://127\.0\.0\.1:\d+/", process.stdout.readline())
        assert found_url
        yield found_url.group()
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_text_from_a_run_stays_text(browser: Browser, hostile_viewer: str) -> None:
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("dialog", lambda dialog: errors.append(dialog.message))
    opened.goto(hostile_viewer)
    opened.wait_for_selector("#items tbody tr")
    assert opened.text_content("#runs tbody tr td") == "<b>run</b>"
    first = opened.query_selector("#items tbody tr")
    assert first is not None
    assert first.eval_on_selector("td:nth-child(4)", "c => c.textContent") == HOSTILE
    first.click()
    opened.wait_for_selector("#evidence section")
    assert HOSTILE in (opened.text_content("#item") or "")
    made = opened.evaluate("[...document.querySelectorAll('img, script, b')].map(e => e.outerHTML)")
    assert not [element for element in made if "pwned" in element or element == "<b>run</b>"]
    assert opened.title() == "assay view" and errors == []
    opened.close()


@pytest.fixture(scope="module")
def scored_viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A folder of two scored files (`assay score --out`): the example's replies, then the same with a
    third of them replaced by a decline (a regression); named so that their names' order is not the
    order they were written in."""
    root = tmp_path_factory.mktemp("scored")
    with (EXAMPLES / "qa_responses.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    worse = [
        {**row, "response": "I could not find that."} if index % 3 == 0 else row
        for index, row in enumerate(table)
    ]
    for name, found in (("z-before", table), ("a-after", worse)):
        responses = root / "inputs" / f"{name}.csv"
        responses.parent.mkdir(exist_ok=True)
        (root / "scored").mkdir(exist_ok=True)
        with responses.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(found[0]))
            writer.writeheader()
            writer.writerows(found)
        out = root / "scored" / f"{name}.csv"
        assay("score", "--responses", responses, "--metric", "exact_substring", "--out", out, cwd=root)
    command = [sys.executable, "-m", "assay", "view", str(root / "scored"), "--port", "0", "--no-open"]
    process = subprocess.Popen(command, cwd=root, env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found_url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found_url, line
        assert "0 runs and 2 scored files" in line
        yield found_url.group(), root / "scored"
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_scored_files_are_listed_charted_and_compared(
    browser: Browser, scored_viewer: tuple[str, Path]
) -> None:
    url, folder = scored_viewer
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(url)
    opened.wait_for_selector("#scored tbody tr")
    shown = opened.eval_on_selector_all("#scored tbody tr", "rows => rows.map(r => r.dataset.run)")
    assert shown == ["z-before.csv", "a-after.csv"]
    points = opened.eval_on_selector_all(
        '#trends figure[data-chart="scored:exact_substring"] circle.point',
        "dots => dots.map(d => d.dataset.run)",
    )
    assert points == shown
    compare(opened, "z-before.csv", "a-after.csv")
    assert "exact_substring (all)" in (opened.text_content("#regression-flag") or "")
    flagged = opened.eval_on_selector_all("#moved tr.regression", "rows => rows.map(r => r.dataset.item)")
    before = {row["id"]: row["exact_substring"] for row in csv.DictReader((folder / "z-before.csv").open())}
    after = {row["id"]: row["exact_substring"] for row in csv.DictReader((folder / "a-after.csv").open())}
    assert flagged == [i for i in before if before[i] == "True" and after[i] != "True"] and flagged
    open_item(opened, "a-after.csv", flagged[0])
    opened.wait_for_selector("#evidence .note")
    # a scored file has no single verdict to mark: a person marks the reply itself
    assert opened.query_selector("#mark-right") is None and opened.query_selector("#mark-correct")
    opened.close()
    assert errors == []


def started(viewer: str, run: str) -> str | None:
    """When a run started, as the page has it (what it sends with a mark)."""
    found = {entry["id"]: entry["started"] for entry in httpx.get(viewer + "api/runs").json()["runs"]}
    return found[run]


def test_marking_an_item_again_replaces_its_mark(viewer: str, folder: Path) -> None:
    found = rows(folder, "b-third")
    passing = next(row for row in found if row["outcome"] == "correct")
    failing = next(row for row in found if row["outcome"] == "blocked")
    headers, url = own_headers(viewer), viewer + "api/mark"
    shown = started(viewer, "b-third")
    for item, mark in ((passing, "right"), (failing, "right"), (passing, "wrong")):
        assert httpx.post(
            url, json={"run": "b-third", "item": item["id"], "mark": mark, "started": shown}, headers=headers
        ).is_success
    labels_file = folder / "b-third" / "human_labels.jsonl"
    before = labels_file.read_bytes()
    maybe = {"run": "b-third", "item": passing["id"], "mark": "maybe", "started": shown}
    refused = httpx.post(url, json=maybe, headers=headers)
    assert refused.status_code == 400 and "right, wrong" in refused.json()["error"]
    assert labels_file.read_bytes() == before  # nothing written for a refused mark
    labelled = {
        row["id"]: (row["human_mark"], row["human_label"]) for row in map(json.loads, before.splitlines())
    }
    # right on a blocked item: its reply is incorrect; wrong on a correct one: incorrect too
    assert labelled == {passing["id"]: ("wrong", "incorrect"), failing["id"]: ("right", "incorrect")}


def test_a_folder_that_is_not_there_or_a_port_taken_is_exit_2(tmp_path: Path) -> None:
    def view(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "assay", "view", *args, "--no-open"]
        return subprocess.run(command, cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)

    missing = view(str(tmp_path / "nowhere"))
    assert (
        missing.returncode == 2 and "is not a folder. Fix: give the folder your runs are in" in missing.stderr
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = view(str(tmp_path), "--port", str(taken.getsockname()[1]))
    assert (
        busy.returncode == 2 and "could not listen on 127.0.0.1:" in busy.stderr and "--port 0" in busy.stderr
    )


def test_a_labels_file_that_is_not_json_is_said_and_kept(folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "runs" / "edited"
    shutil.copytree(folder / "c-first", copy, ignore=shutil.ignore_patterns("human_labels.jsonl"))
    labels_file = copy / "human_labels.jsonl"
    labels_file.write_text(
        '{"id": "x", "human_label": "correct"}\nnot json, edited by hand\n', encoding="utf-8"
    )
    item = rows(copy, ".")[0]["id"]
    with viewing(copy.parent) as url:
        httpx.get(url + "api/runs")
        refused = httpx.post(
            url + "api/mark",
            json={"run": "edited", "item": item, "mark": "right", "started": started(url, "edited")},
            headers=own_headers(url),
        )
        listed = httpx.get(url + "api/items", params={"run": "edited"})
    assert refused.status_code == 400 and "human_labels.jsonl: a line is not JSON" in refused.json()["error"]
    assert listed.status_code == 400 and "mend or remove that line" in listed.json()["error"]
    assert labels_file.read_text(encoding="utf-8").endswith("edited by hand\n")  # the marks are not lost


def test_a_folder_run_again_shows_its_earlier_run_with_its_own_marks(folder: Path, tmp_path: Path) -> None:
    """Re-grading a folder keeps the earlier run as run.1.jsonl (harness.earlier): the viewer lists it
    beside the new one, in the order they ran, and a mark on it is kept beside it, apart from the new
    run's marks, and goes with it when the folder is run again."""
    regraded = tmp_path / "runs" / "nightly"
    shutil.copytree(folder / "c-first", regraded)
    gold = folder.parent / "gold.jsonl"
    system = f"{EXAMPLES / 'rag_system' / 'bot.py'}:answer"
    assay("run", "--gold", gold, "--system", system, "--sources", SOURCES, "--out", regraded, cwd=tmp_path)
    assert (regraded / "run.1.jsonl").is_file() and (regraded / "run.jsonl").is_file()
    with viewing(tmp_path / "runs") as url:
        found = httpx.get(url + "api/runs").json()
        assert [run["id"] for run in found["runs"]] == ["nightly@1", "nightly"]
        assert found["scored"] == []  # a kept run.1.jsonl is a run, not a scored file as well
        item = json.loads((regraded / "run.1.jsonl").read_text(encoding="utf-8").splitlines()[0])["id"]
        body = {"run": "nightly@1", "item": item, "mark": "wrong", "started": started(url, "nightly@1")}
        assert httpx.post(url + "api/mark", json=body, headers=own_headers(url)).is_success
        assert not (regraded / "human_labels.jsonl").exists()  # the newest run has no marks
        body = {"run": "nightly", "item": item, "mark": "right", "started": started(url, "nightly@1")}
        stale = httpx.post(url + "api/mark", json=body, headers=own_headers(url))  # as run 1 was shown
        assert stale.status_code == 409 and "reload the page" in stale.json()["error"]
        body["started"] = started(url, "nightly")
        assert httpx.post(url + "api/mark", json=body, headers=own_headers(url)).is_success
    marks = {name: (regraded / name).read_bytes() for name in ("human_labels.1.jsonl", "human_labels.jsonl")}
    assert b'"human_mark": "wrong"' in marks["human_labels.1.jsonl"]
    assay("run", "--gold", gold, "--system", system, "--sources", SOURCES, "--out", regraded, cwd=tmp_path)
    # run again: the newest run's marks go with its rows (run.2.jsonl), run 1's stay with run 1
    assert (regraded / "human_labels.2.jsonl").read_bytes() == marks["human_labels.jsonl"]
    assert (regraded / "human_labels.1.jsonl").read_bytes() == marks["human_labels.1.jsonl"]
    assert not (regraded / "human_labels.jsonl").exists()


def test_a_run_whose_sources_folder_is_not_found_says_where_it_was_looked_for(tmp_path: Path) -> None:
    """A run made with a relative --sources, viewed from another folder: the page says which folder it
    looked for and from where, and the fix."""
    from assay.view.runs import Documents, Run

    rows = tmp_path / "run.jsonl"
    rows.write_text("", encoding="utf-8")
    run = Run("r", rows, {"signatures": {"sources": "docs/policies"}})
    said = Documents(None).missing(run)
    assert "'docs/policies'" in said and f"read from {Path.cwd()}" in said and "--sources DIR" in said
    assert "names no sources folder" in Documents(None).missing(Run("r", rows, {}))
