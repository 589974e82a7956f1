"""A URL check, reported: the JSON list (one entry per URL: its verdict and the places it was found), a
Markdown page (classes per host, then every URL that is not plainly ok, with its reason, chain and
places), and the terminal's summary (class counts overall and per host, then the URLs to look at).

Each is a pure function of the URLs found and their verdicts (``check_urls``' list, in the same order).
Text from the files and the servers (URLs, reasons, places) is escaped for Markdown by ``cell``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from ...report.format import aligned_width
from ...report.markup import cell, code
from ...terminal import one_line
from .extract import FoundUrl
from .verdict import CLASSES, UrlVerdict

# The classes that need a person's eyes, worst first; the terminal lists them URL by URL.
TO_LOOK_AT = ("broken", "soft_404", "error", "blocked")
SHOWN_ON_TERMINAL = 20  # URLs listed by name; the Markdown report lists them all
MALFORMED_HOST = "(malformed)"  # the host row of the URLs that name none
SHOWN_HOSTS = 20  # hosts in the terminal's table; the Markdown report's table has them all


def _host_of(url: str) -> str:
    """The host (and a port other than the default) a URL is asked of: the summary's grouping. A found
    URL is normalised, so it holds no user:password@; a malformed one ("http://[::1") has no host to
    group it by, and is grouped as malformed."""
    try:
        return urlsplit(url).netloc or url
    except ValueError:
        return MALFORMED_HOST


def _paired(found: Sequence[FoundUrl], verdicts: Sequence[UrlVerdict]) -> list[tuple[FoundUrl, UrlVerdict]]:
    if len(found) != len(verdicts) or any(f.url != v.url for f, v in zip(found, verdicts, strict=False)):
        raise ValueError("the verdicts are not those of the URLs found, in their order")
    return list(zip(found, verdicts, strict=True))


def url_entries(found: Sequence[FoundUrl], verdicts: Sequence[UrlVerdict]) -> list[dict[str, Any]]:
    """``--out``'s JSON: one entry per URL, the verdict's JSON and the places it was found."""
    return [verdict.to_json() | {"places": list(item.places)} for item, verdict in _paired(found, verdicts)]


def class_counts(verdicts: Sequence[UrlVerdict]) -> dict[str, Any]:
    """URLs per class, overall and per host (hosts in first-seen order); every class named, 0 or not."""
    by_host: dict[str, Counter[str]] = {}
    for verdict in verdicts:
        host = MALFORMED_HOST if verdict.reason.startswith("malformed URL") else _host_of(verdict.url)
        by_host.setdefault(host, Counter())[verdict.klass] += 1
    total = Counter(verdict.klass for verdict in verdicts)

    def tally(counts: Counter[str]) -> dict[str, int]:
        return {klass: counts[klass] for klass in CLASSES}

    return {"total": tally(total), "by_host": {host: tally(counts) for host, counts in by_host.items()}}


def has_broken(verdicts: Sequence[UrlVerdict]) -> bool:
    """The exit code's rule: only a broken URL fails (blocked, error and soft 404 are to look at, not
    proof that a citation is dead, and a CI gate must not fail on a WAF's 403 or a server's bad hour)."""
    return any(verdict.klass == "broken" for verdict in verdicts)


# --- Markdown ------------------------------------------------------------------------------------------


def urls_markdown(found: Sequence[FoundUrl], verdicts: Sequence[UrlVerdict]) -> str:
    """The check as a Markdown page."""
    pairs = _paired(found, verdicts)
    counts = class_counts(verdicts)
    header = ["host", *CLASSES, "total"]
    rows = [
        [code(host), *map(str, tally.values()), str(sum(tally.values()))]
        for host, tally in counts["by_host"].items()
    ]
    total = counts["total"]
    rows.append(["**total**", *(f"**{n}**" for n in total.values()), f"**{sum(total.values())}**"])
    lines = ["# URL check", "", _headline(total), ""]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    looked = [pair for klass in (*TO_LOOK_AT, "redirected") for pair in pairs if pair[1].klass == klass]
    if looked:
        lines += ["", "## URLs that are not ok", ""]
        for item, verdict in looked:
            lines += _url_lines(item, verdict)
    return "\n".join(lines) + "\n"


def _headline(total: dict[str, int]) -> str:
    checked = sum(total.values())
    parts = [f"{n} {klass}" for klass, n in total.items() if n]
    return f"{checked} URL{'s' if checked != 1 else ''} checked" + (": " + ", ".join(parts) if parts else "")


def _said(status: int | None) -> str:
    return "no answer" if status is None else str(status)


def _url_lines(item: FoundUrl, verdict: UrlVerdict) -> list[str]:
    status = f" {verdict.status}" if verdict.status is not None else ""
    lines = [f"- {code(verdict.url)}: **{verdict.klass}**{status}, {cell(verdict.reason)}"]
    if len(verdict.chain) > 1:
        hops = " → ".join(f"{code(hop.url)} ({_said(hop.status)})" for hop in verdict.chain)
        lines.append(f"  - chain: {hops}")
    if verdict.notes:
        lines.append("  - notes: " + "; ".join(cell(note) for note in verdict.notes))
    if verdict.is_pdf is not None:
        lines.append(f"  - a PDF was expected: {'it is one' if verdict.is_pdf else 'it is not one'}")
    if item.places:
        lines.append("  - found at: " + ", ".join(code(place) for place in item.places))
    return lines


# --- the terminal --------------------------------------------------------------------------------------


def _shown_hosts(by_host: dict[str, dict[str, int]]) -> tuple[dict[str, dict[str, int]], int]:
    """The hosts the terminal lists (all, in first-seen order, up to SHOWN_HOSTS; past that, those
    with the most URLs to look at), and how many are left out: a corpus citing 2,000 hosts would
    otherwise print 2,000 rows before the URLs that need a person."""
    if len(by_host) <= SHOWN_HOSTS:
        return by_host, 0
    worst = sorted(by_host, key=lambda host: -sum(by_host[host][klass] for klass in TO_LOOK_AT))
    kept = set(worst[:SHOWN_HOSTS])
    return {host: tally for host, tally in by_host.items() if host in kept}, len(by_host) - SHOWN_HOSTS


def summary_lines(found: Sequence[FoundUrl], verdicts: Sequence[UrlVerdict]) -> list[str]:
    """Class counts per host (at most SHOWN_HOSTS hosts) and overall, aligned, then the URLs to look at
    (worst first, each with its reason and first place), at most SHOWN_ON_TERMINAL of them."""
    counts = class_counts(verdicts)
    shown, left_out = _shown_hosts(counts["by_host"])
    hosts = {one_line(host): tally for host, tally in shown.items()}
    width = aligned_width([*hosts, "total"])
    lines = [_headline(counts["total"]), f"  {'host':<{width}}  " + " ".join(CLASSES)]
    for host, tally in [*hosts.items(), ("total", counts["total"])]:
        if host == "total" and left_out:
            lines.append(f"  ... and {left_out} more hosts (--markdown FILE lists them all)")
        lines.append(f"  {host:<{width}}  " + " ".join(f"{tally[klass]:>{len(klass)}}" for klass in CLASSES))
    pairs = _paired(found, verdicts)
    looked = [pair for klass in TO_LOOK_AT for pair in pairs if pair[1].klass == klass]
    for item, verdict in looked[:SHOWN_ON_TERMINAL]:
        where = f" at {one_line(item.places[0])}" if item.places else ""
        lines.append(f"{verdict.klass}: {one_line(verdict.url)} ({one_line(verdict.reason)}){where}")
    if len(looked) > SHOWN_ON_TERMINAL:
        lines.append(f"... and {len(looked) - SHOWN_ON_TERMINAL} more (--markdown FILE lists them all)")
    return lines
