"""The URL check's settings: how many URLs at once, how politely, how long to wait, what to refuse, and
which names tell whether DNS works here. check.py re-exports CheckSettings, its public home."""

from __future__ import annotations

from dataclasses import dataclass

from ..._version import __version__
from ...errors import UsageError
from ...net import MAX_RETRY_AFTER

NON_NEGATIVE = ("interval", "timeout", "retries", "max_redirects", "max_retry_after", "backoff", "deadline")


@dataclass(frozen=True)
class CheckSettings:
    concurrency: int = 8  # URLs checked at once
    per_host: int = 2  # requests in flight to one host
    interval: float = 0.5  # seconds between the starts of two requests to one host
    timeout: float = 10.0  # one request, total: connect, headers and the (bounded) body
    retries: int = 2
    max_redirects: int = 10
    allow_private: bool = False
    user_agent: str = f"assay-urls/{__version__}"
    max_retry_after: float = MAX_RETRY_AFTER
    backoff: float = 0.5  # the first retry's wait; each later one doubles it
    deadline: float = 120.0  # one URL's whole check: every attempt, hop and wait
    private_hosts: tuple[str, ...] = ()  # host names allowed to resolve to private addresses
    # Names that resolve wherever DNS works (RFC 2606 keeps example.com): "no such host" is believed only
    # when one of them resolves, or another host of the run resolved to a public address. () believes it.
    dns_canary: tuple[str, ...] = ("example.com",)

    def __post_init__(self) -> None:
        for name in ("concurrency", "per_host"):
            value = getattr(self, name)
            if value < 1:
                raise UsageError(f"{name} must be at least 1, not {value}", fix=f"give {name} >= 1")
        for name in NON_NEGATIVE:
            value = getattr(self, name)
            if not value >= 0:  # NaN too
                raise UsageError(f"{name} must not be negative, not {value}", fix=f"give {name} >= 0")
        for name in ("private_hosts", "dns_canary"):
            value = getattr(self, name)
            if isinstance(value, str):  # a bare name would be read a character at a time
                raise UsageError(f"{name} must be a tuple of names, not {value!r}", fix=f"give ({value!r},)")
