"""What every judge backend shares: the protocol, its completion, and how it fails."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import UsageError

Pace = Callable[[], Awaitable[None]]
# Told of a request turned away for load (its failure, said); waits the request's next turn; True when that
# retry is not to be counted (the judge accepts it as `overload=` when it can tell load from failure).
Overload = Callable[[str], Awaitable[bool]]
MAX_TOKENS = 10**9  # more tokens than this in one request is a server's mistake, not a bill
# A judge run's defaults, kept here so that the command line can say them in its help without loading the
# run, its cache and their event loop (every `assay score` builds the judge flags).
CONCURRENCY = 8  # JudgeOptions.concurrency
MAX_RESPONSE_CHARS = 8000  # JudgeOptions.max_response_chars
DEFAULT_CACHE_PATH = Path(".assay-cache") / "judge.sqlite"
DEFAULT_RUBRIC = "equivalence"


@dataclass(frozen=True)
class Completion:
    """One completion of an LLM: the text, what served it, and what it cost in tokens (not a system's
    reply, which is ``parts.Reply``)."""

    text: str
    model: str  # the model id the server says it used
    fingerprint: str | None = None  # system_fingerprint, when the server gives one
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Sampling:
    """What decides a judge's output besides the prompt: part of every cache key and signature."""

    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 128

    def signature(self) -> str:
        return f"temperature:{self.temperature:g}|seed:{self.seed}|max_tokens:{self.max_tokens}"


@dataclass(frozen=True)
class Prices:
    """What a judge costs, per million prompt and completion tokens (0: free, as a local model is)."""

    prompt: float = 0.0
    completion: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6


class JudgeDown(UsageError):
    """A judge's preflight found it unreachable: it is left out of the chain if another judge works."""


class JudgeUnavailable(Exception):
    """The judge could not answer (down, timing out, rate-limited or failing past its retries, or
    refusing the key): the chain moves on to the next judge."""


class Judge(Protocol):
    """A backend that completes chat messages. `label` names it in reports ("openai:MODEL")."""

    kind: str  # "openai" or "llama": part of the cache key
    sampling: Sampling
    prices: Prices
    requests_per_second: float | None

    @property
    def model(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def identity(self) -> str:
        """What, besides the kind, decides its replies (endpoint and model, or the model file)."""

    async def preflight(self) -> None:
        """Fail fast, with a clear message, when the judge cannot work at all."""

    async def complete(self, messages: list[dict[str, str]], pace: Pace | None = None) -> Completion:
        """One completion at the judge's sampling; raises JudgeUnavailable. `pace` is awaited before
        every attempt (the first and each retry), to keep to the judge's request rate."""

    async def close(self) -> None:
        """Release what is bound to the event loop that used the judge (connections). A loaded model
        stays with the judge, freed with it: a run checks its chain in one loop and scores in another,
        and a model must not be loaded twice for that."""


def token_count(usage: Any, name: str) -> int:
    """A server's count of tokens: absent is 0; negative, fractional, text or past MAX_TOKENS is an
    error (JudgeUnavailable), so that a broken count can neither lower the cost nor inflate it."""
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        # A number is shown; anything else only by its type (a string could echo the request).
        shown = repr(value)[:40] if isinstance(value, (int, float)) else f"a {type(value).__name__}"
        raise JudgeUnavailable(f"the server reported usage {name}={shown}, not a count of tokens")
    return value
