"""Threads for a system's sync calls that can be abandoned: a call hung past its timeout must hold
neither the run's end nor the interpreter's exit (a ThreadPoolExecutor's workers are joined at exit)."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class DaemonThreads(concurrent.futures.ThreadPoolExecutor):
    """Each call in a daemon thread of its own: a call that never returns holds neither the loop's
    shutdown (``shutdown`` does not wait) nor the interpreter's exit (daemon threads are not joined).
    The run's concurrency bounds the threads (plus the calls abandoned at their timeout). A
    ThreadPoolExecutor only in name, which asyncio requires of a default executor: none of its
    workers is ever started."""

    def submit(
        self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # the future carries it to the awaiting coroutine
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=work, name="assay-system-call", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to wait for: a call still running is one abandoned at its timeout."""
