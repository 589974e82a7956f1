"""The printed report (of the report model, ``report/model.py``): by default one table across
metrics, accuracy by domain and language, the agreement pair and the rows to review; with
``--detail`` each metric's own table. Also the comparison of two runs, one row explained, and the
agreement with human labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..records import Record
from ..scorer_registry import declaration, default_pair
from ..scorers import SCORERS
from ..scoring import SOURCES
from ..summary import Agreement, Review
from ..terminal import one_line
from ..trace import Trace
from ._section import BODY, LEAD  # not .sections: the terminal's report loads no HTML or SVG
from .format import (
    DASH,
    aligned_width,
    blank_text,
    count,
    difference_cells,
    interval_text,
    percent,
    text_table,
)
from .model import Cell, MetricReport, Report

if TYPE_CHECKING:
    from ..agreement import Confusion, MetricAgreement

MAX_IDS_LISTED = 20
SNIPPET = 70
# Named in the closing hint when not run: one --metric away.


def render_text(report: Report, *, detail: bool = False) -> str:
    """The printed report. By default: one table across metrics, accuracy by domain (and by language)
    per metric, the agreement pair, the rows to review and a hint; with `detail`, each metric's own
    table per domain (counts, interval, mean, soft passes, blank, unscored) and the agreement's
    examples, as earlier versions printed. A summary alone reports as ``build_report(summary)``."""
    return (_detailed(report) if detail else _overview(report)).rstrip() + "\n"


def _detailed(report: Report) -> str:
    lines = [_headline(report), "", *_sections(report, LEAD, detail=True)]
    for metric in report.metrics.values():
        lines += _metric_table(metric)
        lines.append("")
    lines += _sections(report, BODY, detail=True)
    if report.agreement is not None:
        lines += _agreement(report.agreement)
    return "\n".join(lines)


def _overview(report: Report) -> str:
    lines = [_headline(report), "", *_sections(report, LEAD, detail=False)]
    if report.metrics:
        lines += [*_across_metrics(report), ""]
        lines += [*_by_scope(report, "domain"), ""]
        if report.has_lang:
            lines += [*_by_scope(report, "lang"), ""]
    lines += _sections(report, BODY, detail=False)
    if report.agreement is not None:
        lines += [*_agreement(report.agreement, examples=False), ""]
    if report.review is not None and report.review.total:
        lines += [*_review(report.review), ""]
    lines += _hint(report)
    return "\n".join(lines)


def _sections(report: Report, place: str, detail: bool) -> list[str]:
    """The lines of the report's sections at `place`, each followed by a blank line."""
    lines: list[str] = []
    for section in report.placed(place):
        found = section.text_lines(detail)
        lines += [*found, ""] if found else []
    return lines


def _across_metrics(report: Report) -> list[str]:
    """One row per metric: n, accuracy, its 95% interval, a graded metric's mean, unscored rows."""
    graded = any(m.combined.graded for m in report.metrics.values())
    header = ["metric", "n", "accuracy", "95% CI", *(["mean"] if graded else []), "unscored"]
    rows = []
    for name, metric in report.metrics.items():
        cell = metric.combined
        mean = [("n/a" if cell.mean is None else f"{cell.mean:.3f}") if cell.graded else ""] if graded else []
        rows.append([name, str(cell.n), percent(cell.accuracy), _interval(cell), *mean, str(cell.unscored)])
    return text_table(header, rows)


def _by_scope(report: Report, scope: str) -> list[str]:
    """Accuracy per domain (or language) and metric; the last row is the whole file."""
    metrics = list(report.metrics.values())
    cells = [m.domains if scope == "domain" else m.langs for m in metrics]
    keys = list(dict.fromkeys(key for found in cells for key in found))
    title = "accuracy by domain" if scope == "domain" else "accuracy by language (lang)"
    if any(m.combined.graded for m in metrics):
        title += " (a graded metric: its mean score)"
    header = [scope, "n", *(m.name for m in metrics)]
    rows = []
    for key in keys:
        n = next((found[key].n for found in cells if key in found), 0)
        scores = (_score(c[key], m.combined.graded) if key in c else "" for c, m in zip(cells, metrics))
        rows.append([key or f"(no {scope})", str(n), *scores])
    rows.append(
        ["combined", str(metrics[0].combined.n), *(_score(m.combined, m.combined.graded) for m in metrics)]
    )
    return [title, *text_table(header, rows)]


def _score(cell: Cell, graded: bool) -> str:
    """A cell's number: a graded metric's mean score (its share of perfect scores is near 0% on sentence
    answers, and says little), else its accuracy."""
    if graded:
        return "n/a" if cell.mean is None else f"mean {cell.mean:.3f}"
    return percent(cell.accuracy)


def _review(review: Review) -> list[str]:
    shown = len(review.rows)
    order = "cues and the judge's disagreements first"
    lines = [f"rows to review ({review.total} rows; {shown} listed, {order}):"]
    width = aligned_width(one_line(row.id) for row in review.rows)
    lines += [f"  {one_line(row.id).ljust(width)}  {row.why}" for row in review.rows]
    if review.total > shown:
        lines.append(f"  … and {review.total - shown} more")
    if review.cue_rows_scanned < review.cue_rows_passing:
        lines.append(
            f"  cues searched in the first {review.cue_rows_scanned} of the {review.cue_rows_passing} rows "
            "a matcher passed"
        )
    return lines


def _needs_a_run(inputs: tuple[str, ...]) -> bool:
    """Whether a metric reads what only a harness run gives: the documents (--sources DIR) or a
    system's replies (their citations); a file of responses is not one flag away from it."""
    return any(name.rstrip("?") == SOURCES or (name.startswith("reply.") and not name.endswith("?"))
               for name in inputs)  # fmt: skip


def _hint(report: Report) -> list[str]:
    declared = [(name, declaration(name)) for name in SCORERS]  # a built-in's without loading it
    others = [  # the metrics not run that would run if named (one needing a language column: with one)
        name
        for name, scorer in declared
        if name not in report.metrics
        and not scorer.default
        and (report.has_lang or "lang" not in scorer.inputs)
        and not _needs_a_run(scorer.inputs)
    ]
    lines = []
    if others:
        lines.append(
            f"more metrics, one flag away: {', '.join(others)}, "
            f"e.g. --metric {'squad_f1' if 'squad_f1' in others else others[0]}"
        )
    lines.append(
        "which metric to trust: `assay agree --human COLUMN` measures each against human labels and "
        "calibrates its accuracy on them; --detail prints each metric's table"
    )
    return lines


def _interval(cell: Cell) -> str:
    return interval_text(cell.interval.as_dict() if cell.interval else None)


def warnings(summary: Report) -> list[str]:
    """Problems in the input that change what the numbers mean; the CLI prints them on stderr."""
    found = []
    if summary.empty_golden_ids:
        found.append(
            f"{count(len(summary.empty_golden_ids), 'row')} with an empty (or whitespace/punctuation-only) "
            "golden answer, "
            f"which the original evaluation scripts score correct: ids {_ids(summary.empty_golden_ids)}. "
            "Fill in or drop these goldens"
        )
    for metric in summary.metrics.values():
        if metric.timed_out_ids:
            found.append(
                f"{metric.name}: {count(len(metric.timed_out_ids), 'row')} unscored, their pattern ran past "
                f"its time budget: ids {_ids(metric.timed_out_ids)}. "
                "Simplify these patterns (nested or overlapping repeats)"
            )
    for column, ids in summary.null_cells.items():
        found.append(
            f"column '{column}' is empty (NaN/None) in {count(len(ids), 'row')}, treated as empty text: "
            f"ids {_ids(ids)}"
        )
    return found + summary.section_warnings()  # e.g. a run scorer's accounting: a model call that failed


def _headline(report: Report) -> str:
    limited = f" (--limit {report.limit}: the first {report.limit} rows only)" if report.limit else ""
    return (
        f"assay {report.version} · {one_line(report.source)}: {count(report.total, 'row')}{limited}, "
        f"{blank_text(report.blank, report.blocked)}"
    )


def _metric_table(metric: MetricReport) -> list[str]:
    show_unscored = True  # always: "could not score" is an outcome every table accounts for
    show_soft = metric.soft_credit
    graded = metric.combined.graded
    header = ["domain", "n", "passed", "accuracy", "95% CI", *(["mean"] if graded else [])]
    header += ["soft", "with soft"] if show_soft else []
    header += ["blank", *(["unscored"] if show_unscored else [])]
    cells = [
        *((domain or "(no domain)", c) for domain, c in metric.domains.items()),
        ("combined", metric.combined),
    ]
    rows = [_tally_row(label, c, show_unscored, show_soft) for label, c in cells]
    return [f"{metric.name}   [{metric.signature}]", *text_table(header, rows)]


def _tally_row(label: str, cell: Cell, show_unscored: bool, show_soft: bool) -> list[str]:
    cells = [label, str(cell.n), str(cell.passed), percent(cell.accuracy), _interval(cell)]
    if cell.graded:  # a graded metric: its mean score too
        cells.append("n/a" if cell.mean is None else f"{cell.mean:.3f}")
    if show_soft:
        cells += [str(cell.soft), percent(cell.accuracy_with_soft)]
    cells.append(str(cell.blank))
    return cells + ([str(cell.unscored)] if show_unscored else [])


def _agreement(agreement: Agreement, examples: bool = True) -> list[str]:
    buckets = agreement.buckets
    header = ["domain", *buckets]
    rows = [
        [domain or "(no domain)", *(str(c[b]) for b in buckets)] for domain, c in agreement.domains.items()
    ]
    rows.append(["overall", *(str(agreement.overall[b]) for b in buckets)])
    first, second = agreement.pair
    lines = [f"agreement: {first} vs {second}", *text_table(header, rows)]
    if not examples:
        return lines
    lines += ["", "  examples:"]
    for bucket, found in agreement.examples.items():
        for example in found:
            lines.append(
                f"    {bucket:<13} {one_line(example.id)}: golden {_snip(example.answer)} "
                f"· response {_snip(example.response)}"
            )
    if agreement.review_ids:
        only = "overlap-only" if agreement.pair == default_pair() else f"{second}-only"
        lines += [
            "",
            f"  review: {len(agreement.review_ids)} {only} rows hold every golden word "
            "but not the golden phrase;"
            if agreement.pair == default_pair()
            else f"  review: {len(agreement.review_ids)} {only} rows pass {second} and fail {first};",
            "  each may be a correct paraphrase or a different claim. Check them by hand or with a judge:",
            f"    {_ids(agreement.review_ids)}",
        ]
    return lines


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
        lines += [name, *text_table(header, rows), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_agreement(
    found: Sequence[MetricAgreement], column: str, signatures: Mapping[str, str] | None = None
) -> str:
    """Each metric against the human labels: confusion matrix, precision, recall, Cohen's kappa."""
    lines = [one_line(f"agreement with the human labels in '{column}' (a pass counts as 'correct')"), ""]
    header = ["scope", "n", "tp", "fp", "fn", "tn", "precision", "recall", "agreement", "kappa", "95% CI"]
    for metric in found:
        scopes = [("all", metric.overall)]
        scopes += [(f"domain {d or '(none)'}", c) for d, c in metric.domains.items()]
        scopes += [(f"lang {lang}", c) for lang, c in metric.langs.items()]
        title = f"{metric.metric}   [{signatures[metric.metric]}]" if signatures else metric.metric
        lines += [title, *text_table(header, [[label, *_confusion_cells(c)] for label, c in scopes])]
        lines += _undefined_kappas(scopes)
        others = ", ".join(
            f"{label} {count(n, 'row')}, {p} passed" for label, (n, p) in metric.other_labels.items()
        )
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
    shares = (confusion.precision, confusion.recall, confusion.raw_agreement)
    return [*map(str, counts), *map(_ratio, shares), value, ci]


def _undefined_kappas(scopes: Sequence[tuple[str, Confusion]]) -> list[str]:
    """A line per reason kappa is n/a, naming its scopes ("kappa n/a: every label is one class (all,
    domain geo)"), so an n/a is never read as a kappa of 0."""
    by_reason: dict[str, list[str]] = {}
    for label, confusion in scopes:
        if confusion.kappa_undefined is not None:
            by_reason.setdefault(confusion.kappa_undefined, []).append(label)
    return [f"  kappa n/a: {reason} ({one_line(', '.join(labels))})" for reason, labels in by_reason.items()]


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
