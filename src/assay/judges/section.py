"""The judge's section of a run's report: what the judge metric did with the rows (sent to the chain,
decided by the cascade and why, blank, truncated, over budget), what each judge of the chain cost, how far
it agreed with the matchers, and its warnings. Built from the accounting as the JSON summary holds it
(``JudgeSummary.as_dict``, under ``report.judge.SUMMARY_KEY``) by ``JudgeSummary.report_section``, which
``build_report`` asks of every run scorer's details; it renders itself in the text report (after the
metrics), the HTML report (its own section) and at the top of the Markdown report (its warnings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ..report.format import text_table
from ..report.judge import SUMMARY_KEY
from ..report.markup import element, number_cell, table
from ..report.sections import BODY, HtmlPart
from ..terminal import one_line
from .jury import jury_lines

USAGE_COUNTS = ("calls", "cache_hits", "failures", "prompt_tokens", "completion_tokens")


@dataclass(frozen=True)
class JudgeSection:
    """The judge's accounting (``JudgeSummary.as_dict()``) as a section of the report."""

    accounting: Mapping[str, Any]
    place = BODY
    key = SUMMARY_KEY

    def as_dict(self) -> Any:
        return dict(self.accounting)

    def warnings(self) -> Sequence[str]:
        """A judge left out, unreadable cache rows, a judge that may not be judging."""
        return tuple(self.accounting.get("warnings") or ())

    def text_lines(self, detail: bool) -> list[str]:
        found = self.accounting
        lines = [
            f"judge: {found['sent_to_judges']} rows sent to the chain, {found['decided_by_cascade']} decided "
            f"by the cascade, {found['blank']} blank; {found['truncated']} responses truncated; "
            f"{found['over_budget']} left unscored by --max-cost; {found['seconds']:.1f} s"
        ]
        lines += [f"  {cascade_text(found['cascade'])}"] if found.get("cascade") else []
        header = ["judge", "calls", "cached", "failures", "prompt tokens", "completion tokens", "cost"]
        rows = [
            [label, *(str(usage[key]) for key in USAGE_COUNTS), f"{usage['cost']:.4f}"]
            for label, usage in found["usage"].items()
        ]
        lines += text_table(header, rows)
        agreeing = [
            f"{name} {agree}/{both} ({agree / both:.1%})"
            for name, (both, agree) in _agreement(found["agreement"]).items()
            if both
        ]
        if agreeing:
            lines.append(f"  agreement with the matchers on the rows both scored: {', '.join(agreeing)}")
        lines += jury_lines(found["jury"]) if found.get("jury") else []
        return lines + [f"  warning: {one_line(warning)}" for warning in self.warnings()]

    def markdown_lines(self) -> list[str]:
        return []  # results.md shows the judge's warnings (at the top) and its verdicts as a metric's

    def html_parts(self) -> list[HtmlPart]:
        return [HtmlPart("judge", None, _html(self.accounting))]

    def html_data(self) -> str:
        return ""  # its numbers are in the summary's data


def _agreement(found: Mapping[str, Mapping[str, int]]) -> dict[str, tuple[int, int]]:
    """matcher -> (rows both scored, rows they agree on)."""
    return {name: (counts["both_scored"], counts["agree"]) for name, counts in found.items()}


def _html(judge: Mapping[str, Any]) -> str:
    facts = [
        f"{judge.get('sent_to_judges', 0)} rows sent to the judges",
        f"{judge.get('decided_by_cascade', 0)} decided by the cascade",
        f"{judge.get('truncated', 0)} responses truncated",
        f"{judge.get('over_budget', 0)} left unscored by the cost ceiling",
    ]
    facts += [cascade_text(judge["cascade"])] if judge.get("cascade") else []
    keys = (*USAGE_COUNTS, "cost")
    rows = [
        f"<tr>{element('th', label, scope='row')}"
        + "".join(number_cell(k, usage.get(k), str(usage.get(k, ""))) for k in keys)
        + "</tr>"
        for label, usage in (judge.get("usage") or {}).items()
    ]
    warnings = "".join(element("li", str(w)) for w in judge.get("warnings") or [])
    jury = (
        "".join(element("li", line.strip()) for line in jury_lines(judge["jury"]))
        if judge.get("jury")
        else ""
    )
    return (
        f'<section id="judge"><h2>The LLM judge</h2><p>{escape("; ".join(facts))}</p>'
        + table(["judge", *keys], rows, class_="numbers")
        + (f'<ul class="jury">{jury}</ul>' if jury else "")
        + (f'<ul class="warnings">{warnings}</ul>' if warnings else "")
        + "</section>"
    )


def cascade_text(counts: Mapping[str, int]) -> str:
    """Why the judge's cascade decided rows or sent them to the judges (JudgeSummary.cascade), in words;
    empty when the cascade was off."""
    if not counts:
        return ""
    if "all_matchers_passed" not in counts:  # another cascade's reasons (assay run's): said as they are
        return _other_cascade_text(counts)
    got = counts.get
    decided = got("all_matchers_passed", 0) + got("all_matchers_failed_no_golden_word", 0)
    sent = sum(counts.values()) - decided
    return (
        f"cascade: {decided} rows decided ({got('all_matchers_passed', 0)} all matchers passed, "
        f"{got('all_matchers_failed_no_golden_word', 0)} all failed with no golden word); {sent} sent to "
        f"the judges ({got('sent_for_a_cue', 0)} for a negation, contrast or hedge cue, "
        f"{got('sent_for_several_candidates', 0)} for naming several candidates, "
        f"{got('sent_matchers_undecided', 0)} where the matchers disagreed or a golden word was there)"
    )


def _other_cascade_text(counts: Mapping[str, int]) -> str:
    """'cascade: 9 rows decided (8 decided by the matchers, 1 decided by the guard); 3 sent to the judges
    (3 unscored by the matchers)', from reasons whose sending ones start with "sent_"."""

    def said(keys: list[str]) -> str:
        return ", ".join(f"{counts[key]} {key.removeprefix('sent_').replace('_', ' ')}" for key in keys)

    decided = [key for key in counts if not key.startswith("sent_")]
    sent = [key for key in counts if key.startswith("sent_")]
    return (
        f"cascade: {sum(counts[k] for k in decided)} rows decided ({said(decided)}); "
        f"{sum(counts[k] for k in sent)} sent to the judges ({said(sent)})"
    )
