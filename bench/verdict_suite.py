"""How often assay's grading agrees with a careful reader, on the labelled suite (tests/verdict_suite):
realistic RAG replies to the gold items of the shared insurance documents and of a generated software
SLA and price list, graded exactly as ``assay run --sources`` grades them.

Prints the replies per corpus and label, the confusion table (label x outcome), and three shares:

- misses: faults (every label but correct) graded ``correct``, as a share of faults;
- false alarms: correct replies given another definite class (not correct, not unscored), as a share of
  correct replies;
- unscored: correct replies left ``unscored``, as a share of correct replies;

and, to read beside them: wrong answers and refusals given a passing class (``correct`` or
``correct_ungrounded``, which factual accuracy counts right), the shares per corpus, and the agreement
per kind of reply (where the grader goes wrong). ``--show N`` lists N disagreeing rows with the reply,
its label and kind, the outcome and its reason.

The targets (issue 20) are misses <= 1%, false alarms <= 1%, unscored <= 10%; the command reports them
and exits 0 either way (tests/scorers/test_verdict_suite.py holds them).

    python bench/verdict_suite.py [--corpus insurance|software|all] [--show N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

# The suite, and the PDF generator it builds with.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from assay.scorers.outcome_rule import OUTCOMES
from verdict_suite import (
    Agreement,
    Graded,
    corpus_replies,
    grade,
    insurance_available,
    insurance_corpus,
    software_corpus,
)
from verdict_suite.replies import LabelledReply

TARGETS = {"misses": 0.01, "false alarms": 0.01, "unscored": 0.10}
# The outcome classes a reply of the suite can be labelled with: all but those of the system's own doing.
LABELS = tuple(o for o in OUTCOMES if o not in ("blocked", "unscored", "system_error"))


def graded_corpus(name: str, folder: Path) -> list[Graded]:
    """One corpus built, its replies written and graded."""
    corpus = insurance_corpus() if name == "insurance" else software_corpus(folder / "corpus")
    replies = corpus_replies(corpus)
    (folder / "rows").mkdir(parents=True, exist_ok=True)
    return grade(replies, corpus.root, folder / "rows")


def print_counts(graded: Sequence[Graded]) -> None:
    counts = Counter((one.reply.corpus, one.reply.label) for one in graded)
    corpora = sorted({corpus for corpus, _ in counts})
    items = Counter(one.reply.corpus for one in {id(one.reply.item): one for one in graded}.values())
    print("replies per corpus and label")
    print(f"  {'label':<22}" + "".join(f"{corpus:>12}" for corpus in corpora))
    for label in LABELS:
        print(f"  {label:<22}" + "".join(f"{counts[corpus, label]:>12}" for corpus in corpora))
    print(f"  {'(items)':<22}" + "".join(f"{items[corpus]:>12}" for corpus in corpora))
    print()


def print_confusion(agreement: Agreement) -> None:
    table = agreement.confusion()
    outcomes = sorted(
        {outcome for _, outcome in table},
        key=lambda o: (o not in LABELS, LABELS.index(o) if o in LABELS else 0, o),
    )
    width = max(len(o) for o in outcomes) + 2
    print("confusion: rows are the careful reader's label, columns assay's outcome")
    print(f"  {'':<22}" + "".join(f"{outcome:>{width}}" for outcome in outcomes))
    for label in LABELS:
        if any(table[label, outcome] for outcome in outcomes):
            print(
                f"  {label:<22}" + "".join(f"{table[label, outcome] or '.':>{width}}" for outcome in outcomes)
            )
    print()


def print_shares(agreement: Agreement) -> None:
    rows = (
        ("misses", agreement.misses, agreement.faults, "faults graded correct"),
        (
            "false alarms",
            agreement.false_alarms,
            agreement.correct,
            "correct replies given another definite class",
        ),
        ("unscored", agreement.unscored, agreement.correct, "correct replies left unscored"),
    )
    for name, part, whole, what in rows:
        share = len(part) / len(whole) if whole else 0.0
        verdict = "ok" if share <= TARGETS[name] else "over target"
        print(
            f"  {name:<13}{share:>7.1%}  ({len(part)}/{len(whole)} {what}; "
            f"target <= {TARGETS[name]:.0%}: {verdict})"
        )
    wrong = [one for one in agreement.faults if one.reply.label != "correct_ungrounded"]
    passed = agreement.wrong_passed
    print(
        f"  {'wrong passed':<13}{len(passed) / max(1, len(wrong)):>7.1%}  ({len(passed)}/{len(wrong)} "
        "wrong answers or refusals given correct or correct_ungrounded: factual accuracy counts them right)"
    )
    print(f"  {'agreement':<13}{agreement.agreement:>7.1%}  (outcome equals label)")
    print()


def print_corpus_shares(graded: Sequence[Graded]) -> None:
    """The three shares of each corpus, when there are several."""
    corpora = sorted({one.reply.corpus for one in graded})
    if len(corpora) < 2:
        return
    print(f"  {'by corpus':<13}{'misses':>10}{'false alarms':>14}{'unscored':>10}")
    for corpus in corpora:
        part = Agreement(tuple(one for one in graded if one.reply.corpus == corpus))
        shares = f"{part.miss_share:>10.1%}{part.false_alarm_share:>14.1%}{part.unscored_share:>10.1%}"
        print(f"  {corpus:<13}{shares}")
    print()


def _agreement_of(entry: tuple[object, list[Graded]]) -> float:
    return sum(one.agrees for one in entry[1]) / len(entry[1])


def print_kinds(graded: Sequence[Graded]) -> None:
    """Per kind of reply (its label and what it is): replies, the share graded as labelled, and the
    outcome it is most often given instead: where the grader goes wrong."""
    kinds: dict[tuple[str, str], list[Graded]] = {}
    for one in graded:
        parts = one.reply.kind.split("/")
        kind = "/".join(parts[:2]) if parts[0] == "correct" else parts[0]  # correct/table, correct/statement
        kinds.setdefault((one.reply.label, kind), []).append(one)
    print("by kind of reply: label, kind, replies, graded as labelled, the most common other outcome")
    for (label, kind), ones in sorted(kinds.items(), key=_agreement_of):
        others = Counter(one.outcome for one in ones if not one.agrees).most_common(1)
        other = f"{others[0][0]} ({others[0][1]})" if others else "-"
        print(f"  {label:<20}{kind:<28}{len(ones):>6}{_agreement_of((kind, ones)):>8.0%}   {other}")
    print()


def _shown(reply: LabelledReply) -> str:
    text = reply.text.replace("\n", " / ")
    cited = "; ".join(
        f"{c.get('document')} p.{c.get('page')}" + (" +quote" if c.get("quote") else "")
        for c in reply.citations
    )
    return f"{text}  {{cites: {cited or 'none'}}}"


def print_disagreements(agreement: Agreement, show: int) -> None:
    wrong = agreement.disagreements()
    print(
        f"disagreeing rows: {len(wrong)} (showing {min(show, len(wrong))}; "
        "misses, then false alarms, then the rest)"
    )
    for one in wrong[:show]:
        item = one.reply.item
        print(f"- [{one.reply.corpus}] {item.get('field') or 'refusal item'}: {item['question']}")
        print(f"    expected: {item['expected_answer']}")
        print(f"    reply:    {_shown(one.reply)}")
        print(f"    label {one.reply.label} ({one.reply.kind}) / outcome {one.outcome}: {one.reason}")
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", choices=("insurance", "software", "all"), default="all")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="list up to N disagreeing rows")
    args = parser.parse_args(argv)
    names = ["insurance", "software"] if args.corpus == "all" else [args.corpus]
    if "insurance" in names and not insurance_available():
        print(
            "the shared insurance data is missing (../shared/data/insurance): the insurance corpus is skipped"
        )
        names.remove("insurance")
    started = time.monotonic()
    graded: list[Graded] = []
    with tempfile.TemporaryDirectory(prefix="verdict-suite-") as folder:
        for name in names:
            graded += graded_corpus(name, Path(folder) / name)
    agreement = Agreement(tuple(graded))
    print_counts(graded)
    print_confusion(agreement)
    print_shares(agreement)
    print_corpus_shares(graded)
    print_kinds(graded)
    if args.show:
        print_disagreements(agreement, args.show)
    print(f"({len(graded)} replies graded in {time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
