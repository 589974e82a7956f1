"""Markdown from data stays inert (issue 9, item 12): links, images, raw HTML, autolinks, code spans,
and table-breaking pipes and line breaks in responses, questions, golden answers, ids, domains, file
names and traces render as the text they are. Real runs write the reports; a small scanner that
follows CommonMark's escapes and code spans finds anything left live."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

from assay.report.markdown import cell, code, plain

HOSTILE = [
    "![x](http://evil.example/x.png)",
    "[click](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "a | b || c",
    "line one\nline two\n# a heading\n- an item",
    "``code`` and a lone `tick",
    "<https://evil.example/auto>",
    "see www.evil.example now",
    "write to someone@evil.example",
    "[ref]: http://evil.example/ref **bold** ~~struck~~ $x$ &lt;b&gt; \\[",
]


def live_markup(markdown: str) -> list[str]:
    """What a CommonMark/GFM renderer could make live, outside escapes and code spans: link and image
    brackets, raw HTML or autolink angle brackets, and self-linking words."""
    live, i = [], 0
    while i < len(markdown):
        char = markdown[i]
        if char == "\\" and i + 1 < len(markdown) and markdown[i + 1] in "\\`*_[]<>!~|$#()-.+{}:&'\"=@":
            i += 2  # an escaped character is literal
            continue
        if char == "`":
            run_end = i
            while run_end < len(markdown) and markdown[run_end] == "`":
                run_end += 1
            fence = markdown[i:run_end]
            close = markdown.find(fence, run_end)
            while close != -1 and markdown[close + len(fence) : close + len(fence) + 1] == "`":
                close = markdown.find(fence, close + len(fence) + 1)
            if close != -1:  # a code span: literal inside
                live.append(" ")
                i = close + len(fence)
                continue
        live.append(char)
        i += 1
    text = "".join(live)
    found = [c for c in ("[", "]", "<") if c in text]  # (a ">" opening a line is our own quote)
    return found + [w for w in ("://", "www.", "@") if w in text.lower()]


def table_rows_are_whole(markdown: str) -> bool:
    """Every row of each table has as many unescaped pipes as its header (GFM splits cells at them,
    inside code spans too)."""
    expected = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            expected = None
            continue
        pipes = sum(1 for n, c in enumerate(line) if c == "|" and (n == 0 or line[n - 1] != "\\"))
        expected = pipes if expected is None else expected
        if pipes != expected:
            return False
    return True


def write_rows(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def hostile_rows() -> list[dict[str, str]]:
    return [
        {
            "id": f"r{n} {text.splitlines()[0]}",
            "domain": text if n < 3 else "plain",
            "question": text,
            "answer": "Delhi" if n % 2 else f"[g{n}](http://evil.example/g)",
            "response": f"{text} Delhi {text}" if n % 3 == 0 else f"{text} wrong",
        }
        for n, text in enumerate(HOSTILE)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("![x](http://evil/x.png)", "`![x](http://evil/x.png)`"),  # the whole self-linking word as code
        ("[click](javascript:alert(1))", "\\[click\\](javascript:alert(1))"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("a | b\nc", "a \\| b c"),
        ("use `rm` now", "use \\`rm\\` now"),
        ("www.evil.example", "`www.evil.example`"),
        ("x@evil.example", "`x@evil.example`"),
        ("&lt;b&gt;", "&amp;lt;b&amp;gt;"),  # an entity from the data shows as typed
        ("**b** _i_ ~~s~~ $m$", "\\*\\*b\\*\\* \\_i\\_ \\~\\~s\\~\\~ \\$m\\$"),
        ("Delhi, 10:30 am. It's 5-6 km", "Delhi, 10:30 am. It's 5-6 km"),  # plain text stays plain
        ("http://a.example/`x`|y", "``http://a.example/`x`\\|y``"),
    ],
)
def test_cell_escapes_exactly(text: str, expected: str) -> None:
    assert cell(text) == expected
    assert live_markup(cell(text)) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("`x", "`` `x ``"),
        ("a``b`c", "```a``b`c```"),
        ("p|q", "`p\\|q`"),
    ],
)
def test_code_is_fenced_past_any_backticks_inside(text: str, expected: str) -> None:
    assert code(text) == expected


def test_the_score_report_keeps_hostile_data_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_rows(tmp_path / "[x](javascript:alert(1)) <b>.csv", hostile_rows())
    report = tmp_path / "results.md"
    argv = ["score", "--responses", str(data), "--markdown", str(report)]
    assert run(argv, capsys)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert live_markup(text) == []
    assert table_rows_are_whole(text)
    misses = [line for line in text.splitlines() if line.startswith("### ")]
    assert len(misses) == 8  # only rows 3 and 9 hold their golden answer, "Delhi"
    assert not any(line.startswith(("# a heading", "- an item", "line two")) for line in text.splitlines())
    assert "- response: line one line two # a heading - an item wrong" in text  # one line, folded


def test_the_comparison_report_keeps_hostile_data_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = hostile_rows()
    changed = [dict(row, question=f"{row['question']} ![y](http://evil.example/y.png)") for row in rows[:-1]]
    scored = []
    for name, these in (("a ![a](javascript:x) www.evil.example", rows), ("b <script>", changed)):
        out = tmp_path / f"{name}.scored.csv"
        argv = ["score", "--responses", str(write_rows(tmp_path / f"{name}.csv", these)), "--out", str(out)]
        assert run(argv, capsys)[0] == 0
        scored.append(str(out))
    report = tmp_path / "compare.md"
    argv = ["compare", *scored, "--allow-changed-questions", "--markdown", str(report)]
    assert run(argv, capsys)[0] == 0
    text = report.read_text(encoding="utf-8")
    assert "> **Warning:** 9 of 9 rows joined by id have another question" in text  # the warning, escaped
    assert "Rows only in A: r9 \\[ref\\]: `http://evil.example/ref`" in text
    assert live_markup(text) == []
    assert table_rows_are_whole(text)


@pytest.mark.parametrize("render", [cell, code], ids=["cell", "code"])
def test_a_control_character_shows_as_its_escape_and_cannot_drive_a_terminal(render: Any) -> None:
    """`cat results.md` writes the file to a terminal: a reply's ESC, BEL or NUL must not reach it."""
    shown = render("a\x1b]0;pwned\x07b\x00c\u202e")
    assert not any(char in shown for char in "\x1b\x07\x00\u202e")
    assert "x1b" in shown and "x07" in shown and "x00" in shown


@pytest.mark.parametrize(
    "text", ["examples/rag_system/bot.py:answer", "a|b <script> & `x` [1] *y* $5 \\ back", "&lt; as typed"]
)
def test_plain_reads_a_cell_back_as_it_was_written(text: str) -> None:
    """What `assay run` prints of results.md's headline on a terminal: the text, not its escapes."""
    assert plain(cell(text)) == text
