"""Marking a scored file's replies in `assay view`: a file of rows picked for labelling (`assay score
--out` on replies with a `label_probability` column, as `assay agree --suggest` writes them) opened in
a real browser and labelled, the labels saved beside it as NAME.human_labels.jsonl, each line the row
as the file holds it, and read by `assay agree --labels`; and, at the server, a file written since the
page showed it, a labels file edited into bad JSON, and labels files kept off the list of scored files."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from viewer import EXAMPLES, assay, open_item, own_headers, viewing

from assay.comparison import load_scored

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROWS = 8  # of the example's replies: enough for a mixed file, quick to score
SCORED = "sub/picked.csv"  # the scored file's id: its path under the viewed folder
LABELS = "picked.human_labels.jsonl"


def picked_for_labelling(folder: Path) -> Path:
    """A scored file like `assay agree --suggest` writes: the replies, each with the probability it was
    picked with and an empty human_label column, scored by exact_substring (`assay score --out`)."""
    with (EXAMPLES / "qa_responses.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))[:ROWS]
    for index, row in enumerate(rows):
        row.update(label_probability=f"{(index + 1) / (ROWS + 1):.3f}", human_label="")
    replies = folder / "replies.csv"
    with replies.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    scored = folder / "view" / SCORED
    scored.parent.mkdir(parents=True)
    assay("score", "--responses", replies, "--metric", "exact_substring", "--out", scored, cwd=folder)
    return scored


def scored_rows(scored: Path) -> list[dict[str, str]]:
    with scored.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def labelled(scored: Path) -> list[dict[str, Any]]:
    lines = (scored.parent / LABELS).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    return picked_for_labelling(tmp_path)


def version(url: str, entry: str) -> str:
    """The scored file's version as the page has it (what it sends with a mark)."""
    return next(
        found["version"] for found in httpx.get(url + "api/runs").json()["scored"] if found["id"] == entry
    )


def post_mark(url: str, item: str, mark: str, shown: str) -> httpx.Response:
    body = {"run": SCORED, "item": item, "mark": mark, "version": shown}
    return httpx.post(url + "api/mark", json=body, headers=own_headers(url))


# --- in a browser ---------------------------------------------------------------------------------------


def mark_in_page(page: Page, item: str, mark: str) -> None:
    open_item(page, SCORED, item)
    page.click(f"#mark-{mark}")
    saved = f"marked {mark}: saved to sub/{LABELS}"
    page.wait_for_function("text => document.getElementById('mark-status')?.textContent === text", arg=saved)


def test_a_person_labels_a_scored_files_replies_in_the_page(browser: Browser, scored: Path) -> None:
    rows = scored_rows(scored)
    first, second = rows[0], rows[3]
    with viewing(scored.parent.parent) as url:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.wait_for_selector(f'#scored tbody tr[data-run="{SCORED}"]')
        mark_in_page(page, first["id"], "correct")
        mark_in_page(page, second["id"], "incorrect")
        mark_in_page(page, first["id"], "incorrect")  # marked again: replaced
        shown = f'#items tr[data-item="{first["id"]}"] td.mark'
        assert page.text_content(shown) == "incorrect"  # the current label, in the list
        open_item(page, SCORED, second["id"])
        assert page.text_content("#mark-status") == "marked incorrect"  # and on the item's own page
        page.close()
    # each line: the row as the scored file holds it (its label_probability, each metric's verdict and
    # inputs), its human_label set; in the file's order
    assert labelled(scored) == [{**first, "human_label": "incorrect"}, {**second, "human_label": "incorrect"}]
    assert errors == []


def test_assay_agree_reads_the_labels_beside_the_scored_file(scored: Path) -> None:
    rows = scored_rows(scored)
    passed = [row for row in rows if row["exact_substring"] == "True"][:2]
    assert len(passed) == 2
    with viewing(scored.parent.parent) as url:
        shown = version(url, SCORED)
        for row, mark in zip(passed, ("correct", "incorrect"), strict=True):
            assert post_mark(url, row["id"], mark, shown).is_success
    out = scored.parent / "agreement.json"
    labels_file = scored.parent / LABELS
    assay("agree", "--responses", scored, "--labels", labels_file, "--human", "human_label",
          "--metric", "exact_substring", "--json", out, cwd=scored.parent)  # fmt: skip
    overall = json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_substring"]["overall"]
    # exact_substring passes both replies; the person calls one of them incorrect
    assert (overall["n"], overall["tp"], overall["fp"]) == (2, 1, 1)


# --- at the server ----------------------------------------------------------------------------------------


def test_a_mark_on_a_scored_file_written_since_the_page_showed_it_is_refused(scored: Path) -> None:
    item = scored_rows(scored)[0]["id"]
    with viewing(scored.parent.parent) as url:
        shown = version(url, SCORED)
        text = scored.read_text(encoding="utf-8")
        scored.write_text(text.replace("Vincent van Gogh in 1889", "Paul Gauguin in 1889"), encoding="utf-8")
        stale = post_mark(url, item, "correct", shown)
        assert stale.status_code == 409 and "reload the page" in stale.json()["error"]
        assert not (scored.parent / LABELS).exists()
        assert post_mark(url, item, "correct", version(url, SCORED)).is_success  # reloaded: taken
    assert [row["response"] for row in labelled(scored)] == [scored_rows(scored)[0]["response"]]
    assert "Paul Gauguin" in labelled(scored)[0]["response"]  # the reply the page showed after the reload


def test_a_labels_file_that_is_not_json_is_said_and_kept(scored: Path) -> None:
    labels_file = scored.parent / LABELS
    labels_file.write_text(
        '{"id": "art-01", "human_label": "correct"}\nnot json, edited by hand\n', encoding="utf-8"
    )
    before = labels_file.read_bytes()
    item = scored_rows(scored)[1]["id"]
    with viewing(scored.parent.parent) as url:
        refused = post_mark(url, item, "incorrect", version(url, SCORED))
        listed = httpx.get(url + "api/items", params={"run": SCORED})
    assert refused.status_code == 400 and f"{LABELS}: a line is not JSON" in refused.json()["error"]
    assert listed.status_code == 400 and "mend or remove that line" in listed.json()["error"]
    assert labels_file.read_bytes() == before  # the marks are not lost


def test_labels_files_are_not_listed_as_scored_files(scored: Path) -> None:
    run_labels = scored.parent / "human_labels.jsonl"  # a run's, were the folder also a run's
    item = scored_rows(scored)[0]["id"]
    with viewing(scored.parent.parent) as url:
        assert post_mark(url, item, "correct", version(url, SCORED)).is_success
        shutil.copy(scored.parent / LABELS, run_labels)
        listed = [entry["id"] for entry in httpx.get(url + "api/runs").json()["scored"]]
        items = httpx.get(url + "api/items", params={"run": SCORED}).json()["items"]
    assert listed == [SCORED]
    assert load_scored(scored.parent / LABELS).summary.total == 1  # readable as one: kept off by its name
    assert {entry["id"]: entry["mark"] for entry in items}[item] == "correct"


@pytest.mark.parametrize("mark", ["right", "", "CORRECT"])  # a run's mark is not a reply's
def test_a_scored_files_reply_is_marked_correct_or_incorrect_only(scored: Path, mark: str) -> None:
    with viewing(scored.parent.parent) as url:
        refused = post_mark(url, scored_rows(scored)[0]["id"], mark, version(url, SCORED))
    assert refused.status_code == 400 and "a mark is one of correct, incorrect" in refused.json()["error"]
    assert not (scored.parent / LABELS).exists()


def test_two_scored_files_that_would_share_a_labels_file_are_not_marked(scored: Path) -> None:
    twin = scored.with_suffix(".jsonl")
    twin.write_text("".join(json.dumps(row) + "\n" for row in scored_rows(scored)), encoding="utf-8")
    with viewing(scored.parent.parent) as url:
        refused = post_mark(url, scored_rows(scored)[0]["id"], "correct", version(url, SCORED))
    assert refused.status_code == 400 and "picked.csv and picked.jsonl would share" in refused.json()["error"]
    assert not (scored.parent / LABELS).exists()
