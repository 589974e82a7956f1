"""What a scorer declares as its inputs, resolved the same way for every scorer: a record field,
``gold.<field>``, ``reply.<field>``, ``column:<name>``, or the run's source documents (see
``Scorer.inputs``)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .errors import InputError, UsageError
from .metric import OPTIONAL, Scorer
from .records import Dataset, Record
from .registry import load_named

if TYPE_CHECKING:
    from .documents import Sources


class ScoreOptions(Protocol):
    """What resolving inputs, and deciding a batch with its evidence, read of the run's options
    (``scoring.ScoreOptions``)."""

    @property
    def nfc(self) -> bool: ...

    @property
    def inflection(self) -> bool: ...

    @property
    def regex_column(self) -> str: ...

    @property
    def sources(self) -> str | None: ...


RECORD_INPUTS = ("id", "lang", "question", "domain", "scope")  # Record fields a scorer may declare
# Optional record fields, with the words and the way to name them that a missing one's error gives.
_FIELD_HELP = {
    "lang": ("language", "--lang-col", "ColumnMap(lang=...)"),
    "domain": ("domain", "--domain-col", "ColumnMap(domain=...)"),
    "scope": ("scope", None, None),
}
_GOLD_WORDS = {"expected_regex": "pattern"}  # how a missing gold field is named in errors


def gold_column(field_name: str, options: ScoreOptions) -> str:
    """The flat input column a `gold.<field>` input falls back to when a row has no `gold` object (or
    its field is unset): `expected_regex` (or --regex-col) for the pattern, else the field's name."""
    return options.regex_column if field_name == "expected_regex" else field_name


# An input every row reads alike: the documents of ScoreOptions.sources (``documents.Sources``),
# loaded on first use, once per state of the folder (so pypdf loads only for a metric that reads them).
SOURCES = "sources"
# Where the documents are read and signed: the grounding scorers' code, named, not imported (a higher layer).
_LOAD_SOURCES = "assay.scorers.grounding:load_run_sources"
_SOURCES_SIGNATURE = "assay.scorers.grounding:sources_signature"


def has_input(dataset: Dataset, name: str, options: ScoreOptions) -> bool:
    """Whether the dataset can give every row a value for the input `name` (see ``Scorer.inputs``); an
    optional input (``gold.value?``) always can, as None where the dataset lacks it."""
    if name.endswith(OPTIONAL) or name in ("id", "question"):
        return True
    if name == SOURCES:
        return options.sources is not None
    if name in RECORD_INPUTS:
        return name in dataset.fields
    part, _, rest = name.partition(".")
    if part == "gold" and rest:
        return "gold" in dataset.fields or gold_column(rest, options) in dataset.columns
    if part == "reply" and rest:
        return "reply" in dataset.fields
    if name.startswith("column:"):
        return name.removeprefix("column:") in dataset.columns
    return False


def check_inputs(dataset: Dataset, scorer: Scorer, options: ScoreOptions) -> None:
    """A metric asked for whose input is missing stops the run, the same way for each: scoring nothing
    and exiting 0 would pass for a result. One error, naming the metric, the column and the fix."""
    for need in scorer.inputs:
        if has_input(dataset, need, options):
            continue
        if need == SOURCES:
            raise InputError(
                f"{scorer.name} needs the source documents the replies cite, and no sources folder is given",
                where=dataset.source,
                fix="give --sources DIR, the folder of the documents (as for assay gold build --sources); "
                "ScoreOptions(sources=...) in Python",
            )
        what, column, fix = _missing_input(need, options)
        raise InputError(
            f"{scorer.name} needs each row's {what}, and there is no column '{column}' "
            f"(columns found: {', '.join(dataset.columns)})",
            where=dataset.source,
            fix=fix,
        )


def _missing_input(name: str, options: ScoreOptions) -> tuple[str, str, str]:
    """(what the input is in words, the column looked for, the fix) for an input the dataset lacks."""
    if name in _FIELD_HELP:
        what, flag, python = _FIELD_HELP[name]
        named = f", or name it with {flag} NAME ({python} in Python)" if flag else f" named '{name}'"
        return what, name, f"add the column{named}"
    part, _, rest = name.partition(".")
    if part == "gold" and rest:
        column = gold_column(rest, options)
        if rest == "expected_regex":
            fix = (
                "add the column, or name it with --regex-col NAME (ScoreOptions(regex_column=...) in Python)"
            )
        else:
            fix = f"add the column, or a 'gold' column whose objects hold '{rest}'"
        return _GOLD_WORDS.get(rest, f"gold {rest}"), column, fix
    if part == "reply" and rest:
        return f"reply {rest}", "reply", f"add a 'reply' column whose objects hold '{rest}'"
    if name.startswith("column:"):
        column = name.removeprefix("column:")
        return f"'{column}'", column, "add the column"
    return (
        name,
        name,
        f"'{name}' is not an input assay knows: declare a record field, gold.X, reply.X or column:X",
    )


def row_inputs(batch: Sequence[Record], name: str, options: ScoreOptions) -> list[Any]:
    """Each row's value of the input `name` (None where a row has none): the one resolver of inputs."""
    name = name.removesuffix(OPTIONAL)
    if name == SOURCES:  # an optional sources input reads None without a folder
        return [None if options.sources is None else run_sources(options)] * len(batch)
    if name in RECORD_INPUTS:
        return list(map(operator.attrgetter(name), batch))
    part, _, rest = name.partition(".")
    if part == "gold":
        column = gold_column(rest, options)
        return [_gold_value(record, rest, column) for record in batch]
    if part == "reply":
        return [None if record.reply is None else getattr(record.reply, rest, None) for record in batch]
    column = name.removeprefix("column:")
    return [record.meta.get(column) for record in batch]


def run_sources(options: ScoreOptions) -> Sources:
    """The documents of ``options.sources``, loaded once per state of the folder."""
    if options.sources is None:
        raise UsageError("no sources folder is given", fix="give --sources DIR (ScoreOptions(sources=...))")
    load = load_named(_LOAD_SOURCES)  # the PDF libraries load only here
    sources: Sources = load(options.sources)
    return sources


def sources_signature(options: ScoreOptions) -> str:
    """The signature part of the sources folder: its documents' ids, hashes and extractors."""
    signature_of = load_named(_SOURCES_SIGNATURE)
    return str(signature_of(run_sources(options)))


def _gold_value(record: Record, field_name: str, column: str) -> Any:
    value = None if record.gold is None else getattr(record.gold, field_name, None)
    return record.meta.get(column) if value is None else value
