"""Signatures are structured (an ordered info mapping, formatted once, never parsed back), carried by
the JSON summary and Parquet --out, and compare says when A and B were scored under different ones."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cli_run import ROWS, run, write_csv

import assay
from assay import ScoreOptions, score, signature
from assay.signatures import PARQUET_KEY, Signature


def test_a_signature_is_its_parts_formatted_once() -> None:
    found = signature("phrase_match", ScoreOptions(inflection=True))
    version = assay.__version__
    assert found == f"phrase_match@1|profile:unicode@2|inflection:on@1|nfc:off|ci:wilson95|assay:{version}"
    assert dict(found.info) == {
        "metric": "phrase_match@1",
        "profile": "unicode@2",
        "inflection": "on@1",
        "nfc": "off",
        "ci": "wilson95",
        "assay": version,
    }
    assert pickle.loads(pickle.dumps(found)).info == found.info
    with pytest.raises(AttributeError):
        found.info = {}  # type: ignore[misc]


def test_soft_credit_reads_the_inflection_part_not_the_text(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "r.csv", ROWS)
    assert (
        score(path, ["phrase_match"], options=ScoreOptions(inflection=True))
        .summary.metrics["phrase_match"]
        .soft_credit
    )
    assert not score(path, ["phrase_match"]).summary.metrics["phrase_match"].soft_credit


def test_json_summary_and_parquet_carry_the_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_csv(tmp_path / "r.csv", ROWS)
    out, summary = tmp_path / "x.parquet", tmp_path / "s.json"
    code, _, err = run(
        [
            "score",
            "--responses",
            str(path),
            "--metric",
            "exact_substring",
            "--out",
            str(out),
            "--json",
            str(summary),
        ],
        capsys,
    )
    assert code == 0, err
    metric = json.loads(summary.read_text(encoding="utf-8"))["metrics"]["exact_substring"]
    assert metric["signature_info"]["metric"] == "exact_substring@1"
    assert Signature(metric["signature_info"]) == metric["signature"]
    stored = json.loads(pq.read_schema(out).metadata[PARQUET_KEY])
    assert Signature(stored["exact_substring"]) == metric["signature"]


def _scored(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str], *flags: str) -> Path:
    path = write_csv(tmp_path / "r.csv", ROWS)
    out = tmp_path / name
    code, _, err = run(
        ["score", "--responses", str(path), "--metric", "exact_substring", "--out", str(out), *flags], capsys
    )
    assert code == 0, err
    return out


def test_compare_says_when_a_and_b_were_scored_under_different_signatures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _scored(tmp_path, "a.parquet", capsys)
    b = _scored(tmp_path, "b.parquet", capsys, "--nfc")
    same = _scored(tmp_path, "same.parquet", capsys)
    differing = assay.compare_files(a, b)
    assert differing.warnings == (
        "exact_substring was scored under different signatures in A and B (nfc: off -> on)",
    )
    assert not assay.compare_files(a, same).warnings
    code, out, err = run(["compare", str(a), str(b)], capsys)
    assert code == 0, err
    assert "different signatures" in out + err


def test_files_without_stored_signatures_still_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _scored(tmp_path, "a.csv", capsys)
    b = _scored(tmp_path, "b.csv", capsys, "--nfc")
    found = assay.compare_files(a, b)
    assert not found.warnings
    assert (
        assay.load_scored(a).summary.metrics["exact_substring"].signature == f"exact_substring|read from {a}"
    )
