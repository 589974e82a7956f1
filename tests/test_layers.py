"""The package's shape, read from its source: imports run one way through the layers with no cycle; the
judge is wired in only where the design says; no module outside the scorers lists metrics by name."""

from __future__ import annotations

import ast
from pathlib import Path

import import_graph
import pytest

from assay.scorers import BUILT_IN

SRC = Path(__file__).resolve().parents[1] / "src"
GRAPH = import_graph.build(SRC)

# Where the LLM judge may be named: its own package, the report's judge section, the two layers that wire
# it in (the CLI's flags, the harness's `run --judge`), and the public surface that re-exports its names.
JUDGE_MAY_BE_NAMED = ("assay.judges", "assay.report.judge", "assay.cli", "assay.harness")
PUBLIC_SURFACE = import_graph.FACADE


def test_no_module_imports_a_higher_layer() -> None:
    assert GRAPH.upward() == []


def test_no_import_cycles() -> None:
    assert GRAPH.cycles() == []


def code_words(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each name, and each string that is a key rather than a sentence, of a module's
    code. Prose is left out: docstrings, comments, and strings with a space, such as a reason telling the
    user that a judge decides what the rules cannot; a special case is made of names and keys."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if not any(character.isspace() for character in node.value):
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.lineno, node.name))
        elif isinstance(node, ast.arg):
            found.append((node.lineno, node.arg))
        elif isinstance(node, ast.alias):
            found.append((getattr(node, "lineno", 0), node.asname or node.name))
    return found


def test_the_judge_is_named_only_where_it_is_wired_in() -> None:
    named = [
        f"{module}:{line}: {text[:60]!r}"
        for module, path in GRAPH.modules.items()
        if not module.startswith(JUDGE_MAY_BE_NAMED) and module not in PUBLIC_SURFACE
        for line, text in code_words(path)
        if "judge" in text.casefold()
    ]
    assert named == []


def metric_name_lists(path: Path, names: frozenset[str]) -> list[int]:
    """Lines of tuple, list and set literals of two or more strings that are all metric names."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set))
        and len(node.elts) >= 2
        and all(isinstance(e, ast.Constant) and e.value in names for e in node.elts)
    ]


@pytest.mark.parametrize("module", [m for m in GRAPH.modules if not m.startswith("assay.scorers")])
def test_no_list_of_metric_names_outside_the_scorers(module: str) -> None:
    assert metric_name_lists(GRAPH.modules[module], frozenset(BUILT_IN)) == []
