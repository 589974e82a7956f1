"""`assay` and `assay view` as a user runs them, in subprocesses, for the viewer's tests: the command
line, the viewer on a free port, the headers its own page sends with a mark, and an item opened in
its page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPO = Path(__file__).resolve().parents[2]
SRC, EXAMPLES = REPO / "src", REPO / "examples"
ENV = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}


def assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "assay", *map(str, args)]
    done = subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@contextmanager
def viewing(folder: Path) -> Iterator[str]:
    """`assay view FOLDER` as a user starts it, on a free port; yields its address."""
    command = [sys.executable, "-m", "assay", "view", str(folder), "--port", "0", "--no-open"]
    process = subprocess.Popen(
        command, cwd=folder.parent, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, (
            f"assay view printed {line!r}; stderr: {process.stderr.read() if process.stderr else ''}"
        )
        yield found.group()
    finally:
        process.terminate()
        process.wait(timeout=20)


def own_headers(viewer: str) -> dict[str, str]:
    """What the viewer's page sends with a mark: its origin and the token it was served."""
    token = re.search(r'name="assay-token" content="([^"]+)"', httpx.get(viewer).text)
    assert token is not None
    return {"Origin": viewer.rstrip("/"), "X-Assay-Token": token.group(1)}


def open_item(page: Page, run: str, item: str) -> None:
    """Open an item of a run (or scored file) in the page, and wait until the item's own page is drawn.
    The run is chosen only when it is not already: choosing it again reloads its items, which clears
    the item's page, maybe just after the click drew it."""
    if page.input_value("#item-run") != run:
        page.select_option("#item-run", run)
    page.click(f'#items[data-run="{run}"] tr[data-item="{item}"]')  # its own rows: runs share item ids
    page.wait_for_function("id => document.querySelector('#item h3')?.textContent === 'Item ' + id", arg=item)
