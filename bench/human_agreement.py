"""How far each deterministic metric agrees with human labels on the NQ human-rated answers.

Reads ../shared/data/nq_human/nq_human_even.jsonl (2,896 answers with a human label: correct,
possibly_correct or incorrect), scores it with every registered metric, and prints a Markdown table of
precision, recall and Cohen's kappa of "metric passes" against "human says correct", on the rows labelled
correct or incorrect; possibly_correct rows are reported apart (how often each metric passes them).

    python bench/human_agreement.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay import SCORERS, Outcome, load_records, score

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "nq_human" / "nq_human_even.jsonl"


def cohen_kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two binary raters: observed agreement corrected for chance agreement."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = first * second + (1 - first) * (1 - second)
    return (observed - chance) / (1 - chance) if chance < 1 else 1.0


def main() -> None:
    if not DATA.exists():
        sys.exit(f"{DATA} is missing: this needs the shared data folder beside the repository")
    dataset = load_records(DATA, allow_duplicate_ids=True)
    labels = [record.meta["human_label"] for record in dataset.records]
    run = score(dataset, list(SCORERS))
    print(f"{len(labels)} rows: " + ", ".join(f"{labels.count(k)} {k}" for k in sorted(set(labels))))
    print()
    print("| metric | precision | recall | Cohen's kappa | passes possibly_correct |")
    print("|---|---|---|---|---|")
    for name, scores in run.metrics.items():
        passes = [scores.outcome(i) is Outcome.PASS for i in range(len(labels))]
        rated = [(p, label == "correct") for p, label in zip(passes, labels) if label != "possibly_correct"]
        true_positive = sum(p and h for p, h in rated)
        precision = true_positive / max(1, sum(p for p, _ in rated))
        recall = true_positive / max(1, sum(h for _, h in rated))
        possibly = [p for p, label in zip(passes, labels) if label == "possibly_correct"]
        print(
            f"| {name} | {precision:.3f} | {recall:.3f} | {cohen_kappa(rated):.3f} "
            f"| {sum(possibly)}/{len(possibly)} |"
        )


if __name__ == "__main__":
    main()
