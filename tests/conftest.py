"""Shared test configuration: where the public fixtures live, and what may be skipped.

A skip must never hide a failure of speecheval itself. A test may skip only because
something outside the project is missing: an external program (espeak-ng, perl with
md-eval, headless Chromium), a CJK font, ``/proc``, an optional package from the
``test``/``parity``/``reference`` extras, or the public fixtures in ``../shared``, and its
reason must name that thing. Runtime dependencies (onnxruntime, tqdm, faster-whisper...)
are imported directly: without them speecheval itself is broken. Any other skip
(for example ``importorskip`` on one of speecheval's own modules, or an error turned into
a skip) is reported as a failure by the hooks below.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the repository; SPEECHEVAL_SHARED points elsewhere (``make mutate`` runs
# the tests from a copy of the repository in mutants/, one folder further down).
SHARED = Path(os.environ.get("SPEECHEVAL_SHARED") or REPO_ROOT.parent / "shared")
FIXTURES = SHARED / "fixtures"

# What a skip reason may name: things outside the project that a machine may lack.
EXTERNAL_PREREQUISITES = (
    "espeak-ng", "md-eval", "perl", "../shared", "fixtures",
    "torch", "silero-vad", "voicebench", "jiwer", "meeteval", "pyannote", "packaging",
    "dotenv", "openai", "statsmodels", "Chromium", "CJK font", "/proc", "ray", "aiortc",
    "pipecat-ai", "espeakng-loader", "pdoc",
)


@pytest.fixture
def fixtures_dir() -> Path:
    """``../shared/fixtures`` beside the repository; skip when it is not there."""
    if not FIXTURES.is_dir():
        pytest.skip(f"public fixtures not found at {FIXTURES} (../shared is absent)")
    return FIXTURES


def skip_reason_problem(reason: str) -> str | None:
    """Why a skip with this reason is not allowed, or ``None`` when it is.

    >>> skip_reason_problem("espeak-ng is not installed (apt-get install espeak-ng)") is None
    True
    >>> skip_reason_problem("could not import 'speecheval.vad.silero': No module named x")
    'it names a speecheval module'
    >>> skip_reason_problem("model files are missing")
    'it names no missing external tool, package or fixture'
    """
    if "'speecheval" in reason or reason.startswith("speecheval"):
        return "it names a speecheval module"
    if not any(name in reason for name in EXTERNAL_PREREQUISITES):
        return "it names no missing external tool, package or fixture"
    return None


def _skip_reason(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _refuse_hidden_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report.longrepr)
    problem = skip_reason_problem(reason)
    if problem is not None:
        report.outcome = "failed"
        report.longrepr = (f"skip not allowed ({problem}); a skip may only name a missing "
                           f"external prerequisite, see tests/conftest.py: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    _refuse_hidden_skip(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector
                               ) -> Generator[None, pytest.CollectReport, None]:
    outcome = yield
    _refuse_hidden_skip(outcome.get_result())  # type: ignore[attr-defined]


@pytest.fixture(autouse=True, scope="session")
def _private_vad_cache(tmp_path_factory: pytest.TempPathFactory) -> Generator[None]:
    """CLI runs in tests cache VAD results in a folder of their own, never the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPEECHEVAL_VAD_CACHE", str(tmp_path_factory.mktemp("vad-cache")))
        yield


@pytest.fixture(scope="session")
def ray_cluster() -> Generator[str]:
    """One private Ray cluster for the whole run, started by the first test that asks:
    2 CPUs on 127.0.0.1, a small object store; yields its address (host:port). Tests
    in this process use it directly; another process joins it with ``--ray-address``
    and ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` (else Ray swaps 127.0.0.1 for the
    machine's address). Skipped only where ray cannot be imported."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install "
                                            "'speecheval[ray]')")
    context = ray.init(num_cpus=2, object_store_memory=80_000_000, include_dashboard=False,
                       _node_ip_address="127.0.0.1", log_to_driver=False,
                       logging_level="WARNING")
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()
