"""The command line's defaults and lists come from the library: --metric's help from the scorer registry,
the gate's defaults from GateSettings, --ci-seed's from IntervalMethod (score and compare alike), and the
forms of --system and --judge from their registries."""

from __future__ import annotations

import pytest
from cli_run import run

from assay.cli.flags import metric_help
from assay.gate import RUN_SCOPES, GateSettings
from assay.harness.systems import spec_forms
from assay.judges.backends import judge_forms
from assay.judges.rubric import DEFAULT_RUBRIC
from assay.judges.run import JudgeOptions
from assay.scorers import SCORERS
from assay.summary import IntervalMethod


def _help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    return " ".join(out.split())


def test_metric_help_names_every_registered_metric() -> None:
    words = metric_help()
    assert [
        name for name in SCORERS if name not in words
    ] == []  # refusal too, which the hand-written omitted
    assert "refusal (gold.expected_refusal)" in words and "mlqa_em (lang)" in words


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("score", f"(default: {GateSettings().scope})"),
        ("score", f"(default: {GateSettings.max_unscored})"),
        ("score", f"(default: {GateSettings.on})"),
        ("score", f"cannot pass the gate (default: {GateSettings.min_n})"),
        ("run", f"both (all) (default: {RUN_SCOPES[0]})"),
        ("score", f"the bootstrap's seed (default: {IntervalMethod.seed})"),
        ("compare", f"the bootstrap's seed (default: {IntervalMethod.seed})"),
        ("score", f"requests in flight at most (default {JudgeOptions.concurrency})"),
        ("score", f"before judging (default {JudgeOptions.max_response_chars})"),
        ("score", f"(default {DEFAULT_RUBRIC}: is the response's answer"),
        ("run", spec_forms()),
        ("score", judge_forms()),
        ("run", judge_forms()),
    ],
)
def test_help_reads_the_librarys_defaults_and_registries(
    command: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert expected in _help(command, capsys)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"on": "upper"}, "unknown --gate-on 'upper'"),
        ({"scope": "scopes"}, "unknown gate scope 'scopes'"),
        ({"min_n": 0}, "--min-n must be at least 1, got 0"),
        ({"max_unscored": 1.5}, "--max-unscored must be a share from 0 to 1"),
    ],
)
def test_gate_settings_are_checked_as_they_are_made(settings: dict[str, object], message: str) -> None:
    from assay.errors import UsageError

    with pytest.raises(UsageError, match=message):
        GateSettings.parse(["exact_substring>=0.5"], **settings)


def test_a_run_and_a_file_share_one_gate_settings_with_their_own_default_scope() -> None:
    from assay.harness.run_gate import GateSettings as RunGateSettings

    assert issubclass(RunGateSettings, GateSettings)
    assert (GateSettings().scope, RunGateSettings().scope) == ("all", "overall")
    assert RunGateSettings.parse(["factual>=0.9"], scope="scopes").scope == "scopes"
