"""The httpx clients of the judges, the systems under test and the URL check: lent one request at a time.

Why not one client for every request: httpx's connection pool (httpcore's) walks all its connections
each time a request starts or ends, and for each idle one counts the idle ones again and asks its socket
whether the server hung up. At 32 requests in flight to one server that walk cost 9 ms of CPU a request,
three times the rest of the request's work, and at 200 ms a reply it made the run CPU-bound. A client
lent to one request at a time has one connection, kept alive for the next request it is lent to, and
nothing to walk.

The clients share what is costly to make or must be one: the SSL context (making one reads the CA
bundle: 55 ms, which 32 clients would pay 32 times) and the cookie jar (a redirect's next hop may be
asked on another client, and a site's cookie check must see its cookie). Idle clients are kept per
origin, the last returned lent first (its connection is the warmest); past ``keep`` idle ones, the
longest idle is closed.

Importing this module also spares the HTTP stack its failed imports (``spare_failed_imports``).
"""

from __future__ import annotations

import importlib
import os
import ssl
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http.cookiejar import CookieJar
from typing import Any

from .extras import missing_extra

try:
    import httpx
except ImportError:  # a lean install (pip install assay): its importers say the same, first
    raise missing_extra("httpx", "to ask a server over HTTP") from None

# Modules the HTTP stack imports inside its calls, and uses only when they are installed: httpcore 1.0 runs
# `import sniffio` each time it makes a lock, a semaphore or an event, about twelve times a request. When
# the module is missing, each of those imports searches sys.path anew and fails (0.3 ms each: a quarter
# more CPU for a whole run at 32 requests in flight).
OPTIONAL_HTTP_IMPORTS = ("sniffio",)
KEEP_IDLE = 64  # idle clients (each one kept-alive connection) past which the longest idle is closed


def spare_failed_imports(names: tuple[str, ...] = OPTIONAL_HTTP_IMPORTS) -> None:
    """Try each module once; one that is missing is marked so in ``sys.modules`` (None: the import
    system's own "not to be found"), so that every later ``import`` of it fails at once, with the same
    ModuleNotFoundError, instead of searching the path again. An installed one is imported and kept."""
    for name in names:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = None  # type: ignore[assignment]


spare_failed_imports()

_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def ssl_context() -> ssl.SSLContext:
    """The SSL context httpx makes by default (certifi's CA bundle, or SSL_CERT_FILE / SSL_CERT_DIR when
    set), made once a process for each setting of those variables."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if key not in _contexts:
        _contexts[key] = httpx.create_ssl_context(trust_env=True)
    return _contexts[key]


class Clients:
    """httpx clients made with the same settings (``httpx.AsyncClient``'s keyword arguments), lent one
    request at a time by ``lease``; ``aclose`` closes them all."""

    def __init__(self, keep: int = KEEP_IDLE, **settings: Any) -> None:
        self._settings = settings
        self._keep = keep
        self._jar = CookieJar()
        self._idle: OrderedDict[httpx.AsyncClient, str] = OrderedDict()  # client -> origin, oldest first
        self._by_origin: dict[str, list[httpx.AsyncClient]] = {}
        self._made: set[httpx.AsyncClient] = set()

    @asynccontextmanager
    async def lease(self, url: str = "") -> AsyncIterator[httpx.AsyncClient]:
        """A client of its own for one request (and the reading of its reply) to `url`'s origin: an idle
        one that asked the same origin, or a new one."""
        origin = _origin(url)
        idle = self._by_origin.get(origin)
        if idle:
            client = idle.pop()
            del self._idle[client]
        else:
            client = self._new()
        try:
            yield client
        finally:
            await self._give_back(client, origin)

    async def _give_back(self, client: httpx.AsyncClient, origin: str) -> None:
        if client.is_closed:
            self._made.discard(client)
            return
        self._by_origin.setdefault(origin, []).append(client)
        self._idle[client] = origin
        while len(self._idle) > self._keep:
            oldest, where = self._idle.popitem(last=False)
            self._by_origin[where].remove(oldest)
            self._made.discard(oldest)
            await oldest.aclose()

    def _new(self) -> httpx.AsyncClient:
        settings = {"verify": ssl_context(), "cookies": self._jar, **self._settings}
        client = httpx.AsyncClient(**settings)
        self._made.add(client)
        return client

    async def aclose(self) -> None:
        made, self._made = self._made, set()
        self._idle.clear()
        self._by_origin.clear()
        for client in made:
            await client.aclose()


def _origin(url: str) -> str:
    """Where a request goes (scheme, host and port): the key idle clients are kept by."""
    if "://" not in url:
        return ""  # a path on the clients' base_url
    scheme, _, rest = url.partition("://")
    return f"{scheme.lower()}://{rest.split('/', 1)[0].split('?', 1)[0].split('#', 1)[0].lower()}"


__all__ = ["KEEP_IDLE", "OPTIONAL_HTTP_IMPORTS", "Clients", "spare_failed_imports", "ssl_context"]
