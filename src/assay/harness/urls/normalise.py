"""One spelling per URL, so the same page found in a facts file, a gold set and a Markdown corpus is
checked once and a verdict joins the claims that cite it.

``normalise_url`` takes a URL as it was written in running text (``<https://x>``, ``(see https://x).``,
``"https://x"``) and returns it with its wrappers and trailing sentence punctuation gone, the scheme and
host lowercased, a unicode host IDNA-encoded, the default port and the ``#fragment`` dropped, and an
empty path written ``/``. The path and query are kept exactly as written: ``%2F`` and ``/`` name different
resources to a server (RFC 3986 section 6.2.2.2 lets only unreserved characters be decoded), and the
query's order and case are the site's business. The one change inside them is a bare space, which no URL
can hold (RFC 3986 section 2): it is written ``%20``, as a browser sends it. Anything that is not an http
or https URL with a host is None: the checker has nothing it may ask.
"""

from __future__ import annotations

import ipaddress

import regex

SCHEMES = {"http": 80, "https": 443}  # the schemes checked, and each one's default port

_OPENERS = "<([{*\"'`"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Sentence punctuation and emphasis that end a URL in prose and almost never end a real one.
_TRAILING = ".,;:!?*\"'`>"
# A host name's labels as DNS writes them; "_" appears in real host names though RFC 952 forbids it.
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST = regex.compile(rf"(?:{_LABEL}\.)*{_LABEL}\.?")
_CONTROL = regex.compile(r"[\x00-\x20\x7f]")


def normalise_url(text: str) -> str | None:
    """`text` as one canonical http(s) URL, or None when it is not one (see the module's docstring)."""
    # The fragment goes first: it is never sent to the server, and what ends the URL is what ends it
    # once the fragment is gone ("https://x/a.#top" is "https://x/a").
    bare = _unwrapped(text.split("#", 1)[0])
    scheme, sep, rest = bare.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        return None
    rest = rest.replace(" ", "%20")
    if _CONTROL.search(rest):  # a tab or line break inside: two words, not one URL
        return None
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    netloc = _netloc(authority, SCHEMES[scheme])
    if netloc is None:
        return None
    return f"{scheme}://{netloc}{tail if tail.startswith('/') else '/' + tail}"


def _unwrapped(text: str) -> str:
    """`text` without the marks prose puts around a URL: surrounding brackets and quotes, trailing
    punctuation, and a closing bracket that closes nothing opened inside the URL (Wikipedia's
    ``Mercury_(planet)`` keeps its ``)``; ``(see https://x/a)`` loses it)."""
    previous = None
    while text != previous:
        previous = text
        text = text.strip().lstrip(_OPENERS).rstrip(_TRAILING)
        last = text[-1:]
        if last in _CLOSERS and text.count(_CLOSERS[last]) < text.count(last):
            text = text[:-1]
    return text


def _netloc(authority: str, default_port: int) -> str | None:
    """The authority with its host lowercased (IDNA for a unicode one) and its default port dropped;
    None when the host is missing or is no host name or IP address."""
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):  # an IPv6 literal: [::1]:8080
        end = hostport.find("]")
        host, port_part = hostport[: end + 1], hostport[end + 1 :]
        if end < 0 or (port_part and not port_part.startswith(":")) or not _ipv6(host[1:-1]):
            return None
        host, port = host.lower(), port_part[1:]
    else:
        name, _, port = hostport.partition(":")
        ascii_host = _ascii_host(name)
        if ascii_host is None:
            return None
        host = ascii_host
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        return None
    shown = "" if not port or int(port) == default_port else f":{int(port)}"
    return f"{userinfo}{at}{host}{shown}"


def _ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _ascii_host(host: str) -> str | None:
    """A host name lowercased; a unicode one IDNA-encoded (UTS 46 mapping, then IDNA 2008, as browsers
    do; IDNA 2003 for the names 2008 refuses, such as symbols); None when it is no host name."""
    if not host.isascii():
        import idna  # httpx's own dependency; only unicode hosts need it

        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                return None
    host = host.lower()
    return host if host and _HOST.fullmatch(host) else None
