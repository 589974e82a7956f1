"""A 20,000-item gold set (27 MB) runs within 3x its size + 500 MB (issue 22: it peaked at 685 MB).

The run is a subprocess (its own peak, VmHWM, read by itself at exit), with an in-process system
that answers at once: the memory is the harness's. It takes minutes on a shared machine, so it runs
under CI=true or ASSAY_RUN_MEMORY=1; the bound is not timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ITEMS = 20_000
MB = 1 << 20
QUOTE = ("The grace period of the policy is thirty days from the due date of the premium. " * 12)[:900]

pytestmark = pytest.mark.skipif(
    os.environ.get("CI") != "true" and not os.environ.get("ASSAY_RUN_MEMORY"),
    reason="minutes long: runs under CI=true or ASSAY_RUN_MEMORY=1",
)

# The peak is the process's own VmHWM (KiB), not getrusage's ru_maxrss: Linux keeps ru_maxrss across
# exec, so a child of a large pytest process would report the parent's size as its own.
MEASURED = """
import re, sys
from pathlib import Path
from assay.cli import main
code = main(sys.argv[1:])
peak = re.search(r"VmHWM:\\s*(\\d+) kB", Path("/proc/self/status").read_text()).group(1)
print("maxrss", peak, file=sys.stderr)
"""


def item(number: int) -> dict[str, object]:
    """An item as `assay gold build` writes it, about 1,350 bytes; every fourth a refusal item."""
    base = {"id": f"item{number:05d}", "scope": f"acme__doc{number % 7}", "field": f"field_{number}"}
    if number % 4 == 3:
        question = f"Which hospitals in town {number} are in the network? " + "Name every one of them. " * 45
        return base | {
            "question": question,
            "expected_answer": "The policy documents do not list network hospitals.",
            "category": "refusal",
            "expected_refusal": True,
        }
    days = 10 * (number % 9 + 1)
    return base | {
        "question": f"How many days is the waiting period {number}?",
        "expected_answer": f"{days} days",
        "expected_value": {"value": days, "unit": "day"},
        "expected_regex": f"(?<!\\d){days}\\s*days?\\b",
        "answer_type": "number_unit",
        "category": "waiting",
        "expected_refusal": False,
        "source": {"document": f"acme__doc{number % 7}", "title": "doc", "page": 2, "quote": QUOTE},
    }


def test_a_20000_item_gold_set_runs_within_three_times_its_size_and_500_mb(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(item(n)) + "\n" for n in range(ITEMS)), encoding="utf-8")
    (tmp_path / "bot.py").write_text("def answer(question, scope=None):\n    return 'It is 30 days.'\n")
    size = gold.stat().st_size
    assert size > 25 * MB
    argv = [
        "run",
        "--gold",
        str(gold),
        "--system",
        f"{tmp_path / 'bot.py'}:answer",
        "--out",
        str(tmp_path / "r"),
    ]
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *argv], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    peak = int(done.stderr.rsplit("maxrss ", 1)[1].split()[0]) * 1024  # KiB on Linux
    assert peak <= 3 * size + 500 * MB, f"peak {peak / MB:.0f} MB for a {size / MB:.0f} MB gold set"
