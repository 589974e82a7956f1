"""A system under test behind an OpenAI-compatible chat-completions endpoint: ``openai:BASE_URL`` (up to
/v1), asked POST BASE_URL/chat/completions with the question as the user's message.

Options (``--system-option KEY=VALUE`` or ``[system.options]``):

    model          the model to ask for (required)
    api_key_env    the NAME of the variable that holds the API key (the key is never a setting, a
                   signature or a log line)
    temperature    default 0;  max_tokens, seed: sent only when given
    scope_as       how the item's scope reaches the system: ``system`` (default: a system message made
                   from ``system_prompt``), ``metadata`` (the request's ``metadata``, as
                   {metadata_key: scope}), or ``both``; no scope, nothing is sent for it
    system_prompt  the system message's template; ``{scope}`` is replaced by the scope
    metadata_key   the key of the scope in ``metadata`` (default ``scope``)
    timeout        seconds for the whole request (default 60)

The reply's text is the first choice's message content (its text parts joined, when it is a list of
parts); its model is the completion's ``model``; a
``refusal`` in the message (OpenAI's structured refusal) or ``finish_reason: content_filter`` is
``blocked``. A gateway that returns its retrieval beside the completion (top-level ``contexts`` and
``citations``, as answer_from reads them) has them read; otherwise the citations are parsed from the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...cells import parse_json
from ...errors import UsageError
from ...net import display_url
from ...parts import Reply
from .base import SystemFailure, answer_from
from .http_common import (
    DEFAULT_TIMEOUT,
    JsonPoster,
    api_key_header,
    check_settings,
    check_url,
    expanded_headers,
    number_setting,
)
from .probe import PROBE_QUESTION, SystemDown, down_status

DEFAULT_SYSTEM_PROMPT = "Answer only from the documents of: {scope}"
SCOPE_AS = ("system", "metadata", "both")
OPTIONS = frozenset(
    {"model", "api_key_env", "temperature", "max_tokens", "seed", "scope_as", "system_prompt",
     "metadata_key", "timeout"}
)  # fmt: skip


@dataclass
class OpenAIChatSystem:
    spec: str
    base_url: str
    model: str
    scope_as: str = "system"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    metadata_key: str = "scope"
    sampling: Mapping[str, float | int] = field(default_factory=dict)  # temperature, max_tokens, seed
    api_key_env: str | None = None
    header_names: tuple[str, ...] = ()
    poster: JsonPoster = field(default_factory=lambda: JsonPoster(""), repr=False)

    def signature(self) -> str:
        parts = [f"openai:{display_url(self.base_url)}", f"model={self.model}", f"scope_as={self.scope_as}"]
        if self.scope_as != "metadata":
            parts.append(f"system_prompt={self.system_prompt!r}")
        if self.scope_as != "system":
            parts.append(f"metadata_key={self.metadata_key}")
        parts += [f"{key}={self.sampling[key]:g}" for key in sorted(self.sampling)]
        if self.api_key_env:
            parts.append(f"api_key_env={self.api_key_env}")
        parts += [f"header={name}" for name in self.header_names]
        return "|".join(parts)

    def request(self, question: str, scope: str | None) -> dict[str, Any]:
        """The chat-completions body for one question (public: a test reads what is sent)."""
        messages: list[dict[str, str]] = []
        body: dict[str, Any] = {"model": self.model, **self.sampling}
        if scope is not None and self.scope_as in ("system", "both"):
            messages.append({"role": "system", "content": self.system_prompt.replace("{scope}", scope)})
        if scope is not None and self.scope_as in ("metadata", "both"):
            body["metadata"] = {self.metadata_key: scope}
        messages.append({"role": "user", "content": question})
        return {**body, "messages": messages}

    async def ask(self, question: str, scope: str | None) -> Reply:
        value, raw = await self.poster.post(self.request(question, scope))
        return answer_from(_completion(value, raw), raw=raw)

    async def probe(self) -> None:
        """The check before a run (probe.py): GET BASE_URL/models, whose list (when the server gives
        one: a gateway may answer 404) must hold the model, then one completion of PROBE_QUESTION with
        max_tokens 1, which must be a chat completion; SystemDown otherwise."""
        listed = await self.poster.probe("GET", f"{self.base_url}/models", None)
        refused = down_status(f"{self.base_url}/models", "GET", listed.status)
        if refused is not None and listed.status in (401, 403):  # a refused key; no list is no error
            raise refused
        served = _served_models(listed.text) if listed.status == 200 else None
        if served and self.model not in served:
            raise SystemDown(
                f"the system at {display_url(self.base_url)} does not serve the model {self.model!r}",
                fix=f"give --system-option model= one of: {', '.join(served[:8])}",
            )
        asked = {**self.request(PROBE_QUESTION, None), "max_tokens": 1}
        received = await self.poster.probe("POST", self.poster.url, asked)
        down = down_status(self.poster.url, "POST", received.status)
        if down is not None:
            raise down
        if 200 <= received.status < 300 and not _is_completion(received.text):
            raise SystemDown(
                f"the system at {display_url(self.poster.url)} answered POST with HTTP {received.status} "
                "and a body that is not a chat completion",
                fix="give openai: the base URL of an OpenAI-compatible API (it ends in /v1)",
            )

    async def aclose(self) -> None:
        await self.poster.aclose()


def _served_models(text: str) -> list[str] | None:
    """The ids of a GET /models reply ({"data": [{"id": ...}]}); None for another shape."""
    try:
        data = parse_json(text)["data"]
        return [str(entry["id"]) for entry in data]
    except (ValueError, TypeError, KeyError):
        return None


def _is_completion(text: str) -> bool:
    try:
        return isinstance(parse_json(text)["choices"][0], dict)
    except (ValueError, TypeError, KeyError, IndexError):
        return False


def _completion(body: Any, raw: str) -> dict[str, Any]:
    """The mapping answer_from reads, from a chat completion; SystemFailure for another shape."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
        content, refusal = message.get("content"), message.get("refusal")
        finish = choice.get("finish_reason")
    except (TypeError, KeyError, IndexError, AttributeError):
        reason = "malformed reply: HTTP 200 with a body that is not a chat completion" + _error_of(body)
        raise SystemFailure(reason, raw) from None
    blocked = bool(refusal) or finish == "content_filter"
    if content is None and not blocked:
        raise SystemFailure("malformed reply: the completion has no text content", raw)
    if isinstance(content, list):  # content parts, as some servers send them: their texts, joined
        content = _joined_parts(content, raw)
    if content is not None and not isinstance(content, str):
        raise SystemFailure(f"malformed reply: the completion's content is a {type(content).__name__}", raw)
    model = body.get("model")
    found = {
        "text": content if content is not None else refusal if isinstance(refusal, str) else "",
        "blocked": True if blocked else None,
        "model": model if isinstance(model, str) else None,
    }
    return found | {key: body[key] for key in ("citations", "contexts") if body.get(key) is not None}


def _error_of(body: Any) -> str:
    """The error a gateway sent in a 200's body ({"error": {"message": ...}}), as the reason's end."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    if not isinstance(message, str) or not message.strip():
        return ""
    return f" (its error: {' '.join(message.split())[:200]})"


def _joined_parts(parts: list[Any], raw: str) -> str:
    texts = []
    for at, part in enumerate(parts):
        if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
            reason = f"malformed reply: the completion's content part {at} is not a text part"
            raise SystemFailure(reason, raw)
        texts.append(part["text"])
    return "".join(texts)


def openai_system(
    spec: str, base_url: str, settings: Mapping[str, object], headers: object
) -> OpenAIChatSystem:
    """The adapter of ``openai:BASE_URL`` with its options; UsageError for a missing or bad one."""
    check_settings(settings, OPTIONS, "an openai system")
    url = check_url(base_url, spec).rstrip("/")
    model = settings.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UsageError("an openai system needs a model", fix="give --system-option model=NAME")
    scope_as = str(settings.get("scope_as", "system"))
    if scope_as not in SCOPE_AS:
        raise UsageError(f"scope_as={scope_as!r} is not one of {', '.join(SCOPE_AS)}", fix="give one of them")
    api_key_env = settings.get("api_key_env")
    if api_key_env is not None and (not isinstance(api_key_env, str) or not api_key_env.strip()):
        raise UsageError("api_key_env is empty", fix="name the variable, or leave the option out")
    sampling: dict[str, float | int] = {"temperature": _number(settings, "temperature", 0.0) or 0.0}
    for key in ("max_tokens", "seed"):
        if settings.get(key) is not None:
            sampling[key] = int(_number(settings, key, None) or 0)
    extra = expanded_headers(headers, "[system.headers]")
    timeout = number_setting(settings, "timeout", DEFAULT_TIMEOUT, least=0.0) or DEFAULT_TIMEOUT
    poster = JsonPoster(f"{url}/chat/completions", {**extra, **api_key_header(api_key_env)}, timeout)
    return OpenAIChatSystem(
        spec=spec,
        base_url=url,
        model=model.strip(),
        scope_as=scope_as,
        system_prompt=str(settings.get("system_prompt", DEFAULT_SYSTEM_PROMPT)),
        metadata_key=str(settings.get("metadata_key", "scope")),
        sampling=sampling,
        api_key_env=api_key_env,
        header_names=tuple(sorted(extra)),
        poster=poster,
    )


def _number(settings: Mapping[str, object], key: str, default: float | None) -> float | None:
    number = number_setting(settings, key, default, least=1.0 if key == "max_tokens" else 0.0)
    if number is not None and key in ("max_tokens", "seed") and not number.is_integer():
        raise UsageError(f"the system option {key}={settings[key]!r} is not a whole number", fix="give one")
    return number
