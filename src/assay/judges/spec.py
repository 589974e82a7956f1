"""Judges named on the command line (``--judge SPEC``) or in a config file (``assay.toml``).

A SPEC is a backend's short form (``openai:MODEL@BASE_URL``, ``llama:PATH.gguf``, ``scripted:FILE.json``:
the kinds of backends.JUDGES, where other packages register theirs), then optional ``,key=value`` settings:

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

import regex

from ..config_file import read_config
from ..errors import UsageError
from ..net import display_url
from ._base import Judge, Prices, Sampling
from .backends import JUDGES, JudgeArgs, backend_settings, judge_forms, judge_kinds

# The settings every judge takes, whatever its kind (each kind adds its own: JudgeBackend.settings).
_COMMON: dict[str, type] = {
    "kind": str,
    "rps": float,
    "max_tokens": int,
    "temperature": float,
    "seed": int,
    "price_prompt": float,
    "price_completion": float,
}
_POSITIVE = frozenset({"timeout", "rps", "max_tokens", "n_ctx", "n_threads"})  # 0 means nothing here
# The rest may be 0 but not negative: retries, backoff, temperature, seed, the prices.
# The [judge] table of assay.toml, besides its chain: each setting and the types it may have.
CONFIG_SETTINGS: dict[str, tuple[type, ...]] = {
    "concurrency": (int,),
    "max_response_chars": (int,),
    "max_cost": (int, float),
    "cache": (str,),
    "cascade": (bool,),
    "system_model": (str,),
    "rubric": (str,),  # the judge rubric by name (--judge-rubric)
    "jury": (str,),  # a jury rule by name (--jury): every judge of the chain asked, the rule decides
}
# Model families by a name their models carry anywhere in their names.
_FAMILIES = {
    "llama": "llama", "qwen": "qwen", "mistral": "mistral", "mixtral": "mistral", "gemma": "gemma",
    "gemini": "gemini", "claude": "claude", "gpt": "gpt", "deepseek": "deepseek", "phi-": "phi",
    "smollm": "smollm", "falcon": "falcon", "granite": "granite", "olmo": "olmo",
}  # fmt: skip
_OPENAI_REASONING = regex.compile(r"(?:^|[/:])o\d")  # o1, o3-mini, o4-mini: OpenAI's models, as gpt-*


def parse_spec(spec: str) -> Judge:
    """A judge from ``kind:...`` and ``,key=value`` settings."""
    head, *pairs = spec.split(",")
    settings: dict[str, Any] = {}
    kind, colon, rest = head.strip().partition(":")
    if colon and rest and kind in JUDGES:
        try:
            settings |= {"kind": kind, **JUDGES[kind].short(rest)}
        except ValueError as exc:
            raise _bad(spec, str(exc)) from None
    else:
        pairs.insert(0, head)
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals:  # a "," in a URL's password splits it: its tail is not shown
            what = "a part after a ',' is not key=value (write a ',' in a URL as %2C)"
            raise _bad(spec, what if "@" in pair else f"'{pair}' is not key=value")
        settings[key.strip()] = value.strip()
    return build_judge(settings, where=f"--judge {display_url(spec)!r}")  # a URL's password: not shown


def build_judge(settings: Mapping[str, Any], where: str) -> Judge:
    """The judge of checked settings: known, of the right type and range, of its kind (UsageError else)."""
    own = backend_settings()
    types = {name: kind for settings_of in own.values() for name, kind in settings_of.items()} | _COMMON
    unknown = set(settings) - set(types)
    if unknown:
        raise UsageError(
            f"unknown judge setting(s) {', '.join(sorted(unknown))}",
            where=where,
            fix=f"use: {', '.join(sorted(types))}",
        )
    values: dict[str, Any] = {
        key: str(value) if types[key] is str else _number(key, types[key], value, where)
        for key, value in settings.items()
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
    if kind not in own:
        raise UsageError(f"unknown judge kind {kind!r}", where=where, fix=f"use {judge_kinds()}")
    _check_kind_settings(kind, own, values, where)
    return JUDGES[kind].make(JudgeArgs(values, sampling, prices, values.get("rps"), where))


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


def _check_kind_settings(
    kind: str, own: Mapping[str, Mapping[str, type]], values: Mapping[str, Any], where: str
) -> None:
    """A setting of another kind of judge (n_ctx on an openai judge) is a mistake, not a no-op."""
    others = set().union(*(keys for other, keys in own.items() if other != kind)) - set(own[kind])
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


def family_is_known(model: str) -> bool:
    """Whether `model_family` found a known family's name in `model` (else it read its leading letters)."""
    name = model.strip().lower()
    return any(marker in name for marker in _FAMILIES) or bool(_OPENAI_REASONING.search(name))


def _number(key: str, kind: type, value: Any, where: str) -> Any:
    """A setting's number, refused when it makes no sense (a timeout of 0, -1 retries, NaN)."""
    try:
        number = kind(value)
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
        fix=f"write {judge_forms()}, then ,key=value settings",
    )
