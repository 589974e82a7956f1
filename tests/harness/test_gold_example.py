"""The bundled gold example (examples/gold) builds as examples/README.md says, and lints clean."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assay.records import load_records

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gold"


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay", *argv], capture_output=True, text=True, cwd=cwd)


def test_the_bundled_example_builds_as_documented(tmp_path: Path) -> None:
    build = run(
        "gold", "build", "--facts", str(EXAMPLE / "facts"), "--sources", str(EXAMPLE / "sources"),
        "--templates", str(ROOT / "examples" / "insurance_templates.toml"), "--refusals",
        "--out", "gold.jsonl", "--report", "report.json", "--no-cache",
        cwd=tmp_path,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    total = report["counts"]["total"]
    assert {k: v for k, v in total["by_status"].items() if v} == {"found": 8, "sentinel": 1, "url": 1}
    assert {k: v for k, v in total["by_level"].items() if v} == {"exact": 2, "normalised": 5, "pieces": 1}
    records = load_records(tmp_path / "gold.jsonl", need_responses=False).records
    assert len(records) == 19
    assert sum(bool(r.gold and r.gold.expected_refusal) for r in records) == 3
    lint = run("lint", "gold.jsonl", "--sources", str(EXAMPLE / "sources"), "--no-cache", cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout
    assert "0 errors, 0 warnings in 19 rows" in lint.stdout


def test_sources_that_give_no_text_are_named_on_the_terminal(tmp_path: Path) -> None:
    import shutil

    sources = tmp_path / "sources"
    shutil.copytree(EXAMPLE / "sources", sources)
    (sources / "suraksha" / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
    (sources / "notes.docx").write_bytes(b"not a PDF")
    for command in (("gold", "build", "--out", "gold.jsonl"), ("sources", "map")):
        inputs = ("--facts", str(EXAMPLE / "facts"), "--sources", str(sources), "--no-cache")
        done = run(*command, *inputs, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "unreadable: suraksha/broken.pdf: no extractor could read this PDF" in done.stdout
        assert "ignored (not a PDF or text file): 1: notes.docx" in done.stdout
        assert done.stderr == ""  # nothing of the PDF libraries' own logging
