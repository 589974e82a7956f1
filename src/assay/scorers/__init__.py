"""Scorers registered by name: the built-ins, and plugins from other packages.

A plugin is a package declaring an entry point in the group ``assay.scorers`` whose object is a
``Scorer`` or a list of them::

    [project.entry-points."assay.scorers"]
    my_metric = "my_package.scorers:MY_METRIC"

Plugins load on the registry's first use. One that fails to load, gives something else than Scorers, or
takes a built-in's (or another plugin's) name is left out and remembered: scoring then stops with one
clear error naming the entry point (``check_plugins``), never a traceback, while ``--help`` still works.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ..errors import UsageError
from ._base import Evidence, MetricScores, Outcome, Scorer, Seen, SeenRows
from .grounded import GROUNDED
from .hard_fact import HARD_FACT
from .refusal import REFUSAL
from .seed import EXACT_SUBSTRING, WORD_OVERLAP
from .squad import MLQA_EM, MLQA_F1, SQUAD_EM, SQUAD_F1
from .unicode import PHRASE_MATCH, TOKEN_EM, TOKEN_F1
from .value_match import VALUE_MATCH

JUDGE = "judge"  # the LLM judge's metric: not a Scorer (see assay.judges), scored from score() all the same
PLUGIN_GROUP = "assay.scorers"

BUILT_IN: Mapping[str, Scorer] = MappingProxyType(
    {
        s.name: s
        for s in (
            EXACT_SUBSTRING,
            WORD_OVERLAP,
            PHRASE_MATCH,
            TOKEN_F1,
            TOKEN_EM,
            SQUAD_EM,
            SQUAD_F1,
            MLQA_EM,
            MLQA_F1,
            HARD_FACT,
            VALUE_MATCH,
            GROUNDED,
            REFUSAL,
        )
    }
)

# The built-ins that run when no metric is named (``Scorer.default``): the original evaluation scripts'
# pair, phrase_match, and where their inputs exist hard_fact, the MLQA scores and refusal. The SQuAD and token
# scores are one --metric away: on sentence-long responses their exact-match forms are near 0%.
DEFAULT_METRICS = tuple(name for name, scorer in BUILT_IN.items() if scorer.default)


class Registry(Mapping[str, Scorer]):
    """The built-in scorers, then the plugins' (loaded on first use), by name."""

    def __init__(self, built_in: Mapping[str, Scorer]) -> None:
        self._built_in = built_in
        self._all: dict[str, Scorer] | None = None
        self.errors: list[UsageError] = []  # the plugins left out, and why

    def _scorers(self) -> dict[str, Scorer]:
        if self._all is None:
            self._all = dict(self._built_in)
            for entry_point in importlib.metadata.entry_points(group=PLUGIN_GROUP):
                self._add_plugin(entry_point)
        return self._all

    def _add_plugin(self, entry_point: importlib.metadata.EntryPoint) -> None:
        assert self._all is not None
        where = f"entry point '{entry_point.name} = {entry_point.value}' (group {PLUGIN_GROUP})"
        package = entry_point.dist.name if entry_point.dist is not None else "its package"
        try:
            loaded = entry_point.load()
        except Exception as exc:  # a plugin's own bug: named, not a traceback
            self.errors.append(
                UsageError(
                    f"the scorer plugin failed to load ({type(exc).__name__}: {exc})",
                    where=where,
                    fix=f"fix or uninstall {package}",
                )
            )
            return
        found = list(loaded) if isinstance(loaded, (list, tuple)) else [loaded]
        for scorer in found:
            if not isinstance(scorer, Scorer):
                self.errors.append(
                    UsageError(
                        f"the scorer plugin gives a {type(scorer).__name__}, not an assay Scorer",
                        where=where,
                        fix="point the entry point at a Scorer (assay.Scorer) or a list of them",
                    )
                )
            elif scorer.name in self._all or scorer.name == JUDGE:
                owner = (
                    "a built-in metric"
                    if scorer.name in self._built_in or scorer.name == JUDGE
                    else "another plugin"
                )
                self.errors.append(
                    UsageError(
                        f"the scorer plugin's metric '{scorer.name}' has the name of {owner}; it is refused",
                        where=where,
                        fix=f"give the plugin's Scorer another name (in {package})",
                    )
                )
            else:
                self._all[scorer.name] = scorer

    def __getitem__(self, name: str) -> Scorer:
        return self._scorers()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scorers())

    def __len__(self) -> int:
        return len(self._scorers())

    def __contains__(self, name: object) -> bool:
        return name in self._scorers()

    def reload(self) -> None:
        """Forget the plugins, to find them again on next use (after installing one in-process)."""
        self._all, self.errors = None, []


SCORERS = Registry(BUILT_IN)


def check_plugins() -> None:
    """Stop with the first broken plugin's error (scoring with a plugin half-loaded would mislead)."""
    SCORERS._scorers()
    if SCORERS.errors:
        raise SCORERS.errors[0]


def get_scorer(name: str) -> Scorer:
    try:
        return SCORERS[name]
    except KeyError:
        check_plugins()  # the metric may be a plugin's that failed to load: say so
        known = ", ".join(SCORERS)
        raise UsageError(f"unknown metric '{name}'", fix=f"use one of: {known}") from None


__all__ = [
    "BUILT_IN",
    "DEFAULT_METRICS",
    "JUDGE",
    "PLUGIN_GROUP",
    "SCORERS",
    "Evidence",
    "MetricScores",
    "Outcome",
    "Scorer",
    "Seen",
    "SeenRows",
    "check_plugins",
    "get_scorer",
]
