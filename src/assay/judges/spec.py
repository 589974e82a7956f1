"""Judges named on the command line (``--judge SPEC``) or in a config file (``assay.toml``).

A SPEC is ``openai:MODEL@BASE_URL`` or ``llama:PATH.gguf``, then optional ``,key=value`` settings:

    openai:gpt-4o-mini@https://api.openai.com/v1,api_key_env=OPENAI_API_KEY,price_prompt=0.15
    openai:qwen2.5-7b-instruct@http://127.0.0.1:8000/v1,rps=5
    llama:models/judge.gguf,n_ctx=4096

In ``assay.toml`` each judge of the chain is a ``[[judge.chain]]`` table with the same keys, and
``kind``, ``model``, ``base_url`` (or ``model_path``) spelled out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import regex

from ..config_file import read_config
from ..errors import UsageError
from ._base import Judge, Prices, Sampling
from ._clean import display_url
from .llama_local import LlamaJudge
from .openai_http import OpenAIJudge

_NUMBERS = {
    "timeout": float,
    "retries": int,
    "backoff": float,
    "rps": float,
    "max_tokens": int,
    "temperature": float,
    "seed": int,
    "price_prompt": float,
    "price_completion": float,
    "n_ctx": int,
    "n_threads": int,
}
_POSITIVE = frozenset({"timeout", "rps", "max_tokens", "n_ctx", "n_threads"})  # 0 means nothing here
# The rest may be 0 but not negative: retries, backoff, temperature, seed, the prices.
_TEXTS = ("kind", "model", "base_url", "api_key_env", "model_path")
_ONLY_FOR = {
    "openai": {"model", "base_url", "api_key_env", "timeout", "retries", "backoff"},
    "llama": {"model_path", "n_ctx", "n_threads"},
}
# The [judge] table of assay.toml, besides its chain: each setting and the types it may have.
CONFIG_SETTINGS: dict[str, tuple[type, ...]] = {
    "concurrency": (int,),
    "max_response_chars": (int,),
    "max_cost": (int, float),
    "cache": (str,),
    "cascade": (bool,),
    "system_model": (str,),
    "rubric": (str,),  # the judge rubric by name (--judge-rubric)
}
# Model families by a name their models carry anywhere in their names.
_FAMILIES = {
    "llama": "llama", "qwen": "qwen", "mistral": "mistral", "mixtral": "mistral", "gemma": "gemma",
    "gemini": "gemini", "claude": "claude", "gpt": "gpt", "deepseek": "deepseek", "phi-": "phi",
    "smollm": "smollm", "falcon": "falcon", "granite": "granite", "olmo": "olmo",
}  # fmt: skip
_OPENAI_REASONING = regex.compile(r"(?:^|[/:])o\d")  # o1, o3-mini, o4-mini: OpenAI's models, as gpt-*
_SHORT = regex.compile(r"(?P<kind>openai|llama):(?P<rest>[^,]+)")


def parse_spec(spec: str) -> Judge:
    """A judge from ``kind:...`` and ``,key=value`` settings."""
    head, *pairs = spec.split(",")
    settings: dict[str, Any] = {}
    short = _SHORT.fullmatch(head.strip())
    if short is None:
        pairs.insert(0, head)
    elif short["kind"] == "openai":
        model, at, base_url = short["rest"].partition("@")
        if not at:
            raise _bad(spec, "an openai judge is openai:MODEL@BASE_URL")
        settings |= {"kind": "openai", "model": model, "base_url": base_url}
    else:
        settings |= {"kind": "llama", "model_path": short["rest"]}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals:
            raise _bad(spec, f"'{pair}' is not key=value")
        settings[key.strip()] = value.strip()
    return build_judge(settings, where=f"--judge {display_url(spec)!r}")  # a URL's password: not shown


def build_judge(settings: Mapping[str, Any], where: str) -> Judge:
    unknown = set(settings) - set(_NUMBERS) - set(_TEXTS)
    if unknown:
        known = ", ".join(sorted({*_NUMBERS, *_TEXTS}))
        raise UsageError(
            f"unknown judge setting(s) {', '.join(sorted(unknown))}", where=where, fix=f"use: {known}"
        )
    values: dict[str, Any] = {
        key: _number(key, value, where) if key in _NUMBERS else str(value) for key, value in settings.items()
    }
    if values.get("api_key_env") == "":  # else: "reads its API key from $, which is not set"
        raise UsageError(
            "judge setting api_key_env is empty",
            where=where,
            fix="name the variable, or leave the setting out",
        )
    sampling = Sampling(
        temperature=values.get("temperature", 0.0),
        seed=values.get("seed", 0),
        max_tokens=values.get("max_tokens", 128),
    )
    prices = Prices(values.get("price_prompt", 0.0), values.get("price_completion", 0.0))
    kind = values.get("kind")
    _check_kind_settings(kind, values, where)
    if kind == "openai":
        missing = [key for key in ("model", "base_url") if not values.get(key)]
        if missing:
            raise UsageError(
                f"an openai judge needs {' and '.join(missing)}", where=where, fix="see assay score --help"
            )
        _check_base_url(values["base_url"], where)
        return OpenAIJudge(
            base_url=values["base_url"],
            model=values["model"],
            api_key_env=values.get("api_key_env"),
            timeout=values.get("timeout", 60.0),
            retries=values.get("retries", 3),
            backoff=values.get("backoff", 0.5),
            sampling=sampling,
            prices=prices,
            requests_per_second=values.get("rps"),
        )
    if kind == "llama":
        if not values.get("model_path"):
            raise UsageError("a llama judge needs model_path", where=where, fix="llama:PATH.gguf")
        return LlamaJudge(
            model_path=values["model_path"],
            n_ctx=values.get("n_ctx", 2048),
            n_threads=values.get("n_threads"),
            sampling=sampling,
            prices=prices,
            requests_per_second=values.get("rps"),
        )
    raise UsageError(f"unknown judge kind {kind!r}", where=where, fix="use openai or llama")


def load_config(path: str | Path) -> tuple[list[Judge], dict[str, Any]]:
    """The chain of an ``assay.toml``, and its other [judge] settings (concurrency, cache, ...)."""
    path = Path(path)
    document = read_config(path)
    section = document.get("judge", {})
    if not isinstance(section, dict):
        raise UsageError(
            "judge is not a [judge] table", where=str(path), fix="write the settings under [judge]"
        )
    section = dict(section)
    _check_config_settings(section, path)
    entries = section.pop("chain", [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise UsageError(
            "judge.chain is not a list of tables",
            where=str(path),
            fix='write each judge as a [[judge.chain]] table, with kind = "openai", model and base_url',
        )
    chain = [build_judge(entry, where=f"{path} [[judge.chain]] {i + 1}") for i, entry in enumerate(entries)]
    return chain, section


def _check_config_settings(section: Mapping[str, Any], path: Path) -> None:
    for key, value in section.items():
        if key == "chain":
            continue
        wanted = CONFIG_SETTINGS.get(key)
        if wanted is None:
            known = ", ".join([*CONFIG_SETTINGS, "chain"])
            raise UsageError(f"unknown [judge] setting '{key}'", where=str(path), fix=f"use: {known}")
        if not isinstance(value, wanted) or (bool not in wanted and isinstance(value, bool)):
            kinds = " or ".join(t.__name__ for t in wanted)
            raise UsageError(
                f"[judge] {key} = {value!r} is not {kinds}", where=str(path), fix=f"give {key} a {kinds}"
            )


def _check_base_url(url: str, where: str) -> None:
    """An endpoint the HTTP client can ask: http(s), a host, a port in range (else urlsplit or the
    client raises a ValueError of its own, deep in the run, for 'http://[::1' or port 99999)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it checks the range)
    except ValueError as exc:
        raise UsageError(f"the base URL cannot be read ({exc})", where=where, fix=_URL_FIX) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:  # not shown: it may hold a secret
        raise UsageError("the base URL is not an http:// or https:// address", where=where, fix=_URL_FIX)


_URL_FIX = "give an address like http://127.0.0.1:8080/v1"


def _check_kind_settings(kind: Any, values: Mapping[str, Any], where: str) -> None:
    """A setting of the other kind of judge (n_ctx on an openai judge) is a mistake, not a no-op."""
    if kind not in _ONLY_FOR:
        return
    others = set().union(*(keys for other, keys in _ONLY_FOR.items() if other != kind)) - _ONLY_FOR[kind]
    wrong = sorted(set(values) & others)
    if wrong:
        raise UsageError(f"a {kind} judge has no setting {', '.join(wrong)}", where=where, fix="leave it out")


def model_family(model: str) -> str:
    """The family of a model by its name: a known family's name anywhere in it (Meta-Llama-3.1-8B ->
    llama, Qwen2.5-7B -> qwen, o3-mini -> gpt), else the first run of letters of its last path part."""
    name = model.strip().lower()
    found = next((family for marker, family in _FAMILIES.items() if marker in name), None)
    if found is not None:
        return found
    if _OPENAI_REASONING.search(name):
        return "gpt"
    last = regex.split(r"[/\\]", name)[-1]
    letters = regex.match(r"[a-z]+", last)
    return str(letters.group()) if letters else last


def _number(key: str, value: Any, where: str) -> Any:
    """A setting's number, refused when it makes no sense (a timeout of 0, -1 retries, NaN)."""
    try:
        number = _NUMBERS[key](value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(
            f"judge setting {key}={value!r} is not a number", where=where, fix=f"give {key} a number"
        ) from None
    if not math.isfinite(number):
        raise UsageError(f"judge setting {key}={value!r} is not finite", where=where, fix="give a number")
    if key in _POSITIVE and number <= 0:
        raise UsageError(
            f"judge setting {key}={value!r} must be more than 0", where=where, fix=f"give {key} > 0"
        )
    if number < 0:
        raise UsageError(
            f"judge setting {key}={value!r} must not be negative", where=where, fix=f"give {key} >= 0"
        )
    return number


def _bad(spec: str, what: str) -> UsageError:
    return UsageError(
        f"cannot read the judge spec {display_url(spec)!r}: {what}",
        fix="write openai:MODEL@BASE_URL or llama:PATH.gguf, then ,key=value settings",
    )
