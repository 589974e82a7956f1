"""The judge flags read into a JudgeSetup: the chain from --judge or a config file, and its settings."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..judges._base import DEFAULT_CACHE_PATH
from ..terminal import one_line
from .flags import DEFAULT_CONFIG, JUDGE_FLAGS

if TYPE_CHECKING:
    from ..judges._base import Judge
    from ..judges.metric import JudgeSetup
    from ..metric import Scorer


def with_judge(metrics: Sequence[str] | None, setup: JudgeSetup | None) -> list[str | Scorer] | None:
    """The metrics of --metric as the engine takes them: ``judge`` is the configured judge's Scorer (a
    UsageError, before any work, when no chain of judges is given)."""
    if metrics is None or "judge" not in metrics:  # the judge metric's name (judges.accounting.JUDGE)
        return None if metrics is None else list(metrics)
    from ..judges.metric import with_judge as judged  # HTTP clients load only when a judge is asked for

    return judged(metrics, setup)


def judge_setup(args: argparse.Namespace) -> JudgeSetup | None:
    """The chain of judges from --judge, or from --config (or ./assay.toml), with the run's settings;
    None when the judge metric is not asked for (then a judge flag is a mistake, not a no-op)."""
    if "judge" not in (args.metric or ()):
        given = [  # given at all: `--concurrency 0` is a judge flag too, not a no-op
            f"--{name.replace('_', '-')}"
            for name in JUDGE_FLAGS
            if getattr(args, name, None) is not None and getattr(args, name) is not False
        ]
        if given:
            raise UsageError(f"{', '.join(given)} only apply to the judge metric", fix="add --metric judge")
        return None
    from ..judges.metric import JudgeSetup  # HTTP clients load only when a judge is asked for
    from ..judges.rubric import DEFAULT_RUBRIC, get_rubric
    from ..judges.run import JudgeOptions

    for flag in (
        "config",
        "cache",
    ):  # `--config ""` would fall back to ./assay.toml, `--cache ""` to the default
        if getattr(args, flag) == "":
            raise UsageError(
                "an empty file name", where=f"--{flag}", fix=f"give --{flag} a file name, or leave it out"
            )
    if args.no_cache and args.refresh:
        raise UsageError(
            "--no-cache and --refresh contradict each other (--refresh overwrites the cache)",
            fix="give one of them",
        )
    chain, settings = _judge_chain(args)
    if not chain:
        return None  # scoring says what is missing
    cache = None if args.no_cache else Path(args.cache or settings.get("cache") or DEFAULT_CACHE_PATH)
    options = JudgeOptions(
        concurrency=_given(args.concurrency, settings.get("concurrency"), 8),
        max_response_chars=_given(args.max_response_chars, settings.get("max_response_chars"), 8000),
        max_cost=args.max_cost if args.max_cost is not None else settings.get("max_cost"),
        cache_path=cache,
        refresh=args.refresh,
    )
    cascade = args.cascade or bool(settings.get("cascade"))
    rubric = get_rubric(
        settings.get("rubric", DEFAULT_RUBRIC) if args.judge_rubric is None else args.judge_rubric
    )
    jury = getattr(args, "jury", None)  # a command without --jury: the config's, or none
    jury = jury if jury is not None else settings.get("jury")
    return JudgeSetup(
        tuple(chain), options, cascade, args.system_model or settings.get("system_model"), rubric, jury
    )


def _judge_chain(args: argparse.Namespace) -> tuple[list[Judge], dict[str, Any]]:
    """The chain and the config's other settings. A config file is never read in silence (issue 9: a
    ./assay.toml in the working folder must not slip its own judge, which would receive the user's
    key, ahead of --judge): --judge replaces the file's chain unless --judge-after-config, and stderr
    says which file was read and what came of its chain."""
    from ..judges.spec import load_config, parse_spec

    given = [parse_spec(spec) for spec in args.judge or ()]
    if args.judge_after_config and not given:
        raise UsageError("--judge-after-config needs --judge", fix="give --judge SPEC, or leave it out")
    config = args.config or (DEFAULT_CONFIG if DEFAULT_CONFIG.is_file() else None)
    if config is None:
        if args.judge_after_config:
            raise UsageError(
                "--judge-after-config needs a config file, and there is none",
                fix=f"give --config FILE, or put an {DEFAULT_CONFIG} here",
            )
        return given, {}
    chain, settings = load_config(config)
    shown = config if args.config else f"./{DEFAULT_CONFIG}"
    its_chain = f"its chain ({len(chain)} judge{'' if len(chain) == 1 else 's'})"
    if not given:
        used, fate = chain, its_chain
    elif args.judge_after_config:
        used, fate = [*chain, *given], f"{its_chain}, then --judge"
    else:
        used, fate = given, f"{its_chain} replaced by --judge (--judge-after-config keeps it)"
    print(f"assay: read judge settings from {one_line(str(shown))}: {fate}", file=sys.stderr)
    return used, settings


def _given(flag: int | None, configured: int | None, default: int) -> int:
    """A flag's value if given (0 too, which the options refuse), else the config's, else the default."""
    return flag if flag is not None else configured if configured is not None else default
