"""squad_em/squad_f1 and mlqa_em/mlqa_f1 give the official SQuAD v1.1 and MLQA scripts' numbers.

On XQuAD (English, Hindi, Chinese; ../shared/data/xquad) with predictions made by perturbing the gold
answers, every row's EM and F1 equal those of the official scripts' procedure, restated below from their
published definitions (evaluate-v1.1.py; mlqa_evaluation_v1.py), and the dataset-level numbers are
pinned.
"""

from __future__ import annotations

import json
import os
import re
import string
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from assay import Outcome, score, summary_dict

XQUAD = Path(__file__).resolve().parents[3] / "shared" / "data" / "xquad"


# --- the official procedures, restated --------------------------------------------------------------------


def official_squad_normalise(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


MLQA_PUNCT = {chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")} | set(
    string.punctuation
)


def official_mlqa_normalise(text: str, lang: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in MLQA_PUNCT)
    if lang == "en":
        text = re.sub(r"\b(a|an|the)\b", " ", text)
    if lang == "zh":
        tokens, run = [], ""
        for char in text:
            if re.search(r"[\u4e00-\u9fa5]", char) or char in MLQA_PUNCT:
                tokens += run.split()
                run = ""
                tokens.append(char)
            else:
                run += char
        tokens += run.split()
    else:
        tokens = text.split()
    return " ".join(t for t in tokens if t.strip() != "")


def official_f1(prediction: str, gold: str) -> float:
    predicted, golden = prediction.split(), gold.split()
    same = sum((Counter(predicted) & Counter(golden)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(golden)
    return 2 * precision * recall / (precision + recall)


# --- data --------------------------------------------------------------------------------------------------


def xquad(lang: str) -> pd.DataFrame:
    path = XQUAD / f"xquad.{lang}.json"
    if not path.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{path} is missing, and CI must have ../shared")
        pytest.skip(f"{path} is absent (a clone without ../shared)")
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    rows = [
        (qa["id"], qa["question"], qa["answers"][0]["text"])
        for article in data
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    frame = pd.DataFrame(rows, columns=["id", "question", "answer"])
    frame["response"] = [perturb(i, gold, rows) for i, (_, _, gold) in enumerate(rows)]
    frame["lang"] = lang
    return frame


def perturb(index: int, gold: str, rows: list[tuple[str, str, str]]) -> str:
    """A prediction derived from the gold answer: right, padded, cut, shouted, or another question's."""
    kind = index % 5
    if kind == 0:
        return gold
    if kind == 1:
        return f"The answer is {gold}."
    if kind == 2:
        words = gold.split()
        return " ".join(words[1:]) if len(words) > 1 else f"{gold} also"
    if kind == 3:
        return gold.upper() + "!"
    return rows[(index + 7) % len(rows)][2]


# Dataset EM and F1 (x100, as the scripts print them), computed once and pinned.
PINNED = {
    ("squad", "en"): (41.344538, 68.293394),
    ("mlqa", "en"): (41.344538, 68.290726),
    ("mlqa", "hi"): (40.0, 66.846181),
    ("mlqa", "zh"): (40.0, 71.723892),
}


@pytest.mark.parametrize(("family", "lang"), list(PINNED))
def test_numbers_equal_the_official_scripts(family: str, lang: str) -> None:
    frame = xquad(lang)
    run = score(frame, [f"{family}_em", f"{family}_f1"])
    if family == "squad":
        normalised = [
            (official_squad_normalise(r), official_squad_normalise(a))
            for r, a in zip(frame.response, frame.answer)
        ]
    else:
        normalised = [
            (official_mlqa_normalise(r, lang), official_mlqa_normalise(a, lang))
            for r, a in zip(frame.response, frame.answer)
        ]
    official_em = [float(prediction == gold) for prediction, gold in normalised]
    official_f1s = [official_f1(prediction, gold) for prediction, gold in normalised]
    em, f1 = run.metrics[f"{family}_em"], run.metrics[f"{family}_f1"]
    assert [float(em.outcome(i) is Outcome.PASS) for i in range(len(frame))] == official_em
    assert f1.values is not None
    assert max(abs(a - b) for a, b in zip(f1.values, official_f1s)) < 1e-9
    metrics = summary_dict(run.summary)["metrics"]
    dataset_em = 100 * metrics[f"{family}_em"]["combined"]["accuracy"]
    dataset_f1 = 100 * metrics[f"{family}_f1"]["combined"]["mean"]
    assert abs(dataset_em - 100 * sum(official_em) / len(frame)) < 1e-9
    assert abs(dataset_f1 - 100 * sum(official_f1s) / len(frame)) < 1e-9
    assert (round(dataset_em, 6), round(dataset_f1, 6)) == PINNED[family, lang]


def test_mlqa_leaves_a_language_it_has_no_rules_for_unscored() -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": ["Delhi"], "response": ["Delhi"], "lang": ["ta"]})
    scores = score(frame, ["mlqa_em"]).metrics["mlqa_em"]
    assert scores.outcome(0) is Outcome.UNSCORED
    assert "en, es, hi, vi, de, ar, zh" in scores.reasons[0]


@pytest.mark.parametrize(
    ("golden", "response", "em", "f1"),
    [
        ("the Eiffel Tower", "Eiffel Tower!", True, 1.0),  # articles and punctuation go
        ("Eiffel Tower", "the tower of Eiffel", False, 2 * (2 / 3) * 1 / (2 / 3 + 1)),
        ("Denver Broncos", "Broncos", False, 2 * 1 * 0.5 / 1.5),
    ],
)
def test_squad_cases(golden: str, response: str, em: bool, f1: float) -> None:
    frame = pd.DataFrame({"question": ["q"], "answer": [golden], "response": [response]})
    run = score(frame, ["squad_em", "squad_f1"])
    assert (run.metrics["squad_em"].outcome(0) is Outcome.PASS) is em
    values = run.metrics["squad_f1"].values
    assert values is not None and values[0] == pytest.approx(f1, abs=1e-12)
