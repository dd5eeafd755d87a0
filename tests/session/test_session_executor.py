"""``session run -n N --jobs K`` and ``--executor ray``: virtual-clock sessions spread
over worker processes or a Ray cluster write the same bytes as one after another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speecheval.cli import main

from .helpers import write_scenario
from .test_cli import QUICK as QUICK_SCENARIO

QUICK = QUICK_SCENARIO.replace("p90_response_latency_ms: 1000", "p90_response_latency_ms: 5000")


def _run(scenario: Path, out: Path, *options: str) -> None:
    # jitter makes every session differ (session k is seeded seed + k), so a session run
    # with the wrong index, or put back in the wrong place, changes the bytes
    assert main(["session", "run", str(scenario), "-n", "3", "-o", "jitter_ms=400",
                 "--out", str(out), *options]) == 0


def _files(run: Path) -> dict[str, bytes]:
    return {p.relative_to(run).as_posix(): p.read_bytes() for p in sorted(run.rglob("*"))
            if p.is_file()}


def test_sessions_in_worker_processes_same_bytes(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    _run(scenario, tmp_path / "one", "--jobs", "1")
    _run(scenario, tmp_path / "two", "--jobs", "2")
    one = _files(tmp_path / "one")
    assert len(one) == 4 + 3 * 4  # four reports, four files per session
    assert one == _files(tmp_path / "two")
    latencies = [s["turns"][0]["response_latency_ms"] for s in
                 json.loads((tmp_path / "one" / "report.json").read_text())["sessions"]]
    assert len(set(latencies)) > 1  # the sessions do differ


def test_sessions_on_ray_same_bytes(ray_cluster: str, tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    _run(scenario, tmp_path / "one", "--jobs", "1")
    _run(scenario, tmp_path / "ray", "--executor", "ray")
    assert _files(tmp_path / "one") == _files(tmp_path / "ray")


def test_real_clock_sessions_refuse_jobs(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    scenario = write_scenario(tmp_path, QUICK)
    assert main(["session", "run", str(scenario), "--agent", "pcm-websocket", "--url",
                 "ws://127.0.0.1:9/", "-n", "2", "--jobs", "2",
                 "--out", str(tmp_path / "run")]) == 2
    assert ("agent pcm-websocket runs on the real clock: --jobs and --executor spread "
            "virtual-clock sessions only; use --concurrency") in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("options", "expected"), [
    (["--executor", "ray"], {"kind": "ray", "jobs": None}),  # unfixed: jobs 1, one CPU
    (["--executor", "ray", "--jobs", "3"], {"kind": "ray", "jobs": 3}),
    ([], {"kind": "local", "jobs": 1}),
])
def test_ray_without_jobs_gets_every_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          options: list[str], expected: dict[str, object]
                                          ) -> None:
    """``session run --executor ray`` without ``--jobs`` leaves the private cluster's CPUs
    to Ray (all cores), as the fdb and transcripts commands do; locally the default stays
    one process. The executor asked for is recorded and a local one runs the sessions."""
    import speecheval.session.cli as session_cli
    from speecheval.core.executor import make_executor

    asked: list[dict[str, object]] = []

    def recording(kind: str = "local", **kwargs: object) -> object:
        asked.append({"kind": kind, "jobs": kwargs["jobs"]})
        return make_executor("local", jobs=1)

    monkeypatch.setattr(session_cli, "make_executor", recording)
    _run(write_scenario(tmp_path, QUICK), tmp_path / "run", *options)
    assert asked == [expected]


def test_a_worker_dying_on_a_session_every_time_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A session whose worker process dies each of the 3 times it is run: one line naming
    the session and how its worker ended, and exit 4 (the tool's fault), no traceback and
    no run directory (unfixed: WorkerDied came out of ``.get()`` as a traceback, exit 1;
    then it named "item 1" and did not say how the worker ended)."""
    scenario = write_scenario(tmp_path, QUICK)
    code = main(["session", "run", str(scenario), "--agent",
                 "tests.agents.custom_transport:DyingVirtualAgent", "-n", "2", "--jobs", "2",
                 "--out", str(tmp_path / "run")])
    assert code == 4
    assert capsys.readouterr().err == (
        "error: session 1: the worker process died while running this item "
        "(exit code 9; 3 attempts)\n")
    assert not (tmp_path / "run").exists()
