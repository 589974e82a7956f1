"""The URL checker against servers and inputs it was not written against (tests/url_server_odd.py writes
its answers byte by byte): odd Locations, a HEAD that hangs while GET answers, compressed and endless
bodies, credentials in URLs, one URL spelled many ways, and the cache and outputs under stress."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from assay.harness.urls import CheckSettings, FoundUrl, UrlVerdict, check_urls_sync
from url_server_odd import OddServer, odd_server

FAST = CheckSettings(allow_private=True, interval=0.0, timeout=1.0, retries=0, backoff=0.01, per_host=8)


@pytest.fixture(scope="module")
def odd() -> Iterator[OddServer]:
    with odd_server() as running:
        yield running


def check(url: str, pdf: bool = False, **changes: object) -> UrlVerdict:
    return check_urls_sync([FoundUrl(url, pdf, ("test:1",))], replace(FAST, **changes))[0]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("location", "klass", "reason"),
    [
        ("javascript:alert(1)", "blocked", "only http and https URLs are (this one is javascript:)"),
        ("mailto:someone@example.org", "blocked", "only http and https URLs are (this one is mailto:)"),
        ("ftp://files.example/a.pdf", "blocked", "only http and https URLs are (this one is ftp:)"),
        ("file:///etc/passwd", "blocked", "only http and https URLs are (this one is file:)"),
        ("http://[::1", "error", "302 Found to a malformed Location 'http://[::1'"),
        ("http://a b/", "error", "302 Found to a malformed Location 'http://a b/'"),
        ("http://127.0.0.1:99999/x", "error", "302 Found to a malformed Location"),
    ],
)
def test_a_redirect_to_an_odd_location_is_never_broken(
    odd: OddServer, location: str, klass: str, reason: str
) -> None:
    verdict = check(odd.url(f"/location?to={location}"))  # the server's fault, not a dead citation
    assert (verdict.klass, verdict.chain[0].status) == (klass, 302)
    assert reason in verdict.reason
    assert not [note for note in verdict.notes if "None" in note]  # no "cross-host: 127.0.0.1 -> None"


@pytest.mark.parametrize(
    ("location", "final"),
    [("//127.0.0.1:{port}/ok", "/ok"), ("/o%20k two", "/o%20k%20two"), ("/ök", "/%C3%B6k"), ("ok", "/ok")],
)
def test_a_protocol_relative_spaced_or_unicode_location_is_followed(
    odd: OddServer, location: str, final: str
) -> None:
    verdict = check(odd.url(f"/location?to={location.format(port=odd.port)}"))
    assert verdict.chain[-1].url == odd.url(final)
