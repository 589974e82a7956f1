"""A lean install, for real: a fresh virtual environment, `pip install` of this clone with its core
dependencies from the package index (as the README's set-up line does), and then the README's example.

It installs packages, so it runs in CI (CI=true) and skips elsewhere; tests/test_extras.py checks the same
behaviour everywhere by hiding the optional packages from the test's own Python.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pdfgen
import pytest

from assay.extras import OPTIONAL_PACKAGES
from conftest import in_ci

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def lean_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not in_ci():
        pytest.skip("installs a fresh virtual environment from the package index: CI only (CI=true)")
    venv = tmp_path_factory.mktemp("lean") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # A copy of the clone without its build leftovers, installed as a user installs it (not editable).
    clone = tmp_path_factory.mktemp("clone") / "assay"
    ignore = shutil.ignore_patterns(".*", "build", "*.egg-info", "__pycache__", "*.so")  # .git, .venv, caches
    shutil.copytree(ROOT, clone, ignore=ignore)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, "install", "--quiet", str(clone)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    return venv


def test_the_lean_install_brings_no_optional_package(lean_venv: Path) -> None:
    listed = subprocess.run(
        [str(lean_venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {package["name"].casefold().replace("_", "-") for package in json.loads(listed.stdout)}
    optional = {package.casefold() for package, _ in OPTIONAL_PACKAGES.values()}
    assert "assay" in names
    assert names & (optional | {"cryptography", "pandas", "pytest", "playwright", "mypy", "ruff"}) == set()


def assay(venv: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed console script, from a folder outside the clone (the clone's src/ is not on the path)."""
    return subprocess.run([str(venv / "bin" / "assay"), *argv], capture_output=True, text=True, cwd=cwd)


def test_the_lean_install_scores_the_example(lean_venv: Path, tmp_path: Path) -> None:
    argv = ["score", "--responses", str(EXAMPLES / "qa_responses.csv"), "--out", "scored.csv"]
    result = assay(lean_venv, [*argv, "--html", "report.html", "--json", "summary.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "exact_substring" in result.stdout
    assert {"scored.csv", "report.html", "summary.json"} <= {path.name for path in tmp_path.iterdir()}


def test_the_lean_install_builds_the_example_gold_set(lean_venv: Path, tmp_path: Path) -> None:
    """Its documents are text: no PDF library is needed."""
    result = assay(lean_venv, gold_build(EXAMPLES / "gold" / "sources"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "gold.jsonl").stat().st_size > 0


def test_a_pdf_on_the_lean_install_names_the_pdf_extra(lean_venv: Path, tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    pdfgen.pages_pdf(sources / "acme", "policy.pdf", [["Refunds are paid within 7 business days."]])
    result = assay(lean_venv, gold_build(sources), tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("assay: error: assay gold build needs pypdfium2 "), result.stderr
    assert "Fix: pip install 'assay[pdf]'" in result.stderr
    assert "Traceback" not in result.stderr


def gold_build(sources: Path) -> list[str]:
    facts, templates = EXAMPLES / "gold" / "facts", EXAMPLES / "insurance_templates.toml"
    return ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--templates", str(templates),
            "--out", "gold.jsonl"]  # fmt: skip


def test_the_install_ships_the_tables_it_would_otherwise_build(lean_venv: Path, tmp_path: Path) -> None:
    """setup.py precomputes the fold tables and the seed's punctuation (half a second a process otherwise):
    the built package has them, and they are read, not rebuilt."""
    check = (
        "import importlib.resources as r, sys; from assay.text import seed, unicode; "
        "files = r.files('assay.text'); "
        "sys.exit(0 if files.joinpath('unicode_fold.bin').is_file() "
        "and files.joinpath('seed_punctuation.txt').is_file() else 1)"
    )
    found = subprocess.run(
        [str(lean_venv / "bin" / "python"), "-c", check], cwd=tmp_path, capture_output=True
    )
    assert found.returncode == 0, found.stderr
