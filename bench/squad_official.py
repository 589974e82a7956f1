"""The official SQuAD v1.1 and MLQA evaluation scripts, restated: the reference `bench_squad.py` times
assay's squad_em/squad_f1 and mlqa_em/mlqa_f1 against, and `tests/scorers/test_squad_speed_equal.py`
holds them equal to.

Restated from the scripts' published algorithm (evaluate-v1.1.py, mlqa_evaluation_v1.py), step for step
and in the same pure Python, quirks included:

- SQuAD: lowercase; drop every character of ``string.punctuation``; replace the words a/an/the
  (``\\b`` on both sides, Python's Unicode-aware ``re``) with a space; split on whitespace and join
  with one space. F1 is over the multiset of the normalised texts' whitespace tokens (0 when nothing
  is shared, so two empty texts score F1 0 but EM 1); each question takes the best over its ground
  truths; the dataset's figures are the means x100.
- MLQA: the same, but the punctuation is every code point below ``sys.maxunicode`` in Unicode category
  P, with ``string.punctuation``; the articles are the answer language's (none for hi and zh; for ar
  the script's pattern matches every alef-lam, the article al-); zh is segmented by a loop over
  characters, each CJK ideograph U+4E00..U+9FA5 (or punctuation) its own token and the runs between
  split on whitespace.

Run as a script it is the official command line: it reads a SQuAD-format dataset and a predictions
file (JSON objects), and prints ``{"exact_match": ..., "f1": ...}``.

    python bench/squad_official.py squad DATASET.json PREDICTIONS.json
    python bench/squad_official.py mlqa DATASET.json PREDICTIONS.json LANG [DATASET PREDICTIONS LANG ...]

(The MLQA script is run once per answer language; here several languages' files go to one process,
which spares the reference a start-up and a punctuation table per language.)
"""

from __future__ import annotations

import json
import re
import string
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

# --- SQuAD v1.1 (evaluate-v1.1.py) ----------------------------------------------------------------------


def squad_normalize_answer(s: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def squad_f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = squad_normalize_answer(prediction).split()
    ground_truth_tokens = squad_normalize_answer(ground_truth).split()
    return _f1(prediction_tokens, ground_truth_tokens)


def squad_exact_match_score(prediction: str, ground_truth: str) -> bool:
    return squad_normalize_answer(prediction) == squad_normalize_answer(ground_truth)


def _f1(prediction_tokens: list[str], ground_truth_tokens: list[str]) -> float:
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def squad_max_over_ground_truths(
    metric_fn: Callable[[str, str], float], prediction: str, ground_truths: list[str]
) -> float:
    return max(metric_fn(prediction, ground_truth) for ground_truth in ground_truths)


def squad_evaluate(dataset: list[Any], predictions: Mapping[str, str]) -> dict[str, float]:
    f1 = exact_match = total = 0.0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in predictions:
                    print(f"Unanswered question {qa['id']} will receive score 0.", file=sys.stderr)
                    continue
                ground_truths = [answer["text"] for answer in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact_match += squad_max_over_ground_truths(
                    squad_exact_match_score, prediction, ground_truths
                )
                f1 += squad_max_over_ground_truths(squad_f1_score, prediction, ground_truths)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# --- MLQA (mlqa_evaluation_v1.py) -----------------------------------------------------------------------

_PUNCT: set[str] = set()


def mlqa_punct() -> set[str]:
    """The script's PUNCT, built at its import: every code point below sys.maxunicode in category P, with
    string.punctuation (built here on first use, so that importing this module costs nothing)."""
    if not _PUNCT:
        _PUNCT.update(chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P"))
        _PUNCT.update(string.punctuation)
    return _PUNCT


WHITESPACE_LANGS = ["en", "es", "hi", "vi", "de", "ar"]
MIXED_SEGMENTATION_LANGS = ["zh"]


def whitespace_tokenize(text: str) -> list[str]:
    return text.split()


def mixed_segmentation(text: str) -> list[str]:
    punct = mlqa_punct()
    segs_out: list[str] = []
    temp_str = ""
    for char in text:
        if re.search(r"[\u4e00-\u9fa5]", char) or char in punct:
            if temp_str != "":
                segs_out.extend(whitespace_tokenize(temp_str))
                temp_str = ""
            segs_out.append(char)
        else:
            temp_str += char
    if temp_str != "":
        segs_out.extend(whitespace_tokenize(temp_str))
    return segs_out


def mlqa_normalize_answer(s: str, lang: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace."""
    punct = mlqa_punct()

    def remove_articles(text: str, lang: str) -> str:
        if lang == "en":
            return re.sub(r"\b(a|an|the)\b", " ", text)
        elif lang == "es":
            return re.sub(r"\b(un|una|unos|unas|el|la|los|las)\b", " ", text)
        elif lang == "hi":
            return text  # Hindi does not have formal articles
        elif lang == "vi":
            return re.sub(r"\b(của|là|cái|chiếc|những)\b", " ", text)
        elif lang == "de":
            return re.sub(r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b", " ", text)
        elif lang == "ar":
            return re.sub("\\s\u0627\u0644^|\u0627\u0644", " ", text)  # "\sال^|ال"  # noqa: RUF003
        elif lang == "zh":
            return text  # Chinese does not have formal articles
        else:
            raise Exception(f"Unknown Language {lang}")

    def white_space_fix(text: str, lang: str) -> str:
        if lang in WHITESPACE_LANGS:
            tokens = whitespace_tokenize(text)
        elif lang in MIXED_SEGMENTATION_LANGS:
            tokens = mixed_segmentation(text)
        else:
            raise Exception(f"Unknown Language {lang}")
        return " ".join([t for t in tokens if t.strip() != ""])

    def remove_punc(text: str) -> str:
        return "".join(ch for ch in text if ch not in punct)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s)), lang), lang)


def mlqa_f1_score(prediction: str, ground_truth: str, lang: str) -> float:
    prediction_tokens = mlqa_normalize_answer(prediction, lang).split()
    ground_truth_tokens = mlqa_normalize_answer(ground_truth, lang).split()
    return _f1(prediction_tokens, ground_truth_tokens)


def mlqa_exact_match_score(prediction: str, ground_truth: str, lang: str) -> bool:
    return mlqa_normalize_answer(prediction, lang) == mlqa_normalize_answer(ground_truth, lang)


def mlqa_max_over_ground_truths(
    metric_fn: Callable[[str, str, str], float], prediction: str, ground_truths: list[str], lang: str
) -> float:
    return max(metric_fn(prediction, ground_truth, lang) for ground_truth in ground_truths)


def mlqa_evaluate(dataset: list[Any], predictions: Mapping[str, str], lang: str) -> dict[str, float]:
    f1 = exact_match = total = 0.0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in predictions:
                    print(f"Unanswered question {qa['id']} will receive score 0.", file=sys.stderr)
                    continue
                ground_truths = [answer["text"] for answer in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact_match += mlqa_max_over_ground_truths(
                    mlqa_exact_match_score, prediction, ground_truths, lang
                )
                f1 += mlqa_max_over_ground_truths(mlqa_f1_score, prediction, ground_truths, lang)
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}


# --- the command line -----------------------------------------------------------------------------------


def _read(path: str) -> Any:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _groups(arguments: list[str], size: int) -> Iterable[list[str]]:
    if not arguments or len(arguments) % size:
        sys.exit(__doc__)
    return (arguments[at : at + size] for at in range(0, len(arguments), size))


def main(argv: list[str]) -> None:
    family, rest = (argv[0], argv[1:]) if argv else ("", [])
    if family == "squad":
        for dataset, predictions in _groups(rest, 2):
            print(json.dumps(squad_evaluate(_read(dataset)["data"], _read(predictions))))
    elif family == "mlqa":
        for dataset, predictions, lang in _groups(rest, 3):
            print(json.dumps(mlqa_evaluate(_read(dataset)["data"], _read(predictions), lang)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
