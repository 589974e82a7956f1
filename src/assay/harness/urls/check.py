"""Checking URLs over HTTP: each URL walked by hand through its redirects and given one class.

One URL's check, as the code does it:

- Before every request (the first and each redirect hop) the URL is vetted: only http and https are
  checked (another scheme is ``blocked``: unverifiable here); the host is resolved (getaddrinfo, in a
  thread, bounded by the timeout), and unless ``allow_private`` every address it resolves to must be
  public: a loopback, private, link-local, reserved or multicast address is ``blocked`` (so a public page
  redirecting to 127.0.0.1 is refused at that hop). httpx resolves the name again to connect, so a DNS
  server answering differently the second time (rebinding) is not caught; the check is a guard against
  cited intranet addresses, not a sandbox.
- HEAD first. Any HEAD answered 4xx or 5xx (except 429), or not answered (a timeout, a dropped
  connection), is asked again as a GET of the first bytes (``Range: bytes=0-1023``; 1024 bytes kept, then
  closed; a gzip or deflate body, sent though identity was asked, is inflated only that far): servers
  refuse HEAD with 405, 501, 400, 403 and even 404 or 500, or never answer it, while serving GET, so no
  verdict rests on a HEAD refusal alone. A URL expected to be a PDF is always asked with GET, to see
  ``%PDF-`` in its first 1024 bytes (where PDF readers look).
- Redirects (301, 302, 303, 307, 308) are followed by hand, each hop recorded, up to ``max_redirects``;
  a URL met twice in one chain is a redirect loop (three times, when a hop set a cookie: a site's cookie
  check sends the browser back once). 303 turns the next request into a GET. URLs are dealt to the
  workers one host at a time, so a host held to its limit does not keep the others waiting.
- Transient faults (429, 5xx but 501/505, timeouts, connection errors, DNS failures) are retried
  ``retries`` times with exponential backoff from ``backoff`` seconds, or after the server's Retry-After
  when longer; a Retry-After past ``max_retry_after`` is not waited for: the answer stands.
- Every request has a total ``timeout`` (connecting, headers and the bounded body: a server dripping bytes
  cannot hold it), and a URL's whole check a ``deadline``.
- "No such host" is believed only when the resolver demonstrably resolves names in this run: another
  host of the run resolved to a public address, or one of the ``dns_canary`` names resolves (looked up
  once a run, only when a host is missing). An offline machine or a firewalled CI runner says "no such
  host" of every name; there the verdict is ``error`` (a dead host cannot be told from no DNS).

The classes: ``ok`` (2xx at once), ``redirected`` (2xx after redirects; ``final_url`` kept), ``broken``
(404, 410, a host that does not exist after retries where DNS works, a malformed URL, and a URL expected
to be a PDF whose 2xx body is not one), ``blocked`` (401, 403, 407, 429, 451 and any other 4xx:
unverifiable, never broken; a refused scheme or address), ``error`` (5xx, timeouts, connection faults
after retries; redirect loops and chains too long; no such host where DNS resolves nothing), ``soft_404``
(a deep link, a path or query beyond ``/``, a PDF's too, redirected to a home page ``/`` or a login page,
answered 2xx; a 200 page titled "Not Found" is not looked for: it would need every body read). Only
answers that prove a citation dead count as broken (404, 410, a missing host, a malformed URL, a PDF
that is not one), because the exit code gates CI on broken and a WAF's 400 or 403 must not fail a build.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from itertools import zip_longest
from urllib.parse import urlsplit

import regex

from ...extras import missing_extra
from ...net import retry_after
from .cache import UrlCache
from .extract import FoundUrl
from .fetch import PDF_WINDOW, Answer, Fetcher, ask, hold_location, host_of_url, phrase, vet
from .settings import CheckSettings as CheckSettings  # its public home is this module
from .verdict import CLASSES, Hop, UrlVerdict

try:
    import httpx
except ImportError:  # a lean install (pip install assay): name the extra that brings httpx
    raise missing_extra("httpx", "to check URLs") from None

from ...http_clients import Clients  # after httpx: a lean install is told the extra

URL_CLASSES = CLASSES  # the name assay.harness gives them, beside its OUTCOMES and STATUSES
REDIRECTS = frozenset({301, 302, 303, 307, 308})
BROKEN_STATUSES = frozenset({404, 410})
NOT_TRANSIENT_5XX = frozenset({501, 505})  # the server says it never will, however often asked
PDF_MAGIC = b"%PDF-"
ROOT_PAGE = regex.compile(r"/(?:index|default|home)(?:\.\w+)?/?", regex.I)  # /index.html -> / is no soft 404
# A login page's path or query: the words as whole tokens, so /author or /casual do not match.
LOGIN = regex.compile(
    r"(?<![a-z])(?:log-?in|log-?on|sign-?in|sign_in|auth|oauth2?|sso|saml)(?![a-z])", regex.I
)


@dataclass
class _Context:
    fetcher: Fetcher
    cache: UrlCache | None

    @property
    def settings(self) -> CheckSettings:
        return self.fetcher.settings


@dataclass
class _Walk:
    hops: list[Hop] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last: Answer = field(default_factory=Answer)
    stop: tuple[str, str] | None = None  # (class, reason) when the walk ended short of a final answer


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _hop_notes(source: str, target: str) -> list[str]:
    before, after = urlsplit(source), urlsplit(target)
    notes: list[str] = []
    if after.scheme not in ("http", "https"):  # refused at the next hop, which says why
        return notes
    if before.scheme == "http" and after.scheme == "https":
        notes.append("http->https")
    elif before.scheme == "https" and after.scheme == "http":
        notes.append("https->http (downgraded)")
    if before.hostname != after.hostname:
        notes.append(f"cross-host: {before.hostname} -> {after.hostname}")
    return notes


async def _walk(found: FoundUrl, ctx: _Context, validators: dict[str, str]) -> _Walk:
    """Follow `found.url` hop by hop to its final answer, a refusal, a fault, a loop or the limit."""
    walk, url, seen = _Walk(), found.url, Counter([found.url])
    method = "GET" if found.expect_pdf else "HEAD"
    cookie_set = False
    while True:
        answer = await vet(url, ctx.fetcher) or await ask(url, method, ctx.fetcher, validators)
        walk.hops.append(Hop(url, answer.status))
        walk.last = answer
        cookie_set = cookie_set or "set-cookie" in answer.headers
        if answer.status not in REDIRECTS:
            return walk
        location = answer.headers.get("location")
        if not location:
            walk.stop = ("error", f"{phrase(answer.status)} without a Location")
            return walk
        try:
            # No user:password@ kept: never printed in the chain (httpx would not send them either)
            target = str(httpx.URL(url).join(location.strip()).copy_with(fragment=None, userinfo=b""))
        except (httpx.InvalidURL, ValueError):
            target = ""
        refused = host_of_url(target) if target else Answer(klass="broken")
        if isinstance(refused, Answer) and refused.klass == "broken":  # the server's fault, not the URL's
            walk.stop = ("error", f"{phrase(answer.status)} to a malformed Location {location[:100]!r}")
            return walk
        walk.notes.extend(_hop_notes(url, target))
        # A site that sets a cookie and sends the browser back where it came from (a cookie check) is
        # no loop: with the cookie (the client keeps them) the second visit answers. A third one is.
        if seen[target] > (1 if cookie_set else 0):
            walk.stop = ("error", f"redirect loop: {target} again after {len(walk.hops)} hops")
            return walk
        if len(walk.hops) > ctx.settings.max_redirects:
            walk.stop = ("error", f"more than {ctx.settings.max_redirects} redirects")
            return walk
        seen[target] += 1
        url = target
        method = "GET" if found.expect_pdf or answer.status == 303 else "HEAD"


def _retry_after(answer: Answer) -> float | None:
    """Seconds the server asked to wait (``net.retry_after``) with a 429 or 503, or None."""
    return retry_after(answer.headers.get("retry-after")) if answer.status in (429, 503) else None


def _transient(walk: _Walk) -> bool:
    status = walk.last.status
    if walk.stop is not None:
        return False
    if status is None:
        return walk.last.transient
    return status == 429 or (status >= 500 and status not in NOT_TRANSIENT_5XX)


def _soft_404_target(url: str, final: str) -> str | None:
    """ "a home page" or "a login page" when a deep link `url` landed on one, else None."""
    start, end = urlsplit(url), urlsplit(final)
    if (start.path in ("", "/") or ROOT_PAGE.fullmatch(start.path)) and not start.query:
        return None  # not a deep link: the home page itself, by one of its names
    if end.path in ("", "/") and not end.query:
        return "a home page"
    if LOGIN.search(end.path) or LOGIN.search(end.query):
        return "a login page"
    return None


def _answered(found: FoundUrl, walk: _Walk) -> tuple[str, str, bool | None]:
    """(class, reason, is_pdf) from the final answer's status (and body, when a PDF was expected)."""
    answer = walk.last
    status = answer.status or 0
    said = answer.asked + phrase(status)
    redirects = len(walk.hops) - 1
    if not 200 <= status < 300:
        if status in BROKEN_STATUSES:
            return "broken", said, None
        if 400 <= status < 500:
            return "blocked", said, None
        return "error", said if status >= 500 else f"{said}, not followed", None
    is_pdf = PDF_MAGIC in (answer.body or b"")[:PDF_WINDOW] if found.expect_pdf else None
    if found.expect_pdf and answer.unread:  # no way to tell: said, not guessed
        said += f" (a PDF was expected; the body came {answer.unread}-encoded, not read here)"
        is_pdf = None
    after = f"{said} after {redirects} redirect{'s' if redirects > 1 else ''}"
    # A PDF link sent to a home or login page is a soft 404 (to look at), as any deep link is: the
    # home page is no PDF, but a login wall is no proof that the document is gone.
    landing = _soft_404_target(found.url, walk.hops[-1].url) if redirects else None
    if landing is not None:
        return "soft_404", f"a deep link redirected to {landing} ({walk.hops[-1].url}), {after}", is_pdf
    if is_pdf is False:
        kind = answer.headers.get("content-type", "no content type").split(";")[0]
        return "broken", f"{said}, but a PDF was expected and the body is not one ({kind})", is_pdf
    if not redirects:
        return "ok", said, is_pdf
    return "redirected", after, is_pdf


def _verdict(found: FoundUrl, walk: _Walk, attempts: int, notes: list[str]) -> UrlVerdict:
    answer = walk.last
    if walk.stop is not None:
        klass, reason, is_pdf = *walk.stop, None
    elif answer.status is None:
        klass, reason, is_pdf = answer.klass, answer.fault, None
    else:
        klass, reason, is_pdf = _answered(found, walk)
    final = walk.hops[-1].url if walk.stop is None and answer.status is not None else None
    if attempts > 1 and _transient(walk):
        reason += f" (after {attempts} attempts)"
    return UrlVerdict(
        url=found.url,
        klass=klass,
        status=answer.status,
        final_url=final,
        chain=tuple(walk.hops),
        checked_at=_now_iso(),
        reason=reason,
        notes=tuple(dict.fromkeys([*walk.notes, *notes])),
        is_pdf=is_pdf,
        attempts=attempts,
        expect_pdf=found.expect_pdf,
    )


async def _walk_with_retries(
    found: FoundUrl, ctx: _Context, validators: dict[str, str], tries: list[int], notes: list[str]
) -> _Walk:
    settings = ctx.settings
    while True:
        tries[0] += 1
        walk = await _walk(found, ctx, validators)
        if not _transient(walk) or tries[0] > settings.retries:
            return walk
        wait = settings.backoff * 2 ** (tries[0] - 1)
        asked = _retry_after(walk.last)
        said = phrase(walk.last.status) if walk.last.status else walk.last.fault
        if asked is not None and asked > settings.max_retry_after:
            cap = settings.max_retry_after
            notes.append(f"not retried: Retry-After {asked:g} s is past the {cap:g} s cap")
            return walk
        if asked is not None and asked >= wait:
            notes.append(f"retried after {said}, waited {asked:g} s (Retry-After)")
            wait = asked
        else:
            notes.append(f"retried after {said}, waited {wait:g} s")
        await asyncio.sleep(wait)


def _malformed(found: FoundUrl) -> UrlVerdict:
    """A malformed URL's verdict, reached without asking anyone (and never cached): broken, with why."""
    return UrlVerdict(
        url=found.url,
        klass="broken",
        status=None,
        final_url=None,
        chain=(),
        checked_at=_now_iso(),
        reason=f"malformed URL: {found.malformed}",
        notes=(),
        is_pdf=None,
        attempts=0,
        expect_pdf=found.expect_pdf,
    )


async def _check(found: FoundUrl, ctx: _Context) -> UrlVerdict:
    """One URL's verdict: from the cache when fresh, revalidated when stale, else checked afresh; a
    malformed one is broken at once."""
    if found.malformed:
        return _malformed(found)
    entry = ctx.cache.lookup(found.url, found.expect_pdf) if ctx.cache else None
    if entry is not None and ctx.cache is not None and ctx.cache.is_fresh(entry):
        return replace(entry.verdict, notes=(*entry.verdict.notes, "served from cache"), attempts=0)
    validators = entry.validators() if entry is not None else {}
    tries: list[int] = [0]  # counted in place, so a deadline that cuts the walk still knows them
    notes: list[str] = []
    try:
        async with asyncio.timeout(ctx.settings.deadline):
            walk = await _walk_with_retries(found, ctx, validators, tries, notes)
    except TimeoutError:
        walk = _Walk(last=Answer(fault=f"no verdict within the {ctx.settings.deadline:g} s deadline"))
        walk.hops.append(Hop(found.url, None))
    if entry is not None and walk.stop is None and walk.last.status == 304:
        kept = (*entry.verdict.notes, "revalidated (304)")
        verdict = replace(entry.verdict, checked_at=_now_iso(), attempts=tries[0], notes=kept)
    else:
        verdict = _verdict(found, walk, tries[0], notes)
    if ctx.cache is not None:
        answered = walk.last.headers if walk.stop is None else httpx.Headers()
        etag, modified = answered.get("etag"), answered.get("last-modified")
        if entry is not None and walk.last.status == 304:  # a 304 need not repeat the validators
            etag, modified = etag or entry.etag, modified or entry.last_modified
        ctx.cache.store(verdict, etag, modified)
    return verdict


def _host_by_host(items: list[FoundUrl]) -> list[FoundUrl]:
    """`items` dealt one host at a time (a, b, c, a, b, a, ...), so that a host with many URLs, held to
    its own limit and interval, does not take every worker while the other hosts wait."""
    hosts: dict[str, list[FoundUrl]] = {}
    for item in items:
        try:
            host = urlsplit(item.url).hostname or ""
        except ValueError:
            host = ""
        hosts.setdefault(host, []).append(item)
    rounds = zip_longest(*hosts.values())
    return [item for turn in rounds for item in turn if item is not None]


async def check_urls(
    found: Sequence[FoundUrl],
    settings: CheckSettings,
    cache: UrlCache | None = None,
    progress: Callable[[UrlVerdict], None] | None = None,
) -> list[UrlVerdict]:
    """Every URL's verdict, in the order of `found` (a URL given twice is checked once); `progress` is
    called with each verdict as it is reached. The cache, when given, is saved at the end, and when the
    run is cut short (Ctrl-C, an error): the verdicts reached so far are whole, and worth keeping."""
    unique: dict[tuple[str, bool], FoundUrl] = {}
    for item in found:
        unique.setdefault((item.url, item.expect_pdf), item)
    verdicts: dict[tuple[str, bool], UrlVerdict] = {}
    todo = iter(_host_by_host(list(unique.values())))
    timeout = httpx.Timeout(settings.timeout)
    # identity: a ranged request's bytes are the file's own, and no decoder can inflate them
    headers = {"User-Agent": settings.user_agent, "Accept": "*/*", "Accept-Encoding": "identity"}
    hooks = {"response": [hold_location]}
    # A client of its own for each request (http_clients): the workers bound the connections in use,
    # and no request waits for a slot of a shared pool (where it would run out its timeout and be
    # called a server's timeout).
    clients = Clients(follow_redirects=False, timeout=timeout, headers=headers, event_hooks=hooks)
    ctx = _Context(Fetcher(settings, clients), cache)

    async def worker() -> None:
        for item in todo:  # one shared iterator: each URL goes to exactly one worker
            verdict = await _check(item, ctx)
            verdicts[(item.url, item.expect_pdf)] = verdict
            if progress is not None:
                progress(verdict)

    try:
        await asyncio.gather(*(worker() for _ in range(min(settings.concurrency, len(unique)))))
    finally:
        try:
            await clients.aclose()
        finally:
            if cache is not None:
                cache.save()
    return [verdicts[(item.url, item.expect_pdf)] for item in found]


def check_urls_sync(
    found: Sequence[FoundUrl],
    settings: CheckSettings,
    cache: UrlCache | None = None,
    progress: Callable[[UrlVerdict], None] | None = None,
) -> list[UrlVerdict]:
    """`check_urls` from synchronous code (it runs its own event loop)."""
    return asyncio.run(check_urls(found, settings, cache, progress))
