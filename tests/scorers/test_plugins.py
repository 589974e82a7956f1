"""Scorers from other packages: a tiny plugin package is installed for real (pip, into a target
directory put on PYTHONPATH) and run through every output, compare, agree and the gate."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

PLUGIN_MODULE = '''
"""first_word: the response's first word is the golden answer's first word (lowercased)."""
from array import array

from assay import MetricScores, Scorer


def _first(text):
    words = text.split()
    return words[0] if words else ""


def _score(responses, answer_sets, questions):
    scores = MetricScores.all_failing("first_word", len(responses))
    for row, (response, answers) in enumerate(zip(responses, answer_sets)):
        for index, answer in enumerate(answers):
            if questions[row] and _first(response) == _first(answer):
                scores.outcomes[row], scores.answer_index[row] = 1, index
                break
    return scores


FIRST_WORD = Scorer(
    name="first_word",
    description="the response's first word is the golden answer's (lowercased)",
    view=str.lower,
    score_rows=_score,
    inputs=("question",),
)
'''

# A PEP 517 build backend of a dozen lines, in the plugin's own tree (no wheel package needed): a wheel
# is a zip of the package, its metadata and its entry points.
BACKEND = """
import zipfile
from pathlib import Path

NAME, VERSION = Path("name.txt").read_text().split()
DIST = f"{NAME}-{VERSION}.dist-info"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    files = {f"{NAME}/__init__.py": Path(NAME, "__init__.py").read_text()}
    files[f"{DIST}/METADATA"] = f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n"
    files[f"{DIST}/WHEEL"] = (
        "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    )
    files[f"{DIST}/entry_points.txt"] = Path("entry_points.txt").read_text()
    files[f"{DIST}/RECORD"] = "".join(f"{name},,\\n" for name in files) + f"{DIST}/RECORD,,\\n"
    with zipfile.ZipFile(Path(wheel_directory, wheel), "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel
"""

BROKEN_MODULE = "raise RuntimeError('this plugin is broken on purpose')\n"
CLASH_MODULE = "from assay.scorers import BUILT_IN\nSAME = BUILT_IN['exact_substring']\n"


def install_plugin(tmp_path: Path, name: str, module: str, entry: str, group: str = "assay.scorers") -> Path:
    """A package `name` with one module and one entry point in `group`, pip-installed into a directory
    of its own, which is returned (put it on PYTHONPATH)."""
    package = tmp_path / f"{name}-src"
    (package / name).mkdir(parents=True)
    (package / name / "__init__.py").write_text(textwrap.dedent(module), encoding="utf-8")
    (package / "backend.py").write_text(BACKEND, encoding="utf-8")
    (package / "name.txt").write_text(f"{name} 0.1", encoding="utf-8")
    (package / "entry_points.txt").write_text(f"[{group}]\n{entry}\n", encoding="utf-8")
    pyproject = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
    (package / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    target = tmp_path / f"{name}-site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    pip += ["--no-index", "--target", str(target), str(package)]
    done = subprocess.run(pip, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"pip could not install the test plugin: {done.stderr[-2000:]}")
    return target


def assay(site: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(SRC)])}
    return subprocess.run(
        [sys.executable, "-m", "assay", *argv], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


ROWS = [
    ("a", "Capital of India?", "New Delhi", "new delhi, of course", "yes"),
    ("b", "Holy river?", "Ganga", "the Yamuna", "no"),
    ("c", "Largest state?", "Rajasthan", "Rajasthan is", "yes"),
    ("d", "Tallest peak?", "Kangchenjunga", "K2", "no"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugin(
        tmp_path_factory.mktemp("plugin"), "tinyplugin", PLUGIN_MODULE, "first_word = tinyplugin:FIRST_WORD"
    )


def responses(path: Path, rows: list[tuple[str, ...]] = ROWS) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "answer", "response", "human"])
        writer.writerows(rows)
    return path


def test_a_plugin_metric_runs_through_every_output(site: Path, tmp_path: Path) -> None:
    responses(tmp_path / "r.csv")
    done = assay(
        site,
        "score",
        "--responses",
        "r.csv",
        "--metric",
        "first_word",
        "--metric",
        "exact_substring",
        "--detail",
        "--out",
        "x.csv",
        "--json",
        "s.json",
        "--markdown",
        "m.md",
        "--html",
        "h.html",
        "--trace",
        "t.jsonl",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "first_word" in done.stdout
    with (tmp_path / "x.csv").open(encoding="utf-8") as handle:
        out = list(csv.DictReader(handle))
    assert [row["first_word"] for row in out] == ["True", "False", "True", "False"]
    # The same numbers everywhere: 2 of 4 rows pass.
    summary = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    combined = summary["metrics"]["first_word"]["combined"]
    assert (combined["n"], combined["passed"], combined["accuracy"]) == (4, 2, 0.5)
    assert summary["metrics"]["first_word"]["signature"].startswith("first_word@1|")
    assert "combined     4       2     50.0%" in done.stdout.split("first_word", 1)[1]
    assert "| `first_word` | 4 | 2 | 50.0% |" in (tmp_path / "m.md").read_text(encoding="utf-8")
    html = (tmp_path / "h.html").read_text(encoding="utf-8")
    assert "first_word" in html and "50.0%" in html
    traces = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    first = traces[0]["traces"]["first_word"]
    # A scorer with no evidence of its own still gets a trace: outcome, its description, the answer.
    assert first["outcome"] == "pass"
    assert "the response's first word is the golden answer's" in first["rule"]
    assert first["golden"] == "new delhi"
    assert [t["traces"]["first_word"]["outcome"] for t in traces] == ["pass", "fail", "pass", "fail"]


def test_compare_agree_and_gate_carry_a_plugin_metric(site: Path, tmp_path: Path) -> None:
    responses(tmp_path / "a.csv")
    better = [(*row[:3], row[2], row[4]) for row in ROWS]  # every response is the golden answer
    responses(tmp_path / "b.csv", better)
    for name in ("a", "b"):
        done = assay(
            site,
            "score",
            "--responses",
            f"{name}.csv",
            "--metric",
            "first_word",
            "--out",
            f"{name}.out.csv",
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
    compared = assay(site, "compare", "a.out.csv", "b.out.csv", "--json", "c.json", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "first_word" in compared.stdout
    assert "first_word" in (tmp_path / "c.json").read_text(encoding="utf-8")

    agreed = assay(
        site,
        "agree",
        "--responses",
        "a.csv",
        "--metric",
        "first_word",
        "--human",
        "human",
        "--positive",
        "yes",
        cwd=tmp_path,
    )
    assert agreed.returncode == 0, agreed.stderr
    assert "first_word" in agreed.stdout

    passed = assay(
        site,
        "score",
        "--responses",
        "b.csv",
        "--metric",
        "first_word",
        "--gate",
        "first_word>=0.5",
        cwd=tmp_path,
    )
    failed = assay(
        site,
        "score",
        "--responses",
        "a.csv",
        "--metric",
        "first_word",
        "--gate",
        "first_word>=0.9",
        cwd=tmp_path,
    )
    assert (passed.returncode, failed.returncode) == (0, 1), (passed.stderr, failed.stderr)


@pytest.mark.parametrize(
    ("name", "module", "entry", "message"),
    [
        ("brokenplugin", BROKEN_MODULE, "oops = brokenplugin:NOTHING", "failed to load (RuntimeError"),
        ("clashplugin", CLASH_MODULE, "same = clashplugin:SAME", "has the name of a built-in metric"),
    ],
    ids=["fails-to-load", "takes-a-built-in-name"],
)
def test_a_bad_plugin_is_one_clear_error_naming_its_entry_point(
    tmp_path: Path, name: str, module: str, entry: str, message: str
) -> None:
    site = install_plugin(tmp_path, name, module, entry)
    responses(tmp_path / "r.csv")
    done = assay(site, "score", "--responses", "r.csv", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert message in done.stderr
    assert f"entry point '{entry.split(' ')[0]} = " in done.stderr
    assert assay(site, "score", "--help", cwd=tmp_path).returncode == 0  # help lists what did load


def test_every_format_gives_the_same_numbers_for_a_plugin_metric_and_renamed_columns(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed plugin found in this process through its entry point (the package's own
    metadata on sys.path), scored on the example with its golden and response columns renamed."""
    from test_report_model import RENAMED_FLAGS, check_same_numbers, renamed_copy

    from assay.scorers import SCORERS

    monkeypatch.syspath_prepend(str(site))
    SCORERS.reload()
    try:
        assert "first_word" in SCORERS
        metrics = ["first_word", "exact_substring"]
        check_same_numbers(tmp_path, capsys, metrics, renamed_copy(tmp_path), RENAMED_FLAGS)
    finally:
        monkeypatch.undo()
        SCORERS.reload()
    assert "first_word" not in SCORERS
