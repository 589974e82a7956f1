"""One shape for every speed and memory target the benches check, so `bench_all.py` can print them as one
table (and write it into the README) and each bench script can print its own.

A target is a ratio against a floor or a peer measured in the same run (the machine's load cancels out),
or, where there is no peer, an absolute figure (peak MiB, seconds of a cached re-run). Each bench module
exposes ``targets(quick: bool) -> list[Target]``; ``quick`` shrinks the sizes so a smoke run takes seconds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable


@dataclasses.dataclass(frozen=True)
class Target:
    """One measured figure against its target.

    ``what``: the comparison, read as "<measured> <unit> <what>" ("1.8x the polars one-liner").
    ``at_most``: the figure must not exceed ``limit`` (a ratio of times, MiB); False: must reach it
    (a speed-up over a reference). ``detail``: the raw figures behind the ratio, for the reader who
    doubts it ("10.8 vs 2.3 µs of CPU per row").
    """

    area: str
    what: str
    measured: float
    limit: float
    unit: str = "x"
    at_most: bool = True
    detail: str = ""

    @property
    def met(self) -> bool:
        return self.measured <= self.limit if self.at_most else self.measured >= self.limit

    @property
    def target_text(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {self.limit:g}{self.unit}"


def measured_text(target: Target) -> str:
    digits = 2 if abs(target.measured) < 10 else 1 if abs(target.measured) < 100 else 0
    return f"{target.measured:.{digits}f}{target.unit}"


def markdown_table(targets: Iterable[Target]) -> str:
    """The targets as a Markdown table: area, what, measured, target, met, and the raw figures."""
    lines = [
        "| area | what | measured | target | met | figures |",
        "|---|---|---|---|---|---|",
    ]
    for target in targets:
        met = "yes" if target.met else "**no**"
        lines.append(
            f"| {target.area} | {target.what} | {measured_text(target)} | {target.target_text} | {met} "
            f"| {target.detail} |"
        )
    return "\n".join(lines)


def print_targets(targets: Iterable[Target]) -> bool:
    """Print each target's line; True when every one is met (a bench's exit status)."""
    met = True
    for target in targets:
        met &= target.met
        verdict = "PASS" if target.met else "FAIL"
        print(
            f"  {target.area:<10} {target.what:<58} {measured_text(target):>10}  "
            f"target {target.target_text:<8} {verdict}  {target.detail}",
            flush=True,
        )
    return met
