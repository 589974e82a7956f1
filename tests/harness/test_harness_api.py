"""assay.harness is the gold half's public surface; scoring responses never loads the PDF libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import assay.harness


def test_every_public_name_resolves_to_what_its_module_defines() -> None:
    for name in assay.harness.__all__:
        assert getattr(assay.harness, name) is not None, name
    assert dir(assay.harness) == sorted(assay.harness.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'build_golden'"):
        assay.harness.build_golden  # noqa: B018


def test_importing_assay_and_scoring_does_not_load_the_pdf_libraries() -> None:
    code = (
        "import sys, assay\n"
        "from assay import values\n"
        "values.typed_value(30, answer_type='number_unit', unit='days')\n"
        "print(sorted(m for m in ('pypdf', 'pypdfium2', 'rapidfuzz') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_command_line_scoring_a_file_loads_no_gold_library(tmp_path: Path) -> None:
    # Every command's parser is built on each run: the gold commands must not load their libraries then.
    responses = tmp_path / "r.csv"
    responses.write_text("id,question,answer,response\n1,q,Delhi,in Delhi\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from assay.cli import main\n"
        f"main(['score', '--responses', {str(responses)!r}])\n"
        "print(sorted(m for m in ('pypdf', 'pypdfium2', 'rapidfuzz', 'yaml') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
