"""What comes into assay from a judge is made safe where it enters, so no writer downstream has to:

- secrets never leave the process (issue 9): the API key a judge sends, anything that looks like an
  Authorization value (``Bearer ...``, ``Basic ...``) and the userinfo of a URL (``http://user:pw@host``)
  are replaced by ``[redacted]`` in every reply, error message and URL shown, so a server that echoes
  the request cannot carry them into judge_raw, rationales, traces, reports or the cache;
- a lone surrogate (``"\\ud800"``, which JSON allows and UTF-8 cannot encode) becomes U+FFFD, the
  replacement character, instead of crashing every writer.
"""

from __future__ import annotations

import base64
from dataclasses import replace
from urllib.parse import unquote, urlsplit

import regex

from ._base import Reply

REDACTED = "[redacted]"
_MIN_SECRET = 4  # shorter values are not redacted literally (they would blank common words)
_secrets: set[str] = set()  # every key and URL password any judge of this process sends
# An Authorization value in prose: the scheme, then a token-like word (six or more token characters,
# one at least a digit or a symbol, so that "a basic answer" stays as it is). The literal values
# this process sends are registered above and redacted whatever they look like.
_TOKEN = r"(?=[A-Za-z0-9._~+/=-]*?[0-9._~+/=-])[A-Za-z0-9._~+/=-]{6,}"
_AUTH_VALUE = regex.compile(rf"\b(Bearer|Basic)\s+{_TOKEN}", regex.IGNORECASE)
_USERINFO = regex.compile(r"\b([a-z][a-z0-9+.-]*://)[^/\s@]+@", regex.IGNORECASE)


def register_secret(value: str) -> None:
    """A value this process sends (an API key, a URL's password) that no output may show."""
    if len(value) >= _MIN_SECRET:
        _secrets.add(value)


def register_url(url: str) -> None:
    """The userinfo of a base URL, as it is sent: user name, password, and the Basic value made of them."""
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:  # not a URL: httpx says so later, and display_url still hides any userinfo
        return
    secret = password if password is not None else user  # a user name alone: a gateway's token
    if secret:
        register_secret(secret)
        register_secret(unquote(secret))
    if user is not None or password is not None:  # the Basic value httpx makes of them
        userinfo = f"{unquote(user or '')}:{unquote(password or '')}"
        register_secret(base64.b64encode(userinfo.encode()).decode())


def redact(text: str) -> str:
    """The text without secrets: registered values, Authorization values and URL userinfo."""
    text = _AUTH_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    for secret in sorted(_secrets, key=len, reverse=True):  # a longer secret may hold a shorter one
        text = text.replace(secret, REDACTED)
    return text


def display_url(url: str) -> str:
    """The URL without its userinfo, for labels, messages and the cache key."""
    return str(_USERINFO.sub(lambda m: m.group(1), url))


def clean(text: str) -> str:
    """Text from a judge, safe to keep and write: lone surrogates replaced, secrets redacted."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate; a pair split into two code points is joined again
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return redact(text)


def cleaned(reply: Reply) -> Reply:
    """A reply with every text in it cleaned (see ``clean``)."""
    fingerprint = None if reply.fingerprint is None else clean(reply.fingerprint)
    return replace(reply, text=clean(reply.text), model=clean(reply.model), fingerprint=fingerprint)
