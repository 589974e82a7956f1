"""`urls check` counts every line: a malformed URL (a port past 65535, an unclosed IPv6 bracket, an empty
label, an IPv6 zone id, no host, a control character, 10,000 characters) is `broken` with its reason in
every input format the check reads (plain lists, JSON fields and text, JSONL, CSV, Markdown, HTML), beside
a good URL checked against the real local server; and a plain list's lines add up to the lines read.
Before issue 22 a plain list dropped these uncounted, with exit 0."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from budget import assert_linear
from url_server import UrlServer, url_server

from assay.cli import main
from assay.harness.urls import CheckSettings, FoundUrl, check_urls_sync, scan_urls
from assay.harness.urls.normalise import MAX_URL_CHARS

FAST = ["--allow-private", "--interval", "0", "--retries", "0", "--timeout", "5"]

MALFORMED = {
    "http://example.com:99999/page": "the port '99999' is not a number from 0 to 65535",
    "http://[::1": "the IPv6 address's [ is not closed",
    "http://a..b/page": "the host 'a..b' is not a valid host name",
    "http://[fe80::1%25eth0]/page": "has a zone id",
    "http:///no-host": "it has no host",
    "http://exa\x01mple.com/": "a control character (U+0001) inside it",
    "http://long.example/" + "a" * 10_000: f"more than the {MAX_URL_CHARS:,} a URL may have here",
    "https://x.example:8o8o/": "the port '8o8o' is not a number",
    "http://[::1]junk/": "'junk' follows the IPv6 address's ]",
}


@pytest.fixture(scope="module")
def server() -> Iterator[UrlServer]:
    with url_server() as running:
        yield running


def _list(urls: list[str]) -> str:
    return "# cited\n\n" + "\n".join(urls) + "\n"


def _json_fields(urls: list[str]) -> str:
    return json.dumps({"sources": [{"source_url": url} for url in urls]}, indent=1)


def _json_text(urls: list[str]) -> str:
    return json.dumps({"notes": [f"see {url} for the wording" for url in urls]}, indent=1)


def _jsonl(urls: list[str]) -> str:
    return "".join(json.dumps({"id": n, "source": {"url": url}}) + "\n" for n, url in enumerate(urls))


def _csv(urls: list[str]) -> str:
    return "id,url\n" + "".join(f'{n},"{url}"\n' for n, url in enumerate(urls))


def _markdown(urls: list[str]) -> str:
    return "".join(f"- [the wording]({url})\n" for url in urls)


def _html(urls: list[str]) -> str:
    return "".join(f'<p><a href="{url}">the wording</a></p>\n' for url in urls)


FORMATS: dict[str, tuple[str, Callable[[list[str]], str]]] = {
    "plain list .txt": ("urls.txt", _list),
    "plain list .urls": ("cited.urls", _list),
    "a file named on its own": ("CITED", _list),
    "JSON URL fields": ("facts.json", _json_fields),
    "JSON text": ("notes.json", _json_text),
    "JSONL": ("gold.jsonl", _jsonl),
    "CSV": ("links.csv", _csv),
    "Markdown": ("page.md", _markdown),
    "HTML": ("page.html", _html),
}


def _check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["urls", "check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("kind", list(FORMATS))
def test_every_malformed_url_is_broken_with_its_reason_in_every_format(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    name, write = FORMATS[kind]
    good = server.url("/ok")
    path = tmp_path / name
    path.write_text(write([good, *MALFORMED]), encoding="utf-8")
    out = tmp_path / ".out.json"
    code, stdout, err = _check([str(path), "--out", str(out), *FAST], capsys)
    assert code == 1, err  # broken fails the run
    entries = json.loads(out.read_text(encoding="utf-8"))
    assert len(entries) == 1 + len(MALFORMED)  # every URL written is counted: none dropped
    assert entries[0]["url"] == good and entries[0]["class"] == "ok"
    for entry, (written, reason) in zip(entries[1:], MALFORMED.items(), strict=True):
        assert entry["class"] == "broken" and entry["attempts"] == 0, entry
        assert entry["reason"].startswith("malformed URL: ") and reason in entry["reason"], entry
        assert entry["url"] == written or entry["url"] == written[:300] + "…"
        assert entry["places"] and entry["places"][0].startswith(str(path))
    assert f"{1 + len(MALFORMED)} URLs checked: 1 ok, {len(MALFORMED)} broken" in stdout


def test_a_url_field_with_a_space_in_its_host_is_broken_and_another_scheme_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"a_url": "http://ex ample.com/p", "b_url": "ftp://x.example/f"}), "utf-8")
    scan = scan_urls([facts])
    (found,) = scan.found
    assert (found.url, found.malformed) == (
        "http://ex ample.com/p",
        "the host 'ex%20ample.com' is not a valid host name",
    )
    assert [text for _, text in scan.unusable] == ["ftp://x.example/f"]


def test_a_plain_lists_lines_add_up_to_the_lines_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        "# a comment",
        "",
        "https://ok.example/a",
        "ftp://files.example/b",
        "a note with no link",
        "http://[::1",
        "see https://ok.example/c and https://ok.example/d",
        "   ",
        "mailto:someone@example.org",
    ]
    listing = tmp_path / "cited.list"
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counted = scan_urls([listing]).list_lines
    assert counted is not None
    assert (counted.read, counted.with_urls, counted.blank_or_comment, counted.without_urls) == (9, 3, 3, 3)
    assert counted.read == counted.with_urls + counted.blank_or_comment + counted.without_urls == len(lines)
    assert counted.first_without == tuple(f"{listing}:{n}" for n in (4, 5, 9))
    code, _, err = _check([str(listing), "--dns-canary", "", "--retries", "0", "--timeout", "1"], capsys)
    assert code == 1  # the malformed one is broken, whatever the network says of the others
    assert "9 lines of plain lists: 3 with a URL, 3 blank or comments, 3 with no http(s) URL" in err
    assert f"e.g. {listing}:4, {listing}:5, {listing}:9" in err


def test_a_malformed_url_is_broken_without_a_request_or_a_cache_entry() -> None:
    found = [FoundUrl("http://[::1", False, ("list.txt:1",), "the IPv6 address's [ is not closed")]
    (verdict,) = check_urls_sync(found, CheckSettings(timeout=1, retries=0))
    assert (verdict.klass, verdict.attempts, verdict.chain, verdict.status) == ("broken", 0, (), None)
    assert verdict.reason == "malformed URL: the IPv6 address's [ is not closed"


@pytest.mark.parametrize(
    "text",
    [
        "http:// and https:// are the schemes",  # prose about URLs: each bare scheme is a URL with no host
        "[http://[x](http://[y)",
        "http://" + "[" * 5000,
        "https://" + "%" * 3000 + "/",
        "http://\u200b/",
    ],
)
def test_odd_text_gives_broken_urls_never_an_exception(tmp_path: Path, text: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(text + "\n", encoding="utf-8")
    found: Any = scan_urls([page]).found
    assert found and all(item.malformed for item in found)


def _scan(path: Path, body: str) -> Callable[[], object]:
    path.write_text(body + "\n", encoding="utf-8")
    return lambda: scan_urls([path])


@pytest.mark.parametrize(
    "unit",
    [
        "http://[",  # every scheme starts a malformed word that runs to the line's end: read once
        "[",  # a Markdown link's text was looked for from every "[", 500 characters each
        "](https://x.example/ ",
        "http:// ",
        "[PDF](http://[::1 ",
    ],
)
@pytest.mark.parametrize("name", ["page.md", "list.txt", "page.html"])
def test_a_line_of_hostile_brackets_and_schemes_is_read_in_linear_time(
    tmp_path: Path, unit: str, name: str
) -> None:
    # 4x the text: about 4x the time; quadratic would be 16x (budget.py: CPU, best of three).
    assert_linear(lambda size: _scan(tmp_path / name, unit * (size // len(unit))), 250_000)
