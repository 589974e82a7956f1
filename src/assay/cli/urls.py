"""assay urls check: find the URLs that facts, gold sets and corpora cite, check each over HTTP, and say
which are broken (exit 1), which are blocked or failing (to look at), and which are fine."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import regex

from ..errors import EXIT_FINDINGS, EXIT_OK, UsageError
from ..harness.urls.settings import CheckSettings
from ..outputs import check_outputs, json_document, write_text
from ..terminal import one_line
from . import flags
from .progress import CountProgress, beneath

if TYPE_CHECKING:
    from ..harness.urls.extract import UrlScan
    from ..harness.urls.verdict import UrlVerdict

# The engine's own defaults, shown in --help (settings.py loads no httpx, so neither does --help).
ENGINE = CheckSettings()
ASKING = ("concurrency", "per_host", "interval", "timeout", "retries")  # the flags that tune the asking
DEFAULTS = {name: getattr(ENGINE, name) for name in ASKING}
DEFAULT_DNS_CANARY = ENGINE.dns_canary
DEFAULT_CACHE_TTL = "7d"  # a cited page rarely dies within a week; --cache-ttl 0 revalidates every run
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
SHOWN_PROBLEMS = 5  # unusable URL fields named on the terminal


def add_parsers(commands: flags.Commands) -> None:
    urls = commands.add_parser("urls", help="check the URLs that facts, gold sets and corpora cite")
    actions = urls.add_subparsers(title="actions", metavar="ACTION", required=True, parser_class=type(urls))
    check = actions.add_parser(
        "check",
        help="check every URL cited: ok, redirected, broken, blocked, error, soft_404",
        description="Find the URLs in facts files (JSON), gold sets (JSONL), Markdown, reStructuredText, "
        "HTML, CSV/TSV and text corpora and plain lists (one URL a line, # comments), folders searched; "
        "check each over HTTP (HEAD, then a small GET) and class it. Exit 1 when a URL is broken (404, "
        "410, no such host, a malformed URL, not the PDF it should be); blocked (401, 403, 429 and other "
        "4xx), error (5xx, timeouts, redirect loops) and soft_404 (a deep link sent to a home or login "
        "page) are reported, not failed.",
        epilog="exit codes: 0 no URL broken (or none found), 1 a URL is broken, 2 bad input or usage, "
        "130 interrupted (the cache keeps the verdicts reached)",
    )
    check.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="files or folders to read URLs from"
    )
    check.add_argument(
        "--out", metavar="FILE.json", help="write one entry per URL (its verdict and places) as JSON"
    )
    check.add_argument("--markdown", metavar="FILE", help="write the report as Markdown")
    _add_cache_flags(check)
    _add_asking_flags(check)
    flags.add_debug(check)
    check.set_defaults(run=run_check)


def _add_cache_flags(check: argparse.ArgumentParser) -> None:
    caching = check.add_argument_group("the cache")
    caching.add_argument(
        "--cache",
        metavar="FILE",
        help="keep lasting verdicts in this JSON file and reuse them (never 5xx, timeouts or 429)",
    )
    caching.add_argument(
        "--cache-ttl",
        type=duration,
        default=duration(DEFAULT_CACHE_TTL),
        metavar="AGE",
        help=f"reuse a cached verdict this long, then revalidate it (ETag, Last-Modified): seconds, or "
        f"with a unit: 90s, 30m, 12h, 7d, 2w (default: {DEFAULT_CACHE_TTL})",
    )


def _add_asking_flags(check: argparse.ArgumentParser) -> None:
    asking = check.add_argument_group("asking the servers")
    asking.add_argument(
        "--concurrency",
        type=flags.positive,
        metavar="N",
        help=f"URLs checked at once (default: {DEFAULTS['concurrency']})",
    )
    asking.add_argument(
        "--per-host",
        type=flags.positive,
        metavar="N",
        help=f"requests in flight to one host (default: {DEFAULTS['per_host']})",
    )
    asking.add_argument(
        "--interval",
        type=_seconds(zero=True),
        metavar="S",
        help=f"seconds between two requests to one host (default: {DEFAULTS['interval']})",
    )
    asking.add_argument(
        "--timeout",
        type=_seconds(zero=False),
        metavar="S",
        help=f"seconds one request may take (default: {DEFAULTS['timeout']})",
    )
    asking.add_argument(
        "--retries",
        type=flags.whole_number(0, "give 0 or more"),
        metavar="N",
        help="retries of a transient answer (5xx, 429, a timeout), with backoff, honouring Retry-After "
        f"(default: {DEFAULTS['retries']})",
    )
    asking.add_argument(
        "--allow-private",
        action="store_true",
        help="check URLs on loopback and private addresses too (refused by default: blocked)",
    )
    asking.add_argument(
        "--dns-canary",
        action="append",
        metavar="NAME",
        help="a name that resolves wherever DNS works: 'no such host' is broken only when it (or another "
        "host of the run) resolves, else it is an error (offline?); repeat for more, '' to believe the "
        f"resolver alone (default: {', '.join(DEFAULT_DNS_CANARY)})",
    )


def duration(text: str) -> float:
    """An argparse type: seconds, given bare (3600) or with a unit (90s, 30m, 12h, 7d, 2w)."""
    found = regex.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text.casefold())
    if not found:
        raise argparse.ArgumentTypeError(f"'{text}' is not an age (seconds, or 90s, 30m, 12h, 7d, 2w)")
    return float(found.group(1)) * UNITS[found.group(2) or "s"]


def _seconds(*, zero: bool) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds, above 0 (or 0 too, when `zero`)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
        if not (value >= 0 if zero else value > 0) or value == float("inf"):
            rule = "0 or more" if zero else "above 0"
            raise argparse.ArgumentTypeError(f"give a number of seconds {rule}, got {text}")
        return value

    return parse


def run_check(args: argparse.Namespace) -> int:
    from ..harness.urls.cache import UrlCache
    from ..harness.urls.check import check_urls_sync
    from ..harness.urls.extract import scan_urls
    from ..harness.urls.report import has_broken, summary_lines, url_entries, urls_markdown

    outputs = {"--out": args.out, "--markdown": args.markdown, "--cache": args.cache}
    check_outputs(outputs, {f"PATH {path}": path for path in args.paths})
    _refuse_outputs_read_as_inputs(outputs, args.paths)
    settings = _settings(args)  # a bad setting fails before any file is read
    cache = UrlCache.open(Path(args.cache), args.cache_ttl) if args.cache else None
    scan = scan_urls(args.paths)
    _say_scan(scan)
    found = list(scan.found)
    progress = UrlProgress(len(found), beneath(sys.stderr))
    try:
        verdicts = check_urls_sync(found, settings, cache, progress) if found else []
    finally:
        progress.close()
    for line in summary_lines(found, verdicts):
        print(line)
    if args.out:
        write_text(args.out, json_document(url_entries(found, verdicts)))
    if args.markdown:
        write_text(args.markdown, urls_markdown(found, verdicts))
    for path in [args.out, args.markdown]:
        if path:
            print(f"assay: wrote {one_line(str(path))}", file=sys.stderr)
    return EXIT_FINDINGS if has_broken(verdicts) else EXIT_OK


def _settings(args: argparse.Namespace) -> CheckSettings:
    given = {name: getattr(args, name) for name in DEFAULTS if getattr(args, name) is not None}
    canary = DEFAULT_DNS_CANARY
    if args.dns_canary is not None:
        canary = tuple(name for name in args.dns_canary if name)
    return CheckSettings(**given, allow_private=args.allow_private, dns_canary=canary)


def _refuse_outputs_read_as_inputs(outputs: dict[str, str | None], paths: Sequence[Path]) -> None:
    """An output in a folder that is read for URLs, with a suffix that is read, would be read back as
    an input on the next run (the cache's and the report's URLs checked as if cited)."""
    from ..harness.urls.extract import KNOWN_SUFFIXES

    folders = [Path(os.path.realpath(path)) for path in paths if path.is_dir()]
    for flag, path in outputs.items():
        if not path:
            continue
        written = Path(os.path.realpath(path))
        for folder in folders:
            if not written.is_relative_to(folder) or written.suffix.casefold() not in KNOWN_SUFFIXES:
                continue
            if not any(part.startswith(".") for part in written.relative_to(folder).parts):  # hidden: unread
                raise UsageError(
                    "inside a folder read for URLs: the next run would read it as an input",
                    where=f"{flag} {path}",
                    fix=f"write {flag} outside {folder}, or give it a hidden name (.{written.name})",
                )


def _say_scan(scan: UrlScan) -> None:
    """What the files gave, on stderr: URLs in how many files, files without any, fields with none."""
    files, empty = len(scan.files), len(scan.files_without_urls)
    without = f" ({empty} without any)" if empty else ""
    urls = f"{len(scan.found)} URL{'s' if len(scan.found) != 1 else ''}"
    print(f"assay: {urls} in {files} file{'s' if files != 1 else ''}{without}", file=sys.stderr)
    if not scan.found:
        print("assay: no URLs found: nothing to check", file=sys.stderr)
    if scan.skipped:
        fields = "1 URL field is" if len(scan.skipped) == 1 else f"{len(scan.skipped)} URL fields are"
        print(f"assay: {fields} empty (null): skipped", file=sys.stderr)
    if scan.dead_links:
        links = len(scan.dead_links)
        said = f"{links} link{'s' if links != 1 else ''} in the folders lead{'s' if links == 1 else ''}"
        example = one_line(scan.dead_links[0])
        print(f"assay: warning: {said} to no file: not read, e.g. {example}", file=sys.stderr)
    lines = scan.list_lines
    if lines is not None and lines.without_urls:
        counted = f"{lines.with_urls} with a URL, {lines.blank_or_comment} blank or comments"
        example = ", ".join(map(one_line, lines.first_without))
        print(
            f"assay: warning: {lines.read} lines of plain lists: {counted}, {lines.without_urls} with no "
            f"http(s) URL: not checked, e.g. {example}",
            file=sys.stderr,
        )
    for place, text in scan.unusable[:SHOWN_PROBLEMS]:
        said = f"{one_line(place)}: {one_line(text)!r} is no http(s) URL: not checked"
        print(f"assay: warning: {said}", file=sys.stderr)
    if len(scan.unusable) > SHOWN_PROBLEMS:
        more = len(scan.unusable) - SHOWN_PROBLEMS
        print(f"assay: warning: ... and {more} more URL fields like these", file=sys.stderr)


class UrlProgress:
    """URLs checked of all, reported a verdict at a time (see CountProgress)."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self._total, self._done = total, 0
        self._line = CountProgress(stream, verb="checking", noun="URLs", time_left=False)
        if total:
            self._line(0, total)  # the bar shows before the first verdict, which may take a timeout

    def __call__(self, verdict: UrlVerdict) -> None:
        self._done += 1
        self._line(self._done, self._total)

    def close(self) -> None:
        self._line.close()
