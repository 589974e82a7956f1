"""Citations resolve as people write them (issue 20, item 3): by the title printed on a document's first
pages, the gold set's title, insurer (or company) and product, with and without the kind of document; a
kind word tells two documents of one product apart; a name two documents share is ambiguous; a company's
name alone names none of its documents. Without --sources, citations are still checked against the gold
set's names of the item's document, and the results say which grounding checks ran.

Real PDFs made with tests/support/pdfgen.py, of two domains: an insurer's policy wording and customer
information sheet of one product, and a software company's service level agreement and price list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pdfgen
import pytest
from cli_run import run

from assay.documents import load_sources
from assay.parts import Citation
from assay.scorers.grounding import Item, Library, ground, loose_name, printed_names, resolve

TEMPLATES = Path(__file__).resolve().parents[2] / "examples" / "insurance_templates.toml"
BODY = "The insured person must tell us of any claim within thirty days of the event that caused it."

DOCUMENTS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    # a title in three lines above a numbered body, and a running header on the later pages
    ("northstar", "elevate__wordings.pdf"): (
        ("Northstar Assurance Limited", "Elevate", "Policy Wordings", "1. Preamble", BODY),
        ("Elevate Policy Wordings", "2. Definitions", BODY),
        ("Elevate Policy Wordings", "3. Claims", BODY),
    ),
    # a labelled product name; the id says which kind of document it is
    ("northstar", "elevate__cis.pdf"): (
        ("Product Name: Elevate | UIN: NSTHLIP0042", "Customer Information Sheet", BODY),
    ),
    # no kind in the file name: the printed title says it
    ("northstar", "silver-health.pdf"): (("Silver Health", "Customer Information Sheet", BODY),),
    # two documents that print the same title
    ("orion", "travel-2023.pdf"): (("Orion Travel", "Brochure", BODY),),
    ("orion", "travel-2024.pdf"): (("Orion Travel", "Brochure", BODY),),
    # another domain: a company's two documents of one product
    ("acme-cloud", "sla.pdf"): (
        ("Acme Cloud Inc.", "Acme Cloud Platform", "Service Level Agreement", BODY),
        ("Acme Cloud Platform", "Service Level Agreement", BODY),
    ),
    ("acme-cloud", "prices.pdf"): (("Acme Cloud Platform", "Price List 2025", BODY),),
}
WORDINGS, CIS, SILVER = "northstar__elevate__wordings", "northstar__elevate__cis", "northstar__silver-health"
SLA, PRICES = "acme-cloud__sla", "acme-cloud__prices"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("titled")
    for (folder, name), pages in DOCUMENTS.items():
        pdfgen.pages_pdf(root / folder, name, pages)
    return Library(load_sources(root, cache_dir=None))


@pytest.mark.parametrize(
    ("name", "document_id"),
    [
        ("Elevate Policy Wordings", WORDINGS),  # the title on page 1, in three lines
        ("the Elevate policy wording", WORDINGS),
        ("ELEVATE POLICY WORDINGS", WORDINGS),  # the running header
        ("Northstar Elevate Policy Wordings", WORDINGS),  # insurer and product
        ("Northstar Assurance Elevate wordings", WORDINGS),  # the company's printed name and product
        ("Elevate CIS", CIS),  # the kind word tells the product's two documents apart
        ("Northstar's Elevate customer information sheet", CIS),
        ("the Silver Health CIS", SILVER),  # the kind printed under the title
        ("Silver Health", SILVER),
        ("Acme Cloud Platform SLA", SLA),
        ("Acme Cloud Platform service-level agreement", SLA),
        ("Acme Cloud Platform pricing", PRICES),
        ("Acme Cloud Platform Price List", PRICES),
        ("orion/travel-2024.pdf", "orion__travel-2024"),  # the file name is exact where the title is not
    ],
)
def test_a_title_as_people_write_it_names_its_document(library: Library, name: str, document_id: str) -> None:
    found = resolve(name, library, Item())
    assert (found.document_id, found.problem) == (document_id, "")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Elevate", f"'Elevate' is ambiguous: it names {CIS}, {WORDINGS}"),
        ("Orion Travel brochure", "'Orion Travel brochure' is ambiguous: it names orion__travel-2023, "
         "orion__travel-2024"),
        ("Acme Cloud Platform", f"'Acme Cloud Platform' is ambiguous: it names {PRICES}, {SLA}"),
        ("Northstar", "'Northstar' names only a company, none of its documents"),
        ("Northstar Assurance Limited", "names only a company, none of its documents"),
        ("Acme Cloud Inc.", "names only a company, none of its documents"),
        ("Silver Health brochure", "'Silver Health brochure' names no document of the sources"),  # a CIS
        ("Elevate Gold", "'Elevate Gold' names no document of the sources"),  # never a prefix
    ],
)  # fmt: skip
def test_an_ambiguous_or_company_only_name_names_no_document(
    library: Library, name: str, problem: str
) -> None:
    found = resolve(name, library, Item())
    assert found.document_id is None and problem in found.problem


def test_a_reply_citing_the_right_title_of_its_item_is_grounded(library: Library) -> None:
    item = Item(scope=CIS, source_document=CIS, source_title="Elevate")
    found = ground("Claims are told within 30 days.", [Citation("Elevate CIS", 1)], [], item, library)
    assert found.passed, found.problems
    wrong = ground(
        "Claims are told within 30 days.", [Citation("Elevate Policy Wordings", 1)], [], item, library
    )
    assert wrong.problems == (f"cites {WORDINGS}, outside the item's scope ({CIS})",)


@pytest.mark.parametrize(
    ("lines", "title"),
    [
        (("Northstar Assurance Limited", "Elevate", "Policy Wordings", "1. Preamble"),
         "Elevate Policy Wordings"),
        (("PRODUCT NAME: RISE | PRODUCT UIN: X1", "A body line far longer than any title ever is here"),
         "RISE"),
        (("Helix Dental", "Patient Handbook", "Section 4 of this handbook applies to every patient here"),
         "Helix Dental Patient Handbook"),
    ],
)  # fmt: skip
def test_the_printed_title_is_read_from_the_lines_above_the_body(lines: tuple[str, ...], title: str) -> None:
    printed = printed_names(["\n".join(lines)])
    assert title in printed.titles
    assert not any(len(t.split()) > 8 for t in printed.titles if t in lines)  # no body line is a title


def test_a_company_line_is_a_company_not_a_title() -> None:
    printed = printed_names(["Northstar Assurance Limited\nElevate\nPolicy Wordings"])
    assert printed.companies == ("northstar assurance",)
    assert "Northstar Assurance Limited" not in printed.titles


def test_a_logo_line_with_the_company_s_name_names_none_of_its_documents(tmp_path: Path) -> None:
    for name in ("travel.pdf", "home.pdf"):  # each prints only the insurer's name above its title
        pdfgen.pages_pdf(tmp_path / "zenith", name, (("ZENITH", f"{name[:-4].title()} Cover", BODY),))
    library = Library(load_sources(tmp_path, cache_dir=None))
    only = "'Zenith' names only a company, none of its documents"
    assert resolve("Zenith", library, Item()).problem == only
    assert resolve("Zenith Travel Cover", library, Item()).document_id == "zenith__travel"


@pytest.mark.parametrize(
    ("text", "core", "kinds"),
    [
        ("the Silver Health CIS", "silver health", {"customer information sheet"}),
        ("Our Elevate Policy Wordings", "elevate", {"policy wording"}),
        ("Acme's Terms & Conditions", "acme", {"terms and conditions"}),
        ("Customer Information Sheet for Elevate", "elevate", {"customer information sheet"}),
        ("Elevate policy document", "elevate", set()),
    ],
)
def test_a_name_read_loosely(text: str, core: str, kinds: set[str]) -> None:
    assert loose_name(text) == (found := loose_name(text)) and (found.core, set(found.kinds)) == (core, kinds)


# --- without --sources: the gold set's names of the item's document ---------------------------------


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        (WORDINGS, None),
        ("elevate__wordings.pdf", None),  # the file name of source.path
        ("Elevate Policy Wordings", None),  # source.title and the kind the id says
        ("Northstar Elevate", None),
        ("Elevate CIS", "'Elevate CIS' names no document the gold set records for the item (no --sources)"),
        ("Zeta Care", "'Zeta Care' names no document the gold set records for the item (no --sources)"),
        ("Northstar", "'Northstar' names only a company, none of its documents"),
    ],
)
def test_without_sources_a_citation_names_the_item_s_document_by_the_gold_set_s_names(
    name: str, problem: str | None
) -> None:
    from assay.scorers.grounding import names_checked

    item = Item(scope=WORDINGS, source_document=WORDINGS, source_title="Elevate",
                source_path="northstar/elevate__wordings.pdf")  # fmt: skip
    problems, _ = names_checked([name], Library(None), item)
    assert problems == ([] if problem is None else [problem])


FACTS = {
    "document": WORDINGS,
    "title": "Elevate",
    "claims": [{"field": "grace_period", "value": 30, "unit": "days",
                "source": {"path": "northstar/elevate__wordings.pdf", "quote": "A grace period of 30 days"}}],
}  # fmt: skip
GRACE_PAGES = (
    ("Northstar Assurance Limited", "Elevate", "Policy Wordings", "1. Renewal"),
    ("A grace period of 30 days is allowed for renewal.",),
)
SYSTEM = """
def answer(question, scope=None):
    cited = "Elevate CIS" if question.startswith("How many days") else "Elevate Policy Wordings"
    return f"The grace period is 30 days. [Source: {cited}, p.2]"
"""


def test_a_run_without_sources_grades_a_citation_of_another_document_ungrounded_and_says_what_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdfgen.pages_pdf(tmp_path / "sources" / "northstar", "elevate__wordings.pdf", GRACE_PAGES)
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "elevate.json").write_text(json.dumps(FACTS), encoding="utf-8")
    (tmp_path / "bot.py").write_text(SYSTEM, encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    build = ["gold", "build", "--facts", str(tmp_path / "facts"), "--sources", str(tmp_path / "sources"),
             "--templates", str(TEMPLATES), "--out", str(gold)]  # fmt: skip
    assert run(build, capsys)[0] == 0
    out = tmp_path / "run"
    code, _, stderr = run(["run", "--gold", str(gold), "--system", f"{tmp_path / 'bot.py'}:answer",
                           "--out", str(out)], capsys)  # fmt: skip
    assert code == 0, stderr
    rows = [json.loads(line) for line in (out / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    outcomes = {row["question"].split()[0]: (row["outcome"], row.get("grounded_problems")) for row in rows}
    other = "'Elevate CIS' names no document the gold set records for the item (no --sources)"
    assert outcomes["How"] == ("correct_ungrounded", other)
    assert {o for q, o in outcomes.items() if q != "How"} == {("correct", None)}
    results: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    grounding = results["headline"]["grounding"]
    assert grounding["documents"] is False and "not checked (no --sources)" in grounding["checks"]
    assert results["headline"]["citation"]["scored"] == len(rows)  # measured, in the mode named
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert "- grounding: citations resolved against the gold set's document names" in markdown
