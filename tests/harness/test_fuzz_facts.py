"""Fuzzing facts files: whatever a facts file holds, reading it, verifying its claims and building a gold
set from them either works or is an ``InputError`` (exit 2), never another exception, and no example
takes a second.

Facts are drawn in both built-in layouts (assay's ``document``/``claims`` and the flat ``policy_id``
one) with random content: keys right or wrong, values of every JSON type (huge numbers written as
digits, floats, nested lists and objects, unicode, lone surrogates, braces), units, quotes (found, near,
absent, with "…" pieces, curator notes, sentinels, long ones), confidences, sources; now and then
nested past the parser's depth, and damaged bytes. A file that reads is verified against a small text
corpus and built into a gold set, with inferred templates and with a templates file, and its report is
written as JSON and Markdown.

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 200 locally. The seed is printed at
the start; ``ASSAY_FUZZ_SEED=N`` replays a run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzzing import SEED, Huge, examples, fuzz_settings, one_example
from hypothesis import given, seed
from hypothesis import strategies as st

from assay.documents import Sources, load_sources
from assay.errors import AssayError, InputError
from assay.harness.claims import verify_claims
from assay.harness.facts import read_facts_file
from assay.harness.gold import build_gold, gold_jsonl, gold_report, report_markdown
from assay.harness.templates import Templates, parse_templates

EXAMPLES = examples()
FUZZ = fuzz_settings(EXAMPLES)
PAGE = (
    "Acme Plan policy wording. The grace period is 30 days from the due date. AYUSH treatment is covered "
    "up to Rs 25,000. A co-payment of 20% applies. The free look period is fifteen (15) days."
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-facts")


@pytest.fixture(scope="module")
def sources(folder: Path) -> Sources:
    (folder / "sources" / "acme").mkdir(parents=True)
    (folder / "sources" / "acme" / "plan.txt").write_text(PAGE + "\f" + PAGE.upper(), encoding="utf-8")
    (folder / "sources" / "acme" / "other.txt").write_text(
        "Other wording. The grace period is 15 days.", "utf-8"
    )
    return load_sources(folder / "sources", cache_dir=None)


TEMPLATES = parse_templates(
    {
        "fields": {
            "grace_period": {"questions": ["Grace period of {title}?"], "answer_type": "number_unit"},
            "ayush": {"questions": ["AYUSH in {document}?"], "answer_type": "bool", "yes": "Covered"},
            "co_payment": {"questions": ["Co-pay of {title}?"], "answer_type": "percent"},
            "limit": {"questions": ["Limit of {title}?"], "answer_type": "money"},
            "region": {"questions": ["Region of {title}?"], "answer_type": "enum", "labels": {"x": "X"}},
            "note": {"questions": ["Note of {title}?"], "answer_type": "text"},
            "start": {"questions": ["Start of {title}?"], "answer_type": "date"},
        },
        "refusals": [{"question": "Ratio of {title}?"}],
    },
    where="fuzz.toml",
)

# --- drawing facts ----------------------------------------------------------------------------------------


def mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The usual three times in four: most files must read, so that verifying and building are fuzzed.
    (``st.one_of(usual, usual, usual, odd)`` would not do: one_of draws each distinct strategy alike.)"""
    return st.integers(0, 3).flatmap(lambda pick: odd if pick == 3 else usual)  # 0 is the simplest: usual


AWKWARD = ["\u202e", "\ufeff", "\x00", "😀", "न", "ि", "्", "\xad", "\u200b", "…", "...",
           "{", "}", "{title:>9}", "%", "₹", "Rs.", "\n", "\t", '"', "\\", "(p. 3)", " "]  # fmt: skip
pieces = st.sampled_from(AWKWARD + list("ab1 ")) | st.characters()
words = st.lists(pieces, max_size=6).map("".join)
QUOTES = [
    "The grace period is 30 days", "grace period is 30 days from the due date", "AYUSH treatment is covered",
    "AYUSH … covered up to Rs 25,000", "A co-payment of 20% applies (wordings p. 3)", "not stated in a.pdf",
    "see source_url", "N/A", "The grace period is 15 days", "THE FREE LOOK PERIOD IS FIFTEEN (15) DAYS",
    "The grace period is 31 days from the due date.", "fifteen … days … due", "…", "… … …", "", " ",
]  # fmt: skip
long_texts = st.sampled_from([1_000, 10_001, 100_001]).map(lambda n: ("30 days … " * n)[:n])
quotes = mostly(
    st.sampled_from(QUOTES),
    words | st.lists(st.sampled_from(QUOTES), max_size=3).map(" … ".join) | long_texts,
)
UNITS = ["days", "day", "months", "years", "%", "INR", "USD", "lakh", "crore", "enum", "boolean",
         "business days", "Rs", "", "per cent", "count", "sq ft"]  # fmt: skip
units = mostly(st.sampled_from(UNITS), words | st.sampled_from([None, 7, True, ["days"]]))
FIELDS = ["grace_period", "ayush", "co_payment", "limit", "region", "note", "start", "grace_period_days",
          "co_payment_pct", "sum_insured_amount", "x"]  # fmt: skip
fields = mostly(st.sampled_from(FIELDS), words | st.sampled_from(["", "_meta", "value", "policy_id"]))


scalars = (
    words
    | st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        ["30 days", "₹2.5 lakh", "20%", "Yes", "15 August 1947", "thirty", "1e308", "-3", "5,00,000"]
    )
)
wild = scalars | st.lists(scalars, max_size=4) | st.dictionaries(words, scalars, max_size=2)
USUAL = [30, 15, 20, 25000, 2.5, True, False, None, "30 days", "fifteen days", "20%", "Rs 25,000",
         "pan_india", "Yes", "2024-01-01", [30, 60], ["a", "b"], "covered"]  # fmt: skip
values = mostly(st.sampled_from(USUAL), wild)
confidences = mostly(
    st.sampled_from(["low", "medium", "high", "HIGH", 0.5, None]), st.sampled_from(["sure", 2, -1]) | wild
)
odd_paths = st.sampled_from(["missing.pdf", "../etc/passwd", "/abs", "acme", "", "PLAN.TXT"]) | words
paths = mostly(st.sampled_from(["acme/plan.txt", "plan.txt", "acme/other.txt"]), odd_paths)


def source_of(quote: Any, path: Any, url: Any) -> dict[str, Any]:
    source = {"quote": quote, "path": path, "url": url}  # None: not written
    return {key: value for key, value in source.items() if value is not None}


sources_ = st.builds(
    source_of, mostly(quotes, wild), mostly(st.none() | paths, wild), st.none() | st.just("https://x")
)
default_claims = st.fixed_dictionaries(
    {"field": mostly(fields, wild), "value": values, "source": mostly(sources_, wild)},
    optional={"unit": units, "confidence": confidences, "extra": wild},
)  # fmt: skip
flat_fields = st.fixed_dictionaries(
    {"value": values, "source_quote": mostly(quotes, wild)},
    optional={"unit": units, "source_pdf_path": paths, "source_url": mostly(st.just("https://x.test"), wild),
              "source_note": words, "_confidence": confidences, "extraction_method": wild},
)  # fmt: skip


documents = mostly(
    st.sampled_from(["acme__plan", "acme", "acme__plan"]), st.sampled_from(["other", ""]) | wild
)


@st.composite
def facts_data(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        data: dict[str, Any] = {"document": draw(documents)}
        if draw(st.booleans()):
            data["title"] = draw(mostly(words, wild))
        if draw(st.booleans()):
            data["sources"] = draw(mostly(st.lists(paths, max_size=2), wild))
        data["claims"] = draw(mostly(st.lists(mostly(default_claims, wild), max_size=4), wild))
        return data
    data = {"policy_id": draw(documents), "policy_name": draw(mostly(words, wild))}
    if draw(st.booleans()):
        data["_meta"] = draw(mostly(st.fixed_dictionaries({}, optional={"primary_source_pdf": paths}), wild))
    for name in draw(st.lists(fields, max_size=4, unique=True)):
        data[name] = draw(mostly(flat_fields, wild))
    return data


# Now and then one value no JSON reader of assay's holds: past int()'s digits, or a lone surrogate (the
# file's bytes are then not UTF-8). Drawn once per file, or nearly every file would be refused for it.
spices = st.sampled_from([None] * 12 + [Huge(), "\ud800", "\udfff x"])


def spiced(data: Any, spice: Any) -> Any:
    if spice is None or not isinstance(data, dict):
        return data
    return {**data, "title" if isinstance(spice, str) else "policy_name": spice}


def json_text(value: Any, depth: int) -> str:
    written = json.dumps(value, ensure_ascii=False, default=lambda _: Huge.MARK)
    return "[" * depth + written.replace(f'"{Huge.MARK}"', Huge.DIGITS) + "]" * depth


nesting = st.sampled_from([0] * 20 + [2, 3_000])
edits = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 3), st.binary(max_size=3)), max_size=2)


def damaged(data: bytes, damage: list[tuple[int, int, bytes]]) -> bytes:
    buffer = bytearray(data)
    for place, remove, insert in damage:
        at = place % (len(buffer) + 1)
        buffer[at : at + remove] = insert
    return bytes(buffer)


# --- the property -----------------------------------------------------------------------------------------


def builds(path: Path, sources: Sources, templates: Templates | None) -> None:
    """Read, verify, build and report, as ``gold build`` does."""
    facts = read_facts_file(path, name=path.name)
    verification = verify_claims([facts], sources, templates=templates)
    build = build_gold(verification, templates, refusals=templates is not None)
    gold_jsonl(build)
    json.dumps(gold_report(build), ensure_ascii=False)
    report_markdown(gold_report(build))


@seed(SEED)
@FUZZ
@given(
    data=facts_data(),
    depth=nesting,
    damage=st.sampled_from([[]] * 8) | edits,
    with_templates=st.booleans(),
    spice=spices,
)
def test_a_facts_file_reads_verifies_and_builds_or_is_refused(
    folder: Path,
    sources: Sources,
    data: Any,
    depth: int,
    damage: list[tuple[int, int, bytes]],
    with_templates: bool,
    spice: Any,
) -> None:
    path = folder / "acme.json"
    text = json_text(spiced(data, spice), depth)
    path.write_bytes(damaged(text.encode("utf-8", "surrogatepass"), damage))
    with one_example():
        try:
            builds(path, sources, TEMPLATES if with_templates else None)
        except InputError as exc:
            assert exc.where and exc.fix
            assert len(exc.message) < 2_000 + len(str(path))
        except AssayError as exc:  # another kind of exit 2 (an ambiguous source reference): fine, but say it
            assert exc.fix
