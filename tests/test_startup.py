"""Starting assay builds nothing and loads only what the command runs (issue 24: `assay --help` and a
one-row `assay score` within 0.15 s of CPU over a bare interpreter; bench/bench_startup.py times that,
these tests hold the rule in place without timing anything). Each check runs in a fresh interpreter:
this process has loaded everything already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
# Loaded only by the runs that use them: an async judge or system, plugins' entry points, a terminal's
# progress bar, worker processes, the HTML report, the judge's run and HTTP helpers.
HEAVY = (
    "asyncio",
    "importlib.metadata",
    "tqdm",
    "multiprocessing",
    "assay.report.html",
    "assay.report.plot",
    "assay.judges.run",
    "assay.judges.cache",
    "assay.net",
)
# Loaded only by the metrics that read values: value_match, grounded.
VALUE_READING = ("assay.values", "assay.values.reading", "assay.scorers.value_match")


def loaded_after(code: str) -> dict[str, object]:
    """Run `code` in a fresh interpreter on this checkout; what it left loaded and built."""
    probe = (
        "import sys, json\n"
        f"{code}\n"
        "unicode = sys.modules.get('assay.text.unicode')\n"
        "seed = sys.modules.get('assay.text.seed')\n"
        "print(json.dumps({'modules': sorted(sys.modules),"
        " 'fold_tables_built': bool(unicode and unicode._fold_tables.cache_info().currsize),"
        " 'punctuation_built': bool(seed and seed.punctuation.cache_info().currsize)}))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(found.stdout.splitlines()[-1]))


def test_importing_the_package_the_cli_and_the_scoring_stack_builds_and_loads_nothing_heavy() -> None:
    found = loaded_after(
        "import assay, assay.cli, assay.cli.score, assay.scorers, assay.scoring, assay.parallel, "
        "assay.scorers.seed, assay.scorers.unicode, assay.text.unicode, assay.text.seed"
    )
    modules = found["modules"]
    assert isinstance(modules, list)
    assert [name for name in (*HEAVY, *VALUE_READING) if name in modules] == []
    assert found["fold_tables_built"] is False
    assert found["punctuation_built"] is False


def test_help_loads_no_command_and_no_regex() -> None:
    found = loaded_after(
        "import contextlib, io\n"
        "from assay.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])"
    )
    modules = found["modules"]
    assert isinstance(modules, list)
    assert [name for name in ("regex", "assay.cli.score", *HEAVY) if name in modules] == []


def test_building_the_score_parser_loads_no_scorer_and_no_judge() -> None:
    found = loaded_after(
        "from assay.cli import build_parser\nbuild_parser(['score', '--responses', 'x.csv'])"
    )
    modules = found["modules"]
    assert isinstance(modules, list)
    scorers = [name for name in modules if name.startswith("assay.scorers.")]
    assert scorers == []
    assert [name for name in (*HEAVY[:1], *HEAVY[2:], *VALUE_READING) if name in modules] == []


def test_score_help_still_lists_the_metrics_and_judges_from_the_registries() -> None:
    from assay.cli import build_parser
    from assay.judges.backends import judge_forms
    from assay.scorers import DEFAULT_METRICS

    parser = build_parser(["score"])
    shown = parser._subparsers._group_actions[0].choices["score"].format_help()  # type: ignore[union-attr]
    flat = " ".join(shown.split())
    assert all(name in flat for name in DEFAULT_METRICS)
    assert "value_match" in flat and "judge run when named" in flat
    assert " ".join(judge_forms().split()) in flat


def test_a_one_row_score_loads_no_value_reader_and_scans_no_entry_points(tmp_path: Path) -> None:
    """Deciding which metrics run reads the built-ins' declarations (``scorer_registry.BUILT_IN``), not
    their modules; the installed packages are parsed for plugins only when one may declare a scorer."""
    responses = tmp_path / "one.csv"
    responses.write_text(
        "id,question,answer,response\nq1,Who wrote Hamlet?,Shakespeare,William Shakespeare\n",
        encoding="utf-8",
    )
    found = loaded_after(
        "import contextlib, io\n"
        "from assay.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main(['score', '--responses', {str(responses)!r}])"
    )
    modules = found["modules"]
    assert isinstance(modules, list)
    assert "assay.scoring" in modules and "assay.scorers.seed" in modules  # it did score
    assert [name for name in (*HEAVY, *VALUE_READING, "assay.scorers.grounded") if name in modules] == []
