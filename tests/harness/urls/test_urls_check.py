"""The URL checker against a real HTTP server on 127.0.0.1 (tests/support/url_server.py): every class, the
HEAD-then-GET rule, redirects, retries and Retry-After, the per-host limit and interval, the address and
scheme refusals, DNS failures, deadlines, and the verdicts' order and JSON."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from email.utils import formatdate
from urllib.parse import quote

import pytest
from url_server import UrlServer, url_server

from assay.errors import UsageError
from assay.harness.urls import CLASSES, CheckSettings, FoundUrl, UrlVerdict, check_urls_sync
from assay.harness.urls.check import _soft_404_target

# Small timeouts and backoffs so that the whole module runs in seconds; loopback allowed.
FAST = CheckSettings(allow_private=True, interval=0.0, timeout=1.0, retries=2, backoff=0.01, per_host=8)


@pytest.fixture(scope="module")
def server() -> Iterator[UrlServer]:
    with url_server() as running:
        yield running


def check(url: str, pdf: bool = False, **changes: object) -> UrlVerdict:
    return check_urls_sync([FoundUrl(url, pdf, ("test:1",))], replace(FAST, **changes))[0]  # type: ignore[arg-type]


CLASS_CASES = [
    ("/ok", False, "ok", 200, "200 OK"),
    ("/page/deep/link", False, "ok", 200, "200 OK"),
    ("/redirect/301?to=/page/new", False, "redirected", 200, "200 OK after 1 redirect"),
    ("/redirect/302?to=/page/new", False, "redirected", 200, "200 OK after 1 redirect"),
    ("/redirect/303?to=/page/new", False, "redirected", 200, "200 OK after 1 redirect"),
    ("/redirect/307?to=/page/new", False, "redirected", 200, "200 OK after 1 redirect"),
    ("/redirect/308?to=/page/new", False, "redirected", 200, "200 OK after 1 redirect"),
    ("/chain/3", False, "redirected", 200, "200 OK after 3 redirects"),
    ("/loop/a", False, "error", 302, "redirect loop"),
    ("/no-location", False, "error", 302, "302 Found without a Location"),
    ("/deep/moved", False, "soft_404", 200, "a deep link redirected to a home page"),
    ("/deep/members", False, "soft_404", 200, "a deep link redirected to a login page"),
    ("/status/404", False, "broken", 404, "HEAD 404, GET 404 Not Found"),
    ("/status/410", False, "broken", 410, "HEAD 410, GET 410 Gone"),
    ("/status/401", False, "blocked", 401, "HEAD 401, GET 401 Unauthorized"),
    ("/status/403", False, "blocked", 403, "HEAD 403, GET 403 Forbidden"),
    ("/status/400", False, "blocked", 400, "HEAD 400, GET 400 Bad Request"),
    ("/status/429?retry_after=0", False, "blocked", 429, "429 Too Many Requests (after 3 attempts)"),
    ("/status/500", False, "error", 500, "HEAD 500, GET 500 Internal Server Error (after 3 attempts)"),
    ("/status/503", False, "error", 503, "HEAD 503, GET 503 Service Unavailable (after 3 attempts)"),
    ("/drop", False, "error", None, "RemoteProtocolError: Server disconnected without sending a response"),
    ("/garbage", False, "error", None, "RemoteProtocolError"),
    ("/head/405", False, "ok", 200, "HEAD 405, GET 200 OK"),
    ("/head/403", False, "ok", 200, "HEAD 403, GET 200 OK"),
    ("/head/404", False, "ok", 200, "HEAD 404, GET 200 OK"),
    ("/head/501", False, "ok", 200, "HEAD 501, GET 200 OK"),
    ("/doc.pdf", True, "ok", 200, "200 OK"),
    ("/range.pdf", True, "ok", 206, "206 Partial Content"),
    ("/fake.pdf", True, "broken", 200, "a PDF was expected and the body is not one (application/pdf)"),
    ("/status/404", True, "broken", 404, "404 Not Found"),
]


@pytest.mark.parametrize(("path", "pdf", "klass", "status", "reason"), CLASS_CASES)
def test_each_path_gets_its_class(
    server: UrlServer, path: str, pdf: bool, klass: str, status: int, reason: str
) -> None:
    verdict = check(server.url(path), pdf)
    assert (verdict.klass, verdict.status) == (klass, status)
    assert reason in verdict.reason
    assert verdict.klass in CLASSES


def test_every_class_is_produced(server: UrlServer) -> None:
    assert {klass for _, _, klass, _, _ in CLASS_CASES} == set(CLASSES)


@pytest.mark.parametrize(("path", "is_pdf"), [("/doc.pdf", True), ("/range.pdf", True), ("/fake.pdf", False)])
def test_an_expected_pdf_is_read_for_its_magic_bytes(server: UrlServer, path: str, is_pdf: bool) -> None:
    verdict = check(server.url(path), pdf=True)
    assert verdict.is_pdf is is_pdf
    assert [seen.method for seen in server.record.to(path)][-1] == "GET"  # a PDF is never judged by HEAD
    assert server.record.to(path)[-1].headers["Range"] == "bytes=0-1023"


def test_is_pdf_is_none_unless_a_pdf_was_expected(server: UrlServer) -> None:
    verdict = check(server.url("/fake.pdf"))
    assert (verdict.klass, verdict.is_pdf) == ("ok", None)
    assert "is_pdf" not in verdict.to_json()
    assert check(server.url("/fake.pdf"), pdf=True).to_json()["is_pdf"] is False


def test_a_redirected_verdict_keeps_the_whole_chain_and_the_final_url(server: UrlServer) -> None:
    verdict = check(server.url("/chain/2"))
    assert [(hop.url, hop.status) for hop in verdict.chain] == [
        (server.url("/chain/2"), 302),
        (server.url("/chain/1"), 302),
        (server.url("/chain/0"), 200),
    ]
    assert verdict.final_url == server.url("/chain/0")


def test_a_relative_location_is_resolved_against_the_hop(server: UrlServer) -> None:
    verdict = check(server.url("/redirect/302?to=../ok"))
    assert (verdict.klass, verdict.final_url) == ("redirected", server.url("/ok"))


@pytest.mark.parametrize(
    ("code", "method"), [(301, "HEAD"), (302, "HEAD"), (303, "GET"), (307, "HEAD"), (308, "HEAD")]
)
def test_a_303_turns_the_next_request_into_a_get(server: UrlServer, code: int, method: str) -> None:
    target = f"/page/after-{code}"
    check(server.url(f"/redirect/{code}?to={target}"))
    assert [seen.method for seen in server.record.to(target)] == [method]


def test_a_loop_is_found_and_not_followed_forever(server: UrlServer) -> None:
    before = server.record.hits("/loop/a")
    verdict = check(server.url("/loop/a"), retries=0)
    assert verdict.final_url is None
    assert [hop.url for hop in verdict.chain] == [server.url("/loop/a"), server.url("/loop/b")]
    assert server.record.hits("/loop/a") - before == 1


def test_a_cookie_check_that_sends_back_once_is_no_loop(server: UrlServer) -> None:
    verdict = check(server.url("/cookie/doc"))
    assert (verdict.klass, verdict.final_url) == ("redirected", server.url("/cookie/doc"))
    assert [hop.status for hop in verdict.chain] == [302, 302, 200]


def test_a_chain_longer_than_the_limit_is_an_error(server: UrlServer) -> None:
    verdict = check(server.url("/chain/5"), max_redirects=3)
    assert (verdict.klass, verdict.reason) == ("error", "more than 3 redirects")
    assert len(verdict.chain) == 4


def test_cross_host_and_http_to_https_hops_are_noted(server: UrlServer) -> None:
    crossed = check(server.url("/cross"))
    assert crossed.klass == "redirected"
    assert crossed.notes == ("cross-host: 127.0.0.1 -> localhost",)
    upgraded = check(server.url("/to-https"), retries=0)  # nothing serves TLS there: the hop fails
    assert "http->https" in upgraded.notes
    assert (upgraded.klass, upgraded.chain[-1].status) == ("error", None)
    assert upgraded.reason == "connection failed: Connection refused"


def test_a_tls_failure_is_an_error_in_tls_words(server: UrlServer) -> None:
    verdict = check(server.url("/ok").replace("http://", "https://"), retries=0)  # it speaks plain HTTP
    assert verdict.klass == "error"
    assert verdict.reason.startswith("connection failed: TLS: ")


@pytest.mark.parametrize(
    ("url", "final", "landing"),
    [
        ("https://a.example/docs/page", "https://a.example/", "a home page"),
        ("https://a.example/docs/page", "https://b.example", "a home page"),
        ("https://a.example/?id=7", "https://a.example/", "a home page"),
        ("https://a.example/docs/page", "https://a.example/users/sign_in", "a login page"),
        ("https://a.example/docs/page", "https://idp.example/sso/start", "a login page"),
        ("https://a.example/docs/page", "https://a.example/x?next=1&action=login", "a login page"),
        ("https://a.example/", "https://a.example/home", None),
        ("https://a.example/index.html", "https://a.example/", None),
        ("https://a.example/Default.aspx", "https://a.example/", None),
        ("https://a.example/index.html?page=7", "https://a.example/", "a home page"),
        ("https://a.example/docs/page", "https://a.example/docs/page2", None),
        ("https://a.example/docs/page", "https://a.example/authors/smith", None),
    ],
)
def test_the_soft_404_rule(url: str, final: str, landing: str | None) -> None:
    assert _soft_404_target(url, final) == landing


def test_a_transient_5xx_is_retried_until_it_passes(server: UrlServer) -> None:
    verdict = check(server.url("/flaky/2/500/five"))  # HEAD 500 and its GET 500, then HEAD 200
    assert (verdict.klass, verdict.attempts) == ("ok", 2)
    assert server.record.hits("/flaky/2/500/five") == 3
    assert verdict.notes == ("retried after 500 Internal Server Error, waited 0.01 s",)


def test_a_429_waits_for_its_retry_after(server: UrlServer) -> None:
    path = "/flaky/1/429/wait"
    verdict = check(server.url(f"{path}?retry_after=1"))
    assert (verdict.klass, verdict.attempts) == ("ok", 2)
    assert verdict.notes == ("retried after 429 Too Many Requests, waited 1 s (Retry-After)",)
    first, second = server.record.to(path)  # a 429 is not asked again at once with GET
    assert second.at - first.at >= 0.9


def test_a_retry_after_as_an_http_date_is_honoured(server: UrlServer) -> None:
    when = quote(formatdate(time.time() + 2, usegmt=True))  # whole seconds: 1 to 2 s from now
    verdict = check(server.url(f"/flaky/2/503/date?retry_after={when}"))  # HEAD and GET 503, then 200
    assert (verdict.klass, verdict.attempts) == ("ok", 2)
    assert verdict.notes[0].endswith("s (Retry-After)")


def test_a_retry_after_past_the_cap_is_not_waited_for(server: UrlServer) -> None:
    verdict = check(server.url("/status/429?retry_after=3600"), max_retry_after=5)
    assert (verdict.klass, verdict.attempts) == ("blocked", 1)
    assert verdict.notes == ("not retried: Retry-After 3600 s is past the 5 s cap",)


def test_retries_zero_asks_once(server: UrlServer) -> None:
    verdict = check(server.url("/flaky/2/502/once"), retries=0)
    assert (verdict.klass, verdict.attempts) == ("error", 1)


@pytest.mark.parametrize("per_host", [1, 2, 3])
def test_the_per_host_limit_holds(per_host: int) -> None:
    with url_server() as own:  # its own server, so that no other test's requests count
        found = [FoundUrl(own.url(f"/slow/{n}?ms=250"), False, ()) for n in range(6)]
        verdicts = check_urls_sync(found, replace(FAST, per_host=per_host, concurrency=6))
        assert {verdict.klass for verdict in verdicts} == {"ok"}
        assert own.record.most_in_flight[f"127.0.0.1:{own.port}"] == per_host


def test_urls_answered_to_a_head_share_kept_alive_connections() -> None:
    # A HEAD answer closed before its (empty) end was read used to close its connection too: a new
    # connection, over https a new TLS handshake, for every URL.
    with url_server() as own:
        found = [FoundUrl(own.url(f"/page/{n}"), False, ()) for n in range(12)]
        verdicts = check_urls_sync(found, replace(FAST, per_host=2, concurrency=2))
        assert {verdict.klass for verdict in verdicts} == {"ok"}
        heads = [seen for seen in own.record.requests if seen.method == "HEAD"]
        assert len(heads) == 12
        assert len({seen.client_port for seen in heads}) <= 2  # two in flight at most: two connections


def test_requests_to_one_host_start_an_interval_apart() -> None:
    with url_server() as own:
        found = [FoundUrl(own.url(f"/page/{n}"), False, ()) for n in range(3)]
        check_urls_sync(found, replace(FAST, interval=0.3))
        starts = sorted(seen.at for seen in own.record.requests)
        assert len(starts) == 3
        # Two intervals between three starts at the client; the server notes a start when its thread
        # reads the request, which a loaded machine may delay: one interval's room, never the whole span.
        assert starts[-1] - starts[0] >= 2 * 0.3 - 0.3


def test_a_host_with_many_urls_does_not_hold_back_the_others() -> None:
    with url_server() as own:
        busy = [FoundUrl(own.url(f"/slow/{n}?ms=300"), False, ()) for n in range(4)]
        other = FoundUrl(own.url("/page/other", "localhost"), False, ())
        check_urls_sync([*busy, other], replace(FAST, concurrency=2, per_host=1))
        arrivals = [seen.path for seen in sorted(own.record.requests, key=lambda seen: seen.at)]
        assert arrivals.index("/page/other") < arrivals.index("/slow/1")  # dealt host by host


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "10.1.2.3", "169.254.0.9", "0.0.0.0"])
def test_a_private_address_is_refused_without_asking(server: UrlServer, host: str) -> None:
    path = f"/page/private-{host.strip('[]')}"
    verdict = check(server.url(path, host), allow_private=False)
    assert verdict.klass == "blocked"
    assert verdict.reason.startswith("refused:") and "--allow-private" in verdict.reason
    assert (verdict.status, verdict.attempts) == (None, 1)
    assert server.record.hits(path) == 0


def test_allow_private_checks_a_loopback_address(server: UrlServer) -> None:
    assert check(server.url("/ok"), allow_private=True).klass == "ok"


def test_a_redirect_to_a_private_address_is_refused_at_that_hop(server: UrlServer) -> None:
    before = server.record.hits("/ok")
    start = server.url("/to-loopback", "localhost")
    verdict = check(start, allow_private=False, private_hosts=("localhost",))
    assert verdict.klass == "blocked"
    assert [hop.status for hop in verdict.chain] == [302, None]
    assert "127.0.0.1" in verdict.reason
    assert server.record.hits("/ok") == before


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/file.txt", "mailto:someone@example.org", "file:///etc/hosts"]
)
def test_a_scheme_other_than_http_is_not_checked(url: str) -> None:
    verdict = check(url)
    assert verdict.klass == "blocked"
    assert "only http and https" in verdict.reason


def test_a_host_that_does_not_exist_is_broken_after_retries() -> None:
    verdict = check("http://no-such-host.invalid/page", dns_canary=("localhost",))  # DNS works: it resolves
    assert (verdict.klass, verdict.attempts) == ("broken", 3)
    assert verdict.reason == "DNS: no such host no-such-host.invalid (after 3 attempts)"


def test_no_such_host_where_the_resolver_resolves_nothing_is_an_error() -> None:
    verdict = check("http://no-such-host.invalid/page", dns_canary=("canary.invalid",))  # like an offline CI
    assert (verdict.klass, verdict.attempts) == ("error", 3)
    assert verdict.reason.startswith("DNS: no such host no-such-host.invalid, but the resolver resolves")
    assert "not even canary.invalid: offline?" in verdict.reason


def test_every_missing_host_of_a_run_without_dns_is_an_error_and_one_resolving_canary_suffices(
    server: UrlServer,
) -> None:
    found = [FoundUrl(f"http://gone-{n}.invalid/", False, ()) for n in range(4)]
    settings = replace(FAST, dns_canary=("canary.invalid",), retries=1, concurrency=4)
    assert [verdict.klass for verdict in check_urls_sync(found, settings)] == ["error"] * 4
    assert check("http://gone.invalid/", dns_canary=("canary.invalid", "localhost")).klass == "broken"
    assert check("http://gone.invalid/", dns_canary=()).klass == "broken"  # none given: the resolver believed


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999/x", "http:///nohost", "http://[::1/x", "http://a\x00b/"]
)
def test_a_malformed_url_is_broken(url: str) -> None:
    verdict = check(url)
    assert verdict.klass == "broken"
    assert verdict.reason.startswith("malformed URL")


@pytest.mark.parametrize(("path", "pdf"), [("/hang", False), ("/trickle", True)])
def test_a_server_that_hangs_or_trickles_times_out(server: UrlServer, path: str, pdf: bool) -> None:
    verdict = check(server.url(path), pdf, timeout=0.5, retries=1)
    assert (verdict.klass, verdict.attempts) == ("error", 2)
    assert verdict.reason == "timed out after 0.5 s (after 2 attempts)"


def test_a_url_past_its_deadline_is_an_error(server: UrlServer) -> None:
    verdict = check(server.url("/hang"), timeout=5, deadline=0.5)
    assert verdict.klass == "error"
    assert verdict.reason == "no verdict within the 0.5 s deadline"


def test_verdicts_come_in_input_order_with_progress_for_each(server: UrlServer) -> None:
    paths = ["/status/404", "/slow/order?ms=200", "/ok", "/redirect/302?to=/ok", "/ok"]
    found = [FoundUrl(server.url(path), False, ()) for path in paths]
    seen: list[str] = []
    before = server.record.hits("/slow/order")
    verdicts = check_urls_sync(found, FAST, progress=lambda verdict: seen.append(verdict.url))
    assert [verdict.url for verdict in verdicts] == [item.url for item in found]
    assert [verdict.klass for verdict in verdicts] == ["broken", "ok", "ok", "redirected", "ok"]
    assert sorted(seen) == sorted(set(seen)) == sorted({item.url for item in found})  # once per URL
    assert server.record.hits("/slow/order") - before == 1


def test_no_urls_give_no_verdicts() -> None:
    assert check_urls_sync([], FAST) == []


def test_to_json_holds_the_fields_of_the_output(server: UrlServer) -> None:
    entry = check(server.url("/redirect/301?to=/doc.pdf"), pdf=True).to_json()
    assert list(entry) == [
        "url",
        "class",
        "status",
        "final_url",
        "chain",
        "checked_at",
        "is_pdf",
        "reason",
        "notes",
        "attempts",
    ]
    assert entry["chain"] == [
        {"url": server.url("/redirect/301?to=/doc.pdf"), "status": 301},
        {"url": server.url("/doc.pdf"), "status": 200},
    ]
    assert (entry["class"], entry["is_pdf"], entry["checked_at"][-1]) == ("redirected", True, "Z")


def test_importing_the_package_loads_no_http_client() -> None:
    code = "import sys, assay.harness.urls as u; u.FoundUrl; print('httpx' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_every_public_name_of_the_package_loads() -> None:
    import assay.harness.urls as package

    assert all(getattr(package, name) is not None for name in package.__all__)
    assert sorted(package.__all__) == sorted(set(package.__all__)) and package.URL_CLASSES == CLASSES


def test_the_user_agent_names_assay(server: UrlServer) -> None:
    check(server.url("/page/agent"))
    assert server.record.to("/page/agent")[0].headers["User-Agent"].startswith("assay-urls/")


@pytest.mark.parametrize(
    "change",
    [{"concurrency": 0}, {"per_host": 0}, {"timeout": -1.0}, {"retries": -1}, {"interval": float("nan")}],
)
def test_bad_settings_are_refused(change: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        replace(FAST, **change)  # type: ignore[arg-type]
