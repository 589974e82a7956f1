"""How close the judge runner comes to the ideal, and what a cached re-run costs.

A local OpenAI-compatible server (this file, run with ``--serve``, in its own process) answers every
chat completion after a fixed delay, as a remote model would, and counts the requests. ``assay
llm-judge`` then judges N rows at a given concurrency, end to end (start, read, judge, report); the
ideal is rows x delay / concurrency. Then the same command again on the same cache, which should send
no request at all and take a small fraction of the time.

    python bench/bench_judge.py --rows 2000 --concurrency 32 --delay 0.1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench_score import synthesise

TARGET_RATIO = 1.25  # of the ideal, for the first run
TARGET_CACHED = 0.05  # of the first run's time, for the cached re-run


def serve(port: int, delay: float) -> None:
    """An OpenAI-compatible endpoint that answers CORRECT after `delay` seconds, and counts requests.

    Written on asyncio streams, keep-alive, so that the server's own cost per request stays far below
    the delay: http.server's thread per connection costs over a millisecond a request, which at 32 in
    flight shows up as time the judge runner did not spend."""
    served = {"chat": 0, "models": 0}
    completion = json.dumps(
        {
            "model": "bench",
            "choices": [{"message": {"role": "assistant", "content": '{"verdict": "CORRECT"}'}}],
            "usage": {"prompt_tokens": 200, "completion_tokens": 6},
        }
    ).encode()
    models = json.dumps({"object": "list", "data": [{"id": "bench", "object": "model"}]}).encode()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *headers = head.decode("latin-1").split("\r\n")
                sizes = [int(h.split(":", 1)[1]) for h in headers if h.lower().startswith("content-length:")]
                await reader.readexactly(sizes[0] if sizes else 0)
                if request_line.startswith("POST"):
                    served["chat"] += 1
                    await asyncio.sleep(delay)
                    body = completion
                elif "/stats" in request_line:
                    body = json.dumps(served).encode()
                else:
                    served["models"] += 1
                    body = models
                head_out = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
                writer.write(head_out.encode() + b"\r\n\r\n" + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=256)
        await server.serve_forever()

    asyncio.run(main())


def requests_served(base_url: str) -> int:
    """Every request the server has answered: completions and model lists (the preflight)."""
    counts = httpx.get(f"{base_url}/stats").json()
    return int(counts["chat"]) + int(counts["models"])


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"assay failed:\n{result.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.1, help="the server's answer time, in seconds")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.delay)
    with tempfile.TemporaryDirectory() as folder:
        data, cache = Path(folder) / "rows.csv", Path(folder) / "cache.sqlite"
        synthesise(data, args.rows, quoted=True)
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port), "--delay", str(args.delay)]
        )
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            _wait(base_url)
            command = [sys.executable, "-m", "assay", "llm-judge", "--responses", str(data)]
            command += ["--judge", f"openai:bench@{base_url}", "--concurrency", str(args.concurrency)]
            command += ["--cache", str(cache)]
            first = timed(command)
            sent = requests_served(base_url)
            cached = timed(command)
            resent = requests_served(base_url) - sent
        finally:
            server.terminate()
            server.wait()
    ideal = args.rows * args.delay / args.concurrency
    print(f"{args.rows:,} rows, {args.delay * 1000:.0f} ms per request, concurrency {args.concurrency}")
    print(
        f"  first run      {first:6.2f} s   ideal {ideal:.2f} s   ratio {first / ideal:.2f}x "
        f"(target <= {TARGET_RATIO}x)   requests {sent:,}"
    )
    print(
        f"  cached re-run  {cached:6.2f} s   {cached / first:.1%} of the first "
        f"(target < {TARGET_CACHED:.0%})   "
        f"requests {resent}"
    )


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(base_url: str) -> None:
    for _ in range(100):
        try:
            httpx.get(f"{base_url}/models", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    sys.exit("the bench server did not start")


if __name__ == "__main__":
    main()
