"""The built-in judge backends, as the registry (backends.JUDGES) names them: ``openai`` and ``llama``.

Each factory imports its backend's module when it is called, not here: listing the kinds (``--help``, an
error's list of forms) must load neither httpx nor llama-cpp.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..errors import UsageError
from ._base import Judge
from .backends import JudgeArgs, JudgeBackend


def _openai_short(rest: str) -> dict[str, str]:
    model, at, base_url = rest.partition("@")
    if not at:
        raise ValueError("an openai judge is openai:MODEL@BASE_URL")
    return {"model": model, "base_url": base_url}


def _openai(args: JudgeArgs) -> Judge:
    from .openai_http import OpenAIJudge  # with httpx: only when such a judge is asked for

    values, where = args.values, args.where
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
        sampling=args.sampling,
        prices=args.prices,
        requests_per_second=args.requests_per_second,
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


def _llama(args: JudgeArgs) -> Judge:
    from .llama_local import LlamaJudge  # llama-cpp loads only when the model is

    values = args.values
    if not values.get("model_path"):
        raise UsageError("a llama judge needs model_path", where=args.where, fix="llama:PATH.gguf")
    return LlamaJudge(
        model_path=values["model_path"],
        n_ctx=values.get("n_ctx", 2048),
        n_threads=values.get("n_threads"),
        sampling=args.sampling,
        prices=args.prices,
        requests_per_second=args.requests_per_second,
    )


OPENAI = JudgeBackend(
    kind="openai",
    form="openai:MODEL@BASE_URL",
    short=_openai_short,
    make=_openai,
    settings={
        "model": str,
        "base_url": str,
        "api_key_env": str,
        "timeout": float,
        "retries": int,
        "backoff": float,
    },
)
LLAMA = JudgeBackend(
    kind="llama",
    form="llama:PATH.gguf",
    short=lambda rest: {"model_path": rest},
    make=_llama,
    settings={"model_path": str, "n_ctx": int, "n_threads": int},
)
