"""``transcripts run --jobs N`` and ``--executor ray``: the system calls are spread over
worker processes or Ray tasks (one per system x track x sample x repeat), and the run
directory holds the same bytes as with one call at a time, apart from the measured wall
time, real-time factor and peak memory in each ``meta.json``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_fixtures import blocks_audio, calls, cli, contents, write_manifest

SAMPLES = "  - id: blocks\n    audio: blocks.wav\n  - id: bad-one\n    audio: blocks.wav\n"


def _run(folder: Path, name: str, *options: str) -> Path:
    manifest = write_manifest(folder, SAMPLES)
    out = folder / name
    # 2 samples x 3 tracks x 2 repeats; bad-one fails (exit 3), recorded with its reason;
    # the fake system declares no native context: its native track is unsupported
    assert cli("run", "--manifest", manifest, "--system", "fake", "--repeats", "2",
               "--track", "production_complete_file", "--track", "native_whole_context",
               "--track", "production_complete_file/chunked", "--out", out, *options) == 3
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    blocks_audio(tmp_path / "blocks.wav")
    return tmp_path


def test_two_jobs_write_what_one_writes(folder: Path) -> None:
    one, two = _run(folder, "one", "--jobs", "1"), _run(folder, "two", "--jobs", "2")
    # 12 jobs, 4 of them unsupported (native): the same calls in both runs
    made = calls(folder)
    assert len(made) % 2 == 0 and sorted(made[:len(made) // 2]) == sorted(
        made[len(made) // 2:])
    expected = contents(one)
    metas = [v for n, v in expected.items() if n.endswith("meta.json")]
    assert len(metas) == 12
    assert sorted(str(m["status"]) for m in metas if isinstance(m, dict)) == (
        ["failed"] * 4 + ["succeeded"] * 4 + ["unsupported"] * 4)
    assert contents(two) == expected
    lineage = [json.loads(line)["id"] for line in
               (two / "lineage.jsonl").read_text().splitlines()]
    # the records follow the job order, never the order the calls finished in
    assert lineage[:5] == ["input:blocks", "input:bad-one",
                           "raw:fake/production_complete_file/blocks/r1",
                           "raw:fake/production_complete_file/blocks/r2",
                           "raw:fake/native_whole_context/blocks/r1"]


def test_resume_with_jobs_finishes_what_is_missing(folder: Path) -> None:
    one = _run(folder, "one")
    partial = _run(folder, "partial", "--jobs", "2")
    removed = sorted(partial.glob("raw/fake/*/bad-one/r2/meta.json"))
    assert len(removed) == 3
    for meta in removed:
        shutil.rmtree(meta.parent)
    assert cli("run", "--resume", partial, "--jobs", "2") == 3
    assert contents(partial) == contents(one)


def test_the_same_run_on_ray(ray_cluster: str, folder: Path) -> None:
    one = _run(folder, "one", "--jobs", "2")
    on_ray = _run(folder, "ray", "--executor", "ray")
    assert contents(on_ray) == contents(one)


GATED_SYSTEM = '''
import os, sys, time
wav, out, seed, sample = sys.argv[1:5]
if sample == "held":
    open("holding", "w").close()
    while not os.path.exists("release"):
        time.sleep(0.05)
open(out, "w").write(f"whatever 1 spk{seed} 0.500 1.000 {sample} seed {seed}\\n")
'''
"""Answers at once, except on the sample ``held``: there it says so (a file ``holding``)
and waits until a file ``release`` exists, both in its working directory."""

GATED = f"""  gated:
    adapter: command
    command: [{sys.executable}, gated.py, "{{input}}", "{{output}}", "{{seed}}", "{{sample}}"]
    output_suffix: .stm
    version: gated 1.0
"""


def test_resume_after_the_driver_is_killed_writes_what_an_unbroken_run_writes(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``transcripts run --jobs 2`` killed (SIGKILL) while a call is held open, then
    ``--resume --jobs 2``: the workers died with their driver (none went on writing into
    the run), the resume runs what was missing, and the run directory ends as a run never
    interrupted. No timing is assumed: the kill waits for files that say where the run
    is."""
    (folder / "gated.py").write_text(GATED_SYSTEM, encoding="utf-8")
    manifest = write_manifest(folder, "  - id: first\n    audio: blocks.wav\n"
                                      "  - id: held\n    audio: blocks.wav\n"
                                      "  - id: last\n    audio: blocks.wav\n", GATED)
    killed = folder / "killed"
    command = [sys.executable, "-m", "speecheval", "transcripts", "run", "--manifest",
               str(manifest), "--system", "gated", "--repeats", "2", "--out", str(killed),
               "--jobs", "2"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    driver = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    first = killed / "raw" / "gated" / "production_complete_file" / "first" / "r1" / "meta.json"
    try:
        while not ((folder / "holding").exists() and first.exists()):
            assert driver.poll() is None, "the run ended before the held call"
            time.sleep(0.05)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        (folder / "release").touch()  # the held call (an orphan now) ends
    held = killed / "raw" / "gated" / "production_complete_file" / "held"
    assert not (held / "r1").exists() or not (held / "r2").exists()
    assert cli("run", "--resume", killed, "--jobs", "2") == 0
    ran = int(capsys.readouterr().out.split(" jobs run now")[0].split()[-1])
    assert 1 <= ran <= 5  # at least the held call, at most all but first/r1
    assert cli("run", "--manifest", manifest, "--system", "gated", "--repeats", "2",
               "--out", folder / "unbroken") == 0
    resumed = contents(killed)
    assert len([n for n in resumed if n.endswith("meta.json")]) == 6
    assert resumed == contents(folder / "unbroken")
