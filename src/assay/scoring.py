"""Run scorers over a dataset: one pass over the rows, every metric's verdicts stored as columns."""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._version import __version__
from .records import ColumnMap, Dataset, Record, load_records
from .scorers import MetricScores, Outcome, RowScore, Scorer, get_scorer
from .summary import Summary, summarize

DEFAULT_METRICS = ("exact_substring", "word_overlap")

ProgressCallback = Callable[[int, int], None]  # (rows done, rows in all)


@dataclass(frozen=True)
class ScoreOptions:
    nfc: bool = False  # normalise response and golden answers to NFC before scoring (the seed's caveat 3)

    def signature_parts(self) -> str:
        return f"nfc:{'on' if self.nfc else 'off'}"


@dataclass(frozen=True)
class ScoreRun:
    """The result of ``score``: the dataset, each metric's per-row verdicts, and the summary."""

    dataset: Dataset
    options: ScoreOptions
    metrics: Mapping[str, MetricScores]
    blank: bytearray  # 1 where the response was empty or whitespace only (scored incorrect)
    summary: Summary

    @property
    def records(self) -> list[Record]:
        return self.dataset.records


def signature(metric: str, options: ScoreOptions) -> str:
    """Two runs whose signatures are equal give equal numbers on the same input."""
    version = get_scorer(metric).version
    return f"{metric}@{version}|{options.signature_parts()}|assay:{__version__}"


def score(
    data: Dataset | str | Path | Any,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    options: ScoreOptions | None = None,
    columns: ColumnMap | None = None,
    progress: ProgressCallback | None = None,
) -> ScoreRun:
    """Score every row of ``data`` (a Dataset, a file path, or a pandas DataFrame) under each metric."""
    options = options or ScoreOptions()
    dataset = data if isinstance(data, Dataset) else load_records(data, columns=columns)
    scorers = [get_scorer(name) for name in dict.fromkeys(metrics)]
    results = {s.name: _empty_scores(s) for s in scorers}
    blank = bytearray(len(dataset.records))
    every = max(1, len(dataset.records) // 100)
    for index, record in enumerate(dataset.records):
        blank[index] = not record.response.strip()
        _score_record(record, scorers, results, options, is_blank=blank[index] == 1)
        if progress is not None and (index + 1) % every == 0:
            progress(index + 1, len(dataset.records))
    signatures = {name: signature(name, options) for name in results}
    summary = summarize(dataset, results, blank, signatures, options.signature_parts())
    return ScoreRun(dataset, options, results, blank, summary)


def _empty_scores(scorer: Scorer) -> MetricScores:
    return MetricScores(scorer.name, extras={name: array("i") for name in scorer.extra_columns})


def _score_record(
    record: Record,
    scorers: Sequence[Scorer],
    results: Mapping[str, MetricScores],
    options: ScoreOptions,
    *,
    is_blank: bool,
) -> None:
    response, answers = record.response, record.answers
    if options.nfc:
        response = unicodedata.normalize("NFC", response)
        answers = tuple(unicodedata.normalize("NFC", answer) for answer in answers)
    views: dict[Callable[[str], str], tuple[str, tuple[str, ...]]] = {}
    for scorer in scorers:
        seen = views.get(scorer.view)
        if seen is None:  # scorers sharing a view (both seed protocols lowercase) compute it once
            seen = views[scorer.view] = (scorer.view(response), tuple(map(scorer.view, answers)))
        row_score = scorer.score_row(*seen)
        if is_blank:  # the seed's caveat 4: a blank response is incorrect (counted apart), whatever the golden
            row_score = RowScore(Outcome.FAIL, -1, row_score.extras)
        results[scorer.name].append(row_score)
