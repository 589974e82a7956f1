"""A judge run in-process by llama-cpp-python (``pip install 'assay[local]'``): a GGUF file, the same
prompt and parsing as the HTTP judge, JSON mode by grammar. One model answers one request at a time,
in a worker thread, so the event loop keeps serving the other judges."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..extras import missing_extra
from ._base import Completion, JudgeUnavailable, Pace, Prices, Sampling, token_count
from ._clean import cleaned


@dataclass
class LlamaJudge:
    model_path: str
    n_ctx: int = 2048
    n_threads: int | None = None
    sampling: Sampling = field(default_factory=Sampling)
    prices: Prices = field(default_factory=Prices)
    requests_per_second: float | None = None
    kind: str = "llama"
    _llama: Any = field(default=None, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    @property
    def model(self) -> str:
        return os.path.basename(self.model_path)

    @property
    def label(self) -> str:
        return f"llama:{self.model}"

    @property
    def identity(self) -> str:
        """The model file, by path, size and modification time: two files named model.gguf differ."""
        try:
            found = os.stat(self.model_path)
        except OSError:
            return os.path.abspath(self.model_path)
        return f"{os.path.abspath(self.model_path)}|{found.st_size}|{found.st_mtime_ns}"

    async def preflight(self) -> None:
        async with self._lock:  # rows arriving together load the model once
            if self._llama is None:
                self._llama = await asyncio.to_thread(self._load)

    def _load(self) -> Any:
        if not os.path.isfile(self.model_path):
            raise UsageError(f"no GGUF model at {self.model_path}", fix="give the path of a .gguf file")
        try:
            from llama_cpp import Llama
        except ImportError:
            raise missing_extra("llama_cpp", "for the local judge (llama:PATH.gguf)") from None
        try:
            return Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                seed=self.sampling.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise UsageError(
                f"llama.cpp cannot load {self.model_path} ({exc})", fix="give a valid GGUF model file"
            ) from None

    async def complete(self, messages: list[dict[str, str]], pace: Pace | None = None) -> Completion:
        await self.preflight()
        if pace is not None:
            await pace()
        async with self._lock:
            try:
                body = await asyncio.to_thread(
                    self._llama.create_chat_completion,
                    messages=messages,
                    temperature=self.sampling.temperature,
                    seed=self.sampling.seed,
                    max_tokens=self.sampling.max_tokens,
                    response_format={"type": "json_object"},
                )
            except (RuntimeError, ValueError) as exc:  # e.g. the prompt exceeds the context
                raise JudgeUnavailable(f"{type(exc).__name__}: {exc}") from None
        usage = body.get("usage") or {}
        reply = Completion(
            text=str(body["choices"][0]["message"].get("content") or ""),
            model=self.model,
            prompt_tokens=token_count(usage, "prompt_tokens"),
            completion_tokens=token_count(usage, "completion_tokens"),
        )
        return cleaned(reply)  # lone surrogates replaced, as for every judge

    async def close(self) -> None:
        """Nothing is bound to the event loop: the model stays loaded for the judge's next use (a run's
        chain check, then its scoring), and is freed with the judge."""
