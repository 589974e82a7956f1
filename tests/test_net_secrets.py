"""Redaction (assay.net.redact) of a secret in every spelling a server may send it back in: JSON-escaped
(\\uXXXX of either case, a surrogate pair, \\/, escaped twice), URL-encoded (either case, + for a space,
encoded twice), base64 (a Basic value, padded or not, URL-safe); secrets that overlap; and the userinfo
of a URL, in a message and in a spec. All of it in time linear in the text. Issue 22, item 4."""

from __future__ import annotations

import json
import os
import re
import string
from base64 import b64encode, urlsafe_b64encode
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest
from budget import SECOND, assert_within
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import net

# Non-ASCII letters (\u00e4 in JSON, two bytes URL-encoded), one beyond the BMP (a surrogate pair in
# JSON), a "/" (\/ in JSON, %2F), a space (+ in a form), a ":" and a "+".
SECRET = "tok/3n:pä ss+wörd😀"


def _lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), text)


def _upper_hex(text: str) -> str:
    return re.sub(r"\\u[0-9a-f]{4}", lambda m: "\\u" + m.group()[2:].upper(), text)


def _b64(text: str) -> str:
    return b64encode(text.encode()).decode()


SPELLINGS: dict[str, Callable[[str], str]] = {
    "JSON, ASCII only": lambda s: json.dumps(s)[1:-1],
    "JSON, / as \\/": lambda s: json.dumps(s)[1:-1].replace("/", "\\/"),
    "JSON, upper-case hex": lambda s: _upper_hex(json.dumps(s)[1:-1]),
    "JSON, letters kept, / as \\/": lambda s: json.dumps(s, ensure_ascii=False)[1:-1].replace("/", "\\/"),
    "JSON, only the / escaped": lambda s: s.replace("/", "\\/"),
    "JSON text in a JSON string": lambda s: json.dumps(json.dumps(s))[3:-3],
    "URL-encoded": lambda s: quote(s, safe=""),
    "URL-encoded, / kept": quote,
    "URL-encoded, lower-case hex": lambda s: _lower_hex(quote(s, safe="")),
    "form-encoded": quote_plus,
    "URL-encoded twice": lambda s: quote(quote(s, safe=""), safe=""),
    "base64": _b64,
    "base64, unpadded": lambda s: _b64(s).rstrip("="),
    "base64, URL-safe": lambda s: urlsafe_b64encode(s.encode()).decode(),
    "base64, JSON-escaped": lambda s: _b64(s).replace("/", "\\/"),
}


@pytest.mark.parametrize("spelling", SPELLINGS, ids=list(SPELLINGS))
def test_a_registered_secret_is_redacted_in_every_spelling(spelling: str) -> None:
    secret = f"{SECRET}-{len(spelling)}-{spelling[:4]}"  # one of its own: registration is process-wide
    net.register_secret(secret)
    written = SPELLINGS[spelling](secret)
    assert written != secret
    assert net.redact(f'{{"said": "before {written} after"}}') == '{"said": "before [redacted] after"}'


# A URL's user and password whose base64 holds a "/" ("???" is "Pz8/"), which JSON may write "\/".
USER, PASSWORD = "carol", "pw/9:wörd ünd???x"  # its Basic value is padded, too


@pytest.mark.parametrize(
    ("name", "spelled"),
    [
        ("the password, base64", lambda: _b64(PASSWORD)),
        ("the Basic value, unpadded", lambda: _b64(f"{USER}:{PASSWORD}").rstrip("=")),
        ("the Basic value, JSON-escaped", lambda: _b64(f"{USER}:{PASSWORD}").replace("/", "\\/")),
        ("the password, JSON-escaped", lambda: json.dumps(PASSWORD)[1:-1]),
        ("the password, form-encoded", lambda: quote_plus(PASSWORD)),
    ],
)
def test_a_urls_password_is_redacted_in_every_spelling(name: str, spelled: Callable[[], str]) -> None:
    net.register_url(f"http://{USER}:{quote(PASSWORD, safe='')}@127.0.0.1:9/v1")
    assert net.redact(f"echo: {spelled()}.") == "echo: [redacted].", name


@pytest.mark.parametrize(
    ("secrets", "text", "shown"),
    [
        (("abcd-1234", "1234-wxyz"), "x abcd-1234-wxyz y", "x [redacted] y"),  # one ends where one starts
        (("k1-overlap-a", "overlap-a-k2"), "k1-overlap-a-k2", "[redacted]"),
        (("left/side-77", "side-77/right"), "left\\/side-77\\/right", "[redacted]"),  # JSON-escaped
        (("q-one-abc", "abc-two-q"), "q-one-abc-two-q, q-one-abc", "[redacted], [redacted]"),
    ],
)
def test_secrets_that_overlap_are_redacted_as_one(secrets: tuple[str, ...], text: str, shown: str) -> None:
    for secret in secrets:
        net.register_secret(secret)
    assert net.redact(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('{"url": "http:\\/\\/bob:pw9@host\\/x"}', '{"url": "http:\\/\\/[redacted]@host\\/x"}'),
        ("Authorization: Basic dXNlcjpw\\/YXNz==", "Authorization: Basic [redacted]"),
    ],
)
def test_unregistered_userinfo_and_tokens_are_redacted_json_escaped(text: str, shown: str) -> None:
    assert net.redact(text) == shown


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ("openai:http://alice:p@ss@127.0.0.1:8000/v1", "openai:http://127.0.0.1:8000/v1"),  # "@" in it
        ("http:http://alice:p@ss@host/ask", "http:http://host/ask"),
        ("openai:judge@http://alice:p@ss@host/v1", "openai:judge@http://host/v1"),  # a judge's spec
    ],
)
def test_a_spec_is_shown_without_any_of_its_userinfo(spec: str, shown: str) -> None:
    assert net.display_url(spec) == shown


def test_redaction_and_display_take_time_linear_in_the_text() -> None:
    """Texts built against each pattern: a scheme-shaped run before "://" (quadratic once: 100,000
    characters took about 40 s), runs of backslashes and of "%25", a secret's prefix repeated."""
    for secret in ("lin\\ear-sëcret/1", "linear-key-0123456789", "a.a.a.a.a"):
        net.register_secret(secret)
    net.redact("")  # the pattern of every secret registered, compiled once (not the text's time)
    hostile = [
        "a." * 50_000 + "://x",
        "a-" * 50_000 + "://" + "b" * 100_000,
        "\\" * 200_000,
        "\\u00" * 50_000,
        "%25" * 70_000,
        "lin\\ear-sëcret/" * 12_000,
        "Basic " * 30_000,
        "http://" + "a@" * 100_000,
    ]
    for text in hostile:
        assert_within(lambda: (net.redact(text), net.display_url(text)), 3 * SECOND, text[:20])  # noqa: B023


# --- a property: any secret, each character spelled any way a server may, is redacted -----------------

CI = os.environ.get("CI", "").lower() == "true"
EXAMPLES = int(os.environ.get("ASSAY_FUZZ_EXAMPLES", 10_000 if CI else 300))
ALPHABET = string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/?#[]% \"\\<>{}|^`äöüßé中文😀\t\n"


def _spelled(char: str, way: int) -> str:
    """One character as a server may write it (way picks one of them)."""
    if char.isascii() and (char.isalnum() or char in "-._~"):
        return char  # no encoder escapes these
    escaped = json.dumps(char)[1:-1]
    ways = [char, escaped, _upper_hex(escaped), quote(char, safe=""), _lower_hex(quote(char, safe=""))]
    ways += ["\\/"] if char == "/" else ["+"] if char == " " else []
    return ways[way % len(ways)]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secret=st.text(ALPHABET, min_size=4, max_size=24),
    ways=st.lists(st.integers(0, 6), min_size=24, max_size=24),
    before=st.text(ALPHABET, max_size=12),
    after=st.text(ALPHABET, max_size=12),
)
def test_any_secret_spelled_any_way_is_redacted(
    secret: str, ways: list[int], before: str, after: str
) -> None:
    registered = dict(net._secrets)  # this test's secrets only: thousands would slow every redact after
    net._secrets.clear()
    try:
        net.register_secret(secret)
        spelled = "".join(_spelled(char, way) for char, way in zip(secret, ways))
        shown = net.redact(before + spelled + after)
        assert net.REDACTED in shown and spelled not in shown.replace(net.REDACTED, "\0")  # "reda" is one
    finally:
        net._secrets.clear()
        net._secrets.update(registered)
