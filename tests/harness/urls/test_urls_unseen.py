"""The URL checker against servers and inputs it was not written against (tests/support/url_server_odd.py
writes its answers byte by byte): odd Locations, a HEAD that hangs while GET answers, compressed and endless
bodies, credentials in URLs, one URL spelled many ways, and the cache and outputs under stress."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from url_server import url_server
from url_server_odd import OddServer, odd_server

from assay.cli import main
from assay.errors import InputError, UsageError
from assay.harness.urls import CheckSettings, FoundUrl, UrlVerdict, check_urls_sync
from assay.harness.urls.cache import UrlCache
from assay.harness.urls.extract import urls_in
from assay.harness.urls.normalise import normalise_url

SRC = Path(__file__).resolve().parents[3] / "src"

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
        ("%20%20", "error", "302 Found without a Location"),  # blank: not a loop back to itself
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


def test_credentials_in_a_url_are_never_printed(odd: OddServer, tmp_path: Path) -> None:
    cited = f"http://reader:s3cret@127.0.0.1:{odd.port}/ok"
    relayed = odd.url(f"/location?to=http://relay:t0ken@127.0.0.1:{odd.port}/ok")
    listing = tmp_path / "urls.txt"
    listing.write_text(f"{cited}\n{relayed}\n", encoding="utf-8")
    out, markdown = tmp_path / "urls.json", tmp_path / "urls.md"
    command = ["urls", "check", str(listing), "--allow-private", "--retries", "0", "--interval", "0"]
    assert main([*command, "--out", str(out), "--markdown", str(markdown)]) == 0
    assert "s3cret" not in out.read_text(encoding="utf-8") + markdown.read_text(encoding="utf-8")
    plain, redirected = json.loads(out.read_text(encoding="utf-8"))
    assert (plain["url"], plain["class"], redirected["class"]) == (odd.url("/ok"), "ok", "redirected")
    assert redirected["final_url"] == redirected["chain"][1]["url"] == odd.url("/ok")  # the hop's t0ken gone
    assert all("authorization" not in {name.lower() for name in seen.headers} for seen in odd.to("/ok"))


def test_a_head_that_hangs_while_get_answers_is_asked_with_get(odd: OddServer) -> None:
    verdict = check(odd.url("/head-hangs"), timeout=0.5)
    assert (verdict.klass, verdict.status) == ("ok", 200)
    assert verdict.reason == "HEAD timed out after 0.5 s, GET 200 OK"
    assert [seen.method for seen in odd.to("/head-hangs")][-2:] == ["HEAD", "GET"]


def test_a_host_that_left_a_head_unanswered_is_asked_with_get_from_then_on() -> None:
    with odd_server() as own:
        found = [FoundUrl(own.url(f"/head-hangs?n={n}"), False, ()) for n in range(3)]
        verdicts = check_urls_sync(found, replace(FAST, timeout=0.5, concurrency=1))
        assert [seen.method for seen in own.to("/head-hangs")] == ["HEAD", "GET", "GET", "GET"]
    assert [verdict.klass for verdict in verdicts] == ["ok"] * 3
    assert verdicts[1].reason == "GET (HEAD goes unanswered on this host) 200 OK"


@pytest.mark.parametrize("path", ["/bomb.pdf", "/bomb-endless"])
def test_a_gzip_bomb_is_read_in_bounded_memory(odd: OddServer, path: str) -> None:
    tracemalloc.start()
    try:
        verdict = check(odd.url(path), pdf=True, timeout=5.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (verdict.klass, verdict.is_pdf) == ("ok", True)  # %PDF- comes first, then a GB of zeros
    assert peak < 8 << 20, f"{peak >> 20} MB held to read the first KB"


def test_a_body_in_an_encoding_not_read_is_said_not_guessed(odd: OddServer) -> None:
    verdict = check(odd.url("/brotli.pdf"), pdf=True)
    assert (verdict.klass, verdict.is_pdf) == ("ok", None)
    assert verdict.reason == "200 OK (a PDF was expected; the body came br-encoded, not read here)"


@pytest.mark.parametrize(
    ("path", "pdf", "klass", "is_pdf"),
    [
        ("/deflate.pdf", True, "ok", True),
        ("/raw-deflate.pdf", True, "ok", True),
        ("/bad-gzip.pdf", True, "error", None),  # the server's garbage, not a missing PDF
        ("/endless", True, "ok", True),  # chunked for ever, Range ignored
        ("/big.pdf", True, "ok", True),  # 50 MB, Range ignored
        ("/http10", True, "ok", True),  # HTTP/1.0, the body ended by the close
        ("/junk.pdf", True, "ok", True),  # 600 bytes of whitespace before %PDF- (readers look in 1024)
        ("/bom.pdf", True, "ok", True),
        ("/pdf-as-html", True, "ok", True),  # the bytes decide, not the Content-Type
        ("/half-headers", False, "error", None),
        ("/drip-headers", False, "error", None),  # a byte every 0.1 s: the timeout is total
        ("/status/204", False, "ok", None),
        ("/status/206", False, "ok", None),
        ("/status/300", False, "error", None),  # not a redirect followed: a choice for a person
        ("/status/304", False, "error", None),  # not modified, though nothing was asked conditionally
    ],
)
def test_odd_answers_get_their_class(odd: OddServer, path: str, pdf: bool, klass: str, is_pdf: bool) -> None:
    verdict = check(odd.url(path), pdf, timeout=0.5)
    assert (verdict.klass, verdict.is_pdf) == (klass, is_pdf), verdict.reason


def test_one_url_spelled_many_ways_is_checked_once(odd: OddServer, tmp_path: Path) -> None:
    port = odd.port
    spellings = [
        f"http://127.0.0.1:{port}/ok",
        f"HTTP://127.0.0.1:{port}/./ok#top",
        f"http://127.0.0.1:{port}/status/../ok",
        f"http://127.0.0.1:{port}/%6Fk",
        f"http://127.0.0.1:{port}/%6fk",
        f"<http://127.0.0.1:{port}/ok>.",
    ]
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(spellings) + "\n", encoding="utf-8")
    found = urls_in([listing])
    assert [item.url for item in found] == [odd.url("/ok")]
    assert len(found[0].places) == len(spellings)
    assert normalise_url("http://[0:0::1]:8080/a%2fb") == normalise_url("http://[::1]:8080/a%2Fb")


@pytest.mark.parametrize(
    "value", ["inf", "1e400", "1_0", "nan", "-5", "garbage", "Wed, 21 Oct 2015 07:28:00 GMT"]  # past
)
def test_a_retry_after_that_is_no_delay_is_retried_after_the_backoff(odd: OddServer, value: str) -> None:
    verdict = check(odd.url(f"/status/429?h=Retry-After:{value}"), retries=1, max_retry_after=5)
    assert (verdict.klass, verdict.attempts) == ("blocked", 2)  # asked again, not given up on
    assert verdict.notes == ("retried after 429 Too Many Requests, waited 0.01 s",)


def test_ctrl_c_keeps_the_verdicts_reached_in_a_valid_cache(tmp_path: Path) -> None:
    with url_server() as own:
        listing = tmp_path / "urls.txt"
        listing.write_text("\n".join([own.url("/etag/a"), own.url("/etag/b"), own.url("/hang")]) + "\n")
        cache = tmp_path / "cache.json"
        command = [sys.executable, "-m", "assay", "urls", "check", str(listing), "--cache", str(cache)]
        command += ["--allow-private", "--interval", "0", "--concurrency", "1", "--timeout", "30"]
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        running = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(400):  # the hang is asked only once both others are done (one at a time)
            if own.record.hits("/hang") or running.poll() is not None:
                break
            time.sleep(0.05)
        running.send_signal(signal.SIGINT)
        _, err = running.communicate(timeout=30)
    assert running.returncode == 130 and "interrupted" in err
    entries = json.loads(cache.read_text(encoding="utf-8"))["entries"]
    assert sorted(entries) == [own.url("/etag/a"), own.url("/etag/b")]
    assert UrlCache.open(cache, ttl=60).lookup(own.url("/etag/a"), False) is not None


def test_a_resolver_that_never_answers_does_not_hold_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # A resolver that never answers (a firewall dropping DNS) cannot be had on demand: one is injected.
    real, release, outlived = socket.getaddrinfo, threading.Event(), []

    def never_answers(host: str, *args: Any, **kwargs: Any) -> Any:
        if not host.endswith(".blackhole.example"):
            return real(host, *args, **kwargs)
        if not release.wait(10):  # the test's own guard: still asked 10 s later
            outlived.append(host)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", never_answers)
    found = [FoundUrl(f"http://h{n}.blackhole.example/", False, ()) for n in range(12)]
    try:
        verdicts = check_urls_sync(found, replace(FAST, timeout=0.2, concurrency=12))
        assert outlived == []  # the run ended while the lookups still hung
    finally:
        release.set()
    assert {verdict.reason for verdict in verdicts} == {
        f"DNS: no answer for h{n}.blackhole.example within 0.2 s" for n in range(12)
    }


@pytest.mark.parametrize(
    ("location", "klass"),
    [("/account/login%3Fnext%3D/files/plan.pdf", "soft_404"), ("/", "soft_404"), ("/page/plan", "broken")],
)
def test_a_pdf_link_sent_to_a_login_or_home_page_is_a_soft_404(location: str, klass: str) -> None:
    with url_server() as own:  # it answers 200 with HTML at all three
        verdict = check(own.url(f"/redirect/302?to={location}"), pdf=True)
    assert (verdict.klass, verdict.is_pdf) == (klass, False)  # a login wall is no proof the PDF is gone


def test_a_sentence_run_into_a_url_is_not_part_of_it(tmp_path: Path) -> None:
    # as a real corpus writes it (a PubMed article's licence line, a space lost)
    page = tmp_path / "article.md"
    page.write_text(
        "licensed under https://creativecommons.org/licenses/by/4.0/.The Creative Commons waiver "
        "(https://example.org/.well-known/security.txt) applies.\n",
        encoding="utf-8",
    )
    assert [item.url for item in urls_in([page])] == [
        "https://creativecommons.org/licenses/by/4.0/",
        "https://example.org/.well-known/security.txt",
    ]


def test_more_urls_at_once_than_httpx_pools_are_all_asked_at_once() -> None:
    with odd_server() as own:  # its own: the barrier counts every request to the path
        found = [FoundUrl(own.url(f"/together/120?n={n}"), False, ()) for n in range(120)]
        verdicts = check_urls_sync(found, replace(FAST, concurrency=120, per_host=120, timeout=5.0))
    assert {verdict.klass for verdict in verdicts} == {"ok"}  # all 120 in flight together


def test_two_runs_saving_one_cache_at_once_never_leave_it_corrupt(tmp_path: Path) -> None:
    path, failures = tmp_path / "cache.json", []

    def writer(name: str) -> None:
        cache = UrlCache.open(path, ttl=60) if path.exists() else UrlCache(path, 60)
        for n in range(40):
            url = f"https://{name}.example/{n}"
            verdict = UrlVerdict(url, "ok", 200, url, (), "2026-12-01T00:00:00Z", "200 OK", (), None, 1)
            cache.store(verdict, None, None)
            cache.save()

    def reader() -> None:
        for _ in range(200):
            if path.exists():
                try:
                    UrlCache.open(path, ttl=60)
                except InputError as exc:  # a half-written file would be refused as corrupt
                    failures.append(str(exc))

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("a", "b")]
    threads.append(threading.Thread(target=reader))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    entries = UrlCache.open(path, ttl=60).entries  # one run's 40 (the last writer's), maybe the other's too
    assert len(entries) >= 40 and not list(tmp_path.glob("*.assay-tmp-*"))


@pytest.mark.parametrize("name", ["dns_canary", "private_hosts"])
def test_a_bare_name_where_names_are_wanted_is_refused(name: str) -> None:
    with pytest.raises(UsageError, match=f"{name} must be a tuple of names"):
        CheckSettings(**{name: "example.com"})  # type: ignore[arg-type]


def test_invisible_characters_copied_into_a_url_are_dropped(tmp_path: Path) -> None:
    page = tmp_path / "from-a-pdf.md"  # a soft hyphen and a zero-width space, as PDF text extraction leaves
    text = "See https://insurer.example/policy\u00ad-wording/sched\u200bule.pdf today.\n"
    page.write_text(text, encoding="utf-8")
    (found,) = urls_in([page])
    assert (found.url, found.expect_pdf) == ("https://insurer.example/policy-wording/schedule.pdf", True)
