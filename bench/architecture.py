"""The shape of the code, in numbers: import cycles, imports that run up the layers, long functions, the
largest module. Run: python bench/architecture.py [SRC]  (SRC defaults to this checkout's src/)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

import import_graph  # noqa: E402  (a test helper, found beside the tests)

LONG_FUNCTION = 60  # lines: DESIGN.md's size guide


def function_lengths(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def main() -> None:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "src"
    graph = import_graph.build(src)
    cycles, upward = graph.cycles(), graph.upward()
    lengths = {name: function_lengths(path) for name, path in graph.modules.items()}
    found = ((n, m, f) for m, functions in lengths.items() for f, n in functions)
    long = sorted((entry for entry in found if entry[0] > LONG_FUNCTION), reverse=True)
    sizes = sorted(((len(p.read_text(encoding="utf-8").splitlines()), m) for m, p in graph.modules.items()))
    every = sorted(n for found in lengths.values() for _, n in found)
    print(f"modules                      {len(graph.modules)}")
    print(f"import cycles (groups)       {len(cycles)}  ({sum(map(len, cycles))} modules in them)")
    print(f"imports up the layers        {len(upward)}")
    print(f"functions over {LONG_FUNCTION} lines      {len(long)}")
    print(f"median function length       {every[len(every) // 2]} lines")
    print(f"largest module               {sizes[-1][1]} ({sizes[-1][0]} lines)")
    print(f"modules over 400 lines       {sum(1 for size, _ in sizes if size > 400)}")
    for group in cycles:
        print("  cycle:", ", ".join(group))
    for source, target in upward:
        print(f"  up: {source} -> {target}")
    for lines, module, function in long:
        print(f"  long: {module}.{function} ({lines} lines)")


if __name__ == "__main__":
    main()
