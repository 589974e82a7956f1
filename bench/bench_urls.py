"""The URL checker's speed against the tests' local server (tests/support/url_server.py): URLs per second
checked afresh, then served from the cache, and the wall time of a batch of hanging URLs (each bounded
by its timeout, all in parallel, so the batch costs about one timeout per concurrency slot).

    python bench/bench_urls.py --urls 2000 --concurrency 16 --per-host 8

Run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from assay.harness.urls import CheckSettings, FoundUrl, UrlCache, check_urls_sync

HERE = Path(__file__).resolve().parent


def timed(
    found: list[FoundUrl], settings: CheckSettings, cache: UrlCache | None = None
) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    verdicts = check_urls_sync(found, settings, cache)
    classes: dict[str, int] = {}
    for verdict in verdicts:
        classes[verdict.klass] = classes.get(verdict.klass, 0) + 1
    return time.perf_counter() - start, classes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--per-host", type=int, default=8)
    parser.add_argument("--hangs", type=int, default=32)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent / "tests" / "support"))
    from url_server import url_server  # the tests' server: real HTTP on 127.0.0.1

    settings = CheckSettings(
        allow_private=True, interval=0.0, concurrency=args.concurrency, per_host=args.per_host, timeout=5.0
    )
    with url_server() as server, tempfile.TemporaryDirectory() as folder:
        hosts = ("127.0.0.1", "localhost")
        found = [FoundUrl(server.url(f"/page/{n}", hosts[n % 2]), False, ()) for n in range(args.urls)]
        cache = UrlCache.open(Path(folder) / "urls.json", ttl=3600)
        fresh, classes = timed(found, settings, cache)
        print(f"fresh:      {args.urls / fresh:8.0f} URLs/s  ({fresh:.2f} s, {classes})")
        cached, classes = timed(found, settings, UrlCache.open(Path(folder) / "urls.json", ttl=3600))
        ratio = fresh / cached
        print(f"from cache: {args.urls / cached:8.0f} URLs/s  ({cached:.2f} s; {ratio:.0f}x the fresh rate)")
        hangs = [FoundUrl(server.url(f"/hang?n={n}"), False, ()) for n in range(args.hangs)]
        bounded = replace(settings, concurrency=args.hangs, per_host=args.hangs, timeout=0.5, retries=0)
        seconds, classes = timed(hangs, bounded)
        print(f"{args.hangs} hanging URLs, timeout 0.5 s, all at once: {seconds:.2f} s ({classes})")


if __name__ == "__main__":
    main()
