"""A ``transcripts run`` stopped by SIGTERM leaves no system program running.

A command system runs in a session of its own, out of reach of the terminal's signals; the
run must kill it itself, both where it waits for the program (``--jobs 1``) and in pool
workers that the stopping driver ends by SIGTERM (``--jobs 2``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

SLOW_SYSTEM = """
import os, sys, time
sample = sys.argv[3]
os.makedirs("pids", exist_ok=True)
with open(f"pids/{sample}.tmp", "w") as out:
    out.write(str(os.getpid()))
os.rename(f"pids/{sample}.tmp", f"pids/{sample}.pid")
time.sleep(120)
"""
"""Says its process id (written whole, then renamed) and sleeps past any test."""


def manifest(folder: Path, samples: list[str]) -> Path:
    rng = np.random.default_rng(5)
    sf.write(str(folder / "noise.wav"), rng.uniform(-0.2, 0.2, 16_000), 16_000,
             subtype="PCM_16")
    (folder / "slow_system.py").write_text(SLOW_SYSTEM, encoding="utf-8")
    entries = "".join(f"  - id: {sample}\n    audio: noise.wav\n" for sample in samples)
    path = folder / "manifest.yaml"
    path.write_text(f"""format: speecheval.transcripts.run-manifest/1
systems:
  slow:
    adapter: command
    command: [{sys.executable}, slow_system.py, "{{input}}", "{{output}}", "{{sample}}"]
    output_suffix: .stm
    version: slow 1.0
samples:
{entries}""", encoding="utf-8")
    return path


def running(pid: int) -> bool:
    """Whether ``pid`` is alive: present in /proc and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(condition: object, limit_s: float = 120.0) -> bool:
    """Poll ``condition`` (a callable) every 50 ms until it holds or ``limit_s`` passes."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux /proc")
@pytest.mark.parametrize("jobs", [1, 2])
def test_sigterm_kills_the_system_programs_it_started(tmp_path: Path, jobs: int) -> None:
    samples = [f"s{index}" for index in range(jobs)]
    path = manifest(tmp_path, samples)
    pids = tmp_path / "pids"
    run = subprocess.Popen(
        [sys.executable, "-m", "speecheval", "transcripts", "run", "--manifest", str(path),
         "--system", "slow", "--jobs", str(jobs), "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # every program has started and said its pid: the run is waiting on all of them
        assert wait_for(lambda: len(list(pids.glob("*.pid"))) == jobs or run.poll() is not None)
        assert run.poll() is None, run.communicate()[1]
        started = [int((pids / f"{sample}.pid").read_text()) for sample in samples]
        assert all(running(pid) for pid in started)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=120)
        assert run.returncode == 143, err
        assert wait_for(lambda: not any(running(pid) for pid in started), 30.0), (
            f"a system program outlived the run: {[p for p in started if running(p)]}")
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for pid_file in pids.glob("*.pid"):
            pid = int(pid_file.read_text())
            if running(pid):
                os.kill(pid, signal.SIGKILL)
