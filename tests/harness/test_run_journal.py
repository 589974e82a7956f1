"""The run's journal: a header, then one durable line per finished item; a torn last line is dropped, another
run's journal refused, failed transports asked again and the system's own failures kept."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from assay.errors import InputError, UsageError
from assay.harness.journal import (
    FRESH_FIX,
    JOURNAL_NAME,
    JournalHeader,
    JournalWarning,
    file_sha256,
    open_journal,
)

HEADER = JournalHeader("docs.bot:answer model=small", "a" * 64)


def row(item_id: str, response: str = "30 days", error: str | None = None) -> dict[str, Any]:
    reply = {"error": error, "latency": 0.1} if error else {"latency": 0.1}
    return {"id": item_id, "question": f"question {item_id}", "response": response, "reply": reply}


def journal_of(tmp_path: Path, *rows: dict[str, Any], retry: tuple[str, ...] = ()) -> Path:
    with open_journal(tmp_path, HEADER) as journal:
        for found in rows:
            journal.record(found, retry=found["id"] in retry)
    return tmp_path / JOURNAL_NAME


def test_a_new_journal_is_its_header_and_then_a_line_per_finished_item(tmp_path: Path) -> None:
    path = journal_of(tmp_path, row("q1"), row("q2"))
    header, *lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert header == {"journal": 1, **dataclasses.asdict(HEADER)}
    assert lines == [row("q1"), row("q2")]


def test_reopened_it_gives_back_the_finished_rows(tmp_path: Path) -> None:
    journal_of(tmp_path, row("q1"), row("q2", "45 days"))
    with open_journal(tmp_path, HEADER) as journal:
        assert len(journal) == 2
        assert journal.finished_row("q2") == row("q2", "45 days")
        assert journal.finished_row("q3") is None


def test_an_item_numbered_by_an_integer_id_is_found_by_its_text(tmp_path: Path) -> None:
    journal_of(tmp_path, {**row("q7"), "id": 7})
    with open_journal(tmp_path, HEADER) as journal:
        assert journal.finished_row("7") == {**row("q7"), "id": 7}


def test_a_failed_transport_is_asked_again_and_the_systems_own_failure_is_kept(tmp_path: Path) -> None:
    refused = row("q1", "", "transport error, 3 attempts: connection refused")
    raised = row("q2", "", "the system raised ValueError: boom")
    journal_of(tmp_path, refused, raised, retry=("q1",))
    with open_journal(tmp_path, HEADER) as journal:
        assert journal.finished_row("q1") is None and journal.retried == 1
        assert journal.finished_row("q2") == raised
        journal.record(row("q1"))  # asked again, and answered this time
    with open_journal(tmp_path, HEADER) as journal:
        assert journal.finished_row("q1") == row("q1") and journal.retried == 0


@pytest.mark.parametrize("torn", [b'{"id": "q3", "question": "q3", "resp', b"\x00\x00\x00\x00", b"{}\n"])
def test_a_torn_last_line_is_dropped_with_a_warning_and_the_journal_goes_on(
    tmp_path: Path, torn: bytes
) -> None:
    path = journal_of(tmp_path, row("q1"), row("q2"))
    with path.open("ab") as handle:
        handle.write(torn)  # what kill -9 (or a lost power) leaves in the middle of a write
    with pytest.warns(JournalWarning, match="its last line, cut short"):
        journal = open_journal(tmp_path, HEADER)
    with journal:
        assert len(journal) == 2 and journal.finished_row("q3") is None
        journal.record(row("q3"))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines[1:]] == ["q1", "q2", "q3"]  # the torn bytes are gone


def test_a_bad_line_before_the_last_is_not_a_kill_and_is_refused(tmp_path: Path) -> None:
    path = journal_of(tmp_path, row("q1"))
    with path.open("ab") as handle:
        handle.write(b"not json\n" + json.dumps(row("q2")).encode() + b"\n")
    with pytest.raises(InputError, match=r"line 3 is not a journal row.*Fix: restore the file, or give"):
        open_journal(tmp_path, HEADER)


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (
            JournalHeader("docs.bot:answer model=large", HEADER.gold_sha256),
            r"another system: 'docs.bot:answer model=small', and this run asks 'docs.bot:answer model=large'",
        ),
        (JournalHeader(HEADER.system, "b" * 64), r"another gold file \(sha256 a{12}\.\.\., this one.s"),
    ],
)
def test_the_journal_of_another_run_is_refused_naming_both_and_the_fix(
    tmp_path: Path, other: JournalHeader, message: str
) -> None:
    journal_of(tmp_path, row("q1"))
    with pytest.raises(UsageError, match=message) as raised:
        open_journal(tmp_path, other)
    assert str(raised.value).endswith(f"Fix: {FRESH_FIX}")
    assert FRESH_FIX.startswith("give --fresh to start over")
    assert FRESH_FIX.endswith("or another --out folder")


def test_fresh_starts_over_as_the_new_run(tmp_path: Path) -> None:
    journal_of(tmp_path, row("q1"))
    other = JournalHeader("docs.bot:answer model=large", HEADER.gold_sha256)
    with open_journal(tmp_path, other, fresh=True) as journal:
        assert len(journal) == 0
    with open_journal(tmp_path, other) as journal:
        assert len(journal) == 0


def test_a_journal_of_another_assay_version_is_kept_with_a_warning(tmp_path: Path) -> None:
    journal_of(tmp_path, row("q1"))
    with pytest.warns(JournalWarning, match="written by assay .*, this is 0.0.0; its answers are kept"):
        newer = JournalHeader(HEADER.system, HEADER.gold_sha256, assay="0.0.0")
        with open_journal(tmp_path, newer) as journal:
            assert journal.finished_row("q1") == row("q1")


def test_a_file_that_is_no_journal_is_refused(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_NAME).write_text('{"id": "q1"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="not an assay run journal"):
        open_journal(tmp_path, HEADER)


def test_an_empty_journal_a_kill_left_before_its_header_starts_anew(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_NAME).write_bytes(b"")
    with open_journal(tmp_path, HEADER) as journal:
        assert len(journal) == 0
    assert json.loads((tmp_path / JOURNAL_NAME).read_text(encoding="utf-8"))["system"] == HEADER.system


def test_two_runs_cannot_write_one_journal_at_once(tmp_path: Path) -> None:
    with open_journal(tmp_path, HEADER), pytest.raises(UsageError, match="another assay run is writing"):
        open_journal(tmp_path, HEADER)


def test_the_gold_files_hash_is_its_sha256(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_bytes(b"abc")
    assert file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
