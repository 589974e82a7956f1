"""assay.harness is the gold half's public surface; scoring responses never loads the PDF libraries."""

from __future__ import annotations

import subprocess
import sys

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
        "from assay.harness import values\n"
        "values.typed_value(30, answer_type='number_unit', unit='days')\n"
        "print(sorted(m for m in ('pypdf', 'pypdfium2', 'rapidfuzz') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
