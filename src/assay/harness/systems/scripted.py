"""A system under test that answers from a script: the double for your own tests of a gold set, a gate
or a report, with no model and no server.

    from assay.harness.systems.scripted import ScriptedSystem

    system = ScriptedSystem({"What is the grace period?": "30 days [Source: policy, p.2]"})
    system = ScriptedSystem(lambda question, scope: {"text": "30 days", "citations": ["policy p.2"]})

A script is a mapping of question -> reply, or a callable ``(question, scope) -> reply``; a reply is
anything a system may return (a text, or a mapping read by ``answer_from``), or an exception, which is
raised (a ``TransportError`` to have the runner retry, a ``SystemFailure`` for the system's own failure).
A question the mapping does not hold gets ``default``; with no default, it is a SystemFailure naming
the question. ``asked`` lists every (question, scope), in order.

On the command line, ``--system scripted:FILE.json`` is the same, its script the JSON object in FILE
(question -> reply); ``--system-option default=TEXT`` gives the default.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from ...errors import UsageError
from ...parts import Reply
from .adapters import SystemAdapter, SystemSpec
from .base import SystemFailure, answer_from

Script = Mapping[str, object] | Callable[[str, str | None], object]
_NO_DEFAULT = object()


class ScriptedSystem:
    """A System answering each question from a script (see the module's docstring)."""

    def __init__(self, script: Script, *, default: object = _NO_DEFAULT, spec: str = "scripted") -> None:
        if not callable(script) and not isinstance(script, Mapping):
            raise UsageError(
                f"a ScriptedSystem's script is a {type(script).__name__}",
                fix="give a mapping of question -> reply, or a function (question, scope) -> reply",
            )
        self.script, self.default, self.spec = script, default, spec
        self.asked: list[tuple[str, str | None]] = []

    def signature(self) -> str:
        return self.spec

    async def ask(self, question: str, scope: str | None) -> Reply:
        self.asked.append((question, scope))
        reply = self._reply(question, scope)
        if isinstance(reply, BaseException):
            raise reply
        return answer_from(reply)

    def _reply(self, question: str, scope: str | None) -> object:
        if callable(self.script):
            return self.script(question, scope)
        if question in self.script:
            return self.script[question]
        if self.default is _NO_DEFAULT:
            return SystemFailure(f"the script has no reply to {question!r}")
        return self.default

    async def aclose(self) -> None:
        return None


def _from_file(spec: SystemSpec) -> ScriptedSystem:
    """``scripted:FILE.json``: the script is FILE's JSON object of question -> reply."""
    unknown = sorted(set(spec.options) - {"default"})
    if unknown:
        raise UsageError(f"a scripted system has no option {unknown[0]!r}", fix="give only default=TEXT")
    path = Path(spec.target)
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot read the script of {spec.spec!r} ({type(exc).__name__}: {exc})",
            where=str(path),
            fix="give a JSON file holding an object of question -> reply",
        ) from None
    if not isinstance(script, dict):
        raise UsageError(
            f"the script is a JSON {type(script).__name__}",
            where=str(path),
            fix="write an object of question -> reply",
        )
    default = spec.options.get("default", _NO_DEFAULT)
    return ScriptedSystem(script, default=default, spec=spec.spec)


SCRIPTED = SystemAdapter(
    prefix="scripted",
    form="scripted:FILE.json",
    description="replies read from a JSON object of question -> reply (a test double)",
    make=_from_file,
)

__all__ = ["SCRIPTED", "Script", "ScriptedSystem"]
