"""The check of a system before a run asks it anything (issue 23): a system that is down stops the run
with exit 2, the reason, its address and a fix, instead of every item becoming a system_error and the
run exiting 0 on reports of 0%.

A system adapter probes itself with ``async def probe(self) -> None`` (optional: an adapter without one,
a plug-in's, is not checked), raising ``SystemDown``. What each built-in adapter sends (docs/systems.md):

    openai:BASE_URL   GET BASE_URL/models (the model must be among those listed, when there is a list),
                      then one chat completion of PROBE_QUESTION with max_tokens 1
    http:URL          one POST of the configured request body, PROBE_QUESTION as the question and no scope
    in process        nothing is called: the callable was imported and checked when the spec was read

Every HTTP request of a probe carries the header ``X-Assay-Probe: 1``, so that a team's server can tell
it from an item (and answer it cheaply, or leave it out of its logs).

What counts as down (``down_status``): no reply (connection refused, a name that does not resolve, no
whole reply within the system's timeout), HTTP 401/403 (the key is refused: every item would be), 404 or
405 (nothing is served there, or not by that method), and 502, 503 or 504 (no system behind the address:
a gateway with nothing up, or a server still loading its model). Any other reply means a server is
there: another 4xx (a 400 or 422 refusing the probe's question, a 429) or a 500 is left to the items,
which report their own failures. A 500 is the bot's own code failing, and it may fail on the probe
only (its question is no item's, its scope none) while every item would be answered.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ...errors import UsageError
from ...net import display_url

PROBE_HEADER = "X-Assay-Probe"
PROBE_QUESTION = "assay probe: are you up? (one request before the run; any reply will do)"
START_FIX = "start the system, or correct the address of --system"
_NOTHING_BEHIND = frozenset({502, 503, 504})  # a gateway's or a loading server's: nothing to ask yet
_DOWN_STATUSES = {
    401: ("refused the credentials", "check the API key or the headers in [system.headers]"),
    403: ("refused the credentials", "check the API key or the headers in [system.headers]"),
    404: ("has nothing at that address", "correct the path of --system's URL"),
    405: ("does not take that method there", "correct the path of --system's URL"),
}


class SystemDown(UsageError):
    """The system under test did not pass its check before the run: nothing was asked."""


@runtime_checkable
class Probed(Protocol):
    """A system that can be checked before it is asked anything."""

    async def probe(self) -> None: ...


async def probe_system(system: object) -> None:
    """The system's own check (``probe``), when it has one; SystemDown when it is down."""
    if isinstance(system, Probed):
        await system.probe()


def no_reply(url: str, request: str, failure: str) -> SystemDown:
    """The error of a request that got no reply (refused, unresolved, timed out)."""
    return SystemDown(
        f"the system at {display_url(url)} does not answer {request} ({failure})",
        fix=START_FIX,
    )


def down_status(url: str, request: str, status: int) -> SystemDown | None:
    """The error of a status that means the system cannot be asked (see the module's docstring); None
    for one that means a server is there."""
    shown = display_url(url)
    if status in _DOWN_STATUSES:
        what, fix = _DOWN_STATUSES[status]
        return SystemDown(f"the system at {shown} {what}: {request} got HTTP {status}", fix=fix)
    if status in _NOTHING_BEHIND:
        return SystemDown(
            f"the system at {shown} answered {request} with HTTP {status}",
            fix="check the system's log (a server still starting answers 503: wait for it)",
        )
    return None


__all__ = [
    "PROBE_HEADER",
    "PROBE_QUESTION",
    "Probed",
    "SystemDown",
    "down_status",
    "no_reply",
    "probe_system",
]
