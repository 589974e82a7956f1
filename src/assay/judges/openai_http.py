"""A judge behind an OpenAI-compatible chat-completions endpoint: vLLM, llama.cpp's server, Ollama,
OpenAI and the like.

The API key is read from the environment variable the user *names*; the key itself never appears in
a flag, log, report, trace or cache. Requests ask for a JSON verdict with ``response_format``
``json_object`` (llama.cpp's server answers ``json_schema`` with HTTP 500 but accepts ``json_object``);
a server that rejects ``response_format`` altogether is asked again without it, and its reply is
parsed as text. Connection errors, timeouts and the statuses worth asking again (``net.RETRY_STATUSES``:
408, 429, 500, 502, 503, 504) are retried with exponential backoff and jitter, honouring ``Retry-After`` up
to the one cap (``net.MAX_RETRY_AFTER``): a server asking for longer is not waited for, and past the
retries the judge is unavailable, so the chain moves on.

``timeout`` is a total deadline for each request: connecting, sending and reading the whole body
(``net.within_deadline``). Every completion is cleaned where it enters (``_clean``: secrets redacted,
lone surrogates replaced), and
its token counts must be whole numbers from 0 to MAX_TOKENS: anything else is a broken judge (the row
goes down the chain), never a discount on the cost ceiling.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from .. import net
from ..concurrency import OVERLOAD_STATUSES
from ..errors import UsageError
from ..extras import missing_extra
from ._base import Completion, JudgeDown, JudgeUnavailable, Overload, Pace, Prices, Sampling, token_count
from ._clean import cleaned
from .accounting import UncountedUsage

try:
    import httpx
except ImportError:  # a lean install (pip install assay): name the extra that brings httpx
    raise missing_extra("httpx", "for the openai: judge", extra="judge") from None

from ..http_clients import Clients  # after httpx: a lean install is told the extra


@dataclass
class OpenAIJudge:
    base_url: str  # up to /v1, e.g. http://127.0.0.1:8080/v1
    model: str
    api_key_env: str | None = None  # the NAME of the variable that holds the key
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry; doubled each time, with jitter
    sampling: Sampling = field(default_factory=Sampling)
    prices: Prices = field(default_factory=Prices)
    requests_per_second: float | None = None
    kind: str = "openai"
    _clients: Clients | None = field(default=None, repr=False)
    _json_mode: bool = field(default=True, repr=False)  # False once the server rejects response_format

    def __post_init__(self) -> None:
        net.register_url(self.base_url)  # its password, if it has one, is never shown

    @cached_property
    def shown_url(self) -> str:
        """The base URL as messages and reports show it: without userinfo."""
        return net.display_url(self.base_url)

    @cached_property
    def label(self) -> str:
        """The model and where it is served: two endpoints serving one model are two judges."""
        return f"openai:{self.model}@{urlsplit(self.shown_url).netloc}"

    @property
    def identity(self) -> str:
        """What the cache keys replies by: the endpoint and the model (never the key or a password)."""
        return f"{self.shown_url.rstrip('/')}|{self.model}"

    def _headers(self) -> dict[str, str]:
        if self.api_key_env is None:
            return {}
        key = os.environ.get(self.api_key_env)
        if not key:
            raise UsageError(
                f"the judge {self.label} reads its API key from ${self.api_key_env}, which is not set",
                fix=f"export {self.api_key_env}=..., or name another variable with api_key_env",
            )
        net.register_secret(key)
        return {"Authorization": f"Bearer {key}"}

    def _http(self) -> Clients:
        """The judge's clients: each request on one of its own (``http_clients``), its connection kept
        alive for the next."""
        if self._clients is None:
            self._clients = Clients(
                base_url=self.base_url.rstrip("/"), headers=self._headers(), timeout=self.timeout
            )
        return self._clients

    async def _get(self, path: str) -> httpx.Response:
        async with self._http().lease() as client:
            return await net.within_deadline(client.get(path), self.timeout)

    async def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        async with self._http().lease() as client:
            return await net.within_deadline(client.post(path, json=body), self.timeout)

    async def close(self) -> None:
        if self._clients is not None:
            await self._clients.aclose()
            self._clients = None

    async def preflight(self) -> None:
        """GET /models: is the endpoint up (else JudgeDown), is the key accepted and the model served
        (else UsageError: a mistake in the setup, which no fallback should hide)?"""
        try:
            response = await self._get("/models")
        except (TimeoutError, httpx.HTTPError) as exc:
            raise JudgeDown(
                f"the judge endpoint {self.shown_url} does not answer ({_failure(exc, self.timeout)})",
                fix="start the server, or correct the base URL (it ends in /v1)",
            ) from None
        if response.status_code >= 500:
            raise JudgeDown(
                f"the judge endpoint {self.shown_url} answered GET /models with HTTP {response.status_code}",
                fix="check the server's log",
            )
        if response.status_code in (401, 403):
            raise UsageError(
                f"the judge endpoint {self.shown_url} refused the API key (HTTP {response.status_code})",
                fix=f"check the key in ${self.api_key_env}" if self.api_key_env else "give api_key_env=NAME",
            )
        if response.status_code != 200:
            raise UsageError(
                f"the judge endpoint {self.shown_url} answered GET /models with HTTP {response.status_code}",
                fix="check the base URL (it ends in /v1) and the server's log",
            )
        served = _served_models(response)
        if served is None:
            raise UsageError(
                f"the judge endpoint {self.shown_url} answered GET /models with something not a model list",
                fix="check that the base URL is an OpenAI-compatible API (it ends in /v1)",
            )
        if served and self.model not in served:
            raise UsageError(
                f"the judge endpoint {self.shown_url} does not serve the model '{self.model}'",
                fix=f"use one of: {', '.join(served)}",
            )

    async def server_slots(self) -> int | None:
        """How many requests the server says it serves at once, when it says: llama.cpp's server answers
        ``GET /props`` with ``total_slots`` (and ``GET /slots`` with a list of them), beside /v1. None
        for a server that does not say (vLLM, OpenAI: 404), or says something that is not a count."""
        root = self.base_url.rstrip("/").removesuffix("/v1")
        for path, read in (("/props", _total_slots), ("/slots", _slot_list)):
            try:
                response = await self._get(root + path)
            except (TimeoutError, httpx.HTTPError):
                return None  # the chat requests will say what is wrong, if anything is
            if response.status_code == 200:
                found = read(response)
                if found is not None:
                    return found
        return None

    async def complete(
        self, messages: list[dict[str, str]], pace: Pace | None = None, overload: Overload | None = None
    ) -> Completion:
        """The completion; `overload` (the caller's concurrency, ``concurrency.AdaptiveLimit``) is told
        of a request turned away for load (429, 503, the deadline passed) and lowers the limit; when it
        says so (True: the request had more company than the limit now allows), the request is asked
        again in its next turn, after the server's Retry-After, and that retry is not counted."""
        attempt = 0
        while True:
            body = self._body(messages)
            if pace is not None:
                await pace()
            try:
                response = await self._post("/chat/completions", body)
            except (TimeoutError, httpx.TimeoutException, httpx.TransportError) as exc:
                failure, asked = _failure(exc, self.timeout), None
                busy = isinstance(exc, (TimeoutError, httpx.TimeoutException))
            else:
                if response.status_code == 200:
                    return _counted(_completion(response, self.model), self.prices)
                if "response_format" in body and _rejects_response_format(response):
                    self._json_mode = False  # ask again, at once, for plain text (and from now on)
                    continue
                if response.status_code not in net.RETRY_STATUSES:
                    # The status only: an error body may echo the request, and with it the key.
                    raise JudgeUnavailable(f"HTTP {response.status_code}")
                failure, asked = (
                    f"HTTP {response.status_code}",
                    net.retry_after(response.headers.get("retry-after")),
                )
                busy = response.status_code in OVERLOAD_STATUSES
            if busy and overload is not None and await overload(failure):
                # Turned away (429, 503, or its deadline passed in a queue) with more in flight than the
                # lowered limit lets go: asked again in its turn, not counted, after the wait the server
                # asked for. Alone, or with no more company than the limit still allows, it counts.
                if asked is not None and not net.past_cap(asked):
                    await asyncio.sleep(asked)
                continue
            await asyncio.sleep(self._wait(failure, attempt, asked))
            attempt += 1

    def _wait(self, failure: str, attempt: int, asked: float | None) -> float:
        """The wait before retry `attempt` (the server's Retry-After, else the backoff); JudgeUnavailable
        when no retry is left, or when the server asks for longer than the cap (the next judge is the
        better bet)."""
        if attempt >= self.retries:
            raise JudgeUnavailable(f"{failure}, after {self.retries} retries")
        if net.past_cap(asked):
            raise JudgeUnavailable(
                f"{failure}, Retry-After {asked:g} s is past the {net.MAX_RETRY_AFTER:g} s cap"
            )
        return asked if asked is not None else net.backoff(self.backoff, attempt)

    def _body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.sampling.temperature,
            "seed": self.sampling.seed,
            "max_tokens": self.sampling.max_tokens,
        }
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        return body


def _failure(exc: BaseException, timeout: float) -> str:
    return net.failure(exc, timeout, deadline="deadline")


def _completion(response: httpx.Response, asked_model: str) -> Completion:
    """The completion in a 200 response, cleaned; a body of another shape, or token counts that are
    not counts, mean the judge is not usable."""
    try:
        body = response.json()
        message = body["choices"][0]["message"]
        usage = body.get("usage") or {}
        fingerprint = body.get("system_fingerprint")
        completion = Completion(
            text=str(message.get("content") or ""),
            model=str(body.get("model") or asked_model),
            fingerprint=None if fingerprint is None else str(fingerprint),
            prompt_tokens=_tokens(usage, "prompt_tokens"),
            completion_tokens=_tokens(usage, "completion_tokens"),
        )
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        raise JudgeUnavailable("HTTP 200 with a body that is not a chat completion") from None
    return cleaned(completion)


def _tokens(usage: Any, name: str) -> int:
    """A count of tokens, or UncountedUsage: a broken count can neither lower the cost nor inflate it."""
    try:
        return token_count(usage, name)
    except JudgeUnavailable as exc:
        raise UncountedUsage(str(exc)) from None


def _counted(completion: Completion, prices: Prices) -> Completion:
    """The completion, or UncountedUsage (holding it) when the judge has a price and the server
    reported no tokens at all: its cost would count as nothing against --max-cost."""
    if (prices.prompt or prices.completion) and not (
        completion.prompt_tokens or completion.completion_tokens
    ):
        raise UncountedUsage("the server reported no usage, so its price cannot be counted", completion)
    return completion


def _served_models(response: httpx.Response) -> list[str] | None:
    try:
        return [str(model["id"]) for model in response.json()["data"]]
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def _total_slots(response: httpx.Response) -> int | None:
    try:
        found = response.json().get("total_slots")
    except (ValueError, AttributeError):
        return None
    return found if type(found) is int and found >= 1 else None


def _slot_list(response: httpx.Response) -> int | None:
    try:
        found = response.json()
    except ValueError:
        return None
    return len(found) if isinstance(found, list) and found else None


def _rejects_response_format(response: httpx.Response) -> bool:
    """A 4xx/5xx whose error names response_format: the server does not do JSON mode."""
    return response.status_code >= 400 and "response_format" in response.text
