"""The report's judge slot: the key under which the LLM judge's section is written.

Every JSON summary has carried a ``"judge"`` key since the judge was added, ``null`` when no judge ran,
and its readers (and ``tests/golden/summary.json``) expect it whether or not one ran. The report model
writes the keys listed here as ``null`` unless a section fills them; the judge's section itself, its
numbers and its renderings, is the judges package's (``judges/section.py``), which writes under
``SUMMARY_KEY``.
"""

from __future__ import annotations

SUMMARY_KEY = "judge"
KEYS_ALWAYS_WRITTEN = (SUMMARY_KEY,)  # written as null when no section gives them
