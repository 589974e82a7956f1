"""Golden files: each report format of the bundled example, byte for byte, so that any change to what
a report says shows in review as a diff of tests/golden/. The example is named by its path relative to
the checkout (each test runs there), and assay's version is normalised.

After a deliberate change, regenerate them: ``ASSAY_UPDATE_GOLDEN=1 pytest tests/report/test_golden.py``,
and read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_run import run

import assay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path("examples") / "qa_responses.csv"  # relative to ROOT, where each test runs
GOLDEN = Path(__file__).resolve().parent.parent / "golden"
UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports name their source as given: a relative path keeps this machine's folders out of them."""
    monkeypatch.chdir(ROOT)


def normalised(text: str) -> str:
    """The report with assay's version made constant."""
    return text.replace(assay.__version__, "VERSION")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    found = normalised(text)
    if UPDATE:
        path.write_text(found, encoding="utf-8", newline="\n")
    assert path.exists(), f"no golden file {name}: run with ASSAY_UPDATE_GOLDEN=1 to make it"
    expected = path.read_text(encoding="utf-8")
    assert found == expected, f"{name} differs from its golden file (ASSAY_UPDATE_GOLDEN=1 regenerates it)"


@pytest.mark.parametrize(("name", "flags"), [("text_default.txt", []), ("text_detail.txt", ["--detail"])])
def test_the_text_report_matches_its_golden_file(
    capsys: pytest.CaptureFixture[str], name: str, flags: list[str]
) -> None:
    code, printed, _ = run(["score", "--responses", str(EXAMPLE), *flags], capsys)
    assert code == 0
    check_golden(name, printed)


@pytest.mark.parametrize(
    ("name", "flag"), [("summary.json", "--json"), ("results.md", "--markdown"), ("report.html", "--html")]
)
def test_each_file_report_matches_its_golden_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, flag: str
) -> None:
    written = tmp_path / name
    code, _, _ = run(["score", "--responses", str(EXAMPLE), flag, str(written)], capsys)
    assert code == 0
    check_golden(name, written.read_text(encoding="utf-8"))
