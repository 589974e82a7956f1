"""The printed report: per metric, per-domain and combined accuracy; then the two protocols' agreement."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..records import Record
from ..stats import Interval
from ..summary import BUCKETS, Agreement, IntervalMethod, JudgeSummary, MetricSummary, Summary, Tally
from ..terminal import one_line
from ..trace import Trace
from ._format import DASH, cascade_text, difference_cells, interval_text, percent

if TYPE_CHECKING:
    from ..agree import Confusion, MetricAgreement

MAX_IDS_LISTED = 20
SNIPPET = 70


def render_text(summary: Summary) -> str:
    lines = [_headline(summary), ""]
    for metric in summary.metrics.values():
        lines += _metric_table(metric, summary.intervals)
        lines.append("")
    if summary.judge is not None:
        lines += [*_judge(summary.judge), ""]
    if summary.agreement is not None:
        lines += _agreement(summary.agreement)
    return "\n".join(lines).rstrip() + "\n"


def warnings(summary: Summary) -> list[str]:
    """Problems in the input that change what the numbers mean; the CLI prints them on stderr."""
    found = []
    if summary.empty_golden_ids:
        found.append(
            f"{len(summary.empty_golden_ids)} rows have an empty (or whitespace/punctuation-only) golden "
            "answer, "
            f"which the seed protocols score correct: ids {_ids(summary.empty_golden_ids)}. "
            "Fill in or drop these goldens"
        )
    for metric in summary.metrics.values():
        if metric.timed_out_ids:
            found.append(
                f"{metric.metric}: {len(metric.timed_out_ids)} rows unscored, their pattern ran past its "
                f"time budget: ids {_ids(metric.timed_out_ids)}. "
                "Simplify these patterns (nested or overlapping repeats)"
            )
    for column, ids in summary.null_cells.items():
        found.append(
            f"column '{column}' is empty (NaN/None) in {len(ids)} rows, treated as empty text: "
            f"ids {_ids(ids)}"
        )
    if summary.judge is not None:  # a judge left out, unreadable cache rows, a judge not judging
        found += summary.judge.warnings
    return found


def _headline(summary: Summary) -> str:
    limited = f" (--limit {summary.limit}: the first {summary.limit} rows only)" if summary.limit else ""
    return (
        f"assay {__version__} · {one_line(summary.source)}: {summary.total} rows{limited}, "
        f"{summary.blank} blank responses (scored incorrect)"
    )


def _metric_table(metric: MetricSummary, intervals: IntervalMethod) -> list[str]:
    show_unscored = True  # always: "could not score" is an outcome every table accounts for
    show_soft = metric.soft_credit
    graded = metric.combined.graded
    header = ["domain", "n", "passed", "accuracy", "95% CI", *(["mean"] if graded else [])]
    header += ["soft", "with soft"] if show_soft else []
    header += ["blank", *(["unscored"] if show_unscored else [])]
    tallies = [
        *((domain or "(no domain)", t) for domain, t in metric.domains.items()),
        ("combined", metric.combined),
    ]
    rows = [_tally_row(label, t, intervals.of(t), show_unscored, show_soft) for label, t in tallies]
    return [f"{metric.metric}   [{metric.signature}]", *_table(header, rows)]


def _tally_row(
    label: str, tally: Tally, interval: Interval | None, show_unscored: bool, show_soft: bool
) -> list[str]:
    cells = [
        label,
        str(tally.n),
        str(tally.passed),
        percent(tally.accuracy),
        interval_text(interval.as_dict() if interval else None),
    ]
    if tally.graded:  # a graded metric: its mean score too
        cells.append("n/a" if tally.mean is None else f"{tally.mean:.3f}")
    if show_soft:
        cells += [str(tally.soft), percent(tally.accuracy_with_soft)]
    cells.append(str(tally.blank))
    return cells + ([str(tally.unscored)] if show_unscored else [])


def _judge(judge: JudgeSummary) -> list[str]:
    lines = [
        f"judge: {judge.sent_to_judges} rows sent to the chain, {judge.decided_by_cascade} decided by the "
        f"cascade, {judge.blank} blank; {judge.truncated} responses truncated; {judge.over_budget} left "
        f"unscored by --max-cost; {judge.seconds:.1f} s"
    ]
    lines += [f"  {cascade_text(judge.cascade)}"] if judge.cascade else []
    header = ["judge", "calls", "cached", "failures", "prompt tokens", "completion tokens", "cost"]
    counted = ("calls", "cache_hits", "failures", "prompt_tokens", "completion_tokens")
    rows = [
        [label, *(str(getattr(usage, key)) for key in counted), f"{usage.cost:.4f}"]
        for label, usage in judge.usage.items()
    ]
    lines += _table(header, rows)
    agreeing = [
        f"{name} {agree}/{both} ({agree / both:.1%})"
        for name, (both, agree) in judge.agreement.items()
        if both
    ]
    if agreeing:
        lines.append(f"  agreement with the matchers on the rows both scored: {', '.join(agreeing)}")
    return lines + [f"  warning: {one_line(warning)}" for warning in judge.warnings]


def _agreement(agreement: Agreement) -> list[str]:
    header = ["domain", *BUCKETS]
    rows = [
        [domain or "(no domain)", *(str(c[b]) for b in BUCKETS)] for domain, c in agreement.domains.items()
    ]
    rows.append(["overall", *(str(agreement.overall[b]) for b in BUCKETS)])
    lines = ["agreement: exact_substring vs word_overlap", *_table(header, rows), "", "  examples:"]
    for bucket, examples in agreement.examples.items():
        for example in examples:
            lines.append(
                f"    {bucket:<13} {one_line(example.id)}: golden {_snip(example.answer)} "
                f"· response {_snip(example.response)}"
            )
    if agreement.review_ids:
        lines += [
            "",
            f"  review: {len(agreement.review_ids)} overlap-only rows hold every golden word "
            "but not the golden phrase;",
            "  each may be a correct paraphrase or a different claim. Check them by hand or with a judge:",
            f"    {_ids(agreement.review_ids)}",
        ]
    return lines


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    rows = [[one_line(cell) for cell in row] for row in rows]  # a domain from the data: one line, inert
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        return "  " + "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:]))])

    return [line(header), *map(line, rows)]


def _snip(text: str) -> str:
    flat = _flat_start(text, SNIPPET)
    return repr(flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…")


def _flat_start(text: str, wanted: int) -> str:
    """All of " ".join(text.split()), or a start of it longer than `wanted`: a 50 MB response is not
    split into millions of words (about 600 MB) to show seventy characters of it."""
    size = 4 * wanted
    while size < len(text):
        words = text[:size].split()
        if words and not text[size - 1].isspace() and not text[size].isspace():
            words.pop()  # the cut fell inside this word
        flat = " ".join(words)
        if len(flat) > wanted:
            return flat
        size *= 2
    return " ".join(text.split())


def _ids(ids: Iterable[str]) -> str:
    ids = list(ids)
    shown = ", ".join(map(one_line, ids[:MAX_IDS_LISTED]))
    return shown + (f", … and {len(ids) - MAX_IDS_LISTED} more" if len(ids) > MAX_IDS_LISTED else "")


def render_explanation(record: Record, traces: Mapping[str, Trace]) -> str:
    """One row, then how each metric decided it: the rule, both texts as it saw them, the span."""
    lines = [
        one_line(
            f"{record.id} · domain {record.domain or '(none)'}"
            + (f" · lang {record.lang}" if record.lang else "")
        ),
        f"  question: {record.question!r}",
        *(f"  golden:   {answer!r}" for answer in record.answers),
        f"  response: {record.response!r}",
    ]
    for metric, trace in traces.items():
        score = "" if trace.score is None else f" (score {trace.score:.3f})"
        lines += ["", f"{metric}: {trace.outcome}{score}", f"  rule:     {trace.rule}"]
        lines += [f"  golden:   {trace.golden!r}", f"  response: {trace.response!r}  (as {metric} saw them)"]
        if trace.span is not None:
            start, end = trace.span
            lines.append(f"  span:     [{start}, {end}) {record.response[start:end]!r}")
    return "\n".join(lines) + "\n"


def render_comparison(comparison: Mapping[str, Any]) -> str:
    """Two runs compared: per metric, per domain and combined, B - A with its interval and p-value."""
    only_a, only_b = comparison["only_in_a"], comparison["only_in_b"]
    lines = [
        one_line(f"assay compare · A = {comparison['a']['source']} · B = {comparison['b']['source']}"),
        f"{comparison['rows_in_both']} rows in both; {len(only_a)} only in A"
        + (f" ({_ids(only_a)})" if only_a else "")
        + f"; {len(only_b)} only in B"
        + (f" ({_ids(only_b)})" if only_b else ""),
        f"difference B - A over rows both scored; {comparison['method']}",
        *(
            f"not compared, scored in {side[-1].upper()} only: {', '.join(comparison[side])}"
            for side in ("metrics_only_in_a", "metrics_only_in_b")
            if comparison.get(side)
        ),
        *(f"WARNING: {warning}" for warning in comparison.get("warnings") or ()),
        "",
    ]
    header = ["scope", "n", "A", "B", "B - A", "95% CI", "p", "A only", "B only"]
    for name, metric in comparison["metrics"].items():
        scopes = [
            *((d or "(no domain)", x) for d, x in metric["domains"].items()),
            ("combined", metric["combined"]),
        ]
        rows = [[scope, *difference_cells(found)] for scope, found in scopes]
        lines += [name, *_table(header, rows), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_agreement(
    found: Sequence[MetricAgreement], column: str, signatures: Mapping[str, str] | None = None
) -> str:
    """Each metric against the human labels: confusion matrix, precision, recall, Cohen's kappa."""
    lines = [one_line(f"agreement with the human labels in '{column}' (a pass counts as 'correct')"), ""]
    header = ["scope", "n", "tp", "fp", "fn", "tn", "precision", "recall", "kappa", "95% CI"]
    for metric in found:
        scopes = [("all", metric.overall)]
        scopes += [(f"domain {d or '(none)'}", c) for d, c in metric.domains.items()]
        scopes += [(f"lang {lang}", c) for lang, c in metric.langs.items()]
        title = f"{metric.metric}   [{signatures[metric.metric]}]" if signatures else metric.metric
        lines += [title, *_table(header, [[label, *_confusion_cells(c)] for label, c in scopes])]
        others = ", ".join(f"{label} {n} rows, {p} passed" for label, (n, p) in metric.other_labels.items())
        if others:
            lines.append(f"  other labels, apart: {one_line(others)}")
        if metric.unscored:
            lines.append(f"  unscored by the metric, left out: {metric.unscored}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _confusion_cells(confusion: Confusion) -> list[str]:
    kappa = confusion.kappa
    value = "n/a" if kappa is None or kappa.kappa is None else f"{kappa.kappa:.3f}"
    ci = (
        "n/a"
        if kappa is None or kappa.interval is None
        else f"{kappa.interval.low:.3f}{DASH}{kappa.interval.high:.3f}"
    )
    counts = (confusion.n, confusion.tp, confusion.fp, confusion.fn, confusion.tn)
    return [*map(str, counts), _ratio(confusion.precision), _ratio(confusion.recall), value, ci]


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
