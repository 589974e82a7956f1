"""The systems under test of ``assay run``: one protocol (base.System) and three adapters, chosen by the
form of the spec:

    pkg.module:function, path/to/file.py:function   a Python callable, in process (inprocess.py)
    openai:BASE_URL                                  an OpenAI-compatible chat endpoint (openai_chat.py)
    http:URL (or the URL itself)                     a plain JSON endpoint (json_http.py)

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
from .base import Answer, System, SystemFailure, TransportError, answer_from
from .citations import citations_in_text

CONFIG_KEYS = ("spec", "options", "request", "response", "headers")
_HTTP_ONLY = {"request": "http", "response": "http", "headers": "http or openai"}
SPEC_FORMS = "pkg.module:function, path/to/file.py:function, openai:BASE_URL or http:URL"


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
    spec = spec.strip() or str(table.get("spec") or "").strip()
    if not spec:
        raise UsageError(
            "no system to ask", fix=f"give --system as {SPEC_FORMS}, or spec = ... in assay.toml's [system]"
        )
    if spec.startswith("openai:"):
        from .openai_chat import openai_system

        _refuse_keys(table, ("request", "response"), "openai")
        return openai_system(spec, spec.removeprefix("openai:"), settings, table.get("headers"))
    url = _http_url(spec)
    if url is not None:
        from .json_http import json_http_system

        return json_http_system(spec, url, settings, table)
    if ":" not in spec:
        raise UsageError(f"cannot read the system spec {spec!r}", fix=f"give --system as {SPEC_FORMS}")
    from .inprocess import inprocess_system

    _refuse_keys(table, ("request", "response", "headers"), "in-process")
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


def _http_url(spec: str) -> str | None:
    """The URL of an http system's spec ("http:URL", or the URL itself), else None."""
    if spec.startswith(("http://", "https://")):
        return spec
    if spec.startswith("http:"):
        url = spec.removeprefix("http:")
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"--system {spec!r}: http: is followed by a URL", fix="write http:http://HOST/PATH")
        return url
    return None


def _options_table(options: object) -> dict[str, object]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise UsageError("[system] options is not a table", fix="write [system.options] with key = value")
    return {str(key): value for key, value in options.items()}


def _refuse_keys(table: Mapping[str, object], keys: tuple[str, ...], kind: str) -> None:
    """A setting another kind of system reads is a mistake here, not a no-op."""
    given = [key for key in keys if key in table]
    if given:
        raise UsageError(
            f"[system] {given[0]} is for {_HTTP_ONLY[given[0]]} systems, and this one is {kind}",
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
        raise UsageError("[system] spec is not a text", where=str(path), fix='write spec = "openai:http://..."')
    return dict(section)


__all__ = [
    "CONFIG_KEYS",
    "Answer",
    "System",
    "SystemFailure",
    "TransportError",
    "answer_from",
    "citations_in_text",
    "load_system",
    "load_system_config",
    "system_options",
]
