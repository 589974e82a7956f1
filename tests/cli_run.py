"""Running the command line in-process, for the CLI and output tests."""

from __future__ import annotations

import pytest

from assay.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in-process: exit code, stdout, stderr (argparse's own errors exit via SystemExit)."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err
