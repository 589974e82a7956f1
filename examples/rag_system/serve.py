"""The example bot (bot.py) served over HTTP on 127.0.0.1, for `assay run --system http:URL`.

    python examples/rag_system/serve.py [--port 8765] [--option KEY=VALUE ...]

POST /ask with {"question": "...", "scope": "<document id>" or null} answers with the bot's reply as JSON:
{"text", "citations", "contexts", "blocked", "route", "model"}, the mapping `answer` returns in process.
A body that is not such a mapping is a 400 with {"error": ...}; so is an unknown scope; the bot's own failure
is a 500. `--port 0` takes a free port; the first line printed names the address ("listening on
http://127.0.0.1:PORT/ask") once the index is built, so a caller can wait for it. `--option` passes the
bot's options (sources=DIR, floor=0.1, llm=URL, ...), as `--system-option` does in process.
The server is stdlib's ThreadingHTTPServer: one thread per request, sharing the bot's one index.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_BODY = 1 << 20  # a question is short; a bigger body is a mistake


def load_bot() -> ModuleType:
    """bot.py beside this file, as a module of its own name (this folder is no package)."""
    spec = importlib.util.spec_from_file_location("rag_system_bot", Path(__file__).with_name("bot.py"))
    if spec is None or spec.loader is None:
        raise ImportError("bot.py is missing beside serve.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class BadRequest(ValueError):
    """The request's body is not a question the bot can take."""


def read_question(body: bytes) -> tuple[str, str | None]:
    """The question and scope of a request body; BadRequest saying what is wrong."""
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"the body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BadRequest('the body must be a JSON object: {"question": "...", "scope": "..."}')
    question, scope = value.get("question"), value.get("scope")
    if not isinstance(question, str) or not question.strip():
        raise BadRequest('"question" must be a non-empty string')
    if scope is not None and not isinstance(scope, str):
        raise BadRequest('"scope" must be a string (a document id) or null')
    return question, scope or None


Answerer = Callable[..., Mapping[str, Any]]


def make_server(answer: Answerer, port: int = 0, **options: Any) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:`port` (0: a free one) whose POST /ask calls `answer(question, scope=...,
    **options)`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/ask":
                self._send(404, {"error": f"no such path {self.path!r}: POST /ask"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(413, {"error": f"the body is over {MAX_BODY} bytes"})
                return
            try:
                question, scope = read_question(self.rfile.read(length))
                reply = answer(question, scope=scope, **options)
            except (BadRequest, ValueError) as exc:  # the bot's ValueError: an unknown scope or option
                self._send(400, {"error": str(exc)})
                return
            except Exception as exc:  # the bot failed: the caller records it, the server keeps serving
                self._send(500, {"error": f"{type(exc).__name__}: {exc}"})
                return
            self._send(200, dict(reply))

        def _send(self, status: int, value: Mapping[str, Any]) -> None:
            data = json.dumps(value, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: a run asks hundreds of times
            pass

    server = ThreadingHTTPServer((HOST, port), Handler)
    server.daemon_threads = True
    return server


def parse_arguments(arguments: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Serve the example RAG bot on 127.0.0.1: POST /ask.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="0: a free port (default %(default)s)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a bot option; repeatable"
    )
    return parser.parse_args(arguments)


def main(arguments: Sequence[str] | None = None) -> None:
    parsed = parse_arguments(sys.argv[1:] if arguments is None else arguments)
    malformed = [option for option in parsed.option if "=" not in option]
    if malformed:
        sys.exit(f"serve.py: --option {malformed[0]!r} is not KEY=VALUE (e.g. --option floor=0.1)")
    options = dict(option.split("=", 1) for option in parsed.option)
    bot = load_bot()
    bot.prepare(**options)  # build the index before saying the server is up
    server = make_server(bot.answer, parsed.port, **options)
    print(f"listening on http://{HOST}:{server.server_address[1]}/ask", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
