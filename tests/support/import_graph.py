"""The package's import graph, read from the source (never by importing it): every `import` and
`from ... import` anywhere in a module, inside functions and under TYPE_CHECKING included, since an import
deferred into a function is still a dependency, only a hidden one. Used by the layer test and by
bench/architecture.py."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

# Layers run one way (DESIGN.md): cli -> harness -> scorers, judges, report -> the core -> text, io.
# A module's layer is its first package under assay/; the core is every module not named here.
LAYER_OF_PACKAGE = {
    "cli": 5,
    # the viewer: a top layer like the CLI (it reads runs through the harness); only the CLI imports it
    "view": 5,
    "harness": 4,
    # score_file: a file job (read, score over processes, write the per-row files), above the report
    "parallel": 4,
    # assay.scale: the columnar entry point and the Ray job, file jobs like parallel (above the report)
    "scale": 4,
    "scorers": 3,
    "judges": 3,
    "report": 3,
    "text": 1,
    "io": 1,
}
CORE = 2
FACADE = ("assay", "assay.__main__")  # the public surface re-exports every layer; nothing imports it
C_EXTENSIONS = ("_speedups", "_csvwrite")  # built from their .c source; they import nothing of the package


@dataclass(frozen=True)
class Graph:
    modules: Mapping[str, Path]
    edges: Mapping[str, frozenset[str]]  # module -> the package modules it imports

    def upward(self) -> list[tuple[str, str]]:
        """(importer, imported) for each import of a higher layer, or of the public facade."""
        return sorted(
            (source, target)
            for source, targets in self.edges.items()
            for target in targets
            if layer(target) > layer(source) or (target in FACADE and source not in FACADE)
        )

    def cycles(self) -> list[list[str]]:
        """The strongly connected groups of more than one module (each holds at least one cycle)."""
        return [sorted(group) for group in _strongly_connected(self.edges) if len(group) > 1]


def layer(module: str) -> int:
    if module in FACADE:
        return 9
    if module.rpartition(".")[2] in C_EXTENSIONS:
        return 0  # a leaf every layer may call
    parts = module.split(".")
    return LAYER_OF_PACKAGE.get(parts[1], CORE) if len(parts) > 1 else CORE


def build(src: Path, package: str = "assay") -> Graph:
    """The graph of every .py module under src/package."""
    modules = {_module_name(path, src): path for path in sorted((src / package).rglob("*.py"))}
    # C extensions (built from their .c source) are leaves: they import nothing of the package
    extensions = {_module_name(path, src): path for path in sorted((src / package).rglob("*.c"))}
    known = {**modules, **extensions}
    edges = {name: frozenset(_imports(name, path, known)) for name, path in modules.items()}
    return Graph(modules, edges)


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(name: str, path: Path, modules: Mapping[str, Path]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        for target in _targets(node, package):
            while target and target not in modules:  # a name imported from a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def _targets(node: ast.AST, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        module = ".".join([*base, *([node.module] if node.module else [])])
    else:
        module = node.module or ""
    return [f"{module}.{alias.name}" for alias in node.names]


def _strongly_connected(edges: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (a deep package must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
