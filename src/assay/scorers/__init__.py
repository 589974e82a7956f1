"""The built-in scorers, and the registry of every scorer by name (``assay.scorer_registry``, re-exported).

A plugin is a package declaring an entry point in the group ``assay.scorers`` whose object is a
``Scorer`` or a list of them::

    [project.entry-points."assay.scorers"]
    my_metric = "my_package.scorers:MY_METRIC"

Plugins load on the registry's first use. One that fails to load, gives something else than Scorers, or
takes a built-in's (or another plugin's) name is left out and remembered: scoring then stops with one
clear error naming the entry point (``check_plugins``), never a traceback, while ``--help`` still works.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..metric import Evidence, MetricScores, Outcome, RunView, Scorer, Seen, SeenRows
from ..scorer_registry import BUILT_IN as BUILT_IN_DECLARED
from ..scorer_registry import PLUGIN_GROUP, SCORERS, check_plugins, get_scorer


def __getattr__(name: str) -> Any:
    """``BUILT_IN`` and ``DEFAULT_METRICS``, made on first use: they load every built-in scorer, which
    importing this package (as every scoring run does) must not."""
    if name == "BUILT_IN":
        return _built_in()
    if name == "DEFAULT_METRICS":
        return _default_metrics()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _built_in() -> Mapping[str, Scorer]:
    """The built-in scorers by name, loaded (the registry loads each on first use; this loads them all)."""
    return MappingProxyType({name: SCORERS[name] for name in SCORERS.built_in_names()})


@functools.cache
def _default_metrics() -> tuple[str, ...]:
    """The built-ins that run when no metric is named (``Scorer.default``): the original evaluation
    scripts' pair, phrase_match, and where their inputs exist hard_fact and refusal. The SQuAD, MLQA and
    token scores are one --metric away: on sentence-long responses their exact-match forms are near 0%."""
    return tuple(name for name, declared in BUILT_IN_DECLARED.items() if declared.default)


__all__ = [
    "BUILT_IN",
    "DEFAULT_METRICS",
    "PLUGIN_GROUP",
    "SCORERS",
    "Evidence",
    "MetricScores",
    "Outcome",
    "RunView",
    "Scorer",
    "Seen",
    "SeenRows",
    "check_plugins",
    "get_scorer",
]
