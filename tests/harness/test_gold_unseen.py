"""Gold builds on inputs unlike the shared insurance set: another domain, other file layouts, other
scripts, and the slips and breakages real facts folders have. Each case writes its own facts and real
source files (text files, and PDFs by fpdf2) and runs the library or the command on them."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fpdf import FPDF

from assay.cli import main
from assay.documents import load_sources
from assay.errors import InputError
from assay.harness.claims import VerifyOptions, verify_claims
from assay.harness.facts import load_facts
from assay.harness.gold import build_gold, gold_jsonl, hard_fact_matcher
from assay.harness.templates import load_templates, parse_templates
from assay.scorers.grounding.folding import running_lines
from assay.scorers.grounding.quotes import find_quote


def _facts(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _default(document: str, *claims: dict[str, Any]) -> str:
    return json.dumps({"document": document, "claims": list(claims)}, ensure_ascii=False)


# --- reading facts files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        # the flat layout: the first grace_period mapping (a whole claim) would vanish
        (
            '{"policy_id": "p",\n "grace_period": {"value": 30},\n "grace_period": {"value": 45}}',
            "grace_period",
            3,
        ),
        # a claim's value written twice: the key is in other claims too, so no line is named
        (
            '{"document": "d", "claims": [{"field": "a", "value": 1},\n'
            ' {"field": "b", "value": 2, "value": 3}]}',
            "value",
            None,
        ),
    ],
)
def test_a_key_written_twice_is_an_error_not_a_lost_claim(
    tmp_path: Path, text: str, key: str, line: int | None
) -> None:
    path = _facts(tmp_path / "facts", "a.json", text)
    with pytest.raises(InputError) as caught:
        load_facts(tmp_path / "facts")
    assert repr(key) in caught.value.what
    assert caught.value.where == (f"{path}:{line}" if line else str(path))


def test_a_byte_order_mark_is_not_part_of_the_json(tmp_path: Path) -> None:
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "a.json").write_bytes(
        b"\xef\xbb\xbf" + _default("d", {"field": "x", "value": 1}).encode()
    )
    (read,) = load_facts(tmp_path / "facts")
    assert (read.document, [claim.field for claim in read.claims]) == ("d", ["x"])


# --- document ids and references --------------------------------------------------------------------


def _two_terms(root: Path) -> Path:
    """Two documents with the same file name in different folders."""
    for year, days in (("2023", 30), ("2024", 60)):
        folder = root / "sources" / "acme" / year
        folder.mkdir(parents=True)
        (folder / "terms.txt").write_text(f"The notice period is {days} days.\n", encoding="utf-8")
    return root / "sources"


def _notice(path: str, days: int) -> dict[str, Any]:
    quote = f"The notice period is {days} days."
    return {"field": "notice_period_days", "value": days, "source": {"path": path, "quote": quote}}


def test_a_file_name_two_documents_share_means_the_one_the_facts_name_as_theirs(tmp_path: Path) -> None:
    sources = load_sources(_two_terms(tmp_path), cache_dir=None)
    facts = json.loads(_default("acme-2024", _notice("terms.txt", 60)))
    facts["sources"] = ["2024/terms.txt"]  # not the document's id, but a path that names one document
    _facts(tmp_path / "facts", "acme.json", json.dumps(facts))
    (verdict,) = verify_claims(load_facts(tmp_path / "facts"), sources).verdicts
    assert (verdict.status, verdict.cited, verdict.document) == (
        "found",
        "acme__2024__terms",
        "acme__2024__terms",
    )


def test_an_ambiguous_reference_names_the_claim_that_writes_it(tmp_path: Path) -> None:
    sources = load_sources(_two_terms(tmp_path), cache_dir=None)
    _facts(
        tmp_path / "facts",
        "acme.json",
        _default("acme-2024", _notice("acme/2024/terms.txt", 60), _notice("terms.txt", 60)),
    )
    # the first claim names its document: the second's "terms.txt" is that one
    verdicts = verify_claims(load_facts(tmp_path / "facts"), sources).verdicts
    assert [verdict.cited for verdict in verdicts] == ["acme__2024__terms"] * 2
    _facts(tmp_path / "facts", "acme.json", _default("acme-2024", _notice("terms.txt", 60)))
    with pytest.raises(InputError) as caught:
        verify_claims(load_facts(tmp_path / "facts"), sources)
    assert caught.value.where == "acme.json: claims[0] (notice_period_days)"
    assert "acme/2023/terms.txt, acme/2024/terms.txt" in caught.value.what


# --- templates inferred from values written as text ----------------------------------------------


@pytest.mark.parametrize(
    ("value", "answer_type", "expected"),
    [
        ("₹2.5 lakh", "money", {"value": 250000, "unit": "INR"}),
        ("Rs. 1,50,000", "money", {"value": 150000, "unit": "INR"}),
        ("15 days", "number_unit", {"value": 15, "unit": "day"}),
        ("40%", "percent", {"value": 40, "unit": "%"}),
        ("Yes", "bool", {"value": True, "unit": None}),
        ("1 April 2024", "date", {"value": "2024-04-01", "unit": None}),
        ("hybrid work, three office days", "text", None),  # not one value: a text, as before
    ],
)
def test_a_value_written_as_text_is_typed_when_it_reads_as_one_value(
    tmp_path: Path, value: str, answer_type: str, expected: dict[str, Any] | None
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "hb.txt").write_text(f"The benefit is {value} for everyone.", encoding="utf-8")
    claim = {
        "field": "benefit",
        "value": value,
        "source": {"path": "hb.txt", "quote": f"The benefit is {value}"},
    }
    _facts(tmp_path / "facts", "hb.json", _default("hb", claim))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    build = build_gold(verification, None)
    (item,) = [json.loads(line) for line in gold_jsonl(build).splitlines()]
    assert item["answer_type"] == answer_type
    if expected is not None:
        assert item["expected_value"] == expected
        assert hard_fact_matcher(item["expected_regex"])(item["expected_answer"])


# --- unreadable sources, and the Markdown reports ----------------------------------------------------


def _unreadable_corpus(root: Path) -> tuple[Path, Path]:
    """A sources folder of one readable text file and PDFs no extractor can read."""
    sources = root / "sources"
    sources.mkdir()
    (sources / "terms.txt").write_text("The notice period is 30 days.", encoding="utf-8")
    (sources / "truncated.pdf").write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog")
    (sources / "empty.pdf").write_bytes(b"")
    quote = {"path": "truncated.pdf", "quote": "The grace period is 30 days."}
    claims = [_notice("terms.txt", 30), {"field": "grace_period_days", "value": 30, "source": quote}]
    _facts(root / "facts", "terms.json", _default("terms", *claims))
    return root / "facts", sources


@pytest.mark.parametrize("command", [["gold", "build"], ["sources", "map"]])
def test_unreadable_source_files_are_printed_and_in_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    facts, sources = _unreadable_corpus(tmp_path)
    markdown = tmp_path / "report.md"
    out = ["--out", str(tmp_path / ("gold.jsonl" if command[0] == "gold" else "map.json"))]
    argv = [*command, "--facts", str(facts), "--sources", str(sources), "--no-cache", *out]
    assert main([*argv, "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    assert [
        line.split(":")[1].strip() for line in printed.splitlines() if line.startswith("unreadable:")
    ] == [
        "empty.pdf",
        "truncated.pdf",
    ]
    text = markdown.read_text(encoding="utf-8")
    assert "## Source files that could not be read" in text
    assert "| **total** |" in text  # bold, not escaped into literal asterisks
    assert "\\*\\*total" not in text


def test_reading_broken_pdfs_logs_nothing_the_problems_do_not_say(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, folder = _unreadable_corpus(tmp_path)
    with caplog.at_level(logging.WARNING):
        sources = load_sources(folder, cache_dir=None)
    assert [path for path, _ in sources.problems] == ["empty.pdf", "truncated.pdf"]
    assert [record.getMessage() for record in caplog.records if record.name.startswith("pypdf")] == []


# --- consistency checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([45, 60], "none of the values [45, 60] is stated in its quote"),
        ([30, 60], "[60] of the value [30, 60] are not stated in its quote"),
        (45, "the value 45 is not stated in its quote"),
    ],
)
def test_value_not_in_quote_says_what_is_missing_without_a_double_negative(
    tmp_path: Path, value: Any, message: str
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "terms.txt").write_text("The notice period is 30 days.", encoding="utf-8")
    claim = {
        "field": "notice_period_days",
        "value": value,
        "source": {"path": "terms.txt", "quote": "is 30 days"},
    }
    _facts(tmp_path / "facts", "terms.json", _default("terms", claim))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    (verdict,) = verification.verdicts
    assert [(check.code, check.message) for check in verdict.warnings] == [("value_not_in_quote", message)]


# --- a field written twice ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("second", "files", "reason"),
    [
        (30, 1, "the same question twice (first from a.json: claims[0], with the same answer)"),
        (
            45,
            1,
            "the same question twice, with another answer: '45 days' here, '30 days' from a.json: claims[0]; "
            "the facts contradict each other",
        ),
        (30, 2, "the same question twice (first from a.json: claims[0], with the same answer)"),
    ],
)
def test_a_field_written_twice_for_one_document_says_whether_the_claims_agree(
    tmp_path: Path, second: int, files: int, reason: str
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "terms.txt").write_text("The notice period is 30 days.", encoding="utf-8")
    first, again = _notice("terms.txt", 30), _notice("terms.txt", 30) | {"value": second}
    if files == 1:
        _facts(tmp_path / "facts", "a.json", _default("terms", first, again))
    else:  # two facts files about the same document
        _facts(tmp_path / "facts", "a.json", _default("terms", first))
        _facts(tmp_path / "facts", "b.json", _default("terms", again))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    build = build_gold(verification, None)
    assert [item["expected_answer"] for item in build.items] == ["30 days"]
    assert [skip.reason for skip in build.skipped] == [reason]


def test_a_second_facts_file_about_one_document_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "terms.txt").write_text("The notice period is 30 days.", encoding="utf-8")
    _facts(tmp_path / "facts", "a.json", _default("terms", _notice("terms.txt", 30)))
    _facts(tmp_path / "facts", "b.json", _default("terms", _notice("terms.txt", 30)))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    (flag,) = verification.flags
    assert (flag.facts_file, flag.code, flag.documents) == ("b.json", "duplicate_document", ("terms",))
    assert "a.json is about 'terms' too" in flag.message
    assert [v.status for v in verification.verdicts] == ["found", "found"]  # both files' claims verified


# --- template files ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("yes", "no"), [("Yes", "Yes"), ("Covered", "covered "), (None, "yes")])
def test_a_bool_template_whose_yes_and_no_are_one_answer_is_an_error(yes: str | None, no: str) -> None:
    field: dict[str, Any] = {"questions": ["Does {title} cover it?"], "answer_type": "bool", "no": no}
    if yes is not None:
        field["yes"] = yes
    with pytest.raises(InputError) as caught:
        parse_templates({"fields": {"cover": field}}, where="t.toml")
    assert caught.value.where == "t.toml: fields.cover"
    assert "yes and no answers" in caught.value.what


# --- own documents by name ---------------------------------------------------------------------------


def test_a_part_belongs_to_the_longest_facts_id_it_is_named_after(tmp_path: Path) -> None:
    folder = tmp_path / "sources" / "acme"
    folder.mkdir(parents=True)
    (folder / "plan__wordings.txt").write_text("Plan A grace period is 15 days.", encoding="utf-8")
    (folder / "plan__2024__wordings.txt").write_text("Plan 2024 grace period is 30 days.", encoding="utf-8")
    claim = {
        "field": "grace_period_days",
        "value": 30,
        "source": {"quote": "Plan 2024 grace period is 30 days."},
    }
    _facts(tmp_path / "facts", "a.json", _default("acme__plan", claim))
    _facts(tmp_path / "facts", "b.json", _default("acme__plan__2024", claim))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    assert verification.own == {
        "a.json": ("acme__plan__wordings",),
        "b.json": ("acme__plan__2024__wordings",),
    }
    assert [verdict.status for verdict in verification.verdicts] == ["other_document", "found"]


def test_facts_files_are_found_by_suffix_in_any_case_and_hidden_files_are_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "facts"
    _facts(folder, "B.JSON", _default("b", {"field": "x", "value": 1}))
    _facts(folder, "a.json", _default("a", {"field": "x", "value": 1}))
    (folder / "._a.json").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")  # a macOS resource fork
    (folder / "notes.txt").write_text("not facts", encoding="utf-8")
    (folder / "old.json").mkdir()  # a folder, whatever its name
    assert [(read.path, read.document) for read in load_facts(folder)] == [("B.JSON", "b"), ("a.json", "a")]


@pytest.mark.parametrize(
    ("documents", "asked", "unasked"),
    [
        (["*"], ["hr__handbook", "hr__policy"], []),
        (["hr__*"], ["hr__handbook", "hr__policy"], []),
        (["hr__policy"], ["hr__policy"], []),
        (["hr__hanbook"], [], ["refusals[0]"]),  # a typo: said, not silently no item
    ],
)
def test_refusals_are_asked_of_the_documents_their_patterns_match(
    tmp_path: Path, documents: list[str], asked: list[str], unasked: list[str]
) -> None:
    (tmp_path / "sources").mkdir()
    for name in ("handbook", "policy"):
        (tmp_path / "sources" / f"hr__{name}.txt").write_text("Leave is 20 days.", encoding="utf-8")
        _facts(tmp_path / "facts", f"{name}.json", _default(f"hr__{name}", _notice(f"hr__{name}.txt", 20)))
    templates = parse_templates(
        {"refusals": [{"question": "Who founded {title}?", "documents": documents}]}, where="t.toml"
    )
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    build = build_gold(verification, templates, refusals=True)
    assert sorted(item["scope"] for item in build.items if item["expected_refusal"]) == asked
    assert [skip.field for skip in build.skipped if skip.field.startswith("refusals")] == unasked


# --- inferred questions ------------------------------------------------------------------------------


def test_fields_that_differ_only_in_their_unit_ask_different_questions_and_lint_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sources").mkdir()
    text = "Probation lasts 6 months. Managers serve a probation of 90 days. Co-payment is 10% or Rs 5,000."
    (tmp_path / "sources" / "hb.txt").write_text(text, encoding="utf-8")
    claims = [
        {"field": field, "value": value, "source": {"path": "hb.txt", "quote": quote}}
        for field, value, quote in [
            ("probation", "6 months", "Probation lasts 6 months."),
            ("probation_months", 6, "Probation lasts 6 months."),
            ("probation_days", 90, "Managers serve a probation of 90 days."),
            ("co_payment_pct", 10, "Co-payment is 10%"),
            ("co_payment_amount", 5000, "Co-payment is 10% or Rs 5,000."),
        ]
    ]
    _facts(tmp_path / "facts", "hb.json", _default("hb", *claims))
    gold = tmp_path / "gold.jsonl"
    inputs = ["--facts", str(tmp_path / "facts"), "--sources", str(tmp_path / "sources"), "--no-cache"]
    assert main(["gold", "build", *inputs, "--out", str(gold)]) == 0
    questions = sorted(json.loads(line)["question"] for line in gold.read_text(encoding="utf-8").splitlines())
    assert questions == [
        "How much is the co payment amount of Hb?",
        "What is the co payment of Hb, as a percentage?",
        "What is the probation of Hb, in days?",
        "What is the probation of Hb, in months?",
        "What is the probation of Hb?",
    ]
    capsys.readouterr()
    assert main(["lint", str(gold), "--sources", str(tmp_path / "sources"), "--no-cache"]) == 0


# --- outputs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "flag", "where", "refused"),
    [
        (["gold", "build"], "--out", "facts/terms.json", True),  # the facts file itself
        (["gold", "build"], "--report", "facts/report.json", True),  # read as facts next time
        (["gold", "build"], "--markdown", "sources/report.md", True),  # read as a document next time
        (["sources", "map"], "--out", "sources/sub/map.txt", True),
        (["sources", "map"], "--markdown", "sources/map.md", True),
        (["gold", "build"], "--report", "sources/report.json", False),  # not a kind of document
        (["gold", "build"], "--report", "facts/sub/report.json", False),  # facts are not read from subfolders
    ],
)
def test_an_output_that_would_be_read_back_as_an_input_is_refused(
    tmp_path: Path, command: list[str], flag: str, where: str, refused: bool
) -> None:
    facts, sources = _unreadable_corpus(tmp_path)
    (sources / "sub").mkdir()
    (facts / "sub").mkdir()
    before = (facts / "terms.json").read_bytes()
    out = [] if flag == "--out" else ["--out", str(tmp_path / "out.jsonl")]
    argv = [*command, "--facts", str(facts), "--sources", str(sources), "--no-cache", *out]
    assert main([*argv, flag, str(tmp_path / where)]) == (2 if refused else 0)
    assert (facts / "terms.json").read_bytes() == before
    if where != "facts/terms.json":
        assert (tmp_path / where).exists() == (not refused)


# --- quotes across a page break with running headers and footers --------------------------------------


def _handbook_with_running_lines(folder: Path) -> Path:
    """Two pages, each with a running header and a "Page n of 2" footer; a sentence crosses the break."""
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=11)
    bodies = (
        ((270, "Intro line."), (277, "All employees must serve a notice period of")),
        ((30, "two months before leaving the company."), (37, "Other text.")),
    )
    for number, lines in enumerate(bodies, 1):
        pdf.add_page()
        pdf.text(20, 12, "Acme Employee Handbook 2024")
        for y, line in lines:
            pdf.text(20, y, line)
        pdf.text(90, 290, f"Page {number} of 2")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "handbook.pdf"
    pdf.output(str(path))
    return path


@pytest.mark.parametrize(
    ("quote", "level", "ends_with"),
    [
        # the curator copied the sentence, not the footer and header between its halves
        (
            "All employees must serve a notice period of two months before leaving the company.",
            "normalised",
            "company.",
        ),
        ("notice period of two months", "normalised", "two months"),
        # ... and a curator who copied them too is still found, at the same level
        (
            "a notice period of Page 1 of 2 Acme Employee Handbook 2024 two months",
            "normalised",
            "two months",
        ),
        ("All employees must serve ... before leaving the company.", "pieces", "company."),
    ],
)
def test_a_quote_across_a_page_break_reads_past_the_running_header_and_footer(
    tmp_path: Path, quote: str, level: str, ends_with: str
) -> None:
    path = _handbook_with_running_lines(tmp_path / "sources")
    (document,) = load_sources(tmp_path / "sources", cache_dir=None).values()
    found = find_quote(quote, document.pages)
    assert found is not None
    assert (found.level, found.page, found.end_page) == (level, 1, 2)
    start, end = found.span
    assert found.text == document.pages[0][start:] + "\n" + document.pages[1][:end]
    assert found.text.endswith(ends_with) and "Page 1 of 2" in found.text
    assert path.name == document.path


@pytest.mark.parametrize(
    ("pages", "bounds"),
    [
        # a header and a footer on every page, the page number's digits aside
        (["Title\nBody one.\nPage 1 of 2", "Title\nBody two.\nPage 2 of 2"], [(6, 15), (6, 15)]),
        # a bare page number is a footer even on one page of two
        (["Body one.\n7", "Body two."], [(0, 9), (0, 9)]),
        # nothing repeats: whole pages
        (["Alpha.\nBeta.", "Gamma.\nDelta."], [(0, 12), (0, 13)]),
        # a page of running lines only is left whole
        (["Title\nPage 1", "Title\nPage 2"], [(0, 12), (0, 12)]),
    ],
)
def test_running_lines_are_the_repeated_page_edges(pages: list[str], bounds: list[tuple[int, int]]) -> None:
    assert running_lines(pages) == bounds


@pytest.mark.parametrize(
    ("quote", "strict", "says"),
    [
        ("The office follows a hybrid model.", False, "under 40 characters is not fuzzy-matched"),
        ("The office follows a hybrid model. " * 16, False, "over 500 characters is not fuzzy-matched"),
        ("The office always follows a fully hybrid work model for all of its staff.", True, "(--strict)"),
    ],
)
def test_a_missing_quote_says_why_no_slip_was_forgiven(
    tmp_path: Path, quote: str, strict: bool, says: str
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "hb.txt").write_text("The office follows a hybrid work model.", encoding="utf-8")
    claim = {"field": "work_model", "value": "hybrid", "source": {"path": "hb.txt", "quote": quote}}
    _facts(tmp_path / "facts", "hb.json", _default("hb", claim))
    options = VerifyOptions(fuzzy=not strict)
    facts, sources = load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    (verdict,) = verify_claims(facts, sources, options=options).verdicts
    assert verdict.status == "missing"
    assert verdict.reason is not None and says in verdict.reason


@pytest.mark.parametrize("document", ["hr__handbook", "hr/handbook.txt", "handbook.txt", "hr/handbook"])
def test_facts_may_name_their_document_by_id_or_as_a_path(tmp_path: Path, document: str) -> None:
    (tmp_path / "sources" / "hr").mkdir(parents=True)
    (tmp_path / "sources" / "hr" / "handbook.txt").write_text("Leave is 20 days per year.", encoding="utf-8")
    claim = {"field": "leave_days", "value": 20, "source": {"quote": "Leave is 20 days per year."}}
    _facts(tmp_path / "facts", "hb.json", _default(document, claim))
    verification = verify_claims(
        load_facts(tmp_path / "facts"), load_sources(tmp_path / "sources", cache_dir=None)
    )
    assert verification.own == {"hb.json": ("hr__handbook",)}
    assert ([verdict.status for verdict in verification.verdicts], verification.flags) == (["found"], ())


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "t.toml",
            '[fields.leave_days]\nquestions = ["Leave in {title}?"]\nanswer_type = "number_unit"\n',
        ),
        (
            "t.yaml",
            'fields:\n  leave_days:\n    questions: ["Leave in {title}?"]\n    answer_type: number_unit\n',
        ),
    ],
)
def test_a_template_file_with_a_byte_order_mark_is_read(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert list(load_templates(path).fields) == ["leave_days"]
