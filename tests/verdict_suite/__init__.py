"""A labelled suite of realistic RAG replies (issue 20, item 8): gold sets built with assay's library on
the shared insurance documents and on a generated software SLA and price list, replies to every item as
capable assistants write them, each labelled with the outcome a careful reader gives (checked against the
page text as it is made), graded exactly as ``assay run --sources`` grades, and the agreement measured.

    corpus = software_corpus(folder)        # or insurance_corpus()
    replies = corpus_replies(corpus)        # LabelledReply: item, kind, label, text, citations
    graded = grade(replies, corpus.root, folder)
    Agreement(tuple(graded)).miss_share     # faults graded correct, as a share of faults

bench/verdict_suite.py prints the confusion table and the shares; tests/scorers/test_verdict_suite.py holds
the targets (misses <= 1%, false alarms <= 1%, correct replies unscored <= 10%).
"""

from __future__ import annotations

from .corpora import CORPORA, Corpus, insurance_available, insurance_corpus, software_corpus
from .grading import Agreement, Graded, grade, run_rows
from .replies import CORRECT, FAULT_LABELS, LabelledReply, corpus_replies, item_replies, wrong_pages

__all__ = [
    "CORPORA",
    "CORRECT",
    "FAULT_LABELS",
    "Agreement",
    "Corpus",
    "Graded",
    "LabelledReply",
    "corpus_replies",
    "grade",
    "insurance_available",
    "insurance_corpus",
    "item_replies",
    "run_rows",
    "software_corpus",
    "wrong_pages",
]
