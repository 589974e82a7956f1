"""The traces' fast paths give what the general paths give, on the inputs where they could part.

Traces are built a batch of rows at a time (``assay.trace.traces_json``), with shortcuts: the seed
protocols explain a batch at once (``Scorer.explain_rows``), a lowercased response as long as the
original keeps its offsets (no aligning), word_overlap's pass needs no search of the response, and
each row's JSON is put together from its pieces. Each is held here to the path
it replaces: aligning code point by code point, the response's whole word set, json.dumps of each
Trace's dict, on Turkish İ, German ß and ẞ, the Greek final sigma, combining marks, Indic scripts, NFC
on and off, and texts long enough to be cut at 2,000 characters and aligned a chunk at a time.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from assay import ScoreOptions, score
from assay import trace as trace_module
from assay.evidence import TEXT_SHOWN
from assay.report.rows import row_traces, write_traces
from assay.scorers import SCORERS, Seen
from assay.scorers._base import EMPTY_GOLDEN, Alignment, Span
from assay.scorers.seed import EXACT_SUBSTRING, WORD_OVERLAP
from assay.text.seed import seed_words
from assay.trace import traces, traces_json

PIECES = [
    "İstanbul", "ISTANBUL", "İi", "ı", "I", "straße", "STRASSE", "ẞ", "Σίσυφος", "ΟΔΟΣ", "ΟΔΟΣ.", "ς",
    "e\u0301cole", "école", "a\u0323\u0302", "ệ", "nai\u0308ve", "naïve", "किताब", "क़िताब", "कि",
    "হিমালয়", "ক্ষ", "தமிழ்", "മലയാളം", "ണ്\u200d", "ﬁnance", "Ǆ", "ǅ", "Ⅻ", "K", "Å", "Å", "soft\u00adhyphen",
    "hello,", "(world)", "«quoted»", "the", "THE", "1,000", "x",
]  # fmt: skip


def tricky_rows(count: int, seed: int = 3) -> list[dict[str, object]]:
    """Rows of tricky words, their golden answers taken from the response (so many pass) or not,
    some upper-cased, some responses long (cut when shown; several alignment chunks) or blank."""
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        words = [rng.choice(PIECES) for _ in range(rng.randint(1, 12))]
        if n % 17 == 0:  # past TEXT_SHOWN, and past one chunk of aligning (align.CHUNK)
            words = [rng.choice(PIECES) for _ in range(rng.choice([400, 6000]))] + words
        at = rng.randrange(len(words))
        taken = " ".join(words[at : at + rng.randint(1, 3)])
        answers = [taken if rng.random() < 0.7 else rng.choice(PIECES) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.3:
            answers = [answer.upper() for answer in answers]
        response = " ".join(words) if n % 23 else " \t"
        rows.append({"id": f"r{n}", "question": f"q{n}?", "answers": answers, "response": response})
    return rows


@pytest.fixture(scope="module")
def tricky_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tricky") / "tricky.jsonl"
    lines = (json.dumps(row, ensure_ascii=False) for row in tricky_rows(240))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _explain_overlap_general(seen: Seen) -> tuple[str, Span | None]:
    """word_overlap's rule from the response's whole word set, for every outcome (the path the
    shortcut replaces)."""
    words = sorted(seed_words(seen.golden or ""))
    if not words:
        return EMPTY_GOLDEN, None
    response_words = seed_words(seen.response)
    missing = [word for word in words if word not in response_words]
    counted = f"{len(words) - len(missing)} of {len(words)} golden words occur among the response's words"
    if not missing:
        return f"{counted} (order and words in between are free)", None
    return f"{counted}; missing: {', '.join(missing)}", None


GENERAL = {  # the seed protocols without their shortcuts: a row at a time, aligned, every word searched
    "exact_substring": dataclasses.replace(
        EXACT_SUBSTRING, alignment=Alignment(str.lower, collapse=False, by_code_point=True), explain_rows=None
    ),
    "word_overlap": dataclasses.replace(WORD_OVERLAP, explain=_explain_overlap_general, explain_rows=None),
}
METRICS = ["exact_substring", "word_overlap", "phrase_match", "token_f1", "squad_f1"]


def _general_json(run: object, rows: int) -> list[str]:
    """Each row's traces as json.dumps writes each Trace's dict (the per-row path)."""
    return [
        json.dumps({name: found.as_dict() for name, found in traces(run, index).items()}, ensure_ascii=False)  # type: ignore[arg-type]
        for index in range(rows)
    ]


@pytest.mark.parametrize("nfc", [False, True], ids=["nfc-off", "nfc-on"])
def test_batched_traces_equal_the_general_paths_on_tricky_text(
    tricky_file: Path, monkeypatch: pytest.MonkeyPatch, nfc: bool
) -> None:
    run = score(tricky_file, METRICS, options=ScoreOptions(nfc=nfc))
    rows = len(run.records)
    fast = traces_json(run, 0, rows)
    assert fast == _general_json(run, rows)  # the JSON pieces are json.dumps's
    monkeypatch.setattr(trace_module, "SCORERS", {**SCORERS, **GENERAL})
    assert fast == _general_json(run, rows)  # the shortcuts are the general paths' answers
    found = [json.loads(line) for line in fast]
    spans = [t["exact_substring"]["span"] for t in found if t["exact_substring"]["outcome"] == "pass"]
    assert sum(span is not None for span in spans) > 50  # the shortcut was taken, and aligning too
    assert any(len(t["word_overlap"]["response"]) > TEXT_SHOWN for t in found)  # long texts cut


def test_the_lowercase_shortcut_keeps_offsets_only_where_aligning_agrees() -> None:
    alignment = EXACT_SUBSTRING.alignment
    assert alignment is not None and alignment.same_offsets is not None
    for text in ("İstanbul", "ΟΔΟΣ", "Σίσυφος", "ΣΑΣ"):  # longer lowercased; a sigma
        assert not alignment.same_offsets(text, text.lower())
    for text in ("STRAẞE", "e\u0301cole", "ǅ Å K", "किताब"):
        assert alignment.same_offsets(text, text.lower())


def test_traces_read_in_order_or_not_are_the_same(tricky_file: Path, tmp_path: Path) -> None:
    run = score(tricky_file, ["exact_substring", "word_overlap"])
    rows = len(run.records)
    here_and_there = [row_traces(run).json(index, keep=False) for index in (5, 0, 7, 6, 100, 3)]
    assert here_and_there == [traces_json(run, index, index + 1)[0] for index in (5, 0, 7, 6, 100, 3)]
    written = write_traces(run, tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    expected = [
        json.dumps({"id": r.id, "traces": json.loads(t)}, ensure_ascii=False)
        for r, t in zip(run.records, traces_json(run, 0, rows))
    ]
    assert written == expected


def test_evidence_scored_with_the_verdicts_gives_the_same_traces(tricky_file: Path) -> None:
    later = score(tricky_file, METRICS)
    together = score(tricky_file, METRICS, evidence=True)
    assert all(scores.evidence is not None for scores in together.metrics.values())
    rows = len(later.records)
    assert traces_json(together, 0, rows) == traces_json(later, 0, rows)
