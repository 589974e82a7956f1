"""assay urls check, end to end against a real HTTP server on 127.0.0.1 (url_server.py): the URLs found in
real-format files, the exit codes (1 only for a broken URL), --out's JSON, --markdown, the cache reused
across runs, the summary per host, and bad input (exit 2)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from url_server import UrlServer, url_server

from assay.cli import main

FAST = ["--allow-private", "--interval", "0", "--retries", "0", "--timeout", "5"]
SRC = Path(__file__).resolve().parents[3] / "src"


@pytest.fixture(scope="module")
def server() -> Iterator[UrlServer]:
    with url_server() as running:
        yield running


def _list(tmp_path: Path, server: UrlServer, *paths: str, name: str = "urls.txt") -> Path:
    listing = tmp_path / name
    lines = ["# cited pages", *(server.url(path) for path in paths)]
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return listing


def _check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["urls", "check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("path", "klass", "code"),
    [
        ("/ok", "ok", 0),
        ("/redirect/301?to=/page/moved", "redirected", 0),
        ("/status/403", "blocked", 0),
        ("/status/500", "error", 0),
        ("/deep/moved", "soft_404", 0),
        ("/doc.pdf", "ok", 0),
        ("/status/404", "broken", 1),
        ("/status/410", "broken", 1),
        ("/fake.pdf", "broken", 1),  # expected to be a PDF (its path), and HTML is served
    ],
)
def test_each_class_and_its_exit_code(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, klass: str, code: int
) -> None:
    out = tmp_path / "urls.json"
    listing = _list(tmp_path, server, "/ok", path)
    assert _check([str(listing), *FAST, "--out", str(out)], capsys)[0] == code
    expected = ["ok"] if path == "/ok" else ["ok", klass]  # /ok listed twice is one URL
    assert [entry["class"] for entry in _read(out)] == expected


def test_the_json_has_one_entry_per_url_with_its_places(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = tmp_path / "facts" / "acme.json"
    facts.parent.mkdir()
    facts.write_text(
        json.dumps(
            {
                "policy_id": "acme__alpha",
                "network": {"value": 1, "source_url": server.url("/redirect/302?to=/page/network")},
                "wording": {"value": 2, "source_url": server.url("/doc.pdf")},
                "room_rent": {"value": None, "source_url": None},
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    page = tmp_path / "corpus.md"
    page.write_text(f"See [the network]({server.url('/redirect/302?to=/page/network')}).\n", encoding="utf-8")
    out = tmp_path / "urls.json"
    code, _, err = _check([str(facts.parent), str(page), *FAST, "--out", str(out)], capsys)
    assert code == 0 and "2 URLs in 2 files" in err and "1 URL field is empty (null): skipped" in err
    redirected, pdf = _read(out)
    assert redirected == {
        "url": server.url("/redirect/302?to=/page/network"),
        "class": "redirected",
        "status": 200,
        "final_url": server.url("/page/network"),
        "chain": [
            {"url": server.url("/redirect/302?to=/page/network"), "status": 302},
            {"url": server.url("/page/network"), "status": 200},
        ],
        "checked_at": redirected["checked_at"],
        "reason": redirected["reason"],
        "notes": [],
        "attempts": 1,
        "places": [f"{facts}:5", f"{page}:1"],
    }
    assert redirected["checked_at"].endswith("Z") and "redirect" in redirected["reason"]
    assert (pdf["class"], pdf["is_pdf"], pdf["places"]) == ("ok", True, [f"{facts}:9"])


def test_the_markdown_report(server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    markdown = tmp_path / "urls.md"
    listing = _list(tmp_path, server, "/ok", "/status/404", "/deep/members", "/fake.pdf")
    assert _check([str(listing), *FAST, "--markdown", str(markdown)], capsys)[0] == 1
    text = markdown.read_text(encoding="utf-8")
    host = f"127.0.0.1:{server.port}"
    assert text.startswith("# URL check\n\n4 URLs checked: 1 ok, 2 broken, 1 soft_404\n")
    assert f"| `{host}` | 1 | 0 | 2 | 0 | 0 | 1 | 4 |" in text
    assert "| **total** | **1** | **0** | **2** |" in text
    not_ok = text.split("## URLs that are not ok", 1)[1]
    assert f"- `{server.url('/status/404')}`: **broken** 404, " in not_ok
    assert f"found at: `{listing}:3`" in not_ok and "a PDF was expected: it is not one" in not_ok
    assert f"(302) → `{server.url('/account/login?next=/deep/members')}` (200)" in not_ok
    assert server.url("/ok") + "`" not in not_ok  # an ok URL is not listed


def test_the_markdown_report_makes_the_urls_text_inert(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    url = server.url("/gone/a|b*c*_[x](y)")
    gold.write_text(json.dumps({"id": "1", "source": {"url": url}}) + "\n", encoding="utf-8")
    markdown = tmp_path / "urls.md"
    assert _check([str(gold), *FAST, "--markdown", str(markdown)], capsys)[0] == 1
    (line,) = [line for line in markdown.read_text(encoding="utf-8").splitlines() if "/gone/" in line]
    assert line.startswith(f"- `{url.replace('|', chr(92) + '|')}`: **broken** 404, ")


def test_the_summary_counts_classes_per_host(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "urls.txt"
    listing.write_text(
        "\n".join([server.url("/ok"), server.url("/status/404"), server.url("/ok", host="localhost")]) + "\n",
        encoding="utf-8",
    )
    code, out, _ = _check([str(listing), *FAST], capsys)
    lines = out.splitlines()
    assert code == 1 and lines[0] == "3 URLs checked: 2 ok, 1 broken"
    assert lines[1].split() == ["host", "ok", "redirected", "broken", "blocked", "error", "soft_404"]
    assert lines[2].split() == [f"127.0.0.1:{server.port}", "1", "0", "1", "0", "0", "0"]
    assert lines[3].split() == [f"localhost:{server.port}", "1", "0", "0", "0", "0", "0"]
    assert lines[4].split() == ["total", "2", "0", "1", "0", "0", "0"]
    assert lines[5] == f"broken: {server.url('/status/404')} (HEAD 404, GET 404 Not Found) at {listing}:2"


def test_the_cache_is_reused_then_revalidated(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache, out = tmp_path / "cache.json", tmp_path / "urls.json"
    listing = _list(tmp_path, server, "/etag/cli", "/status/500")
    command = [str(listing), *FAST, "--cache", str(cache), "--out", str(out)]
    assert _check(command, capsys)[0] == 0
    asked = server.record.hits("/etag/cli")
    assert asked >= 1 and list(_read(cache)["entries"]) == [server.url("/etag/cli")]  # never the 500

    assert _check(command, capsys)[0] == 0
    fresh, failing = _read(out)
    assert "served from cache" in fresh["notes"] and fresh["attempts"] == 0
    assert server.record.hits("/etag/cli") == asked and failing["class"] == "error"

    assert _check([*command, "--cache-ttl", "0"], capsys)[0] == 0
    assert "revalidated (304)" in _read(out)[0]["notes"]
    assert server.record.to("/etag/cli")[-1].headers.get("If-None-Match") == '"v1"'


def test_private_addresses_are_refused_without_the_flag(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "urls.json"
    listing = _list(tmp_path, server, "/status/404")
    before = server.record.hits("/status/404")
    assert _check([str(listing), "--out", str(out), "--retries", "0"], capsys)[0] == 0
    (entry,) = _read(out)
    assert entry["class"] == "blocked" and server.record.hits("/status/404") == before


@pytest.mark.parametrize(
    ("canary", "klass", "code"), [("localhost", "broken", 1), ("canary.invalid", "error", 0)]
)
def test_a_missing_host_fails_the_run_only_where_dns_resolves_the_canary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], canary: str, klass: str, code: int
) -> None:
    listing = tmp_path / "urls.txt"
    listing.write_text("http://no-such-host.invalid/page\n", encoding="utf-8")
    out = tmp_path / "urls.json"
    assert _check([str(listing), *FAST, "--dns-canary", canary, "--out", str(out)], capsys)[0] == code
    (entry,) = _read(out)
    assert entry["class"] == klass and entry["reason"].startswith("DNS: no such host no-such-host.invalid")


def test_no_urls_found_is_said_and_not_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.md").write_text("nothing cited here\n", encoding="utf-8")
    out, markdown = tmp_path / "out" / "urls.json", tmp_path / "out" / "urls.md"
    out.parent.mkdir()
    command = [str(tmp_path / "notes.md"), "--out", str(out), "--markdown", str(markdown)]
    code, printed, err = _check(command, capsys)
    assert code == 0 and "no URLs found" in err and "0 URLs in 1 file (1 without any)" in err
    assert _read(out) == [] and "0 URLs checked" in markdown.read_text(encoding="utf-8")
    assert printed.startswith("0 URLs checked")


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    (tmp_path / "bad.md").write_bytes(b"https://a.example/\n\xff\n")
    (tmp_path / "cache.json").write_text('{"format": "something else"}', encoding="utf-8")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("https://a.example/\n", encoding="utf-8")
    ok = str(tmp_path / "corpus" / "a.md")
    return {
        "missing": ([str(tmp_path / "nothing.md")], "no such file or folder"),
        "undecodable": ([str(tmp_path / "bad.md")], "bad.md:2: not UTF-8"),
        "corrupt cache": ([ok, "--cache", str(tmp_path / "cache.json")], "cache.json"),
        "output read back": ([str(tmp_path / "corpus"), "--out", str(tmp_path / "corpus" / "u.md")], "next"),
        "output over input": ([ok, "--markdown", ok], "--markdown would overwrite the input"),
        "bad age": ([ok, "--cache-ttl", "a week"], "'a week' is not an age"),
        "bad interval": ([ok, "--interval", "-1"], "0 or more"),
        "bad concurrency": ([ok, "--concurrency", "0"], "give 1 or more"),
        "one file twice": ([ok, "--out", str(tmp_path / "r"), "--markdown", str(tmp_path / "r")], "same"),
        "no such folder": ([ok, "--out", str(tmp_path / "nowhere" / "urls.json")], "does not exist"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "undecodable",
        "corrupt cache",
        "output read back",
        "output over input",
        "bad age",
        "bad interval",
        "bad concurrency",
        "one file twice",
        "no such folder",
    ],
)
def test_bad_input_is_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    args, words = _bad_inputs(tmp_path)[case]
    try:
        code = main(["urls", "check", *args])
    except SystemExit as exited:  # argparse's own errors, in assay's one-line form
        code = int(str(exited.code))
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Fix:" in err and err.count("\n") == 1, err


def test_a_subprocess_run(server: UrlServer, tmp_path: Path) -> None:
    listing = _list(tmp_path, server, "/ok", "/head/405", "/status/404")
    out = tmp_path / "urls.json"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "assay", "urls", "check", str(listing), *FAST, "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("3 URLs checked: 2 ok, 1 broken\n")
    assert "assay: checking 3/3 URLs, " in done.stderr and f"assay: wrote {out}" in done.stderr
    assert [entry["class"] for entry in _read(out)] == ["ok", "ok", "broken"]
    assert _read(out)[1]["reason"].startswith("HEAD 405")


def test_help_lists_the_flags_and_the_engines_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from assay.cli.urls import DEFAULT_DNS_CANARY, DEFAULTS
    from assay.harness.urls.check import CheckSettings

    with pytest.raises(SystemExit) as exited:
        main(["urls", "check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert exited.value.code == 0
    flags = ["--out", "--markdown", "--cache", "--cache-ttl", "--concurrency", "--per-host", "--interval"]
    assert all(flag in text for flag in [*flags, "--timeout", "--retries", "--allow-private", "--dns-canary"])
    engine = dataclasses.asdict(CheckSettings())
    assert {name: engine[name] for name in DEFAULTS} == DEFAULTS
    assert tuple(engine["dns_canary"]) == DEFAULT_DNS_CANARY
    assert f"(default: {DEFAULTS['per_host']})" in text and "(default: 7d)" in text
    assert "1 a URL is broken, 2 bad input or usage, 130 interrupted" in text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("30m", 1800), ("12h", 43200), ("7d", 604800), ("2W", 1209600), ("0", 0)],
)
def test_cache_ages(text: str, seconds: float) -> None:
    from assay.cli.urls import duration

    assert duration(text) == seconds


def test_a_path_given_twice_is_read_once(
    server: UrlServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = _list(tmp_path, server, "/ok")
    out = tmp_path / ".urls.json"  # hidden: not read back from the folder given
    twice = [str(listing), str(tmp_path / "." / listing.name), str(tmp_path)]
    code, _, err = _check([*twice, *FAST, "--out", str(out)], capsys)
    assert code == 0 and "assay: 1 URL in 1 file\n" in err
    assert [entry["places"] for entry in _read(out)] == [[f"{listing}:2"]]


def test_progress_in_a_ci_log_is_a_line_now_and_then_not_one_per_url() -> None:
    import io

    from assay.cli.urls import UrlProgress

    log = io.StringIO()  # not a terminal, as a CI log is not
    progress = UrlProgress(5000, log)
    for _ in range(5000):
        progress(None)  # type: ignore[arg-type]  # the verdict is not read
    progress.close()
    lines = log.getvalue().splitlines()
    # The time it took is the machine's (a loaded one may say 1s): the line's words are the behaviour.
    assert re.fullmatch(r"assay: checking 5000/5000 URLs, \d+s elapsed", lines[-1]) and len(lines) < 5


def test_the_terminal_lists_20_hosts_the_worst_kept_and_the_total_of_all() -> None:
    from assay.harness.urls.extract import FoundUrl
    from assay.harness.urls.report import summary_lines
    from assay.harness.urls.verdict import UrlVerdict

    urls = [f"https://host{n}.example/page" for n in range(30)]
    found = [FoundUrl(url, False, (f"list.txt:{n + 1}",)) for n, url in enumerate(urls)]
    verdicts = [
        UrlVerdict(url, "broken" if n == 29 else "ok", 404 if n == 29 else 200, url, (), "", "", (), None, 1)
        for n, url in enumerate(urls)
    ]
    lines = summary_lines(found, verdicts)
    rows = [line.split()[0] for line in lines[2:] if line.startswith("  host")]
    assert len(rows) == 20 and "host29.example" in rows and "host19.example" not in rows
    assert "  ... and 10 more hosts (--markdown FILE lists them all)" in lines
    (total,) = [line.split() for line in lines if line.startswith("  total")]
    assert total == ["total", "29", "0", "1", "0", "0", "0"]


def test_a_link_in_a_folder_that_leads_to_no_file_is_said_not_skipped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "page.md").write_text("nothing cited\n", encoding="utf-8")
    (corpus / "gone.md").symlink_to(tmp_path / "deleted.md")
    (corpus / "loop.md").symlink_to(corpus / "loop.md")
    code, _, err = _check([str(corpus)], capsys)
    assert code == 0 and "0 URLs in 1 file" in err
    assert f"warning: 2 links in the folders lead to no file: not read, e.g. {corpus / 'gone.md'}" in err
