"""The ``judge`` metric: a chain of LLM judges over a dataset, optionally behind a cascade.

A cascade (``Cascade``) decides the rows it can without a judge and sends only the rest, each for a
reason it counts. ``assay score --cascade`` uses the matchers' (``MATCHERS_AGREE``); ``assay run``
gives its own, the outcome rule of ``assay.harness.outcomes`` (only the items it leaves unscored are
sent). With the matchers' cascade, the deterministic matchers decide the clear rows, and only the rest
cost a model call: a row is clearly correct when exact_substring, word_overlap and phrase_match all pass, and
clearly incorrect when all three fail and no word of any golden answer (under the unicode profile)
is among the response's words. But matchers are blind where the words say the opposite of their
sense ("the answer is not Delhi, but Ganga" passes all three): a row whose response carries a
negation, contrast or hedge cue, or names several candidates (``text/cues.py``), is always sent to
the judge. A blank response is incorrect without asking anyone (the seed's caveat 4), and a row whose
system failed (``Reply.error``) is unscored without asking anyone, as under every metric. The report says
how many rows the judges saw, why the cascade decided or sent each row, and how often the judges
agreed with each matcher on the rows both scored.

The judge is a Scorer (``JudgeSetup.scorer()``, or ``judge_scorer(setup)``) like any other metric: a run
scorer (``Scorer.score_run``, asynchronous: it asks servers concurrently) that needs the verdicts of its
cascade's matchers (the scorers declaring ``Scorer.cascade``), reads those of every other row scorer that
ran (to report how often the judges agreed with each), and returns its accounting (``JudgeSummary``) as
its MetricScores' ``details`` (``Summary.details["judge"]``, read by ``judge_summary``). ``JudgeMetric``
holds the work.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Protocol

from .._version import __version__
from ..errors import UsageError
from ..metric import MetricScores, Outcome, RunView, Scorer, system_failures
from ..records import Dataset, Record
from ..scorer_registry import SCORERS, declared
from ..signatures import Signature
from ..text import cues, unicode
from ._base import Judge
from .accounting import JUDGE as JUDGE  # the judge's metric, named where it is scored
from .accounting import Decided, JudgeSummary, top_rationales, verdicts_by_judge
from .jury import JuryRow, JuryRule, Member, check_jury, family_warnings, jury_rule, jury_summary, votes_said
from .jury import votes_text as votes_text
from .prompt import CORRECT, INCORRECT
from .rubric import EQUIVALENCE, Rubric
from .run import Item, Judgement, JudgeOptions, RunStats, judge_items

VERSION = 1
DESCRIPTION = (
    "a chain of LLM judges' verdict under a rubric (by default: is the response equivalent to a golden "
    "answer)"
)
# What decided a row a cascade decided, "cascade (...)": a judge's label (kind:...) never reads so.
CASCADE_PREFIX = "cascade ("
CASCADE = f"{CASCADE_PREFIX}the matchers agree)"
BLANK = "blank response"
SYSTEM_ERROR = "system error"  # what decided a row whose system failed (unscored): no judge
# Why the cascade decided a row, or sent it to the judges: the keys of JudgeSummary.cascade.
ALL_PASS, ALL_FAIL = "all_matchers_passed", "all_matchers_failed_no_golden_word"
SENT_CUE, SENT_CANDIDATES = "sent_for_a_cue", "sent_for_several_candidates"
SENT_UNDECIDED = "sent_matchers_undecided"
CASCADE_REASONS = (ALL_PASS, ALL_FAIL, SENT_CUE, SENT_CANDIDATES, SENT_UNDECIDED)


@dataclass(frozen=True)
class Sorted:
    """A cascade's word on one row: why it decided or sent it (a key of its ``reasons``), and its verdict
    when it decided the row (None: sent to the judges)."""

    reason: str
    decided: Judgement | None = None


class Cascade(Protocol):
    """What decides the rows it can without a judge, and sends the rest to the chain."""

    @property
    def signature_parts(self) -> tuple[str, ...]:
        """In the judge's signature: which rows the judges saw depends on it."""
        ...

    @property
    def needs(self) -> tuple[str, ...]:
        """The metrics whose verdicts it reads, scored before the judge."""
        ...

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it decides or sends a row: the keys of ``JudgeSummary.cascade``, in the order reported."""
        ...

    def sort(self, records: Sequence[Record], results: Mapping[str, MetricScores]) -> list[Sorted]:
        """Every row's Sorted, in row order (`results`: the verdicts of the metrics it `needs`)."""
        ...


@dataclass(frozen=True)
class MatchersAgree:
    """``assay score --cascade``: a row is decided where exact_substring, word_overlap and phrase_match
    agree and no cue says their reading may be blind (see this module's docstring)."""

    signature_parts: tuple[str, ...] = ("cascade:on", cues.SIGNATURE)
    reasons: tuple[str, ...] = CASCADE_REASONS

    @property
    def needs(self) -> tuple[str, ...]:
        """The matchers it reads: the scorers that declare ``Scorer.cascade``."""
        return declared("cascade")

    def sort(self, records: Sequence[Record], results: Mapping[str, MetricScores]) -> list[Sorted]:
        columns = [results[name].outcomes for name in self.needs]
        return [_matchers_sorted(row, {column[i] for column in columns}) for i, row in enumerate(records)]


MATCHERS_AGREE = MatchersAgree()


@dataclass(frozen=True)
class JudgeSetup:
    chain: tuple[Judge, ...]
    options: JudgeOptions = field(default_factory=JudgeOptions)
    # True: the matchers' cascade (MATCHERS_AGREE); a Cascade: that one; False: every row to the judges
    cascade: bool | Cascade = False
    system_model: str | None = None  # the model under test, for the cross-family rule
    rubric: Rubric = EQUIVALENCE  # what the judges are asked, and how their replies are read
    jury: str | None = None  # a jury rule's name (jury.JURY_RULES): every judge asked, the rule decides

    def __post_init__(self) -> None:
        if self.jury is not None:
            jury_rule(self.jury)
            check_jury([judge.label for judge in self.chain])

    @property
    def jury_rule(self) -> JuryRule | None:
        """The jury's rule, None for a chain (the first judge that answers decides)."""
        return None if self.jury is None else jury_rule(self.jury)

    @property
    def cascade_rule(self) -> Cascade | None:
        """The cascade in front of the judges, None without one."""
        if isinstance(self.cascade, bool):
            return MATCHERS_AGREE if self.cascade else None
        return self.cascade

    def signature_parts(self) -> tuple[str, ...]:
        """What decides the judge's verdicts besides the run's options: the chain, the rubric, the
        truncation, and the cascade (which rows the judges see)."""
        chain = ">".join(f"{judge.label}[{judge.sampling.signature()}]" for judge in self.chain)
        rule = self.cascade_rule
        return (
            f"chain:{chain}",
            *([f"jury:{self.jury_rule.name}"] if self.jury_rule is not None else []),
            self.rubric.signature,
            f"truncate:{self.options.max_response_chars}",
            *(rule.signature_parts if rule is not None else ("cascade:off",)),
        )

    def signature(self, options: str | Sequence[str] = ()) -> Signature:
        """The judge metric's signature; `options` are the run's parts, each ``name:value`` (nfc, the
        intervals' method: ``ScoreOptions.signature_info()``). The same as the engine's for its Scorer."""
        parts = [
            *self.signature_parts(),
            *([options] if isinstance(options, str) else options),
            f"assay:{__version__}",
        ]
        return Signature.of(f"{JUDGE}@{VERSION}", parts)

    def scorer(self) -> Scorer:
        """The judge as a metric to score: ``score(data, [..., setup.scorer()])``."""
        return judge_scorer(self)

    def warnings(self) -> list[str]:
        """Seed 002's cross-family rule: a judge of the system's own family grades with its biases; and a
        jury's judges of one family (``jury.family_warnings``)."""
        return self.jury_warnings() + self.system_family_warnings()

    def jury_warnings(self) -> list[str]:
        if self.jury is None:
            return []
        from .spec import family_is_known, model_family  # spec loads the HTTP client: only when checked

        return family_warnings(
            [Member(j.label, model_family(j.model), family_is_known(j.model)) for j in self.chain]
        )

    def system_family_warnings(self) -> list[str]:
        if self.system_model is None:
            return []
        from .spec import model_family  # spec loads the HTTP client: only when a family is checked

        family = model_family(self.system_model)
        return [
            f"the judge {judge.label} is of the same model family ({family}) as the system under test "
            f"({self.system_model}); use a judge of another family"
            for judge in self.chain
            if model_family(judge.model) == family
        ]


TEXT_COLUMNS = ("judge_by", "judge_model", "judge_rationale", "judge_raw")  # the judge's text columns
VOTES_COLUMN = "judge_votes"  # with a jury: each judge's vote, as JSON (jury.votes_text)


@dataclass(frozen=True)
class JudgeMetric:
    """The judge as a metric: a chain of judges asked under a rubric, behind the cascade or not."""

    setup: JudgeSetup
    name: ClassVar[str] = JUDGE
    graded: ClassVar[bool] = False  # a verdict per row, no score
    text_columns: ClassVar[tuple[str, ...]] = TEXT_COLUMNS
    # It asks servers, concurrently, in one event loop: a run with it is scored whole, in one process
    # (``parallel`` splits only runs of Scorers), after the metrics it `needs`.
    runs_async: ClassVar[bool] = True

    @property
    def rubric(self) -> Rubric:
        return self.setup.rubric

    @property
    def inputs(self) -> tuple[str, ...]:
        """The record fields the judge reads: its rubric's (as a Scorer's ``inputs``)."""
        return self.rubric.inputs

    @property
    def needs(self) -> tuple[str, ...]:
        """The metrics whose verdicts it reads, to be scored first: its cascade's."""
        rule = self.setup.cascade_rule
        return () if rule is None else tuple(rule.needs)

    def signature(self, options: str | Sequence[str] = ()) -> Signature:
        """Its signature; `options` are the run's parts (``ScoreOptions.signature_info()``)."""
        return self.setup.signature(options)

    def check_inputs(self, dataset: Dataset) -> None:
        """An InputError, before any work, when the data lacks a field the rubric fills in."""
        self.rubric.check_inputs(dataset)

    def score(
        self,
        dataset: Dataset,
        results: Mapping[str, MetricScores],
        blank: bytearray,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[MetricScores, JudgeSummary]:
        """The judge's verdict per row (PASS, FAIL or UNSCORED, with who decided and why), and its
        accounting; `results` holds the verdicts of the metrics it needs."""
        scores = asyncio.run(self.score_run(RunView(dataset, results, blank, None, progress)))
        return scores, scores.details

    async def score_run(self, view: RunView) -> MetricScores:
        """``Scorer.score_run``: the verdicts, with the accounting as their ``details``."""
        setup, records, results = self.setup, view.records, view.metrics
        decided, reasons = _decided_without_judges(records, results, view.blank, setup.cascade_rule)
        items = [Item(i, self.rubric.values(r)) for i, r in enumerate(records) if i not in decided]
        judgements, stats = await judge_items(
            items, setup.chain, setup.options, view.progress, self.rubric, setup.jury_rule
        )
        by_row = dict(decided) | {item.index: judgement for item, judgement in zip(items, judgements)}
        scores = _columns([by_row[i] for i in range(len(records))], jury=setup.jury is not None)
        scores.details = _summary(setup, results, decided, items, judgements, stats, reasons)
        if setup.jury_rule is not None:
            rows = [
                JuryRow(item.index, records[item.index].id, j.votes) for item, j in zip(items, judgements)
            ]
            labels = [judge.label for judge in setup.chain]
            scores.details = replace(scores.details, jury=jury_summary(setup.jury_rule, labels, rows))
        return scores

    @staticmethod
    def evidence(scores: MetricScores, index: int) -> str:
        """The rule behind row `index`'s verdict, in the judge's own words (see ``judge_rule``)."""
        return judge_rule(scores, index)


def judge_scorer(setup: JudgeSetup) -> Scorer:
    """The judge of `setup` as a Scorer: a run scorer needing its cascade's matchers, and reading every
    other row scorer that runs (``name?``), for the judges' agreement with each."""
    metric = JudgeMetric(setup)
    others = tuple(f"{name}?" for name, scorer in SCORERS.items() if not scorer.by_run)
    return Scorer(
        name=JUDGE,
        description=DESCRIPTION,
        score_run=metric.score_run,
        version=VERSION,
        signature_parts=setup.signature_parts(),
        needs=(*metric.needs, *(name for name in others if name[:-1] not in metric.needs)),
        check=metric.check_inputs,
        rule=judge_rule,
        text_columns=(*TEXT_COLUMNS, *([VOTES_COLUMN] if setup.jury is not None else [])),
        referee=True,  # a second opinion on the matchers: rows where they differ are to review
        decides_blank=True,  # "blank response", without asking anyone
        default=False,
    )


def with_judge(metrics: Sequence[str] | None, setup: JudgeSetup | None) -> list[str | Scorer] | None:
    """Metrics named for a run as the engine takes them: ``judge`` is the configured judge's Scorer (a
    UsageError, before any work, when no chain of judges is given)."""
    if metrics is None or JUDGE not in metrics:
        return None if metrics is None else list(metrics)
    if setup is None:
        raise UsageError(
            "the judge metric needs a chain of judges",
            fix="give --judge SPEC (repeatable), or --config FILE (or ./assay.toml) with [[judge.chain]]",
        )
    judge = setup.scorer()
    return [judge if name == JUDGE else name for name in metrics]


def judge_rule(scores: MetricScores, index: int) -> str:
    """Why the judge metric decided row `index` as it did: who decided and its rationale ("openai:m:
    CORRECT (names Delhi)"), or why the row is unscored, with the judge's last reply."""
    by, rationale, raw = (
        scores.texts.get(column, [None] * len(scores))[index]
        for column in ("judge_by", "judge_rationale", "judge_raw")
    )
    outcome = scores.outcome(index)
    votes = scores.texts.get(VOTES_COLUMN, [None] * len(scores))[index]
    said = f"; the votes: {votes_said(votes)}" if votes else ""
    if outcome is Outcome.UNSCORED:
        return scores.reasons.get(index, "unscored") + (f"; its reply: {raw!r}" if raw else "") + said
    verdict = CORRECT if outcome is Outcome.PASS else INCORRECT
    return f"{by}: {verdict}" + (f" ({rationale})" if rationale else "") + said


def asked_judges(scores: MetricScores, index: int) -> bool:
    """Whether row `index` went to the chain of judges (decided by one, or left unscored by all), rather
    than being decided without them: by a cascade, as blank, or as a system failure."""
    by = scores.texts.get("judge_by", [None] * len(scores))[index]
    return by is None or (by not in (BLANK, SYSTEM_ERROR) and not by.startswith(CASCADE_PREFIX))


def judge_metric(
    dataset: Dataset,
    results: Mapping[str, MetricScores],
    blank: bytearray,
    setup: JudgeSetup,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[MetricScores, JudgeSummary]:
    """``JudgeMetric(setup).score(...)``: the judge's verdicts and its accounting."""
    return JudgeMetric(setup).score(dataset, results, blank, progress)


def _decided_without_judges(
    records: Sequence[Record], results: Mapping[str, MetricScores], blank: bytearray, cascade: Cascade | None
) -> tuple[dict[int, Judgement], dict[str, int]]:
    """The rows decided without a judge (those whose system failed, unscored; blank ones; with a
    cascade, those it decides), and how many rows the cascade decided or sent for each of its reasons
    (empty without a cascade)."""
    decided = {
        index: Judgement(Outcome.UNSCORED, judge=SYSTEM_ERROR, reason=reason)
        for index, reason in system_failures(records).items()
    }
    for index in itertools.compress(range(len(blank)), blank):
        decided.setdefault(index, Judgement(Outcome.FAIL, judge=BLANK))
    if cascade is None:
        return decided, {}
    missing = [name for name in cascade.needs if name not in results]
    if missing:
        raise UsageError(f"the cascade needs the metrics {', '.join(missing)}", fix="run them too")
    reasons = dict.fromkeys(cascade.reasons, 0)
    for index, found in enumerate(cascade.sort(records, results)):
        if index in decided:
            continue
        reasons[found.reason] += 1
        if found.decided is not None:
            decided[index] = found.decided
    return decided, reasons


def _matchers_sorted(record: Record, outcomes: set[int]) -> Sorted:
    """The matchers' cascade on one row: decided PASS or FAIL by CASCADE, or sent, and why."""
    reason = _cascade_reason(record, outcomes)
    if reason not in (ALL_PASS, ALL_FAIL):
        return Sorted(reason)
    return Sorted(reason, Judgement(Outcome.PASS if reason == ALL_PASS else Outcome.FAIL, judge=CASCADE))


def _cascade_reason(record: Record, outcomes: set[int]) -> str:
    """Why the cascade decides one row (ALL_PASS, ALL_FAIL), or sends it to the judges."""
    response = unicode.words(unicode.normalise(record.response))
    if outcomes == {Outcome.PASS}:
        clear = ALL_PASS
    elif outcomes == {Outcome.FAIL} and not _shares_a_word(response, record.answers):
        clear = ALL_FAIL
    else:
        return SENT_UNDECIDED
    if cues.cue_in_words(response) is not None:
        return SENT_CUE
    if cues.names_several_candidates(record.response, record.answers):
        return SENT_CANDIDATES
    return clear


def _shares_a_word(response: Sequence[str], answers: Sequence[str]) -> bool:
    words = set(response)
    return any(not words.isdisjoint(unicode.words(unicode.normalise(a))) for a in answers)


def _columns(judgements: Sequence[Judgement], jury: bool = False) -> MetricScores:
    scores = MetricScores.all_failing(JUDGE, len(judgements))
    for row, judgement in enumerate(judgements):
        scores.outcomes[row] = judgement.outcome
        if judgement.reason is not None:
            scores.reasons[row] = judgement.reason
    scores.texts = {
        "judge_by": [j.judge for j in judgements],
        "judge_model": [j.model for j in judgements],
        "judge_rationale": [j.rationale for j in judgements],
        "judge_raw": [j.raw for j in judgements],
    }
    if jury:  # a row decided without the jury (blank, cascade, system error) has no votes
        scores.texts[VOTES_COLUMN] = [votes_text(j.votes) if j.votes else None for j in judgements]
    return scores


def _by_cascade(judgement: Judgement) -> bool:
    return judgement.judge is not None and judgement.judge.startswith(CASCADE_PREFIX)


def _summary(
    setup: JudgeSetup,
    results: Mapping[str, MetricScores],
    decided: Mapping[int, Judgement],
    items: Sequence[Item],
    judgements: Sequence[Judgement],
    stats: RunStats,
    cascade: Mapping[str, int],
) -> JudgeSummary:
    agreement = {}
    for name, scores in results.items():
        pairs = [
            (j.outcome == Outcome.PASS, scores.outcomes[item.index] == Outcome.PASS)
            for item, j in zip(items, judgements)
            if j.outcome != Outcome.UNSCORED and scores.outcomes[item.index] != Outcome.UNSCORED
        ]
        agreement[name] = (len(pairs), sum(judge == matcher for judge, matcher in pairs))
    # With a jury each judge's own votes are counted, not the jury's verdicts: a judge that does not judge
    # is found among jurors as in a chain.
    decisions: Sequence[Decided] = [v for j in judgements for v in j.votes] if setup.jury else judgements
    return JudgeSummary(
        sent_to_judges=len(items),
        decided_by_cascade=sum(_by_cascade(j) for j in decided.values()),
        blank=sum(j.judge == BLANK for j in decided.values()),
        truncated=stats.truncated,
        over_budget=stats.over_budget,
        seconds=stats.seconds,
        usage=stats.usage,
        agreement=agreement,
        notes=(*stats.dropped, *setup.warnings()),
        verdicts=verdicts_by_judge(decisions),
        top_rationale=top_rationales(decisions),
        cascade=cascade,
    )
