"""``assay view``'s web server: one page and its JSON endpoints, on 127.0.0.1 only (standard library).

    GET  /                            the page (the viewer is all in it: no other file, nothing fetched
                                      from elsewhere)
    GET  /api/runs                    the runs in the order they ran, each with its headline and rollups,
                                      and the scored files in the order they were written
    GET  /api/items?run=ID            a run's (or a scored file's) items
    GET  /api/compare?a=ID&b=ID       B against A, with the paired tests and the regressions flagged
    GET  /api/evidence?run=ID&item=ID the pages an item's evidence is on, with the spans to highlight
    POST /api/mark                    {"run", "item", "mark", "version"}: a human label, of a run's
                                      verdict ("right"|"wrong") or of a scored file's reply
                                      ("correct"|"incorrect"), as the page showed it (the version
                                      /api/runs gave: a run's start time, a scored file's hash)

Why it is safe to leave open: it listens on the loopback address only; every request must name this
server as its Host (a web page elsewhere cannot reach it through a name of its own, DNS rebinding); a
mark must come from this page (its Origin, and the per-server token the page holds) with a small JSON
body; runs are looked up by id among those found, never by a path the request builds; the page puts
every text into the document as text (textContent), never as markup, and its Content-Security-Policy
runs only the page's own script (by a nonce) and lets it fetch from this server only.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import AssayError
from . import labels, runs, scored

HOST = "127.0.0.1"
MAX_BODY = 4096  # bytes of a mark's body: a run id, an item id, a word and a version
TOKEN_HEADER = "X-Assay-Token"
TOKEN_MARK = "__ASSAY_TOKEN__"  # where the page holds the token
NONCE_MARK = "__ASSAY_NONCE__"  # the page's script and style carry the response's nonce


def csp(nonce: str) -> str:
    """The page may run its own script and style only (those with this response's nonce: no inline
    handler, no injected script would run even if markup slipped in) and fetch from this server only."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


class ViewServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path, sources: Path | None = None, port: int = 0) -> None:
        super().__init__((HOST, port), Handler)
        self.root = root
        self.documents = runs.Documents(sources)
        self.token = secrets.token_urlsafe(24)
        self.scored = scored.ScoredFiles()
        self._runs: dict[str, runs.Run | scored.Scored] = {}
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_port}/"

    def scan(self) -> tuple[list[runs.Run], list[scored.Scored]]:
        """The runs and scored files under the folder now (one written since the page opened shows on
        its next load)."""
        folders = list(runs.folders(self.root))
        found, files = runs.find_runs(folders, self.root), self.scored.find(self.root, folders)
        with self._lock:
            self._runs = {run.id: run for run in found}
            self._runs.update({file.id: file for file in files})
        return found, files

    def entry(self, run_id: str) -> runs.Run | scored.Scored:
        with self._lock:
            known = self._runs.get(run_id)
        if known is None:
            raise NotFound(f"no run or scored file {run_id!r} in the viewed folder")
        return known

    def page(self, nonce: str) -> bytes:
        text = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
        return text.replace(TOKEN_MARK, self.token).replace(NONCE_MARK, nonce).encode("utf-8")


def marks_of(entry: runs.Run | scored.Scored) -> labels.Marked:
    """How a person marks the entry: a run's verdicts, or a scored file's replies."""
    if isinstance(entry, scored.Scored):
        return labels.ScoredMarks(entry.path, entry.run.records, entry.version)
    return labels.RunMarks(entry.rows)


class NotFound(Exception):
    pass


class Refused(Exception):
    """A request this server does not take (another origin, no token, a body too large)."""


class Handler(BaseHTTPRequestHandler):
    server: ViewServer
    server_version = "assay-view"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request log would bury the one line that says where the viewer is."""

    def do_GET(self) -> None:
        self._answer(self._get)

    def do_POST(self) -> None:
        self._answer(self._post)

    def _answer(self, handle: Callable[[], Any]) -> None:
        try:
            self._check_host()
            handle()
        except Refused as exc:
            self._json(HTTPStatus.FORBIDDEN, {"error": str(exc)})
        except NotFound as exc:
            self._json(HTTPStatus.NOT_FOUND, {"error": str(exc)})
        except labels.Stale as exc:
            self._json(HTTPStatus.CONFLICT, {"error": str(exc)})
        except FileNotFoundError:  # a run being written again: its files renamed, the new ones not yet there
            self._json(HTTPStatus.CONFLICT, {"error": "the run is being written again: reload the page"})
        except (AssayError, ValueError, KeyError) as exc:
            message = exc.message if isinstance(exc, AssayError) else f"bad request: {exc}"
            self._json(HTTPStatus.BAD_REQUEST, {"error": message})

    def _check_host(self) -> None:
        allowed = {f"{HOST}:{self.server.server_port}", f"localhost:{self.server.server_port}"}
        if self.headers.get("Host") not in allowed:
            raise Refused("this server answers requests to its own address only")

    def _get(self) -> None:
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path == "/":
            nonce = secrets.token_urlsafe(16)
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", self.server.page(nonce), nonce)
        elif url.path == "/api/runs":
            found, files = self.server.scan()
            self._json(
                HTTPStatus.OK, {"runs": [r.summary() for r in found], "scored": [f.summary() for f in files]}
            )
        elif url.path == "/api/items":
            self._json(HTTPStatus.OK, {"items": self._items(self.server.entry(query["run"]))})
        elif url.path == "/api/compare":
            self._json(
                HTTPStatus.OK, self._compare(self.server.entry(query["a"]), self.server.entry(query["b"]))
            )
        elif url.path == "/api/evidence":
            entry = self.server.entry(query["run"])
            if isinstance(entry, scored.Scored):
                self._json(HTTPStatus.OK, {"pages": [], "note": "a scored file keeps no citations"})
            else:
                self._json(HTTPStatus.OK, runs.evidence(entry, query["item"], self.server.documents))
        else:
            raise NotFound(f"no page {url.path!r}")

    @staticmethod
    def _items(entry: runs.Run | scored.Scored) -> list[dict[str, Any]]:
        marked = labels.read_labels(marks_of(entry).labels)
        if isinstance(entry, scored.Scored):
            return scored.items(entry, marked)
        return runs.items(entry, marked)

    @staticmethod
    def _compare(a: runs.Run | scored.Scored, b: runs.Run | scored.Scored) -> dict[str, Any]:
        if isinstance(a, runs.Run) and isinstance(b, runs.Run):
            return runs.compare(a, b)
        if isinstance(a, scored.Scored) and isinstance(b, scored.Scored):
            return scored.compared(a, b)
        raise ValueError("a run is compared with a run, a scored file with a scored file")

    def _post(self) -> None:
        if urlsplit(self.path).path != "/api/mark":
            raise NotFound("no such endpoint")
        self._check_origin()
        body = self._body()
        marked = marks_of(self.server.entry(str(body["run"])))
        # the entry's version as the page showed it: one written again since is refused ("started", a
        # run's start time, is its older name)
        shown = body["version"] if "version" in body else body.get("started")
        version = None if shown is None else str(shown)
        row = labels.mark(marked, str(body["item"]), str(body["mark"]), version)
        saved = marked.labels.relative_to(self.server.root).as_posix()
        self._json(HTTPStatus.OK, {"item": row["id"], "mark": row[marked.shown_column], "file": saved})

    def _check_origin(self) -> None:
        """A mark comes from this server's page: its origin, and the token only that page holds."""
        origin = self.headers.get("Origin")
        if origin not in (
            f"http://{HOST}:{self.server.server_port}",
            f"http://localhost:{self.server.server_port}",
        ):
            raise Refused("a mark is taken from the viewer's own page only")
        if not secrets.compare_digest(self.headers.get(TOKEN_HEADER, ""), self.server.token):
            raise Refused("a mark is taken from the viewer's own page only (its token is missing)")

    def _body(self) -> dict[str, Any]:
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            raise Refused("a mark's body is JSON")
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_BODY:
            raise Refused(f"a mark's body is 1 to {MAX_BODY} bytes")
        found = json.loads(self.rfile.read(length))
        if not isinstance(found, dict):
            raise ValueError("a mark's body is a JSON object")
        return found

    def _json(self, status: HTTPStatus, data: Any) -> None:
        self._send(status, "application/json; charset=utf-8", json.dumps(data, allow_nan=False).encode())

    def _send(self, status: HTTPStatus, kind: str, body: bytes, nonce: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", csp(nonce or secrets.token_urlsafe(16)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(body)
