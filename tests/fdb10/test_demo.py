"""``speecheval fdb10 demo``: the README's main command, end to end on a reduced size
(one sample per subset), and its argument handling."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from speech_engine import needs_speech

from speecheval.cli import main
from speecheval.core.extras import installed

SUBSETS = ("synthetic_pause_handling", "candor_pause_handling", "candor_turn_taking",
           "synthetic_user_interruption", "icc_backchannel")


def _path_without_espeak(folder: Path) -> str:
    """A PATH of links to every program of this one but espeak-ng's: a machine without
    the apt package."""
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for program in Path(directory).glob("*") if Path(directory).is_dir() else []:
            if not program.name.startswith("espeak") and not (folder / program.name).exists():
                (folder / program.name).symlink_to(program)
    return str(folder)


ENGINE = "library" if installed("espeakng_loader") else "auto"
"""The engine of the whole demo run: where the espeakng-loader wheel is installed, the main
job's case (no apt package: espeak-ng hidden from PATH and set aside, the agent's voice from
the wheel), elsewhere the engine this machine has. One run, not one per engine (a whole
demo is a minute or more): Debian's program, where it is installed, runs the demo's build
and serve in ``test_sigterm_stops_the_agent_it_started``, and the cascade agent's spoken
replies in ``tests/agents/test_cascade.py``."""


@needs_speech
def test_demo_runs_the_whole_pipeline(tmp_path: Path) -> None:
    # its own process, as a user runs it (and clean: a test process that already ran
    # CTranslate2 must not fork reference-asr's workers, OpenMP does not survive a fork)
    out = tmp_path / "demo"
    env = dict(os.environ)
    if ENGINE == "library":
        env.update(PATH=_path_without_espeak(tmp_path / "bin"), SPEECHEVAL_ESPEAK="library")
    done = subprocess.run([sys.executable, "-m", "speecheval", "fdb10", "demo", "--out",
                           str(out), "--max-per-subset", "1", "--concurrency", "5"],
                          capture_output=True, text=True, timeout=280, env=env)
    printed = done.stdout
    assert done.returncode == 0, (printed, done.stderr)
    # every step ran, in order, as the command a user would type
    steps = [line.split()[3] for line in printed.splitlines() if line.startswith("$ ")]
    assert steps == ["build-dataset", "serve", "record", "reference-export", "reference-asr",
                     "unified-score", "report"]
    run = json.loads((out / "run" / "run.json").read_text())
    assert run["status"] == "complete"
    manifest = json.loads((out / "tree" / "manifest.json").read_text())
    assert sorted(e["sample_id"] for e in manifest["samples"]) == sorted(
        f"{subset}/1" for subset in SUBSETS)
    assert (out / "tree" / "asr.json").is_file()
    unified = json.loads((out / "tree" / "unified" / "unified.json").read_text())
    assert set(unified["subsets"]) == set(SUBSETS)
    page = (out / "report.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert printed.rstrip().endswith(f"open {(out / 'report.html').resolve().as_uri()}")


def test_bad_arguments_exit_2_and_write_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["fdb10", "demo", "--out", str(out), "-o", "silence=500"]) == 2
    assert "option silence: unknown key" in capsys.readouterr().err
    assert main(["fdb10", "demo", "--out", str(out), "-o", "silence_ms"]) == 2
    assert main(["fdb10", "demo", "--out", str(out), "--max-per-subset", "0"]) == 2
    assert not out.exists()
    out.mkdir()
    assert main(["fdb10", "demo", "--out", str(out)]) == 2
    assert "output already exists" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def _children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (Linux /proc), as the kernel lists them."""
    listing = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in listing.split()]


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@needs_speech
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_sigterm_stops_the_agent_it_started(tmp_path: Path) -> None:
    """SIGTERM to the demo while its agent serves: the agent process is stopped and
    reaped, and the demo exits 143 (128 + SIGTERM) after cleaning up, as on Ctrl-C."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # each echoed line as it is written
    demo = subprocess.Popen([sys.executable, "-m", "speecheval", "fdb10", "demo", "--out",
                             str(tmp_path / "demo"), "--max-per-subset", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    agent = None
    try:
        assert demo.stdout is not None
        steps = []
        for line in demo.stdout:  # the demo's own line once the agent listens
            if line.startswith("$ "):
                steps.append(line.split()[3])
            if line.startswith("cascade agent listening on "):
                port = int(line.split(":")[2].split("/")[0])  # ws://127.0.0.1:PORT/...
                break
        else:
            pytest.fail(f"the demo ended before its agent listened: {demo.wait()}")
        assert steps == ["build-dataset", "serve"]  # on this machine's own engine
        [agent] = [pid for pid in _children(demo.pid)
                   if _cmdline(pid)[2:5] == ["speecheval", "agents", "serve"]]
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass  # the agent is up on the port the demo printed
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=120)  # not communicate(): a surviving agent holds its stderr
        assert not Path(f"/proc/{agent}").exists(), "the agent process is still there"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        assert demo.returncode == 143, demo.communicate(timeout=10)[1]
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        if agent is not None and Path(f"/proc/{agent}").exists():
            os.kill(agent, signal.SIGKILL)
