"""Every speed and memory target of assay in one run: each bench module's ``targets()``, printed as it
comes, then one table; ``--readme README.md`` writes that table into the README between its markers.

    python bench/bench_all.py                    # full sizes (about fifteen minutes on 2 cores)
    python bench/bench_all.py --quick            # small sizes: checks that every bench runs
    python bench/bench_all.py --only score,html  # some areas
    python bench/bench_all.py --readme README.md # regenerate the README's table
    python bench/bench_all.py --only urls --readme README.md  # only the urls rows of it

Exits 1 when a target is not met. The figures are ratios against a floor or a peer measured in the same
run, so a loaded machine moves both sides; rerun before trusting a near miss.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

from targets import Target, markdown_table, print_targets

HERE = Path(__file__).resolve().parent
# The bench modules with a targets() function, by the area each covers (its name in --only).
AREAS = {
    "startup": "bench_startup",
    "score": "bench_outputs",
    "squad": "bench_squad",
    "html": "bench_html",
    "run": "bench_run",
    "judge": "bench_judge",
    "urls": "bench_urls",
}
START = "<!-- bench_all: start (python bench/bench_all.py --readme README.md) -->"
END = "<!-- bench_all: end -->"


def collect(areas: list[str], quick: bool) -> list[Target]:
    """Run each area's bench in turn; a bench that fails to run is an error, not a skipped row."""
    targets: list[Target] = []
    for area in areas:
        started = time.monotonic()
        print(f"{area}:", flush=True)
        module = importlib.import_module(AREAS[area])
        measured = module.targets(quick=quick)
        print_targets(measured)
        print(f"  ({time.monotonic() - started:.0f} s)", flush=True)
        targets.extend(measured)
    return targets


def write_readme(readme: Path, targets: list[Target], areas: list[str]) -> None:
    """Replace the table between the README's markers (the markers must be there) with this run's rows;
    with --only, the rows of the areas not measured now are kept from the table there, and a line under
    it says which rows this run measured."""
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        sys.exit(f"{readme}: the markers {START!r} and {END!r} are missing; add them where the table goes")
    head, rest = text.split(START, 1)
    earlier, tail = rest.split(END, 1)
    measured = markdown_table(targets).splitlines()
    if set(areas) == set(AREAS):
        block = measured
    else:
        kept = {area: rows for area, rows in _rows_by_area(earlier).items() if area not in areas}
        new = _rows_by_area("\n".join(measured[2:]))
        rows = [row for area in AREAS for row in (new.get(area) or kept.get(area) or [])]
        block = [
            *measured[:2],
            *rows,
            "",
            f"(Rows of {', '.join(areas)} measured by the last run; the others earlier.)",
        ]
    readme.write_text(f"{head}{START}\n" + "\n".join(block) + f"\n{END}{tail}", encoding="utf-8")
    print(f"wrote the table into {readme}")


def _rows_by_area(table: str) -> dict[str, list[str]]:
    """A table's data rows by their first cell (the area); the header, the rule and other lines left."""
    rows: dict[str, list[str]] = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] in AREAS:
            rows.setdefault(cells[0], []).append(line)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--only", default="", help=f"comma-separated areas of: {', '.join(AREAS)}")
    parser.add_argument("--readme", type=Path, help="write the table into this README between its markers")
    args = parser.parse_args()
    areas = [area.strip() for area in args.only.split(",") if area.strip()] or list(AREAS)
    unknown = sorted(set(areas) - set(AREAS))
    if unknown:
        sys.exit(f"unknown area {', '.join(unknown)}; the areas are {', '.join(AREAS)}")
    sys.path.insert(0, str(HERE))
    targets = collect(areas, args.quick)
    print()
    print(markdown_table(targets))
    if args.readme:
        write_readme(args.readme, targets, areas)
    sys.exit(0 if all(target.met for target in targets) else 1)


if __name__ == "__main__":
    main()
