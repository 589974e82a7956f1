"""System adapters by spec prefix: ``--system PREFIX:TARGET`` asks the adapter registered for PREFIX.

An adapter is a ``SystemAdapter``: its prefix, the form its spec takes (for ``--help`` and errors), what
it is, the ``[system]`` keys of assay.toml it reads besides ``spec`` and ``options``, and a factory that
makes the System from a ``SystemSpec``. The built-ins are ``openai`` and ``http``; a spec whose prefix
no adapter has is a Python callable in process (``pkg.module:function``, ``path/to/file.py:function``).
Another package adds an adapter through an entry point in the group ``assay.systems`` whose object is a
SystemAdapter (or a list of them)::

    [project.entry-points."assay.systems"]
    echo = "my_package.systems:ECHO"

or in process with ``SYSTEMS.register(adapter)``. A plug-in that fails to load, or takes a prefix already
used, stops ``load_system`` with one error naming its entry point (assay.registry).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...errors import UsageError
from ...registry import Registry
from .base import System

PLUGIN_GROUP = "assay.systems"
# The keys of [system] that a spec's adapter may read (the others are options, or the spec itself).
ADAPTER_KEYS = ("request", "response", "headers")


@dataclass(frozen=True)
class SystemSpec:
    """What an adapter's factory is given: the spec as written, the part after ``PREFIX:``, the options
    (``--system-option`` over ``[system.options]``) and the ``[system]`` table of assay.toml."""

    spec: str
    target: str
    options: Mapping[str, object] = field(default_factory=dict)
    config: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class SystemAdapter:
    """One kind of system under test, chosen by the prefix of its spec (``openai`` for ``openai:URL``)."""

    prefix: str
    form: str  # the spec as --help writes it: "openai:BASE_URL"
    description: str  # what it is: "an OpenAI-compatible chat endpoint"
    make: Callable[[SystemSpec], System] = field(repr=False)
    reads: tuple[str, ...] = ()  # the [system] keys of ADAPTER_KEYS it reads

    def __post_init__(self) -> None:
        if not self.prefix or not self.prefix.isidentifier():
            raise UsageError(
                f"a system adapter's prefix {self.prefix!r} is not a plain name",
                fix="give a prefix of letters, digits and _ (the spec is then PREFIX:...)",
            )
        unknown = sorted(set(self.reads) - set(ADAPTER_KEYS))
        if unknown:
            raise UsageError(
                f"system adapter {self.prefix!r} reads [system] {unknown[0]!r}, which is no key of it",
                fix=f"read only: {', '.join(ADAPTER_KEYS)}",
            )


# The built-ins load on first use; their factories import their modules (and httpx) only when called.
SYSTEMS: Registry[SystemAdapter] = Registry(
    "system adapter",
    PLUGIN_GROUP,
    {
        "openai": "assay.harness.systems._built_in:OPENAI",
        "http": "assay.harness.systems._built_in:HTTP",
        "scripted": "assay.harness.systems.scripted:SCRIPTED",
    },
    accepts=SystemAdapter,
    name_of=lambda adapter: adapter.prefix,
    named="prefix",
)

# The one form with no prefix: a spec whose prefix no adapter has.
IN_PROCESS_FORM = "pkg.module:function, path/to/file.py:function"
IN_PROCESS_DESCRIPTION = "a Python callable, in process"


def spec_forms() -> str:
    """Every form --system takes, for help texts and errors: built from the registry."""
    forms = [IN_PROCESS_FORM, *(SYSTEMS[prefix].form for prefix in SYSTEMS)]
    return ", ".join(forms[:-1]) + " or " + forms[-1]


def spec_table() -> list[tuple[str, str]]:
    """(form, description) of every kind of system, in process first: the docs' table."""
    return [
        (IN_PROCESS_FORM, IN_PROCESS_DESCRIPTION),
        *((SYSTEMS[prefix].form, SYSTEMS[prefix].description) for prefix in SYSTEMS),
    ]


def adapter_for(spec: str) -> SystemAdapter | None:
    """The adapter of a spec's prefix (a URL is the http adapter's), or None: in process."""
    if spec.startswith(("http://", "https://")):
        return SYSTEMS.get_or_fail("http")
    prefix, colon, _ = spec.partition(":")
    if not colon or not prefix.isidentifier():
        return None
    SYSTEMS.check()  # a broken plug-in may be the one this prefix names: say so, never run without it
    return SYSTEMS.get(prefix)


def readers_of(key: str) -> str:
    """The adapters that read a [system] key, for an error: "http or openai"."""
    prefixes = sorted(prefix for prefix in SYSTEMS if key in SYSTEMS[prefix].reads)
    return " or ".join(prefixes)


__all__ = [
    "ADAPTER_KEYS",
    "IN_PROCESS_FORM",
    "PLUGIN_GROUP",
    "SYSTEMS",
    "SystemAdapter",
    "SystemSpec",
    "adapter_for",
    "readers_of",
    "spec_forms",
    "spec_table",
]
