"""``assay run --jury``: the run's judge is the same JudgeSetup as ``assay score``'s, so a jury asks every
judge the items the deterministic metrics leave unscored, and run.jsonl and results.json carry its votes
(issue 25). Two real llama.cpp servers of two families, each behind a recording proxy; the items, the
system and the helpers are tests/harness/test_run_cascade.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_proxy import Faults, fault_proxy
from test_run_cascade import asked_items, assay_run, corpus, deterministic, results_of, rows_of

from conftest import Server

__all__ = ["corpus"]  # the fixture, used here by name


def test_assay_run_asks_every_judge_of_the_jury_the_undecided_items(
    corpus: Path, capsys: pytest.CaptureFixture[str], llama_server: Server, gemma_server: Server
) -> None:
    plain = deterministic(corpus, capsys)
    undecided = {ident for ident, row in plain.items() if row["outcome"] == "unscored"}
    (corpus / "assay.toml").write_text("[judge]\nconcurrency = 1\n", encoding="utf-8")
    smollm, gemma = Faults(), Faults()
    with (
        fault_proxy(llama_server.base_url, smollm) as first,
        fault_proxy(gemma_server.base_url, gemma) as second,
    ):
        specs = [
            f"openai:{llama_server.model}@{first},max_tokens=32",
            f"openai:{gemma_server.model}@{second},max_tokens=32",
        ]
        judges = [arg for spec in specs for arg in ("--judge", spec)]
        config = ["--config", str(corpus / "assay.toml"), "--no-cache"]
        code, stderr = assay_run(corpus, "juried", capsys, *judges, *config, "--jury")
    assert code == 0, stderr
    assert asked_items(smollm) == undecided == asked_items(gemma)
    rows = rows_of(corpus / "juried")
    for ident in undecided:
        assert rows[ident]["judge_by"] == "jury (majority)"
        assert len(json.loads(rows[ident]["judge_votes"])) == 2
    # results.json signs the judge with its jury; the HTML report's judge section gives the jury's numbers
    assert "|jury:majority|" in results_of(corpus / "juried")["signatures"]["metrics"]["judge"]
    html = (corpus / "juried" / "results.html").read_text(encoding="utf-8")
    assert "Fleiss" in html and "Krippendorff" in html
