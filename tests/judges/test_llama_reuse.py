"""A local llama judge loads its model once per run: the run checks the chain before asking the system
(in one event loop) and scores in another, and closing the judge after the check must not drop the model
(loading a real GGUF model takes seconds; a large one, minutes)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.judges.llama_local import LlamaJudge


@dataclass
class CountingLlamaJudge(LlamaJudge):
    loads: int = 0

    def _load(self) -> Any:
        self.loads += 1
        return super()._load()


def test_the_model_is_loaded_once_across_the_check_and_the_scoring(model_path: Path) -> None:
    judge = CountingLlamaJudge(model_path=str(model_path), n_ctx=512)

    async def check_then_close() -> None:
        await judge.preflight()
        await judge.close()

    asyncio.run(check_then_close())  # the run's chain check, in its own event loop
    asyncio.run(check_then_close())  # the scoring, in another
    assert judge.loads == 1
