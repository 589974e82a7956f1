"""Scoring on a real Ray cluster (assay score --ray, assay.scale.on_ray): a local cluster of two workers
scores the 1,000,000-row benchmark file, and the summary and every verdict are the single-process run's.

It needs Ray (the ray extra, in the test extra): without it the test skips, except under CI=true, where
that is a failure (CI installs it). Most of its time is writing the 491 MiB file (bench_score's generator),
then scoring it twice: on Ray and in one process.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from assay import score_file, summary_dict
from assay.cli import main
from assay.report.rows import verdict_table
from assay.scale import on_ray as on_ray_module
from conftest import skip_or_fail

ROOT = Path(__file__).resolve().parents[1]
BENCH_ROWS = 1_000_000  # the benchmark file of bench/bench_score.py
OBJECT_STORE_BYTES = 500 << 20  # modest: the file is about 400 MB; Ray spills what does not fit


def bench_score() -> Any:
    spec = importlib.util.spec_from_file_location("bench_score", ROOT / "bench" / "bench_score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_score", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray cluster with two workers (two CPUs: two batches scored at once, in two processes)."""
    if importlib.util.find_spec("ray") is None:
        skip_or_fail("Ray is not installed (pip install 'assay[ray]')")
    import ray

    ray.init(num_cpus=2, object_store_memory=OBJECT_STORE_BYTES, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_a_million_rows_on_two_ray_workers_give_the_single_process_run(
    ray_cluster: Any, tmp_path: Path
) -> None:
    from assay import score_on_ray

    assert ray_cluster.cluster_resources()["CPU"] == 2
    (data,) = bench_score().synthetic_files(tmp_path, BENCH_ROWS, "quoted")
    on_ray = score_on_ray(data)
    local = score_file(data, workers=1)
    assert local.run is not None
    assert summary_dict(on_ray.summary) == summary_dict(local.summary)
    assert on_ray.summary.total == BENCH_ROWS
    # every verdict: the local run's verdict columns (what --out adds), typed as the entry point types them
    alone = pa.Table.from_pydict(verdict_table(local.run, inputs=False), schema=on_ray.verdicts.schema)
    assert on_ray.verdicts.num_rows == BENCH_ROWS
    assert on_ray.verdicts.equals(alone)


def test_the_command_on_ray_writes_what_a_local_run_writes(
    ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """assay score --ray (here joining the test's cluster): the same report, --json and --out, byte for
    byte, from a file cut into several batches."""
    monkeypatch.setattr(on_ray_module, "BATCH_ROWS_ON_RAY", 700)
    data = tmp_path / "answers.csv"
    bench_score().synthesise(data, 3000, quoted=True)
    outputs = {}
    for name, flags in (("ray", ["--ray", "auto"]), ("local", ["--workers", "1"])):
        out, summary = tmp_path / f"{name}.csv", tmp_path / f"{name}.json"
        argv = ["score", "--responses", str(data), "--out", str(out), "--json", str(summary), *flags]
        assert main(argv) == 0
        outputs[name] = (capsys.readouterr().out, out.read_bytes(), summary.read_bytes())
    assert outputs["ray"] == outputs["local"]
    # --limit: the report and --json say the run was cut, as a local run's do
    for name, flags in (("ray", ["--ray", "auto"]), ("local", ["--workers", "1"])):
        summary = tmp_path / f"{name}-limited.json"
        assert (
            main(["score", "--responses", str(data), "--limit", "1000", "--json", str(summary), *flags]) == 0
        )
        outputs[name] = (capsys.readouterr().out, summary.read_bytes())
    assert outputs["ray"] == outputs["local"] and "--limit 1000" in outputs["ray"][0]


def test_an_input_error_on_a_worker_is_the_local_error(ray_cluster: Any, tmp_path: Path) -> None:
    """A malformed cell found on a worker is reported as a local run reports it: file, line, fix."""
    from assay import InputError, score_on_ray

    data = tmp_path / "answers.csv"
    data.write_text(
        'id,question,answers,response\n1,q,"[""Delhi""]",Delhi\n2,q,"not a list",Delhi\n', encoding="utf-8"
    )
    with pytest.raises(InputError) as on_ray:
        score_on_ray(data)
    with pytest.raises(InputError) as alone:
        score_file(data, workers=1)
    assert str(on_ray.value) == str(alone.value)
    assert "line 3" in str(on_ray.value)


def test_an_id_in_two_batches_is_the_local_error(ray_cluster: Any, tmp_path: Path) -> None:
    from assay import InputError, score_on_ray

    data = tmp_path / "answers.csv"
    data.write_text(
        "id,question,answer,response\na,q,Delhi,Delhi\nb,q,Pune,Pune\na,q,Goa,Goa\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as on_ray:
        score_on_ray(data, batch_rows=1)  # each row its own batch: only the driver sees the repeat
    with pytest.raises(InputError) as alone:
        score_file(data, workers=1)
    assert str(on_ray.value) == str(alone.value)
