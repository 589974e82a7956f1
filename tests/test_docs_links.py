"""Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a #anchor names a
heading of the page it points into (as GitHub spells heading anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target) and ![alt](target), target optionally in <...> and followed by a "title"
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without Markdown's marks, lowercased, every character
    but letters, digits, spaces, hyphens and underscores dropped, and spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = re.sub(r"[`*]", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        anchor = github_anchor(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The link targets of a page, outside code blocks and code spans."""
    text = CODE_SPAN.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return [target.strip("<>") for target in LINK.findall(text)]


def relative_links() -> list[tuple[str, str]]:
    """(page, target) for every link that is not to the web or an e-mail address."""
    return [
        (page.relative_to(ROOT).as_posix(), target)
        for page in PAGES
        for target in links(page)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)
    ]


@pytest.mark.parametrize(("page", "target"), relative_links())
def test_relative_link_resolves(page: str, target: str) -> None:
    path, _, anchor = target.partition("#")
    source = ROOT / page
    destination = (source.parent / path).resolve() if path else source
    assert destination.exists(), (
        f"{page}: link {target!r} names {path!r}, which does not exist. Fix: the path"
    )
    if anchor:
        assert destination.suffix == ".md", (
            f"{page}: link {target!r} has an anchor into a file that is not Markdown"
        )
        known = anchors(destination)
        assert anchor in known, (
            f"{page}: link {target!r}: no heading of {destination.relative_to(ROOT)} has the anchor "
            f"#{anchor}. Fix: one of {sorted(known)}"
        )


def test_every_page_is_checked_and_linked_from_the_readme() -> None:
    readme = set(links(ROOT / "README.md"))
    unlinked = [page.name for page in PAGES[1:] if f"docs/{page.name}" not in readme]
    assert not unlinked, (
        f"docs pages the README does not link to: {unlinked}. Fix: add them to its Documentation list"
    )
    assert len(relative_links()) > 50  # the pages link to each other: an empty list means the parser broke


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Quick start: a gold set and your RAG system", "quick-start-a-gold-set-and-your-rag-system"),
        ("`--out`: a verdict per row", "--out-a-verdict-per-row"),
        ("`--markdown`: results.md", "--markdown-resultsmd"),
        ("`assay gold build`", "assay-gold-build"),
        (
            "In process: `pkg.module:function`, `path/to/file.py:function`",
            "in-process-pkgmodulefunction-pathtofilepyfunction",
        ),
        ("Dependencies, and why each is there", "dependencies-and-why-each-is-there"),
        ("The cascade: [results](results.md)", "the-cascade-results"),
    ],
)
def test_github_anchor(heading: str, anchor: str) -> None:
    assert github_anchor(heading) == anchor


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nSee [x](gone.md), [y](#title), `[z](code.md)`\n\n```\n[w](fence.md)\n```\n")
    assert links(page) == ["gone.md", "#title"]
    assert anchors(page) == {"title"}
