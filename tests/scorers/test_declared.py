"""What a run reads of a built-in scorer before loading it (``scorer_registry.BUILT_IN``) is what the
scorer itself says: the table only spares importing its module."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from assay.registry import load_named, may_declare
from assay.scorer_registry import BUILT_IN, SCORERS, declaration
from assay.scorers import DEFAULT_METRICS


@pytest.mark.parametrize("name", list(BUILT_IN))
def test_each_declaration_is_the_scorers_own(name: str) -> None:
    declared = BUILT_IN[name]
    scorer = load_named(declared.target)
    assert scorer.name == name
    assert (declared.default, declared.inputs) == (scorer.default, scorer.inputs)
    assert declaration(name) == declared


def test_the_default_metrics_are_the_scorers_that_say_so() -> None:
    assert tuple(name for name in SCORERS.built_in_names() if SCORERS[name].default) == DEFAULT_METRICS


def _package(folder: Path, dist: str, entry_points: str | None) -> None:
    info = folder / f"{dist}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist.split('-')[0]}\n", encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def test_a_package_naming_the_group_sends_the_registry_to_the_full_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    group = "assay.test_declared_group"
    _package(tmp_path, "quiet-1.0", None)
    _package(tmp_path, "other-1.0", "[console_scripts]\nother = other:main\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert may_declare(group) is False
    _package(tmp_path, "plugged-1.0", f"[{group}]\nmine = plugged:MINE\n")
    assert may_declare(group) is True


def test_metadata_in_a_zip_on_the_path_is_left_to_the_full_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped-1.0.dist-info/entry_points.txt", "[assay.test_zipped]\nz = zipped:Z\n")
    monkeypatch.setattr(sys, "path", [str(archive), *sys.path])
    assert may_declare("assay.test_zipped") is True
