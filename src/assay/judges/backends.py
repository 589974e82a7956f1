"""Judge backends by kind: ``--judge KIND:...`` and ``kind = "KIND"`` in assay.toml's ``[[judge.chain]]``
ask the backend registered for KIND.

A backend is a ``JudgeBackend``: its kind, the short form of its spec (for ``--help`` and errors), how the
part after ``KIND:`` reads as settings, the settings only it takes (with their types), and a factory that
makes the Judge from the checked settings (``JudgeArgs``). The built-ins are ``openai``, ``llama`` and
``scripted`` (a double for tests, judges.scripted). Another package adds a backend through an entry point
in the group ``assay.judges`` whose object is a JudgeBackend (or a list of them)::

    [project.entry-points."assay.judges"]
    mine = "my_package.judges:BACKEND"

or in process with ``JUDGES.register(backend)``. A plug-in that fails to load or takes a kind already
used stops the first judge spec read with one error naming its entry point (assay.registry).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..registry import Registry
from ._base import Judge, Prices, Sampling

PLUGIN_GROUP = "assay.judges"
SETTING_TYPES = (str, int, float)


@dataclass(frozen=True)
class JudgeArgs:
    """What a backend's factory is given: its checked settings by name (numbers as numbers), the
    sampling and prices every judge has, its request rate, and where the spec came from (for errors)."""

    values: Mapping[str, Any]
    sampling: Sampling
    prices: Prices
    requests_per_second: float | None
    where: str


@dataclass(frozen=True)
class JudgeBackend:
    """One kind of judge (``openai``): the spec's short form, and how the Judge is made."""

    kind: str
    form: str  # the short form as --help writes it: "openai:MODEL@BASE_URL"
    short: Callable[[str], Mapping[str, str]] = field(repr=False)  # "MODEL@URL" -> its settings
    make: Callable[[JudgeArgs], Judge] = field(repr=False)
    settings: Mapping[str, type] = field(default_factory=dict)  # the settings only this kind takes

    def __post_init__(self) -> None:
        if not self.kind or not self.kind.isidentifier():
            raise UsageError(
                f"a judge backend's kind {self.kind!r} is not a plain name",
                fix="give a kind of letters, digits and _ (the spec is then KIND:...)",
            )
        wrong = sorted(name for name, kind in self.settings.items() if kind not in SETTING_TYPES)
        if wrong:
            raise UsageError(
                f"judge backend {self.kind!r}: setting {wrong[0]!r} is not of str, int or float",
                fix="declare each setting's type as str, int or float",
            )


# The built-ins load on first use; their factories import their modules (httpx, llama-cpp) only when called.
JUDGES: Registry[JudgeBackend] = Registry(
    "judge backend",
    PLUGIN_GROUP,
    {
        "openai": "assay.judges._built_in:OPENAI",
        "llama": "assay.judges._built_in:LLAMA",
        "scripted": "assay.judges.scripted:SCRIPTED",
    },
    accepts=JudgeBackend,
    name_of=lambda backend: backend.kind,
    named="kind",
)


def judge_forms() -> str:
    """The short forms of every judge kind, for help texts and errors: "openai:MODEL@BASE_URL or ..."."""
    forms = [JUDGES[kind].form for kind in JUDGES]
    return ", ".join(forms[:-1]) + " or " + forms[-1] if len(forms) > 1 else "".join(forms)


def judge_kinds() -> str:
    """The kinds, for an error's fix: "openai, llama or scripted"."""
    kinds = list(JUDGES)
    return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else "".join(kinds)


def backend_settings() -> dict[str, dict[str, type]]:
    """Each kind's own settings with their types (a broken plug-in stops here, naming itself)."""
    JUDGES.check()
    return {kind: dict(JUDGES[kind].settings) for kind in JUDGES}


__all__ = [
    "JUDGES",
    "PLUGIN_GROUP",
    "JudgeArgs",
    "JudgeBackend",
    "backend_settings",
    "judge_forms",
    "judge_kinds",
]
