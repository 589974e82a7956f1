"""One spelling per URL, so the same page found in a facts file, a gold set and a Markdown corpus is
checked once and a verdict joins the claims that cite it.

``normalise_url`` takes a URL as it was written in running text (``<https://x>``, ``(see https://x).``,
``"https://x"``) and returns it with its wrappers and trailing sentence punctuation gone, any
``user:password@`` dropped (a credential must never reach a report, and the checker sends none), the
scheme and host lowercased (``HTTP://`` is ``http://``), the host's percent escapes decoded
(``ex%41mple.com``), a unicode host IDNA-encoded, the root's trailing dot dropped (``example.com.`` is
``example.com``), the default port and the ``#fragment`` dropped, and an empty path written ``/``. The
path loses its dot segments (``/a/./b/../c`` is ``/a/c``; httpx sends it so anyway), and in the path and
query a non-ASCII character is written as the percent escapes of its UTF-8 bytes (an IRI's ``/straße``
is ``/stra%C3%9Fe``, RFC 3987 section 3.1, the request httpx sends for either), a percent escape of an
unreserved character is decoded (``%7E`` is ``~``) and every other one written in capitals (``%2f`` is
``%2F``), as RFC 3986 section 6.2.2 says of equivalent URLs. Invisible format characters (a soft
hyphen, a zero-width space) are dropped from them. Otherwise the path and query are kept exactly as
written: ``%2F`` and ``/`` name different resources to a server, and the query's order and case are the
site's business (``?a=1`` and ``?A=1`` stay two URLs). The one other change inside them is a bare space,
which no URL can hold (RFC 3986 section 2): it is written ``%20``, as a browser sends it. Anything that
is not an http or https URL with a host is None: the checker has nothing it may ask.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import unquote

import regex

SCHEMES = {"http": 80, "https": 443}  # the schemes checked, and each one's default port

_OPENERS = "<([{*\"'`"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Sentence punctuation and emphasis that end a URL in prose and almost never end a real one.
_TRAILING = ".,;:!?*\"'`>"
# A sentence run into the URL for want of a space ("see https://x/by/4.0/.The licence"): a last path
# segment that is "." and a capitalised word; a real one starting "." is a hidden name, in lower case.
_RUN_ON_SENTENCE = regex.compile(r"(?<=/)\.\p{Lu}\p{Ll}+$")
# A host name's labels as DNS writes them; "_" appears in real host names though RFC 952 forbids it.
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST = regex.compile(rf"(?:{_LABEL}\.)*{_LABEL}")
_CONTROL = regex.compile(r"[\x00-\x20\x7f]")
_PERCENT = regex.compile(r"%([0-9A-Fa-f]{2})")
# Invisible format characters (a soft hyphen, a zero-width space, a bidi mark, a BOM) that text copied
# from a PDF or a web page leaves inside a URL: no server's path holds them, and sent they are a 404.
_INVISIBLE = regex.compile(r"\p{Cf}")
_NON_ASCII = regex.compile(r"[^\x00-\x7f]+")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


MAX_URL_CHARS = 8192  # RFC 9110 section 4.1 asks servers for 8,000 octets at least; longer is no citation


def normalise_url(text: str) -> str | None:
    """`text` as one canonical http(s) URL, or None when it is not one (see the module's docstring)."""
    return _normal(text)[0]


def url_problem(text: str) -> str:
    """Why `text` is no URL the checker may ask ("" when it is one): what a malformed URL is reported
    with ("the port 99999 is not a number from 0 to 65535", "the IPv6 address's [ is not closed")."""
    return _normal(text)[1]


def _normal(text: str) -> tuple[str | None, str]:
    """(the canonical URL, "") or (None, why not)."""
    # The fragment goes first: it is never sent to the server, and what ends the URL is what ends it
    # once the fragment is gone ("https://x/a.#top" is "https://x/a").
    bare = _unwrapped(text.split("#", 1)[0])
    scheme, sep, rest = bare.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        return None, "not an http or https URL"
    if len(bare) > MAX_URL_CHARS:
        return None, f"{len(bare):,} characters, more than the {MAX_URL_CHARS:,} a URL may have here"
    rest = rest.replace(" ", "%20")
    if control := _CONTROL.search(rest):  # a tab or line break inside: two words, not one URL
        return None, f"a control character (U+{ord(control.group()):04X}) inside it"
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    netloc, why = _netloc(authority, SCHEMES[scheme])
    if netloc is None:
        return None, why
    return f"{scheme}://{netloc}{_path_and_query(tail)}", ""


def _path_and_query(tail: str) -> str:
    """The path (``/`` when empty) without dot segments, and the query; in both, invisible format
    characters dropped, each percent escape of an unreserved character decoded and every other one in
    capitals (RFC 3986 sections 6.2.2.1-3): spellings of one request, as the server receives it (httpx
    removes dot segments before sending)."""
    path, mark, query = _as_ascii(str(_INVISIBLE.sub("", tail))).partition("?")
    path = _without_dot_segments(_escaped(path if path.startswith("/") else "/" + path))
    return path + mark + _escaped(query)


def _as_ascii(text: str) -> str:
    """An IRI's path and query as a URI's (RFC 3987 section 3.1): each non-ASCII character as the
    percent escapes of its UTF-8 bytes, so ``/straße`` and ``/stra%C3%9Fe`` (the request httpx sends
    for either) are one URL."""
    return str(_NON_ASCII.sub(_utf8_escapes, text))


def _utf8_escapes(found: regex.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in found.group().encode("utf-8", "surrogatepass"))


def _escaped(text: str) -> str:
    return str(_PERCENT.sub(_escape, text))


def _escape(found: regex.Match[str]) -> str:
    char = chr(int(found.group(1), 16))
    return char if char in _UNRESERVED else "%" + found.group(1).upper()


def _without_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4 for an absolute path: ``/a/./b/../c`` is ``/a/c``."""
    kept: list[str] = []
    segments = path.split("/")[1:]
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    last = segments[-1] if segments else ""
    return "/" + "/".join(kept) + ("/" if last in (".", "..") and kept else "")


def without_wrappers(text: str) -> str:
    """`text` without the brackets, quotes and trailing punctuation prose puts around a URL: how a
    malformed URL is shown (``(http://[::1).`` is ``http://[::1``)."""
    return _unwrapped(text)


def _unwrapped(text: str) -> str:
    """`text` without the marks prose puts around a URL: surrounding brackets and quotes, trailing
    punctuation, and a closing bracket that closes nothing opened inside the URL (Wikipedia's
    ``Mercury_(planet)`` keeps its ``)``; ``(see https://x/a)`` loses it), and the first word of a
    sentence that follows it without a space (``https://x/a/.The``)."""
    previous = None
    while text != previous:
        previous = text
        text = _RUN_ON_SENTENCE.sub("", text.strip().lstrip(_OPENERS)).rstrip(_TRAILING)
        last = text[-1:]
        if last in _CLOSERS and text.count(_CLOSERS[last]) < text.count(last):
            text = text[:-1]
    return text


def _netloc(authority: str, default_port: int) -> tuple[str | None, str]:
    """(the authority with its host lowercased (IDNA for a unicode one) and its default port dropped,
    ""), or (None, why) when the host is missing or is no host name or IP address, or the port no port."""
    hostport = authority.rpartition("@")[2]  # the user:password@ dropped
    if hostport.startswith("["):  # an IPv6 literal: [::1]:8080
        host, port, why = _ipv6_host(hostport)
        if host is None:
            return None, why
    else:
        name, _, port = hostport.partition(":")
        unescaped = _unescaped_host(name)
        if unescaped is None:
            return None, f"the host {name!r} holds percent escapes that are not UTF-8"
        host = _ascii_host(unescaped)
        if host is None:
            return None, f"the host {name!r} is not a valid host name" if name else "it has no host"
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        return None, f"the port {port[:20]!r} is not a number from 0 to 65535"
    shown = "" if not port or int(port) == default_port else f":{int(port)}"
    return f"{host}{shown}", ""


def _ipv6_host(hostport: str) -> tuple[str | None, str, str]:
    """([the address in one spelling], the port, "") of "[::1]:8080", or (None, "", why not)."""
    end = hostport.find("]")
    if end < 0:
        return None, "", "the IPv6 address's [ is not closed"
    address, port_part = hostport[1:end], hostport[end + 1 :]
    if port_part and not port_part.startswith(":"):
        return None, "", f"{port_part[:20]!r} follows the IPv6 address's ]"
    if "%" in address:  # RFC 6874's zone id: an interface of one machine, which no citation can name
        zone = f"the IPv6 address {address[:60]!r} has a zone id"
        return None, "", f"{zone}, which names a network interface of one machine, not a host"
    if not _ipv6(address):
        return None, "", f"{address[:60]!r} is not an IPv6 address"
    return f"[{_ipv6_form(address)}]", port_part[1:], ""


def _ipv6_form(text: str) -> str:
    """One spelling of an IPv6 address: [0:0::1] is [::1] (an IPv4-mapped one kept as written)."""
    address = ipaddress.IPv6Address(text)
    return text.lower() if address.ipv4_mapped is not None else address.compressed


def _ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _unescaped_host(name: str) -> str | None:
    """A host name with its percent escapes decoded (RFC 3986 section 3.2.2 lets a name be written
    ``ex%41mple.com``, and ``stra%C3%9Fe.de`` is UTF-8 for ``straße.de``); None when they are no UTF-8."""
    if "%" not in name:
        return name
    try:
        return unquote(name, errors="strict")
    except UnicodeDecodeError:
        return None


def _ascii_host(host: str | None) -> str | None:
    """A host name lowercased; a unicode one IDNA-encoded (UTS 46 mapping, then IDNA 2008, as browsers
    do; IDNA 2003 for the names 2008 refuses, such as symbols), without the root's trailing dot
    (``example.com.`` is the same host as ``example.com``); None when it is no host name."""
    if host is None:
        return None
    if host.endswith("."):
        host = host[:-1]
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
