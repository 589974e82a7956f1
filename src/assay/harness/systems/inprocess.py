"""A system under test that is a Python callable in this process: ``pkg.module:function`` or
``path/to/file.py:function`` (``function`` may be dotted: ``bot:Bot.answer`` for an attribute of an
attribute).

It is called as ``function(question, scope=scope, **options)`` and returns a text or a mapping
(base.answer_from). An ``async def`` function is awaited; a plain one runs in a worker thread
(as ``asyncio.to_thread`` would, but a daemon thread per call, ``threads.DaemonThreads``: the default
pool has only ``cpu_count + 4`` threads, which would cap the runner's concurrency unseen), so the
runner's timeout and concurrency hold for it too. Python cannot stop a thread: a sync call past the
timeout is abandoned, not killed, and finishes in the background, holding neither the run's end nor
the process's exit. A sync function that returns an awaitable has it awaited. Whatever the call raises
(``sys.exit()`` and GeneratorExit too; a sync call's KeyboardInterrupt, which no Ctrl-C delivers to its
thread) is the item's SystemFailure ("raised ValueError: ..."), never the run's crash. ``os._exit()``
ends the process, run and all (the journal keeps what was finished): serve such a system over HTTP.

What the function returns is read within the bounds of every reply (limits.py): a text of a billion
characters, a list of a million citations, a dataclass nested past Python's recursion limit, a
generator where a list belongs are each the item's SystemFailure naming the field, found without
reading the value whole. The runner's timeout stops when the function returns: reading its value is
assay's time, not the system's.

A module is imported as ``import`` would, with one addition: when its top-level package is not found and
the working folder is not on ``sys.path`` (the ``assay`` command does not put it there, ``python -m``
does), the working folder is added and the import tried again. A file is loaded under a name of its own,
with its folder on ``sys.path``, so that it can import the modules beside it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ...errors import UsageError
from ...extras import OPTIONAL_PACKAGES
from ...net import clean
from ...parts import Reply
from .base import SystemFailure, answer_from, reply_arrived
from .threads import DaemonThreads

SPEC_FIX = "give pkg.module:function or path/to/file.py:function"
MAX_DETAIL = 2_000  # characters of an exception's message kept in the reason (the runner keeps 1,000)


@dataclass
class InProcessSystem:
    spec: str
    function: Callable[..., Any] = field(repr=False)
    options: Mapping[str, object] = field(default_factory=dict)
    _pool: DaemonThreads | None = field(default=None, repr=False)

    def signature(self) -> str:
        return "|".join([self.spec, *(f"{key}={self.options[key]}" for key in sorted(self.options))])

    async def ask(self, question: str, scope: str | None) -> Reply:
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await self.function(question, scope=scope, **self.options)
                reply_arrived(off_loop=False)
            else:
                value = await self._in_thread(question, scope)  # the thread stops the clock
                if inspect.isawaitable(value):
                    value = await value
                    reply_arrived(off_loop=False)
        except SystemFailure:
            raise
        except (Exception, SystemExit, GeneratorExit) as exc:  # not CancelledError: the runner's timeout
            raise SystemFailure(_raised(exc)) from exc
        try:
            return answer_from(value)
        except SystemFailure:
            raise
        except Exception as exc:  # the value's own code raised as it was read (its __len__, __hash__, ...)
            raise SystemFailure(f"reading what the function returned {_raised(exc)}") from exc

    async def _in_thread(self, question: str, scope: str | None) -> object:
        """The sync call in a worker thread, with this task's context variables (as asyncio.to_thread)."""
        if self._pool is None:
            self._pool = DaemonThreads()
        call = functools.partial(_caught, self.function, question, scope=scope, **self.options)
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._pool, context.run, call)

    async def probe(self) -> None:
        """The check before a run (probe.py) asks nothing of the function: it was imported and found
        callable with (question, scope=..., **options) when the spec was read (inprocess_system), before
        the run began, and calling it would be asking it a question."""

    async def aclose(self) -> None:
        if self._pool is not None:  # abandoned calls finish in the background; none is waited for
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def inprocess_system(spec: str, options: Mapping[str, object]) -> InProcessSystem:
    """The callable a spec names, checked to take (question, scope=..., **options); UsageError with the
    fix when it cannot be imported, is missing, is not callable or does not take them."""
    target, colon, name = spec.strip().rpartition(":")
    if not colon or not target or not name:
        raise UsageError(f"cannot read the system spec {spec!r}", fix=SPEC_FIX)
    module = _load_file(target, spec) if target.endswith(".py") else _import(target, spec)
    function = _attribute(module, name, spec)
    _check_call(function, options, spec)
    return InProcessSystem(spec.strip(), function, dict(options))


def _caught(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The sync call in its worker thread: whatever it raises (a KeyboardInterrupt too, as no Ctrl-C is
    ever delivered to a thread) is the system's failure, which reaches the loop as an Exception."""
    try:
        value = function(*args, **kwargs)
    except BaseException as exc:
        raise SystemFailure(_raised(exc)) from exc
    reply_arrived(off_loop=True)  # here, not when the loop gets round to it: the system's time ends here
    return value


def _raised(exc: BaseException) -> str:
    try:
        detail = str(exc).strip()
    except Exception:  # an exception of the system's whose __str__ raises too
        detail = ""
    detail = clean(detail[:MAX_DETAIL])  # a message of megabytes, or with a lone surrogate, is not kept whole
    return f"raised {type(exc).__name__}: {detail}" if detail else f"raised {type(exc).__name__}"


def _import(name: str, spec: str) -> ModuleType:
    try:
        return _import_here(name)
    except ModuleNotFoundError as exc:
        if not _is_own(exc, name):
            raise _missing_dependency(exc, repr(name), spec) from None
        raise UsageError(
            f"cannot import the module {name!r} of --system {spec!r} ({exc})",
            fix="check the spelling, run from the folder that holds it (or set PYTHONPATH), "
            "or give path/to/file.py:function",
        ) from None
    except Exception as exc:
        raise UsageError(
            f"importing {name!r} of --system {spec!r} {_raised(exc)}", fix="fix the module so it imports"
        ) from None


def _import_here(name: str) -> ModuleType:
    """import `name`; when its top-level package is missing, again with the working folder on sys.path."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != name.split(".")[0] or here in sys.path or "" in sys.path:
            raise
        sys.path.insert(0, here)
        return importlib.import_module(name)


def _load_file(target: str, spec: str) -> ModuleType:
    path = Path(target).expanduser().resolve()
    if not path.is_file():
        raise UsageError(f"the file {target!r} of --system {spec!r} does not exist", fix=SPEC_FIX)
    # A name of its own (the path's hash): two bot.py files of two folders are two modules.
    module_name = f"_assay_system_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise UsageError(f"cannot load {target!r} as a Python module", fix=SPEC_FIX)
    module = importlib.util.module_from_spec(loader)
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))  # so that it imports its neighbours
    sys.modules[module_name] = module  # dataclasses and pickling look a module up by its name
    try:
        loader.loader.exec_module(module)
    except ModuleNotFoundError as exc:  # the file is there: what it imports is not
        del sys.modules[module_name]
        raise _missing_dependency(exc, repr(target), spec) from None
    except Exception as exc:
        del sys.modules[module_name]
        raise UsageError(
            f"loading {target!r} of --system {spec!r} {_raised(exc)}", fix="fix the file so it imports"
        ) from None
    return module


# The fix when the bot's own packages are not in the Python that runs assay: assay imports the bot in its
# own process, so the two must share one environment (or talk over HTTP). docs/systems.md shows both.
ENVIRONMENT_FIX = (
    "run assay from the bot's own environment (there: pip install assay, or pip install -e PATH_TO_ASSAY), "
    "or serve the bot over HTTP and give --system http://HOST:PORT/PATH (docs/systems.md)"
)


def _is_own(exc: ModuleNotFoundError, name: str) -> bool:
    """Whether the module not found is the spec's own (`name` or a package above it), not one it imports."""
    parts = name.split(".")
    return exc.name is None or exc.name in {".".join(parts[:end]) for end in range(1, len(parts) + 1)}


def _missing_dependency(exc: ModuleNotFoundError, what: str, spec: str) -> UsageError:
    """A module the bot imports is not installed where assay runs: the fix is the environment, not the
    file (the bot runs in its own environment, with its own packages, and assay is not there)."""
    missing = (exc.name or "").partition(".")[0]
    if missing in OPTIONAL_PACKAGES:  # an extra of assay's (bm25s for the example bot): one line mends it
        package, extra = OPTIONAL_PACKAGES[missing]
        fix = f"pip install 'assay[{extra}]' (it brings {package}); for a bot of your own, {ENVIRONMENT_FIX}"
    else:
        fix = ENVIRONMENT_FIX
    return UsageError(
        f"importing {what} of --system {spec!r} needs the module {exc.name!r}, which is not installed in "
        f"the Python that runs assay ({sys.executable})",
        fix=fix,
    )


def _attribute(module: ModuleType, name: str, spec: str) -> Callable[..., Any]:
    found: object = module
    for part in name.split("."):
        if not hasattr(found, part):
            public = sorted(
                key for key, value in vars(module).items() if callable(value) and not key.startswith("_")
            )
            shown = ", ".join(public[:8]) + (", ..." if len(public) > 8 else "") or "none"
            raise UsageError(
                f"{module.__name__!r} has no {name!r} (--system {spec!r})",
                fix=f"name one of its callables: {shown}",
            )
        found = getattr(found, part)
    if not callable(found):
        raise UsageError(
            f"{name!r} of --system {spec!r} is a {type(found).__name__}, not a function",
            fix="name a function that takes (question, scope=None, **options)",
        )
    return found


def _check_call(function: Callable[..., Any], options: Mapping[str, object], spec: str) -> None:
    """Refuse at once a function that could never take the call, rather than failing every item."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin or an extension's function: its call will tell
        return
    try:
        signature.bind("question", scope=None, **options)
    except TypeError as exc:
        given = "".join(f", {key}=..." for key in options)
        raise UsageError(
            f"--system {spec!r} cannot be called as function(question, scope=...{given}) ({exc})",
            fix=_call_fix(signature, options),
        ) from None


def _call_fix(signature: inspect.Signature, options: Mapping[str, object]) -> str:
    """How to make it callable: a method named through its class wants an instance; else the parameters."""
    if next(iter(signature.parameters), None) == "self":
        return "name the method of an instance (bot.py:bot.answer, with bot = Bot() in the module)"
    fix = "give it the parameters (question, scope=None, **options)"
    return f"{fix}, or leave out the --system-option" if options else fix
