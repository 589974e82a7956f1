"""Judge backends by kind: the built-in kinds and a registered one read from a --judge spec; the kinds
listed by --help and errors from the registry; a broken backend package (installed for real) named by its
entry point; and the ScriptedJudge double, in the library and as ``--judge scripted:FILE.json``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from cli_run import run
from test_plugins import assay, install_plugin

from assay import Dataset, ScoreRun, load_records, score
from assay.errors import UsageError
from assay.judges import metric
from assay.judges._base import JudgeUnavailable
from assay.judges.backends import JUDGES, JudgeBackend, judge_forms, judge_kinds
from assay.judges.metric import JudgeSetup
from assay.judges.scripted import ScriptedJudge
from assay.judges.spec import build_judge, parse_spec
from assay.scorers import Outcome

PASS, FAIL, UNSCORED = Outcome.PASS, Outcome.FAIL, Outcome.UNSCORED
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "qa_responses.csv"  # art-01, art-02 right; art-03 wrong (Dalí)


def test_the_kinds_in_help_and_errors_are_the_registrys(capsys: pytest.CaptureFixture[str]) -> None:
    assert judge_forms() == "openai:MODEL@BASE_URL, llama:PATH.gguf or scripted:FILE.json"
    with pytest.raises(UsageError) as caught:
        parse_spec("kind=ollama,model=m")
    assert caught.value.fix == "use openai, llama or scripted"
    code, out, _ = run(["score", "--help"], capsys)
    assert code == 0 and judge_forms() in " ".join(out.split())


def test_a_backend_registered_in_process_is_read_from_a_spec() -> None:
    backend = JudgeBackend(
        kind="canned",
        form="canned:VERDICT",
        short=lambda rest: {"verdict": rest},
        make=lambda args: ScriptedJudge(lambda prompt: args.values["verdict"], sampling=args.sampling),
        settings={"verdict": str},
    )
    JUDGES.register(backend)
    try:
        judge = parse_spec("canned:CORRECT,seed=3")
        assert (judge.kind, judge.sampling.seed) == ("scripted", 3)
        assert judge_forms().endswith("scripted:FILE.json or canned:VERDICT")
        with pytest.raises(UsageError, match="a openai judge has no setting verdict"):
            parse_spec("openai:m@http://127.0.0.1:9/v1,verdict=x")
    finally:
        JUDGES.forget("canned")


@pytest.mark.parametrize(
    ("kind", "settings", "message"),
    [
        ("", {}, "kind '' is not a plain name"),
        ("x-y", {}, "is not a plain name"),
        ("x", {"n": bool}, "setting 'n' is not of str, int or float"),
    ],
)
def test_a_backend_is_checked_as_it_is_made(kind: str, settings: dict[str, type], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        JudgeBackend(kind, "x:Y", short=dict, make=ScriptedJudge, settings=settings)  # type: ignore[arg-type]


def test_a_broken_backend_package_is_named_by_its_entry_point(tmp_path: Path) -> None:
    site = install_plugin(tmp_path, "badjudge", "X = 1\n", "bad = badjudge:MISSING", "assay.judges")
    (tmp_path / "r.csv").write_text("id,question,answer,response\n1,q,a,a\n", encoding="utf-8")
    argv = ["score", "--responses", "r.csv", "--metric", "judge", "--judge", "openai:m@http://127.0.0.1:9/v1"]
    done = assay(site, *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "the judge backend plugin failed to load (AttributeError" in done.stderr
    assert "entry point 'bad = badjudge:MISSING' (group assay.judges)" in done.stderr


def judged(records: Dataset, setup: JudgeSetup) -> ScoreRun:
    """The judge metric scored (with the engine's ``with_judge`` where the judge is a Scorer)."""
    with_judge = getattr(metric, "with_judge", None)
    if with_judge is not None:
        return score(records, with_judge(["judge"], setup))
    return score(records, ["judge"], judge=setup)  # type: ignore[call-arg]


# --- the scripted double ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "default", "verdicts"),
    [
        ({"Vincent van Gogh in 1889": "CORRECT", "Dalí": "INCORRECT"}, "CORRECT", [PASS, PASS, FAIL]),
        (
            lambda prompt: "INCORRECT" if "Dalí" in prompt else '{"verdict": "CORRECT"}',
            None,
            [PASS, PASS, FAIL],
        ),
        ({"Dalí": "INCORRECT"}, None, [UNSCORED, UNSCORED, FAIL]),  # no reply: unscored, not failed
    ],
)
def test_a_scripted_judge_decides_from_its_script(
    script: object, default: str | None, verdicts: list[Outcome]
) -> None:
    judge = ScriptedJudge(script, default=default)  # type: ignore[arg-type]
    scored = judged(load_records(EXAMPLE, limit=3), JudgeSetup((judge,)))
    assert list(scored.metrics["judge"].outcomes) == verdicts
    assert len(judge.prompts) == 3 and "Who painted Guernica?" in judge.prompts[2]


def test_a_scripted_judge_raises_what_it_is_scripted_to() -> None:
    judge = ScriptedJudge({"Guernica": JudgeUnavailable("down")}, default="CORRECT")
    scored = judged(load_records(EXAMPLE, limit=3), JudgeSetup((judge,)))
    assert list(scored.metrics["judge"].outcomes) == [PASS, PASS, UNSCORED]


def test_scripted_file_is_a_judge_spec_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "verdicts.json"
    script.write_text(json.dumps({"Dalí": "INCORRECT"}), encoding="utf-8")
    argv = ["score", "--responses", str(EXAMPLE), "--limit", "3", "--metric", "judge", "--no-cache"]
    argv += ["--judge", f"scripted:{script},default=CORRECT", "--out", str(tmp_path / "out.csv")]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    with (tmp_path / "out.csv").open(encoding="utf-8") as handle:
        assert [row["judge"] for row in csv.DictReader(handle)] == ["True", "True", "False"]


@pytest.mark.parametrize(
    ("text", "message"),
    [("[1]", "the judge's script is a JSON list"), ("{", "cannot read the judge's script")],
)
def test_a_bad_scripted_judge_file_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    script = tmp_path / "verdicts.json"
    script.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        build_judge({"kind": "scripted", "script": str(script)}, where="test")
    assert judge_kinds() == "openai, llama or scripted"
