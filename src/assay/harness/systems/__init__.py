"""The systems under test of ``assay run``: one protocol (base.System) and adapters chosen by the prefix of
the spec (adapters.SYSTEMS, where other packages register theirs by the entry point group ``assay.systems``):

    pkg.module:function, path/to/file.py:function   a Python callable, in process (inprocess.py)
    openai:BASE_URL                                  an OpenAI-compatible chat endpoint (openai_chat.py)
    http:URL (or the URL itself)                     a plain JSON endpoint (json_http.py)
    scripted:FILE.json                               replies from a JSON script, a test double (scripted.py)

(``spec_forms()`` and ``spec_table()`` list them from the registry, plug-ins included.)
Options come from ``--system-option KEY=VALUE`` (repeatable) and from the ``[system]`` table of an
assay.toml (``load_system_config``), whose keys are:

    spec       the system, when the command line names none
    options    a table of the same options as --system-option (the command line's win)
    request    json_http's body template;  response: json_http's reply mapping
    headers    HTTP headers of either HTTP adapter; "${VAR}" in a value is read from the environment

The HTTP adapters, and httpx with them, load only when such a system is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...config_file import read_config
from ...errors import UsageError
from ...net import display_url, register_url
from .adapters import ADAPTER_KEYS, SYSTEMS, SystemAdapter, SystemSpec, adapter_for, readers_of, spec_forms
from .base import System, SystemFailure, TransportError, answer_from
from .citations import citations_in_text
from .scripted import ScriptedSystem

CONFIG_KEYS = ("spec", "options", *ADAPTER_KEYS)


def load_system(
    spec: str, options: Mapping[str, str] | None = None, config: Mapping[str, object] | None = None
) -> System:
    """The system a spec names, with its options (the command line's) and the [system] table of an
    assay.toml (`config`, as load_system_config returns it); UsageError with the fix for a bad one.
    An empty spec is the config's ``spec``, when it has one."""
    table = dict(config or {})
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise UsageError(f"[system] has no key {unknown[0]!r}", fix=f"use: {', '.join(CONFIG_KEYS)}")
    settings = {**_options_table(table.get("options")), **dict(options or {})}
    _register_passwords(settings)
    spec = spec.strip() or str(table.get("spec") or "").strip()
    if not spec:
        raise UsageError(
            "no system to ask", fix=f"give --system as {spec_forms()}, or spec = ... in assay.toml's [system]"
        )
    adapter = adapter_for(spec)
    if adapter is not None:
        _refuse_keys(table, adapter.reads, adapter.prefix)
        target = spec if spec.startswith(("http://", "https://")) else spec.partition(":")[2]
        return adapter.make(SystemSpec(spec, target, settings, table))
    if ":" not in spec or "://" in spec:  # no module path holds "://": a mistyped prefix ("opnai:http://")
        shown = display_url(spec)  # never a URL's password, in this message or any other
        what = (
            f"no system adapter has the prefix of {shown!r}"
            if "://" in spec
            else f"cannot read the system spec {shown!r}"
        )
        raise UsageError(what, fix=f"give --system as {spec_forms()}")
    from .inprocess import inprocess_system

    _refuse_keys(table, (), "in-process")
    return inprocess_system(spec, settings)


def system_options(pairs: Sequence[str]) -> dict[str, str]:
    """The options of repeated ``--system-option KEY=VALUE`` flags; UsageError for a pair without '=',
    an empty key, or a key given twice (the second would silently win)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise UsageError(f"--system-option {pair!r} is not KEY=VALUE", fix="write it as top_k=5")
        if key in options:
            raise UsageError(f"--system-option {key} is given twice", fix="give each option once")
        options[key] = value
    return options


def _register_passwords(settings: Mapping[str, object]) -> None:
    """The userinfo of a URL given as an option (an in-process system's ``endpoint=http://u:pw@...``)
    is a secret like the system's own: redacted from what the system replies (net.redact)."""
    for value in settings.values():
        if isinstance(value, str) and "://" in value:
            register_url(value.strip())


def _options_table(options: object) -> dict[str, object]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise UsageError("[system] options is not a table", fix="write [system.options] with key = value")
    return {str(key): value for key, value in options.items()}


def _refuse_keys(table: Mapping[str, object], reads: tuple[str, ...], kind: str) -> None:
    """A setting only other kinds of system read is a mistake here, not a no-op."""
    given = [key for key in ADAPTER_KEYS if key in table and key not in reads]
    if given:
        raise UsageError(
            f"[system] {given[0]} is for {readers_of(given[0])} systems, and this one is {kind}",
            fix="leave it out, or name the system it is for",
        )


def load_system_config(path: str | Path) -> dict[str, Any]:
    """The [system] table of an assay.toml ({} when it has none), its keys checked; UsageError for a
    file that cannot be read or is not TOML (config_file.read_config, as the judges' [judge] is)."""
    path = Path(path)
    document = read_config(path)
    section = document.get("system", {})
    if not isinstance(section, dict):
        raise UsageError(
            "system is not a [system] table", where=str(path), fix="write the settings under [system]"
        )
    unknown = sorted(set(section) - set(CONFIG_KEYS))
    if unknown:
        raise UsageError(
            f"[system] has no key {unknown[0]!r}", where=str(path), fix=f"use: {', '.join(CONFIG_KEYS)}"
        )
    if "spec" in section and not isinstance(section["spec"], str):
        raise UsageError(
            "[system] spec is not a text", where=str(path), fix='write spec = "openai:http://..."'
        )
    return dict(section)


__all__ = [
    "CONFIG_KEYS",
    "SYSTEMS",
    "ScriptedSystem",
    "System",
    "SystemAdapter",
    "SystemFailure",
    "SystemSpec",
    "TransportError",
    "answer_from",
    "citations_in_text",
    "load_system",
    "load_system_config",
    "spec_forms",
    "system_options",
]
