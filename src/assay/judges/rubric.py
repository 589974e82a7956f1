"""Judge rubrics: what the judge is asked, and how its reply is read.

A ``Rubric`` is a prompt (its id, version and texts: the system message, the user template and the
reminder sent once when a reply is not a verdict), the record fields it fills into the template, and
the parser that turns a reply into a verdict. Its ``signature`` (``prompt:ID@VERSION#HASH``, the hash of
its texts) goes into every cache key and into the judge metric's signature, so a changed prompt can never
be mistaken for the old one. ``equivalence`` (``judges.prompt``) is the default built-in rubric;
``rag-answer`` (``judges.rag_rubric``) grades a RAG system's reply for its value and its citation.

Rubrics register by name: in-process with ``register_rubric``, or from another package through an
entry point in the group ``assay.rubrics`` whose object is a Rubric::

    [project.entry-points."assay.rubrics"]
    strict = "my_package.rubrics:STRICT"

The entry points load on the registry's first use; one that fails to load, gives something else than
a Rubric, or takes a built-in's name stops the run with one error naming it.

Every text from the data is fenced: a fence marker of the rubric (``<response>``, ``</response>``) inside
a value is made inert, so that only the prompt's own markers delimit the data. A value that is a list
of texts (the golden answers) is written one per line as ``- text``; any other value that is not text
(a reply's citations) as JSON.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import regex

from ..errors import InputError, UsageError
from . import _base, rag_rubric
from .prompt import PROMPT_ID, PROMPT_VERSION, REMINDER, SYSTEM, USER, Parsed, parse_verdict

if TYPE_CHECKING:
    import importlib.metadata

    from ..records import Dataset, Record

ENTRY_POINT_GROUP = "assay.rubrics"
DEFAULT_RUBRIC = _base.DEFAULT_RUBRIC
# The record fields a rubric may fill in besides these: "gold.<field>", "reply.<field>", "column:<name>".
RECORD_FIELDS = ("id", "question", "answers", "response", "domain", "lang", "scope")
PARTS = ("gold", "reply")
# Fields holding the text under grading: cut to the judge's max_response_chars, with a marker.
FITTED_FIELDS = ("response", "reply.text")
_DEFUSED = str.maketrans({"<": "\u2039", ">": "\u203a"})  # a fence marker in the data, made inert


@dataclass(frozen=True)
class Rubric:
    """One judge prompt and the parsing of its replies (see the module's docstring)."""

    name: str  # what --judge-rubric and assay.toml's judge.rubric name
    id: str  # the prompt's id, in the signature
    version: int
    system: str
    user: str  # a str.format template: one {placeholder} per entry of `fields`
    reminder: str
    fields: Mapping[str, str]  # placeholder -> the record field it is filled from
    # Reply text -> Parsed: verdict CORRECT (a pass), INCORRECT (a fail) or None (not a verdict).
    parse: Callable[[str], Parsed] = parse_verdict
    fences: tuple[str, ...] = ("response",)  # tags whose markers are defused inside the data
    description: str = ""
    _fence: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"the judge rubric {self.name!r}"
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))
        named = {name for _, name, _, _ in string.Formatter().parse(self.user) if name is not None}
        if named != set(self.fields):
            raise UsageError(
                f"its user template names {sorted(named)}, its fields {sorted(self.fields)}",
                where=where,
                fix="give one field (placeholder -> record field) per {placeholder} of the template",
            )
        for source in self.fields.values():
            if not _known_field(source):
                raise UsageError(
                    f"it fills a placeholder from {source!r}, which is not a record field",
                    where=where,
                    fix=f"use one of {', '.join(RECORD_FIELDS)}, gold.FIELD, reply.FIELD or column:NAME",
                )
        tags = "|".join(regex.escape(tag) for tag in self.fences) or r"(?!)"
        object.__setattr__(self, "_fence", regex.compile(rf"<\s*/?\s*(?:{tags})\s*>", regex.IGNORECASE))

    def __hash__(self) -> int:
        return hash((self.name, self.signature))

    @property
    def hash(self) -> str:
        """The first 12 hex digits of the SHA-256 of the texts (system, user template, reminder)."""
        return hashlib.sha256("\x00".join((self.system, self.user, self.reminder)).encode()).hexdigest()[:12]

    @property
    def signature(self) -> str:
        """``prompt:ID@VERSION#HASH``: in the judge's cache keys and in its metric's signature."""
        return f"prompt:{self.id}@{self.version}#{self.hash}"

    @property
    def inputs(self) -> tuple[str, ...]:
        """The record fields the rubric reads, in the template's order (as a Scorer's ``inputs``)."""
        return tuple(dict.fromkeys(self.fields.values()))

    @property
    def fitted(self) -> tuple[str, ...]:
        """The placeholders that hold the text under grading (cut to the length limit)."""
        return tuple(p for p, source in self.fields.items() if source in FITTED_FIELDS)

    def values(self, record: Record) -> dict[str, object]:
        """Each placeholder's value for one record, as the record holds it."""
        return {placeholder: field_value(record, source) for placeholder, source in self.fields.items()}

    def messages(self, values: Mapping[str, object]) -> list[dict[str, str]]:
        """The chat messages that ask for one verdict, with every value fenced (see the module)."""
        user = self.user.format(**{name: self._written(value) for name, value in values.items()})
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def reminded(self, asked: list[dict[str, str]], reply: str) -> list[dict[str, str]]:
        """The conversation again, with the unparseable reply and the reminder: the one retry."""
        return [*asked, {"role": "assistant", "content": reply}, {"role": "user", "content": self.reminder}]

    def defused(self, text: str) -> str:
        """The text with every fence marker of the rubric made inert."""
        return str(self._fence.sub(lambda m: m.group().translate(_DEFUSED), text))

    def _written(self, value: object) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return self.defused(value)
        if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
            return "\n".join(f"- {self.defused(item)}" for item in value)
        return self.defused(json.dumps(value, ensure_ascii=False, default=_plain))

    def check_inputs(self, dataset: Dataset) -> None:
        """An InputError naming the rubric and the column when the data lacks a field it fills in."""
        for placeholder, source in self.fields.items():
            missing = _missing(dataset, source)
            if missing is not None:
                raise InputError(
                    f"the judge rubric {self.name!r} fills {{{placeholder}}} from {source}, and {missing} "
                    f"(columns found: {', '.join(dataset.columns)})",
                    where=dataset.source,
                    fix="add it to the data, or pick another rubric with --judge-rubric",
                )


def field_value(record: Record, source: str) -> object:
    """A record's value of a field: a Record field, ``gold.X`` / ``reply.X`` of its parts (None when
    the record has no such part), or ``column:NAME`` of its other input columns (None when absent)."""
    if source.startswith("column:"):
        return record.meta.get(source.removeprefix("column:"))
    part, dot, name = source.partition(".")
    if source == "reply.citations":
        return _citations_shown(getattr(record.reply, "citations", ()))
    if dot:
        return getattr(getattr(record, part, None), name, None)
    return getattr(record, source)


MAX_CITATIONS_SHOWN = 20  # a reply citing hundreds of passages must not fill the judge's context


def _citations_shown(citations: Sequence[Any]) -> list[str]:
    """A reply's citations as the judge reads them: the document and page of each ("policy, p.4"),
    the first MAX_CITATIONS_SHOWN, then how many more. Their quotes are left out: they are in the reply."""
    shown = [
        f"{citation.document}, p.{citation.page}" if citation.page is not None else str(citation.document)
        for citation in citations[:MAX_CITATIONS_SHOWN]
    ]
    if len(citations) > MAX_CITATIONS_SHOWN:
        shown.append(f"... and {len(citations) - MAX_CITATIONS_SHOWN} more")
    return shown


def _known_field(source: str) -> bool:
    if source.startswith("column:"):
        return len(source) > len("column:")
    part, dot, name = source.partition(".")
    return bool(name) and part in PARTS if dot else source in RECORD_FIELDS


def _missing(dataset: Dataset, source: str) -> str | None:
    """What the data lacks to fill a field from `source` (None: nothing)."""
    if source.startswith("column:"):
        column = source.removeprefix("column:")
        field_of = {read_from: name for name, read_from in dataset.fields.items()}
        if column in field_of:  # read into a Record field, so not among the other columns
            name = field_of[column]
            return f"the column '{column}' is read as the record's {name}: fill from {name}"
        return None if column in dataset.columns else f"there is no column '{column}'"
    part, dot, _ = source.partition(".")
    if dot and not any(getattr(record, part, None) is not None for record in dataset.records):
        return f"no row has a {part} part"
    return None


def _plain(value: object) -> object:
    """A value json cannot write by itself, made plain: a dataclass as a dict, anything else as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    return str(value)


EQUIVALENCE = Rubric(
    name="equivalence",
    id=PROMPT_ID,
    version=PROMPT_VERSION,
    system=SYSTEM,
    user=USER,
    reminder=REMINDER,
    fields={"question": "question", "goldens": "answers", "response": "response"},
    description="whether the response gives an answer semantically equivalent to a golden answer",
)
RAG_ANSWER = Rubric(
    name=rag_rubric.NAME,
    id=rag_rubric.PROMPT_ID,
    version=rag_rubric.PROMPT_VERSION,
    system=rag_rubric.SYSTEM,
    user=rag_rubric.USER,
    reminder=rag_rubric.REMINDER,
    fields=rag_rubric.FIELDS,
    fences=rag_rubric.FENCES,
    description=rag_rubric.DESCRIPTION,
)
BUILT_IN: Mapping[str, Rubric] = MappingProxyType({r.name: r for r in (EQUIVALENCE, RAG_ANSWER)})


class Registry(Mapping[str, Rubric]):
    """The built-in rubrics, those registered in-process, and the entry points' (loaded on first use)."""

    def __init__(self, built_in: Mapping[str, Rubric]) -> None:
        self._built_in = built_in
        self._added: dict[str, Rubric] = {}  # register_rubric's
        self._plugins: dict[str, Rubric] | None = None

    def register(self, rubric: Rubric) -> None:
        if not isinstance(rubric, Rubric):
            raise UsageError(
                f"register_rubric was given a {type(rubric).__name__}, not a Rubric",
                fix="give an assay.judges.rubric.Rubric",
            )
        known = self._added.get(rubric.name) or self._load().get(rubric.name)
        if rubric.name in self._built_in or (known is not None and known != rubric):
            owner = "a built-in rubric" if rubric.name in self._built_in else "another rubric"
            raise UsageError(
                f"a rubric named {rubric.name!r} is {owner} already", fix="give the rubric another name"
            )
        self._added[rubric.name] = rubric

    def _load(self) -> dict[str, Rubric]:
        if self._plugins is None:
            import importlib.metadata  # here: reading the installed packages' entry points is slow to load

            found: dict[str, Rubric] = {}
            for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
                found[entry_point.name] = self._plugin(entry_point, found)
            self._plugins = found
        return self._plugins

    def _plugin(self, entry_point: importlib.metadata.EntryPoint, found: Mapping[str, Rubric]) -> Rubric:
        where = f"entry point '{entry_point.name} = {entry_point.value}' (group {ENTRY_POINT_GROUP})"
        package = entry_point.dist.name if entry_point.dist is not None else "its package"
        fix = f"fix or uninstall {package}"
        try:
            loaded = entry_point.load()
        except Exception as exc:  # a plugin's own bug: named, not a traceback
            raise UsageError(
                f"the rubric plugin failed to load ({type(exc).__name__}: {exc})", where=where, fix=fix
            ) from None
        if not isinstance(loaded, Rubric):
            raise UsageError(
                f"the rubric plugin gives a {type(loaded).__name__}, not an assay Rubric",
                where=where,
                fix="point the entry point at an assay.judges.rubric.Rubric",
            )
        if entry_point.name in self._built_in or entry_point.name in found:
            owner = "a built-in rubric" if entry_point.name in self._built_in else "another plugin's"
            raise UsageError(
                f"the rubric plugin's name {entry_point.name!r} is {owner}; it is refused",
                where=where,
                fix=f"give the entry point another name (in {package})",
            )
        if loaded.name != entry_point.name:
            raise UsageError(
                f"the entry point is named {entry_point.name!r} but its rubric {loaded.name!r}",
                where=where,
                fix="name the entry point as its Rubric's name",
            )
        return loaded

    def _all(self) -> dict[str, Rubric]:
        return {**self._built_in, **self._load(), **self._added}

    def __getitem__(self, name: str) -> Rubric:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def forget(self, name: str) -> None:
        """Undo ``register_rubric`` for `name` (a test's, or a notebook's that is redefining one)."""
        self._added.pop(name, None)

    def reload(self) -> None:
        """Forget the entry points' rubrics, to find them again (after installing one in-process)."""
        self._plugins = None


RUBRICS = Registry(BUILT_IN)


def register_rubric(rubric: Rubric) -> Rubric:
    """Make `rubric` known by its name (to --judge-rubric, assay.toml and ``get_rubric``); returns it."""
    RUBRICS.register(rubric)
    return rubric


def get_rubric(name: str) -> Rubric:
    """The rubric of that name; a UsageError listing the known ones when there is none."""
    try:
        return RUBRICS[name]
    except KeyError:
        raise UsageError(f"unknown judge rubric {name!r}", fix=f"use one of: {', '.join(RUBRICS)}") from None


def messages(question: str, answers: Sequence[str], response: str) -> list[dict[str, str]]:
    """The chat messages of the ``equivalence`` rubric that ask for one verdict. A fence marker in any
    text from the data is made inert, so that only the prompt's own markers delimit the response."""
    return EQUIVALENCE.messages({"question": question, "goldens": tuple(answers), "response": response})
