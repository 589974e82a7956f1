"""The built-in system adapters, as the registry (adapters.SYSTEMS) names them: ``openai`` and ``http``.

Each factory imports its adapter's module when it is called, not here: listing the adapters (``--help``,
an error's list of forms) must not load httpx.
"""

from __future__ import annotations

from ...errors import UsageError
from ...net import display_url
from .adapters import SystemAdapter, SystemSpec
from .base import System


def _openai(spec: SystemSpec) -> System:
    from .openai_chat import openai_system  # with httpx: only when such a system is asked for

    return openai_system(spec.spec, spec.target, spec.options, spec.config.get("headers"))


def _http(spec: SystemSpec) -> System:
    from .json_http import json_http_system  # with httpx: only when such a system is asked for

    return json_http_system(spec.spec, http_url(spec.spec), spec.options, spec.config)


def http_url(spec: str) -> str:
    """The URL of an http system's spec: "http:URL", or the URL itself."""
    if spec.startswith(("http://", "https://")):
        return spec
    url = spec.removeprefix("http:")
    if not url.startswith(("http://", "https://")):
        raise UsageError(
            f"--system {display_url(spec)!r}: http: is followed by a URL", fix="write http:http://HOST/PATH"
        )
    return url


OPENAI = SystemAdapter(
    prefix="openai",
    form="openai:BASE_URL",
    description="an OpenAI-compatible chat endpoint (vLLM, llama.cpp's server, Ollama, a gateway)",
    make=_openai,
    reads=("headers",),
)
HTTP = SystemAdapter(
    prefix="http",
    form="http:URL",
    description="a plain JSON endpoint (the URL itself too), mapped by [system] in assay.toml",
    make=_http,
    reads=("request", "response", "headers"),
)
