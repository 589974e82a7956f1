"""The claim-to-source map: claim -> source (document and page, or URL) -> verdict, with honest counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_gold_build import SHARED, write_corpus

from assay.cli import main
from assay.documents import load_sources
from assay.errors import InputError
from assay.harness.claims import verify_claims
from assay.harness.facts import load_facts
from assay.harness.source_map import map_markdown, source_map, url_classes
from conftest import skip_or_fail


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


def _map(corpus: tuple[Path, Path], classes: dict[str, str] | None = None) -> dict[str, Any]:
    facts, sources = corpus
    return source_map(verify_claims(load_facts(facts), load_sources(sources, cache_dir=None)), classes)


def _entry(mapped: dict[str, Any], document: str, field: str) -> dict[str, Any]:
    (entry,) = [
        e for e in mapped["claims"] if e["claim"] == {**e["claim"], "document": document, "field": field}
    ]
    return entry


@pytest.mark.parametrize(
    ("field", "verdict", "words"),
    [
        ("grace_period", "verified", "quote verified at level exact"),
        ("deductible_amount", "quote_missing", "source present but quote missing"),
        ("min_entry_age", "source_missing", "source missing"),
        ("maternity_waiting_months", "sentinel", "sentinel ("),
        ("network_hospital_count", "url_unchecked", "URL not yet checked"),
        ("free_look_period", "other_document", "quote found only in another document (acme__beta)"),
    ],
)
def test_each_claim_maps_to_its_verdict(
    corpus: tuple[Path, Path], field: str, verdict: str, words: str
) -> None:
    entry = _entry(_map(corpus), "acme__alpha", field)
    assert entry["verdict"] == verdict and entry["verdict_text"].startswith(words)


def test_a_verified_claim_names_its_document_and_page(corpus: tuple[Path, Path]) -> None:
    source = _entry(_map(corpus), "acme__alpha", "ayush_coverage")["source"]
    assert (source["kind"], source["document"], source["page"], source["path"]) == (
        "document",
        "acme__alpha",
        2,
        "acme/alpha.txt",
    )


def test_a_url_check_gives_url_claims_their_class(corpus: tuple[Path, Path]) -> None:
    mapped = _map(corpus, {"https://example.com/network": "ok"})
    entry = _entry(mapped, "acme__alpha", "network_hospital_count")
    assert (entry["verdict"], entry["source"]) == (
        "url:ok",
        {"kind": "url", "url": "https://example.com/network"},
    )
    assert mapped["counts"]["total"]["url:ok"] == 1 and mapped["counts"]["total"]["url_unchecked"] == 0


@pytest.mark.parametrize(
    "checked",
    [
        "https://example.com/network",
        "HTTPS://Example.COM/network",
        "https://example.com:443/network#beds",
        "<https://example.com/network>",
    ],
)
def test_a_url_joins_its_claim_however_either_spells_it(corpus: tuple[Path, Path], checked: str) -> None:
    classes = url_classes([{"url": checked, "class": "broken"}], where="urls.json")
    entry = _entry(_map(corpus, classes), "acme__alpha", "network_hospital_count")
    assert entry["verdict"] == "url:broken"
    assert entry["source"]["url"] == "https://example.com/network"  # the claim's own spelling, as curated


def test_a_url_that_is_no_other_urls_spelling_does_not_join(corpus: tuple[Path, Path]) -> None:
    classes = url_classes([{"url": "https://example.com/network/", "class": "ok"}], where="urls.json")
    entry = _entry(_map(corpus, classes), "acme__alpha", "network_hospital_count")
    assert entry["verdict"] == "url_unchecked"


def test_the_url_checks_own_output_is_read(corpus: tuple[Path, Path]) -> None:
    from assay.harness.urls.extract import FoundUrl
    from assay.harness.urls.report import url_entries
    from assay.harness.urls.verdict import Hop, UrlVerdict

    found = [FoundUrl("https://example.com/network", False, ("facts/alpha.json:12",))]
    verdict = UrlVerdict(
        url="https://example.com/network",
        klass="redirected",
        status=200,
        final_url="https://www.example.com/network",
        chain=(Hop("https://example.com/network", 301), Hop("https://www.example.com/network", 200)),
        checked_at="2026-12-01T10:00:00Z",
        reason="200 OK after 1 redirect",
        notes=("cross-host: example.com -> www.example.com",),
        is_pdf=None,
        attempts=1,
    )
    data = json.loads(json.dumps(url_entries(found, [verdict])))
    assert set(data[0]) > {"url", "class", "status", "final_url", "chain", "checked_at", "places"}
    mapped = _map(corpus, url_classes(data, where="urls.json"))
    assert _entry(mapped, "acme__alpha", "network_hospital_count")["verdict"] == "url:redirected"


def test_one_url_given_two_classes_is_an_input_error() -> None:
    data = [
        {"url": "https://example.com/a", "class": "ok"},
        {"url": "https://EXAMPLE.com/a#x", "class": "ok"},
        {"url": "https://example.com:443/a", "class": "broken"},
    ]
    with pytest.raises(InputError) as raised:
        url_classes(data, where="urls.json")
    assert "urls.json: [2]" in raised.value.message and "entries 0 and 2" in raised.value.message


def test_counts_per_document_and_overall(corpus: tuple[Path, Path]) -> None:
    counts = _map(corpus)["counts"]
    assert counts["total"] == {
        "verified": 11,
        "quote_missing": 2,
        "source_missing": 2,
        "other_document": 2,
        "sentinel": 1,
        "url_unchecked": 1,
    }
    assert counts["by_document"]["acme__gamma"]["other_document"] == 1
    assert sum(sum(tally.values()) for tally in counts["by_document"].values()) == 19


def test_the_markdown_shows_the_symbols_and_the_flag(corpus: tuple[Path, Path]) -> None:
    text = map_markdown(_map(corpus))
    assert (
        "✅ verified" in text and "⏳ URL not yet checked" in text and "**cross_document** gamma.json" in text
    )


@pytest.mark.parametrize(
    ("data", "where"),
    [({"url": "x"}, "urls.json"), ([{"url": "x"}], "urls.json: [0]"), ([{"url": 1, "class": "ok"}], "[0]")],
)
def test_a_malformed_url_file_is_an_input_error(data: object, where: str) -> None:
    with pytest.raises(InputError) as raised:
        url_classes(data, where="urls.json")
    assert where in raised.value.message


def test_the_command_writes_json_and_markdown(
    corpus: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = corpus
    urls = tmp_path / "urls.json"
    urls.write_text(
        json.dumps([{"url": "https://example.com/network", "class": "ok", "status": 200}]), "utf-8"
    )
    out, markdown = tmp_path / "map.json", tmp_path / "map.md"
    command = ["sources", "map", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
    assert main([*command, "--urls", str(urls), "--out", str(out), "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    assert "assay sources map: 19 claims" in printed and "url:ok" in printed
    assert json.loads(out.read_text(encoding="utf-8"))["counts"]["total"]["url:ok"] == 1
    assert markdown.read_text(encoding="utf-8").startswith("# Claim-to-source map")
    urls.write_text("[{]", encoding="utf-8")
    assert main([*command, "--urls", str(urls)]) == 2
    assert "urls.json:1:" in capsys.readouterr().err


def test_the_real_map_counts(tmp_path: Path) -> None:
    if not (SHARED / "facts").is_dir():
        skip_or_fail(f"the shared insurance data is missing: {SHARED}")
    verification = verify_claims(
        load_facts(SHARED / "facts"), load_sources(SHARED / "pdfs", cache_dir=tmp_path)
    )
    counts = source_map(verification)["counts"]
    assert counts["total"] == REAL_MAP_TOTAL


# The seed's ✅/⚠️/❌/⏳, computed honestly: whole quotes found, URLs not yet checked.
REAL_MAP_TOTAL = {
    "verified": 68,
    "quote_missing": 0,
    "source_missing": 3,
    "other_document": 14,
    "sentinel": 74,
    "url_unchecked": 9,
}


@pytest.mark.parametrize(
    ("command", "flags"),
    [
        (
            ["gold", "build"],
            ["--facts", "--sources", "--templates", "--refusals", "--strict", "--out", "--no-cache"],
        ),
        (["sources", "map"], ["--facts", "--sources", "--urls", "--out", "--markdown", "--min-confidence"]),
    ],
)
def test_help_lists_the_flags(
    command: list[str], flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert all(flag in text for flag in flags)


def test_a_command_without_its_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sources"])
    assert exited.value.code == 2 and "ACTION" in capsys.readouterr().err


def _url_facts(root: Path) -> tuple[Path, Path]:
    facts, sources = root / "facts", root / "sources"
    facts.mkdir()
    sources.mkdir()
    (sources / "acme.txt").write_text("Acme wording.", encoding="utf-8")
    claims = [
        {"field": "plans", "value": 3, "source": {"url": "www.acme.example/plans"}},
        {"field": "files", "value": 1, "source": {"url": "ftp://acme.example/list"}},
        {"field": "beds", "value": 5000, "source": {"url": "https://acme.example/beds"}},
    ]
    (facts / "acme.json").write_text(json.dumps({"document": "acme", "claims": claims}), encoding="utf-8")
    return facts, sources


@pytest.mark.parametrize(("field", "written"), [("plans", "www.acme.example/plans"), ("files", "ftp://")])
def test_a_claim_citing_no_http_url_is_unusable_not_waiting_for_a_check(
    tmp_path: Path, field: str, written: str
) -> None:
    mapped = _map(_url_facts(tmp_path), {"https://acme.example/beds": "ok"})
    entry = _entry(mapped, "acme", field)
    assert entry["verdict"] == "url_unusable" and written in entry["verdict_text"]
    assert mapped["counts"]["total"]["url_unusable"] == 2 and mapped["counts"]["total"]["url:ok"] == 1


def test_a_checks_urls_that_no_claim_cites_are_listed_and_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = _url_facts(tmp_path)
    checked = [
        {"url": "https://ACME.example/beds", "class": "ok"},
        {"url": "https://other.example/a", "class": "broken"},
    ]
    urls, out = tmp_path / "urls.json", tmp_path / "map.json"
    urls.write_text(json.dumps(checked), encoding="utf-8")
    command = ["sources", "map", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
    assert main([*command, "--urls", str(urls), "--out", str(out)]) == 0
    assert "1 URL of --urls cited by no claim" in capsys.readouterr().err
    mapped = json.loads(out.read_text(encoding="utf-8"))
    assert mapped["uncited_urls"] == ["https://other.example/a"]
    assert "## Checked URLs that no claim cites (1)" in map_markdown(mapped)
    assert _map((facts, sources))["uncited_urls"] == []
