"""The claim-to-source map: every claim (document, field, value) -> its source (a document's page, or a
URL) -> a verdict, with counts per document and overall; the seed's "source-grounding KPI", computed
honestly: a quote is verified when the whole of it is found (``quotes.find_quote``), never a window of it.

Verdicts: ``verified`` (at a level of the cascade), ``quote_missing`` (the source is there, the quote
is not), ``source_missing``, ``other_document``, ``sentinel``, and for a claim whose source is a web
page ``url_unchecked``, or ``url:<class>`` once a URL check (``--urls``) gave its class, or
``url_unusable`` when what it cites is no http(s) URL (``www.x.com/a``, ``ftp://...``: no check can
ask it). A claim's URL and a check's are joined as ``normalise_url`` spells them: ``https://Example.com``
is checked once and joins the claim that cites ``https://example.com/``; the check's URLs that no
claim cites are listed (``uncited_urls``), so a check of other files is seen, not silently ignored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..report.markup import code
from .claims import Verdict, Verification, flag_entry
from .gold import Strong, flag_lines, markdown_table
from .urls.normalise import normalise_url

VERDICTS = ("verified", "quote_missing", "source_missing", "other_document", "sentinel", "url_unchecked")
MAP_STATUS = {"found": "verified", "missing": "quote_missing", "source_missing": "source_missing"}
MAP_STATUS |= {"other_document": "other_document", "sentinel": "sentinel", "url": "url_unchecked"}


def map_verdict(verdict: Verdict, url_classes: Mapping[str, str]) -> tuple[str, str]:
    """A claim's verdict in the map: a code and its words. A URL claim takes its URL's class when a URL
    check gave one (``url:<class>``)."""
    match = verdict.match
    if verdict.status == "url":
        written = verdict.claim.source_url or ""
        url = normalise_url(written)
        if url is None:  # no check can ever ask it: a curation error, not a check still to run
            return "url_unusable", f"no http(s) URL to check ({written!r})"
        if url in url_classes:
            return f"url:{url_classes[url]}", f"URL checked: {url_classes[url]}"
        return "url_unchecked", "URL not yet checked"
    words = {
        "verified": f"quote verified at level {match.level if match else '?'}",
        "quote_missing": "source present but quote missing",
        "source_missing": "source missing",
        "other_document": f"quote found only in another document ({verdict.document})",
        "sentinel": f"sentinel ({verdict.reason})",
    }
    code = MAP_STATUS[verdict.status]
    return code, words[code]


def map_entry(verdict: Verdict, url_classes: Mapping[str, str]) -> dict[str, Any]:
    """claim -> source (file and page, or URL) -> verdict."""
    claim, match = verdict.claim, verdict.match
    code, words = map_verdict(verdict, url_classes)
    if verdict.status == "url":
        source: dict[str, Any] = {"kind": "url", "url": claim.source_url}
    else:
        source = {
            "kind": "document" if claim.source_path or verdict.document else "none",
            "path": claim.source_path,
            "document": verdict.document or verdict.cited,
            "page": match.page if match else None,
            "end_page": match.end_page if match else None,
            "url": claim.source_url,
        }
    return {
        "claim": {"document": claim.document, "field": claim.field, "value": claim.value},
        "source": source,
        "verdict": code,
        "verdict_text": words,
        "match_level": match.level if match else None,
    }


def _map_tally(entries: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    found = Counter(str(entry["verdict"]) for entry in entries)
    tally = {code: found.pop(code, 0) for code in VERDICTS}
    return tally | dict(sorted(found.items()))  # the URL classes a check gave


def source_map(verification: Verification, url_classes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The claim-to-source map: one entry per claim, and counts of verdicts per document and overall."""
    entries = [map_entry(verdict, url_classes or {}) for verdict in verification.verdicts]
    documents = sorted({entry["claim"]["document"] for entry in entries})
    cited = {normalise_url(verdict.claim.source_url or "") for verdict in verification.verdicts}
    return {
        "claims": entries,
        # A check's URLs that no claim cites: a check of other files (or of a corpus, not the facts)
        # would otherwise join nothing and say nothing.
        "uncited_urls": [url for url in url_classes or {} if url not in cited],
        "file_flags": [flag_entry(flag) for flag in verification.flags],
        "source_problems": [{"path": path, "reason": why} for path, why in verification.sources.problems],
        "counts": {
            "total": _map_tally(entries),
            "by_document": {
                doc: _map_tally([e for e in entries if e["claim"]["document"] == doc]) for doc in documents
            },
        },
    }


def joinable(url: str) -> str:
    """A URL as the join spells it: normalised, or as written when it is no http(s) URL."""
    return normalise_url(url) or url


def url_classes(data: Any, *, where: str) -> dict[str, str]:
    """The classes a URL check gave, by URL (``joinable``): ``assay urls check``'s output (a JSON list of
    {"url", "class", "status", "final_url", "chain", "places", ...}), or any list of {"url", "class"}.
    Two entries for one URL with different classes are an error: which one holds cannot be told."""
    if not isinstance(data, list):
        raise InputError(
            "not a JSON list", where=where, fix='give a list of {"url": ..., "class": ...} objects'
        )
    classes: dict[str, str] = {}
    first: dict[str, int] = {}
    for index, entry in enumerate(data):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("url"), str)
            or not isinstance(entry.get("class"), str)
        ):
            raise InputError(
                f"entry {index} is {entry!r}",
                where=f"{where}: [{index}]",
                fix='give each entry a "url" and a "class" string',
            )
        url = joinable(entry["url"])
        if url in classes and classes[url] != entry["class"]:
            raise InputError(
                f"entries {first[url]} and {index} give {url} two classes ({classes[url]}, {entry['class']})",
                where=f"{where}: [{index}]",
                fix="keep one entry per URL (URLs are compared normalised: host case, default port, "
                "fragment and an empty path do not tell them apart)",
            )
        classes[url] = entry["class"]
        first.setdefault(url, index)
    return classes


# --- Markdown ----------------------------------------------------------------------------------------

SYMBOLS = {"verified": "✅", "quote_missing": "⚠️", "other_document": "⚠️", "source_missing": "❌"}
SYMBOLS |= {"url_unchecked": "⏳", "url_unusable": "❌", "sentinel": "·"}


def map_markdown(source_map: dict[str, Any]) -> str:
    """The claim-to-source map (``source_map``) as Markdown."""
    counts = source_map["counts"]
    codes = list(counts["total"])
    header = ["document", *(f"{SYMBOLS.get(code, '🔗')} {code}" for code in codes)]
    rows = [
        [name, *tally.values()]
        for name, tally in [*counts["by_document"].items(), (Strong("total"), counts["total"])]
    ]
    lines = ["# Claim-to-source map", "", *markdown_table(header, rows)]
    lines += flag_lines(source_map["file_flags"])
    problems = [[entry["path"], entry["reason"]] for entry in source_map["source_problems"]]
    if problems:
        lines += [
            "",
            "## Source files that could not be read",
            "",
            *markdown_table(["file", "why"], problems),
        ]
    uncited = source_map["uncited_urls"]
    if uncited:
        lines += ["", f"## Checked URLs that no claim cites ({len(uncited)})", ""]
        lines += [f"- {code(url)}" for url in uncited]
    lines += ["", "## Claims", ""]
    entries = [
        [
            e["claim"]["document"],
            e["claim"]["field"],
            e["claim"]["value"],
            _source_words(e["source"]),
            f"{SYMBOLS.get(e['verdict'], '🔗')} {e['verdict_text']}",
        ]
        for e in source_map["claims"]
    ]
    return "\n".join([*lines, *markdown_table(["document", "field", "value", "source", "verdict"], entries)])


def _source_words(source: dict[str, Any]) -> str:
    if source["kind"] == "url":
        return str(source["url"])
    where = source.get("document") or source.get("path") or "none"
    pages = source.get("page")
    if pages and source.get("end_page") not in (None, pages):
        pages = f"{pages}-{source['end_page']}"
    return f"{where} p.{pages}" if pages else str(where)
