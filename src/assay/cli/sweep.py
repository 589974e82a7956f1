"""assay sweep: a retrieval sweep over chunk size and overlap, measured by gold character spans.

The questions are chunk_eval's questions CSV (with --corpus its .md/.txt corpus files, or folders of
them) or a gold set's JSONL (with --corpus the sources folder of the PDFs it was built from). The
library does the work (``harness.sweep``); this shell parses, checks the pair, prints a line per cell
on stderr and the leaderboard's top and the winner on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import EXIT_FINDINGS, EXIT_OK, UsageError
from ..terminal import one_line
from . import flags

# The library's defaults, written out here so `--help` needs no numpy or bm25s (sweep.py's constants;
# a test keeps the two equal).
SIZES = "200,400,800,1600"
OVERLAPS = "0,0.15"
K, BUDGET = 5, 3200
CORPUS_SUFFIXES = (".md", ".txt")
GOLD_SUFFIXES = (".jsonl", ".json")
TOP_SHOWN = 3
_PDFS_FIX = (
    "give chunk_eval's corpus files with its questions CSV, or a gold set JSONL (assay gold build) with "
    "this sources folder"
)


def add_parsers(commands: flags.Commands) -> None:
    parser = commands.add_parser(
        "sweep",
        help="sweep chunk size and overlap, scoring retrieval by gold character spans",
        description="Chunk, index and retrieve afresh for every cell of a size x overlap grid; score each "
        "question by the gold characters retrieved (recall and precision at k and at a fixed budget of "
        "characters, IoU, hit@k, MRR), with intervals per corpus, category and overall; pick the winner "
        "at the budget. Writes DIR/sweep.json, leaderboard.json, sweep.md and sweep.html.",
        epilog="Exit 0; 1 when the sweep is broken (cells of different chunkings gave identical "
        "per-question results); 2 on bad input. A cell whose overlap would repeat the documents past "
        "100 million characters is refused. The four files of an earlier sweep in DIR are removed when a "
        "sweep starts, so a sweep that fails leaves none that look current. More in docs/sweep.md.",
    )
    parser.add_argument(
        "--corpus",
        nargs="+",
        required=True,
        metavar="PATH",
        type=Path,
        help="with a questions CSV: the corpus .md/.txt files or folders of them; with a gold set: its "
        "sources folder (the PDFs)",
    )
    parser.add_argument(
        "--questions",
        required=True,
        metavar="FILE",
        type=Path,
        help="chunk_eval's questions CSV (question, references, corpus_id) or a gold set JSONL",
    )
    _add_grid_flags(parser)
    parser.add_argument(
        "--out", required=True, metavar="DIR", type=Path, help="the folder to write (made when missing)"
    )
    flags.add_page_cache(parser)
    flags.add_debug(parser)
    parser.set_defaults(run=run_sweep_command)


def _add_grid_flags(parser: argparse.ArgumentParser) -> None:
    """The grid's axes and how each cell chunks, retrieves and is scored."""
    parser.add_argument("--sizes", default=SIZES, help="chunk sizes, comma-separated (%(default)s)")
    parser.add_argument(
        "--overlaps",
        default=OVERLAPS,
        help="overlaps as fractions of the size, comma-separated (%(default)s)",
    )
    parser.add_argument(
        "--k", type=int, default=K, help="chunks retrieved per question, for the @k metrics (%(default)s)"
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=BUDGET,
        help="characters retrieved for recall@budget: the top budget // size chunks, at least 1; the "
        "winner is chosen by it (%(default)s)",
    )
    parser.add_argument("--retriever", default="bm25", help="the retriever; bm25 is the one (%(default)s)")
    parser.add_argument(
        "--chunker",
        default="chars",
        choices=("chars", "tokens"),
        help="chars: windows of characters, cut at whitespace; tokens: windows of word tokens, sizes in "
        "tokens (%(default)s)",
    )
    parser.add_argument(
        "--scope",
        default="per-document",
        choices=("per-document", "pooled"),
        help="per-document: an index per document, each question searched in its gold spans' documents; "
        "pooled: one index of every document (%(default)s)",
    )


def numbers(text: str, flag: str, kind: type[int] | type[float]) -> list[Any]:
    """A comma-separated list of numbers; UsageError naming the flag and the bad item."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        try:
            found.append(kind(item))
        except ValueError:
            example = SIZES if kind is int else OVERLAPS
            what = "a whole number" if kind is int else "a number"
            raise UsageError(
                f"{item!r} is not {what}", where=f"{flag} {text}", fix=f"give a list such as {example}"
            ) from None
    return found


def check_args(args: argparse.Namespace) -> tuple[list[int], list[float]]:
    """The grid's numbers and the paths, checked before anything is read (the grid by the library)."""
    from ..harness.sweep.sweep import grid

    sizes, overlaps = numbers(args.sizes, "--sizes", int), numbers(args.overlaps, "--overlaps", float)
    grid(sizes, overlaps, k=args.k, budget=args.budget, chunker=args.chunker, scope=args.scope,
         retriever=args.retriever)  # fmt: skip
    for path in [args.questions, *args.corpus]:
        if not path.exists():
            raise UsageError("no such file or folder", where=str(path), fix="check the path")
    if not args.questions.is_file():
        raise UsageError(
            "this is a folder", where=f"--questions {args.questions}", fix="give the questions file"
        )
    check_out_outside_corpus(args.out, args.corpus)
    return sizes, overlaps


def check_out_outside_corpus(out: Path, corpus: Sequence[Path]) -> None:
    """--out may not be in a --corpus folder: its sweep.md would be read as a corpus file next time."""
    # realpath, not Path.resolve: Python 3.11's resolve raises RuntimeError on a loop of links
    target = Path(os.path.realpath(out))
    for folder in (Path(os.path.realpath(path)) for path in corpus if path.is_dir()):
        if target == folder or folder in target.parents:
            raise UsageError(
                "the output folder is inside a --corpus folder, whose .md files are read as the corpus",
                where=f"--out {out}",
                fix="give --out a folder outside the corpus",
            )


def is_gold_set(path: Path) -> bool:
    """A gold set (JSONL) by its suffix, else by its first character ("{"); a CSV otherwise."""
    if path.suffix.lower() in GOLD_SUFFIXES:
        return True
    if path.suffix.lower() == ".csv":
        return False
    with path.open("rb") as handle:
        return handle.read(4096).lstrip().lstrip(b"\xef\xbb\xbf").startswith((b"{", b"["))


def corpus_files(paths: Sequence[Path]) -> list[Path]:
    """The .md/.txt files given, and those in the folders given (sorted); a PDF means the wrong pair. A
    folder is walked by ``walk_folder`` (hidden files kept, as a corpus may name one; links to folders
    not followed): the entries it skips (a loop of links, a FIFO) are named in a warning."""
    found: list[Path] = []
    for path in paths:
        inside = _walked(path) if path.is_dir() else [path]
        texts = [p for p in inside if p.suffix.lower() in CORPUS_SUFFIXES]
        if not texts:
            pdfs = any(p.suffix.lower() == ".pdf" for p in inside)
            raise UsageError(
                "a questions CSV indexes .md/.txt corpus files, and this "
                + ("holds PDFs" if pdfs else "has none"),
                where=f"--corpus {path}",
                fix=_PDFS_FIX if pdfs else "give the corpus .md/.txt files the questions were written on",
            )
        found += texts
    return found


def _walked(folder: Path) -> list[Path]:
    from ..documents.walk import FolderWarning, skipped_summary, walk_folder

    walk = walk_folder(folder, hidden=True, inside=False)
    if walk.skipped:
        warnings.warn(FolderWarning(skipped_summary(walk, "corpus folder")), stacklevel=2)
    return walk.paths


def load_spans(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The SpanSet and the accounting of the questions' rows, by the kind of --questions."""
    if is_gold_set(args.questions):
        from ..harness.sweep.gold_spans import read_gold_spans

        if len(args.corpus) != 1 or not args.corpus[0].is_dir():
            raise UsageError(
                "with a gold set, --corpus is the one sources folder the gold set was built from",
                where="--corpus " + " ".join(map(str, args.corpus)),
                fix="give the folder of PDFs (assay gold build's --sources); "
                "corpus .md files go with a questions CSV",
            )
        found = read_gold_spans(args.questions, args.corpus[0], cache_dir=flags.page_cache(args))
        return found.spans, found.accounting()
    from ..harness.sweep.chunk_eval import load_chunk_eval

    spans = load_chunk_eval(corpus_files(args.corpus), args.questions)
    count = len(spans.questions)
    return spans, {"rows": count, "questions": count, "skipped": {}}


def run_sweep_command(args: argparse.Namespace) -> int:
    from ..harness.sweep.report import write_sweep
    from ..harness.sweep.sweep import run_sweep

    sizes, overlaps = check_args(args)
    out = out_folder(args.out)
    # PDFs not in the page cache are extracted first, which can take a while: say so before it starts
    print(f"assay sweep: reading {args.questions} and the documents of --corpus", file=sys.stderr, flush=True)
    spans, accounting = load_spans(args)
    print(f"assay sweep: {len(spans.questions)} questions, {len(spans.documents)} documents", file=sys.stderr)
    sweep = run_sweep(
        spans, sizes, overlaps, k=args.k, budget=args.budget, chunker=args.chunker,
        retriever=args.retriever, scope=args.scope, progress=_progress,
    )  # fmt: skip
    board = write_sweep(out, sweep, accounting)
    print_board(board, out)
    if board["broken"]:
        print(f"assay: {one_line(board['broken'])}", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK


def out_folder(out: Path) -> Path:
    """--out, made when missing (with its parents), without the outputs of an earlier sweep: a sweep
    that then fails (bad gold set, interrupted) must not leave another grid's sweep.html looking like
    its own. UsageError when it is a file or cannot be made."""
    from ..harness.sweep.report import OUTPUT_NAMES

    if out.exists() and not out.is_dir():
        raise UsageError(
            "this is a file; a sweep writes a folder", where=f"--out {out}", fix="give --out a folder"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in OUTPUT_NAMES:
            (out / name).unlink(missing_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot make the folder or clear an earlier sweep's files in it ({exc.strerror})",
            where=f"--out {out}",
            fix="give --out one you can write",
        ) from None
    return out


def _progress(done: int, total: int, cell: Any) -> None:
    config, overall = cell.config, cell.rollup.overall.means
    print(
        f"assay sweep: cell {done}/{total} size {config.size} overlap {config.overlap:g}: "
        f"recall@budget {overall['recall_at_budget']:.1%}, recall@k {overall['recall_at_k']:.1%} "
        f"({cell.result.chunks} chunks, {cell.seconds:.2f} s)",
        file=sys.stderr,
        flush=True,
    )


def print_board(board: dict[str, Any], out: Path) -> None:
    from ..harness.sweep.report import questions_text, winner_text

    print(f"assay sweep: {board['cells']} cells, {questions_text(board['questions'])}")
    print(
        f"  {'rank':>4}  {'size':>5}  {'overlap':>7}  {'recall@budget':>13}  {'recall@k':>8}  {'chunks':>6}"
    )
    for cell in board["leaderboard"][:TOP_SHOWN]:
        print(
            f"  {cell['rank']:>4}  {cell['size']:>5}  {cell['overlap']:>7g}  "
            f"{cell['recall_at_budget']:>13.1%}  {cell['recall_at_k']:>8.1%}  {cell['chunks']:>6}"
        )
    print(f"winner (at a budget of {board['settings']['budget']} characters): {winner_text(board)}")
    print(f"wrote {out}/sweep.json, leaderboard.json, sweep.md, sweep.html")
