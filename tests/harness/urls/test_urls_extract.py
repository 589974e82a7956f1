"""Finding a project's URLs: one spelling per URL (normalise_url), and every URL in facts files, gold
sets, Markdown and text corpora and plain lists, each found once with every place it was written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.errors import InputError
from assay.harness.urls.extract import FoundUrl, scan_urls, urls_in
from assay.harness.urls.normalise import normalise_url
from conftest import skip_or_fail

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "insurance"


# --- normalise_url -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://example.com/a", "https://example.com/a"),
        ("<https://example.com/a>", "https://example.com/a"),
        ('"https://example.com/a",', "https://example.com/a"),
        ("'https://example.com/a'.", "https://example.com/a"),
        ("[https://example.com/a]", "https://example.com/a"),
        ("https://example.com/a.", "https://example.com/a"),
        ("https://example.com/a?!", "https://example.com/a"),
        ("**https://example.com/a**", "https://example.com/a"),
        ("https://example.com/a)", "https://example.com/a"),
        ("(https://en.wikipedia.org/wiki/Mercury_(planet)).", "https://en.wikipedia.org/wiki/Mercury_(planet)"),
        ("https://en.wikipedia.org/wiki/Mercury_(planet)", "https://en.wikipedia.org/wiki/Mercury_(planet)"),
        ("HTTPS://Example.COM/Path/To?Q=A", "https://example.com/Path/To?Q=A"),
        ("https://Example.com", "https://example.com/"),
        ("https://example.com?q=1", "https://example.com/?q=1"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("https://example.com:/a", "https://example.com/a"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a.#top", "https://example.com/a"),
        ("https://example.com/a%2Fb?x=%41", "https://example.com/a%2Fb?x=A"),  # %41 is A; %2F stays
        ("https://example.com/a b", "https://example.com/a%20b"),
        ("https://bücher.de/straße", "https://xn--bcher-kva.de/stra%C3%9Fe"),  # an IRI's path as a URI's
        ("https://example.com/stra%c3%9fe?q=ü", "https://example.com/stra%C3%9Fe?q=%C3%BC"),
        ("https://example.com./a", "https://example.com/a"),  # the root's dot: one host
        ("https://ex%41mple.com/", "https://example.com/"),  # a host's escapes decoded
        ("https://stra%C3%9Fe.de/", "https://xn--strae-oqa.de/"),
        ("HTTP://example.com:80/", "http://example.com/"),
        ("https://example.com/?A=1", "https://example.com/?A=1"),  # the query's case is the site's
        ("https://example.com/?b=2&a=1", "https://example.com/?b=2&a=1"),  # and its order
        ("https://BÜCHER.de/", "https://xn--bcher-kva.de/"),
        ("https://xn--bcher-kva.de/", "https://xn--bcher-kva.de/"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://[2001:DB8::1]/", "http://[2001:db8::1]/"),
        ("http://127.0.0.1:80/", "http://127.0.0.1/"),
        ("https://user@Example.com/", "https://example.com/"),  # no credential ever printed
        ("https://user:secret@Example.com/a", "https://example.com/a"),
        ("https://my_host.example.com/", "https://my_host.example.com/"),
    ],
)
def test_normalise_url(text: str, url: str) -> None:
    assert normalise_url(text) == url


@pytest.mark.parametrize(
    "text",
    [
        "",
        "example.com/a",
        "www.example.com",
        "ftp://example.com/a",
        "mailto:someone@example.com",
        "javascript:alert(1)",
        "https:example.com",
        "https:///a",
        "https://",
        "https://exa mple.com/",
        "https://example.com../",
        "https://ex%FFmple.com/",  # escapes that are no UTF-8
        "https://example.com:99999/",
        "https://example.com:8o/",
        "https://[not-ipv6]/",
        "https://[::1/",
        "https://a..b/",
        "https://example.com/a\tb",
        "https://example.com/a\nb",
        "see https://example.com/",
    ],
)
def test_normalise_url_refuses_what_is_no_http_url(text: str) -> None:
    assert normalise_url(text) is None


URL_TEXT = st.builds(
    lambda scheme, host, port, path, tail: f"{scheme}://{host}{port}{path}{tail}",
    st.sampled_from(["http", "https", "HTTP", "hTTps"]),
    st.sampled_from(["example.com", "Example.COM", "bücher.de", "[::1]", "127.0.0.1", "a-b.c_d.org."]),
    st.sampled_from(["", ":80", ":443", ":8080", ":"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
    st.sampled_from(["", ".", ")", "#frag", "?q=1", ").", "'", ">", " "]),
)
WRAPPED = st.builds(
    lambda before, url, after: before + url + after,
    st.sampled_from(["", "<", "(", '"', "[", "**"]),
    URL_TEXT,
    st.sampled_from(["", ">", ")", '"', "]", ".", "**"]),
)


@settings(max_examples=500, deadline=None)
@given(WRAPPED)
def test_normalise_url_is_idempotent(text: str) -> None:
    once = normalise_url(text)
    assert once is None or normalise_url(once) == once


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_normalise_url_never_raises_and_gives_http(text: str) -> None:
    once = normalise_url(text)
    assert once is None or (once.startswith(("http://", "https://")) and normalise_url(once) == once)


# --- urls_in -------------------------------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


FLAT_FACTS = {
    "policy_id": "acme__alpha",
    "policy_name": "Alpha",
    "grace_period": {"value": 30, "source_pdf_path": "acme/alpha.pdf", "source_quote": "30 days"},
    "network_hospital_count": {"value": 9000, "source_url": "https://Acme.example/network#list"},
    "room_rent": {"value": None, "source_url": None},
    "brochure": {"value": 1, "source_url": "https://acme.example/download?id=7", "source_type": "PDF"},
    "wording": {"value": 2, "source_url": "ftp://acme.example/wording"},
}
DEFAULT_FACTS = {
    "document": "acme__beta",
    "claims": [
        {"field": "grace_period", "value": 30, "source": {"url": "https://acme.example/network"}},
        {"field": "wording", "value": 1, "source": {"url": "https://acme.example/beta.PDF"}},
        {"field": "note", "value": 1, "source": {"note": "also at https://acme.example/faq."}},
    ],
}


def test_facts_files_in_both_layouts(tmp_path: Path) -> None:
    flat = _write(tmp_path / "facts" / "alpha.json", json.dumps(FLAT_FACTS, indent=2))
    default = _write(tmp_path / "facts" / "beta.json", json.dumps(DEFAULT_FACTS, indent=2))
    scan = scan_urls([tmp_path / "facts"])
    assert scan.found == (
        FoundUrl("https://acme.example/network", False, (f"{flat}:11", f"{default}:8")),
        FoundUrl("https://acme.example/download?id=7", True, (f"{flat}:19",)),
        FoundUrl("https://acme.example/beta.PDF", True, (f"{default}:15",)),
        FoundUrl("https://acme.example/faq", False, (f"{default}:22",)),
    )
    assert scan.skipped == (f"{flat}:15",)
    assert scan.unusable == ((f"{flat}:24", "ftp://acme.example/wording"),)
    assert scan.files == ((str(flat), 2), (str(default), 3))


def test_gold_set_jsonl(tmp_path: Path) -> None:
    items = [
        {"id": "a", "question": "Where?", "source": {"document": "d", "path": "d.pdf", "quote": "q"}},
        {"id": "b", "question": "See https://docs.example/faq?x=1 first", "source": {"url": "https://docs.example/d"}},
        {"id": "c", "source_url": "https://docs.example/d", "pdf_url": "https://docs.example/file?id=3"},
    ]
    gold = _write(tmp_path / "gold.jsonl", "\n".join(json.dumps(item) for item in items) + "\n\n")
    assert urls_in([gold]) == [
        FoundUrl("https://docs.example/faq?x=1", False, (f"{gold}:2",)),
        FoundUrl("https://docs.example/d", False, (f"{gold}:2", f"{gold}:3")),
        FoundUrl("https://docs.example/file?id=3", True, (f"{gold}:3",)),
    ]


MARKDOWN = """# Sources https://heading.example/

See [the wording (PDF)](https://acme.example/wording?v=2 "Wording") and
<https://acme.example/autolink>, or (https://en.wikipedia.org/wiki/Mercury_(planet)).
Twice: https://acme.example/autolink. And **https://acme.example/bold**; done.
[https://acme.example/text](https://acme.example/dest) `https://acme.example/code`
Not URLs: www.acme.example, ftp://acme.example/x, mailto:x@acme.example
"""


def test_markdown_links_autolinks_and_bare_urls(tmp_path: Path) -> None:
    page = _write(tmp_path / "corpus" / "page.md", MARKDOWN)
    found = {item.url: item for item in urls_in([page])}
    assert list(found) == [
        "https://heading.example/",
        "https://acme.example/wording?v=2",
        "https://acme.example/autolink",
        "https://en.wikipedia.org/wiki/Mercury_(planet)",
        "https://acme.example/bold",
        "https://acme.example/text",
        "https://acme.example/dest",
        "https://acme.example/code",
    ]
    assert found["https://acme.example/wording?v=2"].expect_pdf
    assert not found["https://acme.example/text"].expect_pdf
    assert found["https://acme.example/autolink"].places == (f"{page}:4", f"{page}:5")


def test_html_character_references_are_undone(tmp_path: Path) -> None:
    page = _write(tmp_path / "page.html", '<a href="https://a.example/q?x=1&amp;y=2">PDF</a>\n')
    text = _write(tmp_path / "page.md", "[x](https://b.example/q?x=1&amp;y=2)\n")  # CommonMark reads them
    listed = _write(tmp_path / "list.txt", "https://c.example/q?x=1&amp;y=2\n")  # a plain list does not
    assert [item.url for item in urls_in([page, text, listed])] == [
        "https://a.example/q?x=1&y=2",
        "https://b.example/q?x=1&y=2",
        "https://c.example/q?x=1&amp;y=2",
    ]


def test_a_plain_list_with_comments(tmp_path: Path) -> None:
    listing = _write(
        tmp_path / "urls.txt",
        "# checked weekly\nhttps://a.example/one\n\n  # https://a.example/commented\n"
        "https://A.example/one/  # the same page? no: another path\nhttp://a.example:80/report.pdf\n",
    )
    assert urls_in([listing]) == [
        FoundUrl("https://a.example/one", False, (f"{listing}:2",)),
        FoundUrl("https://a.example/one/", False, (f"{listing}:5",)),
        FoundUrl("http://a.example/report.pdf", True, (f"{listing}:6",)),
    ]


def test_a_folder_is_searched_in_order_and_a_file_without_urls_counted(tmp_path: Path) -> None:
    _write(tmp_path / "b" / "page.md", "https://b.example/\n")
    _write(tmp_path / "a.txt", "no links here\n")
    _write(tmp_path / "c.jsonl", json.dumps({"url": "https://c.example/"}) + "\n")
    _write(tmp_path / ".hidden" / "x.md", "https://hidden.example/\n")
    _write(tmp_path / "._a.json", "\x00binary")
    (tmp_path / "d.pdf").write_bytes(b"%PDF-1.4 https://pdf.example/")
    scan = scan_urls([tmp_path, tmp_path / "b" / "page.md"])
    assert [item.url for item in scan.found] == ["https://c.example/", "https://b.example/"]
    assert scan.files_without_urls == (str(tmp_path / "a.txt"),)
    assert len(scan.files) == 3 and dict(scan.files)[str(tmp_path / "b" / "page.md")] == 1  # read once


def test_a_url_across_a_long_lines_pieces_is_found_whole(tmp_path: Path) -> None:
    from assay.harness.urls import extract

    url = "https://long.example/" + "p" * 50
    padding = "word " * ((extract.PIECE_BYTES - 30) // 5)
    page = _write(tmp_path / "long.md", padding + url + " tail https://after.example/x\n2nd https://line2.example/\n")
    assert [(item.url, item.places) for item in urls_in([page])] == [
        (url, (f"{page}:1",)),
        ("https://after.example/x", (f"{page}:1",)),
        ("https://line2.example/", (f"{page}:2",)),
    ]


@pytest.mark.parametrize(
    ("name", "content", "where", "words"),
    [
        ("bad.md", b"ok https://a.example/\n\xff\xfe\n", "bad.md:2", "not UTF-8"),
        ("cut.txt", b"https://a.example/\xe2\x82", "cut.txt:1", "not UTF-8"),
        ("le.txt", "https://a.example/\n".encode("utf-16-le"), "le.txt:1", "UTF-16 without its byte-order"),
        ("bad.json", b'{"url": "https://a.example/",}', "bad.json:1:", "not valid JSON"),
        ("twice.json", b'{"url": "https://a.example/", "url": "https://b.example/"}', "twice.json", "url"),
        ("bad.jsonl", b'{"url": "https://a.example/"}\n{"url": \n', "bad.jsonl:2", "not valid JSON"),
        ("missing.md", None, "missing.md", "no such file"),
        ("fifo", "fifo", "fifo", "not a regular file"),
        ("loop.md", "loop", "loop.md", "a loop of links"),
        ("gone.md", "gone", "gone.md", "its target is gone"),
    ],
)
def test_an_unreadable_file_is_an_input_error_naming_it(
    tmp_path: Path, name: str, content: bytes | str | None, where: str, words: str
) -> None:
    path = tmp_path / name
    if content == "fifo":
        os.mkfifo(path)
    elif content == "loop":
        path.symlink_to(tmp_path / "back.md")
        (tmp_path / "back.md").symlink_to(path)
    elif content == "gone":
        path.symlink_to(tmp_path / "deleted.md")
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        urls_in([path])
    assert f"{tmp_path / where}" in raised.value.message and words in raised.value.what
    assert raised.value.fix


def test_a_json_document_too_big_to_parse_whole_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.harness.urls import extract

    monkeypatch.setattr(extract, "MAX_JSON_BYTES", 100)
    big = _write(tmp_path / "big.json", json.dumps(["https://a.example/"] * 20))
    with pytest.raises(InputError) as raised:
        urls_in([big])
    assert "JSON Lines" in raised.value.fix
    (found,) = urls_in([_write(tmp_path / "big.jsonl", '"https://a.example/"\n' * 20)])
    assert found.places[-1].endswith("big.jsonl:20")


def test_the_shared_facts_urls() -> None:
    if not (SHARED / "facts").is_dir():
        skip_or_fail(f"the shared insurance data is missing: {SHARED}")
    scan = scan_urls([SHARED / "facts"])
    assert [item.url for item in scan.found] == SHARED_FACTS_URLS
    assert not any(item.expect_pdf for item in scan.found) and not scan.unusable
    assert [Path(place).name for place in scan.skipped] == ["hdfc-ergo__optima-secure.json:147"]
    (home,) = [item for item in scan.found if item.url == "https://www.hdfcergo.com/"]
    assert [Path(place).name for place in home.places] == [
        "hdfc-ergo__my-optima-secure__wordings.json:100",
        "hdfc-ergo__optima-secure.json:135",
    ]


# The ten source_url values of the six facts files (one null), nine pages.
SHARED_FACTS_URLS = [
    "https://www.adityabirlacapital.com/healthinsurance/health-insurance-plans",
    "https://www.careinsurance.com/product/care-senior",
    "https://www.careinsurance.com/health-plan-network-hospitals.html",
    "https://www.hdfcergo.com/health-insurance/day-care-treatment",
    "https://www.hdfcergo.com/",
    "https://www.hdfcergo.com/health-insurance/optima-secure/",
    "https://www.nivabupa.com/health-insurance-plans.html",
    "https://www.tataaig.com/health-insurance/medicare",
    "https://www.tataaig.com/",
]


def test_one_page_spelled_as_an_iri_a_uri_and_with_the_roots_dot_is_found_once(tmp_path: Path) -> None:
    page = _write(
        tmp_path / "page.md",
        "[IRI](https://Example.com./straße) and https://example.com/stra%c3%9fe and "
        "HTTP://example.com:80/x, http://example.com/x; https://example.com/x?a=1 and ?A=1: "
        "https://example.com/x?A=1\n",
    )
    assert [(item.url, item.places) for item in urls_in([page])] == [
        ("https://example.com/stra%C3%9Fe", (f"{page}:1",)),
        ("http://example.com/x", (f"{page}:1",)),
        ("https://example.com/x?a=1", (f"{page}:1",)),
        ("https://example.com/x?A=1", (f"{page}:1",)),
    ]


def test_a_csv_comma_ends_a_url_but_a_quoted_cell_keeps_its_commas(tmp_path: Path) -> None:
    table = _write(
        tmp_path / "sources.csv",
        'name,url,note\nA,https://example.com/a,next cell\nB,"https://example.com/b,c",quoted\n'
        '"C","see https://example.com/d, then more",x\n',
    )
    assert [item.url for item in urls_in([table])] == [
        "https://example.com/a",
        "https://example.com/b,c",
        "https://example.com/d",
    ]


def test_a_markdown_destination_in_angle_brackets_keeps_its_spaces(tmp_path: Path) -> None:
    page = _write(
        tmp_path / "page.md",
        "[Wording (PDF)](<https://example.com/policy wording.pdf>) and\n"
        "[ref]: <https://example.com/a b&amp;c> \"Title\"\n"
        "prose <https://example.com/c d> is no link: its URL ends at the space\n",
    )
    assert [(item.url, item.expect_pdf) for item in urls_in([page])] == [
        ("https://example.com/policy%20wording.pdf", True),
        ("https://example.com/a%20b&c", False),
        ("https://example.com/c", False),
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("name", ["list.txt", "page.md", "gold.jsonl", "facts.json"])
def test_a_utf16_or_32_file_is_refused_naming_it(tmp_path: Path, name: str, encoding: str) -> None:
    file = tmp_path / name
    bom = "\ufeff" if encoding == "utf-16-be" else ""  # "utf-16" and "utf-32" write their own
    file.write_bytes((bom + '{"url": "https://example.com/a"}\n').encode(encoding))
    with pytest.raises(InputError) as raised:
        scan_urls([file])
    assert encoding[:6].upper() in raised.value.what
    assert "save the file as UTF-8" in str(raised.value)


def test_a_json_url_that_begins_a_later_string_takes_its_own_line(tmp_path: Path) -> None:
    facts = _write(
        tmp_path / "facts.json",
        '{\n  "groups": [["https://example.com/a", {"links": ["see https://example.com/c."]}]],\n'
        '  "escaped": "https:\\/\\/example.com\\/d",\n  "pdf_link": "https://example.com/doc"\n}\n',
    )
    assert [(item.url, item.places) for item in urls_in([facts])] == [
        ("https://example.com/a", (f"{facts}:2",)),
        ("https://example.com/c", (f"{facts}:2",)),
        ("https://example.com/d", (str(facts),)),  # written with escapes: the file, not a wrong line
        ("https://example.com/doc", (f"{facts}:4",)),
    ]


@pytest.mark.parametrize(
    ("name", "text", "urls"),
    [
        (
            "page.html",
            "<a href=\"https://x.example/a?b=1&amp;c=2\">a</a><img src='https://x.example/i.png'>"
            "<a href=https://x.example/bare>b</a><a href=\"/relative\">r</a>",
            ["https://x.example/a?b=1&c=2", "https://x.example/i.png", "https://x.example/bare"],
        ),
        (
            "guide.rst",
            "See `Python <https://x.example/py/>`_ and `doc <https://x.example/d.pdf>`__.\n"
            ".. _target: https://x.example/target\n",
            ["https://x.example/py/", "https://x.example/d.pdf", "https://x.example/target"],
        ),
        ("cells.tsv", "name\turl\nA\thttps://x.example/t\tnext\n", ["https://x.example/t"]),
        (
            "refs.md",
            '[ref]: https://x.example/ref "Title"\n`https://x.example/code`\n```\nhttps://x.example/block\n```\n',
            ["https://x.example/ref", "https://x.example/code", "https://x.example/block"],  # code cites too
        ),
        ("crlf.md", "a https://x.example/1\r\nb https://x.example/2\r\n", ["https://x.example/1", "https://x.example/2"]),
        (
            "nested.json",
            '{"s": [["https://x.example/j1", {"l": ["https://x.example/j2"]}], "t https://x.example/j3."]}',
            ["https://x.example/j1", "https://x.example/j2", "https://x.example/j3"],
        ),
    ],
)
def test_urls_in_each_text_format(tmp_path: Path, name: str, text: str, urls: list[str]) -> None:
    assert [item.url for item in urls_in([_write(tmp_path / name, text)])] == urls


@pytest.mark.parametrize(
    ("written", "urls"),
    [
        ("https://x.example/policy wording.pdf", ["https://x.example/policy%20wording.pdf"]),
        ("https://x.example/a; https://y.example/b", ["https://x.example/a", "https://y.example/b"]),
        ("https://x.example/a https://y.example/b", ["https://x.example/a", "https://y.example/b"]),
        ("https://web.archive.org/web/2024/https://x.example/a", ["https://web.archive.org/web/2024/https://x.example/a"]),
    ],
)
def test_a_url_field_is_one_url_unless_several(tmp_path: Path, written: str, urls: list[str]) -> None:
    facts = _write(tmp_path / "facts.json", json.dumps({"f": {"value": 1, "source_url": written}}))
    assert [item.url for item in urls_in([facts])] == urls


def test_a_character_reference_that_stands_for_a_space_or_bracket_ends_the_url(tmp_path: Path) -> None:
    page = _write(
        tmp_path / "page.html",
        '<p>see https://x.example/a&nbsp;and more, <a href="https://x.example/b">https://x.example/b&lt;/a</a>'
        " &lt;https://x.example/c&gt;</p>\n",
    )
    assert [item.url for item in urls_in([page])] == [
        "https://x.example/a",
        "https://x.example/b",
        "https://x.example/c",
    ]
