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

from collections.abc import Mapping
from types import MappingProxyType

from ..metric import Evidence, MetricScores, Outcome, RunView, Scorer, Seen, SeenRows
from ..scorer_registry import PLUGIN_GROUP, SCORERS, check_plugins, get_scorer

# The built-in scorers by name, loaded (the registry loads each on first use; this loads them all).
BUILT_IN: Mapping[str, Scorer] = MappingProxyType({name: SCORERS[name] for name in SCORERS.built_in_names()})

# The built-ins that run when no metric is named (``Scorer.default``): the original evaluation scripts'
# pair, phrase_match, and where their inputs exist hard_fact and refusal. The SQuAD, MLQA and token scores are
# one --metric away: on sentence-long responses their exact-match forms are near 0%.
DEFAULT_METRICS = tuple(name for name, scorer in BUILT_IN.items() if scorer.default)

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
