"""Fuzzing templates files: whatever a TOML or YAML templates file holds, loading it and building with it
either works or is an ``InputError`` (exit 2), never another exception, and no example takes a second.

Templates are drawn with the real shape (``fields`` of templates, ``refusals``) and random content: keys
and answer types right or wrong, unicode, braces and format tricks in questions (``{title:>9}``,
``{title!r}``, ``{title.x}``, nested ``{title:{document}}``), huge numbers, long texts, lists where texts
belong, and then, as text, YAML's own tricks spliced in (anchors, aliases, merge keys, ``!!python``
tags, deep flow nesting) and random damage. A file that loads is used: every question is filled in, and
a gold set is built with it from a small verified corpus (refusals on).

Examples: ``ASSAY_FUZZ_EXAMPLES``, else 10,000 under ``CI=true`` and 200 locally. The seed is printed at
the start; ``ASSAY_FUZZ_SEED=N`` replays a run.
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from fuzzing import SEED, Huge, examples, fuzz_settings, one_example
from hypothesis import given, seed
from hypothesis import strategies as st

from assay.documents import load_sources
from assay.errors import AssayError, InputError
from assay.harness.claims import Verification, verify_claims
from assay.harness.facts import read_facts_file
from assay.harness.gold import build_gold, gold_jsonl, gold_report, report_markdown
from assay.harness.templates import MAX_QUESTION_OUTPUT, Templates, ask, load_templates

EXAMPLES = examples()
FUZZ = fuzz_settings(EXAMPLES)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-templates")


@pytest.fixture(scope="module")
def verification(folder: Path) -> Verification:
    """A small corpus, verified once: two claims found, the fields the drawn templates name."""
    sources = folder / "sources"
    sources.mkdir()
    page = "Acme Plan. The grace period is 30 days. AYUSH treatment is covered. Co-payment of 20% applies."
    (sources / "acme.txt").write_text(page, encoding="utf-8")
    claims = [
        {
            "field": "grace_period",
            "value": 30,
            "unit": "days",
            "source": {"quote": "grace period is 30 days"},
        },
        {"field": "ayush", "value": True, "source": {"quote": "AYUSH treatment is covered"}},
        {"field": "co_payment", "value": 20, "unit": "%", "source": {"quote": "Co-payment of 20% applies"}},
        {"field": "region", "value": "pan_india", "unit": "enum", "source": {"quote": "Acme Plan"}},
    ]
    facts = folder / "acme.json"
    facts.write_text(json.dumps({"document": "acme", "title": "Acme {Plan}", "claims": claims}), "utf-8")
    return verify_claims([read_facts_file(facts)], load_sources(sources, cache_dir=None))


# --- drawing templates -------------------------------------------------------------------------------------

FIELDS = ["grace_period", "ayush", "co_payment", "region", "grace_period_days", "x", "", "yes", "1"]
ANSWER_TYPES = ["number_unit", "money", "percent", "bool", "enum", "text", "date", "number", ""]
KEYS = ["questions", "answer_type", "unit", "category", "aliases", "yes", "no", "labels", "units", "<<"]
PLACES = ["{title}", "{document}", "{{", "}}", "{", "}", "{title:>300000000}", "{title!r}", "{title!z}",
          "{title:%Y}", "{title.__class__}", "{title[0]}", "{title:{document}}", "{0}", "{}", "{TITLE}",
          "{document:>99999999999999999999}", "{title:{title:{title}}}", "{title}" * 5]  # fmt: skip
AWKWARD = ["\u202e", "\ufeff", "\x00", "\ud800", "😀", "न", "ि", "'", '"', "\\", "\n", "#", "[", "]", "&",
           "*", "!", "|", ">", "-", ":", " "]  # fmt: skip

characters = st.sampled_from(AWKWARD + list("ab1 ")) | st.characters()
words = st.text(characters, max_size=8)
long_words = st.sampled_from([0, 0, 0, 999, 1_001, 5_000]).map(lambda n: "w" * n)
texts = words | long_words | st.sampled_from(PLACES)
questions = st.lists(texts, min_size=0, max_size=4).map("".join)


scalars = (
    texts
    | st.none()
    | st.booleans()
    | st.integers()
    | st.builds(Huge)
    | st.floats(allow_nan=True, allow_infinity=True)
)
values = scalars | st.lists(scalars, max_size=3) | st.dictionaries(words, scalars, max_size=2)
question_lists = st.lists(questions, max_size=3) | values


# Strategies built once (Hypothesis validates a strategy on its first draw: inside a composite, every time).
answer_types = st.sampled_from(ANSWER_TYPES) | values
extras = values | st.lists(texts, max_size=3) | st.dictionaries(texts, texts, max_size=2)
extra_keys = st.lists(st.sampled_from(KEYS[2:]), max_size=3, unique=True)
names = st.sampled_from(FIELDS) | words
refusals = st.fixed_dictionaries(
    {"question": questions | values},
    optional={"documents": st.lists(st.sampled_from(["*", "acme", "a*", "["]) | texts, max_size=3),
              "answer": texts, "category": texts, "extra": values},
)  # fmt: skip
refusal_lists = st.lists(refusals, max_size=3) | values


@st.composite
def field_templates(draw: st.DrawFn) -> dict[str, Any]:
    template: dict[str, Any] = {"questions": draw(question_lists), "answer_type": draw(answer_types)}
    for key in draw(extra_keys):
        template[key] = draw(extras)
    return template


field_maps = st.dictionaries(names, field_templates() | values, max_size=4)


@st.composite
def templates_data(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {"fields": draw(field_maps)}
    if draw(st.booleans()):
        data["refusals"] = draw(refusal_lists)
    if draw(st.integers(0, 9)) == 0:
        data[draw(words)] = draw(values)
    return data


# --- writing them as TOML or YAML -------------------------------------------------------------------------


def toml_value(value: Any) -> str:
    """A value as TOML (JSON's string escapes are TOML's; a lone surrogate makes invalid TOML, which is
    refused like any other)."""
    if isinstance(value, Huge):
        return Huge.DIGITS
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int | float):
        return repr(value)
    if value is None:
        return '""'  # TOML has no null
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))


def toml_text(data: dict[str, Any]) -> str:
    lines = []
    tables = isinstance(data.get("refusals"), list) and all(isinstance(r, dict) for r in data["refusals"])
    for key, value in data.items():
        if not (key == "fields" and isinstance(value, dict)) and not (key == "refusals" and tables):
            lines.append(f"{json.dumps(key)} = {toml_value(value)}")
    for name, template in (data["fields"] if isinstance(data.get("fields"), dict) else {}).items():
        if isinstance(template, dict):
            lines.append(f"[fields.{json.dumps(name)}]")
            lines += [f"{json.dumps(key)} = {toml_value(value)}" for key, value in template.items()]
        else:
            lines.append(f"fields.{json.dumps(name)} = {toml_value(template)}")
    for refusal in data["refusals"] if tables else []:
        lines.append("[[refusals]]")
        lines += [f"{json.dumps(key)} = {toml_value(value)}" for key, value in refusal.items()]
    return "\n".join(lines) + "\n"


def yaml_text(data: dict[str, Any]) -> str:
    def plain(value: Any) -> Any:
        if isinstance(value, Huge):
            return 10**50  # the digits are spliced in below
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(item) for item in value]
        return value

    fast = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    try:  # libyaml's dumper (ten times faster) cannot write a lone surrogate; the Python one escapes it
        text = yaml.dump(plain(data), Dumper=fast, allow_unicode=True, sort_keys=False)
    except UnicodeEncodeError:
        text = yaml.dump(plain(data), Dumper=yaml.SafeDumper, allow_unicode=True, sort_keys=False)
    return text.replace(str(10**50), Huge.DIGITS)


# YAML's own tricks, spliced in as lines: anchors, aliases, merges, tags, deep nesting, odd documents.
YAML_TRICKS = [
    "a: &a [x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: [*b, *b, *b, *b]",
    "  <<: *a", "  <<: {answer_type: text}", "x: !!python/object/apply:os.system [true]",
    "x: !!python/name:os.system", "x: !!binary aGk=", "x: !!set {a, b}", "x: !!timestamp 2001-12-14",
    "x: " + "[" * 60 + "]" * 60, "x: " + "{a: " * 30 + "1" + "}" * 30, "---", "...", "%YAML 1.1",
    "? [a, b]", ": x", "x: 1e99999", "x: 190:20:30", "x: 0x_", "x: .nan", "\t- tab",
    "x: *undefined", "x: &dup 1\ny: &dup 2", "x: 1" + "0" * 5_000,
]  # fmt: skip
TOML_TRICKS = ["x = " + "[" * 2_000 + "]" * 2_000, "x = 1" + "0" * 5_000, "[fields]", "[[fields]]",
               "x = 1979-05-27T07:32:00Z", "x = 0x_", "x = inf", 'x = """', "x = {",
               "'a' = 1\n'a' = 2"]  # fmt: skip


def spliced(text: str, tricks: list[str], picks: list[tuple[int, int]]) -> str:
    lines = text.splitlines()
    for place, trick in picks:
        at = place % (len(lines) + 1)
        lines.insert(at, tricks[trick % len(tricks)])
    return "\n".join(lines) + "\n"


edits = st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 3), st.binary(max_size=3)), max_size=2)


def damaged(data: bytes, damage: list[tuple[int, int, bytes]]) -> bytes:
    buffer = bytearray(data)
    for place, remove, insert in damage:
        at = place % (len(buffer) + 1)
        buffer[at : at + remove] = insert
    return bytes(buffer)


# --- the property -----------------------------------------------------------------------------------------


def uses(templates: Templates, verification: Verification, title: str) -> None:
    """What a build does with loaded templates: every question filled in, a gold set built and written."""
    for template in templates.fields.values():
        for question in template.questions:
            assert len(ask(question, title=title, document="acme")) <= MAX_QUESTION_OUTPUT
    for refusal in templates.refusals:
        assert len(ask(refusal.question, title=title, document="acme")) <= MAX_QUESTION_OUTPUT
    build = build_gold(verification, templates, refusals=True)
    gold_jsonl(build)
    report_markdown(gold_report(build))


@seed(SEED)
@FUZZ
@given(
    data=templates_data(),
    kind=st.sampled_from(["toml", "yaml", "yml"]),
    picks=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 100)), max_size=2),
    damage=st.sampled_from([[]] * 6) | edits,
    title=texts,
)
def test_a_templates_file_loads_and_builds_or_is_refused(
    folder: Path,
    verification: Verification,
    data: dict[str, Any],
    kind: str,
    picks: list[tuple[int, int]],
    damage: list[tuple[int, int, bytes]],
    title: str,
) -> None:
    if kind == "toml":
        text = spliced(toml_text(data), TOML_TRICKS, picks)
    else:
        text = spliced(yaml_text(data), YAML_TRICKS, picks)
    path = folder / f"fuzz.{kind}"
    path.write_bytes(damaged(text.encode("utf-8", "surrogatepass"), damage))
    with one_example():
        try:
            templates = load_templates(path)
        except InputError as exc:
            assert exc.where.startswith(str(path)) and exc.fix
            assert len(exc.message) < 2_000 + len(str(path))
            templates = None
        if templates is not None:
            # Nothing in a loaded templates file should still be refused; if it is, it is an exit 2.
            with contextlib.suppress(AssayError):
                uses(templates, verification, title)
