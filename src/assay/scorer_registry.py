"""The scorers by name, for the core: the built-ins (named by ``"module:attribute"`` strings and loaded on
first use, so that the core lists them without importing ``assay.scorers``), plugins' entry points in the
group ``assay.scorers``, and scorers registered in process (``SCORERS.register``).

A plugin is a package declaring an entry point whose object is a ``Scorer`` or a list of them::

    [project.entry-points."assay.scorers"]
    my_metric = "my_package.scorers:MY_METRIC"

One that fails to load, gives something else than Scorers, or takes a built-in's (or another plugin's) name is
left out and remembered: scoring then stops with one clear error naming the entry point (``check_plugins``),
never a traceback, while ``--help`` still works.

What the reports and other metrics read a scorer for (the review list, a cascade's matchers, the default
agreement pair) is declared on the scorers (``Scorer.review``, ``cascade``, ``agrees_with``) and read here,
never listed by name in the core.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from .errors import UsageError
from .metric import OPTIONAL, Scorer
from .registry import Registry

PLUGIN_GROUP = "assay.scorers"


class Declared(NamedTuple):
    """What a run and its report read of a built-in scorer before it runs, known without importing its
    module (which may be costly: value_match's and grounded's load the value reader): where it lives,
    whether it runs when no metric is named (``Scorer.default``), and its inputs (``Scorer.inputs``).
    tests/scorers/test_declared.py checks each against the scorer's own."""

    target: str  # "module:attribute"
    default: bool = True
    inputs: tuple[str, ...] = ()


_REFUSAL_INPUTS = ("gold.expected_refusal", "reply.blocked?", "id", "question")
_VALUE_INPUTS = (
    "gold.value?",
    "gold.unit?",
    "gold.value_type?",
    "gold.field?",
    "gold.source_title?",
    "question",
)
_GROUNDED_INPUTS = (
    "sources?", "gold.source_path?", "scope?", "reply.citations", "reply.contexts?", "gold.source_document?",
    "gold.source_title?", "gold.quote?", "gold.page?", "gold.expected_refusal?", "gold.field?", "question",
    "gold.value?", "gold.unit?", "gold.value_type?",
)  # fmt: skip
# The built-ins, in the order runs list them: the original evaluation scripts' pair first.
BUILT_IN: Mapping[str, Declared] = MappingProxyType({
    "exact_substring": Declared("assay.scorers.seed:EXACT_SUBSTRING"),
    "word_overlap": Declared("assay.scorers.seed:WORD_OVERLAP"),
    "phrase_match": Declared("assay.scorers.unicode:PHRASE_MATCH"),
    "token_f1": Declared("assay.scorers.unicode:TOKEN_F1", default=False),
    "token_em": Declared("assay.scorers.unicode:TOKEN_EM", default=False),
    "squad_em": Declared("assay.scorers.squad:SQUAD_EM", default=False),
    "squad_f1": Declared("assay.scorers.squad:SQUAD_F1", default=False),
    "mlqa_em": Declared("assay.scorers.squad:MLQA_EM", default=False, inputs=("lang",)),
    "mlqa_f1": Declared("assay.scorers.squad:MLQA_F1", default=False, inputs=("lang",)),
    "hard_fact": Declared("assay.scorers.hard_fact:HARD_FACT", inputs=("gold.expected_regex", "id")),
    "value_match": Declared("assay.scorers.value_match:VALUE_MATCH", default=False, inputs=_VALUE_INPUTS),
    "grounded": Declared("assay.scorers.grounded:GROUNDED", default=False, inputs=_GROUNDED_INPUTS),
    "refusal": Declared("assay.scorers.refusal:REFUSAL", inputs=_REFUSAL_INPUTS),
})  # fmt: skip
BUILT_IN_TARGETS = {name: declared.target for name, declared in BUILT_IN.items()}

SCORERS: Registry[Scorer] = Registry(
    "scorer",
    PLUGIN_GROUP,
    BUILT_IN_TARGETS,
    Scorer,
    name_of=lambda scorer: scorer.name,
    named="metric",
)


def declaration(name: str) -> Declared:
    """What a run reads of the metric `name` before it runs (``Declared``): a built-in's from the table,
    without loading it; a plugin's or a registered scorer's from the scorer. KeyError: not registered."""
    found = BUILT_IN.get(name)
    if found is not None:
        return found
    scorer = SCORERS[name]
    return Declared("", scorer.default, scorer.inputs)


def check_plugins() -> None:
    """Stop with the first broken plugin's error (scoring with a plugin half-loaded would mislead)."""
    SCORERS.check()


def get_scorer(name: str) -> Scorer:
    """The scorer `name`; an unknown name is a UsageError listing the known metrics (and a broken plugin's
    own error first, since the name may be its)."""
    return SCORERS.get_or_fail(name, "metric")


def declared(flag: str, among: Sequence[str] | None = None) -> tuple[str, ...]:
    """The registered metrics (or those of `among` that are registered) whose Scorer declares `flag`
    (``review``, ``cascade``), in registry order."""
    names = SCORERS if among is None else [name for name in SCORERS if name in among]
    return tuple(name for name in names if getattr(SCORERS[name], flag))


def default_pair() -> tuple[str, str] | None:
    """The agreement pair a summary reports when none is named: the first scorer declaring ``agrees_with``
    (the original evaluation scripts' pair, exact_substring and word_overlap), or None."""
    for name in SCORERS.built_in_names():
        other = SCORERS[name].agrees_with
        if other is not None:
            return name, other
    return None


def scorer_of(metric: str | Scorer) -> Scorer:
    """A metric named or given as a Scorer, as its Scorer."""
    if isinstance(metric, Scorer):
        return metric
    if not isinstance(metric, str):
        raise UsageError(
            f"a {type(metric).__name__} was given where a metric is wanted",
            fix="name a metric (a str) or give an assay.Scorer",
        )
    return get_scorer(metric)


def plan(metrics: Sequence[str | Scorer]) -> list[Scorer]:
    """The scorers of a run, in the order they are scored: the metrics asked for (named, or given as Scorers)
    and every metric one of them needs, not yet asked for, after them; row scorers before run scorers (which
    may read them), and each run scorer after the run scorers it needs. A need no registry knows, or a
    cycle of needs, is a UsageError before any work."""
    chosen: dict[str, Scorer] = {}
    for metric in metrics:
        scorer = scorer_of(metric)
        chosen.setdefault(scorer.name, scorer)
    queue = list(chosen.values())
    for scorer in queue:  # grows with the needs' needs
        for need in scorer.needs:
            if not need.endswith(OPTIONAL) and need not in chosen:
                chosen[need] = _needed(scorer, need)
                queue.append(chosen[need])
    rows = [scorer for scorer in chosen.values() if not scorer.by_run]
    return rows + _in_needs_order(chosen)


def _needed(scorer: Scorer, need: str) -> Scorer:
    try:
        return SCORERS[need]
    except KeyError:
        SCORERS.check()
        raise UsageError(
            f"the metric {scorer.name!r} needs the metric {need!r}, which no registry knows",
            fix=f"install or register the scorer {need!r}, or name the need {need}{OPTIONAL} to read it "
            f"only when it runs; known metrics: {', '.join(SCORERS)}",
        ) from None


def _in_needs_order(chosen: Mapping[str, Scorer]) -> list[Scorer]:
    """The run scorers of `chosen`, each after every run scorer it needs (otherwise as given); a cycle of
    needs among any of them is a UsageError."""
    placed: dict[str, Scorer] = {}
    done: set[str] = set()
    visiting: list[str] = []

    def place(scorer: Scorer) -> None:
        if scorer.name in done:
            return
        if scorer.name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(scorer.name) :], scorer.name])
            raise UsageError(
                f"the metrics' needs make a cycle: {cycle}",
                fix="no metric may need, directly or through others, its own verdicts",
            )
        visiting.append(scorer.name)
        for need in scorer.needs:
            found = chosen.get(need.removesuffix(OPTIONAL))
            if found is not None:
                place(found)
        visiting.pop()
        done.add(scorer.name)
        if scorer.by_run:
            placed[scorer.name] = scorer

    for scorer in chosen.values():
        place(scorer)
    return list(placed.values())
