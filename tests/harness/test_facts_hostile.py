"""Facts files under hostile input: every text bounded as it is read, every claim verified in linear time.

Issue 22: a 100 KB unit aborted the whole build with an error naming no file or claim; one claim with a
1 MB "…"-pieces quote took 7-8 s; a text value of 200,000 numbers 9 s. Now a text over its bound refuses
the file with its line, claim and limit (as a text of the wrong type does); a claim whose value makes no
safe pattern is skipped with the reason, naming its file and claim, and the other claims keep their
items; a 1 MB quote is verified in about a second of CPU, and the time grows linearly. Costs are in
budget.py's reference units (SECOND is about a second of CPU on an idle machine), never seconds: the
defects were 7-9 s, a loaded machine stretches the reference alike.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from budget import LOADED, SECOND, assert_linear, assert_within, check_units

from assay.cli import main
from assay.documents import Sources, load_sources
from assay.errors import InputError
from assay.harness.claims import verify_claims
from assay.harness.facts import MAX_FACTS_BYTES, MAX_TEXT_CHARS, MAX_VALUE_ITEMS, FactsFile, read_facts_file
from assay.harness.gold import build_gold

PAGE = "Acme Plan. The grace period is 30 days. Ambulance charges are covered up to Rs 2,000."
GRACE = {
    "field": "grace_period",
    "value": 30,
    "unit": "days",
    "source": {"path": "acme.txt", "quote": "The grace period is 30 days"},
}
AMBULANCE = {
    "field": "ambulance_cover",
    "value": 2000,
    "unit": "INR",
    "source": {"path": "acme.txt", "quote": "Ambulance charges are covered up to Rs 2,000"},
}


@pytest.fixture()
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    facts, sources = tmp_path / "facts", tmp_path / "sources"
    facts.mkdir(), sources.mkdir()
    (sources / "acme.txt").write_text(PAGE, encoding="utf-8")
    return facts, sources


def _write(facts: Path, claims: list[dict[str, Any]], **top: Any) -> Path:
    path = facts / "acme.json"
    path.write_text(json.dumps({"document": "acme", **top, "claims": claims}, indent=1), encoding="utf-8")
    return path


def _claim(**changes: Any) -> dict[str, Any]:
    claim = json.loads(json.dumps(AMBULANCE))
    for key, value in changes.items():
        if key in ("quote", "path", "note", "url"):
            claim["source"][key] = value
        else:
            claim[key] = value
    return claim


# --- texts bounded as read ------------------------------------------------------------------------------

OVER = {
    "unit": _claim(unit="d" * 100_000),  # the issue's 100 KB unit
    "field": _claim(field="f" * (MAX_TEXT_CHARS["field"] + 1)),
    "source.quote": _claim(quote="q " * MAX_TEXT_CHARS["quote"]),
    "source.note": _claim(note="n" * (MAX_TEXT_CHARS["note"] + 1)),
    "source.path": _claim(path="p/" * MAX_TEXT_CHARS["path"]),
    "source.url": _claim(url="https://example.com/" + "u" * MAX_TEXT_CHARS["url"]),
    "value": _claim(value="v" * (MAX_TEXT_CHARS["value"] + 1)),
}


@pytest.mark.parametrize("key", sorted(OVER))
def test_a_text_over_its_bound_refuses_the_file_naming_line_claim_and_limit(
    corpus: tuple[Path, Path], key: str
) -> None:
    path = _write(corpus[0], [GRACE, OVER[key]])
    raised: list[InputError] = []

    def read() -> None:
        with pytest.raises(InputError) as refused:
            read_facts_file(path)
        raised.append(refused.value)

    assert_within(read, SECOND, "reading the file")
    error = raised[0]
    assert error.where.startswith(f"{path}:") and error.where.endswith(": claims[1]")
    assert "over the limit" in error.what and f"'{key}'" in error.what
    assert len(error.message) < 1_000  # the text is shown cut


@pytest.mark.parametrize(
    ("top", "words"),
    [
        ({"title": "t" * 1_001}, "'title' is 1,001 characters"),
        ({"document": "d" * 501}, "'document' is 501 characters"),
        ({"sources": ["s" * 20_000]}, "'sources' is 20,000 characters"),
    ],
)
def test_the_files_own_texts_are_bounded(corpus: tuple[Path, Path], top: dict[str, Any], words: str) -> None:
    path = corpus[0] / "acme.json"
    path.write_text(json.dumps({"document": "acme", "claims": [], **top}), encoding="utf-8")
    with pytest.raises(InputError, match=words):
        read_facts_file(path)


def test_a_flat_field_name_and_list_value_are_bounded(corpus: tuple[Path, Path]) -> None:
    path = corpus[0] / "flat.json"
    path.write_text(json.dumps({"policy_id": "acme", "f" * 300: {"value": 1}}), encoding="utf-8")
    with pytest.raises(InputError, match="'field' is 300 characters"):
        read_facts_file(path)
    _write(corpus[0], [_claim(value=list(range(MAX_VALUE_ITEMS + 1)))])
    with pytest.raises(InputError, match=f"list of {MAX_VALUE_ITEMS + 1:,} items"):
        read_facts_file(corpus[0] / "acme.json")


def test_a_facts_file_over_the_size_limit_is_refused_unread(corpus: tuple[Path, Path]) -> None:
    path = corpus[0] / "acme.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FACTS_BYTES + 1)  # sparse: no 16 MB written
    with pytest.raises(InputError, match="over the limit"):
        read_facts_file(path)


def test_the_command_names_the_file_line_and_claim_of_a_100_kb_unit(
    corpus: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = corpus
    _write(facts, [GRACE, _claim(unit="d" * 100_000)])
    out = tmp_path / "gold.jsonl"
    assert main(["gold", "build", "--facts", str(facts), "--sources", str(sources), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "acme.json:" in err and "claims[1]" in err and "'unit' is 100,000 characters" in err
    assert len(err) < 1_000 and not out.exists()


# --- a claim that makes no safe pattern is skipped, the others kept ---------------------------------------


def _verified(corpus: tuple[Path, Path], *claims: dict[str, Any]) -> tuple[FactsFile, Sources]:
    facts = read_facts_file(_write(corpus[0], list(claims)))
    return facts, load_sources(corpus[1], cache_dir=None)


def test_a_claim_whose_pattern_is_too_large_is_skipped_naming_file_and_claim(
    corpus: tuple[Path, Path],
) -> None:
    facts, sources = _verified(corpus, GRACE, AMBULANCE)
    # A unit past what a pattern can hold (built in Python: the reader refuses it in a file).
    huge = dataclasses.replace(facts.claims[0], unit="d" * 100_000)
    facts = dataclasses.replace(facts, claims=(huge, facts.claims[1]))
    build = build_gold(verify_claims([facts], sources), None)
    assert [item["field"] for item in build.items] == ["ambulance_cover"]
    (skip,) = build.skipped
    assert skip.field == "grace_period" and skip.reason.startswith(f"{facts.path}: claims[0]: no safe")
    assert len(skip.reason) < 1_000


# --- a long quote, a long value: linear, and a 1 MB quote under a second ------------------------------------


QUOTES: dict[str, Callable[[int], str]] = {
    "pieces": lambda size: ("The grace period … " * (size // 19 + 1))[:size],  # the issue's case
    "short pieces": lambda size: ("ab … " * (size // 5 + 1))[:size],
    "prose": lambda size: ("The grace period is 30 days. " * (size // 29 + 1))[:size],
    "numbers": lambda size: " ".join(map(str, range(size)))[:size],
    "articles": lambda size: ("(a " * size)[:size],
    "devanagari": lambda size: ("अनुग्रह अवधि 30 दिन … " * size)[:size],
}


def _verify_quote(facts: FactsFile, sources: Sources, kind: str, size: int) -> Callable[[], object]:
    """The verification of a quote of `kind` and about `size` characters: another quote each call (the
    three made before, one character apart), so that no cache of the last one answers the next."""
    claims = [dataclasses.replace(facts.claims[0], quote=QUOTES[kind](size + n)) for n in range(3)]
    singles = itertools.cycle([dataclasses.replace(facts, claims=(claim,)) for claim in claims])
    return lambda: verify_claims([next(singles)], sources)


@pytest.mark.parametrize("kind", sorted(QUOTES))
def test_a_1_mb_quote_is_verified_in_about_a_second_in_linear_time(
    corpus: tuple[Path, Path], kind: str
) -> None:
    facts, sources = _verified(corpus, GRACE)
    _verify_quote(facts, sources, kind, 100)()  # warm up the caches
    # A quarter of a megabyte, then 1 MB: about 4x the time, never its square; and the megabyte within
    # twice the second it takes on an idle machine (the defect was 7-8 s).
    megabyte = assert_linear(lambda size: _verify_quote(facts, sources, kind, size), 250_000)
    check_units(megabyte, LOADED * SECOND, "a 1 MB quote")


@pytest.mark.parametrize("count", [50_000, 200_000])
def test_a_text_value_of_many_numbers_is_checked_quickly(corpus: tuple[Path, Path], count: int) -> None:
    facts, sources = _verified(corpus, GRACE)
    # Built in Python past the reader's bound on a value's text: the check itself must stay bounded.
    numbers = " ".join(str(number) for number in range(count))
    claim = dataclasses.replace(facts.claims[0], value=numbers)
    single = dataclasses.replace(facts, claims=(claim,))
    verification: list[Any] = []
    # About a tenth of a second (2-3 units; the defect: 9 s, and 2.4 s at 50,000 numbers with the value
    # check's bounds taken out).
    checked = lambda: verification.append(verify_claims([single], sources))  # noqa: E731
    assert_within(checked, SECOND, f"{count:,} numbers")
    (warning,) = verification[0].verdicts[0].warnings
    assert warning.code == "value_not_in_quote" and len(warning.message) < 1_000


def test_a_list_value_of_many_options_is_checked_quickly(corpus: tuple[Path, Path]) -> None:
    facts, sources = _verified(corpus, GRACE)
    claim = dataclasses.replace(
        facts.claims[0], value=list(range(MAX_VALUE_ITEMS)), quote="The grace period is 30 days " * 300
    )
    single = dataclasses.replace(facts, claims=(claim,))
    # About a second on an idle machine: each option is checked against the quote (both bounded).
    assert_within(lambda: verify_claims([single], sources), LOADED * SECOND, f"{MAX_VALUE_ITEMS:,} options")
