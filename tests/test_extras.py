"""The optional parts of assay: `pip install assay` scores a file and builds a gold set from text documents
with none of them, and a command that needs one stops with exit 2 and its `pip install 'assay[NAME]'` line,
said of the command (tests/test_install.py proves the same on a real lean install, in CI).

Here a lean install is the test's own Python with every optional package hidden (a finder at the front of
sys.meta_path refuses to import it), so that the commands run in a subprocess as a user runs them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pdfgen
import pytest

from assay.extras import OPTIONAL_PACKAGES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# The command line, in a Python where the optional packages (and what only they bring) cannot be imported.
HIDDEN = sorted({*OPTIONAL_PACKAGES, "cryptography", "pandas"})
LEAN_PYTHON = f"""
import sys

HIDDEN = {HIDDEN!r}


class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Hide())
from assay.cli import main

code = main(sys.argv[1:])
loaded = sorted({{name.partition(".")[0] for name in sys.modules}} & set(HIDDEN))
assert not loaded, loaded
sys.exit(code)
"""


def lean(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", LEAN_PYTHON, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def test_scoring_and_its_reports_need_no_extra(tmp_path: Path) -> None:
    argv = ["score", "--responses", str(EXAMPLES / "qa_responses.csv"), "--out", "scored.csv"]
    result = lean([*argv, "--json", "s.json", "--markdown", "s.md", "--html", "s.html"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert {p.name for p in tmp_path.iterdir()} >= {"scored.csv", "s.json", "s.md", "s.html"}
    compared = lean(["compare", "scored.csv", "scored.csv"], tmp_path)  # numpy's paired bootstrap: core
    assert compared.returncode == 0, compared.stderr


def test_a_gold_set_from_text_documents_needs_no_extra(tmp_path: Path) -> None:
    result = lean(gold_build(EXAMPLES / "gold" / "sources", EXAMPLES / "insurance_templates.toml"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "gold.jsonl").stat().st_size > 0


def gold_build(sources: Path, templates: Path) -> list[str]:
    facts = EXAMPLES / "gold" / "facts"
    return ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--templates", str(templates),
            "--out", "gold.jsonl"]  # fmt: skip


def refused(result: subprocess.CompletedProcess[str], command: str, package: str, extra: str) -> None:
    """Exit 2 and one line: the command, the package it needs, the pip line (no traceback)."""
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"{command} needs {package} " in result.stderr
    assert f"Fix: pip install 'assay[{extra}]'" in result.stderr


def test_scoring_on_ray_names_the_ray_extra(tmp_path: Path) -> None:
    argv = [
        "score",
        "--responses",
        str(EXAMPLES / "qa_responses.csv"),
        "--ray",
        "local",
        "--out",
        "scored.csv",
    ]
    refused(lean(argv, tmp_path), "assay score", "ray", "ray")
    assert not (tmp_path / "scored.csv").exists()


def test_a_pdf_document_names_the_pdf_extra(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    pdfgen.pages_pdf(sources / "acme", "policy.pdf", [["Refunds are paid within 7 business days."]])
    result = lean(gold_build(sources, EXAMPLES / "insurance_templates.toml"), tmp_path)
    refused(result, "assay gold build", "pypdfium2", "pdf")
    assert "or give the documents as .txt or .md text" in result.stderr
    assert not (tmp_path / "gold.jsonl").exists()


def test_yaml_templates_name_the_yaml_extra(tmp_path: Path) -> None:
    templates = tmp_path / "templates.yaml"
    templates.write_text("fields: {}\n", encoding="utf-8")
    result = lean(gold_build(EXAMPLES / "gold" / "sources", templates), tmp_path)
    refused(result, "assay gold build", "PyYAML", "yaml")
    assert "or write them as TOML" in result.stderr


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    result = lean(gold_build(EXAMPLES / "gold" / "sources", EXAMPLES / "insurance_templates.toml"), tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path / "gold.jsonl"


@pytest.mark.parametrize("system", ["http://127.0.0.1:9/ask", "openai:http://127.0.0.1:9/v1"])
def test_a_system_over_http_names_the_http_extra(tmp_path: Path, gold: Path, system: str) -> None:
    result = lean(["run", "--gold", str(gold), "--system", system, "--out", "run"], tmp_path)
    refused(result, "assay run", "httpx", "http")
    assert "or run the system in process" in result.stderr


def test_the_openai_judge_names_the_judge_extra(tmp_path: Path) -> None:
    responses = str(EXAMPLES / "qa_responses.csv")
    judge = "openai:some-model@http://127.0.0.1:9/v1"
    result = lean(["score", "--responses", responses, "--metric", "judge", "--judge", judge], tmp_path)
    refused(result, "assay score", "httpx", "judge")


def test_checking_urls_names_the_http_extra(tmp_path: Path, gold: Path) -> None:
    refused(lean(["urls", "check", str(gold)], tmp_path), "assay urls check", "httpx", "http")


def test_the_sweep_names_the_rag_extra(tmp_path: Path, gold: Path) -> None:
    sweep = [
        "sweep",
        "--corpus",
        str(EXAMPLES / "gold" / "sources"),
        "--questions",
        str(gold),
        "--out",
        "s.json",
    ]
    refused(lean(sweep, tmp_path), "assay sweep", "bm25s", "rag")


# pyproject.toml and the package's table of optional packages say the same thing.


def requirement_name(requirement: str) -> str:
    """ "pypdf[crypto]>=4.0" -> "pypdf"."""
    for mark in "[<>=!~; ":
        requirement = requirement.partition(mark)[0]
    return requirement.casefold()


def extra_packages(extra: str) -> set[str]:
    """The distributions an extra brings, through the extras it names (assay[pdf,http])."""
    found: set[str] = set()
    for requirement in PYPROJECT["project"]["optional-dependencies"][extra]:
        if requirement.startswith("assay["):
            for named in requirement[len("assay[") : requirement.index("]")].split(","):
                found |= extra_packages(named)
        else:
            found.add(requirement_name(requirement))
    return found


CORE = {requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}


@pytest.mark.parametrize(("module", "package", "extra"), [(m, *pe) for m, pe in OPTIONAL_PACKAGES.items()])
def test_each_optional_package_is_in_its_extra_not_in_the_core(module: str, package: str, extra: str) -> None:
    assert package.casefold() in extra_packages(extra)
    assert package.casefold() not in CORE


def test_dev_installs_every_extra_the_tests_use() -> None:
    """All but llama-cpp-python, which compiles: .ci/run installs it on its own."""
    wanted = {package.casefold() for package, _ in OPTIONAL_PACKAGES.values()} - {"llama-cpp-python"}
    assert wanted <= extra_packages("dev")


# Where an optional package is imported: inside the function that needs it, or at the top of a module that
# only such a command loads, in a try whose ImportError raises missing_extra (never a bare traceback).


def unguarded_imports(path: Path) -> list[str]:
    """ "file:line: module" of each optional package a module imports as it loads, unguarded."""
    return [
        f"{path.name}:{node.lineno}: {name}"
        for node in module_level_imports(ast.parse(path.read_text(encoding="utf-8")).body)
        for name in imported_names(node)
        if name.partition(".")[0] in OPTIONAL_PACKAGES
    ]


def module_level_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module loads: not those in functions (run when used), under
    TYPE_CHECKING (never run), or in a try whose ImportError raises missing_extra (guarded)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.Try):
            guarded = any("missing_extra" in ast.unparse(handler) for handler in node.handlers)
            found += [] if guarded else module_level_imports(node.body)
            found += module_level_imports(node.orelse + node.finalbody)
        elif isinstance(node, ast.If) and ast.unparse(node.test) != "TYPE_CHECKING":
            found += module_level_imports(node.body + node.orelse)
    return found


def imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module or ""] if node.level == 0 else []


def test_no_module_imports_an_optional_package_unguarded_as_it_loads() -> None:
    modules = sorted((ROOT / "src" / "assay").rglob("*.py"))
    assert [line for path in modules for line in unguarded_imports(path)] == []
