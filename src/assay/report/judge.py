"""The report's judge slot: the one place under ``report/`` that names the LLM judge.

Every JSON summary has carried a ``"judge"`` key since the judge was added, ``null`` when no judge ran,
and its readers (and ``tests/golden/summary.json``) expect it whether or not one ran. The report model
writes the keys listed here as ``null`` unless a section fills them; the judge's section itself, its
numbers and its renderings, is the judges package's (``judges/section.py``), which writes under
``SUMMARY_KEY``.
"""

from __future__ import annotations

SUMMARY_KEY = "judge"
KEYS_ALWAYS_WRITTEN = (SUMMARY_KEY,)  # written as null when no section gives them

# The report's words about the judge, where the rows to review and the agreement say what a person (or
# the judge) should look at: kept here, so the renderers name no metric of their own accord.
REVIEW_ORDER = "cues and the judge's disagreements first"  # the printed list of rows to review
REVIEW_WHY = "where a matcher and the judge disagree"  # the HTML's rows to review, the last reason
CHECK_BY_HAND = "Check them by hand or with a judge"  # the agreement's paraphrases to review
