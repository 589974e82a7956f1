"""Templates are data, not code: hostile templates files are refused when loaded, with the file and line.

Issue 22: a 420-byte YAML alias bomb hung ``gold build`` with memory growing; ``{title:>300000000}``
passed the checks and wrote a 300 MB line into gold.jsonl; ``{title!z}``, ``{title:%Y}`` and
``{title:>99999999999999999999}`` were exit 3. Each case here is refused with exit 2 (an InputError),
quickly, naming the file and the line where the offending text is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from budget import LOADED, SECOND, assert_within

from assay.cli import main
from assay.errors import InputError
from assay.harness.template_reading import MAX_DEPTH, MAX_TEMPLATES_BYTES
from assay.harness.templates import (
    MAX_LIST_ITEMS,
    MAX_PLACEHOLDERS,
    MAX_QUESTION_CHARS,
    MAX_QUESTION_OUTPUT,
    ask,
    load_templates,
)

HEAD_TOML = '[fields.grace_period]\nanswer_type = "number_unit"\n'
HEAD_YAML = "fields:\n  grace_period:\n    answer_type: number_unit\n"


def _loads_refused(tmp_path: Path, name: str, text: str) -> InputError:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    raised: list[InputError] = []

    def load() -> None:
        with pytest.raises(InputError) as refused:
            load_templates(path)
        raised.append(refused.value)

    assert_within(load, LOADED * SECOND, "refusing the file")  # the alias bomb hung, its memory growing
    return raised[0]


# --- format specs, conversions, attribute access: refused, with the question's line -------------------

QUESTION_TRICKS = [
    "{title:>300000000}",  # the 1.5 GB
    "{title:>99999999999999999999}",  # the exit 3 (too many digits for a width)
    "{title!z}",  # unknown conversion: exit 3
    "{title:%Y}",  # a date format on a text: exit 3
    "{title!r}",
    "{title!s}",
    "{title!a}",
    "{title:.5}",  # a precision
    "{title:x<20}",  # fill and width, however small: no spec at all
    "{title:{document}}",  # a nested spec, filled from another field
    "{title:{document.__class__}}",
    "{title:{title:>999999999}}",
    "{document:010}",
    "{title.__class__}",  # attribute access
    "{title.__class__.__init__.__globals__}",
    "{title[0]}",  # index access
    "{document[__class__]}",
    "{0}",  # positional
    "{}",
    "{TITLE}",
    "{ title}",
]


@pytest.mark.parametrize("trick", QUESTION_TRICKS)
@pytest.mark.parametrize("kind", ["toml", "yaml"])
def test_a_question_placeholder_is_a_plain_name_or_refused_with_its_line(
    tmp_path: Path, trick: str, kind: str
) -> None:
    question = f"What is the grace period of {trick}?"
    if kind == "toml":
        text = HEAD_TOML + "category = 'renewal'\n" + f"questions = [\n  {json.dumps(question)},\n]\n"
        line = 5
    else:
        text = HEAD_YAML + "    category: renewal\n    questions:\n" + f"      - {json.dumps(question)}\n"
        line = 6
    error = _loads_refused(tmp_path, f"t.{kind}", text)
    assert error.where == f"{tmp_path / f't.{kind}'}:{line}: fields.grace_period"
    assert trick in error.what
    assert "{title}" in error.fix


def test_the_command_refuses_a_huge_width_with_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts, sources = tmp_path / "facts", tmp_path / "sources"
    facts.mkdir(), sources.mkdir()
    (sources / "acme.txt").write_text("Acme Plan. The grace period is 30 days.", encoding="utf-8")
    claim = {"field": "grace_period", "value": 30, "unit": "days"}
    claim["source"] = {"path": "acme.txt", "quote": "The grace period is 30 days"}  # type: ignore[assignment]
    (facts / "acme.json").write_text(json.dumps({"document": "acme", "claims": [claim]}), encoding="utf-8")
    for trick in ("{title:>300000000}", "{title!z}", "{title:%Y}", "{title:>99999999999999999999}"):
        templates = tmp_path / "t.toml"
        templates.write_text(HEAD_TOML + f'questions = ["Grace period of {trick}?"]\n', encoding="utf-8")
        out = tmp_path / "gold.jsonl"
        argv = ["gold", "build", "--facts", str(facts), "--sources", str(sources), "--no-cache"]
        assert main([*argv, "--templates", str(templates), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "t.toml:3: fields.grace_period" in err and trick in err and "internal error" not in err
        assert not out.exists()


def test_a_question_is_filled_by_substitution_never_by_format() -> None:
    # Even a question that skipped the load-time check cannot run a spec: the placeholders are data.
    assert ask("Of {title} ({document})?", title="{document:>9}", document="a") == "Of {document:>9} (a)?"
    assert ask("{{literal}} {title}", title="T", document="d") == "{literal} T"


def test_a_filled_question_is_bounded() -> None:
    question = "x" * (MAX_QUESTION_CHARS - MAX_PLACEHOLDERS * 7) + "{title}" * MAX_PLACEHOLDERS
    filled = ask(question, title="t" * 1_000, document="d")
    assert len(filled) <= MAX_QUESTION_OUTPUT


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("x" * (MAX_QUESTION_CHARS + 1), "over the limit"),
        ("{title}" * (MAX_PLACEHOLDERS + 1), "placeholders"),
        ("Grace {title", "unbalanced"),
        ("Grace {title}}", "unbalanced"),
    ],
)
def test_long_questions_many_placeholders_and_stray_braces_are_refused(
    tmp_path: Path, question: str, words: str
) -> None:
    error = _loads_refused(tmp_path, "t.toml", HEAD_TOML + f"questions = [{json.dumps(question)}]\n")
    assert words in error.what and error.where.endswith("t.toml:3: fields.grace_period")
    assert len(error.message) < 1_000  # a long question is shown cut


# --- YAML aliases, merges, deep nesting; TOML and YAML past their bounds ----------------------------------


def _laughs(levels: int, width: int = 9) -> str:
    """The billion laughs: each level a list of `width` aliases to the one before."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


YAML_BOMBS = {
    # The 420 bytes: nine levels of nine aliases under a field's template.
    "billion laughs under a field": HEAD_YAML
    + '    questions: ["Q {title}?"]\n'
    + "".join("    " + line + "\n" for line in _laughs(9).splitlines()),
    "billion laughs at the top": _laughs(9) + "fields: {}\n",
    "laughs as the questions": "a: &a [x, x]\nfields:\n  f:\n    answer_type: text\n    questions: *a\n",
    "a merge key": "base: &base {answer_type: text}\nfields:\n  f:\n    <<: *base\n    questions: [Q?]\n",
    "an anchor alone": HEAD_YAML + "    questions: &q [Q {title}?]\n",
    "a wide fan-out": "a: &a [" + ", ".join(["x"] * 2000) + "]\nb: [" + ", ".join(["*a"] * 2000) + "]\n",
    "an alias as a key": "a: &a k\nfields:\n  *a : {}\n",
}


@pytest.mark.parametrize("name", sorted(YAML_BOMBS))
def test_yaml_anchors_and_aliases_are_refused_at_their_line(tmp_path: Path, name: str) -> None:
    text = YAML_BOMBS[name]
    error = _loads_refused(tmp_path, "t.yaml", text)
    assert "anchors and aliases" in error.what
    line = int(error.where.rsplit(":", 1)[1])
    assert "&" in text.splitlines()[line - 1] or "*" in text.splitlines()[line - 1]


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("deep.yaml", "fields: " + "[" * 100 + "]" * 100 + "\n", f"more than {MAX_DEPTH} levels"),
        ("deep.yaml", "fields: " + "[" * 100_000 + "]" * 100_000 + "\n", "nest"),  # libyaml: past 1000
        ("deep.yaml", "".join(" " * i + f"k{i}:\n" for i in range(40)) + " " * 40 + "v\n", "levels"),
        ("deep.toml", "x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
        ("deep.toml", "x = " + "[" * 100 + "]" * 100 + "\n", f"more than {MAX_DEPTH} levels"),
        ("deep.toml", "x = " + "{a = " * 5_000 + "1" + "}" * 5_000 + "\n", "nested too deeply"),
        # tomllib's time grows with the square of a dotted key's parts: 120,000 parts took minutes
        ("dots.toml", "fields." + ".".join(["a"] * 120_000) + " = 1\n", "dotted key of more than"),
        ("dots.toml", "[" + ".".join(["'a'"] * 60_000) + "]\n", "dotted key of more than"),
        ("dots.toml", "x = {b = 1, " + ".".join(["a"] * 100_000) + " = 1}\n", "dotted key of more than"),
        ("big.toml", "x = 1" + "0" * 5_000 + "\n", "4300 digits"),
        ("big.yaml", "x: 1" + "0" * 5_000 + "\n", "4300 digits"),
        ("tag.yaml", "x: !!python/object/apply:os.system [echo hi]\n", "tags"),
        ("tag.yaml", "x: !!python/name:os.system\n", "tags"),
        ("tag.yaml", "x: !!timestamp not a date\n", "tags"),  # PyYAML's AttributeError: exit 3 before
        ("tag.yaml", "x: !!binary aGk=\n", "tags"),
        ("tag.yaml", "x: !custom {a: 1}\n", "tags"),
        ("date.yaml", "x: 2001-13-45\n", "not readable YAML"),
        ("two.yaml", "fields: {}\n---\nfields: {}\n", "single document"),
        ("key.yaml", "fields:\n  ? [a, b]\n  : {}\n", "unhashable"),
        ("bom.toml", "\ufeff\ufeff[fields]\n", "TOML"),
    ],
)
def test_unreadable_or_unbounded_files_are_refused_quickly(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    error = _loads_refused(tmp_path, name, text)
    assert words in error.message and error.where.startswith(str(tmp_path / name))


def test_dots_in_a_question_are_no_dotted_key(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    version = ".".join(map(str, range(40)))
    path.write_text(HEAD_TOML + f"questions = [\n  'Version {version} of {{title}}?',\n]\n", encoding="utf-8")
    (question,) = load_templates(path).fields["grace_period"].questions
    assert version in question


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    text = HEAD_TOML + "questions = ['Q {title}?']\n" + "# padding\n" * (MAX_TEMPLATES_BYTES // 10)
    error = _loads_refused(tmp_path, "big.toml", text)
    assert f"over {MAX_TEMPLATES_BYTES:,} bytes" in error.what


# --- every text and list bounded, every value shown short ---------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (f"unit = {json.dumps('d' * 2_000)}\n", "'unit' is 2,000 characters"),
        (f"category = {json.dumps('c' * 2_000)}\n", "'category' is 2,000 characters"),
        (f"yes = {json.dumps('y' * 2_000)}\n", "'yes' is 2,000 characters"),
        (f"aliases = {json.dumps(['a'] * (MAX_LIST_ITEMS + 1))}\n", f"lists {MAX_LIST_ITEMS + 1} items"),
        (f"labels = {{ {json.dumps('k' * 2_000)} = 'x' }}\n", "name is 2,000 characters"),
        (f"unit = {json.dumps(list(range(10_000)))}\n", "not text"),
    ],
)
def test_long_texts_and_lists_are_refused_and_shown_short(tmp_path: Path, extra: str, words: str) -> None:
    text = HEAD_TOML + "questions = ['Q {title}?']\n" + extra
    error = _loads_refused(tmp_path, "t.toml", text)
    assert words in error.what and len(error.message) < 1_000


def test_a_long_field_name_is_refused(tmp_path: Path) -> None:
    text = f"[fields.{'f' * 300}]\nanswer_type = 'text'\nquestions = ['Q?']\n"
    error = _loads_refused(tmp_path, "t.toml", text)
    assert "a field's name is 300 characters" in error.what


def test_unknown_keys_of_any_type_are_named_not_crashed_on(tmp_path: Path) -> None:
    text = HEAD_YAML + '    questions: ["Q?"]\n    1: x\n    2020-01-01: y\n    null: z\n'
    error = _loads_refused(tmp_path, "t.yaml", text)
    assert "unknown key" in error.what
