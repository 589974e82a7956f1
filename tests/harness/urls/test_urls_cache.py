"""The URL check's cache against the real server of tests/support/url_server.py: a fresh entry costs no
request, a stale one is revalidated with its ETag or Last-Modified (one request, answered 304), transient
answers are never stored, and a file that is not this cache is refused with its name and the fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from url_server import UrlServer, url_server

from assay.errors import InputError
from assay.harness.urls import CheckSettings, FoundUrl, UrlCache, UrlVerdict, check_urls_sync

FAST = CheckSettings(allow_private=True, interval=0.0, timeout=1.0, retries=1, backoff=0.01, per_host=8)
HOUR = 3600.0


@pytest.fixture(scope="module")
def server() -> Iterator[UrlServer]:
    with url_server() as running:
        yield running


def check(url: str, cache_file: Path, ttl: float, pdf: bool = False, **changes: object) -> UrlVerdict:
    """One check through the cache in `cache_file`, opened afresh (so what counts is what was saved)."""
    cache = UrlCache.open(cache_file, ttl)
    settings = replace(FAST, **changes)  # type: ignore[arg-type]
    return check_urls_sync([FoundUrl(url, pdf, ("test:1",))], settings, cache)[0]


def test_a_fresh_entry_is_served_without_a_request(server: UrlServer, tmp_path: Path) -> None:
    url, cache_file = server.url("/page/fresh"), tmp_path / "urls.json"
    first = check(url, cache_file, HOUR)
    again = check(url, cache_file, HOUR)
    assert server.record.hits("/page/fresh") == 1
    assert (again.klass, again.status, again.checked_at) == (first.klass, first.status, first.checked_at)
    assert (again.notes, again.attempts) == (("served from cache",), 0)


@pytest.mark.parametrize(
    ("kind", "header"), [("etag", "If-None-Match"), ("lastmod", "If-Modified-Since")]
)
def test_a_stale_entry_is_revalidated_by_one_conditional_request(
    server: UrlServer, tmp_path: Path, kind: str, header: str
) -> None:
    path, cache_file = f"/{kind}/stale", tmp_path / "urls.json"
    first = check(server.url(path), cache_file, 0.0)
    again = check(server.url(path), cache_file, 0.0)
    assert server.record.hits(path) == 2
    conditional = server.record.to(path)[-1]
    assert header in conditional.headers
    assert (again.klass, again.status, again.attempts) == (first.klass, 200, 1)
    assert again.notes == ("revalidated (304)",)
    third = check(server.url(path), cache_file, 0.0)  # the revalidated entry keeps its validator
    assert third.notes == ("revalidated (304)",)
    assert server.record.hits(path) == 3


def test_a_revalidated_pdf_keeps_is_pdf(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "urls.json"
    check(server.url("/etag/pdf"), cache_file, 0.0, pdf=True)  # HTML: not a PDF, broken, with an ETag
    again = check(server.url("/etag/pdf"), cache_file, 0.0, pdf=True)
    assert (again.klass, again.is_pdf, again.notes) == ("broken", False, ("revalidated (304)",))


def test_a_stale_entry_without_validators_is_checked_afresh(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "urls.json"
    check(server.url("/page/plain"), cache_file, 0.0)
    again = check(server.url("/page/plain"), cache_file, 0.0)
    seen = server.record.to("/page/plain")
    assert len(seen) == 2
    assert "If-None-Match" not in seen[-1].headers and "If-Modified-Since" not in seen[-1].headers
    assert (again.klass, again.notes, again.attempts) == ("ok", (), 1)


@pytest.mark.parametrize(
    ("path", "changes", "klass"),
    [
        ("/status/503", {}, "error"),
        ("/status/500", {}, "error"),
        ("/hang", {"timeout": 0.3, "retries": 0}, "error"),
        ("/status/429?retry_after=0", {}, "blocked"),
        ("/page/refused", {"allow_private": False}, "blocked"),
    ],
)
def test_a_transient_answer_is_never_stored(
    server: UrlServer, tmp_path: Path, path: str, changes: dict[str, object], klass: str
) -> None:
    cache_file = tmp_path / "urls.json"
    verdict = check(server.url(path), cache_file, HOUR, **changes)
    assert verdict.klass == klass
    assert len(UrlCache.open(cache_file, HOUR)) == 0


@pytest.mark.parametrize(("path", "klass"), [("/status/404", "broken"), ("/status/403", "blocked")])
def test_a_lasting_answer_is_stored(server: UrlServer, tmp_path: Path, path: str, klass: str) -> None:
    cache_file = tmp_path / "urls.json"
    check(server.url(path), cache_file, HOUR)
    entry = UrlCache.open(cache_file, HOUR).lookup(server.url(path), False)
    assert entry is not None and entry.verdict.klass == klass


def test_a_transient_answer_keeps_the_older_entry(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "urls.json"
    url = server.url("/flaky/2/500/after-good")  # 500 twice (HEAD, GET) then 200
    check(url, cache_file, HOUR, retries=0)  # 500: nothing stored
    assert len(UrlCache.open(cache_file, HOUR)) == 0
    check(url, cache_file, 0.0, retries=0)  # 200: stored
    cache = UrlCache.open(cache_file, HOUR)
    assert len(cache) == 1
    stored = cache.lookup(url, False)
    assert stored is not None
    error = replace(stored.verdict, klass="error", status=503)
    cache.store(error, None, None)
    cache.save()
    entry = UrlCache.open(cache_file, HOUR).lookup(url, False)
    assert entry is not None and entry.verdict.klass == "ok"


def test_an_entry_checked_without_a_pdf_expectation_does_not_answer_for_a_pdf(
    server: UrlServer, tmp_path: Path
) -> None:
    cache_file = tmp_path / "urls.json"
    check(server.url("/fake.pdf"), cache_file, HOUR)
    again = check(server.url("/fake.pdf"), cache_file, HOUR, pdf=True)
    assert (again.klass, again.is_pdf, again.attempts) == ("broken", False, 1)


def test_the_file_round_trips_every_field(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "urls.json"
    first = check(server.url("/redirect/301?to=/doc.pdf"), cache_file, HOUR, pdf=True)
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    assert (data["format"], data["version"]) == ("assay-urls-cache", 1)
    assert [path.name for path in tmp_path.iterdir()] == ["urls.json"]  # no temporary file left
    entry = UrlCache.open(cache_file, HOUR).lookup(first.url, True)
    assert entry is not None and entry.verdict == first


def test_a_missing_file_is_an_empty_cache_and_its_folder_is_made(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "new" / "folder" / "urls.json"
    assert len(UrlCache.open(cache_file, HOUR)) == 0
    check(server.url("/page/made"), cache_file, HOUR)
    assert cache_file.is_file()


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("{not json", "not a readable URL cache"),
        ("", "not a readable URL cache"),
        ("[1, 2]", "not an assay URL cache"),
        ('{"results": []}', "not an assay URL cache"),
        ('{"format": "assay-urls-cache", "version": 99, "entries": {}}', "format version 99"),
        ('{"format": "assay-urls-cache", "version": 1, "entries": []}', 'without its "entries"'),
        ('{"format": "assay-urls-cache", "version": 1, "entries": {"http://a.example/": {}}}', "malformed"),
    ],
)
def test_a_file_that_is_not_this_cache_is_refused(tmp_path: Path, text: str, what: str) -> None:
    cache_file = tmp_path / "urls.json"
    cache_file.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        UrlCache.open(cache_file, HOUR)
    assert what in raised.value.what
    assert raised.value.where == str(cache_file)
    assert "delete it" in raised.value.fix and "--cache" in raised.value.fix


def test_an_entry_whose_verdict_names_another_url_is_refused(server: UrlServer, tmp_path: Path) -> None:
    cache_file = tmp_path / "urls.json"
    check(server.url("/page/tampered"), cache_file, HOUR)
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    data["entries"] = {"http://other.example/": next(iter(data["entries"].values()))}
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        UrlCache.open(cache_file, HOUR)
    assert raised.value.what.startswith("a malformed entry for http://other.example/")
