"""assay view: a local web viewer over a folder of runs (``assay run --out`` folders)."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from ..errors import EXIT_OK, UsageError
from ..terminal import one_line
from . import flags


def add_parsers(commands: flags.Commands) -> None:
    viewer = commands.add_parser(
        "view", help="browse runs and scored files: history, trends, comparisons, items, marks"
    )
    viewer.add_argument(
        "folder",
        metavar="DIR",
        help="a folder of runs and scored files (assay run --out folders, assay score --out files)",
    )
    viewer.add_argument(
        "--port", type=flags.whole_number(0, "a port is 0 or more"), default=8765, metavar="N",
        help="the port on 127.0.0.1 (default: %(default)s; 0 takes a free one)",
    )  # fmt: skip
    viewer.add_argument("--no-open", action="store_true", help="do not open the page in a browser")
    viewer.add_argument(
        "--sources",
        metavar="DIR",
        type=Path,
        help="the documents the runs cite, to show each item's evidence in its page (default: the "
        "folder each run's results.json names, when it is there)",
    )
    flags.add_debug(viewer)
    viewer.set_defaults(run=run_view)


def run_view(args: argparse.Namespace) -> int:
    from ..view import ViewServer  # here: the other commands never load the server

    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"{args.folder} is not a folder", fix="give the folder your runs are in")
    if args.sources is not None and not args.sources.is_dir():
        raise UsageError(f"--sources {args.sources} is not a folder", fix="give the documents' folder")
    try:
        server = ViewServer(folder.resolve(), args.sources, args.port)
    except OSError as exc:
        raise UsageError(
            f"could not listen on 127.0.0.1:{args.port} ({exc.strerror or exc})",
            fix="give another --port, or --port 0 for a free one",
        ) from None
    runs, files = server.scan()
    found = f"{len(runs)} runs and {len(files)} scored files of {one_line(str(folder))}"
    print(f"assay: viewing {found} at {server.url} (Ctrl-C stops)", flush=True)
    if not args.no_open:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("assay: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return EXIT_OK
