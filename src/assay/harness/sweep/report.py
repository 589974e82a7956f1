"""A sweep's reports, all read from one leaderboard (``leaderboard``): leaderboard.json, sweep.md (the
ranked table, the winner, a broken sweep shouted first) and sweep.html (the table, and two charts of
recall against chunk size, one line per overlap: recall at k and recall at the budget).

The charts are SVG written here, so the page needs nothing installed and fetches nothing: its
Content-Security-Policy allows only its own style, by hash, and no script at all. Every text from the
data (corpus names, file names) is escaped where it is written; numbers carry their exact values in
``data-value`` as the HTML report's do, and the charts' lines and points say what they are with
``data-overlap`` and ``data-size``, so tests read them back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from ...outputs import json_document, write_text
from ...report.format import count, interval_text, percent
from ...report.markup import attrs, element, markdown_table, number_cell, static_page, table
from ...report.markup import cell as md_cell
from ...report.plot import PALETTE
from .rollup import METRICS
from .sweep import Sweep

OUTPUT_NAMES = ("sweep.json", "leaderboard.json", "sweep.md", "sweep.html")
METRIC_TITLES = {
    "recall_at_budget": "recall@budget",
    "recall_at_k": "recall@k",
    "precision_at_k": "precision@k",
    "iou": "IoU@k",
    "hit_at_k": "hit@k",
    "mrr": "MRR@k",
}
CHART_METRICS = ("recall_at_k", "recall_at_budget")
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 560, 300, 52, 130, 30, 44


def leaderboard(sweep: Sweep, accounting: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The sweep's summary and its cells ranked by overall recall at the budget (best first)."""
    winner = sweep.winner
    cells = []
    for rank, summary in enumerate(sweep.ranked(), 1):
        config, overall = summary.config, summary.rollup.overall.to_json()
        cells.append(
            {
                "rank": rank,
                "winner": config == winner,
                "size": config.size,
                "overlap": config.overlap,
                "overlap_units": config.overlap_units,
                "chunks": summary.result.chunks,
                **{metric: overall[metric] for metric in METRICS},
                "n": overall["n"],
                "intervals": overall["intervals"],
                "corpora": {
                    name: group.means["recall_at_budget"] for name, group in summary.rollup.corpora.items()
                },
                "seconds": summary.seconds,
            }
        )
    first = sweep.cells[0].config
    return {
        **sweep.summary_json(),
        "settings": {
            "k": first.k,
            "budget": first.budget,
            "chunker": first.chunker,
            "retriever": first.retriever,
            "scope": first.scope,
        },
        "questions": dict(accounting) if accounting else {"questions": sweep.cells[0].rollup.overall.n},
        "hashes": dict(sweep.cells[0].hashes),
        "leaderboard": cells,
    }


# --- Markdown -------------------------------------------------------------------------------------------


def leaderboard_markdown(board: Mapping[str, Any]) -> str:
    """sweep.md: a broken sweep first, then the settings, the winner, the ranked table and each cell's
    recall at the budget per corpus."""
    lines = ["# assay sweep", ""]
    if board["broken"]:
        lines += [f"> **{md_cell(board['broken'])}**", ""]
    lines += [settings_text(board), "", questions_text(board["questions"]), ""]
    lines += [f"**Winner** (at the budget): {winner_text(board)}", ""]
    header = ["rank", "size", "overlap", "chunks", *(METRIC_TITLES[m] for m in METRICS), "n", "seconds"]
    lines += _markdown_table(header, [_markdown_row(cell) for cell in board["leaderboard"]])
    lines += ["", "## recall@budget per corpus", "", "Columns: size/overlap, in rank order.", ""]
    cells = board["leaderboard"]
    header = ["corpus", *(f"{cell['size']}/{cell['overlap_units']}" for cell in cells)]
    rows = [
        [md_cell(name), *(percent(cell["corpora"].get(name)) for cell in cells)]
        for name in corpus_names(board)
    ]
    lines += _markdown_table(header, rows)
    return "\n".join([*lines, ""])


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return markdown_table(header, rows)[:-1]  # no blank line after it: the caller spaces its tables


def corpus_names(board: Mapping[str, Any]) -> list[str]:
    return sorted({name for cell in board["leaderboard"] for name in cell["corpora"]})


def metric_text(cell: Mapping[str, Any], metric: str) -> str:
    """A cell's metric with its interval: percent, but MRR (a mean reciprocal rank) as a number."""
    value, interval = cell[metric], cell["intervals"][metric]
    if metric != "mrr":
        return f"{percent(value)} [{interval_text(interval)}]"
    ends = "n/a" if interval is None else f"{interval['low']:.3f}\u2013{interval['high']:.3f}"
    return f"{value:.3f} [{ends}]"


def _markdown_row(cell: Mapping[str, Any]) -> list[str]:
    rank = f"**{cell['rank']}** (winner)" if cell["winner"] else str(cell["rank"])
    shown = [metric_text(cell, m) for m in METRICS]
    overlap = f"{cell['overlap']:g} ({cell['overlap_units']})"
    return [
        rank,
        str(cell["size"]),
        overlap,
        str(cell["chunks"]),
        *shown,
        str(cell["n"]),
        f"{cell['seconds']:.2f}",
    ]


def settings_text(board: Mapping[str, Any]) -> str:
    s = board["settings"]
    return (
        f"{board['cells']} cells; k {s['k']}, budget {s['budget']} characters, chunker {s['chunker']}, "
        f"retriever {s['retriever']}, scope {s['scope']}; ranked by {board['ranked_by']} "
        f"(ties: {board['ties']})"
    )


def questions_text(questions: Mapping[str, Any]) -> str:
    skipped = {reason: len(ids) for reason, ids in (questions.get("skipped") or {}).items() if ids}
    text = count(questions["questions"], "question")
    if "rows" in questions:
        text += f" of {count(questions['rows'], 'row')}"
    if skipped:
        text += "; skipped: " + ", ".join(f"{count} {reason}" for reason, count in skipped.items())
    return text


NO_WINNER = (
    "none: no cell retrieved a single gold character at the budget, so no chunking measured better than "
    "another (do the questions share words with the documents?)"
)


def winner_text(board: Mapping[str, Any]) -> str:
    best = next((cell for cell in board["leaderboard"] if cell["winner"]), None)
    if best is None:
        return NO_WINNER
    return (
        f"size {best['size']}, overlap {best['overlap']:g} ({best['overlap_units']}): recall@budget "
        f"{percent(best['recall_at_budget'])} [{interval_text(best['intervals']['recall_at_budget'])}], "
        f"recall@k {percent(best['recall_at_k'])}, precision@k {percent(best['precision_at_k'])}, "
        f"IoU {percent(best['iou'])}, hit@k {percent(best['hit_at_k'])}, MRR {best['mrr']:.3f}"
    )


# --- HTML -----------------------------------------------------------------------------------------------


def sweep_html(board: Mapping[str, Any]) -> str:
    """sweep.html: one self-contained page (no script; the style allowed by hash)."""
    parts = ["<header><h1>assay sweep</h1>"]
    if board["broken"]:
        parts.append(element("p", board["broken"], class_="warnings broken", data_field="broken"))
    parts += [
        element("p", settings_text(board), class_="facts"),
        element("p", questions_text(board["questions"]), class_="facts"),
    ]
    parts.append(
        element("p", f"Winner (at the budget): {winner_text(board)}", class_="headline", data_field="winner")
    )
    parts.append("</header><main>")
    # A wide table scrolls in its own box rather than pushing the page past the window.
    parts += ["<h2>Leaderboard</h2>", _scrolling(_html_table(board["leaderboard"]))]
    note = element(
        "p",
        "Columns: size/overlap in characters (tokens for the token chunker), in rank order.",
        class_="note",
    )
    parts += ["<h2>recall@budget per corpus</h2>", note, _scrolling(_corpus_table(board))]
    parts.append("<h2>Recall against chunk size</h2>")
    charts = "".join(
        f'<div class="chart">{recall_chart_svg(board, metric)}</div>' for metric in CHART_METRICS
    )
    parts.append(f'<div class="charts">{charts}</div>')
    parts.append("</main>")
    return _page("assay sweep", "".join(parts))


def _scrolling(html: str) -> str:
    return f'<div class="scroll">{html}</div>'


def _html_table(cells: Sequence[Mapping[str, Any]]) -> str:
    header = ["rank", "size", "overlap", "chunks", *(METRIC_TITLES[m] for m in METRICS), "n", "seconds"]
    rows = []
    for cell in cells:
        numbers = [number_cell(m, cell[m], metric_text(cell, m)) for m in METRICS]
        first = number_cell("rank", cell["rank"], f"{cell['rank']}" + (" (winner)" if cell["winner"] else ""))
        rest = [
            number_cell("size", cell["size"], str(cell["size"])),
            number_cell("overlap", cell["overlap"], f"{cell['overlap']:g} ({cell['overlap_units']})"),
            number_cell("chunks", cell["chunks"], str(cell["chunks"])),
        ]
        tail = [
            number_cell("n", cell["n"], str(cell["n"])),
            number_cell("seconds", cell["seconds"], f"{cell['seconds']:.2f}"),
        ]
        marks = attrs(
            class_="winner" if cell["winner"] else None, data_size=cell["size"], data_overlap=cell["overlap"]
        )
        rows.append(f"<tr{marks}>{first}{''.join(rest + numbers + tail)}</tr>")
    return table(header, rows, class_="numbers", data_section="leaderboard")


def _corpus_table(board: Mapping[str, Any]) -> str:
    cells = board["leaderboard"]
    header = ["corpus", *(f"{cell['size']}/{cell['overlap_units']}" for cell in cells)]
    rows = []
    for name in corpus_names(board):
        values = [cell["corpora"].get(name) for cell in cells]
        shown = "".join(number_cell("recall_at_budget", value, percent(value)) for value in values)
        rows.append(f"<tr{attrs(data_corpus=name)}>{element('th', name, scope='row')}{shown}</tr>")
    return table(header, rows, class_="numbers", data_section="corpora")


def recall_chart_svg(board: Mapping[str, Any], metric: str) -> str:
    """One metric against chunk size (a log scale: the sizes usually double), a line per overlap."""
    cells = board["leaderboard"]
    sizes = sorted({cell["size"] for cell in cells})
    overlaps = sorted({cell["overlap"] for cell in cells})
    title = f"{METRIC_TITLES[metric]} against chunk size, one line per overlap"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img"{attrs(data_metric=metric, aria_label=title)}>',
        element("title", title),
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="600">{escape(title)}</text>',
        *_axes(sizes),
    ]
    for index, overlap in enumerate(overlaps):
        colour = PALETTE[index % len(PALETTE)]
        line = sorted((cell for cell in cells if cell["overlap"] == overlap), key=lambda cell: cell["size"])
        parts.append(_series(line, metric, overlap, colour, sizes))
        y = TOP + 14 + 18 * index
        parts.append(
            f'<g class="legend"{attrs(data_overlap=overlap)}><line x1="{WIDTH - RIGHT + 14}" y1="{y}" '
            f'x2="{WIDTH - RIGHT + 36}" y2="{y}" stroke="{colour}" stroke-width="2"/>'
            f'<text x="{WIDTH - RIGHT + 42}" y="{y + 4}" font-size="12">overlap {overlap:g}</text></g>'
        )
    return "".join([*parts, "</svg>"])


def _x(size: int, sizes: Sequence[int]) -> float:
    low, high = math.log(sizes[0]), math.log(sizes[-1])
    span = WIDTH - LEFT - RIGHT
    return LEFT + (span / 2 if high == low else (math.log(size) - low) / (high - low) * span)


def _y(value: float) -> float:
    return TOP + (1 - value) * (HEIGHT - TOP - BOTTOM)


def _axes(sizes: Sequence[int]) -> list[str]:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    parts = [f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#5b6270"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#d9dce1"/>')
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick:.0%}</text>'
        )
    for size in sizes:
        x = _x(size, sizes)
        parts.append(f'<text x="{x:.1f}" y="{bottom + 16}" font-size="11" text-anchor="middle">{size}</text>')
    parts.append(
        f'<text x="{(LEFT + right) / 2:.1f}" y="{HEIGHT - 8}" font-size="12" text-anchor="middle">'
        "chunk size</text>"
    )
    return parts


def _series(
    line: Sequence[Mapping[str, Any]], metric: str, overlap: float, colour: str, sizes: Sequence[int]
) -> str:
    points = [(_x(cell["size"], sizes), _y(cell[metric]), cell) for cell in line]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
    parts = [
        f'<g class="series"{attrs(data_overlap=overlap)}>'
        f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
    ]
    for x, y, cell in points:
        label = f"size {cell['size']}, overlap {overlap:g}: {METRIC_TITLES[metric]} {percent(cell[metric])}"
        ring = ' stroke="#1d1f23" stroke-width="2"' if cell["winner"] and metric == "recall_at_budget" else ""
        marks = attrs(data_size=cell["size"], data_overlap=overlap, data_value=json.dumps(cell[metric]))
        parts.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"{ring}{marks}>'
            f"{element('title', label)}</circle>"
        )
    return "".join([*parts, "</g>"])


def _page(title: str, body: str) -> str:
    return static_page(title, body, ("report.css", "sweep.css"))


# --- the outputs ----------------------------------------------------------------------------------------


def write_sweep(out: Path, sweep: Sweep, accounting: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """DIR/sweep.json, leaderboard.json, sweep.md and sweep.html, each written atomically; the board."""
    board = leaderboard(sweep, accounting)
    texts = {
        "sweep.json": json_document(sweep.to_json()),
        "leaderboard.json": json_document(board),
        "sweep.md": leaderboard_markdown(board),
        "sweep.html": sweep_html(board),
    }
    for name in OUTPUT_NAMES:
        write_text(out / name, texts[name])
    return board
