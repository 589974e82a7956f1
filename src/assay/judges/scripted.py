"""A judge that answers from a script: the double for your own tests of a judged run, a cascade or a
gate, with no model and no server.

    from assay import JudgeSetup
    from assay.judges.scripted import ScriptedJudge

    judge = ScriptedJudge({"New Delhi": "CORRECT", "Yamuna": "INCORRECT"}, default="INCORRECT")
    score(records, ["judge"], judge=JudgeSetup((judge,)))

A script is a mapping or a callable. A mapping's keys are texts looked for in the prompt's last
message (the rubric's user message, which holds the response under grading): the first key found
gives the reply. A callable is given that message, and returns the reply. A reply is the judge's
text as the rubric reads it (``CORRECT``, ``INCORRECT``, ``{"verdict": "CORRECT", "rationale": ...}``),
or an exception, which is raised (``JudgeUnavailable`` to have the chain move on). A prompt no key
matches gets ``default``; with no default, the judge is unavailable for it (the row is unscored).
``prompts`` lists every prompt asked, in order.

On the command line, ``--judge scripted:FILE.json`` is the same, its script the JSON object in FILE,
and ``,default=TEXT`` its default.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ._base import Completion, JudgeUnavailable, Pace, Prices, Sampling
from .backends import JudgeArgs, JudgeBackend

JudgeScript = Mapping[str, object] | Callable[[str], object]


@dataclass
class ScriptedJudge:
    """A judge backend whose replies come from a script (see the module's docstring)."""

    script: JudgeScript
    default: str | None = None
    name: str = "script"  # the model name reports show: scripted:NAME
    sampling: Sampling = field(default_factory=Sampling)
    prices: Prices = field(default_factory=Prices)
    requests_per_second: float | None = None
    kind: str = "scripted"
    prompts: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.script) and not isinstance(self.script, Mapping):
            raise UsageError(
                f"a ScriptedJudge's script is a {type(self.script).__name__}",
                fix="give a mapping of text in the prompt -> reply, or a function (prompt) -> reply",
            )

    @property
    def model(self) -> str:
        return self.name

    @property
    def label(self) -> str:
        return f"scripted:{self.name}"

    @property
    def identity(self) -> str:
        """The script's own words (a mapping's, or a function's name and code): a changed script is
        another judge, whose replies the cache keeps apart."""
        if callable(self.script):  # its name and its code: a cached reply of an edited function is not reused
            body = getattr(self.script, "__code__", None)
            words = "" if body is None else f"{body.co_code.hex()}{body.co_consts!r}"
            code = f"{getattr(self.script, '__qualname__', type(self.script).__name__)}|{words}"
        else:
            code = json.dumps({str(k): str(v) for k, v in self.script.items()}, sort_keys=True)
        return hashlib.sha256(f"{code}|{self.default}".encode()).hexdigest()[:16]

    async def preflight(self) -> None:
        return None

    async def complete(self, messages: list[dict[str, str]], pace: Pace | None = None) -> Completion:
        if pace is not None:
            await pace()
        prompt = messages[-1]["content"] if messages else ""
        self.prompts.append(prompt)
        reply = self._reply(prompt)
        if isinstance(reply, BaseException):
            raise reply
        if reply is None:
            raise JudgeUnavailable("the script has no reply to this prompt")
        return Completion(text=str(reply), model=self.name)

    def _reply(self, prompt: str) -> object:
        if callable(self.script):
            return self.script(prompt)
        return next((reply for text, reply in self.script.items() if text in prompt), self.default)

    async def close(self) -> None:
        return None


def _from_file(args: JudgeArgs) -> ScriptedJudge:
    """``scripted:FILE.json``: the script is FILE's JSON object of text in the prompt -> reply."""
    path = Path(args.values.get("script", ""))
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot read the judge's script ({type(exc).__name__}: {exc})",
            where=args.where,
            fix="give a JSON file holding an object of text in the prompt -> reply",
        ) from None
    if not isinstance(script, dict):
        raise UsageError(
            f"the judge's script is a JSON {type(script).__name__}",
            where=args.where,
            fix="write an object of text in the prompt -> reply",
        )
    return ScriptedJudge(
        script,
        default=args.values.get("default"),
        name=path.stem,
        sampling=args.sampling,
        prices=args.prices,
        requests_per_second=args.requests_per_second,
    )


SCRIPTED = JudgeBackend(
    kind="scripted",
    form="scripted:FILE.json",
    short=lambda rest: {"script": rest},
    make=_from_file,
    settings={"script": str, "default": str},
)

__all__ = ["SCRIPTED", "JudgeScript", "ScriptedJudge"]
